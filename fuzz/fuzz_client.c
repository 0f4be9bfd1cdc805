/* libFuzzer: the client commands' reading of the daemon's answers
 * (src/cli/answer.c): zkpipe status, status JOB, keys, keys load, await's
 * proofs, submit's job id, cancel. Input: a selector byte (which answer),
 * then the answer's body. The daemon is not trusted: whatever it answers,
 * the commands must print a placeholder or refuse, never crash, hang or
 * leak. The printers write to /dev/null. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* answer.c is part of the zkpipe command, not of a library the fuzzers
 * link: built in here, it is fuzzed exactly as the command runs it. */
#include "cli/answer.c"

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    sink = fopen("/dev/null", "w");
    if (sink == NULL) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    unsigned sel = data[0] % 7;
    /* as client_call and await_job parse it (jansson rejects bad UTF-8) */
    json_t *root = json_loadb((const char *)data + 1, size - 1, 0, NULL);
    if (root == NULL) return 0;
    const char *why = NULL;
    switch (sel) {
    case 0: answer_print_status(sink, root); break;
    case 1: answer_print_job(sink, root); break;
    case 2: answer_print_keys(sink, root); break;
    case 3: answer_print_key(sink, root, 1); break;
    case 4:
        if (answer_check_proofs(root, &why) == 0) {
            json_t *proofs = json_object_get(root, "proofs");
            for (size_t k = 0; k < json_array_size(proofs); k++) {
                size_t i = answer_proof_partition(json_array_get(proofs, k), k);
                if (i >= json_array_size(proofs)) abort(); /* the check must bound it */
            }
        } else if (why == NULL) {
            abort();
        }
        break;
    case 5: fprintf(sink, "%llu\n", answer_job_id(root)); break;
    default:
        answer_put(sink, answer_str(json_object_get(root, "error"), "message", "?"), 0);
        answer_put(sink, answer_str(root, "state", "?"), 0);
        break;
    }
    json_decref(root);
    return 0;
}
