/* A POST /v1/jobs body without copies of its witnesses (docs/daemon.md,
 * "Intake"). The body arrives in a tracked intake buffer; its witnesses
 * are base64 strings (witnesses[i].data) that make up nearly all of it.
 * Parsed as it is, jansson would copy each into its tree, the base64
 * decode would copy it again, and none of that would be counted. Instead
 * one pass over the text finds those strings, decodes each in place (the
 * bytes shrink to 3/4, so the decoded witness sits at the start of its own
 * string, in the tracked buffer), and jansson then reads the rest of the
 * body through a callback that skips them, seeing a short reference
 * string in each one's place (with a per-request nonce, so a client
 * cannot forge one). Any other string this long is refused: nothing else
 * in a job request is, and it would be an untracked copy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/random.h"
#include "server/internal.h"

/* Strings at least this long in witnesses[i].data are decoded in place;
 * shorter ones go through jansson (a few KiB at most). */
#define BIG_STRING 4096
/* No other string in a request may be this long. */
#define LONG_STRING 65536
#define MAX_DEPTH 64

/* Decodes the base64 text of a JSON string literal (t[0, len): between
 * the quotes) into t itself; "\/" (an escaped '/', as some encoders
 * write) is '/'. Returns 0 when it is not base64. */
static int decode_in_place(unsigned char *t, size_t len, size_t *out_len) {
    size_t n = 0, chars = 0, pad = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = t[i];
        if (c == '\\') {
            if (i + 1 >= len || t[i + 1] != '/') return 0;
            c = '/';
            i++;
        }
        if (c == '=') {
            pad++;
            continue;
        }
        if (pad) return 0; /* '=' only at the end */
        int v = zp_base64_sextet(c);
        if (v < 0) return 0;
        chars++;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) { /* n < i: what is written was read before */
            bits -= 8;
            t[n++] = (unsigned char)(acc >> bits);
        }
    }
    if (chars % 4 == 1 || pad > 2) return 0;
    *out_len = n;
    return 1;
}

static int key_is(const char *text, size_t start, size_t end, const char *name) {
    size_t n = strlen(name);
    return end - start == n && memcmp(text + start, name, n) == 0;
}

