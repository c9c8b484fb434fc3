// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-exitstat diff A B: load two runs (any input report reads), take the
 * table report would show for each (input_main_table), diff them (stats/diff.c)
 * and print the result (render/diff-*.c), optionally also as an SVG chart.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "cli.h"
#include "diff.h"
#include "pipeline.h"

struct diff_opts {
	const char *path[2];
	const char *svg;
	const char *types[16];
	size_t ntypes;
	enum diff_format fmt;
	struct diff_render_opts ro;
	bool per_vcpu;
};

static const char usage_text[] =
    "usage: kvm-exitstat diff A B [options]\n"
    "\n"
    "Compare two runs exit type by exit type: counts, averages, time shares and\n"
    "whether the average changed significantly (Welch's t-test). A and B are any\n"
    "input 'report' reads: trace.dat, ftrace/perf text, saved PPC timing reports,\n"
    "KVM-PPC exit-timing dumps.\n"
    "\n"
    "  -f, --format FMT       table (default), csv, json, ppc\n"
    "      --svg FILE         also write a bar chart of time shares, A vs B, as SVG\n"
    "      --per-vcpu         one row per exit type and vCPU (both runs need per-thread data)\n"
    "  -u, --unit UNIT        us (default) or ns\n"
    "      --exit-types FILE  extra exit_types data file (see kvm-exitstat-exit-types(5))\n"
    "  -h, --help             this text\n";

static int parse_format(const char *s, enum diff_format *fmt)
{
	static const struct {
		const char *name;
		enum diff_format fmt;
	} fmts[] = {{"table", DIFF_FMT_TABLE},
		    {"csv", DIFF_FMT_CSV},
		    {"json", DIFF_FMT_JSON},
		    {"ppc", DIFF_FMT_PPC}};

	for (size_t i = 0; i < ARRAY_SIZE(fmts); i++) {
		if (!strcmp(s, fmts[i].name)) {
			*fmt = fmts[i].fmt;
			err_set_json(*fmt == DIFF_FMT_JSON);
			return 0;
		}
	}
	return err("unknown format '%s': want table, csv, json or ppc", s);
}

enum { OPT_SVG = 256, OPT_PER_VCPU, OPT_TYPES };

static int parse_option(int c, struct diff_opts *o)
{
	switch (c) {
	case 'f':
		return parse_format(optarg, &o->fmt);
	case 'u':
		o->ro.unit = optarg;
		return cli_parse_unit(optarg, &o->ro.unit_ns);
	case OPT_SVG:
		o->svg = optarg;
		return 0;
	case OPT_PER_VCPU:
		o->per_vcpu = true;
		return 0;
	case OPT_TYPES:
		return cli_add_types_file(o->types, &o->ntypes, ARRAY_SIZE(o->types), optarg);
	case 'h':
		fputs(usage_text, stdout);
		exit(0);
	}
	fputs(usage_text, stderr);
	return -1;
}

static int parse_args(int argc, char **argv, struct diff_opts *o)
{
	static const struct option lopts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"svg", required_argument, NULL, OPT_SVG},
	    {"per-vcpu", no_argument, NULL, OPT_PER_VCPU},
	    {"unit", required_argument, NULL, 'u'},
	    {"exit-types", required_argument, NULL, OPT_TYPES},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "f:u:h", lopts, NULL)) != -1)
		if (parse_option(c, o) < 0)
			return -1;
	if (argc - optind != 2)
		return err("diff needs two inputs, A and B (see 'kvm-exitstat diff --help')");
	o->path[0] = o->ro.name_a = argv[optind];
	o->path[1] = o->ro.name_b = argv[optind + 1];
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
	const char *note[2];

	for (int i = 0; i < 2; i++)
		t[i] = input_main_table(&r[i], &note[i]);
	if (note[0] && note[0] == note[1])
		info("kvm-exitstat: both inputs: %s\n", note[0]);
	else
		for (int i = 0; i < 2; i++)
			if (note[i])
				info("kvm-exitstat: %s: %s\n", o->path[i], note[i]);
	if (!stats_table_size(t[0]) && !stats_table_size(t[1]))
		return err("neither '%s' nor '%s' holds any timed exit", o->path[0], o->path[1]);
	/* A saved report may hold either kind; two traces that differ are worth a word. */
	if (t[0] != r[0].summary && t[1] != r[1].summary &&
	    table_kind(&r[0], t[0]) != table_kind(&r[1], t[1]))
		info("kvm-exitstat: A holds %s, B holds %s: their exit types may not match\n",
		     table_kind(&r[0], t[0]), table_kind(&r[1], t[1]));
	for (int i = 0; o->per_vcpu && i < 2; i++)
		if (!diff_has_per_vcpu(t[i]))
			return err("--per-vcpu: '%s' has no per-thread or per-vCPU data "
				   "(a one-report summary?)",
				   o->path[i]);
	return 0;
}

static int write_svg(const struct diff_opts *o, const struct diff *d)
{
	FILE *f = fopen(o->svg, "w");

	if (!f)
		return err("cannot create '%s': %m", o->svg);
	int ret = diff_render_svg(f, d, &o->ro);
	if (fclose(f) != 0 || ret < 0)
		return err("writing '%s' failed", o->svg);
	return 0;
}

static int run(const struct diff_opts *o, const struct input_result r[2])
{
	const struct stats_table *t[2];

	if (pick_tables(o, r, t) < 0)
		return -1;
	struct diff *d = diff_new(t[0], t[1], o->per_vcpu);
	int ret = diff_render(stdout, d, o->fmt, &o->ro);
	if (fflush(stdout) != 0 || ret < 0)
		ret = err("writing the diff: output error");
	else if (o->svg)
		ret = write_svg(o, d);
	diff_free(d);
	return ret;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = {.fmt = DIFF_FMT_TABLE, .ro = {.unit_ns = 1000, .unit = "us"}};
	struct input_opts io = {.vcpu = -1};
	struct input_result r[2];
	struct exit_types types;
	int ret = 1, loaded = 0;

	if (parse_args(argc, argv, &o) < 0)
		return 2;
	if (cli_load_exit_types(&types, o.types, o.ntypes) < 0)
		goto out_types;
	io.types = &types;
	for (; loaded < 2; loaded++) {
		input_result_init(&r[loaded]);
		if (input_load(o.path[loaded], &io, &r[loaded]) < 0) {
			loaded++;
			goto out;
		}
	}
	ret = run(&o, r) < 0 ? 1 : 0;
out:
	while (loaded-- > 0)
		input_result_free(&r[loaded]);
out_types:
	exit_types_free(&types);
	return ret;
}
