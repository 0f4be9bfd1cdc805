/* Reading and printing the daemon's answers (answer.h): pure functions of
 * the answer, no connection, no exit. */
#include "cli/answer.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void answer_put(FILE *out, const char *s, int width) {
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++, n++) {
        unsigned char c = *p;
        /* U+0080..U+009F (C1) are 0xC2 0x80..0x9F in UTF-8 */
        if (c == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
            fputc('?', out);
            p++;
        } else {
            fputc(c < 0x20 || c == 0x7f ? '?' : c, out);
        }
    }
    for (; n < width; n++) fputc(' ', out);
}

const char *answer_str(json_t *o, const char *k, const char *dflt) {
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : dflt;
}

/* A number for a table: 0 when absent or not a number. */
static double num(json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }

/* A count or size as text; "?" past what a daemon can hold (|v| > 2^63). */
static const char *count_str(char *buf, size_t len, double v) {
    if (!isfinite(v) || fabs(v) > 9.2e18) return "?";
    snprintf(buf, len, "%.0f", v);
    return buf;
}

/* Bytes for people: "512 B", "3.2 MB". */
static const char *size_str(char *buf, size_t len, double b) {
    static const char *units[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
    if (!isfinite(b) || b < 0 || b > 1.9e19) return "?";
    int u = 0;
    while (b >= 1024 && u < 6) {
        b /= 1024;
        u++;
    }
    snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", b, units[u]);
    return buf;
}

void answer_print_status(FILE *out, json_t *s) {
    char a[32], b[32], d[32], e[32];
    fputs("zkpipe ", out);
    answer_put(out, answer_str(s, "version", "?"), 0);
    fprintf(out, ", up %s s, keys loaded: %s\n", count_str(a, sizeof a, num(s, "uptime")),
            count_str(b, sizeof b, num(s, "keys_loaded")));
    fprintf(out, "memory: budget %s (%s for buffers), reserved %s (peak %s)", size_str(a, sizeof a, num(s, "budget")),
            size_str(e, sizeof e, num(s, "buffer_budget")), size_str(b, sizeof b, num(s, "reserved")),
            size_str(d, sizeof d, num(s, "peak_reserved")));
    fprintf(out, ", tracked %s (peak %s)\n", size_str(a, sizeof a, num(s, "tracked")),
            size_str(b, sizeof b, num(s, "peak_tracked")));
    fprintf(out, "RSS: %s (peak %s, %s at start)\n", size_str(a, sizeof a, num(s, "rss")),
            size_str(b, sizeof b, num(s, "peak_rss")), size_str(d, sizeof d, num(s, "baseline_rss")));
    json_t *w = json_object_get(s, "workers");
    fprintf(out, "workers: synth %s, prove %s, finalize %s, ", count_str(a, sizeof a, num(w, "synth")),
            count_str(b, sizeof b, num(w, "prove")), count_str(d, sizeof d, num(w, "finalize")));
    fprintf(out, "queues of %s; %s partitions waiting for admission\n", count_str(a, sizeof a, num(w, "queue")),
            count_str(e, sizeof e, num(s, "admission_waiting")));
    fprintf(out, "stages (partitions, buffers, bytes, most partitions):\n");
    const char *key;
    json_t *v;
    size_t rows = 0;
    json_object_foreach(json_object_get(s, "stages"), key, v) {
        if (rows++ == ANSWER_MAX_ROWS) break;
        fputs("  ", out);
        answer_put(out, key, 11);
        fprintf(out, " %4s  %5s  %10s  %4s\n", count_str(a, sizeof a, num(v, "partitions")),
                count_str(b, sizeof b, num(v, "count")), size_str(d, sizeof d, num(v, "bytes")),
                count_str(e, sizeof e, num(v, "max_partitions")));
    }
    fprintf(out, "buffers by class (count, bytes, peak):\n");
    rows = 0;
    json_object_foreach(json_object_get(s, "classes"), key, v) {
        if (rows++ == ANSWER_MAX_ROWS) break;
        fputs("  ", out);
        answer_put(out, key, 11);
        fprintf(out, " %5s  %10s  %10s\n", count_str(a, sizeof a, num(v, "count")),
                size_str(b, sizeof b, num(v, "bytes")), size_str(d, sizeof d, num(v, "peak")));
    }
    fprintf(out, "jobs:");
    int first = 1;
    rows = 0;
    json_object_foreach(json_object_get(s, "jobs"), key, v) {
        if (rows++ == ANSWER_MAX_ROWS) break;
        fputs(first ? " " : ", ", out);
        answer_put(out, key, 0);
        fprintf(out, " %s", count_str(a, sizeof a, json_number_value(v)));
        first = 0;
    }
    fprintf(out, "; %s proofs, %s partitions failed\n", count_str(a, sizeof a, num(s, "proofs")),
            count_str(b, sizeof b, num(s, "partitions_failed")));
}

/* A Unix time as local time; "?" when it is not one a calendar holds
 * (localtime_r fails past year 2^31, and a double past time_t's range
 * does not even convert). */
static void print_time(FILE *out, const char *label, json_t *t) {
    if (!json_is_number(t)) return;
    double v = json_number_value(t);
    struct tm tm;
    char buf[64] = "?";
    /* +-1e12 s is +-31,000 years: within time_t and what localtime_r takes */
    if (isfinite(v) && fabs(v) < 1e12) {
        time_t secs = (time_t)v;
        if (localtime_r(&secs, &tm) == NULL || strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm) == 0) {
            strcpy(buf, "?");
        }
    }
    fprintf(out, "%s %s", label, buf);
}

