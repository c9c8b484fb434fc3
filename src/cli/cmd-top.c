// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-exitstat top: options -> ui_top_run(). kvm_stat's options keep their
 * meaning (-1 -c -f -g -l -L -p -s -t -z), except -d, which is the refresh
 * interval here (kvm_stat's -d reads debugfs, which top never needs).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <regex.h>
#include "buckets.h"
#include "common.h"
#include "cli.h"
#include "ui.h"

static const char usage_text[] =
    "usage: kvm-exitstat top [options]\n"
    "\n"
    "Live view of KVM exits per reason, VM and vCPU: counts, rates and handling times\n"
    "(avg, p99, max, share of time). Keys: h in the view. Needs root; traces in a\n"
    "private tracefs instance.\n"
    "\n"
    "  -p, --pid PID[,PID]      only these processes (VMMs) and all their threads; repeatable\n"
    "  -g, --guest NAME         only the VMs named NAME (QEMU -name, else the process name)\n"
    "  -a, --all                every VM on the host (the default)\n"
    "  -f, --fields REGEX       only exit reasons matching REGEX; '-f help' lists them\n"
    "  -d, -s, --delay SECS     refresh interval, 0.1 to 3600 (default 1)\n"
    "  -1, --once, --batch      print one interval's table and exit, no curses\n"
    "  -l, --log                one line per interval on stdout (like vmstat)\n"
    "  -L, --log-to-file FILE   the same, appended to FILE (reopened on SIGHUP)\n"
    "  -c, --csv                log in CSV (with -l or -L)\n"
    "  -z, --skip-zero-records  log: no line for an interval without exits\n"
    "      --times              log: an average handling time column (us) per reason\n"
    "      --source SRC         auto (default), exits (kvm_exit/kvm_entry), userspace\n"
    "      --buckets MAP        count exits in timing buckets (ppc, native or a map file)\n"
    "  -b, --buffer KB          per-CPU ring buffer size (default 4096)\n"
    "      --exit-types FILE    extra exit_types data file (see kvm-exitstat-exit-types(5))\n"
    "  -t, --tracepoints        accepted for kvm_stat compatibility\n"
    "  -h, --help               this text\n";

struct top_args {
	struct ui_top_opts o;
	int32_t *pids;
	size_t npids;
	const char *guest;
	bool all;
	const char *types[16];
	size_t ntypes;
};

enum { OPT_TIMES = 256, OPT_SOURCE, OPT_TYPES, OPT_BUCKETS };

static int add_pids(struct top_args *a, const char *s)
{
	int32_t *p;
	size_t n;

	if (cli_parse_pids(s, &p, &n) < 0)
		return -1;
	a->pids = xrealloc(a->pids, (a->npids + n) * sizeof(*a->pids));
	memcpy(a->pids + a->npids, p, n * sizeof(*p));
	a->npids += n;
	free(p);
	return 0;
}

static int parse_delay(const char *s, double *d)
{
	char *end;

	*d = strtod(s, &end);
	if (end == s || *end || !(*d >= 0.1 && *d <= 3600))
		return err("bad interval '%s': want seconds, 0.1 to 3600", s);
	return 0;
}

static int parse_source(const char *s, enum ui_source *src)
{
	if (!strcmp(s, "auto"))
		*src = UI_SOURCE_AUTO;
	else if (!strcmp(s, "exits"))
		*src = UI_SOURCE_EXITS;
	else if (!strcmp(s, "userspace"))
		*src = UI_SOURCE_USERSPACE;
	else
		return err("unknown source '%s': want auto, exits or userspace", s);
	return 0;
}

static int parse_opt(struct top_args *a, int c, const char *arg)
{
	char *end;

	switch (c) {
	case 'p':
		return add_pids(a, arg);
	case 'g':
		a->guest = arg;
		return 0;
	case 'a':
		a->all = true;
		return 0;
	case 'f':
		a->o.fields = arg;
		return 0;
	case 'd':
	case 's':
		return parse_delay(arg, &a->o.delay);
	case '1':
		a->o.out = UI_OUT_ONCE;
		return 0;
	case 'L':
		a->o.log_file = arg;
		/* fallthrough */
	case 'l':
		if (a->o.out != UI_OUT_ONCE)
			a->o.out = UI_OUT_LOG;
		return 0;
	case 'c':
		a->o.csv = true;
		return 0;
	case 'z':
		a->o.skip_zero = true;
		return 0;
	case OPT_TIMES:
		a->o.times = true;
		return 0;
	case OPT_SOURCE:
		return parse_source(arg, &a->o.source);
	case OPT_BUCKETS:
		a->o.buckets_name = arg;
		return 0;
	case 'b': {
		unsigned long kb = strtoul(arg, &end, 10);

		if (end == arg || *end || kb < 4 || kb > 4 * 1024 * 1024)
			return err("bad buffer size '%s': want KB per CPU, 4 to 4194304", arg);
		a->o.buffer_kb = (unsigned)kb;
		return 0;
	}
	case OPT_TYPES:
		return cli_add_types_file(a->types, &a->ntypes, ARRAY_SIZE(a->types), arg);
	case 't':
		return 0;
	case 'h':
		fputs(usage_text, stdout);
		exit(0);
	}
	fputs(usage_text, stderr);
	return -1;
}

static int parse_args(int argc, char **argv, struct top_args *a)
{
	static const struct option longs[] = {
	    {"pid", required_argument, NULL, 'p'},
	    {"guest", required_argument, NULL, 'g'},
	    {"all", no_argument, NULL, 'a'},
	    {"fields", required_argument, NULL, 'f'},
	    {"delay", required_argument, NULL, 'd'},
	    {"set-delay", required_argument, NULL, 's'},
	    {"once", no_argument, NULL, '1'},
	    {"batch", no_argument, NULL, '1'},
	    {"log", no_argument, NULL, 'l'},
	    {"log-to-file", required_argument, NULL, 'L'},
	    {"csv", no_argument, NULL, 'c'},
	    {"skip-zero-records", no_argument, NULL, 'z'},
	    {"times", no_argument, NULL, OPT_TIMES},
	    {"source", required_argument, NULL, OPT_SOURCE},
	    {"buckets", required_argument, NULL, OPT_BUCKETS},
	    {"buffer", required_argument, NULL, 'b'},
	    {"exit-types", required_argument, NULL, OPT_TYPES},
	    {"tracepoints", no_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:g:af:d:s:1lL:czb:th", longs, NULL)) != -1)
		if (parse_opt(a, c, optarg) < 0)
			return -1;
	if (optind < argc)
		return err("unexpected argument '%s' (see 'top --help')", argv[optind]);
	if (a->all && (a->npids || a->guest))
		return err("give -a or -p/-g, not both");
	if ((a->o.csv || a->o.skip_zero || a->o.times) && a->o.out != UI_OUT_LOG)
		return err("-c, -z and --times go with -l or -L");
	if (a->o.fields && strcmp(a->o.fields, "help")) {
		regex_t re;

		if (regcomp(&re, a->o.fields, REG_EXTENDED | REG_NOSUB))
			return err("'%s' is not a regular expression", a->o.fields);
		regfree(&re);
	}
	return 0;
}

/* -f help: the reasons each table knows (kvm_stat lists its fields). */
static void list_fields(const struct exit_types *types)
{
	for (size_t i = 0; i < types->n; i++) {
		const struct exit_table *t = &types->tables[i];

		if (t->kind == EXIT_TABLE_NAMES)
			continue;
		printf("%s (%s:%s):\n", t->isa, t->exit_system, t->exit_event);
		for (size_t j = 0; j < t->nnames; j++)
			printf("  %s\n", t->names[j].name);
	}
}

/* --buckets: a built-in map or a file, checked against the exit tables (typos). */
static int load_buckets(struct ui_top_opts *o, const struct exit_types *types)
{
	char e[512];

	o->buckets = bucket_map_open(o->buckets_name, e, sizeof(e));
	if (!o->buckets || bucket_map_check(o->buckets, types, e, sizeof(e)) < 0)
		return err("%s", e);
	if (bucket_map_name(o->buckets))
		o->buckets_name = bucket_map_name(o->buckets);
	return 0;
}

static int resolve_guest(struct top_args *a)
{
	int32_t *pids;
	size_t n;

	if (ui_vm_find(a->guest, &pids, &n) < 0)
		return err("cannot read /proc");
	if (!n)
		return err("no VM named '%s' (QEMU -name, or process name)", a->guest);
	a->pids = xrealloc(a->pids, (a->npids + n) * sizeof(*a->pids));
	memcpy(a->pids + a->npids, pids, n * sizeof(*pids));
	a->npids += n;
	free(pids);
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct top_args a = {.o = {.delay = 1.0}};
	struct exit_types types = {0};
	int ret = 1;

	if (parse_args(argc, argv, &a) < 0) {
		free(a.pids);
		return 2;
	}
	if (cli_load_exit_types(&types, a.types, a.ntypes) < 0)
		goto out;
	if (a.o.fields && !strcmp(a.o.fields, "help")) {
		list_fields(&types);
		ret = 0;
		goto out;
	}
	if (a.o.buckets_name && load_buckets(&a.o, &types) < 0)
		goto out;
	if (a.guest && resolve_guest(&a) < 0)
		goto out;
	a.o.pids = a.npids ? a.pids : NULL;
	a.o.npids = a.npids;
	a.o.guest = a.guest;
	a.o.types = &types;
	ret = ui_top_run(&a.o);
out:
	bucket_map_free(a.o.buckets);
	exit_types_free(&types);
	free(a.pids);
	return ret;
}
