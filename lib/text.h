/* Text, one copy each: quoting untrusted strings for messages, hex digits,
 * strict UTF-8, and byte-wise key order with the one duplicate check that
 * the JSON reader and the policy checker share. No allocation here but
 * qsort's; every program of sharness-exec links it. */
#ifndef SHARNESS_TEXT_H
#define SHARNESS_TEXT_H

#include <stddef.h>

/* Untrusted strings in messages (policy file names, rule paths, ids, keys,
 * commands) all go through quote(), so that no byte of theirs can end a
 * line or drive a terminal. QUOTE_ALWAYS gives a C string literal: \" \\
 * \n \r \t, every other control byte (C0, DEL, both bytes of a C1) and
 * every byte that is not part of valid UTF-8 in octal. QUOTE_IF_NEEDED
 * leaves a non-empty string with none of those bytes bare. At most
 * QUOTE_MAX bytes of S are shown, cut on a code point boundary and followed
 * by "..." when S is longer. Returns OUT. */
#define QUOTE_MAX  128
#define QUOTED_MAX (4 * QUOTE_MAX + 6)    /* '"' + 4 per byte + '"' + "..." + NUL */
enum { QUOTE_ALWAYS, QUOTE_IF_NEEDED };
const char *quote(char out[QUOTED_MAX], const char *s, size_t len, int mode);
/* quote() of the C string S into one of eight rotating static buffers, so
 * one message may quote several strings, showing up to PATH_MAX bytes:
 * q() QUOTE_ALWAYS, qn() QUOTE_IF_NEEDED. */
const char *q(const char *s);
const char *qn(const char *s);

/* The offset of the first sequence of S that is not strict UTF-8 (RFC
 * 3629: no overlong form, no surrogate, nothing above U+10FFFF), or LEN
 * when there is none. */
size_t utf8_check(const unsigned char *s, size_t len);
/* Code point CP (at most U+10FFFF) as UTF-8 into OUT; its length. */
size_t utf8_put(unsigned char out[4], unsigned long cp);

/* The value of hex digit C (either case), or -1. */
int hex_value(int c);
/* N bytes as 2 * N lowercase hex digits into OUT (no NUL added). */
void hex_encode(char *out, const unsigned char *in, size_t n);

/* Bytes S[0..N) as a JSON string, quotes included, through OUT(CTX, BYTES,
 * LEN): \" \\ \b \f \n \r \t, other bytes below 0x20 as \u00xx
 * (lowercase), all else raw. The canonical form's (hash.c) and the
 * report's (report.h), which need valid UTF-8 in S. */
void json_quote(void (*out)(void *ctx, const char *s, size_t n), void *ctx,
                const char *s, size_t n);

/* 1 when PATH equals DIR or lies beneath it, whole components compared
 * ("/tmpx" is not beneath "/tmp"; everything is beneath "/"; DIR's
 * trailing slashes do not count). */
int path_beneath(const char *path, const char *dir);

/* One entry of a list to check for duplicates: its bytes and its position
 * in the list. */
struct text_item {
	const char *s;
	size_t len;
	size_t at;     /* position: index or byte offset */
	size_t of;     /* set by text_duplicates: position of the first equal one */
};
/* qsort's arguments, sorted stably: a merge sort of pointers, then each
 * element moved once (qsort moves each with a memcpy call, n log n of
 * them, a visible part of the view and the front end at 10,000 rules).
 * 0, or -1 out of memory, BASE as it was. */
int sort_stable(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* Sort IT[0..N) by bytes (the order of JSON keys: code point order, then
 * length), equal ones by position. */
void text_sort(struct text_item *it, size_t n);
/* Sort IT[0..N) by bytes, and move every entry equal to an earlier one to
 * the front, in position order, with OF set; returns how many there are.
 * The rest of IT is left in an unspecified order. */
size_t text_duplicates(struct text_item *it, size_t n);

#endif
