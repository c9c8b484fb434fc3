// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-exitstat diff A B: load two runs (any input report reads), take the
 * table report would show for each (input_main_table), diff them (stats/diff.c)
 * and print the result (render/diff-*.c), optionally also as an SVG chart.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "cli-local.h"
#include "diff.h"
#include "err.h"
#include "gsym.h"
#include "outfile.h"
#include "render.h"
#include "pipeline.h"
#include "text.h"
#include "tracedat.h"

struct diff_opts {
	const char *path[2];
	const char *svg;
	struct outfile *svg_out; /* opened (and checked) before the inputs are read */
	struct cli_types types;
	enum render_format fmt;
	struct render_diff_opts ro;
	bool per_vcpu;
	bool anatomy; /* --anatomy */
	struct stats_anatomy *an[2][2]; /* each input's: [0] kvm_exit, [1] userspace */
	struct text_ts_unit ts_unit;
	bool have_ts_unit; /* --ts-unit given */
	const char *source; /* --source: auto, exits, userspace */
	bool by_guest;		/* --by-guest */
	const char *guest_syms; /* --guest-kallsyms FILE */
	struct gsym *syms;	/* its symbols, loaded before the inputs */
};

static const char *const formats[] = {"table", "csv", "json", "ppc", NULL};
static const enum render_format format_of[] = {RENDER_TABLE, RENDER_CSV, RENDER_JSON, RENDER_PPC};
static const char *const units[] = {"us", "ns", NULL};

enum {
	O_FORMAT = 1,
	O_UNIT,
	O_TS_UNIT,
	O_SOURCE,
};

static const struct cli_opt opts[] = {
    CLI_OPT("format", 'f', "FMT", O_FORMAT, "table (default), csv, json, ppc",
	    .flags = CLI_OPT_JSON, .values = formats, .noun = "format"),
    CLI_STRING("svg", 0, "FILE", struct diff_opts, svg,
	    "also write a bar chart, A vs B, as SVG:\nhandling time, exits and time share per exit type"),
    CLI_BOOL("per-vcpu", 0, struct diff_opts, per_vcpu,
	    "one row per exit type and vCPU (both runs need per-thread data)"),
    CLI_OPT("unit", 'u', "UNIT", O_UNIT, "us (default) or ns", .values = units, .noun = "unit"),
    CLI_EXIT_TYPES(struct diff_opts, types),
    CLI_WIDTH(struct diff_opts, ro.width,
	      "the table format's width (default: COLUMNS, the terminal's, else 80)"),
    CLI_OPT("ts-unit", 0, "UNIT", O_TS_UNIT,
	    "what one tick of a counter clock is, in A and B:\n"
	    "ns, us, ms, s or the clock's frequency (2100MHz, 2.1GHz)"),
    CLI_OPT("source", 0, "SRC", O_SOURCE,
	    "auto (default), exits (kvm_exit/kvm_entry), userspace (KVM_EXIT_*)", .values = cli_sources,
	    .noun = "source"),
    CLI_BOOL("anatomy", 0, struct diff_opts, anatomy,
	    "each reason's handling time split into its causes, A against\n"
	    "B: each part's mean and share, Welch's t-test of its mean\n"
	    "(needs sched events in both: record --anatomy)"),
    CLI_BOOL("by-guest", 0, struct diff_opts, by_guest,
	    "compare by guest code: each reason's exits per guest function\n"
	    "(reason@function, --guest-kallsyms; else reason@pc), so the\n"
	    "functions that gained or lost exits stand out, with significance"),
    CLI_STRING("guest-kallsyms", 0, "FILE", struct diff_opts, guest_syms,
	    cli_guest_syms_help),
    {.lng = NULL},
};

static void init(void *arg)
{
	struct diff_opts *o = arg;

	*o = (struct diff_opts){
	    .fmt = RENDER_TABLE, .ro = {.unit_ns = 1000, .unit = "us"}, .source = "auto"};
}

static int parse(void *arg, int id, const char *val, int value)
{
	struct diff_opts *o = arg;

	switch (id) {
	case O_FORMAT:
		o->fmt = format_of[value];
		return 0;
	case O_UNIT:
		o->ro.unit = units[value];
		o->ro.unit_ns = value == 0 ? 1000 : 1;
		return 0;
	case O_SOURCE:
		o->source = cli_sources[value];
		return 0;
	case O_TS_UNIT: {
		char e[160];

		if (text_ts_unit_parse(val, &o->ts_unit, e, sizeof(e)) < 0)
			return err("--ts-unit: %s", e);
		o->have_ts_unit = true;
		return 0;
	}
	}
	return -1;
}

