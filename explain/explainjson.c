/* run --explain's denials as the report's JSON array (sharness-exec-
 * report(5)), beside their printer (denials.c): the step writes it, in
 * one write, into the memfd of -D (the front end's) as its child ends,
 * and the supervisor puts it into the report as it is (supervise/report.c).
 * A target names the paths, so bytes that are not UTF-8 become U+FFFD: the
 * report stays JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "explain.h"

static void to_file(void *f, const char *s, size_t n)
{
	fwrite(s, 1, n, f);
}

/* S as a JSON string, each byte that is not UTF-8 as U+FFFD first, since
 * json_quote takes UTF-8 only. */
static void str(FILE *f, const char *s)
{
	static const char fffd[] = "\xef\xbf\xbd";
	size_t n = strlen(s), ok, len = 0;
	char *clean = malloc(3 * n + 1);

	if (!clean) {
		fputs("null", f);
		return;
	}
	while (n) {
		ok = utf8_check((const unsigned char *)s, n);
		memcpy(clean + len, s, ok);
		len += ok;
		s += ok;
		n -= ok;
		if (n) { /* one byte that is not UTF-8 */
			memcpy(clean + len, fffd, 3);
			len += 3;
			s++;
			n--;
		}
	}
	json_quote(to_file, f, clean, len);
	free(clean);
}

void denials_json(const struct denials *d, int fd)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (fd < 0 || !(f = open_memstream(&text, &len)))
		return;
	putc('[', f);
	for (size_t i = 0; i < d->n; i++) {
		const struct denial *x = &d->v[i];

		fputs(i ? ",{\"kind\":" : "{\"kind\":", f);
		str(f, x->kind);
		fputs(",\"what\":", f);
		str(f, x->what);
		fprintf(f, ",\"errno\":\"%s\",\"status\":", errname(x->err));
		str(f, x->status);
		fprintf(f, ",\"count\":%lu,\"allow\":", x->count);
		/* ALLOW is JSON already, members of the policy's top level;
		 * a path that is not UTF-8 no policy can hold. */
		if (x->allow && utf8_check((const unsigned char *)x->allow, strlen(x->allow)) ==
		    strlen(x->allow))
			fprintf(f, "{%s}", x->allow);
		else
			fputs("null", f);
		fputs(",\"why\":", f);
		if (x->why)
			str(f, x->why);
		else
			fputs("null", f);
		putc('}', f);
	}
	fprintf(f, "]");
	if (fclose(f) == 0 && len)
		write_all(fd, text, len);
	free(text);
}