/* Seconds for the timings table; "?" when absurd. */
static const char *secs_str(char *buf, size_t len, double v) {
    if (!isfinite(v) || fabs(v) > 1e12) return "?";
    snprintf(buf, len, "%.3f", v);
    return buf;
}

void answer_print_job(FILE *out, json_t *j) {
    char a[32], b[32], d[32], e[32];
    fprintf(out, "job %s: ", count_str(a, sizeof a, num(j, "id")));
    answer_put(out, answer_str(j, "state", "?"), 0);
    fprintf(out, ", %s/%s partitions done (key ", count_str(b, sizeof b, num(j, "done")),
            count_str(d, sizeof d, num(j, "partitions")));
    answer_put(out, answer_str(j, "key", "?"), 0);
    fprintf(out, ", priority %s", count_str(e, sizeof e, num(j, "priority")));
    const char *rid = json_string_value(json_object_get(j, "request_id"));
    if (rid) {
        fputs(", request id ", out);
        answer_put(out, rid, 0);
    }
    fprintf(out, ")\n");
    const char *err = json_string_value(json_object_get(j, "error"));
    if (err) {
        fputs("error: ", out);
        answer_put(out, err, 0);
        fputc('\n', out);
    }
    print_time(out, "submitted", json_object_get(j, "submitted"));
    print_time(out, ", finished", json_object_get(j, "finished"));
    if (json_is_number(json_object_get(j, "finished")) && json_is_number(json_object_get(j, "submitted"))) {
        fprintf(out, " (%s s)", secs_str(a, sizeof a, num(j, "finished") - num(j, "submitted")));
    }
    fprintf(out, "\n");
    json_t *timings = json_object_get(j, "timings");
    if (json_array_size(timings) == 0) return;
    static const char *cols[] = {"queued", "synth", "wait_prove", "prove", "wait_final", "final", "total"};
    fprintf(out, "partition");
    for (int k = 0; k < 7; k++) fprintf(out, " %10s", cols[k]);
    fprintf(out, "   (seconds)\n");
    size_t i;
    json_t *t;
    json_array_foreach(timings, i, t) {
        if (i == ANSWER_MAX_ROWS) {
            fprintf(out, "(%zu more rows not shown)\n", json_array_size(timings) - i);
            break;
        }
        fprintf(out, "%9s", count_str(a, sizeof a, num(t, "partition")));
        for (int k = 0; k < 7; k++) fprintf(out, " %10s", secs_str(b, sizeof b, num(t, cols[k])));
        fprintf(out, "\n");
    }
}