static int operands(void *arg, int argc, char **argv)
{
	struct diff_opts *o = arg;

	if (argc != 2)
		return err("diff needs two inputs, A and B (see 'kvm-exitstat diff --help')");
	o->path[0] = o->ro.name_a = argv[0];
	o->path[1] = o->ro.name_b = argv[1];
	if (o->anatomy && (o->per_vcpu || o->svg))
		return err("--anatomy compares the whole runs: %s does not apply",
			   o->per_vcpu ? "--per-vcpu" : "--svg");
	if (o->guest_syms && !o->by_guest)
		return err("--guest-kallsyms names the symbols of --by-guest: give --by-guest too");
	if (o->by_guest && o->anatomy)
		return err("give only one of --by-guest and --anatomy");
	return 0;
}

static const char *table_kind(const struct input_result *r, const struct stats_table *t)
{
	return t == r->exits ? "kvm_exit pairs" : t == r->uexits ? "userspace exits" : "summary";
}

/* The table report would show for each run, with its notes and sanity checks. */
static int pick_tables(const struct diff_opts *o, const struct input_result r[2],
		       const struct stats_table *t[2])
{
	const char *note[2], *name;

	for (int i = 0; i < 2; i++) {
		t[i] = cli_pick_table(o->source, &r[i], &name, &note[i]);
		/* A saved report holds one table: --source has nothing to choose there. */
		if (!stats_table_size(r[i].exits) && !stats_table_size(r[i].uexits))
			t[i] = r[i].summary;
	}
	if (note[0] && note[0] == note[1])
		err_info("kvm-exitstat: both inputs: %s\n", note[0]);
	else
		for (int i = 0; i < 2; i++)
			if (note[i])
				err_info("kvm-exitstat: %s: %s\n", o->path[i], note[i]);
	if (!stats_table_size(t[0]) && !stats_table_size(t[1]))
		return err("neither '%s' nor '%s' holds any timed exit", o->path[0], o->path[1]);
	/* A saved report may hold either kind; two traces that differ are worth a word. */
	if (t[0] != r[0].summary && t[1] != r[1].summary &&
	    table_kind(&r[0], t[0]) != table_kind(&r[1], t[1]))
		err_info("kvm-exitstat: A holds %s, B holds %s: their exit types may not match\n",
			 table_kind(&r[0], t[0]), table_kind(&r[1], t[1]));
	for (int i = 0; o->per_vcpu && i < 2; i++)
		if (!diff_has_per_vcpu(t[i]))
			return err("--per-vcpu: '%s' has no per-thread or per-vCPU data "
				   "(a one-report summary?)",
				   o->path[i]);
	return 0;
}

/* Into the output opened at the start, renamed into place when complete. */
static int write_svg(const struct diff_opts *o, const struct diff *d)
{
	char e[512];
	FILE *f = outfile_stdio(o->svg_out, "w", e, sizeof(e));

	if (!f)
		return err("%s", e);
	int ret = render_diff_svg(f, d, &o->ro);
	if (fclose(f) != 0 || ret < 0)
		return err("writing '%s' failed", o->svg);
	if (outfile_commit(o->svg_out, e, sizeof(e)) < 0)
		return err("%s", e);
	return 0;
}

/* Ticks of unknown length against ns cannot be compared: refused, not shown. */
static int ticks_mismatch(const struct diff_opts *o, const struct input_result r[2])
{
	if (!r[0].ts_ticks == !r[1].ts_ticks)
		return 0;
	return err("'%s' has integer timestamps of unknown unit and '%s' does not: give "
		   "--ts-unit (ns, us, 2100MHz, ...)",
		   o->path[r[0].ts_ticks ? 0 : 1], o->path[r[0].ts_ticks ? 1 : 0]);
}

/* --anatomy: the parts of the tables the diff would compare. */
static int run_anatomy(const struct diff_opts *o, const struct input_result r[2],
		       const struct stats_table *t[2], struct render_diff_opts *ro)
{
	const struct stats_anatomy *a[2];
	struct diff_anatomy *d;
	int ret;

	for (int i = 0; i < 2; i++) {
		if (r[i].no_sched)
			return err("'%s': no sched events: anatomy unavailable (record with 'record "
				   "--anatomy', or 'trace-cmd record -e kvm -e sched -e irq')",
				   r[i].no_sched);
		a[i] = t[i] == r[i].exits ? o->an[i][0] : t[i] == r[i].uexits ? o->an[i][1] : NULL;
		if (!a[i])
			return err("--anatomy: '%s' holds statistics, not single exits", o->path[i]);
	}
	d = diff_anatomy_new(a[0], a[1]);
	ret = render_diff_anatomy(stdout, d, o->fmt, ro);
	diff_anatomy_free(d);
	if (fflush(stdout) != 0 || ret < 0)
		return err("writing the diff: output error");
	return 0;
}

