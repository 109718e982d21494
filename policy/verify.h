/* Signed policies (DESIGN.md 2.3): the checks of run's --trust-key (and
 * launch's and wrap's), which sharness-exec-sign's verify makes too, so
 * both programs link this file. keygen and sign, which read private keys,
 * and verify and `hash --canonical` are sharness-exec-sign's (signer.c). */
#ifndef SHARNESS_VERIFY_H
#define SHARNESS_VERIFY_H

#include <stddef.h>
#include "key.h"
#include "load.h"

/* For probe, which lists every key and goes on: 1 and K when run would
 * take key file PATH, else 0 and what run would refuse it with in ERR. */
int key_public_read(const char *path, struct pubkey *k, char *err, size_t errlen);

/* run, after load_policy: refuse (exit 125, one line on stderr) unless
 * EXPECT_ID (when not NULL) is L's id, and, when NKEYS keys are given,
 * unless the signature in SIG (POLICY.sig when NULL) verifies L's
 * canonical bytes under one of them. Returns the fingerprint of the key
 * that verified, or NULL when no key was given. */
const char *sign_run_check(const struct loaded *l, const char *policy, const char *sig,
                           char *const *keys, size_t nkeys, const char *expect_id);

#endif
