/* text.c: quote(), q() and qn(), the one quoting of untrusted strings in
 * messages (issue 12), and UTF-8, hex and the duplicate check. TAP. */
#include <string.h>

#include "text.h"
#include "tap.h"

const char *progname = "test-quote";

static void is(const char *got, const char *want, const char *what)
{
	if (!tap_ok(!strcmp(got, want), "%s", what))
		tap_diag("got [%s], want [%s]", got, want);
}

int main(void)
{
	char out[QUOTED_MAX], big[QUOTE_MAX + 10];

	is(qn("/usr/lib"), "/usr/lib", "a plain path is left bare when it may be");
	is(q("/usr/lib"), "\"/usr/lib\"", "... and quoted when asked");
	is(qn(""), "\"\"", "the empty string is always quoted");
	is(qn("a b:c"), "a b:c", "spaces and colons are plain");
	is(qn("a\nb"), "\"a\\nb\"", "a newline is \\n");
	is(qn("a\r\tb"), "\"a\\r\\tb\"", "CR and tab");
	is(qn("say \"hi\" \\o/"), "\"say \\\"hi\\\" \\\\o/\"", "quote and backslash escaped");
	is(qn("\x1b[2K"), "\"\\033[2K\"", "ESC in octal");
	is(qn("\x7f"), "\"\\177\"", "DEL in octal");
	is(qn("\xc2\x85x\xc2\x9b"), "\"\\302\\205x\\302\\233\"", "C1 controls: both bytes");
	is(qn("\x9b" "1m"), "\"\\2331m\"", "a lone byte that is no UTF-8 (8-bit CSI)");
	is(qn("\xc3\xa9t\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80"), "\xc3\xa9t\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80",
	   "valid UTF-8 stays raw and bare");
	is(qn("\xe0\x80\xaf"), "\"\\340\\200\\257\"", "an overlong sequence is escaped");
	is(qn("\xed\xa0\x80"), "\"\\355\\240\\200\"", "a UTF-16 surrogate is escaped");
	is(qn("\xf4\x90\x80\x80"), "\"\\364\\220\\200\\200\"", "above U+10FFFF is escaped");
	is(quote(out, "a\0b", 3, QUOTE_IF_NEEDED), "\"a\\000b\"", "an embedded NUL");
	memset(big, 'x', sizeof big);
	big[QUOTE_MAX - 1] = '\xc3';
	big[QUOTE_MAX] = '\xa9';
	quote(out, big, sizeof big, QUOTE_IF_NEEDED);
	tap_ok(strlen(out) == 1 + QUOTE_MAX - 1 + 1 + 3 && !strcmp(out + strlen(out) - 4, "\"..."),
	       "cut at QUOTE_MAX on a code point boundary, quoted, then ...");
	is(q("x"), "\"x\"", "q() again: the rotating buffers are independent");
	{
		const char *a = q("one"), *b = q("two");
		tap_ok(!strcmp(a, "\"one\"") && !strcmp(b, "\"two\""), "two q() in one message");
	}
	{
		const unsigned char ok[] = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", bad[] = "ab\xed\xa0\x80";
		unsigned char u[4];
		char hex[5] = "";

		tap_ok(utf8_check(ok, sizeof ok - 1) == sizeof ok - 1, "utf8_check: valid text");
		tap_ok(utf8_check(bad, sizeof bad - 1) == 2, "utf8_check: the offset of a surrogate");
		tap_ok(utf8_put(u, 0x1f600) == 4 && !memcmp(u, "\xf0\x9f\x98\x80", 4) &&
		       utf8_put(u, 0xe9) == 2 && !memcmp(u, "\xc3\xa9", 2) &&
		       utf8_put(u, 0x20ac) == 3 && !memcmp(u, "\xe2\x82\xac", 3), "utf8_put");
		hex_encode(hex, (const unsigned char *)"\x0f\xa0", 2);
		tap_ok(!strcmp(hex, "0fa0") && hex_value('F') == 15 && hex_value('g') == -1, "hex");
	}
	{
		struct text_item it[] = { { "b", 1, 0, 0 }, { "a", 1, 1, 0 }, { "b", 1, 2, 0 },
		                          { "ab", 2, 3, 0 }, { "a", 1, 4, 0 }, { "b", 1, 5, 0 } };
		size_t n = text_duplicates(it, 6);

		tap_ok(n == 3 && it[0].at == 2 && it[0].of == 0 && it[1].at == 4 && it[1].of == 1 &&
		       it[2].at == 5 && it[2].of == 0, "text_duplicates: later ones, in order, with the first");
	}
	return tap_done();
}
