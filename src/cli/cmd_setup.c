/* zkpipe setup: a development proving key from a .r1cs, streamed to the
 * file a chunk at a time within a memory budget (groth16/setup.h). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "cli/cli.h"
#include "engine/pool.h"
#include "groth16/setup.h"
#include "io/r1cs.h"
#include "io/zkey_writer.h"
#include "mem/large.h"
#include "mem/track.h"

static const char head[] =
    "usage: zkpipe setup [options] <circuit.r1cs> <circuit.zkey>\n"
    "\n"
    "Makes a Groth16 proving key for the circuit from random toxic waste (OS\n"
    "randomness, forgotten when done) and writes it as a snarkjs .zkey.\n"
    "\n"
    "  UNSAFE FOR PRODUCTION: nobody can check that the toxic waste was\n"
    "  forgotten, so whoever ran this could forge proofs. Use it for tests and\n"
    "  benchmarks; use a snarkjs ceremony (powersoftau, zkey contribute) for\n"
    "  keys that protect anything.\n"
    "\n"
    "It takes seconds where snarkjs needs a large powers-of-tau file and many\n"
    "minutes. snarkjs reads the key ('snarkjs zkey export verificationkey').\n"
    "\n"
    "The key is written as it is computed, a chunk at a time, into a temporary\n"
    "file beside the destination that is renamed to it when complete (and\n"
    "removed on any failure), so a key larger than memory can be made. With\n"
    "--budget the whole process stays within SIZE: its own memory with the\n"
    "circuit loaded, then chunks as large as the rest allows. A budget that\n"
    "holds u, v and w (96 bytes per wire) walks the constraints once; a\n"
    "smaller one walks them once per chunk of wires (at most 64 times, which\n"
    "sets the minimum; a budget below it is refused with the minimum named).\n"
    "\n";

typedef struct setup_args {
    size_t threads;
    uint64_t budget;
    int quiet;
} setup_args;

static const zp_option options[] = {
    ZP_CLI_THREADS_OPTION(setup_args, threads, "worker threads (default: one per CPU)"),
    {"budget", 0, ZP_OPT_MEMORY, offsetof(setup_args, budget), 1, UINT64_MAX, NULL, "SIZE",
     "memory for the whole process, e.g. 8G, 512M (default: no limit;\nat most this machine's memory)", NULL},
    {"quiet", 'q', ZP_OPT_FLAG, offsetof(setup_args, quiet), 0, 0, NULL, NULL, "no warning and no summary", NULL},
};

/* The temporary file, for the signal handler: removed, then the signal's
 * default action (a killed setup leaves nothing behind). */
static char temp_path[4096];
static volatile sig_atomic_t temp_set;

static void on_signal(int sig) {
    if (temp_set) (void)unlink(temp_path);
    signal(sig, SIG_DFL);
    raise(sig);
}