/* One field of a key for the table: a count, a size, or "-" when the daemon
 * did not say (it may know nothing of a key it has not opened yet). */
static const char *key_field(char *buf, size_t len, json_t *k, const char *name, int size) {
    json_t *v = json_object_get(k, name);
    if (!json_is_number(v)) return "-";
    return size ? size_str(buf, len, json_number_value(v)) : count_str(buf, len, json_number_value(v));
}

void answer_print_key(FILE *out, json_t *k, int header) {
    char f[7][32];
    if (header) {
        fprintf(out, "%-24s %-9s %8s %6s %8s %6s %6s %10s %10s %10s\n", "id", "curve", "wires", "public", "domain",
                "loaded", "active", "key", "matrices", "partition");
    }
    answer_put(out, answer_str(k, "id", "?"), 24);
    fputc(' ', out);
    answer_put(out, answer_str(k, "curve", "-"), 9);
    fprintf(out, " %8s %6s %8s %6s %6s %10s %10s %10s\n", key_field(f[0], 32, k, "wires", 0),
            key_field(f[1], 32, k, "public", 0), key_field(f[2], 32, k, "domain", 0),
            json_is_true(json_object_get(k, "loaded")) ? "yes" : "no", key_field(f[3], 32, k, "partitions_active", 0),
            key_field(f[4], 32, k, "key_bytes", 1), key_field(f[5], 32, k, "matrices_bytes", 1),
            key_field(f[6], 32, k, "partition_bytes", 1));
}

void answer_print_keys(FILE *out, json_t *root) {
    json_t *keys = json_object_get(root, "keys");
    size_t i;
    json_t *k;
    json_array_foreach(keys, i, k) {
        if (i == ANSWER_MAX_ROWS) {
            fprintf(out, "(%zu more keys not shown)\n", json_array_size(keys) - i);
            break;
        }
        answer_print_key(out, k, i == 0);
    }
    if (json_array_size(keys) == 0) fprintf(out, "no keys\n");
}

size_t answer_proof_partition(json_t *p, size_t k) {
    json_t *part = json_object_get(p, "partition");
    return json_is_integer(part) ? (size_t)json_integer_value(part) : k;
}

int answer_check_proofs(json_t *root, const char **why) {
    json_t *proofs = json_object_get(root, "proofs");
    if (!json_is_array(proofs)) {
        *why = "the daemon's answer has no proofs array";
        return -1;
    }
    size_t n = json_array_size(proofs);
    if (n > ANSWER_MAX_ROWS) {
        *why = "the daemon's answer has more proofs than a job can have";
        return -1;
    }
    unsigned char *seen = calloc(n ? n : 1, 1);
    if (seen == NULL) {
        *why = "out of memory";
        return -1;
    }
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        json_t *p = json_array_get(proofs, k), *part = json_object_get(p, "partition");
        if (!json_is_object(json_object_get(p, "proof")) || !json_is_array(json_object_get(p, "public"))) {
            *why = "a partition of the answer has no proof object or public array";
            rc = -1;
        } else if (part != NULL && (!json_is_integer(part) || json_integer_value(part) < 0 ||
                                    (uint64_t)json_integer_value(part) >= n)) {
            *why = "a partition number of the answer is not one of the job's";
            rc = -1;
        } else if (seen[answer_proof_partition(p, k)]++) {
            *why = "the answer has a partition twice";
            rc = -1;
        }
    }
    free(seen);
    return rc;
}

unsigned long long answer_job_id(json_t *root) {
    json_t *v = json_object_get(root, "id");
    return json_is_integer(v) && json_integer_value(v) > 0 ? (unsigned long long)json_integer_value(v) : 0;
}
