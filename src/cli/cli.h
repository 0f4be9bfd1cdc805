/* The zkpipe command: one function per subcommand, each taking its own
 * argv (argv[0] is the subcommand) and returning the exit status. */
#ifndef ZP_CLI_CLI_H
#define ZP_CLI_CLI_H

#include "zkpipe.h"

int zp_cmd_prove(int argc, char **argv);
int zp_cmd_verify(int argc, char **argv);
int zp_cmd_setup(int argc, char **argv);
int zp_cmd_export_vk(int argc, char **argv);
int zp_cmd_info(int argc, char **argv);
int zp_cmd_run(int argc, char **argv);
int zp_cmd_serve(int argc, char **argv);
/* Clients of a running daemon (cmd_client.c). */
int zp_cmd_submit(int argc, char **argv);
int zp_cmd_status(int argc, char **argv);
int zp_cmd_await(int argc, char **argv);
int zp_cmd_cancel(int argc, char **argv);
int zp_cmd_keys(int argc, char **argv);

/* Prints "zkpipe: <message>" on stderr and returns the exit status for err. */
int zp_cli_fail(const zp_error *err);
/* Exit statuses: 0 success, 1 a proof that does not verify, 2 bad usage,
 * 3 bad input (a file's content), 4 any other failure. */
enum { ZP_EXIT_OK = 0, ZP_EXIT_INVALID = 1, ZP_EXIT_USAGE = 2, ZP_EXIT_INPUT = 3, ZP_EXIT_FAILURE = 4 };
/* Seconds on a monotonic clock. */
/* 1 when argv holds -h or --help. */
int zp_cli_wants_help(int argc, char **argv);
/* Parses --threads N (0 = all CPUs); removes recognised options from argv
 * and returns the new argc, or -1 on a bad value (message printed). */
int zp_cli_parse_threads(int argc, char **argv, size_t *threads);

#endif