static const int caught[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/* The progress line: on a terminal only, after a second, twice a second. */
typedef struct progress {
    double t0, last;
    int shown;
    unsigned log_n;
} progress;

static void on_progress(void *arg, uint64_t done, uint64_t total) {
    progress *p = arg;
    double now = zp_clock_now();
    if (now - p->t0 < 1.0 || now - p->last < 0.5) return;
    p->last = now;
    p->shown = 1;
    fprintf(stderr, "\rzkpipe: setup 2^%u: %3.0f%% in %.0f s ", p->log_n, 100.0 * (double)done / (double)total,
            now - p->t0);
    fflush(stderr);
}

/* Bytes the process needs beyond its RSS at the start and the tracked
 * buffers: each worker's stack in the fixed-base products (a block of 64
 * Jacobian points and their scratch) and the C library's own. */
static uint64_t slack_bytes(size_t threads) { return (2u << 20) + (uint64_t)threads * (256u << 10); }

static double mib(uint64_t b) { return (double)b / 1048576.0; }

int zp_cmd_setup(int argc, char **argv) {
    setup_args args = {0};
    zp_option_table tables[] = {{"options:", options, sizeof options / sizeof *options, &args}};
    zp_cli_command cmd = {"setup", head, tables, 1, NULL};
    if (zp_cli_wants_help(argc, argv)) return zp_cli_help(&cmd);
    int npos = zp_cli_parse(&cmd, argc, argv);
    if (npos < 0) return ZP_EXIT_USAGE;
    if (npos != 2) return zp_cli_usage_error(&cmd, "expected 2 arguments, got %d", npos);
    size_t threads = args.threads;
    int quiet = args.quiet;
    char **pos = argv + 1;
    zp_error err = {0};
    zp_r1cs *r1cs = NULL;
    zp_pool *pool = NULL;
    zp_zkey_writer *writer = NULL;
    int rc = ZP_EXIT_OK;
    double t0 = zp_clock_now();
    if (zp_r1cs_open(&r1cs, pos[0], &err) != ZP_OK) goto fail;
    const zp_r1cs_header *h = zp_r1cs_get_header(r1cs);
    zp_constraint_system cs = {
        .curve = h->curve,
        .n_wires = h->n_wires,
        .n_public = h->n_pub_out + h->n_pub_in,
        .n_constraints = h->n_constraints,
    };
    for (int k = 0; k < 3; k++) {
        const zp_r1cs_matrix *m = zp_r1cs_get_matrix(r1cs, k);
        cs.m[k].row_start = m->row_start;
        cs.m[k].wire = m->wire;
        cs.m[k].coef = m->coef;
    }
    if (zp_pool_create(&pool, threads, &err) != ZP_OK) goto fail;
    zp_parallel par = zp_pool_parallel(pool);
    /* the process's own memory now: the circuit, the pool's threads, and
     * the code not yet run, whose pages come in as it runs */
    uint64_t own = (uint64_t)zp_mem_rss() + zp_mem_image_unloaded() + slack_bytes(zp_parallel_threads(&par));
    uint64_t buffers = 0;
    if (args.budget != 0) {
        zp_groth16_setup_plan least;
        if (zp_groth16_setup_plan_for(&least, &cs, 0, &err) != ZP_OK) {
            zp_error_prefix(&err, "%s: ", pos[0]);
            goto fail;
        }
        /* reading the circuit mapped its file beside the arrays made from
         * it: a peak that is past, but that the budget must have held */
        uint64_t need = own + least.min_bytes, peak = zp_mem_peak_rss();
        if (need < peak) need = peak;
        if (args.budget < need) {
            zp_error_set(&err, ZP_ERR_ARG,
                         "--budget %.1f MiB is below this setup's minimum, %.1f MiB: the process's own %.1f MiB with "
                         "the circuit loaded (%.1f MiB at its peak while reading it), and %.1f MiB of working memory "
                         "for a 2^%u domain",
                         mib(args.budget), mib(need), mib(own), mib(peak), mib(least.min_bytes), least.log_n);
            goto fail;
        }
        buffers = args.budget - own;
    }
    zp_groth16_setup_plan plan;
    if (zp_groth16_setup_plan_for(&plan, &cs, buffers, &err) != ZP_OK) {
        zp_error_prefix(&err, "%s: ", pos[0]);
        goto fail;
    }
    zp_groth16_pk shape;
    zp_groth16_setup_shape(&shape, &cs, &plan);
    if (zp_zkey_writer_open(&writer, pos[1], &shape, &err) != ZP_OK) goto fail;
    snprintf(temp_path, sizeof temp_path, "%s", zp_zkey_writer_temp(writer));
    temp_set = 1;
    struct sigaction sa = {.sa_handler = on_signal}, old[sizeof caught / sizeof *caught];
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof caught / sizeof *caught; i++) sigaction(caught[i], &sa, &old[i]);
    zp_tracker tracker;
    zp_tracker_init(&tracker);
    progress prog = {.t0 = zp_clock_now(), .log_n = plan.log_n};
    zp_groth16_setup_opts opts = {.tracker = &tracker};
    if (!quiet && isatty(2)) {
        opts.progress = on_progress;
        opts.progress_arg = &prog;
    }
    zp_status st = zp_groth16_setup_stream(&cs, &plan, &opts, zp_zkey_writer_put, writer, &par, &err);
    if (prog.shown) fprintf(stderr, "\r\033[K");
    if (st == ZP_OK) {
        st = zp_zkey_writer_commit(writer, &err);
    } else {
        zp_error_prefix(&err, "%s: ", pos[0]);
        zp_zkey_writer_abort(writer);
    }
    writer = NULL;
    temp_set = 0;
    for (size_t i = 0; i < sizeof caught / sizeof *caught; i++) sigaction(caught[i], &old[i], NULL);
    if (st != ZP_OK) goto fail;
    if (!quiet) {
        fprintf(stderr,
                "zkpipe: wrote %s: %s, %u constraints, %u wires, %u public, domain 2^%u, in %.2f s\n"
                "zkpipe: working memory %.1f MiB (peak tracked), %zu pass%s over the constraints, chunks of %zu "
                "points\n"
                "zkpipe: WARNING: a development key from random toxic waste: unsafe for production\n",
                pos[1], zp_curve_name(cs.curve), cs.n_constraints, cs.n_wires, cs.n_public, plan.log_n,
                zp_clock_now() - t0, mib(atomic_load(&tracker.total_peak)), plan.passes, plan.passes == 1 ? "" : "es",
                plan.row_chunk);
    }
    goto done;
fail:
    rc = zp_cli_fail(&err);
done:
    zp_zkey_writer_abort(writer);
    zp_pool_destroy(pool);
    zp_r1cs_close(r1cs);
    return rc;
}
