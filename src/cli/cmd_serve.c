/* zkpipe serve: the proving daemon (docs/daemon.md). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "server/config.h"
#include "server/server.h"

static const char help_head[] =
    "usage: zkpipe serve [--config FILE] [--<option> VALUE ...]\n"
    "\n"
    "Runs the proving daemon: the pipeline engine behind an HTTP/JSON API\n"
    "(/v1/jobs, /v1/status, /v1/keys, /metrics; docs/daemon.md has every\n"
    "endpoint with curl examples) and a live dashboard at /. Every accepted job\n"
    "is kept in an SQLite store under data_dir with its witnesses: after a\n"
    "crash or restart, unfinished jobs run again and finished proofs can still\n"
    "be fetched. SIGTERM or SIGINT stops it gracefully.\n"
    "\n"
    "The config file holds 'option value' lines ('#' comments); the same\n"
    "options are flags, which win over the file:\n"
    "\n";

/* --config is read before the other flags (so that they win wherever
 * they appear); here it is only recognised, and skipped. */
typedef struct serve_args {
    const char *config;
} serve_args;

static const zp_option serve_options[] = {
    {"config", 0, ZP_OPT_ARG, offsetof(serve_args, config), 0, 0, NULL, "FILE", "the config file", NULL},
};

int zp_cmd_serve(int argc, char **argv) {
    zp_server_config cfg;
    serve_args args = {0};
    size_t n_options;
    const zp_option *options = zp_server_config_options(&n_options);
    /* untitled tables: the help lists the options in the config file's form
     * (the tail), which docs/daemon.md shows too */
    zp_option_table tables[] = {{NULL, serve_options, 1, &args}, {NULL, options, n_options, &cfg}};
    zp_cli_command cmd = {"serve", help_head, tables, 2, zp_server_config_table()};
    if (zp_cli_wants_help(argc, argv)) return zp_cli_help(&cmd);
    zp_server_config_init(&cfg);
    zp_error err = {0};
    int rc = ZP_EXIT_OK;
    /* the file first, so that flags win wherever they appear */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "zkpipe serve: --config needs a file\n");
                rc = ZP_EXIT_USAGE;
            } else if (zp_server_config_load(&cfg, argv[i + 1], &err) != ZP_OK) {
                rc = zp_cli_fail(&err);
            }
            i++;
        }
    }
    if (rc == ZP_EXIT_OK) {
        int npos = zp_cli_parse(&cmd, argc, argv);
        if (npos < 0) {
            rc = ZP_EXIT_USAGE;
        } else if (npos > 0) {
            fprintf(stderr, "zkpipe serve: unexpected '%s' (options are --name value; see --help)\n", argv[1]);
            rc = ZP_EXIT_USAGE;
        }
    }
    if (rc != ZP_EXIT_OK) {
        zp_server_config_free(&cfg);
        return rc;
    }

    /* signals are taken by sigwait below, in this thread only */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    zp_server *server;
    if (zp_server_start(&server, &cfg, &err) != ZP_OK) {
        rc = zp_cli_fail(&err);
        zp_server_config_free(&cfg);
        return rc;
    }
    if (zp_server_port(server)) {
        const char *listen = cfg.listen;
        const char *colon = strrchr(listen, ':');
        fprintf(stderr, "zkpipe serve: listening on http://%.*s:%d/ (data in %s)\n", (int)(colon - listen), listen,
                zp_server_port(server), cfg.data_dir);
    }
    if (cfg.unix_socket) fprintf(stderr, "zkpipe serve: listening on unix:%s\n", cfg.unix_socket);
    fflush(stderr);
    int sig = 0;
    sigwait(&set, &sig);
    fprintf(stderr, "zkpipe serve: %s: stopping (running partitions may finish for %llu s)\n",
            sig == SIGTERM ? "SIGTERM" : "SIGINT", (unsigned long long)cfg.shutdown_grace);
    zp_server_stop(server);
    fprintf(stderr, "zkpipe serve: stopped\n");
    zp_server_config_free(&cfg);
    return ZP_EXIT_OK;
}
