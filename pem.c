/* PEM reading and writing (pem.h), on BearSSL's br_pem_decoder, which
 * hands out one event at a time: an object begins, ends, or is broken. */
#include <string.h>
#include <bearssl.h>

#include "pem.h"

struct sink {
	unsigned char *buf;
	size_t cap, len;
	int over;
};

static void sink_take(void *ctx, const void *src, size_t n)
{
	struct sink *s = ctx;

	if (s->over || n > s->cap - s->len) {
		s->over = 1;
		return;
	}
	memcpy(s->buf + s->len, src, n);
	s->len += n;
}

/* A name may hold any byte but a newline: keep it printable ASCII. */
static void copy_name(char out[PEM_NAME_MAX], const char *name)
{
	size_t i;

	for (i = 0; name[i] && i < PEM_NAME_MAX - 1; i++)
		out[i] = name[i] >= 0x20 && name[i] < 0x7f ? name[i] : '?';
	out[i] = '\0';
}

enum pem_status pem_find(const void *text, size_t len, const char *name,
                         unsigned char *der, size_t cap, size_t *derlen,
                         char other[PEM_NAME_MAX], const char **why)
{
	br_pem_decoder_context pc;
	struct sink sink = { der, cap, 0, 0 };
	const unsigned char *p = text;
	size_t left = len;
	int in_object = 0, found = 0, tail = 0;

	*other = '\0';
	br_pem_decoder_init(&pc);
	for (;;) {
		size_t n;
		int ev;

		/* The END line of a file without a final newline is only
		 * seen once one follows. */
		if (!left && !tail) {
			p = (const unsigned char *)"\n";
			left = 1;
			tail = 1;
		}
		n = br_pem_decoder_push(&pc, p, left);
		p += n;
		left -= n;
		ev = br_pem_decoder_event(&pc);
		switch (ev) {
		case BR_PEM_BEGIN_OBJ:
			in_object = 1;
			if (!strcmp(br_pem_decoder_name(&pc), name)) {
				if (found) {
					*why = "more than one object of that name";
					return PEM_BAD;
				}
				found = 1;
				br_pem_decoder_setdest(&pc, sink_take, &sink);
			} else {
				/* The name to explain the file by: the first
				 * key of any kind, else the first object. */
				const char *seen = br_pem_decoder_name(&pc);
				if (!*other || (!strstr(other, "KEY") && strstr(seen, "KEY")))
					copy_name(other, seen);
				br_pem_decoder_setdest(&pc, NULL, NULL);
			}
			break;
		case BR_PEM_END_OBJ:
			in_object = 0;
			br_pem_decoder_setdest(&pc, NULL, NULL);
			break;
		case BR_PEM_ERROR:
			*why = "invalid PEM (bad base64)";
			return PEM_BAD;
		default:
			if (!n && left) {               /* cannot happen */
				*why = "invalid PEM";
				return PEM_BAD;
			}
			break;
		}
		if (!left && tail && !ev)
			break;
	}
	if (in_object) {
		*why = "invalid PEM (an object has no END line)";
		return PEM_BAD;
	}
	if (sink.over) {
		*why = "the object is too large";
		return PEM_BAD;
	}
	if (!found)
		return PEM_NONE;
	*derlen = sink.len;
	return PEM_FOUND;
}

size_t pem_encode(char *out, size_t cap, const void *der, size_t len, const char *name)
{
	size_t need = br_pem_encode(NULL, der, len, name, BR_PEM_LINE64);

	if (need >= cap)
		return 0;
	return br_pem_encode(out, der, len, name, BR_PEM_LINE64);
}
