/* The job store's claims, leases and fences (src/store/store.h), against
 * any store: argv[1] an SQLite path or a postgresql:// URI (tests/store/
 * pg.sh starts a throwaway cluster and gives its URI); with none, a fresh
 * SQLite file in a temporary directory. Only store.h is used, so every
 * implementation answers the same checks:
 *   - claim order: priority, then the older job, then partition order;
 *     the key filter; counts and queue positions as claims go;
 *   - four "daemons" claiming at once from threads (on a shared store each
 *     with its own connection) claim each of 200 partitions exactly once;
 *     then four claiming and ending partitions at once (some failing, which
 *     cancels siblings others hold) end each job exactly once;
 *   - a lease that expires is taken over with a larger fence, the stale
 *     daemon's renew marks it lost and its result is refused
 *     (ZP_ERR_MISMATCH) while the new one's is recorded; a lease that
 *     expired but was not taken over is renewed;
 *   - release queues again; a job cancelled as a whole loses its claims;
 *   - the last partition done ends the job done (*job_ended once); a
 *     failed one fails the job and cancels the rest;
 *   - join refuses a live id and frees a dead one's claims; nodes, leave;
 *   - expire deletes ended jobs only, and silent daemons;
 *   - pins: a daemon claims a pinned job's partitions only with the same
 *     key (and circuit) digests, jobs without pins with any; a proof made
 *     with other bytes is refused and its partition queued again; the
 *     jobs a daemon cannot take are listed (zp_store_mismatches);
 *   - repair frees a claim of a node that is no daemon of the store; the
 *     store's clock; a daemon's keys and clock skew in its row.
 * With ZP_STORE_RESTART set to a command, it is run after the first part
 * (tests/store/pg.sh restarts the server) and the rest must go on; with
 * ZP_STORE_STOP and ZP_STORE_START, the server is stopped after the race
 * (calls fail with ZP_ERR_IO) and started again (the same handle works).
 * The store is emptied first (every unfinished job cancelled, everything
 * expired), so a run on a store used before starts from nothing. */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "test_store_common.h"
#include "testutil.h"

static const char *where;

/* Called from the racing threads too: no CHECK here (its counter is the
 * main thread's; TSan saw the race), a failure ends the test. */
static zp_store *open_store(void) {
    zp_store *s = NULL;
    zp_error err = {0};
    zp_status st = zp_store_open(&s, where, &err);
    if (st != ZP_OK || s == NULL) {
        fprintf(stderr, "test_store_claims: cannot go on without a store: %s\n", err.message);
        exit(1);
    }
    return s;
}

static int64_t add(zp_store *s, const char *name, const char *key, int prio, uint32_t n) {
    return store_add(s, NULL, name, key, prio, n);
}

static size_t claim(zp_store_claim *out, size_t max, zp_store *s, const char *node, const zp_store_key *keys,
                    size_t n_keys, double lease_s) {
    size_t n = 99;
    zp_error err = {0};
    zp_status st = zp_store_claim_work(out, max, &n, s, node, keys, n_keys, lease_s, &err);
    CHECK_MSG(st == ZP_OK && n <= max, "%s claiming: %s", node, err.message);
    return st == ZP_OK ? n : 0;
}

static zp_store_held held_of(const zp_store_claim *c) {
    zp_store_held h = {c->job_id, c->idx, c->fence};
    return h;
}

/* finish_part DONE with a proof naming who proved it. */
static zp_status done(int *ended, zp_store *s, const zp_store_held *h, const char *proof, zp_error *err) {
    zp_store_result r = {proof, "[\"1\"]", {.prove = 0.5, .total = 1.5}, NULL, NULL};
    *ended = -1;
    return zp_store_finish_part(ended, s, h, ZP_JOB_DONE, NULL, &r, err);
}

