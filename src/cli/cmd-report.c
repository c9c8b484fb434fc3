// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-exitstat report: load inputs (any kind, merged), pick the table to
 * show, build views (stats/), print them (render/).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buckets.h"
#include "common.h"
#include "cli.h"
#include "pipeline.h"
#include "render.h"

#define MAX_INPUTS 64

struct report_opts {
	const char *inputs[MAX_INPUTS];
	size_t ninputs;
	const char *types[16];
	size_t ntypes;
	struct render_opts ro;
	enum stats_sort sort;
	double unit_ns;
	const char *unit;
	bool per_vcpu;
	const char *source;  /* auto, exits, userspace */
	const char *buckets; /* --buckets NAME|FILE */
	struct input_opts io;
	int32_t *pids;
};

static const char usage_text[] =
    "usage: kvm-exitstat report [-i] FILE... [options]\n"
    "\n"
    "Exit statistics of trace.dat files (trace-cmd v6/v7), ftrace or perf script text,\n"
    "saved PPC timing reports or KVM-PPC exit-timing dumps; several inputs merge.\n"
    "\n"
    "  -i, --input FILE       an input (also accepted without -i); the kind is read from content\n"
    "  -f, --format FMT       ppc (default), table, csv, json\n"
    "      --per-vcpu         one table per vCPU thread, then the whole run\n"
    "      --vcpu N           only exits of vcpu N (when the events carry a vcpu id)\n"
    "  -p, --pid PID[,PID]    only these threads (vCPU thread ids)\n"
    "  -s, --sort KEY         sum (default), count, avg, max, name\n"
    "      --percentiles      p50/p90/p99/p99.9 columns in the table format\n"
    "  -u, --unit UNIT        us (default, as the 2010 reports) or ns\n"
    "      --source SRC       auto (default), exits (kvm_exit/kvm_entry), userspace (KVM_EXIT_*)\n"
    "      --by-sub           key exits by detail sub-key too (MMIO gpa, PIO port, MSR, "
    "hypercall)\n"
    "      --exit-types FILE  extra exit_types data file (see kvm-exitstat-exit-types(5))\n"
    "      --buckets MAP      count exits in timing buckets: ppc (the KVM-PPC exit-timing\n"
    "                         view), native, or a map FILE (kvm-exitstat-exit-types(5))\n"
    "  -h, --help             this text\n";

static int parse_sort(const char *s, enum stats_sort *out)
{
	static const struct {
		const char *name;
		enum stats_sort s;
	} keys[] = {{"sum", STATS_SORT_SUM},
		    {"count", STATS_SORT_COUNT},
		    {"avg", STATS_SORT_AVG},
		    {"max", STATS_SORT_MAX},
		    {"name", STATS_SORT_NAME}};

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if (!strcmp(s, keys[i].name)) {
			*out = keys[i].s;
			return 0;
		}
	}
	return err("unknown sort key '%s': want sum, count, avg, max or name", s);
}

static int add_input(struct report_opts *o, const char *path)
{
	if (o->ninputs == MAX_INPUTS)
		return err("too many inputs (at most %d)", MAX_INPUTS);
	o->inputs[o->ninputs++] = path;
	return 0;
}

enum { OPT_PER_VCPU = 256, OPT_VCPU, OPT_PCT, OPT_SOURCE, OPT_TYPES, OPT_BYSUB, OPT_BUCKETS };

