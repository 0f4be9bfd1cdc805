/* The commands' options: each command describes its options in tables
 * (base/options.h) and gets its parsing, its usage errors and its --help
 * from them here. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

static void print_help(FILE *f, const zp_cli_command *cmd) {
    fputs(cmd->head, f);
    int column = 0; /* one column for all the tables */
    for (size_t t = 0; t < cmd->n_tables; t++) {
        const zp_option_table *tab = &cmd->tables[t];
        if (tab->n == 0 || tab->title == NULL) continue;
        int c = zp_options_help_column(tab->options, tab->n);
        if (c > column) column = c;
    }
    for (size_t t = 0; t < cmd->n_tables; t++) {
        const zp_option_table *tab = &cmd->tables[t];
        if (tab->n == 0 || tab->title == NULL) continue;
        if (tab->title[0]) fprintf(f, "%s%s\n", t ? "\n" : "", tab->title);
        size_t need = zp_options_help(NULL, 0, tab->options, tab->n, ZP_OPT_HELP_FLAGS, column);
        char *text = malloc(need + 1);
        if (text == NULL) continue;
        zp_options_help(text, need + 1, tab->options, tab->n, ZP_OPT_HELP_FLAGS, column);
        fputs(text, f);
        free(text);
    }
    if (cmd->tail) fputs(cmd->tail, f);
}

int zp_cli_help(const zp_cli_command *cmd) {
    print_help(stdout, cmd);
    return ZP_EXIT_OK;
}

int zp_cli_usage_error(const zp_cli_command *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "zkpipe %s: ", cmd->name);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    print_help(stderr, cmd);
    return ZP_EXIT_USAGE;
}

int zp_cli_parse(const zp_cli_command *cmd, int argc, char **argv) {
    zp_error err = {0};
    int n = 0;
    if (zp_options_parse(cmd->tables, cmd->n_tables, argc, argv, &n, &err) != ZP_OK) {
        zp_cli_usage_error(cmd, "%s", err.message);
        return -1;
    }
    return n;
}

int zp_cli_read_entropy(char *buf, size_t cap) {
    buf[0] = 0;
    if (!isatty(0)) return 0;
    fputs("Enter a random text. (Entropy): ", stderr);
    fflush(stderr);
    if (fgets(buf, (int)cap, stdin) == NULL) buf[0] = 0;
    buf[strcspn(buf, "\n")] = 0;
    return 1;
}
