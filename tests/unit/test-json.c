/* Unit tests of the strict JSON reader (json.c): what it accepts, what it
 * refuses and with which message, the token array it hands out, and the
 * accessors. TAP on stdout. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tap.h"

const char *progname = "test-json";

static char err[256];

/* WHAT fit for one TAP line: controls and non-ASCII as \xNN, cut at 70. */
static const char *show(const char *what, size_t n)
{
	static char buf[4 * 70 + 4];
	char *p = buf;
	size_t i;

	for (i = 0; i < n && i < 70; i++) {
		unsigned char c = (unsigned char)what[i];

		if (c >= 0x20 && c < 0x7f)
			*p++ = (char)c;
		else
			p += sprintf(p, "\\x%02x", c);
	}
	strcpy(p, i < n ? "..." : "");
	return buf;
}

static int parse_n(struct json_doc *doc, const char *s, size_t n)
{
	err[0] = '\0';
	return json_parse(doc, s, n, err, sizeof err);
}

/* Accepted, and the document freed again. */
static void accept_n(const char *s, size_t n, const char *what)
{
	struct json_doc doc;
	int ok = parse_n(&doc, s, n);

	if (!tap_ok(ok, "accepts %s", show(what, strlen(what))))
		tap_diag("refused: %s", err);
	json_free(&doc);
}

static void accept(const char *s)
{
	accept_n(s, strlen(s), s);
}

/* Refused with exactly the message WANT (or, when WANT ends in '*', a
 * message starting with it), and nothing left to free. */
static void refuse_n(const char *s, size_t n, const char *what, const char *want)
{
	struct json_doc doc;
	int ok = !parse_n(&doc, s, n);
	size_t wl = strlen(want);
	int same = want[wl - 1] == '*' ? !strncmp(err, want, wl - 1) : !strcmp(err, want);

	if (!tap_ok(ok && same && doc.tok == NULL, "refuses %s: %s",
	            show(what, strlen(what)), want))
		tap_diag(ok ? "message: %s" : "accepted", err);
	if (!ok)
		json_free(&doc);
}

static void refuse(const char *s, const char *want)
{
	refuse_n(s, strlen(s), s, want);
}

/* {"a": + DEPTH-2 nested arrays around SCALAR + }: SCALAR is at level DEPTH
 * (the top-level object is level 1, as canon.py counts). */
static char *nested(unsigned depth, const char *scalar)
{
	size_t n = strlen(scalar) + 2 * depth + 16, i;
	char *s = malloc(n), *p = s;

	p += sprintf(p, "{\"a\":");
	for (i = 2; i < depth; i++)
		*p++ = '[';
	p += sprintf(p, "%s", scalar);
	for (i = 2; i < depth; i++)
		*p++ = ']';
	*p++ = '}';
	*p = '\0';
	return s;
}