static int parse_args(int argc, char **argv, struct report_opts *o)
{
	static const struct option lopts[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"format", required_argument, NULL, 'f'},
	    {"per-vcpu", no_argument, NULL, OPT_PER_VCPU},
	    {"vcpu", required_argument, NULL, OPT_VCPU},
	    {"pid", required_argument, NULL, 'p'},
	    {"sort", required_argument, NULL, 's'},
	    {"percentiles", no_argument, NULL, OPT_PCT},
	    {"unit", required_argument, NULL, 'u'},
	    {"source", required_argument, NULL, OPT_SOURCE},
	    {"by-sub", no_argument, NULL, OPT_BYSUB},
	    {"exit-types", required_argument, NULL, OPT_TYPES},
	    {"buckets", required_argument, NULL, OPT_BUCKETS},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c;
	char *end;

	while ((c = getopt_long(argc, argv, "i:f:p:s:u:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (add_input(o, optarg) < 0)
				return -1;
			break;
		case 'f':
			if (render_format_parse(optarg, &o->ro.fmt) < 0)
				return err("unknown format '%s': want ppc, table, csv or json",
					   optarg);
			err_set_json(o->ro.fmt == RENDER_JSON);
			break;
		case OPT_PER_VCPU:
			o->per_vcpu = true;
			break;
		case OPT_VCPU:
			o->io.vcpu = (int32_t)strtol(optarg, &end, 10);
			if (*end || end == optarg || o->io.vcpu < 0)
				return err("bad vcpu '%s'", optarg);
			break;
		case 'p':
			if (cli_parse_pids(optarg, &o->pids, &o->io.npids) < 0)
				return -1;
			o->io.pids = o->pids;
			break;
		case 's':
			if (parse_sort(optarg, &o->sort) < 0)
				return -1;
			break;
		case OPT_PCT:
			o->ro.quantiles = true;
			break;
		case 'u':
			if (cli_parse_unit(optarg, &o->unit_ns) < 0)
				return -1;
			o->unit = optarg;
			break;
		case OPT_SOURCE:
			if (strcmp(optarg, "auto") && strcmp(optarg, "exits") &&
			    strcmp(optarg, "userspace"))
				return err("unknown source '%s': want auto, exits or userspace",
					   optarg);
			o->source = optarg;
			break;
		case OPT_BYSUB:
			o->io.with_sub = true;
			break;
		case OPT_TYPES:
			if (cli_add_types_file(o->types, &o->ntypes, ARRAY_SIZE(o->types), optarg) < 0)
				return -1;
			break;
		case OPT_BUCKETS:
			o->buckets = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		default:
			fputs(usage_text, stderr);
			return -1;
		}
	}
	for (; optind < argc; optind++)
		if (add_input(o, argv[optind]) < 0)
			return -1;
	if (!o->ninputs)
		return err("no input: give a trace.dat or text file with -i (see 'report --help')");
	return 0;
}

static const struct stats_table *choose(const struct report_opts *o, const struct input_result *r,
					const char **source, const char **note)
{
	if (!strcmp(o->source, "exits")) {
		*source = "kvm_exit";
		*note = NULL;
		return r->exits;
	}
	if (!strcmp(o->source, "userspace")) {
		*source = "userspace";
		*note = NULL;
		return r->uexits;
	}
	const struct stats_table *t = input_main_table(r, note);
	*source = t == r->exits ? "kvm_exit" : t == r->uexits ? "userspace" : "summary";
	return t;
}

static char *join_inputs(const struct report_opts *o)
{
	size_t len = 1;

	for (size_t i = 0; i < o->ninputs; i++)
		len += strlen(o->inputs[i]) + 2;
	char *s = xcalloc(1, len);
	for (size_t i = 0; i < o->ninputs; i++) {
		if (i)
			strcat(s, ", ");
		strcat(s, o->inputs[i]);
	}
	return s;
}

static char *group_label(const struct input_result *r, const struct stats_group *g)
{
	char buf[160];
	const char *comm = input_comm(r, g->tid);
	int n = 0;

	if (g->vcpu >= 0)
		n = snprintf(buf, sizeof(buf), "vcpu %d ", g->vcpu);
	snprintf(buf + n, sizeof(buf) - (size_t)n, "tid %d%s%s%s", g->tid, comm ? " (" : "",
		 comm ? comm : "", comm ? ")" : "");
	return xstrdup(buf);
}

static int print_report(struct report_opts *o, struct input_result *r)
{
	struct render_meta m = {.kind = input_kind_name(r->kind),
				.isa = r->isa,
				.events = r->events,
				.lost = r->lost,
				.lost_known = r->lost_known,
				.untimed = r->unpaired,
				.backwards = r->ts_backwards,
				.buckets = o->buckets,
				.sub_folded = r->sub_folded};
	const struct stats_table *t = choose(o, r, &m.source, &m.note);
	struct stats_group *g = NULL;
	size_t ng = 0;

	if (!stats_table_size(t))
		return err("no %s exits in the input", m.source);
	if (o->per_vcpu) {
		ng = stats_table_split(t, &g);
		if (ng == 1 && g[0].tid < 0 && g[0].vcpu < 0) {
			stats_groups_free(g, ng);
			return err("the input has no per-vCPU data (summary-only report)");
		}
	}
	char *inputs = join_inputs(o);
	m.inputs = inputs;
	struct render_block *b = xcalloc(ng + 1, sizeof(*b));
	struct stats_table *whole = stats_table_rollup(t, o->io.with_sub ? STATS_BY_SUB : 0);
	for (size_t i = 0; i < ng; i++)
		b[i] = (struct render_block){group_label(r, &g[i]), g[i].tid, g[i].vcpu,
					     stats_view_new(g[i].t, o->unit_ns, o->unit, o->sort)};
	b[ng] = (struct render_block){ng ? "all vCPUs" : NULL, -1, -1,
				      stats_view_new(whole, o->unit_ns, o->unit, o->sort)};
	render_report(stdout, &o->ro, &m, b, ng + 1);
	for (size_t i = 0; i <= ng; i++) {
		if (i < ng)
			free((char *)b[i].label);
		stats_view_free((struct stats_view *)b[i].v);
	}
	free(b);
	stats_table_free(whole);
	stats_groups_free(g, ng);
	free(inputs);
	return fflush(stdout) == 0 ? 0 : err("writing the report: output error");
}

/* --buckets: a built-in map or a file, checked against the exit tables (typos). */
static int load_buckets(const char *arg, const struct exit_types *types, struct bucket_map **out)
{
	char e[512];

	*out = bucket_map_open(arg, e, sizeof(e));
	if (!*out || bucket_map_check(*out, types, e, sizeof(e)) < 0)
		return err("%s", e);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {.ro = {.fmt = RENDER_PPC},
				.sort = STATS_SORT_SUM,
				.unit_ns = 1000,
				.unit = "us",
				.source = "auto",
				.io = {.vcpu = -1}};
	struct exit_types types;
	struct bucket_map *map = NULL;
	struct input_result r;
	int ret = 1;

	if (parse_args(argc, argv, &o) < 0) {
		free(o.pids);
		return 2;
	}
	if (cli_load_exit_types(&types, o.types, o.ntypes) < 0)
		goto out_types;
	o.io.types = &types;
	if (o.buckets && load_buckets(o.buckets, &types, &map) < 0)
		goto out_types;
	o.io.buckets = map;
	input_result_init(&r);
	for (size_t i = 0; i < o.ninputs; i++)
		if (input_load(o.inputs[i], &o.io, &r) < 0)
			goto out;
	ret = print_report(&o, &r) < 0 ? 1 : 0;
out:
	input_result_free(&r);
out_types:
	bucket_map_free(map);
	exit_types_free(&types);
	free(o.pids);
	return ret;
}
