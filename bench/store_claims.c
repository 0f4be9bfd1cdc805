/* zkpipe-bench-store: what the job store itself costs per partition
 * (src/store/store.h, issue 13), with no proving at all.
 *
 * Default mode: the store is filled with --partitions queued partitions
 * (jobs of --job-size partitions, key "k", one priority), then D threads
 * ("daemons", for each D of --daemons) loop claim (--batch partitions a
 * call) -> finish_part DONE with a fake proof ("{}", public "[]") until a
 * claim finds nothing. On PostgreSQL each thread opens its OWN store handle
 * (one connection each, as separate daemons have); SQLite takes one daemon
 * per file (a flock), so there the threads share one handle, as one
 * daemon's threads do. Claims pass the key list {"k"}, as the daemon does
 * (src/server/dispatch.c: the keys that fit its engine); --any claims with
 * no key filter (the store's other query). Per D: wall seconds from the
 * first claim to the last finish, partitions/s, median and p99 latency of
 * a claim call (empty ones at the end left out) and of a finish_part call.
 * Then the check: every partition claimed exactly once (the threads' claims
 * tallied per partition), every job done with all its partitions
 * (zp_store_get_job), the last finish of each job reported it ended once,
 * and zp_store_count says nothing queued or running.
 *
 * --big N: N queued partitions (jobs of 1000 partitions; the fill is timed),
 * then --claims single claims from one handle (each finished at once, so
 * the queue stays ~N), median and p99. On PostgreSQL it then prints the
 * EXPLAIN (ANALYZE, BUFFERS) of both claim queries, run by psql ($PG_BIN/psql
 * or psql on PATH) on the URI inside a transaction that is rolled back: the
 * store's own query texts (pg_internal.h), so the plan is the one it runs.
 *
 * The store must hold no queued or running partition at the start (a fresh
 * SQLite file, a fresh database); finished jobs from earlier runs are fine.
 *
 * Usage: zkpipe-bench-store STORE [--daemons 1,2,3] [--partitions N]
 *          [--job-size P] [--batch B] [--runs R] [--any]
 *        zkpipe-bench-store STORE --big N [--claims C] [--any]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "store/pg_internal.h"
#include "store/store.h"

#define MAX_D 16
#define MAX_RUNS 9
#define LEASE_S 60.0

static const char *opt_store;
static size_t opt_daemons[MAX_D] = {1, 2, 3}, n_daemons = 3;
static size_t opt_partitions = 2000, opt_job_size = 10, opt_batch = 1, opt_runs = 1, opt_big = 0, opt_claims = 200;
static int opt_any;
/* The jobs' pin and the daemon's key, as a daemon claims (store.h zp_store_key). */
#define BENCH_DIGEST "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
static const zp_store_key KEYS[] = {{"k", BENCH_DIGEST, NULL}};