static void test_grammar(void)
{
	accept("{}");
	accept(" \t\r\n{ \t\r\n\"a\" \t\r\n: \t\r\n1 \t\r\n} \t\r\n");
	accept("{\"a\":[],\"b\":{},\"c\":[[]],\"d\":[{}],\"e\":\"\"}");
	accept("{\"a\":[1,\"x\",true,false,null,{\"b\":[]}]}");
	accept("{\"\":0}");

	/* jsmn alone takes all of these. */
	refuse("{\"a\":[1 2]}", "expected ',' at line 1, column 9");
	refuse("{\"a\" 1}", "unexpected '1' at line 1, column 6");
	refuse("{\"a\":[1,]}", "unexpected ',' at line 1, column 8");
	refuse("{,}", "unexpected ',' at line 1, column 2");
	refuse("{\"a\":1,}", "unexpected ',' at line 1, column 7");
	refuse("{\"a\":1,,\"b\":2}", "unexpected ',' at line 1, column 8");
	refuse("{\"a\"::1}", "unexpected ':' at line 1, column 6");
	refuse("{\"a\":1 \"b\":2}", "unexpected '\"' at line 1, column 8");
	refuse("{\"a\":1\"b\"}", "invalid number at line 1, column 6");    /* jsmn: one primitive */
	refuse("{\"a\":[1}]}", "unexpected '}' at line 1, column 8");
	refuse("{\"a\":[1]]}", "unexpected ']' at line 1, column 9");
	refuse("{\"a\":1:2}", "invalid number at line 1, column 6");
	refuse("{\"a\":{\"b\"}}", "expected ':' at line 1, column 10");
	refuse("{1:2}", "unexpected '1' at line 1, column 2");
	refuse("{\"a\":'x'}", "unexpected ''' at line 1, column 6");
	refuse("{\"a\":x}", "unexpected 'x' at line 1, column 6");
	refuse("{\"a\":tru}", "invalid literal at line 1, column 6");
	refuse("{\"a\":truex}", "invalid literal at line 1, column 6");
	refuse("{\"a\":True}", "unexpected 'T' at line 1, column 6");
	refuse("{\"a\":nulll}", "invalid literal at line 1, column 6");
	refuse("{\"a\":NaN}", "unexpected 'N' at line 1, column 6");
	refuse("{\"a\":Infinity}", "unexpected 'I' at line 1, column 6");
	refuse("{\"a\":-Infinity}", "invalid number at line 1, column 6");
	refuse("{\"a\":1", "unexpected end of input at line 1, column 7");
	refuse("{\"a\":", "unexpected end of input at line 1, column 6");
	refuse("{\"a\"", "unexpected end of input at line 1, column 5");
	refuse("{", "unexpected end of input at line 1, column 2");
	refuse("{\"a", "unterminated string at line 1, column 2");
	refuse("{\"a\":\"b\\", "unterminated string at line 1, column 6");

	/* Only one object, nothing after it but whitespace. */
	refuse("{}{}", "unexpected '{' at line 1, column 3 (after the top-level object)");
	refuse("{} x", "unexpected 'x' at line 1, column 4 (after the top-level object)");
	refuse("{}\f", "unexpected byte 0x0c at line 1, column 3 (after the top-level object)");
	/* jsmn stops reading at a NUL: none gets to it. */
	refuse_n("{\"a\":1}\0", 8, "{\"a\":1}NUL", "NUL byte at line 1, column 8");
	refuse_n("{\"a\":\0}", 7, "NUL as a value", "NUL byte at line 1, column 6");
	refuse("\v{}", "top level is not an object at line 1, column 1");
	refuse("{\"a\":\xc2\xa0" "1}", "unexpected byte 0xc2 at line 1, column 6");

	/* Where: a line and a column, both from 1, the column in characters. */
	refuse("{\n  \"a\": 1,\n  \"a\": 2\n}", "duplicate key \"a\" at line 3, column 3");
	refuse("{\r\n\"a\":1,\r\n}", "unexpected ',' at line 2, column 6");
	refuse("{\"\xc3\xa9\": x}", "unexpected 'x' at line 1, column 7");
	refuse("{\"\xc3\xa9\xff\":1}", "invalid UTF-8 at line 1, column 4");
	refuse("{\n", "unexpected end of input at line 2, column 1");
	refuse("{\n\t\"a\":1}\n\n{}", "unexpected '{' at line 4, column 1 (after the top-level object)");

	/* The top level. */
	refuse("", "empty document");
	refuse(" \n\t\r ", "empty document");
	refuse("[]", "top level is not an object at line 1, column 1");
	refuse("  \"a\"", "top level is not an object at line 1, column 3");
	refuse("1", "top level is not an object at line 1, column 1");
	refuse("null", "top level is not an object at line 1, column 1");
	refuse("\xef\xbb\xbf{}", "starts with a byte-order mark");
	accept("{\"a\":\"\xef\xbb\xbf\"}");   /* U+FEFF inside a string is text */
}

