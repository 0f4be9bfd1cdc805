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

int zp_cmd_serve(int argc, char **argv) {
    if (zp_cli_wants_help(argc, argv)) {
        fputs(help_head, stdout);
        fputs(zp_server_config_table(), stdout);
        return ZP_EXIT_OK;
    }
    zp_server_config cfg;
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
    for (int i = 1; rc == ZP_EXIT_OK && i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0) {
            i++;
            continue;
        }
        if (strncmp(argv[i], "--", 2) != 0 || i + 1 >= argc) {
            fprintf(stderr, "zkpipe serve: unexpected '%s' (options are --name value; see --help)\n", argv[i]);
            rc = ZP_EXIT_USAGE;
            break;
        }
        char name[64];
        snprintf(name, sizeof name, "%s", argv[i] + 2);
        for (char *c = name; *c; c++) {
            if (*c == '-') *c = '_';
        }
        if (zp_server_config_set(&cfg, name, argv[i + 1], argv[i], &err) != ZP_OK) {
            fprintf(stderr, "zkpipe serve: %s\n", err.message);
            rc = ZP_EXIT_USAGE;
            break;
        }
        i++;
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