static void die(const char *what, const zp_error *err) {
    if (err) fprintf(stderr, "zkpipe-bench-store: %s: %s\n", what, err->message);
    else fprintf(stderr, "zkpipe-bench-store: %s\n", what);
    exit(1);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of v[0..n) (sorts v), nearest rank. */
static double quantile(double *v, size_t n, double q) {
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    size_t i = (size_t)(q * (double)n + 0.5);
    if (i > 0) i--;
    return v[i < n ? i : n - 1];
}

static zp_store *open_store(void) {
    zp_store *s = NULL;
    zp_error err = {0};
    if (zp_store_open(&s, opt_store, &err) != ZP_OK) die("opening the store", &err);
    return s;
}

/* Adds n_jobs jobs of per_job partitions; the first job's id. */
static int64_t fill(zp_store *s, size_t n_jobs, size_t per_job) {
    const char **paths = malloc(per_job * sizeof *paths);
    char(*buf)[64] = malloc(per_job * sizeof *buf);
    if (paths == NULL || buf == NULL) die("out of memory", NULL);
    int64_t first = 0;
    for (size_t j = 0; j < n_jobs; j++) {
        for (size_t i = 0; i < per_job; i++) {
            snprintf(buf[i], sizeof buf[i], "/spool/bench-%zu-%zu.wtns", j, i);
            paths[i] = buf[i];
        }
        int64_t id = 0;
        int existing = 0;
        zp_error err = {0};
        if (zp_store_add_job(&id, &existing, s, NULL, NULL, "k", BENCH_DIGEST, NULL, 0, (uint32_t)per_job, paths,
                             &err) != ZP_OK)
            die("adding a job", &err);
        if (j == 0) first = id;
    }
    free(paths);
    free(buf);
    return first;
}

/* ---- the race ---- */

typedef struct worker {
    pthread_t thread;
    zp_store *shared; /* NULL: opens its own */
    char node[32];
    double *claim_ms, *finish_ms; /* one per partition at most */
    size_t n_claim, n_finish, ended;
    int64_t *claimed; /* job_id, idx pairs: 2 per partition */
    size_t n_claimed;
    double t_start, t_end;
} worker;

static pthread_barrier_t start_line;

static void *work(void *arg) {
    worker *w = arg;
    zp_store *s = w->shared ? w->shared : open_store();
    zp_store_claim *c = malloc(opt_batch * sizeof *c);
    if (c == NULL) die("out of memory", NULL);
    const zp_store_result res = {.proof_json = "{}", .public_json = "[]", .key_digest = BENCH_DIGEST};
    pthread_barrier_wait(&start_line);
    w->t_start = zp_clock_now();
    for (;;) {
        size_t n = 0;
        zp_error err = {0};
        double t0 = zp_clock_now();
        if (zp_store_claim_work(c, opt_batch, &n, s, w->node, opt_any ? NULL : KEYS, opt_any ? 0 : 1, LEASE_S, &err) !=
            ZP_OK)
            die("claiming", &err);
        double t1 = zp_clock_now();
        if (n == 0) break;
        w->claim_ms[w->n_claim++] = (t1 - t0) * 1e3;
        for (size_t i = 0; i < n; i++) {
            zp_store_held h = {c[i].job_id, c[i].idx, c[i].fence};
            int ended = 0;
            w->claimed[2 * w->n_claimed] = c[i].job_id;
            w->claimed[2 * w->n_claimed + 1] = c[i].idx;
            w->n_claimed++;
            t0 = zp_clock_now();
            if (zp_store_finish_part(&ended, s, &h, ZP_JOB_DONE, NULL, &res, &err) != ZP_OK)
                die("finishing a partition", &err);
            w->finish_ms[w->n_finish++] = (zp_clock_now() - t0) * 1e3;
            w->ended += (size_t)ended;
        }
    }
    w->t_end = zp_clock_now();
    free(c);
    if (!w->shared) zp_store_close(s);
    return NULL;
}

typedef struct row {
    size_t d;
    double wall, rate, claim_med, claim_p99, fin_med, fin_p99;
    int ok;
} row;

static void print_head(void) {
    printf("%-10s %7s %6s %5s %8s %8s %10s %10s %10s %10s  %s\n", "store", "daemons", "parts", "batch", "wall_s",
           "parts/s", "claim_med", "claim_p99", "finish_med", "finish_p99", "check");
}

static void print_row(const char *kind, const row *r, const char *label) {
    printf("%-10s %7zu %6zu %5zu %8.3f %8.1f %10.3f %10.3f %10.3f %10.3f  %s%s\n", kind, r->d, opt_partitions,
           opt_batch, r->wall, r->rate, r->claim_med, r->claim_p99, r->fin_med, r->fin_p99, r->ok ? "ok" : "FAILED",
           label);
}

/* One race of d daemons over a fresh fill; checks the outcome. */
static row race(zp_store *main_s, size_t d) {
    size_t n_jobs = opt_partitions / opt_job_size;
    size_t parts = n_jobs * opt_job_size;
    zp_error err = {0};
    zp_store_counts before;
    if (zp_store_count(&before, main_s, &err) != ZP_OK) die("counting", &err);
    if (before.parts_queued || before.parts_running) {
        fprintf(
            stderr, "zkpipe-bench-store: %s holds %llu queued and %llu running partitions: give it an empty store\n",
            zp_store_name(main_s), (unsigned long long)before.parts_queued, (unsigned long long)before.parts_running);
        exit(1);
    }
    int64_t first = fill(main_s, n_jobs, opt_job_size);
    worker w[MAX_D];
    memset(w, 0, sizeof w);
    pthread_barrier_init(&start_line, NULL, (unsigned)d);
    for (size_t i = 0; i < d; i++) {
        w[i].shared = zp_store_shared(main_s) ? NULL : main_s;
        snprintf(w[i].node, sizeof w[i].node, "bench-d%zu", i + 1);
        w[i].claim_ms = malloc(parts * sizeof(double));
        w[i].finish_ms = malloc(parts * sizeof(double));
        w[i].claimed = malloc(2 * parts * sizeof(int64_t));
        if (!w[i].claim_ms || !w[i].finish_ms || !w[i].claimed) die("out of memory", NULL);
        if (pthread_create(&w[i].thread, NULL, work, &w[i]) != 0) die("starting a thread", NULL);
    }
    for (size_t i = 0; i < d; i++) pthread_join(w[i].thread, NULL);
    pthread_barrier_destroy(&start_line);

    /* the check: each partition once, each job done whole, ended once */
    unsigned char *seen = calloc(parts, 1);
    double *cl = malloc(parts * sizeof(double)), *fi = malloc(parts * sizeof(double));
    if (!seen || !cl || !fi) die("out of memory", NULL);
    size_t n_cl = 0, n_fi = 0, ended = 0, twice = 0, stray = 0;
    double t0 = w[0].t_start, t1 = w[0].t_end;
    for (size_t i = 0; i < d; i++) {
        if (w[i].t_start < t0) t0 = w[i].t_start;
        if (w[i].t_end > t1) t1 = w[i].t_end;
        memcpy(cl + n_cl, w[i].claim_ms, w[i].n_claim * sizeof(double));
        memcpy(fi + n_fi, w[i].finish_ms, w[i].n_finish * sizeof(double));
        n_cl += w[i].n_claim;
        n_fi += w[i].n_finish;
        ended += w[i].ended;
        for (size_t k = 0; k < w[i].n_claimed; k++) {
            int64_t j = w[i].claimed[2 * k] - first, idx = w[i].claimed[2 * k + 1];
            if (j < 0 || (size_t)j >= n_jobs || idx < 0 || (size_t)idx >= opt_job_size) {
                stray++;
                continue;
            }
            if (seen[(size_t)j * opt_job_size + (size_t)idx]++) twice++;
        }
        free(w[i].claim_ms);
        free(w[i].finish_ms);
        free(w[i].claimed);
    }
    size_t missing = 0, not_done = 0;
    for (size_t k = 0; k < parts; k++) missing += !seen[k];
    for (size_t j = 0; j < n_jobs; j++) {
        zp_store_job job;
        if (zp_store_get_job(&job, main_s, first + (int64_t)j, &err) != ZP_OK) die("reading a job", &err);
        not_done += job.state != ZP_JOB_DONE || job.done != job.partitions;
    }
    zp_store_counts after;
    if (zp_store_count(&after, main_s, &err) != ZP_OK) die("counting", &err);
    row r = {.d = d, .wall = t1 - t0};
    r.rate = r.wall > 0 ? (double)parts / r.wall : 0;
    r.claim_med = quantile(cl, n_cl, 0.5);
    r.claim_p99 = quantile(cl, n_cl, 0.99);
    r.fin_med = quantile(fi, n_fi, 0.5);
    r.fin_p99 = quantile(fi, n_fi, 0.99);
    uint64_t done_jobs = after.jobs[ZP_JOB_DONE] - before.jobs[ZP_JOB_DONE];
    r.ok = !twice && !stray && !missing && !not_done && ended == n_jobs && n_fi == parts && after.parts_queued == 0 &&
           after.parts_running == 0 && done_jobs == n_jobs;
    if (!r.ok)
        fprintf(stderr,
                "check failed (%zu daemons): claimed twice %zu, stray %zu, never claimed %zu, jobs not done %zu, "
                "jobs ended %zu of %zu, finishes %zu of %zu, queued %llu, running %llu, jobs done +%llu\n",
                d, twice, stray, missing, not_done, ended, n_jobs, n_fi, parts, (unsigned long long)after.parts_queued,
                (unsigned long long)after.parts_running, (unsigned long long)done_jobs);
    free(seen);
    free(cl);
    free(fi);
    return r;
}

static int cmp_row_wall(const void *a, const void *b) {
    return cmp_double(&((const row *)a)->wall, &((const row *)b)->wall);
}

static int races(void) {
    zp_store *s = open_store();
    const char *kind = zp_store_kind(s);
    printf(
        "# %s: %zu partitions (jobs of %zu, key \"k\"), claim batch %zu, %s, %zu run(s) per row; "
        "latencies in ms, per call\n",
        kind, opt_partitions / opt_job_size * opt_job_size, opt_job_size, opt_batch,
        opt_any ? "no key filter (zp_pg_claim_any)" : "key filter {\"k\"} as the daemon (zp_pg_claim_keys)", opt_runs);
    if (!zp_store_shared(s)) printf("# SQLite: one daemon per file (flock), so the threads share one handle\n");
    print_head();
    int ok = 1;
    for (size_t i = 0; i < n_daemons; i++) {
        row rs[MAX_RUNS];
        for (size_t k = 0; k < opt_runs; k++) {
            rs[k] = race(s, opt_daemons[i]);
            ok &= rs[k].ok;
            if (opt_runs > 1) print_row(kind, &rs[k], "  (run)");
        }
        if (opt_runs > 1) {
            /* the run of median wall time stands for the row */
            qsort(rs, opt_runs, sizeof *rs, cmp_row_wall);
            int all = 1;
            for (size_t k = 0; k < opt_runs; k++) all &= rs[k].ok;
            row m = rs[opt_runs / 2];
            m.ok = all;
            print_row(kind, &m, "  (median run)");
        } else print_row(kind, &rs[0], "");
        fflush(stdout);
    }
    zp_store_close(s);
    return ok ? 0 : 1;
}

/* ---- --big ---- */

/* psql on the URI, the script on its stdin; its output goes to ours. */
static int psql(const char *script) {
    const char *bin = getenv("PG_BIN");
    char path[4096];
    if (bin && *bin) snprintf(path, sizeof path, "%s/psql", bin);
    else snprintf(path, sizeof path, "psql");
    int fd[2];
    if (pipe(fd) != 0) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        dup2(fd[0], 0);
        close(fd[0]);
        close(fd[1]);
        execlp(path, "psql", "-X", "-q", "-P", "pager=off", "-d", opt_store, "-f", "-", (char *)NULL);
        perror(path);
        _exit(127);
    }
    close(fd[0]);
    size_t len = strlen(script), off = 0;
    while (off < len) {
        ssize_t k = write(fd[1], script + off, len - off);
        if (k <= 0) break;
        off += (size_t)k;
    }
    close(fd[1]);
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* args: the EXECUTE's arguments after the node and the count. */
static void explain(const char *name, const char *sql, const char *args) {
    size_t cap = strlen(sql) + 1024;
    char *script = malloc(cap);
    if (script == NULL) die("out of memory", NULL);
    snprintf(script, cap,
             "BEGIN;\n"
             "PREPARE claim AS %s;\n"
             "EXPLAIN (ANALYZE, BUFFERS, TIMING) EXECUTE claim('bench-explain', 1, %s);\n"
             "ROLLBACK;\n",
             sql, args);
    printf("\n# EXPLAIN (ANALYZE, BUFFERS) of %s (one claim, rolled back)\n", name);
    if (psql(script) != 0) printf("# psql failed (PG_BIN=%s)\n", getenv("PG_BIN") ? getenv("PG_BIN") : "");
    fflush(stdout);
    free(script);
}

static int big(void) {
    zp_store *s = open_store();
    const char *kind = zp_store_kind(s);
    zp_error err = {0};
    zp_store_counts c;
    if (zp_store_count(&c, s, &err) != ZP_OK) die("counting", &err);
    size_t per_job = 1000, n_jobs = (opt_big + per_job - 1) / per_job;
    printf("# %s --big: %zu partitions queued (jobs of %zu) before this run: %llu\n", kind, n_jobs * per_job, per_job,
           (unsigned long long)c.parts_queued);
    fflush(stdout);
    double t0 = zp_clock_now();
    size_t step = n_jobs / 10 ? n_jobs / 10 : 1;
    for (size_t j = 0; j < n_jobs; j += step) {
        size_t k = j + step <= n_jobs ? step : n_jobs - j;
        (void)fill(s, k, per_job);
        printf("#   filled %zu jobs, %.1f s\n", j + k, zp_clock_now() - t0);
        fflush(stdout);
    }
    double fill_s = zp_clock_now() - t0;
    if (zp_store_count(&c, s, &err) != ZP_OK) die("counting", &err);
    printf("fill: %zu partitions in %.1f s (%.0f partitions/s, one transaction per job of %zu); queued now %llu\n",
           n_jobs * per_job, fill_s, (double)(n_jobs * per_job) / fill_s, per_job, (unsigned long long)c.parts_queued);

    double *cl = malloc(opt_claims * sizeof(double)), *fi = malloc(opt_claims * sizeof(double));
    if (!cl || !fi) die("out of memory", NULL);
    const zp_store_result res = {.proof_json = "{}", .public_json = "[]", .key_digest = BENCH_DIGEST};
    size_t n = 0;
    for (size_t i = 0; i < opt_claims; i++) {
        zp_store_claim cw;
        size_t got = 0;
        double a = zp_clock_now();
        if (zp_store_claim_work(&cw, 1, &got, s, "bench-big", opt_any ? NULL : KEYS, opt_any ? 0 : 1, LEASE_S, &err) !=
            ZP_OK)
            die("claiming", &err);
        double b = zp_clock_now();
        if (got == 0) break;
        zp_store_held h = {cw.job_id, cw.idx, cw.fence};
        int ended = 0;
        if (zp_store_finish_part(&ended, s, &h, ZP_JOB_DONE, NULL, &res, &err) != ZP_OK)
            die("finishing a partition", &err);
        cl[n] = (b - a) * 1e3;
        fi[n++] = (zp_clock_now() - b) * 1e3;
    }
    printf("%-10s %9s %7s %10s %10s %10s %10s\n", "store", "queued", "claims", "claim_med", "claim_p99", "finish_med",
           "finish_p99");
    printf("%-10s %9llu %7zu %10.3f %10.3f %10.3f %10.3f   (ms; %s)\n", kind, (unsigned long long)c.parts_queued, n,
           quantile(cl, n, 0.5), quantile(cl, n, 0.99), quantile(fi, n, 0.5), quantile(fi, n, 0.99),
           opt_any ? "no key filter" : "key filter {\"k\"}");
    free(cl);
    free(fi);
    if (zp_store_shared(s)) {
        /* the daemon's pins for key k: its digest, and no pins (jobs from before pins) */
        explain("zp_pg_claim_keys (the daemon's: key k, pinned)", zp_pg_claim_keys,
                "'{k,k}', 30, '{" BENCH_DIGEST ",\"\"}', '{\"\",\"\"}'");
        explain("zp_pg_claim_any (no key filter)", zp_pg_claim_any, "NULL, 30");
    }
    zp_store_close(s);
    return 0;
}

/* ---- options ---- */

static size_t parse_size(const char *s, const char *opt) {
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v == 0) {
        fprintf(stderr, "zkpipe-bench-store: %s wants a positive integer, not '%s'\n", opt, s);
        exit(2);
    }
    return (size_t)v;
}

