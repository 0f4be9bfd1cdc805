/* The client commands' reading of the daemon's answers, apart from the
 * connection so that a fuzzer can feed them anything (fuzz/fuzz_client.c).
 * The daemon is not trusted: a field may be missing, of another type, out
 * of range or full of control characters; every printer here then prints a
 * placeholder ("?", "-") or refuses, and never crashes. */
#ifndef ZP_CLI_ANSWER_H
#define ZP_CLI_ANSWER_H

#include <jansson.h>
#include <stdio.h>

/* The most rows of a table printed from one answer (timings, keys). */
#define ANSWER_MAX_ROWS 100000

/* s with every control character (C0, DEL, C1) written as '?': an answer
 * must not drive the terminal. Pads with spaces to width (0: none). */
void answer_put(FILE *out, const char *s, int width);
/* o[k] as a string, or dflt when missing or not a string. */
const char *answer_str(json_t *o, const char *k, const char *dflt);

/* GET /v1/status, GET /v1/jobs/N, GET /v1/keys, a key of it. */
void answer_print_status(FILE *out, json_t *s);
void answer_print_job(FILE *out, json_t *j);
void answer_print_key(FILE *out, json_t *k, int header);
void answer_print_keys(FILE *out, json_t *root);

/* A done job's proofs answer (GET /v1/jobs/N/proof, 200): 0 when "proofs" is
 * an array of at most ANSWER_MAX_ROWS objects, each with a "proof" object, a
 * "public" array and, when given, a "partition" in 0..n-1 seen once; *why
 * says what is wrong otherwise. */
int answer_check_proofs(json_t *root, const char **why);
/* The partition number of proofs[k] (checked by answer_check_proofs). */
size_t answer_proof_partition(json_t *p, size_t k);

/* A job id from POST /v1/jobs: 0 when "id" is not a positive integer. */
unsigned long long answer_job_id(json_t *root);

#endif
