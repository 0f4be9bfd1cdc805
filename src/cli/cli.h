/* The zkpipe command: one function per subcommand, each taking its own
 * argv (argv[0] is the subcommand) and returning the exit status. */
#ifndef ZP_CLI_CLI_H
#define ZP_CLI_CLI_H

#include "base/options.h"
#include "zkpipe.h"

int zp_cmd_prove(int argc, char **argv);
int zp_cmd_verify(int argc, char **argv);
int zp_cmd_setup(int argc, char **argv);
int zp_cmd_export_vk(int argc, char **argv);
int zp_cmd_info(int argc, char **argv);
int zp_cmd_run(int argc, char **argv);
/* circom's witness calculator (src/witness): cmd_wtns.c, cmd_fullprove.c. */
int zp_cmd_wtns(int argc, char **argv);
int zp_cmd_fullprove(int argc, char **argv);
int zp_cmd_serve(int argc, char **argv);
/* Clients of a running daemon (cmd_client.c). */
int zp_cmd_submit(int argc, char **argv);
int zp_cmd_status(int argc, char **argv);
int zp_cmd_await(int argc, char **argv);
int zp_cmd_cancel(int argc, char **argv);
int zp_cmd_keys(int argc, char **argv);
/* Trusted-setup ceremonies (src/ceremony): cmd_zkey.c. */
int zp_cmd_zkey(int argc, char **argv);
int zp_cmd_ptau(int argc, char **argv); /* powersoftau, ptau: cmd_ptau.c */

/* Prints "zkpipe: <message>" on stderr and returns the exit status for err. */
int zp_cli_fail(const zp_error *err);
/* Exit statuses: 0 success, 1 a proof that does not verify, 2 bad usage,
 * 3 bad input (a file's content), 4 any other failure. */
enum { ZP_EXIT_OK = 0, ZP_EXIT_INVALID = 1, ZP_EXIT_USAGE = 2, ZP_EXIT_INPUT = 3, ZP_EXIT_FAILURE = 4 };
/* 1 when argv holds -h or --help. */
int zp_cli_wants_help(int argc, char **argv);

/* A command's options and help (cli/args.c): its usage line and
 * description (head), its option tables, each listed under its title in
 * --help (a title "": listed with the table before; NULL: parsed but not
 * listed, for options the head or tail describe), and the text after them
 * (tail; NULL: none). */
typedef struct zp_cli_command {
    const char *name; /* "prove": messages say "zkpipe prove: ..." */
    const char *head;
    const zp_option_table *tables;
    size_t n_tables;
    const char *tail;
} zp_cli_command;

/* Prints the command's help on stdout; returns ZP_EXIT_OK. */
int zp_cli_help(const zp_cli_command *cmd);
/* Parses the options of argv (argv[0] is the command) into the tables'
 * structs and moves the other arguments to argv[1..]; returns how many
 * there are, or -1 after printing what was wrong and the help. */
int zp_cli_parse(const zp_cli_command *cmd, int argc, char **argv);
/* Prints "zkpipe <command>: <message>" and the help on stderr; returns
 * ZP_EXIT_USAGE. */
int zp_cli_usage_error(const zp_cli_command *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Asks for a contribution's entropy on the terminal ("Enter a random
 * text. (Entropy): ", as snarkjs asks) and reads one line into buf (cap
 * bytes, the newline dropped). Returns 1 when it asked, 0 when stdin is
 * not a terminal (buf then empty). */
int zp_cli_read_entropy(char *buf, size_t cap);

/* -t, --threads N (0: one per CPU), into a size_t; every command with
 * worker threads lists it. */
#define ZP_CLI_THREADS_OPTION(type_, field_, help_) \
    { "threads", 't', ZP_OPT_COUNT, offsetof(type_, field_), 0, 1024, NULL, "N", help_, NULL }

/* --time-limit S: how long the circuit's code may run, in a double
 * field (0: no limit). */
#define ZP_CLI_TIME_LIMIT_OPTION(type_, field_)                                                                \
    {                                                                                                          \
        "time-limit", 0, ZP_OPT_SECONDS, offsetof(type_, field_), 0, 0, NULL, "S",                             \
            "stop the circuit's code after S seconds (its first calls, then the\nwitness; the compile is not " \
            "counted): exit 3 (default: none)",                                                                \
            NULL                                                                                               \
    }

#endif
