/* PEM (RFC 7468) on BearSSL's decoder and encoder: find the one object of
 * a given name in a file that may hold others (`openssl ecparam -genkey`
 * writes "EC PARAMETERS" before "EC PRIVATE KEY"), and write one. No heap;
 * the text is untrusted and may be any bytes. */
#ifndef SHARNESS_PEM_H
#define SHARNESS_PEM_H

#include <stddef.h>

#define PEM_NAME_MAX 128   /* BearSSL's limit, NUL included */

enum pem_status {
	PEM_FOUND,   /* exactly one object named NAME, decoded whole */
	PEM_NONE,    /* no object named NAME */
	PEM_BAD      /* not valid PEM, or NAME twice, or too large */
};

/* Look through TEXT (LEN bytes) for an object named NAME (upper case);
 * every other object is skipped, and bytes between objects are ignored.
 * PEM_FOUND: its contents are in DER (at most CAP bytes), their length in
 * *DERLEN. PEM_NONE: OTHER holds the name of the first other object whose
 * name holds "KEY", else of the first other object, or "" when there is
 * none. PEM_BAD: *WHY says what is wrong, as a phrase. */
enum pem_status pem_find(const void *text, size_t len, const char *name,
                         unsigned char *der, size_t cap, size_t *derlen,
                         char other[PEM_NAME_MAX], const char **why);

/* Write DER (LEN bytes) as one PEM object named NAME into OUT, which holds
 * CAP bytes: 64-character lines, each ended by a newline, as openssl
 * writes them. Returns the length written (a NUL follows it), or 0 when
 * OUT is too small. */
size_t pem_encode(char *out, size_t cap, const void *der, size_t len, const char *name);

#endif