static void test_numbers(void)
{
	char big[1100];

	accept("{\"a\":0,\"b\":-0,\"c\":10,\"d\":-10,\"e\":123456789}");
	accept("{\"a\":9007199254740991}");
	accept("{\"a\":-9007199254740991}");
	refuse("{\"a\":9007199254740992}", "a: integer out of range at line 1, column 6");
	refuse("{\"a\":-9007199254740992}", "a: integer out of range at line 1, column 6");
	refuse("{\"a\":10000000000000000}", "a: integer out of range at line 1, column 6");
	refuse("{\"a\":1.0}", "a: not an integer at line 1, column 6");
	refuse("{\"a\":1e3}", "a: not an integer at line 1, column 6");
	refuse("{\"a\":1E3}", "a: not an integer at line 1, column 6");
	refuse("{\"a\":1e+3}", "a: not an integer at line 1, column 6");
	refuse("{\"a\":-0.0}", "a: not an integer at line 1, column 6");
	refuse("{\"a\":0e0}", "a: not an integer at line 1, column 6");
	refuse("{\"pbp\":1,\"n\":[1,2,3.5]}", "n[2]: not an integer at line 1, column 19");
	/* where the number stands, named as the policy checker names keys */
	refuse("{\"process\":{\"max_cpu_percent\":50.5}}",
	       "process.max_cpu_percent: not an integer at line 1, column 31");
	refuse("{\"a b\":[{\"c\":[0,{\"d-e_1\":1e2}]}]}",
	       "\"a b\"[0].c[1].d-e_1: not an integer at line 1, column 26");
	refuse("{\"\\u0001\":1.5}", "\"\\001\": not an integer at line 1, column 11");
	refuse("{\"a\":01}", "invalid number at line 1, column 6");
	refuse("{\"a\":-01}", "invalid number at line 1, column 6");
	refuse("{\"a\":00}", "invalid number at line 1, column 6");
	refuse("{\"a\":1.}", "invalid number at line 1, column 6");
	refuse("{\"a\":.5}", "unexpected '.' at line 1, column 6");
	refuse("{\"a\":1.e3}", "invalid number at line 1, column 6");
	refuse("{\"a\":1e}", "invalid number at line 1, column 6");
	refuse("{\"a\":1e+}", "invalid number at line 1, column 6");
	refuse("{\"a\":+1}", "unexpected '+' at line 1, column 6");
	refuse("{\"a\":-}", "invalid number at line 1, column 6");
	refuse("{\"a\":--1}", "invalid number at line 1, column 6");
	refuse("{\"a\":1x}", "invalid number at line 1, column 6");
	refuse("{\"a\":0x10}", "invalid number at line 1, column 6");
	refuse("{\"a\":1.2.3}", "invalid number at line 1, column 6");

	/* A thousand digits: refused without converting anything. */
	memcpy(big, "{\"a\":", 5);
	memset(big + 5, '9', 1000);
	memcpy(big + 1005, "}", 2);
	refuse(big, "a: integer out of range at line 1, column 6");
	big[5] = '-';
	refuse(big, "a: integer out of range at line 1, column 6");
}

static void test_strings(void)
{
	accept("{\"a\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"}");
	accept("{\"a\":\"\\u0000\\u001f\\u0041\\u00e9\\u4e2d\\uFFFF\"}");
	accept("{\"a\":\"\\ud83d\\ude00\\uD83D\\uDE00\\udbff\\udfff\"}");
	accept("{\"a\":\"\x7f\"}");                  /* DEL is not a control here */
	accept("{\"a\":\"\xe2\x80\xa8\"}");          /* U+2028 raw */
	refuse("{\"a\":\"\\x41\"}", "invalid escape at line 1, column 7");
	refuse("{\"a\":\"\\U0041\"}", "invalid escape at line 1, column 7");
	refuse("{\"a\":\"\\'\"}", "invalid escape at line 1, column 7");
	refuse("{\"a\":\"\\u12\"}", "invalid \\u escape at line 1, column 7");
	refuse("{\"a\":\"\\u12G4\"}", "invalid \\u escape at line 1, column 7");
	refuse("{\"a\":\"\\ud800\"}", "lone surrogate \\ud800 at line 1, column 7");
	refuse("{\"a\":\"\\udc00\"}", "lone surrogate \\udc00 at line 1, column 7");
	refuse("{\"a\":\"\\ud800\\u0041\"}", "lone surrogate \\ud800 at line 1, column 7");
	refuse("{\"a\":\"\\ud800\\ud800\"}", "lone surrogate \\ud800 at line 1, column 7");
	refuse("{\"a\":\"\\ud800x\"}", "lone surrogate \\ud800 at line 1, column 7");
	refuse("{\"a\":\"\\udc00\\ud800\"}", "lone surrogate \\udc00 at line 1, column 7");
	refuse("{\"\\ud800\":1}", "lone surrogate \\ud800 at line 1, column 3");
	refuse("{\"a\":\"x\ty\"}", "control character 0x09 in a string at line 1, column 8");
	refuse("{\"a\":\"\n\"}", "control character 0x0a in a string at line 1, column 7");
	refuse("{\"a\":\"\x1f\"}", "control character 0x1f in a string at line 1, column 7");
	refuse_n("{\"a\":\"\0\"}", 9, "a raw NUL in a string", "NUL byte at line 1, column 7");
	refuse("{\"a\":\"0123456789abcdefghijklmnopqrstuvwxyz\x01\"}",
	       "control character 0x01 in a string at line 1, column 43");
	refuse("{\"a\":\"0123456789abcdef", "unterminated string at line 1, column 6");
}

