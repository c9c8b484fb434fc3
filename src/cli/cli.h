/* SPDX-License-Identifier: GPL-2.0 */
/* Private to cli/: the command table and the helpers subcommands share. */
#ifndef KES_CLI_H
#define KES_CLI_H

#include <stdint.h>
#include <stddef.h>
#include "exittypes.h"

int cli_run(int argc, char **argv);

int cmd_report(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_top(int argc, char **argv);

/* "4101,4202" -> array (malloc'd). 0 or -1 after err(). */
int cli_parse_pids(const char *s, int32_t **pids, size_t *n);
/* Collects one --exit-types FILE into files[] (cap entries). 0 or -1 after err(). */
int cli_add_types_file(const char **files, size_t *n, size_t cap, const char *path);
/* Built-in tables plus --exit-types files. 0 or -1 after err(). */
int cli_load_exit_types(struct exit_types *set, const char *const *files, size_t nfiles);
/* "us" -> 1000, "ns" -> 1. 0 or -1 after err(). */
int cli_parse_unit(const char *s, double *unit_ns);

#endif
