// SPDX-License-Identifier: GPL-2.0
/*
 * The command table: one place that maps names to commands, their one-line
 * help and what they need, so that dispatch, `kvm-exitstat --help` and the
 * checks cannot drift apart; and the order every command runs in: output
 * mode first (a JSON error is JSON from the first one on), options, operands,
 * what the command needs (root, tracefs), then the command.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "cli.h"
#include "cli-local.h"
#include "err.h"
#include "jsonw.h"
#include "live.h"
#include "pipeline.h"

static const struct cli_cmd *const cmds[] = {
    &cli_cmd_record, &cli_cmd_report, &cli_cmd_diff, &cli_cmd_top, &cli_cmd_serve,
};

static void usage(FILE *f)
{
	fprintf(f, "usage: kvm-exitstat <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(f, "  %-8s %s\n", cmds[i]->name, cmds[i]->summary);
	fprintf(f, "\n'kvm-exitstat help COMMAND' (or 'COMMAND --help') shows its options;\n"
		   "'kvm-exitstat --version' the version; kvm-exitstat(1) has the rest.\n");
}

static const struct cli_cmd *find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(name, cmds[i]->name))
			return cmds[i];
	return NULL;
}

static void json_error(const char *msg)
{
	jsonw_error(stdout, msg);
}

/* The command's needs, in the order a user would fix them. 0, or -1 after err(). */
static int check_needs(const struct cli_cmd *c, const void *o)
{
	unsigned needs = c->needs_for ? c->needs_for(o) : c->needs, need = 0;
	char e[512];

	need |= needs & CLI_NEEDS_ROOT ? LIVE_NEED_ROOT : 0;
	need |= needs & CLI_NEEDS_TRACEFS ? LIVE_NEED_TRACEFS : 0;
	need |= needs & CLI_NEEDS_KVM ? LIVE_NEED_KVM : 0;
	need |= needs & CLI_NEEDS_KVM_HOST ? LIVE_NEED_KVM_HOST : 0;
	/* The reason names the command: "top needs root (tracefs)". */
	if (need && live_require(need, c->name, e, sizeof(e)) < 0)
		return err("%s", e);
	return 0;
}

/* Hidden commands for the bash completion and tests/e2e/docsync.sh. */
static int internal(int argc, char **argv)
{
	const struct cli_cmd *c;

	if (!strcmp(argv[1], "__commands")) {
		for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
			printf("%s\n", cmds[i]->name);
		return 0;
	}
	if (argc != 3 || !(c = find(argv[2])))
		return err("usage: kvm-exitstat __options COMMAND"), 2;
	cli_opts_dump(stdout, c);
	return 0;
}

/*
 * SIGCHLD ignored (SIG_IGN or SA_NOCLDWAIT, which whoever started us may
 * have left for us to inherit) has the kernel reap our children, and
 * waitpid() has no status to read: the libtracecmd probe refused good files
 * ("waitpid: No child processes"), a carrying-on probe child's parent left
 * it mid-report, and perf script's status was lost. Every command waits for
 * the children it starts, so the default comes back first (record and top
 * then set their own, live/signals.c).
 */
static void own_children(void)
{
	struct sigaction sa;

	if (sigaction(SIGCHLD, NULL, &sa) == 0 &&
	    (sa.sa_handler == SIG_IGN || (sa.sa_flags & SA_NOCLDWAIT))) {
		struct sigaction dfl = {.sa_handler = SIG_DFL};

		sigemptyset(&dfl.sa_mask);
		sigaction(SIGCHLD, &dfl, NULL);
	}
}

static int run_cmd(const struct cli_cmd *c, int argc, char **argv)
{
	void *o = xcalloc(1, c->size);
	int first, ret = 2;

	own_children();
	if (cli_opts_json(c, argc, argv))
		err_set_sink(json_error);
	if (c->init)
		c->init(o);
	if (cli_opts_parse(c, o, argc, argv, &first) == 0 &&
	    c->operands(o, argc - first, argv + first) == 0)
		ret = check_needs(c, o) < 0 ? 1 : c->run(o);
	if (c->done)
		c->done(o);
	free(o);
	return ret;
}

int cli_run(int argc, char **argv)
{
	const struct cli_cmd *c;

	cli_knobs_read();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		if (argc < 3 || !strcmp(name, "--help") || !strcmp(name, "-h")) {
			usage(stdout);
			return 0;
		}
		/* help CMD is CMD --help (git's way) */
		if (!(c = find(argv[2])))
			return err("'%s' is not a command; see 'kvm-exitstat --help'", argv[2]), 2;
		cli_opts_help(stdout, c);
		return 0;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
		printf("kvm-exitstat %s\n", cli_version);
		return 0;
	}
	if (!strcmp(name, "__commands") || !strcmp(name, "__options"))
		return internal(argc, argv);
	c = find(name);
	if (!c) {
		err("'%s' is not a command; see 'kvm-exitstat --help'", name);
		return 2;
	}
	return run_cmd(c, argc - 1, argv + 1);
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

int cli_add_types_file(struct cli_types *t, const char *path)
{
	if (t->n == CLI_TYPES_MAX)
		return err("too many --exit-types files (at most %d)", CLI_TYPES_MAX);
	t->files[t->n++] = path;
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

const char *const cli_sources[] = {"auto", "exits", "userspace", NULL};

const struct stats_table *cli_pick_table(const char *src, const struct input_result *r,
					 const char **name, const char **note)
{
	const struct stats_table *t;

	*note = NULL;
	if (!strcmp(src, "exits"))
		t = r->exits;
	else if (!strcmp(src, "userspace"))
		t = r->uexits;
	else
		t = input_main_table(r, note);
	*name = t == r->exits ? "kvm_exit" : t == r->uexits ? "userspace" : "summary";
	return t;
}

void cli_print_warnings(const struct input_result *r)
{
	for (size_t i = 0; i < r->nwarnings; i++)
		err_info("kvm-exitstat: warning: %s\n", r->warnings[i]);
}
