/* SPDX-License-Identifier: GPL-2.0 */
/* cli/: the command line. main() calls cli_run() and nothing else. */
#ifndef KES_CLI_H
#define KES_CLI_H

/* Runs one command; returns the process's exit status. */
int cli_run(int argc, char **argv);

#endif
