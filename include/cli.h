/* SPDX-License-Identifier: GPL-2.0 */
/* cli/: the command line. main() calls cli_run() and nothing else. */
#ifndef KES_CLI_H
#define KES_CLI_H

/* Runs one command; returns the process's exit status. */
int cli_run(int argc, char **argv);
/* The environment's KES_* knobs into knobs_set() (knobs.h); cli_run() calls it first. */
void cli_knobs_read(void);

#endif