static void test_utf8(void)
{
	accept("{\"\xc3\xa9\":\"\xe4\xb8\xad\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\xef\xbf\xbf\"}");
	refuse("{\"a\xff\":1}", "invalid UTF-8 at line 1, column 4");
	refuse("{\"\x80\":1}", "invalid UTF-8 at line 1, column 3");              /* lone continuation */
	refuse("{\"\xc0\x80\":1}", "invalid UTF-8 at line 1, column 3");          /* overlong NUL */
	refuse("{\"\xc1\xbf\":1}", "invalid UTF-8 at line 1, column 3");          /* overlong */
	refuse("{\"\xe0\x80\xaf\":1}", "invalid UTF-8 at line 1, column 3");      /* overlong '/' */
	refuse("{\"\xf0\x8f\xbf\xbf\":1}", "invalid UTF-8 at line 1, column 3");  /* overlong */
	refuse("{\"\xed\xa0\x80\":1}", "invalid UTF-8 at line 1, column 3");      /* U+D800 */
	refuse("{\"\xed\xbf\xbf\":1}", "invalid UTF-8 at line 1, column 3");      /* U+DFFF */
	refuse("{\"\xf4\x90\x80\x80\":1}", "invalid UTF-8 at line 1, column 3");  /* U+110000 */
	refuse("{\"\xf5\x80\x80\x80\":1}", "invalid UTF-8 at line 1, column 3");
	refuse("{\"\xe4\xb8\":1}", "invalid UTF-8 at line 1, column 3");          /* truncated */
	refuse("{\"\xc3\":1}", "invalid UTF-8 at line 1, column 3");
	refuse("{\"a\":1}\xe4\xb8", "invalid UTF-8 at line 1, column 8");         /* at the very end */
	refuse("{\"a\":1}\xf0\x9f\x98", "invalid UTF-8 at line 1, column 8");
	refuse("{\"abcdefghijklmnop\xc3\x28\":1}", "invalid UTF-8 at line 1, column 19");
	refuse("{}\xc3\xa9", "unexpected byte 0xc3 at line 1, column 3 (after the top-level object)");
}

static void test_duplicates(void)
{
	char *s;
	size_t i, n;
	char *p;

	accept("{\"a\":1,\"b\":{\"a\":2},\"c\":[{\"a\":3},{\"a\":4}]}");
	accept("{\"a\":1,\"A\":2,\"a \":3,\"\":4,\"\\u0000\":5,\"\\u0000\\u0000\":6}");
	refuse("{\"a\":1,\"a\":2}", "duplicate key \"a\" at line 1, column 8");
	refuse("{\"a\":1,\"\\u0061\":2}", "duplicate key \"a\" at line 1, column 8");
	refuse("{\"\\u0061\":1,\"a\":2}", "duplicate key \"a\" at line 1, column 13");
	refuse("{\"\\/\":1,\"/\":2}", "duplicate key \"/\" at line 1, column 9");
	refuse("{\"\\ud83d\\ude00\":1,\"\xf0\x9f\x98\x80\":2}",
	       "duplicate key \"\xf0\x9f\x98\x80\" at line 1, column 19");
	refuse("{\"x\":{\"b\":1,\"c\":2,\"b\":3}}", "duplicate key \"b\" at line 1, column 19");
	refuse("{\"pbp\":1,\"id\":\"x\",\"files\":{},\"id\":\"y\"}",
	       "duplicate key \"id\" at line 1, column 30");
	refuse("{\"b\":1,\"a\":1,\"b\":1,\"a\":1}", "duplicate key \"b\" at line 1, column 14");
	refuse("{\"0123456789012345678901234567890123456789xyz\":1,"
	       "\"0123456789012345678901234567890123456789xyz\":1}",
	       "duplicate key \"0123456789012345678901234567890123456789xyz\" at line 1, column 50");

	/* 100,000 keys in one object: sorted, not compared pairwise. */
	n = 100000;
	s = malloc(n * 12 + 64);
	p = s;
	*p++ = '{';
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s\"%05zx\":0", i ? "," : "", (i * 7919) % n);
	strcpy(p, "}");
	accept_n(s, strlen(s), "100,000 distinct keys");
	strcpy(p, ",\"\\u0030\\u0030\\u0030\\u0030\\u0031\":1}");
	refuse_n(s, strlen(s), "100,000 keys and one duplicate (escaped)", "duplicate key *");
	free(s);
}