static int run(const struct diff_opts *o, const struct input_result r[2])
{
	const struct stats_table *t[2];

	if (ticks_mismatch(o, r) < 0 || pick_tables(o, r, t) < 0)
		return -1;
	if (o->anatomy) {
		struct render_diff_opts ro = o->ro;

		ro.width = cli_out_width(ro.width);
		return run_anatomy(o, r, t, &ro);
	}
	struct stats_table *g[2] = {NULL, NULL};

	for (int i = 0; o->by_guest && i < 2; i++)
		t[i] = g[i] = stats_guest_table(t[i], o->syms ? cli_guest_sym : NULL, o->syms);
	struct diff *d = diff_new(t[0], t[1], o->per_vcpu);

	stats_table_free(g[0]);
	stats_table_free(g[1]);
	struct render_diff_opts ro = o->ro;

	ro.width = cli_out_width(ro.width);

	for (int i = 0; i < 2; i++) {
		ro.wall_known[i] = r[i].wall_known && !r[i].ts_ticks;
		ro.wall_ns[i] = r[i].wall_ns;
	}
	if (r[0].ts_ticks) { /* both (ticks_mismatch()): times of unknown unit, as counted */
		ro.unit = "ticks";
		ro.unit_ns = 1;
	}
	int ret = render_diff(stdout, d, o->fmt, &ro);
	if (fflush(stdout) != 0 || ret < 0)
		ret = err("writing the diff: output error");
	else if (o->svg)
		ret = write_svg(o, d);
	diff_free(d);
	return ret;
}

/* Snapshots of KVM's statistics (record --stats): their own comparison. The exit status. */
static int kstat_diff(const struct diff_opts *o)
{
	if (o->svg || o->per_vcpu || o->anatomy)
		return err("--svg, --per-vcpu and --anatomy are about exits, not statistics "
			   "snapshots"),
		       1;
	return cli_kstat_diff(o->path[0], o->path[1], o->fmt == RENDER_JSON) < 0 ? 1 : 0;
}

static int run_diff(void *arg)
{
	struct diff_opts *o = arg;
	struct input_opts io = {.vcpu = -1};
	struct input_result r[2];
	struct exit_types types;
	char e[INPUT_ERR_MAX];
	int ret = 1, loaded = 0;

	if (o->svg) {
		/* the name and the directory are checked before the work, not after */
		o->svg_out = outfile_open(o->svg, OUTFILE_REPLACE, e, sizeof(e));
		if (!o->svg_out) {
			err("%s", e);
			return 1;
		}
	}
	if (cli_load_exit_types(&types, o->types.files, o->types.n) < 0)
		goto out_types;
	io.types = &types;
	io.ts_unit = o->have_ts_unit ? &o->ts_unit : NULL;
	io.by_guest = io.with_sub = o->by_guest;
	if (cli_guest_syms(o->guest_syms, &o->syms) < 0)
		goto out_types;
	tracedat_probe_carry_on(); /* one libtracecmd open of a trace.dat, not two */
	for (; loaded < 2; loaded++) {
		input_result_init(&r[loaded]);
		if (o->anatomy) {
			o->an[loaded][0] = io.anatomy[0] = stats_anatomy_new();
			o->an[loaded][1] = io.anatomy[1] = stats_anatomy_new();
		}
		if (input_load(o->path[loaded], &io, &r[loaded], e, sizeof(e)) < 0) {
			if (r[loaded].kstat_snapshot)
				ret = kstat_diff(o);
			else
				err("%s", e);
			loaded++;
			goto out;
		}
	}
	cli_print_warnings(&r[0]);
	cli_print_warnings(&r[1]);
	ret = run(o, r) < 0 ? 1 : 0;
out:
	while (loaded-- > 0)
		input_result_free(&r[loaded]);
out_types:
	exit_types_free(&types);
	outfile_free(o->svg_out);
	gsym_free(o->syms);
	for (int i = 0; i < 2; i++) {
		stats_anatomy_free(o->an[i][0]);
		stats_anatomy_free(o->an[i][1]);
	}
	return ret;
}

const struct cli_cmd cli_cmd_diff = {
    .name = "diff",
    .usage = "A B [options]",
    .summary = "compare two runs exit by exit, with significance",
    .about = "Compare two runs exit type by exit type: counts, averages, time shares and\n"
	     "whether the average changed significantly (Welch's t-test). A and B are any\n"
	     "input 'report' reads: trace.dat, ftrace/perf text, saved PPC timing reports,\n"
	     "KVM-PPC exit-timing dumps.",
    .opts = opts,
    .size = sizeof(struct diff_opts),
    .init = init,
    .parse = parse,
    .operands = operands,
    .run = run_diff,
};
