// SPDX-License-Identifier: GPL-2.0
/*
 * The command table: one place that maps names to commands and one-line help,
 * so dispatch and `kvm-exitstat --help` cannot drift apart.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "cli.h"

#define KES_VERSION "0.1"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct cmd cmds[] = {
    {"record", cmd_record, "trace a command's (or running VMs') KVM exits into a trace.dat"},
    {"report", cmd_report, "exit statistics of a trace.dat, ftrace/perf text or saved report"},
    {"diff", cmd_diff, "compare two runs exit by exit, with significance"},
    {"top", cmd_top, "live view of exits per reason, VM and vCPU"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: kvm-exitstat <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'kvm-exitstat <command> --help' shows a command's options; "
		   "kvm-exitstat(1) has the rest.\n");
}

int cli_run(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "--version")) {
		printf("kvm-exitstat %s\n", KES_VERSION);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(name, cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	err("'%s' is not a command; see 'kvm-exitstat --help'", name);
	return 2;
}

int cli_parse_pids(const char *s, int32_t **pids, size_t *n)
{
	char *end;

	*pids = NULL;
	*n = 0;
	while (*s) {
		errno = 0;
		long v = strtol(s, &end, 10);
		if (end == s || errno || v <= 0 || v > INT32_MAX || (*end && *end != ',')) {
			free(*pids);
			*pids = NULL;
			return err("bad pid list '%s': want N[,N...]", s);
		}
		*pids = xrealloc(*pids, (*n + 1) * sizeof(**pids));
		(*pids)[(*n)++] = (int32_t)v;
		s = *end ? end + 1 : end;
	}
	return *n ? 0 : err("empty pid list");
}

int cli_add_types_file(const char **files, size_t *n, size_t cap, const char *path)
{
	if (*n == cap)
		return err("too many --exit-types files (at most %zu)", cap);
	files[(*n)++] = path;
	return 0;
}

int cli_load_exit_types(struct exit_types *set, const char *const *files, size_t nfiles)
{
	char e[512];

	*set = (struct exit_types){0};
	if (exit_types_load_builtin(set, e, sizeof(e)) < 0)
		return err("built-in exit types: %s", e);
	for (size_t i = 0; i < nfiles; i++)
		if (exit_types_load_file(set, files[i], e, sizeof(e)) < 0)
			return err("%s", e);
	return 0;
}

int cli_parse_unit(const char *s, double *unit_ns)
{
	if (!strcmp(s, "us"))
		*unit_ns = 1000;
	else if (!strcmp(s, "ns"))
		*unit_ns = 1;
	else
		return err("unknown unit '%s': want us or ns", s);
	return 0;
}
