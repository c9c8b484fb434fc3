// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-exitstat report: load inputs (any kind, merged), pick the table to
 * show, build views (stats/), print them (render/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "bucket-map.h"
#include "cli-local.h"
#include "err.h"
#include "exit-types.h"
#include "gsym.h"
#include "intern.h"
#include "pipeline.h"
#include "procmap.h"
#include "render.h"
#include "text.h"
#include "tracedat.h"

#define MAX_INPUTS 64

struct report_opts {
	const char *inputs[MAX_INPUTS];
	size_t ninputs;
	struct cli_types types;
	struct render_opts ro;
	enum stats_sort sort;
	double unit_ns;
	const char *unit;
	bool per_vcpu;
	bool per_vm;
	const char *source;  /* auto, exits, userspace */
	const char *buckets; /* --buckets NAME|FILE */
	const char *svg;     /* --svg FILE */
	struct input_opts io;
	struct cli_pids pids; /* -p */
	const char *guest;    /* -g */
	size_t slowest; /* --slowest N, 0: the table */
	bool anatomy;	/* --anatomy */
	bool by_guest;	/* --by-guest */
	const char *guest_syms; /* --guest-kallsyms FILE */
	struct gsym *syms;	/* its symbols, loaded before the inputs */
	unsigned long guest_top; /* --guest-top N: pcs shown per reason, 0: all */
	bool nested;		/* --nested */
	struct text_ts_unit ts_unit; /* --ts-unit (io.ts_unit points here when given) */
};

/* --slowest keeps N exits whole: bounded so that memory is. */
#define SLOWEST_MAX 1000000

static const char *const formats[] = {"ppc", "table", "csv", "json", NULL};
static const enum render_format format_of[] = {RENDER_PPC, RENDER_TABLE, RENDER_CSV, RENDER_JSON};
static const char *const sorts[] = {"sum", "count", "avg", "max", "name", NULL};
static const enum stats_sort sort_of[] = {STATS_SORT_SUM, STATS_SORT_COUNT, STATS_SORT_AVG,
					  STATS_SORT_MAX, STATS_SORT_NAME};
static const char *const units[] = {"us", "ns", NULL};

enum {
	O_INPUT = 1,
	O_FORMAT,
	O_VCPU,
	O_SORT,
	O_UNIT,
	O_SOURCE,
	O_SLOWEST,
	O_TS_UNIT,
	O_BY_GUEST,
	O_GUEST_TOP,
};

static const struct cli_opt opts[] = {
    CLI_OPT("input", 'i', "FILE", O_INPUT,
	    "an input (also accepted without -i); the kind is read from content"),
    CLI_OPT("format", 'f', "FMT", O_FORMAT, "ppc (default), table, csv, json",
	    .flags = CLI_OPT_JSON, .values = formats, .noun = "format"),
    CLI_BOOL("per-vcpu", 0, struct report_opts, per_vcpu,
	    "one table per vCPU thread, then the whole run"),
    CLI_BOOL("per-vm", 0, struct report_opts, per_vm,
	    "one table per VM (its pid and name), then the whole run"),
    CLI_OPT("vcpu", 0, "N", O_VCPU,
	    "only exits of vCPU N (the events' vcpu_id, else record's\n"
	    "thread map, else the thread name: QEMU's \"CPU N/KVM\";\n"
	    "refused when none says)"),
    CLI_PIDS(struct report_opts, pids,
	     "only these processes (VMMs: all their threads) or threads;\n"
	     "files without record's thread map: threads only; repeatable"),
    CLI_GUEST(struct report_opts, guest,
	      "only the VMs named NAME (QEMU -name, else the process\nname, as record saw them)"),
    CLI_OPT("sort", 's', "KEY", O_SORT, "sum (default), count, avg, max, name", .values = sorts,
	    .noun = "sort key"),
    CLI_BOOL("percentiles", 0, struct report_opts, ro.quantiles,
	    "p50/p90/p99/p99.9 columns in the table format"),
    CLI_OPT("unit", 'u', "UNIT", O_UNIT, "us (default, as the 2010 reports) or ns", .values = units,
	    .noun = "unit"),
    CLI_OPT("source", 0, "SRC", O_SOURCE,
	    "auto (default), exits (kvm_exit/kvm_entry), userspace (KVM_EXIT_*)", .values = cli_sources,
	    .noun = "source"),
    CLI_BOOL("by-sub", 0, struct report_opts, io.with_sub,
	    "key exits by detail sub-key too (MMIO gpa, PIO port, MSR, hypercall)"),
    CLI_EXIT_TYPES(struct report_opts, types),
    CLI_BUCKETS(struct report_opts, buckets,
		"count exits in timing buckets: ppc (the KVM-PPC exit-timing\n"
		"view), native, or a map FILE (kvm-exitstat-exit-types(5))"),
    CLI_STRING("svg", 0, "FILE", struct report_opts, svg,
	    "also write FILE: a latency histogram per reason (log time\n"
	    "axis, p50/p99 marked) and exits per second over the run"),
    CLI_WIDTH(struct report_opts, ro.width,
	      "the table format's width (default: COLUMNS, the terminal's, else 80)"),
    CLI_OPT("slowest", 0, "N", O_SLOWEST,
	    "list the N slowest exits (timestamp, thread, vCPU, reason,\n"
	    "sub-key, time) instead of the table: table, csv or json"),
    CLI_OPT("ts-unit", 0, "UNIT", O_TS_UNIT,
	    "what one tick of a counter clock is (text of integer\n"
	    "timestamps, trace-cmd report --raw-ts, a trace.dat recorded\n"
	    "with -C x86-tsc): ns, us, ms, s or the clock's frequency\n"
	    "(2100MHz, 2.1GHz); without it such times are shown in ticks"),
    CLI_BOOL("anatomy", 0, struct report_opts, anatomy,
	    "split each exit's handling time into its causes: in KVM,\n"
	    "runnable (and behind whom), blocked, halt polling, in the\n"
	    "VMM, interrupts, softirqs (needs sched events: record\n"
	    "--anatomy); with --slowest, each exit's dominant cause"),
    CLI_OPT("by-guest", 0, NULL, O_BY_GUEST,
	    "which guest code made the exits: per reason, each guest pc\n"
	    "(the exit event's guest_rip, vcpu_pc, sepc or pc) with its\n"
	    "share of the reason's exits and time, guest kernel or user\n"
	    "by the ISA's address layout, and its symbol (--guest-kallsyms)"),
    CLI_STRING("guest-kallsyms", 0, "FILE", struct report_opts, guest_syms,
	    cli_guest_syms_help),
    CLI_OPT("guest-top", 0, "N", O_GUEST_TOP,
	    "--by-guest: at most N pcs per reason, the reason's most\n"
	    "by --sort (default: all; its totals count them all)"),
    CLI_BOOL("nested", 0, struct report_opts, nested,
	    "an x86 host's nested guests (kvm_nested_* events): L2's exits\n"
	    "by reason, handled by L0 or reflected to L1, and for the\n"
	    "reflected ones L1's handling: its exits and time until it\n"
	    "entered L2 again"),
    {.lng = NULL},
};

static int add_input(struct report_opts *o, const char *path)
{
	if (o->ninputs == MAX_INPUTS)
		return err("too many inputs (at most %d)", MAX_INPUTS);
	o->inputs[o->ninputs++] = path;
	return 0;
}

static void init(void *arg)
{
	struct report_opts *o = arg;

	*o = (struct report_opts){.ro = {.fmt = RENDER_PPC},
				  .sort = STATS_SORT_SUM,
				  .unit_ns = 1000,
				  .unit = "us",
				  .source = "auto",
				  .io = {.vcpu = -1}};
}

static int parse(void *arg, int id, const char *val, int value)
{
	struct report_opts *o = arg;
	char *end;

	switch (id) {
	case O_INPUT:
		return add_input(o, val);
	case O_FORMAT:
		o->ro.fmt = format_of[value];
		return 0;
	case O_VCPU:
		o->io.vcpu = (int32_t)strtol(val, &end, 10);
		if (*end || end == val || o->io.vcpu < 0)
			return err("bad vcpu '%s'", val);
		return 0;
	case O_SORT:
		o->sort = sort_of[value];
		return 0;
	case O_UNIT:
		o->unit_ns = value == 0 ? 1000 : 1;
		o->unit = units[value];
		return 0;
	case O_SOURCE:
		o->source = cli_sources[value];
		return 0;
	case O_BY_GUEST:
		o->by_guest = o->io.by_guest = o->io.with_sub = true;
		return 0;
	case O_GUEST_TOP:
		return cli_parse_ulong(val, 1, 1000000, &o->guest_top, "--guest-top");
	case O_SLOWEST: {
		unsigned long n;

		if (cli_parse_ulong(val, 1, SLOWEST_MAX, &n, "--slowest") < 0)
			return -1;
		o->slowest = n;
		return 0;
	}
	case O_TS_UNIT: {
		char e[160];

		if (text_ts_unit_parse(val, &o->ts_unit, e, sizeof(e)) < 0)
			return err("--ts-unit: %s", e);
		o->io.ts_unit = &o->ts_unit;
		return 0;
	}
	}
	return -1;
}

static int operands(void *arg, int argc, char **argv)
{
	struct report_opts *o = arg;

	o->io.pids = o->pids.v;
	o->io.npids = o->pids.n;
	o->io.vm_name = o->guest ? intern(o->guest) : NULL; /* filter.c compares pointers */
	for (int i = 0; i < argc; i++)
		if (add_input(o, argv[i]) < 0)
			return -1;
	if (!o->ninputs)
		return err("no input: give a trace.dat or text file with -i (see 'report --help')");
	if (o->per_vm && o->per_vcpu)
		return err("give only one of --per-vm and --per-vcpu");
	if (o->per_vm && o->ro.fmt == RENDER_CSV)
		return err("--per-vm: not in csv (its rows carry no VM); use -f json or table");
	if (o->anatomy && (o->per_vcpu || o->per_vm))
		return err("--anatomy shows the whole run: %s does not apply",
			   o->per_vcpu ? "--per-vcpu" : "--per-vm");
	if ((o->guest_syms || o->guest_top) && !o->by_guest)
		return err("--guest-kallsyms and --guest-top go with --by-guest");
	if (o->by_guest && (o->per_vcpu || o->per_vm || o->anatomy || o->slowest || o->buckets))
		return err("--by-guest shows the whole run by guest pc: give it without --per-vcpu, "
			   "--per-vm, --anatomy, --slowest and --buckets");
	if (o->nested && (o->per_vcpu || o->per_vm || o->anatomy || o->slowest || o->buckets ||
			  o->by_guest))
		return err("--nested shows the whole run's nesting: give it without --per-vcpu, "
			   "--per-vm, --anatomy, --slowest, --buckets and --by-guest");
	if ((o->by_guest || o->nested) && o->ro.fmt == RENDER_PPC)
		o->ro.fmt = RENDER_TABLE; /* the 2010 reports had no such view */
	if (o->slowest && (o->per_vcpu || o->per_vm))
		return err("--slowest lists single exits, each with its vCPU and thread: %s does not "
			   "apply",
			   o->per_vcpu ? "--per-vcpu" : "--per-vm");
	return 0;
}

static const struct stats_table *choose(const struct report_opts *o, const struct input_result *r,
					const char **source, const char **note)
{
	return cli_pick_table(o->source, r, source, note);
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

/* One part of --per-vm: the rows of one process's threads. */
struct vm_part {
	int32_t pid; /* -1: threads the map does not place */
	struct stats_table *t;
};

struct vm_split {
	const struct procmap *pm;
	struct vm_part *p;
	size_t n;
};

static void vm_row(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct vm_split *s = arg;
	int32_t pid = procmap_tgid(s->pm, k->tid);
	size_t i = 0;

	while (i < s->n && s->p[i].pid != pid)
		i++;
	if (i == s->n) {
		s->p = xrealloc(s->p, (s->n + 1) * sizeof(*s->p));
		s->p[s->n++] = (struct vm_part){pid, stats_table_new()};
	}
	stats_acc_merge(stats_table_get(s->p[i].t, k), a);
}

static int by_pid(const void *a, const void *b)
{
	const struct vm_part *x = a, *y = b;

	/* threads of no known process (pid -1) last */
	if ((x->pid < 0) != (y->pid < 0))
		return x->pid < 0 ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* --per-vm: t by process, in pid order (threads of no known process last). */
static size_t split_by_vm(const struct stats_table *t, const struct input_result *r,
			  struct vm_part **parts)
{
	struct vm_split s = {r->procs, NULL, 0};

	stats_table_foreach(t, vm_row, &s);
	if (s.n)
		qsort(s.p, s.n, sizeof(*s.p), by_pid);
	*parts = s.p;
	return s.n;
}

static char *vm_label(const struct input_result *r, int32_t pid)
{
	char buf[320];
	const char *name = procmap_name(r->procs, pid);

	if (pid < 0)
		return xstrdup("threads of no known process");
	snprintf(buf, sizeof(buf), "VM %s pid %d", name ? name : "?", (int)pid);
	return xstrdup(buf);
}

/*
 * The tables a report shows before the whole run's: per vCPU thread, or per
 * VM (its threads folded). The views point into the tables: they are the
 * caller's to free (*owned, n of them) after rendering.
 */
static int parts_of(const struct report_opts *o, const struct input_result *r,
		    const struct stats_table *t, struct render_block **bp, size_t *np,
		    struct stats_table ***owned)
{
	struct stats_group *g = NULL;
	struct vm_part *vp = NULL;
	size_t n = 0;

	*np = 0;
	*owned = NULL;
	if (o->per_vcpu) {
		n = stats_table_split(t, &g);
		if (n == 1 && g[0].tid < 0 && g[0].vcpu < 0) {
			stats_groups_free(g, n);
			return err("the input has no per-vCPU data (summary-only report)");
		}
	} else if (o->per_vm) {
		if (!r->procs)
			return err("--per-vm: the input has no thread->process map (trace-cmd's "
				   "files, older kvm-exitstat recordings and text have none)");
		n = split_by_vm(t, r, &vp);
	}
	*bp = xcalloc(n + 1, sizeof(**bp));
	*owned = xcalloc(n + 1, sizeof(**owned));
	for (size_t i = 0; i < n; i++) {
		struct render_block *b = &(*bp)[i];
		struct stats_table *pt =
		    g ? g[i].t : stats_table_rollup(vp[i].t, o->io.with_sub ? STATS_BY_SUB : 0);

		*b = (struct render_block){.tid = -1, .vcpu = -1};
		if (g) {
			b->label = group_label(r, &g[i]);
			b->tid = g[i].tid;
			b->vcpu = g[i].vcpu;
		} else {
			b->label = vm_label(r, vp[i].pid);
			b->pid = vp[i].pid > 0 ? vp[i].pid : 0;
			b->vm = procmap_name(r->procs, vp[i].pid);
		}
		b->v = stats_view_new(pt, o->unit_ns, o->unit, o->sort);
		(*owned)[i] = pt;
	}
	/* the groups' tables are owned now: only the array goes */
	free(g);
	for (size_t i = 0; vp && i < n; i++)
		stats_table_free(vp[i].t);
	free(vp);
	*np = n;
	return 0;
}

static void meta_of(struct render_meta *m, const struct report_opts *o, const struct input_result *r)
{
	*m = (struct render_meta){.kind = r->kind_name ? r->kind_name : input_kind_name(r->kind),
				  .isa = r->isa,
				  .hosts = r->hosts,
				  .nhosts = r->nhosts,
				  .events = r->events,
				  .lost = r->lost,
				  .lost_known = r->lost_known,
				  .backwards = r->ts_backwards,
				  .threadless_exits = r->threadless_exits,
				  .buckets = o->buckets,
				  .sub_folded = r->sub_folded,
				  .wall_known = r->wall_known,
				  .wall_ns = r->wall_ns,
				  .warnings = r->warnings,
				  .nwarnings = r->nwarnings,
				  .text_input = r->text_inputs > 0,
				  .not_understood = r->not_understood,
				  .nu_first_line = r->nu_first_line,
				  .ticks = r->ts_ticks > 0,
				  .counts_only = r->counts_only};
}

static int print_report(struct report_opts *o, struct input_result *r)
{
	struct render_meta m;
	const struct stats_table *t;
	struct render_block *b = NULL;
	struct stats_table **owned = NULL;
	size_t ng = 0;

	meta_of(&m, o, r);
	t = choose(o, r, &m.source, &m.note);
	if (!stats_table_size(t))
		return err("no %s exits in the input", m.source);
	if (parts_of(o, r, t, &b, &ng, &owned) < 0)
		return -1;
	char *inputs = join_inputs(o);
	m.inputs = inputs;
	struct stats_table *whole = stats_table_rollup(t, o->io.with_sub ? STATS_BY_SUB : 0);
	b[ng] = (struct render_block){.label = ng ? (o->per_vm ? "all VMs" : "all vCPUs") : NULL,
				      .tid = -1,
				      .vcpu = -1,
				      .v = stats_view_new(whole, o->unit_ns, o->unit, o->sort)};
	/* The header's "N exits not timed" is the shown table's, not the other one's too. */
	m.untimed = b[ng].v->untimed;
	render_report(stdout, &o->ro, &m, b, ng + 1);
	for (size_t i = 0; i <= ng; i++) {
		if (i < ng)
			free((char *)b[i].label);
		stats_view_free((struct stats_view *)b[i].v);
	}
	free(b);
	for (size_t i = 0; i < ng; i++)
		stats_table_free(owned[i]);
	free(owned);
	stats_table_free(whole);
	free(inputs);
	return fflush(stdout) == 0 ? 0 : err("writing the report: output error");
}

/* Inputs of single events (the others hold statistics: saved reports, timing dumps, JSON). */
static bool input_has_events(enum input_kind k)
{
	return k == INPUT_TRACEDAT || k == INPUT_FTRACE_TXT;
}

/* --slowest N: the single exits of the table the report would show. */
static int print_slowest(struct report_opts *o, struct input_result *r)
{
	struct render_meta m;
	const struct stats_table *t;
	const struct stats_outliers *x;
	struct render_slowest s = {.unit_ns = o->unit_ns, .unit = o->unit, .anatomy = o->anatomy};
	struct stats_outlier *v;
	const char **comms;

	meta_of(&m, o, r);
	t = choose(o, r, &m.source, &m.note);
	x = t == r->exits ? o->io.outliers[0] : t == r->uexits ? o->io.outliers[1] : NULL;
	if (!x || !stats_outliers_seen(x))
		return err("--slowest: no timed %s exits in the input", m.source);
	char *inputs = join_inputs(o);
	m.inputs = inputs;
	s.n = stats_outliers_sorted(x, &v);
	s.v = v;
	s.seen = stats_outliers_seen(x);
	comms = xcalloc(s.n + 1, sizeof(*comms));
	for (size_t i = 0; i < s.n; i++)
		comms[i] = input_comm(r, v[i].tid);
	s.comms = comms;
	render_slowest(stdout, &o->ro, &m, &s);
	free(comms);
	free(v);
	free(inputs);
	return fflush(stdout) == 0 ? 0 : err("writing the report: output error");
}

/* --anatomy: the parts of each reason of the table the report would show. */
static int print_anatomy(struct report_opts *o, struct input_result *r)
{
	struct render_meta m;
	const struct stats_table *t;
	const struct stats_anatomy *a;
	struct stats_anatomy_view *v;

	meta_of(&m, o, r);
	t = choose(o, r, &m.source, &m.note);
	a = t == r->exits ? o->io.anatomy[0] : t == r->uexits ? o->io.anatomy[1] : NULL;
	if (!a || !stats_table_size(t))
		return err("--anatomy: no timed %s exits in the input", m.source);
	char *inputs = join_inputs(o);
	m.inputs = inputs;
	v = stats_anatomy_view_new(a, o->io.with_sub ? STATS_BY_SUB : 0, o->unit_ns, o->unit,
				   o->sort);
	render_anatomy(stdout, &o->ro, &m, v);
	stats_anatomy_view_free(v);
	free(inputs);
	return fflush(stdout) == 0 ? 0 : err("writing the report: output error");
}

static int report_svg_to(FILE *f, const void *arg)
{
	return render_report_svg(f, arg);
}

/* --svg FILE: the whole run's view of the table the report showed, written root-safe. */
static int write_svg(const struct report_opts *o, const struct input_result *r)
{
	struct render_svg s = {.unit_ns = o->unit_ns, .tl_by_reason = o->buckets != NULL};
	const struct stats_table *t = choose(o, r, &s.source, &s.note);
	struct stats_table *whole = stats_table_rollup(t, o->io.with_sub ? STATS_BY_SUB : 0);
	char *title = join_inputs(o);
	int ret;

	s.title = title;
	s.v = stats_view_new(whole, o->unit_ns, o->unit, o->sort);
	if (o->anatomy) {
		const struct stats_anatomy *a =
		    t == r->exits ? o->io.anatomy[0] : t == r->uexits ? o->io.anatomy[1] : NULL;

		if (a)
			s.anatomy = stats_anatomy_view_new(a, o->io.with_sub ? STATS_BY_SUB : 0,
							   o->unit_ns, o->unit, o->sort);
	}
	s.tl = t == r->exits ? o->io.timeline[0] : t == r->uexits ? o->io.timeline[1] : NULL;
	if (r->ts_ticks)
		s.tl = NULL; /* exits per second: not with times of unknown unit */
	ret = cli_write_file(o->svg, report_svg_to, &s);
	stats_anatomy_view_free((struct stats_anatomy_view *)s.anatomy);
	stats_view_free((struct stats_view *)s.v);
	stats_table_free(whole);
	free(title);
	return ret;
}

/* The lowest guest-kernel address of the input's ISA (exit_types `pc ... kernel`), 0: unknown. */
static uint64_t kernel_from(const struct report_opts *o, const struct input_result *r)
{
	const struct exit_table *t = r->isa ? exit_types_find(o->io.types, r->isa) : NULL;

	return t ? t->pc_kernel : 0;
}

struct guest_svg {
	const char *title, *unit;
	const struct stats_view *v;
};

static int guest_svg(FILE *f, const void *arg)
{
	const struct guest_svg *g = arg;

	render_guest_svg(f, g->title, g->v, g->unit);
	return 0;
}

/* --by-guest --svg: a bar per reason@function. */
static int write_guest_svg(const struct report_opts *o, const struct stats_table *t,
			   const struct gsym *syms, const char *title)
{
	struct stats_table *g = stats_guest_table(t, syms ? cli_guest_sym : NULL, syms);
	struct stats_table *whole = stats_table_rollup(g, 0);
	struct stats_view *v = stats_view_new(whole, o->unit_ns, o->unit, STATS_SORT_SUM);
	struct guest_svg a = {title, o->unit, v};
	int ret = cli_write_file(o->svg, guest_svg, &a);

	stats_view_free(v);
	stats_table_free(whole);
	stats_table_free(g);
	return ret;
}

/* --by-guest: the exits by the guest's pc, per reason. */
static int print_by_guest(struct report_opts *o, struct input_result *r)
{
	struct render_meta m;
	struct render_guest go = {0};
	const struct gsym *syms = o->syms;
	int ret = 0;

	meta_of(&m, o, r);
	const struct stats_table *t = choose(o, r, &m.source, &m.note);
	if (!stats_table_size(t))
		return err("no %s exits in the input", m.source);
	if (syms)
		go = (struct render_guest){o->guest_syms, gsym_kind(syms), gsym_count(syms)};
	char *inputs = join_inputs(o);
	m.inputs = inputs;
	struct stats_table *whole = stats_table_rollup(t, STATS_BY_SUB);
	struct stats_view *v = stats_view_new(whole, o->unit_ns, o->unit, o->sort);
	struct stats_guest_view *g =
	    stats_guest_view_new(v, syms ? cli_guest_sym : NULL, syms, kernel_from(o, r),
				 o->guest_top, o->sort);

	if (g->count == g->no_pc)
		ret = err("--by-guest: no exit in the input carries the guest's pc (%s: its "
			  "exit event has no pc field, or the input is statistics)",
			  r->isa ? r->isa : "no ISA known");
	else
		render_by_guest(stdout, &o->ro, &m, g, &go);
	if (!ret && o->svg && write_guest_svg(o, t, syms, inputs) < 0)
		ret = -1;
	stats_guest_view_free(g);
	stats_view_free(v);
	stats_table_free(whole);
	free(inputs);
	if (ret)
		return ret;
	return fflush(stdout) == 0 ? 0 : err("writing the report: output error");
}

/* --nested: L2's exits, L0 or L1, and L1's windows. */
static int print_nested(struct report_opts *o, struct input_result *r)
{
	struct render_meta m;

	if (!stats_nested_seen(o->io.nested))
		return err("--nested: no exit with kvm_nested_* events in the input (an x86 host "
			   "running nested guests; 'record' traces them)");
	meta_of(&m, o, r);
	char *inputs = join_inputs(o);
	m.inputs = inputs;
	struct stats_nested_view *v = stats_nested_view_new(o->io.nested);

	render_nested(stdout, &o->ro, &m, v, o->unit_ns, o->unit);
	stats_nested_view_free(v);
	free(inputs);
	return fflush(stdout) == 0 ? 0 : err("writing the report: output error");
}

/* A snapshot of KVM's statistics (record --stats): its own report, alone. The exit status. */
static int kstat_report(const struct report_opts *o, const char *path)
{
	if (o->ninputs > 1 || o->slowest || o->per_vm || o->buckets || o->anatomy)
		return err("a statistics snapshot is reported alone, without --slowest, "
			   "--per-vm, --buckets or --anatomy"),
		       1;
	return cli_kstat_report(path, o->ro.fmt == RENDER_JSON, o->per_vcpu, o->svg) < 0 ? 1 : 0;
}

static int run(void *arg)
{
	struct report_opts *o = arg;
	struct exit_types types;
	struct bucket_map *map = NULL;
	struct input_result r;
	char e[INPUT_ERR_MAX];
	int ret = 1;

	if (cli_load_exit_types(&types, o->types.files, o->types.n) < 0)
		goto out_types;
	o->io.types = &types;
	if (o->buckets && cli_load_buckets(o->buckets, &types, &map, NULL) < 0)
		goto out_types;
	o->io.buckets = map;
	input_result_init(&r);
	if (o->svg) {
		o->io.timeline[0] = stats_timeline_new();
		o->io.timeline[1] = stats_timeline_new();
	}
	if (o->slowest) {
		o->io.outliers[0] = stats_outliers_new(o->slowest, 0);
		o->io.outliers[1] = stats_outliers_new(o->slowest, 0);
	}
	if (o->anatomy) {
		o->io.anatomy[0] = stats_anatomy_new();
		o->io.anatomy[1] = stats_anatomy_new();
	}
	if (o->nested)
		o->io.nested = stats_nested_new();
	if (cli_guest_syms(o->guest_syms, &o->syms) < 0)
		goto out;
	o->ro.width = cli_out_width(o->ro.width);
	tracedat_probe_carry_on(); /* one libtracecmd open of a trace.dat, not two */
	for (size_t i = 0; i < o->ninputs; i++) {
		if (input_load(o->inputs[i], &o->io, &r, e, sizeof(e)) < 0) {
			if (r.kstat_snapshot)
				ret = kstat_report(o, o->inputs[i]);
			else
				err("%s", e);
			goto out;
		}
		if ((o->slowest || o->anatomy || o->nested) && !input_has_events(r.kind)) {
			err("%s: '%s' holds statistics, not single exits",
			    o->slowest ? "--slowest" : o->anatomy ? "--anatomy" : "--nested",
			    o->inputs[i]);
			goto out;
		}
	}
	if (r.no_sched) {
		err("'%s': no sched events: anatomy unavailable (record with 'record --anatomy', "
		    "or 'trace-cmd record -e kvm -e sched -e irq')",
		    r.no_sched);
		goto out;
	}
	cli_print_warnings(&r);
	if (r.ts_ticks) {
		/* times of unknown unit: shown as counted, never as us or seconds */
		o->unit = "ticks";
		o->unit_ns = 1;
		r.wall_known = false;
	}
	if (o->slowest)
		ret = print_slowest(o, &r) < 0 ? 1 : 0;
	else if (o->anatomy)
		ret = print_anatomy(o, &r) < 0 ? 1 : 0;
	else if (o->by_guest)
		ret = print_by_guest(o, &r) < 0 ? 1 : 0;
	else if (o->nested)
		ret = print_nested(o, &r) < 0 ? 1 : 0;
	else
		ret = print_report(o, &r) < 0 ? 1 : 0;
	if (!ret && o->svg && !o->by_guest && write_svg(o, &r) < 0)
		ret = 1;
out:
	stats_outliers_free(o->io.outliers[0]);
	stats_outliers_free(o->io.outliers[1]);
	stats_anatomy_free(o->io.anatomy[0]);
	stats_anatomy_free(o->io.anatomy[1]);
	stats_nested_free(o->io.nested);
	gsym_free(o->syms);
	stats_timeline_free(o->io.timeline[0]);
	stats_timeline_free(o->io.timeline[1]);
	input_result_free(&r);
out_types:
	bucket_map_free(map);
	exit_types_free(&types);
	return ret;
}

static void done(void *arg)
{
	free(((struct report_opts *)arg)->pids.v);
}

const struct cli_cmd cli_cmd_report = {
    .name = "report",
    .usage = "[-i] FILE... [options]",
    .summary = "exit statistics of a trace.dat, ftrace/perf text or saved report",
    .about = "Exit statistics of trace.dat files (trace-cmd v6/v7), ftrace or perf script text,\n"
	     "saved PPC timing reports or KVM-PPC exit-timing dumps; several inputs merge.",
    .opts = opts,
    .size = sizeof(struct report_opts),
    .init = init,
    .parse = parse,
    .operands = operands,
    .run = run,
    .done = done,
};