zp_status job_body_scan(job_body *b, char *text, size_t len, int *http_status, zp_error *err) {
    memset(b, 0, sizeof *b);
    b->text = text;
    b->len = len;
    uint64_t nonce = 0;
    zp_error ignored;
    if (zp_random_bytes(&nonce, sizeof nonce, &ignored) != ZP_OK) nonce = (uint64_t)(uintptr_t)text ^ len;
    snprintf(b->prefix, sizeof b->prefix, "zp-intake:%016llx:", (unsigned long long)nonce);
    *http_status = 400;
    /* the containers open, with what they are: the root object (depth 1),
     * its "witnesses" array (depth 2), an item of it (depth 3) */
    enum { OTHER = 0, ROOT, WITNESSES, ITEM };
    unsigned char kind[MAX_DEPTH];
    int expect_key[MAX_DEPTH], is_obj[MAX_DEPTH];
    size_t depth = 0, deep = 0;        /* deep: levels past MAX_DEPTH, not tracked */
    size_t key_start = 0, key_end = 0; /* the last key read at the current level */
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '"') {
            size_t start = i + 1, j = start;
            while (j < len && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
            if (j >= len) break; /* unterminated: jansson says so */
            size_t end = j;
            i = j;
            b->json_bytes += end - start + 2; /* the string and its quotes */
            int is_key = depth > 0 && !deep && expect_key[depth - 1];
            if (is_key && end - start >= LONG_STRING) {
                return zp_error_set(err, ZP_ERR_ARG, "a key of %zu bytes at byte %zu of the body", end - start, start);
            }
            if (is_key) {
                key_start = start;
                key_end = end;
                expect_key[depth - 1] = 0;
                continue;
            }
            if (end - start < BIG_STRING) continue;
            int data = !deep && depth == 3 && kind[2] == ITEM && key_is(text, key_start, key_end, "data");
            if (!data) {
                if (end - start < LONG_STRING) continue;
                return zp_error_set(err, ZP_ERR_ARG,
                                    "a string of %zu bytes at byte %zu of the body: only a witness's 'data' may be "
                                    "this long",
                                    end - start, start);
            }
            if (b->n == b->cap) {
                size_t cap = b->cap ? 2 * b->cap : 8;
                job_body_span *grown = realloc(b->spans, cap * sizeof *grown);
                if (grown == NULL) {
                    *http_status = 500;
                    return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
                }
                b->spans = grown;
                b->cap = cap;
            }
            job_body_span *sp = &b->spans[b->n];
            sp->start = start - 1; /* the quotes too */
            sp->end = end + 1;
            sp->bytes = (unsigned char *)text + start;
            b->json_bytes -= end - start + 2 - sizeof b->ref; /* its reference instead */
            if (!decode_in_place(sp->bytes, end - start, &sp->size)) {
                return zp_error_set(err, ZP_ERR_ARG, "witness %zu: 'data' is not base64", b->n);
            }
            b->n++;
            continue;
        }
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') b->json_bytes++;
        if (c == '{' || c == '[') {
            if (depth == MAX_DEPTH || deep) {
                deep++;
                continue;
            }
            unsigned char k = OTHER;
            if (depth == 0 && c == '{') k = ROOT;
            else if (depth == 1 && c == '[' && kind[0] == ROOT && key_is(text, key_start, key_end, "witnesses"))
                k = WITNESSES;
            else if (depth == 2 && c == '{' && kind[1] == WITNESSES) k = ITEM;
            kind[depth] = k;
            expect_key[depth] = is_obj[depth] = c == '{';
            depth++;
            key_start = key_end = 0;
        } else if (c == '}' || c == ']') {
            if (deep) deep--;
            else if (depth > 0) depth--;
            key_start = key_end = 0; /* the parent's key is not needed again */
        } else if (c == ',' && depth > 0 && !deep) {
            expect_key[depth - 1] = is_obj[depth - 1]; /* in an object, the next string is a key */
        }
    }
    return ZP_OK;
}

/* jansson reads the body through this: the text between the spans, and a
 * reference string in each span's place. */
static size_t feed(void *buffer, size_t buflen, void *arg) {
    job_body *b = arg;
    size_t out = 0;
    char *dst = buffer;
    while (out < buflen) {
        if (b->ref_pos < b->ref_len) { /* the rest of a reference */
            size_t n = b->ref_len - b->ref_pos < buflen - out ? b->ref_len - b->ref_pos : buflen - out;
            memcpy(dst + out, b->ref + b->ref_pos, n);
            b->ref_pos += n;
            out += n;
            continue;
        }
        if (b->pos >= b->len) break;
        size_t stop = b->next < b->n ? b->spans[b->next].start : b->len;
        if (b->pos == stop) { /* a span: skip it, say its reference */
            b->ref_len = (size_t)snprintf(b->ref, sizeof b->ref, "\"%s%zu\"", b->prefix, b->next);
            b->ref_pos = 0;
            b->pos = b->spans[b->next].end;
            b->next++;
            continue;
        }
        size_t n = stop - b->pos < buflen - out ? stop - b->pos : buflen - out;
        memcpy(dst + out, b->text + b->pos, n);
        b->pos += n;
        out += n;
    }
    return out;
}

json_t *job_body_parse(job_body *b, json_error_t *jerr) {
    b->pos = b->next = b->ref_pos = b->ref_len = 0;
    return json_load_callback(feed, b, JSON_REJECT_DUPLICATES, jerr);
}

int job_body_lookup(const job_body *b, const char *value, const unsigned char **bytes, size_t *size) {
    size_t pl = strlen(b->prefix);
    if (value == NULL || strncmp(value, b->prefix, pl) != 0) return 0;
    char *end;
    unsigned long idx = strtoul(value + pl, &end, 10);
    if (*end != '\0' || end == value + pl || idx >= b->n) return 0;
    *bytes = b->spans[idx].bytes;
    *size = b->spans[idx].size;
    return 1;
}

void job_body_free(job_body *b) {
    free(b->spans);
    b->spans = NULL;
    b->n = b->cap = 0;
}