static void usage(void) {
    fprintf(stderr,
            "usage: zkpipe-bench-store STORE [--daemons 1,2,3] [--partitions N] [--job-size P] [--batch B]\n"
            "                          [--runs R] [--any]\n"
            "       zkpipe-bench-store STORE --big N [--claims C] [--any]\n"
            "STORE: an SQLite file path or a postgresql:// URI\n");
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 2 || argv[1][0] == '-') usage();
    opt_store = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--any") == 0) {
            opt_any = 1;
            continue;
        }
        if (v == NULL) usage();
        i++;
        if (strcmp(a, "--daemons") == 0) {
            char *copy = strdup(v), *save = NULL;
            n_daemons = 0;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (n_daemons == MAX_D) usage();
                size_t d = parse_size(t, a);
                if (d > MAX_D) usage();
                opt_daemons[n_daemons++] = d;
            }
            free(copy);
            if (n_daemons == 0) usage();
        } else if (strcmp(a, "--partitions") == 0) opt_partitions = parse_size(v, a);
        else if (strcmp(a, "--job-size") == 0) opt_job_size = parse_size(v, a);
        else if (strcmp(a, "--batch") == 0) opt_batch = parse_size(v, a);
        else if (strcmp(a, "--runs") == 0) opt_runs = parse_size(v, a);
        else if (strcmp(a, "--big") == 0) opt_big = parse_size(v, a);
        else if (strcmp(a, "--claims") == 0) opt_claims = parse_size(v, a);
        else usage();
    }
    if (opt_runs > MAX_RUNS || opt_partitions < opt_job_size) usage();
    return opt_big ? big() : races();
}
