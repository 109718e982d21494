/* Signed policies (DESIGN.md 2.3): the keygen, sign and verify
 * subcommands, and run's --trust-key step. */
#ifndef SHARNESS_SIGN_H
#define SHARNESS_SIGN_H

#include <stddef.h>
#include "frontend.h"

int cmd_keygen(int argc, char **argv);
int cmd_sign(int argc, char **argv);
int cmd_verify(int argc, char **argv);

/* Write the canonical bytes of the JSON object in PATH to standard output
 * (`hash --canonical`); 0, or 125 when refused. */
int canonical_print(const char *path);

/* run, after load_policy: refuse (exit 125, one line on stderr) unless
 * EXPECT_ID (when not NULL) is L's id, and, when NKEYS keys are given,
 * unless the signature in SIG (POLICY.sig when NULL) verifies L's
 * canonical bytes under one of them. Each key file gets the policy file's
 * ownership check. Returns the fingerprint of the key that verified, or
 * NULL when no key was given. */
const char *sign_run_check(const struct loaded *l, const char *policy, const char *sig,
                           char *const *keys, size_t nkeys, const char *expect_id);


#endif