static void test_depth(void)
{
	char *s;
	size_t n = 100000;

	s = nested(64, "1");
	accept_n(s, strlen(s), "a scalar at level 64");
	free(s);
	s = nested(64, "[]");
	accept_n(s, strlen(s), "an empty array at level 64");
	free(s);
	s = nested(64, "{}");
	accept_n(s, strlen(s), "an empty object at level 64");
	free(s);
	s = nested(65, "1");
	refuse_n(s, strlen(s), "a scalar at level 65", "nested deeper than 64 at line 1, column 69");
	free(s);
	s = nested(65, "[]");
	refuse_n(s, strlen(s), "an empty array at level 65", "nested deeper than 64 at line 1, column 69");
	free(s);

	/* 100,000 open brackets: refused at level 65, no deep recursion. */
	s = malloc(2 * n + 8);
	memcpy(s, "{\"a\":", 5);
	memset(s + 5, '[', n);
	memset(s + 5 + n, ']', n);
	memcpy(s + 5 + 2 * n, "}", 2);
	refuse_n(s, strlen(s), "100,000 nested arrays", "nested deeper than 64 at line 1, column 69");
	s[5 + n] = '\0';
	refuse_n(s, strlen(s), "100,000 unclosed arrays", "nested deeper than 64 at line 1, column 69");
	memset(s, '[', n);
	refuse_n(s, n, "100,000 brackets at the top", "top level is not an object at line 1, column 1");

	/* Brackets inside strings are text, after an escaped quote too. */
	memcpy(s, "{\"a\":\"\\\"", 8);
	memset(s + 8, '[', n);
	memcpy(s + 8 + n, "\\\\\"}", 4);
	accept_n(s, 8 + n + 4, "100,000 brackets inside a string");

	/* The depth is a bound, checked before the grammar. */
	memcpy(s, "{\"a\":01,\"b\":", 12);
	memset(s + 12, '[', n);
	refuse_n(s, 12 + n, "an invalid number before 100,000 brackets",
	         "nested deeper than 64 at line 1, column 76");
	free(s);
}

static void test_size(void)
{
	size_t n = JSON_MAX_BYTES;
	char *s = malloc(n + 1);

	memset(s, ' ', n + 1);
	memcpy(s, "{\"a\":\"", 6);
	memset(s + 6, 'x', n - 8);
	memcpy(s + n - 2, "\"}", 2);
	accept_n(s, n, "exactly 1 MiB");
	refuse_n(s, n + 1, "1 MiB and one byte", "larger than 1 MiB (1048577 bytes)");
	free(s);
}

#define TY(i) json_type(&doc, i)
#define NX(i) json_next(&doc, i)
#define SZ(i) doc.tok[i].size

static void test_tokens(void)
{
	const char *text = " {\"a\": [1, {\"b\": null}], \"c\\n\": \"x\\u00e9y\", "
	                   "\"d\": -0, \"e\": {}, \"f\": true, \"g\": [[], false]}";
	struct json_doc doc;
	const jsmntok_t *t;
	char *s;
	size_t n;
	unsigned a, c, e, g;

	if (!tap_ok(parse_n(&doc, text, strlen(text)), "token document parses")) {
		tap_diag("%s", err);
		return;
	}
	t = doc.tok;
	tap_ok(doc.ntok == 19, "19 tokens (%u)", doc.ntok);
	tap_ok(TY(0) == JSON_OBJECT && SZ(0) == 6 && NX(0) == 19 &&
	       t[0].start == 1 && (size_t)t[0].end == strlen(text),
	       "top object: 6 keys, spans the text, next is the end");
	tap_ok(TY(1) == JSON_STRING && t[1].start == 3 && t[1].end == 4 && SZ(1) == 1,
	       "a key is a string token inside its quotes, with one value");
	a = json_get(&doc, 0, "a");
	tap_ok(a == 2 && TY(a) == JSON_ARRAY && SZ(a) == 2 && NX(a) == 7,
	       "\"a\": array of 2, next skips its subtree");
	tap_ok(TY(3) == JSON_NUMBER && json_integer(&doc, 3) == 1, "a[0] is 1");
	tap_ok(TY(4) == JSON_OBJECT && SZ(4) == 1 && NX(4) == 7 && TY(6) == JSON_NULL,
	       "a[1] is {\"b\": null}");
	c = json_get(&doc, 0, "c\n");
	tap_ok(c == 8 && json_streq(&doc, 7, "c\n") && !json_streq(&doc, 7, "c"),
	       "an escaped key is found by its decoded value");
	s = json_string(&doc, c, &n);
	tap_ok(s && n == 4 && !memcmp(s, "x\xc3\xa9y", 5), "json_string decodes \\u00e9");
	free(s);
	tap_ok(json_integer(&doc, json_get(&doc, 0, "d")) == 0, "-0 is 0");
	e = json_get(&doc, 0, "e");
	tap_ok(TY(e) == JSON_OBJECT && SZ(e) == 0 && NX(e) == e + 1,
	       "an empty object has size 0 and next = itself + 1");
	tap_ok(TY(json_get(&doc, 0, "f")) == JSON_TRUE, "true");
	g = json_get(&doc, 0, "g");
	tap_ok(SZ(g) == 2 && TY(g + 1) == JSON_ARRAY && SZ(g + 1) == 0 &&
	       TY(g + 2) == JSON_FALSE && NX(g) == 19, "[[], false]");
	tap_ok(json_get(&doc, 0, "zz") == 0 && json_get(&doc, 0, "") == 0 &&
	       json_get(&doc, 0, "c") == 0, "an absent key gives 0");
	tap_ok(json_get(&doc, 4, "b") == 6, "json_get in a nested object");
	tap_ok(!json_streq(&doc, 3, "1"), "json_streq is false for a non-string");
	json_free(&doc);
	tap_ok(doc.tok == NULL && doc.ntok == 0, "json_free empties the document");
	json_free(&doc);
}

