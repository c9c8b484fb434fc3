// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-exitstat top: options -> ui_top_run(). kvm_stat's options keep their
 * meaning (-1 -c -f -g -l -L -p -s -t -z), except -d, which is the refresh
 * interval here (kvm_stat's -d reads debugfs, which top never needs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <regex.h>
#include "alloc.h"
#include "bucket-map.h"
#include "cli-local.h"
#include "err.h"
#include "gsym.h"
#include "ui.h"

struct top_args {
	struct ui_top_opts o;
	struct cli_pids pids;
	const char *guest;
	bool all;
	struct cli_types types;
	regex_t fields_re; /* -f, compiled here once; the view and the log use it */
	bool has_fields_re;
	bool stats; /* --stats: KVM's own statistics, no tracing (ui_kstat_run) */
	const char *guest_syms; /* --guest-kallsyms FILE */
	struct gsym *syms;
};

static const char *const sources[] = {"auto", "exits", "userspace", NULL};
static const enum ui_source source_of[] = {UI_SOURCE_AUTO, UI_SOURCE_EXITS, UI_SOURCE_USERSPACE};

enum {
	O_DELAY = 1,
	O_ONCE,
	O_LOG,
	O_LOG_FILE,
	O_SOURCE,
	O_BUFFER,
	O_TRACEPOINTS,
	O_SLOWER,
};

static const struct cli_opt opts[] = {
    CLI_PIDS(struct top_args, pids, "only these processes (VMMs) and all their threads; repeatable"),
    CLI_GUEST(struct top_args, guest, "only the VMs named NAME (QEMU -name, else the process name)"),
    CLI_BOOL("all", 'a', struct top_args, all, "every VM on the host (the default)"),
    CLI_STRING("fields", 'f', "REGEX", struct top_args, o.fields,
	    "only exit reasons matching REGEX from their start\n(kvm_stat's re.match); '-f help' lists them"),
    CLI_OPT("delay", 'd', "SECS", O_DELAY, "refresh interval, 0.1 to 3600 (default 1)"),
    /* kvm_stat's name of the interval option */
    CLI_OPT("set-delay", 's', "SECS", O_DELAY, NULL, .alias_of = "delay"),
    CLI_OPT("once", '1', NULL, O_ONCE, "print one interval's table and exit, no curses"),
    CLI_OPT("batch", 0, NULL, O_ONCE, NULL, .alias_of = "once"),
    CLI_OPT("log", 'l', NULL, O_LOG, "one line per interval on stdout (like vmstat)"),
    CLI_OPT("log-to-file", 'L', "FILE", O_LOG_FILE,
	    "the same, appended to FILE (reopened on SIGHUP)"),
    CLI_BOOL("csv", 'c', struct top_args, o.csv, "log in CSV (with -l or -L)"),
    CLI_BOOL("json", 0, struct top_args, o.json, "log one JSON object per interval (with -l or -L)",
	    .flags = CLI_OPT_JSON),
    CLI_BOOL("skip-zero-records", 'z', struct top_args, o.skip_zero,
	    "log: no line for an interval without exits"),
    CLI_BOOL("times", 0, struct top_args, o.times,
	    "log: an average handling time column (us) per reason"),
    CLI_BOOL("all-events", 0, struct top_args, o.all_events,
	    "count every kvm:* tracepoint (kvm_stat's default view):\nrows of --once, columns of --log, the first view (key e)"),
    CLI_OPT("source", 0, "SRC", O_SOURCE, "auto (default), exits (kvm_exit/kvm_entry), userspace",
	    .values = sources, .noun = "source"),
    CLI_BUCKETS(struct top_args, o.buckets_name,
		"count exits in timing buckets (ppc, native or a map file)"),
    CLI_OPT("buffer", 'b', "KB", O_BUFFER, "per-CPU ring buffer size (default 4096)"),
    CLI_EXIT_TYPES(struct top_args, types),
    CLI_BOOL("no-color", 0, struct top_args, o.no_color,
	    "no colour in the live view (also: NO_COLOR set)"),
    CLI_OPT("tracepoints", 't', NULL, O_TRACEPOINTS, "accepted for kvm_stat compatibility"),
    CLI_OPT("slower-than", 0, "USEC", O_SLOWER,
	    "each exit slower than USEC, halts left out (perf kvm stat live\n"
	    "--duration): listed under the table, or on stderr with --once/--log"),
    CLI_WIDTH(struct top_args, o.width, "--once's width (default: COLUMNS, the terminal's, else 80)"),
    CLI_BOOL("anatomy", 0, struct top_args, o.anatomy,
	    "also trace the sched and irq events and split each exit into\n"
	    "its causes: a CAUSE column, the part most of a reason's time\n"
	    "went to (key a shows or hides it)"),
    CLI_BOOL("stats", 0, struct top_args, stats,
	    "KVM's own statistics per VM with rates (kvm_stat -d), no\n"
	    "tracing: debugfs, and the statistics fds a VMM holds; -f\n"
	    "matches statistic names"),
    CLI_BOOL("in-kernel", 0, struct top_args, o.in_kernel,
	    "the kernel counts exits and keeps the exit -> entry latency\n"
	    "histogram (hist triggers); read each interval, no event\n"
	    "is streamed (p99 and max: power-of-two buckets)"),
    CLI_BOOL("by-guest", 0, struct top_args, o.by_guest,
	    "the drill-down (key x) by the guest's pc at each exit instead\n"
	    "of a detail's sub-key: which guest code makes the exits"),
    CLI_STRING("guest-kallsyms", 0, "FILE", struct top_args, guest_syms,
	    cli_guest_syms_help),
    {.lng = NULL},
};

static void init(void *arg)
{
	struct top_args *a = arg;

	*a = (struct top_args){.o = {.delay = 1.0}};
}

static int parse(void *arg, int id, const char *val, int value)
{
	struct top_args *a = arg;

	switch (id) {
	case O_DELAY:
		return cli_parse_secs(val, 0.1, 3600, &a->o.delay, "interval");
	case O_ONCE:
		a->o.out = UI_OUT_ONCE;
		return 0;
	case O_LOG_FILE:
		a->o.log_file = val;
		/* fallthrough */
	case O_LOG:
		if (a->o.out != UI_OUT_ONCE)
			a->o.out = UI_OUT_LOG;
		return 0;
	case O_SOURCE:
		a->o.source = source_of[value];
		return 0;
	case O_BUFFER:
		return cli_parse_buffer_kb(val, &a->o.buffer_kb);
	case O_TRACEPOINTS:
		return 0;
	case O_SLOWER: {
		unsigned long us;

		if (cli_parse_ulong(val, 1, 3600000000ul, &us, "--slower-than (us)") < 0)
			return -1;
		a->o.slower_ns = (uint64_t)us * 1000;
		return 0;
	}
	}
	return -1;
}

static int operands(void *arg, int argc, char **argv)
{
	struct top_args *a = arg;

	if (argc > 0)
		return err("unexpected argument '%s' (see 'top --help')", argv[0]);
	if (a->all && (a->pids.n || a->guest))
		return err("give -a or -p/-g, not both");
	if ((a->o.csv || a->o.json || a->o.skip_zero || a->o.times) && a->o.out != UI_OUT_LOG)
		return err("-c, --json, -z and --times go with -l or -L");
	if (a->o.csv && a->o.json)
		return err("give -c or --json, not both");
	if (a->o.all_events && a->o.times)
		return err("--times goes with exits: events are counted, not timed (--all-events)");
	if (a->stats && (a->o.all_events || a->o.buckets_name || a->o.slower_ns || a->o.times ||
			 a->o.log_file || a->o.in_kernel || a->o.source != UI_SOURCE_AUTO))
		return err("--stats reads KVM's statistics: --all-events, --buckets, --slower-than, "
			   "--times, -L, --in-kernel and --source are about traced exits");
	if (a->o.in_kernel && (a->o.all_events || a->o.buckets_name || a->o.slower_ns ||
			       a->o.source == UI_SOURCE_USERSPACE))
		return err("--in-kernel counts kvm_exit in the kernel: --all-events, --buckets, "
			   "--slower-than and --source userspace need the events streamed");
	if (a->guest_syms && !a->o.by_guest)
		return err("--guest-kallsyms names the symbols of --by-guest: give --by-guest too");
	if (a->o.by_guest && (a->o.out != UI_OUT_SCREEN || a->stats || a->o.in_kernel ||
			      a->o.buckets_name))
		return err("--by-guest is the screen's drill-down: not with --once, -l/-L, --stats, "
			   "--in-kernel or --buckets");
	if (a->o.fields && strcmp(a->o.fields, "help")) {
		if (ui_fields_regcomp(&a->fields_re, a->o.fields))
			return err("'%s' is not a regular expression", a->o.fields);
		a->has_fields_re = true;
		a->o.fields_re = &a->fields_re;
	}
	return 0;
}

/* -f help: the reasons each table knows (kvm_stat lists its fields). */
static void list_fields(const struct exit_types *types)
{
	for (size_t i = 0; i < types->n; i++) {
		const struct exit_table *t = &types->tables[i];

		if (!t->exit_event)
			continue; /* names and detail-event tables */
		printf("%s (%s:%s):\n", t->isa, t->exit_system, t->exit_event);
		for (size_t j = 0; j < t->nnames; j++)
			printf("  %s\n", t->names[j].name);
	}
}

static int run(void *arg)
{
	struct top_args *a = arg;
	struct exit_types types = {0};
	int ret = 1;

	if (cli_load_exit_types(&types, a->types.files, a->types.n) < 0)
		goto out;
	if (a->o.fields && !strcmp(a->o.fields, "help") && !a->stats) {
		list_fields(&types);
		ret = 0;
		goto out;
	}
	if (a->o.buckets_name &&
	    cli_load_buckets(a->o.buckets_name, &types, &a->o.buckets, &a->o.buckets_name) < 0)
		goto out;
	if (a->guest && cli_add_guest(&a->pids.v, &a->pids.n, a->guest) < 0)
		goto out;
	a->o.pids = a->pids.n ? a->pids.v : NULL;
	a->o.npids = a->pids.n;
	a->o.guest = a->guest;
	a->o.types = &types;
	a->o.width = cli_out_width(a->o.width);
	if (cli_guest_syms(a->guest_syms, &a->syms) < 0)
		goto out;
	a->o.syms = a->syms;
	ret = a->stats ? ui_kstat_run(&a->o) : ui_top_run(&a->o);
out:
	exit_types_free(&types);
	gsym_free(a->syms);
	return ret;
}

/* -f help only lists the tables' names: no tracing, no root. */
static unsigned needs_for(const void *arg)
{
	const struct top_args *a = arg;

	if (a->stats) /* debugfs is root's; no tracefs, no tracepoints */
		return CLI_NEEDS_ROOT;
	return a->o.fields && !strcmp(a->o.fields, "help") ? 0 : cli_cmd_top.needs;
}

static void done(void *arg)
{
	struct top_args *a = arg;

	bucket_map_free(a->o.buckets);
	if (a->has_fields_re)
		regfree(&a->fields_re);
	free(a->pids.v);
}

const struct cli_cmd cli_cmd_top = {
    .name = "top",
    .usage = "[options]",
    .summary = "live view of exits per reason, VM and vCPU",
    .about = "Live view of KVM exits per reason, VM and vCPU: counts, rates and handling times\n"
	     "(avg, p99, max, share of time). Keys: h in the view. Needs root; traces in a\n"
	     "private tracefs instance.",
    .opts = opts,
    .size = sizeof(struct top_args),
    .init = init,
    .parse = parse,
    .operands = operands,
    .run = run,
    .done = done,
    .needs = CLI_NEEDS_ROOT | CLI_NEEDS_TRACEFS | CLI_NEEDS_KVM | CLI_NEEDS_KVM_HOST,
    .needs_for = needs_for,
};