static zp_store_counts counts(zp_store *s) {
    zp_store_counts c;
    zp_error err = {0};
    zp_status st = zp_store_count(&c, s, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    return c;
}

static uint64_t position(zp_store *s, int64_t id) {
    uint64_t p = 99999;
    zp_error err = {0};
    zp_status st = zp_store_queue_position(&p, s, id, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    return p;
}

/* Every partition's proof, as zp_store_results gives them. */
typedef struct proofs {
    char proof[16][32];
    int has[16];
    uint32_t n;
} proofs;

static void result_cb(void *arg, uint32_t idx, const char *proof, const char *pub, const zp_store_times *t) {
    proofs *p = arg;
    (void)pub;
    (void)t;
    if (idx < 16) {
        p->has[idx] = proof != NULL;
        snprintf(p->proof[idx], sizeof p->proof[idx], "%s", proof ? proof : "");
    }
    p->n++;
}

static proofs results(zp_store *s, int64_t id) {
    proofs p;
    memset(&p, 0, sizeof p);
    zp_error err = {0};
    zp_status st = zp_store_results(s, id, result_cb, &p, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    return p;
}

/* ---- an empty store to start from ---- */

typedef struct idlist {
    int64_t id[4096];
    size_t n;
} idlist;

static void unfinished_cb(void *arg, const zp_store_job *job, const char *const *paths, const char *damage) {
    idlist *l = arg;
    (void)paths;
    (void)damage;
    if (l->n < 4096) l->id[l->n++] = job->id;
}

static void empty_store(zp_store *s) {
    static idlist l;
    zp_error err = {0};
    l.n = 0;
    zp_status st = zp_store_unfinished(s, unfinished_cb, &l, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    for (size_t i = 0; i < l.n; i++) {
        st = zp_store_finish_job(s, l.id[i], ZP_JOB_CANCELLED, "emptied by test_store_claims", NULL, 0, &err);
        CHECK_MSG(st == ZP_OK, "%s", err.message);
    }
    uint64_t deleted;
    st = zp_store_expire(&deleted, s, 0, NULL, NULL, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    zp_store_counts c = counts(s);
    CHECK(c.jobs[0] + c.jobs[1] + c.jobs[2] + c.jobs[3] + c.jobs[4] == 0);
}

/* ---- claim order, the key filter, counts and positions ---- */

static void test_order(zp_store *s) {
    /* submitted in this order: A (k1, 0, 3 parts), B (k2, 5, 2), C (k1, 5,
     * 2), D (k1, 0, 1): claim order B0 B1 C0 C1 A0 A1 A2 D0 */
    int64_t a = add(s, "A", "k1", 0, 3), b = add(s, "B", "k2", 5, 2), c = add(s, "C", "k1", 5, 2),
            d = add(s, "D", "k1", 0, 1);
    CHECK(a < b && b < c && c < d);
    const int64_t order_job[8] = {b, b, c, c, a, a, a, d};
    const uint32_t order_idx[8] = {0, 1, 0, 1, 0, 1, 2, 0};
    zp_store_counts n = counts(s);
    CHECK(n.jobs[ZP_JOB_QUEUED] == 4 && n.jobs[ZP_JOB_RUNNING] == 0);
    CHECK(n.parts_queued == 8 && n.parts_running == 0);
    CHECK(position(s, b) == 0);
    CHECK(position(s, c) == 2);
    CHECK(position(s, a) == 4);
    CHECK(position(s, d) == 7);

    zp_store_claim cl[8];
    memset(cl, 0, sizeof cl);
    size_t got = claim(cl, 3, s, "n1", NULL, 0, 60);
    CHECK(got == 3);
    for (size_t i = 0; i < got; i++) {
        CHECK_MSG(cl[i].job_id == order_job[i] && cl[i].idx == order_idx[i], "claim %zu: job %lld idx %u", i,
                  (long long)cl[i].job_id, cl[i].idx);
        CHECK(cl[i].fence > 0);
        for (size_t k = 0; k < i; k++) CHECK(cl[i].fence != cl[k].fence); /* one claim's in any order */
    }
    uint64_t first_max = 0;
    for (size_t i = 0; i < got; i++) first_max = cl[i].fence > first_max ? cl[i].fence : first_max;
    CHECK(strcmp(cl[0].key_id, "k2") == 0 && cl[0].priority == 5 && strstr(cl[0].path, "/spool/B-0.wtns"));
    CHECK(strcmp(cl[2].key_id, "k1") == 0 && strstr(cl[2].path, "/spool/C-0.wtns"));
    CHECK(get(s, b).state == ZP_JOB_RUNNING);
    CHECK(get(s, c).state == ZP_JOB_RUNNING);
    CHECK(get(s, a).state == ZP_JOB_QUEUED);
    n = counts(s);
    CHECK(n.jobs[ZP_JOB_QUEUED] == 2 && n.jobs[ZP_JOB_RUNNING] == 2);
    CHECK(n.parts_queued == 5 && n.parts_running == 3);
    CHECK(position(s, b) == 0); /* none queued */
    CHECK(position(s, c) == 0);
    CHECK(position(s, a) == 1); /* C1 */

    /* the key filter: k2 has nothing left; k1 the rest, in order */
    const zp_store_key k2[] = {{"k2", NULL, NULL}}, k1[] = {{"k1", NULL, NULL}}, none[] = {{"zz", NULL, NULL}};
    CHECK(claim(cl + 3, 5, s, "n1", k2, 1, 60) == 0);
    CHECK(claim(cl + 3, 5, s, "n1", none, 1, 60) == 0);
    CHECK(claim(cl + 3, 5, s, "n1", k1, 0, 60) == 0); /* no key fits */
    got = claim(cl + 3, 5, s, "n1", k1, 1, 60);
    CHECK(got == 5);
    for (size_t i = 3; i < 3 + got; i++) {
        CHECK_MSG(cl[i].job_id == order_job[i] && cl[i].idx == order_idx[i], "claim %zu: job %lld idx %u", i,
                  (long long)cl[i].job_id, cl[i].idx);
        CHECK(cl[i].fence > first_max); /* a later claim: larger fences */
        for (size_t k = 3; k < i; k++) CHECK(cl[i].fence != cl[k].fence);
        CHECK(strcmp(cl[i].key_id, "k1") == 0);
    }
    CHECK(claim(cl, 8, s, "n1", NULL, 0, 60) == 0);
    n = counts(s);
    CHECK(n.parts_queued == 0 && n.parts_running == 8 && n.jobs[ZP_JOB_RUNNING] == 4);

    /* every partition done: each job ends at its last one, done = partitions */
    for (size_t i = 0; i < 8; i++) {
        zp_store_held h = held_of(&cl[i]);
        int ended;
        zp_error err = {0};
        zp_status st = done(&ended, s, &h, "{\"n1\":1}", &err);
        CHECK_MSG(st == ZP_OK, "%s", err.message);
        int last = i == 7 || cl[i + 1].job_id != cl[i].job_id;
        CHECK_MSG(ended == last, "partition %u of job %lld: ended %d", cl[i].idx, (long long)cl[i].job_id, ended);
    }
    const int64_t jobs[4] = {a, b, c, d};
    for (int i = 0; i < 4; i++) {
        zp_store_job j = get(s, jobs[i]);
        CHECK(j.state == ZP_JOB_DONE && j.done == j.partitions && recent(s, j.finished));
        proofs p = results(s, jobs[i]);
        CHECK(p.n == j.partitions);
        for (uint32_t k = 0; k < p.n && k < 16; k++) CHECK(p.has[k] && strcmp(p.proof[k], "{\"n1\":1}") == 0);
    }
    n = counts(s);
    CHECK(n.jobs[ZP_JOB_DONE] == 4 && n.parts_running == 0);
}

/* ---- many daemons at once ---- */

#define RACE_JOBS 20
#define RACE_PARTS 10
#define RACE_THREADS 4

typedef struct race {
    zp_store *shared; /* NULL: each thread opens its own */
    int64_t first_job;
    int claimed[RACE_JOBS][RACE_PARTS]; /* how many times, under lock */
    uint64_t fences[RACE_JOBS * RACE_PARTS];
    size_t n_fences;
    int errors;
    pthread_mutex_t lock;
} race;

typedef struct racer {
    race *r;
    int no;
    size_t got;
} racer;

static void *race_thread(void *arg) {
    racer *me = arg;
    race *r = me->r;
    zp_store *s = r->shared ? r->shared : open_store();
    char node[32];
    snprintf(node, sizeof node, "racer-%d", me->no);
    for (;;) {
        zp_store_claim cl[3];
        size_t n = 0;
        zp_error err = {0};
        zp_status st = zp_store_claim_work(cl, 3, &n, s, node, NULL, 0, 60, &err);
        pthread_mutex_lock(&r->lock);
        if (st != ZP_OK) {
            fprintf(stderr, "%s: %s\n", node, err.message);
            r->errors++;
        }
        for (size_t i = 0; i < n; i++) {
            int64_t j = cl[i].job_id - r->first_job;
            if (j >= 0 && j < RACE_JOBS && cl[i].idx < RACE_PARTS) r->claimed[j][cl[i].idx]++;
            else r->errors++;
            if (r->n_fences < RACE_JOBS * RACE_PARTS) r->fences[r->n_fences++] = cl[i].fence;
        }
        pthread_mutex_unlock(&r->lock);
        me->got += n;
        if (st != ZP_OK || n == 0) break;
    }
    if (!r->shared) zp_store_close(s);
    return NULL;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_race(zp_store *s) {
    static race r;
    memset(&r, 0, sizeof r);
    pthread_mutex_init(&r.lock, NULL);
    r.shared = zp_store_shared(s) ? NULL : s; /* SQLite: one daemon per file, its threads share the handle */
    for (int j = 0; j < RACE_JOBS; j++) {
        char name[16];
        snprintf(name, sizeof name, "race%d", j);
        int64_t id = add(s, name, j % 2 ? "kr1" : "kr2", j % 3, RACE_PARTS);
        if (j == 0) r.first_job = id;
        CHECK(id == r.first_job + j);
    }
    pthread_t t[RACE_THREADS];
    racer rs[RACE_THREADS];
    for (int i = 0; i < RACE_THREADS; i++) {
        rs[i] = (racer){&r, i, 0};
        CHECK(pthread_create(&t[i], NULL, race_thread, &rs[i]) == 0);
    }
    for (int i = 0; i < RACE_THREADS; i++) pthread_join(t[i], NULL);
    CHECK(r.errors == 0);
    int twice = 0, never = 0;
    for (int j = 0; j < RACE_JOBS; j++)
        for (int k = 0; k < RACE_PARTS; k++) {
            twice += r.claimed[j][k] > 1;
            never += r.claimed[j][k] == 0;
        }
    CHECK_MSG(twice == 0 && never == 0, "%d partitions claimed twice, %d never", twice, never);
    qsort(r.fences, r.n_fences, sizeof *r.fences, cmp_u64);
    int same = 0;
    for (size_t i = 1; i < r.n_fences; i++) same += r.fences[i] == r.fences[i - 1];
    CHECK(r.n_fences == RACE_JOBS * RACE_PARTS && same == 0);
    printf("race: claims per daemon %zu %zu %zu %zu\n", rs[0].got, rs[1].got, rs[2].got, rs[3].got);
    zp_store_counts n = counts(s);
    CHECK(n.parts_running == RACE_JOBS * RACE_PARTS && n.parts_queued == 0);

    /* each daemon gives all of its claims back */
    for (int i = 0; i < RACE_THREADS; i++) {
        char node[32];
        zp_error err = {0};
        snprintf(node, sizeof node, "racer-%d", i);
        zp_status st = zp_store_release(s, node, NULL, 0, &err);
        CHECK_MSG(st == ZP_OK, "%s", err.message);
    }
    n = counts(s);
    CHECK(n.parts_running == 0 && n.parts_queued == RACE_JOBS * RACE_PARTS);
    for (int j = 0; j < RACE_JOBS; j++) {
        zp_error err = {0};
        zp_status st = zp_store_finish_job(s, r.first_job + j, ZP_JOB_CANCELLED, NULL, NULL, 0, &err);
        CHECK_MSG(st == ZP_OK, "%s", err.message);
    }
    n = counts(s);
    CHECK(n.parts_queued == 0 && n.parts_running == 0);
    pthread_mutex_destroy(&r.lock);
}

/* ---- many daemons working: claims and ends at once ---- */

#define WORK_JOBS 40
#define WORK_PARTS 6

typedef struct work {
    zp_store *shared;
    int own; /* workers 2 and 3 open their own handle */
    int64_t first_job;
    int ended[WORK_JOBS];  /* *job_ended seen, per job */
    int proved[WORK_JOBS]; /* partitions recorded done */
    int refused, errors;
    pthread_mutex_t lock;
} work;

typedef struct worker {
    work *w;
    int no;
} worker;

/* Claims two at a time and ends each: every 7th job fails at its
 * partition 3 (its siblings, held by other daemons, are then refused). */
static void *work_thread(void *arg) {
    worker *me = arg;
    work *w = me->w;
    /* on a shared store, workers 0 and 1 are one daemon's threads on one
     * handle (one connection), 2 and 3 daemons of their own */
    int own = w->own && me->no >= 2;
    zp_store *s = own ? open_store() : w->shared;
    char node[32];
    snprintf(node, sizeof node, "worker-%d", me->no);
    for (;;) {
        zp_store_claim cl[2];
        size_t n = 0;
        zp_error err = {0};
        zp_status st = zp_store_claim_work(cl, 2, &n, s, node, NULL, 0, 60, &err);
        if (st != ZP_OK || n == 0) {
            if (st != ZP_OK) {
                pthread_mutex_lock(&w->lock);
                w->errors++;
                pthread_mutex_unlock(&w->lock);
                fprintf(stderr, "%s: %s\n", node, err.message);
            }
            break;
        }
        for (size_t i = 0; i < n; i++) {
            zp_store_held h = held_of(&cl[i]);
            int64_t j = cl[i].job_id - w->first_job;
            int ended = 0;
            if ((j % 7) == 3 && cl[i].idx == 3)
                st = zp_store_finish_part(&ended, s, &h, ZP_JOB_FAILED, "no luck", NULL, &err);
            else st = done(&ended, s, &h, "{\"w\":1}", &err);
            pthread_mutex_lock(&w->lock);
            if (j < 0 || j >= WORK_JOBS) w->errors++;
            else if (st == ZP_OK) {
                w->ended[j] += ended;
                w->proved[j] += !((j % 7) == 3 && cl[i].idx == 3);
            } else if (st == ZP_ERR_MISMATCH) {
                w->refused++;
            } else {
                w->errors++;
                fprintf(stderr, "%s: %s\n", node, err.message);
            }
            pthread_mutex_unlock(&w->lock);
        }
    }
    if (own) zp_store_close(s);
    return NULL;
}

static void test_workers(zp_store *s) {
    static work w;
    memset(&w, 0, sizeof w);
    pthread_mutex_init(&w.lock, NULL);
    w.shared = s;
    w.own = zp_store_shared(s);
    for (int j = 0; j < WORK_JOBS; j++) {
        char name[16];
        snprintf(name, sizeof name, "work%d", j);
        int64_t id = add(s, name, "kw", j % 2, WORK_PARTS);
        if (j == 0) w.first_job = id;
        CHECK(id == w.first_job + j);
    }
    pthread_t t[RACE_THREADS];
    worker ws[RACE_THREADS];
    for (int i = 0; i < RACE_THREADS; i++) {
        ws[i] = (worker){&w, i};
        CHECK(pthread_create(&t[i], NULL, work_thread, &ws[i]) == 0);
    }
    for (int i = 0; i < RACE_THREADS; i++) pthread_join(t[i], NULL);
    CHECK(w.errors == 0);
    for (int j = 0; j < WORK_JOBS; j++) {
        zp_store_job job = get(s, w.first_job + j);
        CHECK_MSG(w.ended[j] == 1, "job %d ended %d times", j, w.ended[j]);
        if (j % 7 == 3) {
            CHECK_MSG(job.state == ZP_JOB_FAILED && strstr(job.error, "no luck"), "job %d: state %d", j,
                      (int)job.state);
            /* the proofs recorded before the failure still count */
            CHECK_MSG(job.done == (uint32_t)w.proved[j], "job %d: done %u, %d proved", j, job.done, w.proved[j]);
            CHECK(recent(s, job.finished));
        } else {
            CHECK_MSG(job.state == ZP_JOB_DONE && job.done == WORK_PARTS && w.proved[j] == WORK_PARTS,
                      "job %d: state %d done %u proved %d", j, (int)job.state, job.done, w.proved[j]);
        }
    }
    zp_store_counts n = counts(s);
    CHECK(n.parts_queued == 0 && n.parts_running == 0);
    printf("workers: %d results refused (siblings of failed partitions)\n", w.refused);
    pthread_mutex_destroy(&w.lock);
}

/* ---- leases, fences, release, ends, daemons ---- */

static zp_store_node node_row(const char *id, int64_t pid) {
    zp_store_node me;
    memset(&me, 0, sizeof me);
    snprintf(me.id, sizeof me.id, "%s", id);
    snprintf(me.host, sizeof me.host, "host-%s:8080", id);
    me.pid = pid;
    me.started = 1700000000.25;
    me.budget = 1ull << 33;
    me.tracked = 12345;
    me.claimed = 2;
    me.proofs = 7;
    return me;
}

typedef struct node_list {
    zp_store_node n[8];
    size_t count;
} node_list;

static void node_cb(void *arg, const zp_store_node *node) {
    node_list *l = arg;
    if (l->count < 8) l->n[l->count] = *node;
    l->count++;
}

static node_list nodes(zp_store *s) {
    node_list l;
    memset(&l, 0, sizeof l);
    zp_error err = {0};
    zp_status st = zp_store_nodes(s, node_cb, &l, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    return l;
}

static void count_path(void *arg, const char *path) {
    (void)path;
    (*(size_t *)arg)++;
}

static void test_leases(zp_store *s) {
    zp_error err = {0};
    zp_status st;
    int ended, lost[4];

    /* node-b joins and claims job I (lease 60 s): then goes silent */
    zp_store_node nb = node_row("node-b", 200);
    st = zp_store_join(s, &nb, 1, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    int64_t ji = add(s, "I", "kI", 0, 2);
    const zp_store_key kI[] = {{"kI", NULL, NULL}}, kE[] = {{"kE", NULL, NULL}}, kF[] = {{"kF", NULL, NULL}},
                       kG[] = {{"kG", NULL, NULL}}, kH[] = {{"kH", NULL, NULL}};
    zp_store_claim ci[2];
    CHECK(claim(ci, 2, s, "node-b", kI, 1, 60) == 2);

    /* "old" claims E's two partitions and "slow" F's one, each for 1 s */
    int64_t je = add(s, "E", "kE", 0, 2), jf = add(s, "F", "kF", 0, 1);
    zp_store_claim old[2], slow[1], cur[2];
    CHECK(claim(old, 2, s, "old", kE, 1, 1) == 2);
    CHECK(claim(slow, 1, s, "slow", kF, 1, 1) == 1);
    CHECK(claim(cur, 2, s, "new", kE, 1, 30) == 0); /* leases still live */
    usleep(1500 * 1000);

    /* expired: "new" takes E over, with larger fences */
    CHECK(claim(cur, 2, s, "new", kE, 1, 30) == 2);
    CHECK(cur[0].job_id == je && cur[0].idx == 0 && cur[1].idx == 1);
    CHECK(cur[0].fence > old[0].fence && cur[1].fence > old[1].fence);
    zp_store_held ho[2] = {held_of(&old[0]), held_of(&old[1])}, hc[2] = {held_of(&cur[0]), held_of(&cur[1])};
    st = zp_store_renew(lost, s, "old", ho, 2, 30, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    CHECK(lost[0] == 1 && lost[1] == 1);
    /* the stale daemon's result is refused; the current one's recorded */
    st = done(&ended, s, &ho[0], "{\"old\":1}", &err);
    CHECK_MSG(st == ZP_ERR_MISMATCH && strstr(err.message, "refused") && strstr(err.message, "fence"), "%d %s", st,
              err.message);
    st = done(&ended, s, &hc[0], "{\"new\":1}", &err);
    CHECK_MSG(st == ZP_OK && ended == 0, "%s", err.message);
    proofs p = results(s, je);
    CHECK(p.n == 2 && p.has[0] && strcmp(p.proof[0], "{\"new\":1}") == 0 && !p.has[1]);
    st = done(&ended, s, &ho[0], "{\"old\":1}", &err); /* still refused after */
    CHECK(st == ZP_ERR_MISMATCH);
    st = zp_store_renew(lost, s, "new", &hc[1], 1, 30, &err);
    CHECK_MSG(st == ZP_OK && lost[0] == 0, "%s", err.message);

    /* F's lease expired but nobody took it: renewed, and not claimable */
    zp_store_held hf = held_of(&slow[0]);
    st = zp_store_renew(lost, s, "slow", &hf, 1, 30, &err);
    CHECK_MSG(st == ZP_OK && lost[0] == 0, "%s", err.message);
    CHECK(claim(cur, 1, s, "new", kF, 1, 30) == 0);
    st = done(&ended, s, &hf, "{\"slow\":1}", &err);
    CHECK_MSG(st == ZP_OK && ended == 1, "%s", err.message);
    zp_store_job j = get(s, jf);
    CHECK(j.state == ZP_JOB_DONE && j.done == 1);

    /* E cancelled as a whole: "new" loses its claim, its result refused */
    st = zp_store_finish_job(s, je, ZP_JOB_CANCELLED, "cancelled by the test", NULL, 0, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    st = zp_store_renew(lost, s, "new", &hc[1], 1, 30, &err);
    CHECK_MSG(st == ZP_OK && lost[0] == 1, "%s", err.message);
    st = done(&ended, s, &hc[1], "{\"new\":2}", &err);
    CHECK(st == ZP_ERR_MISMATCH);
    j = get(s, je);
    CHECK(j.state == ZP_JOB_CANCELLED && j.done == 1 && strcmp(j.error, "cancelled by the test") == 0);
    p = results(s, je);
    CHECK(p.has[0] && strcmp(p.proof[0], "{\"new\":1}") == 0 && !p.has[1]);
    st = zp_store_finish_job(s, je, ZP_JOB_CANCELLED, NULL, NULL, 0, &err);
    CHECK(st == ZP_ERR_ARG); /* ended once */

    /* release: G1 given back is claimed again with a new fence; the rest
     * given back all at once; the releasing daemon's results refused */
    int64_t jg = add(s, "G", "kG", 0, 3);
    zp_store_claim cg[3], cg2[3];
    CHECK(claim(cg, 3, s, "r", kG, 1, 60) == 3);
    zp_store_held hg[3] = {held_of(&cg[0]), held_of(&cg[1]), held_of(&cg[2])};
    st = zp_store_release(s, "r", &hg[1], 1, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    zp_store_counts n = counts(s);
    CHECK(n.parts_queued == 1);
    CHECK(position(s, jg) == 0);
    CHECK(claim(cg2, 3, s, "r2", kG, 1, 60) == 1);
    CHECK(cg2[0].idx == 1 && cg2[0].fence > cg[2].fence);
    st = zp_store_release(s, "r", NULL, 0, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    st = done(&ended, s, &hg[0], "{\"r\":1}", &err);
    CHECK(st == ZP_ERR_MISMATCH);
    CHECK(claim(cg2 + 1, 2, s, "r2", kG, 1, 60) == 2);
    CHECK(cg2[1].idx == 0 && cg2[2].idx == 2);
    for (int i = 0; i < 3; i++) {
        zp_store_held h = held_of(&cg2[i]);
        st = done(&ended, s, &h, "{\"r2\":1}", &err);
        CHECK_MSG(st == ZP_OK && ended == (i == 2), "%s", err.message);
    }
    j = get(s, jg);
    CHECK(j.state == ZP_JOB_DONE && j.done == 3 && j.partitions == 3);

    /* a failed partition fails the job and cancels the rest */
    int64_t jh = add(s, "H", "kH", 0, 3);
    zp_store_claim ch[3];
    CHECK(claim(ch, 3, s, "f", kH, 1, 60) == 3);
    zp_store_held hh[3] = {held_of(&ch[0]), held_of(&ch[1]), held_of(&ch[2])};
    st = zp_store_finish_part(&ended, s, &hh[1], ZP_JOB_FAILED, "boom", NULL, &err);
    CHECK_MSG(st == ZP_OK && ended == 1, "%s", err.message);
    j = get(s, jh);
    CHECK_MSG(j.state == ZP_JOB_FAILED && strstr(j.error, "boom") && j.done == 0 && recent(s, j.finished), "%d '%s'",
              (int)j.state, j.error);
    st = done(&ended, s, &hh[0], "{\"f\":1}", &err);
    CHECK(st == ZP_ERR_MISMATCH);
    st = zp_store_renew(lost, s, "f", &hh[2], 1, 30, &err);
    CHECK_MSG(st == ZP_OK && lost[0] == 1, "%s", err.message);
    p = results(s, jh);
    CHECK(p.n == 3 && !p.has[0] && !p.has[1] && !p.has[2]);
    CHECK(claim(ch, 3, s, "f", kH, 1, 60) == 0);

    /* daemons: a live id refused, a silent one's claims freed */
    zp_store_node na = node_row("node-a", 100);
    st = zp_store_join(s, &na, 30, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    st = zp_store_join(s, &na, 30, &err);
    CHECK_MSG(st == ZP_ERR_ARG && strstr(err.message, "node-a"), "%d %s", st, err.message);
    st = zp_store_heartbeat(s, &na, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    node_list l = nodes(s);
    CHECK(l.count == 2);
    if (l.count == 2) {
        CHECK(strcmp(l.n[0].id, "node-a") == 0 && strcmp(l.n[1].id, "node-b") == 0);
        CHECK(strcmp(l.n[0].host, "host-node-a:8080") == 0 && l.n[0].pid == 100);
        CHECK(l.n[0].started == 1700000000.25 && l.n[0].budget == 1ull << 33 && l.n[0].tracked == 12345);
        CHECK(l.n[0].claimed == 2 && l.n[0].proofs == 7);
        CHECK(l.n[0].heartbeat_age >= 0 && l.n[0].heartbeat_age < 5);
        CHECK_MSG(l.n[1].heartbeat_age >= 1.4, "node-b heartbeat age %g", l.n[1].heartbeat_age);
    }
    n = counts(s);
    uint64_t queued = n.parts_queued;
    nb.pid = 201; /* node-b again, after a crash: its heartbeat is 1.5 s old */
    st = zp_store_join(s, &nb, 1, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    n = counts(s);
    CHECK(n.parts_queued == queued + 2);
    zp_store_claim ci2[2];
    CHECK(claim(ci2, 2, s, "node-a", kI, 1, 60) == 2);
    CHECK(ci2[0].fence > ci[1].fence && ci2[1].fence > ci[1].fence);
    l = nodes(s);
    CHECK(l.count == 2 && l.n[1].pid == 201 && l.n[1].heartbeat_age < 1);
    /* lease 0: no check (the caller made its own); I's claims freed */
    queued = counts(s).parts_queued;
    st = zp_store_join(s, &na, 0, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    CHECK(counts(s).parts_queued == queued + 2);
    st = zp_store_leave(s, "node-a", &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    l = nodes(s);
    CHECK(l.count == 1 && strcmp(l.n[0].id, "node-b") == 0);

    /* expire: the ended jobs that finished more than ttl ago (the
     * store's clock), never an unended one (I is running, J queued); ids
     * are never handed out again; daemons silent that long are forgotten */
    int64_t jj = add(s, "J", "kJ", 0, 1);
    usleep(1200 * 1000);
    int64_t jl = add(s, "L", "kL", 0, 1);
    st = zp_store_finish_job(s, jl, ZP_JOB_CANCELLED, NULL, NULL, 0, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    st = zp_store_heartbeat(s, &nb, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    size_t paths = 0;
    uint64_t deleted = 0;
    /* every job ended before the pause goes; L (just now) stays */
    st = zp_store_expire(&deleted, s, 0.8, count_path, &paths, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    CHECK_MSG(deleted == (uint64_t)(4 + RACE_JOBS + WORK_JOBS + 3 + 1) &&
                  paths == (size_t)(8 + RACE_JOBS * RACE_PARTS + WORK_JOBS * WORK_PARTS + 2 + 1 + 3 + 3),
              "deleted %llu jobs, %zu paths", (unsigned long long)deleted, paths);
    zp_store_job gone;
    st = zp_store_get_job(&gone, s, je, &err);
    CHECK(st == ZP_ERR_ARG && strstr(err.message, "no job"));
    st = zp_store_get_job(&gone, s, jh, &err);
    CHECK(st == ZP_ERR_ARG);
    CHECK(get(s, jl).state == ZP_JOB_CANCELLED);
    CHECK(get(s, ji).state == ZP_JOB_RUNNING);
    CHECK(get(s, jj).state == ZP_JOB_QUEUED);
    CHECK(nodes(s).count == 1); /* node-b's heartbeat is younger than that */
    paths = 0;
    usleep(20 * 1000);
    st = zp_store_expire(&deleted, s, 0, count_path, &paths, &err);
    CHECK_MSG(st == ZP_OK && deleted == 1 && paths == 1, "%s: %llu %zu", err.message, (unsigned long long)deleted,
              paths);
    CHECK(nodes(s).count == 0); /* silent since before now */
    CHECK(get(s, ji).state == ZP_JOB_RUNNING && get(s, jj).state == ZP_JOB_QUEUED);
    CHECK(add(s, "K", "kK", 0, 1) > jl);
    n = counts(s);
    CHECK(n.jobs[ZP_JOB_QUEUED] == 2 && n.jobs[ZP_JOB_RUNNING] == 1 && n.jobs[ZP_JOB_DONE] == 0);
    CHECK(n.parts_queued == 4 && n.parts_running == 0); /* I's partitions queued again, J's and K's */
    (void)kH;
}

/* ---- pins: a daemon claims and records only its own bytes' jobs ---- */

#define DA "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define DB "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define WA "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
#define WB "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"

typedef struct mismatch_list {
    char key[8][128], kd[8][65], wd[8][65];
    uint64_t jobs[8];
    size_t n;
} mismatch_list;

static void mismatch_cb(void *arg, const char *key_id, const char *key_digest, const char *wasm_digest, uint64_t jobs) {
    mismatch_list *l = arg;
    if (l->n == 8) return;
    snprintf(l->key[l->n], sizeof l->key[0], "%s", key_id);
    snprintf(l->kd[l->n], sizeof l->kd[0], "%s", key_digest);
    snprintf(l->wd[l->n], sizeof l->wd[0], "%s", wasm_digest);
    l->jobs[l->n++] = jobs;
}

static int64_t add_pinned(zp_store *s, const char *key, const char *kd, const char *wd, uint32_t n) {
    const char *paths[4] = {"/spool/pin-0.json", "/spool/pin-1.json", "/spool/pin-2.json", "/spool/pin-3.json"};
    int64_t id = 0;
    int existing = -1;
    zp_error err = {0};
    zp_status st = zp_store_add_job(&id, &existing, s, NULL, NULL, key, kd, wd, 0, n, paths, &err);
    CHECK_MSG(st == ZP_OK && id > 0 && existing == 0, "%s", err.message);
    return id;
}

static zp_status done_with(int *ended, zp_store *s, const zp_store_claim *c, const char *kd, const char *wd,
                           zp_error *err) {
    zp_store_held h = held_of(c);
    zp_store_result r = {"{\"pinned\":1}", "[\"1\"]", {.total = 1}, kd, wd};
    return zp_store_finish_part(ended, s, &h, ZP_JOB_DONE, NULL, &r, err);
}

static void test_pins(zp_store *s) {
    zp_error err = {0};
    zp_status st;
    int ended, existing;
    int64_t id;
    const char *w[1] = {"/spool/x.wtns"};
    /* a pin is a digest, and a circuit's only with a key's */
    CHECK(zp_store_add_job(&id, &existing, s, NULL, NULL, "kP", "xyz", NULL, 0, 1, w, &err) == ZP_ERR_ARG);
    CHECK(zp_store_add_job(&id, &existing, s, NULL, NULL, "kP", DA "0", NULL, 0, 1, w, &err) == ZP_ERR_ARG);
    CHECK(zp_store_add_job(&id, &existing, s, NULL, NULL, "kP", NULL, WA, 0, 1, w, &err) == ZP_ERR_ARG);

    int64_t jp = add_pinned(s, "kP", DA, NULL, 2);   /* witnesses, key A */
    int64_t jq = add_pinned(s, "kP", DA, WA, 1);     /* inputs, key A and circuit A */
    int64_t jl = add_pinned(s, "kP", NULL, NULL, 1); /* from before pins */
    zp_store_job j = get(s, jq);
    CHECK(!strcmp(j.key_digest, DA) && !strcmp(j.wasm_digest, WA));
    CHECK(get(s, jl).key_digest[0] == '\0' && get(s, jp).wasm_digest[0] == '\0');
    const zp_store_key bad[] = {{"kP", "nothex", NULL}};
    size_t n = 9;
    zp_store_claim c[4];
    CHECK(zp_store_claim_work(c, 4, &n, s, "pin-b", bad, 1, 60, &err) == ZP_ERR_ARG && n == 0);

    /* daemon B, another file under kP: only the job without pins */
    const zp_store_key kb[] = {{"kP", DB, WB}};
    CHECK(claim(c, 4, s, "pin-b", kb, 1, 60) == 1 && c[0].job_id == jl);
    zp_store_claim cl = c[0];
    /* daemon A without its circuit: the witnesses' job, not the inputs' */
    const zp_store_key ka_bare[] = {{"kP", DA, NULL}};
    CHECK(claim(c, 4, s, "pin-a", ka_bare, 1, 60) == 2 && c[0].job_id == jp && c[1].job_id == jp);
    /* what B cannot take: the inputs job waits pinned to A (jp runs) */
    mismatch_list m;
    memset(&m, 0, sizeof m);
    st = zp_store_mismatches(s, kb, 1, mismatch_cb, &m, &err);
    CHECK_MSG(st == ZP_OK && m.n == 1, "%s: %zu", err.message, m.n);
    CHECK(m.n == 1 && !strcmp(m.key[0], "kP") && !strcmp(m.kd[0], DA) && !strcmp(m.wd[0], WA) && m.jobs[0] == 1);
    memset(&m, 0, sizeof m);
    const zp_store_key ka[] = {{"kP", DA, WA}};
    CHECK(zp_store_mismatches(s, ka, 1, mismatch_cb, &m, &err) == ZP_OK && m.n == 0);

    /* a proof of jp made with B's key, or of no known key, is refused and
     * the partition queued again; A's is recorded */
    uint64_t queued = counts(s).parts_queued;
    st = done_with(&ended, s, &c[0], DB, NULL, &err);
    CHECK_MSG(st == ZP_ERR_MISMATCH && strstr(err.message, "pinned") && strstr(err.message, "queue"), "%d %s", st,
              err.message);
    CHECK(counts(s).parts_queued == queued + 1);
    CHECK(get(s, jp).done == 0);
    st = done_with(&ended, s, &c[1], NULL, NULL, &err);
    CHECK(st == ZP_ERR_MISMATCH);
    CHECK(counts(s).parts_queued == queued + 2);
    CHECK(claim(c, 4, s, "pin-a", ka_bare, 1, 60) == 2 && c[0].job_id == jp);
    st = done_with(&ended, s, &c[0], DA, NULL, &err);
    CHECK_MSG(st == ZP_OK && ended == 0, "%s", err.message);
    st = done_with(&ended, s, &c[1], DA, NULL, &err);
    CHECK_MSG(st == ZP_OK && ended == 1, "%s", err.message);
    CHECK(get(s, jp).state == ZP_JOB_DONE && get(s, jp).done == 2);

    /* the inputs job: A with its circuit; a witness from another circuit refused */
    CHECK(claim(c, 4, s, "pin-a", ka, 1, 60) == 1 && c[0].job_id == jq);
    CHECK(done_with(&ended, s, &c[0], DA, WB, &err) == ZP_ERR_MISMATCH);
    CHECK(claim(c, 4, s, "pin-a", ka, 1, 60) == 1 && c[0].job_id == jq);
    st = done_with(&ended, s, &c[0], DA, WA, &err);
    CHECK_MSG(st == ZP_OK && ended == 1, "%s", err.message);

    /* the job from before pins: any key's proof */
    st = done_with(&ended, s, &cl, DB, NULL, &err);
    CHECK_MSG(st == ZP_OK && ended == 1, "%s", err.message);

    /* a job ended whole with results: a proof not of its pins refused */
    int64_t jr = add_pinned(s, "kP", DA, NULL, 1);
    zp_store_result r = {.proof_json = "{}", .public_json = "[]", .key_digest = DB};
    CHECK(zp_store_finish_job(s, jr, ZP_JOB_DONE, NULL, &r, 1, &err) == ZP_ERR_MISMATCH);
    CHECK(get(s, jr).state == ZP_JOB_QUEUED);
    r.key_digest = DA;
    CHECK(zp_store_finish_job(s, jr, ZP_JOB_DONE, NULL, &r, 1, &err) == ZP_OK && get(s, jr).done == 1);
}

/* ---- damaged claims, the clock, the daemons' keys and skew ---- */

typedef struct repair_list {
    int64_t job[8];
    uint32_t idx[8];
    char what[8][320];
    size_t n;
} repair_list;

static void repair_cb(void *arg, int64_t job_id, uint32_t idx, const char *what) {
    repair_list *l = arg;
    if (l->n == 8) return;
    l->job[l->n] = job_id;
    l->idx[l->n] = idx;
    snprintf(l->what[l->n++], sizeof l->what[0], "%s", what);
}

static void test_repair(zp_store *s) {
    zp_error err = {0};
    zp_status st;
    /* a daemon of the store, with its keys and clock; and a claim by a
     * node no daemon of the store is */
    zp_store_node live = node_row("rep-live", 300);
    live.clock_skew = -259200.5;
    live.keys = "{\"kR\":{\"zkey\":\"" DA "\"}}";
    st = zp_store_join(s, &live, 0, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    node_list l = nodes(s);
    CHECK(l.count == 1 && l.n[0].clock_skew == -259200.5);
    int64_t jr = add(s, "R", "kR", 0, 2);
    const zp_store_key kr[] = {{"kR", NULL, NULL}};
    zp_store_claim c[2];
    CHECK(claim(c, 1, s, "rep-ghost", kr, 1, 600) == 1 && c[0].job_id == jr && c[0].idx == 0);
    CHECK(claim(c + 1, 1, s, "rep-live", kr, 1, 600) == 1 && c[1].idx == 1);
    repair_list r;
    memset(&r, 0, sizeof r);
    size_t repaired = 99;
    uint64_t queued = counts(s).parts_queued;
    st = zp_store_repair(&repaired, s, repair_cb, &r, &err);
    CHECK_MSG(st == ZP_OK && repaired == 1 && r.n == 1, "%s: %zu", err.message, repaired);
    CHECK_MSG(r.job[0] == jr && r.idx[0] == 0 && strstr(r.what[0], "rep-ghost") && strstr(r.what[0], "no daemon"), "%s",
              r.what[0]);
    CHECK(counts(s).parts_queued == queued + 1); /* the ghost's; the live daemon keeps its own */
    int lost = 9;
    zp_store_held h = held_of(&c[1]);
    CHECK(zp_store_renew(&lost, s, "rep-live", &h, 1, 60, &err) == ZP_OK && lost == 0);
    h = held_of(&c[0]);
    CHECK(zp_store_renew(&lost, s, "rep-ghost", &h, 1, 60, &err) == ZP_OK && lost == 1);
    CHECK(zp_store_repair(&repaired, s, NULL, NULL, &err) == ZP_OK && repaired == 0);
    zp_store_claim c2;
    CHECK(claim(&c2, 1, s, "rep-live", kr, 1, 60) == 1 && c2.idx == 0 && c2.fence > c[1].fence);
    int ended;
    CHECK(done(&ended, s, &h, "{\"ghost\":1}", &err) == ZP_ERR_MISMATCH);
    h = held_of(&c2);
    CHECK(done(&ended, s, &h, "{\"live\":1}", &err) == ZP_OK && ended == 0);
    h = held_of(&c[1]);
    CHECK(done(&ended, s, &h, "{\"live\":2}", &err) == ZP_OK && ended == 1);

    /* the store's clock: this host's, give or take (pg.sh's server runs here) */
    double now = 0, wall = (double)time(NULL);
    st = zp_store_clock(&now, s, &err);
    CHECK_MSG(st == ZP_OK && now > wall - 5 && now < wall + 5, "%s: %f vs %f", err.message, now, wall);
    /* a daemon's keys and clock skew, as it wrote them */
    l = nodes(s);
    CHECK(l.count == 1 && l.n[0].clock_skew == -259200.5);
    st = zp_store_leave(s, "rep-live", &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
}

static void keys_cb(void *arg, const zp_store_node *node) {
    int *ok = arg;
    *ok = node->keys != NULL && strstr(node->keys, DA) != NULL;
}

static void test_node_keys(zp_store *s) {
    zp_error err = {0};
    zp_store_node me = node_row("keys-node", 1);
    me.keys = "{\"kR\":{\"zkey\":\"" DA "\"}}";
    CHECK(zp_store_heartbeat(s, &me, &err) == ZP_OK);
    int ok = 0;
    CHECK(zp_store_nodes(s, keys_cb, &ok, &err) == ZP_OK && ok == 1);
    CHECK(zp_store_leave(s, "keys-node", &err) == ZP_OK);
}

/* ---- the server away for a while (tests/store/pg.sh) ---- */

/* With the server stopped, calls fail with ZP_ERR_IO naming the store;
 * once it is back, the same handle works again. */
static void test_outage(zp_store *s, const char *stop, const char *start) {
    zp_error err = {0};
    zp_store_counts c;
    int rc = system(stop);
    CHECK_MSG(rc == 0, "%s: exit %d", stop, rc);
    zp_status st = zp_store_count(&c, s, &err);
    CHECK_MSG(st == ZP_ERR_IO && strstr(err.message, zp_store_name(s)), "%d %s", st, err.message);
    printf("server down: %s\n", err.message);
    zp_store_node me = node_row("outage", 1);
    st = zp_store_heartbeat(s, &me, &err);
    CHECK(st == ZP_ERR_IO);
    rc = system(start);
    CHECK_MSG(rc == 0, "%s: exit %d", start, rc);
    st = zp_store_heartbeat(s, &me, &err);
    CHECK_MSG(st == ZP_OK, "after the server came back: %s", err.message);
    st = zp_store_leave(s, "outage", &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    printf("server back\n");
}

/* ---- a temporary SQLite store ---- */

static char tmpdir[64];

static void remove_tmp(void) {
    DIR *d = opendir(tmpdir);
    if (d == NULL) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(tmpdir);
}

int main(int argc, char **argv) {
    static char path[128];
    zp_test_init("test_store_claims");
    if (argc > 1) {
        where = argv[1];
    } else {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/zp_store_claims_XXXXXX");
        if (mkdtemp(tmpdir) == NULL) {
            perror("mkdtemp");
            return 1;
        }
        snprintf(path, sizeof path, "%s/claims.db", tmpdir);
        where = path;
    }
    zp_store *s = open_store();
    printf("store: %s (%s)\n", zp_store_name(s), zp_store_kind(s));
    empty_store(s);
    test_order(s);
    /* tests/store/pg.sh: the server goes away and comes back here; the
     * store's next call must reconnect by itself */
    const char *restart = getenv("ZP_STORE_RESTART");
    if (restart != NULL && *restart) {
        int rc = system(restart);
        CHECK_MSG(rc == 0, "%s: exit %d", restart, rc);
        printf("restarted the server\n");
    }
    test_race(s);
    const char *stop = getenv("ZP_STORE_STOP"), *start = getenv("ZP_STORE_START");
    if (stop != NULL && *stop && start != NULL && *start) test_outage(s, stop, start);
    test_workers(s);
    test_leases(s);
    test_pins(s);
    test_repair(s);
    test_node_keys(s);
    zp_store_close(s);
    if (argc <= 1) remove_tmp();
    return zp_test_done();
}