static void test_accessors(void)
{
	const char *text = "{\"n\":9007199254740991,\"m\":-9007199254740991,"
	                   "\"z\":\"a\\u0000b\",\"e\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\","
	                   "\"s\":\"\\ud83d\\ude00\\u4e2d\\u00e9A\"}";
	struct json_doc doc;
	char *s;
	size_t n;

	if (!tap_ok(parse_n(&doc, text, strlen(text)), "accessor document parses"))
		return;
	tap_ok(json_integer(&doc, json_get(&doc, 0, "n")) == JSON_MAX_SAFE, "2^53-1");
	tap_ok(json_integer(&doc, json_get(&doc, 0, "m")) == -JSON_MAX_SAFE, "-(2^53-1)");
	s = json_string(&doc, json_get(&doc, 0, "z"), &n);
	tap_ok(s && n == 3 && !memcmp(s, "a\0b", 4), "\\u0000 decodes to an embedded NUL");
	tap_ok(!json_streq(&doc, json_get(&doc, 0, "z"), "a"),
	       "json_streq does not stop at an embedded NUL");
	free(s);
	s = json_string(&doc, json_get(&doc, 0, "e"), &n);
	tap_ok(s && n == 8 && !memcmp(s, "\"\\/\b\f\n\r\t", 9), "every short escape decodes");
	free(s);
	s = json_string(&doc, json_get(&doc, 0, "s"), &n);
	tap_ok(s && n == 10 && !memcmp(s, "\xf0\x9f\x98\x80\xe4\xb8\xad\xc3\xa9" "A", 11),
	       "a surrogate pair decodes to one 4-byte sequence");
	tap_ok(json_streq(&doc, json_get(&doc, 0, "s"),
	                  "\xf0\x9f\x98\x80\xe4\xb8\xad\xc3\xa9" "A"), "json_streq with \\u escapes");
	tap_ok(!json_streq(&doc, json_get(&doc, 0, "s"),
	                   "\xf0\x9f\x98\x80\xe4\xb8\xad\xc3\xa9"), "json_streq: a prefix is not equal");
	free(s);
	/* json_str: raw text without escapes, the decoded arena with them;
	 * both stay valid together (the canonical form sorts such pointers). */
	{
		size_t zn, en, an;
		const char *z = json_str(&doc, json_get(&doc, 0, "z"), &zn);
		const char *e = json_str(&doc, json_get(&doc, 0, "e"), &en);
		const char *a = json_str(&doc, 1, &an);

		tap_ok(zn == 3 && !memcmp(z, "a\0b", 3) && en == 8 &&
		       !memcmp(e, "\"\\/\b\f\n\r\t", 8), "json_str: two decoded strings at once");
		tap_ok(an == 1 && a == text + 2, "json_str: a string without escapes is the text");
	}
	json_free(&doc);
	tap_ok(doc.decoded == NULL, "json_free frees the decoded strings");
}

int main(void)
{
	test_grammar();
	test_numbers();
	test_strings();
	test_utf8();
	test_duplicates();
	test_depth();
	test_size();
	test_tokens();
	test_accessors();
	return tap_done();
}
