/* SPDX-License-Identifier: GPL-2.0 */
/*
 * render/: prints views computed by stats/. No renderer computes a statistic.
 * Formats: the KVM-PPC timing report (default), an aligned table, CSV, JSON
 * (schemas in kvm-exitstat-report(1) and kvm-exitstat-diff(1); field names
 * never change), for reports and for diffs.
 */
#ifndef KES_RENDER_H
#define KES_RENDER_H

#include <stdio.h>
#include <stdbool.h>
#include "diff.h"
#include "kstat.h"
#include "stats.h"

enum render_format { RENDER_PPC, RENDER_TABLE, RENDER_CSV, RENDER_JSON };

struct render_meta {
	const char *inputs;  /* "a.dat, b.dat" */
	const char *kind;    /* input kind name */
	const char *isa;     /* "x86_vmx", or NULL */
	const char *const *hosts; /* the hosts the inputs were recorded on (JSON "hosts") */
	size_t nhosts;
	const char *source;  /* "kvm_exit", "userspace", "summary" */
	const char *note;    /* why this source, or NULL */
	const char *buckets; /* timing-bucket map the rows are counted in, or NULL */
	uint64_t events;
	uint64_t lost;
	bool lost_known;
	uint64_t untimed;
	uint64_t backwards;
	uint64_t threadless_exits; /* exits of no thread (common_pid 0 or -1): not counted */
	uint64_t sub_folded;   /* --by-sub: exits counted in an "other" sub-key row */
	bool wall_known;       /* false for summary-only inputs: no events, no span */
	uint64_t wall_ns;      /* the trace's wall span: first to last KVM event (summed over inputs) */
	char *const *warnings; /* what the inputs say that does not add up (struct input_result) */
	size_t nwarnings;
	bool text_input;	 /* a text input was read: not_understood means something */
	uint64_t not_understood; /* its lines naming a KVM tracepoint that could not be read */
	uint64_t nu_first_line;
	/*
	 * The times are ticks of unknown length (integer timestamps, no
	 * --ts-unit): the views' unit is "ticks", no time is said in seconds.
	 */
	bool ticks;
	/* Untimed exits are an input's that counts without timing (kvm_stat, bcc), not edges. */
	bool counts_only;
};

/* One table of a report: the whole run, or one thread/vCPU of it. */
struct render_block {
	const char *label; /* NULL for the whole run; "vcpu 0 tid 4102 (exitgen-vcpu0)" */
	int32_t tid, vcpu;
	const struct stats_view *v;
	int32_t pid;	/* report --per-vm: the VM's process (> 0), else 0 */
	const char *vm; /* and its name, or NULL */
};

struct render_opts {
	enum render_format fmt;
	bool quantiles;
	unsigned width; /* table: the columns to fit; 0: RENDER_WIDTH_DEFAULT (80) */
};

void render_report(FILE *f, const struct render_opts *o, const struct render_meta *m,
		   const struct render_block *b, size_t n);

/* report --slowest N: single exits as stats_outliers_sorted() ordered them. */
struct render_slowest {
	const struct stats_outlier *v;
	size_t n;
	const char *const *comms; /* each one's thread name, or NULL */
	uint64_t seen;		  /* the timed exits they were chosen from */
	double unit_ns;		  /* 1000 for us, 1 for ns */
	const char *unit;
	bool anatomy; /* --anatomy: each one's parts and dominant cause (its split) */
};
void render_slowest(FILE *f, const struct render_opts *o, const struct render_meta *m,
		    const struct render_slowest *s);

/* report --anatomy: each reason's parts (stats_anatomy_view_new() made v). */
void render_anatomy(FILE *f, const struct render_opts *o, const struct render_meta *m,
		    const struct stats_anatomy_view *v);
/* report --by-guest: its symbol file, as the header names it (syms_path NULL: none). */
struct render_guest {
	const char *syms_path, *syms_kind;
	size_t nsyms;
};
void render_by_guest(FILE *f, const struct render_opts *o, const struct render_meta *m,
		     const struct stats_guest_view *g, const struct render_guest *go);
/* report --by-guest --svg: a bar per reason@function of v (a stats_guest_table()'s view). */
void render_guest_svg(FILE *f, const char *title, const struct stats_view *v, const char *unit);
/* report --nested: L2's exits, L0 or L1, and L1's windows (times in unit: unit_ns each). */
void render_nested(FILE *f, const struct render_opts *o, const struct render_meta *m,
		   const struct stats_nested_view *v, double unit_ns, const char *unit);
/* A split's dominant cause for people: "17.6 ms runnable behind kworker/1:2 (pid 93)". */
const char *render_split_cause(const struct stats_split *s, char *buf, size_t len);
/* A time for people: "412 ns", "58.1 us", "17.9 ms", "1.25 s". */
void render_human_ns(char *buf, size_t len, uint64_t ns);

/* ------------------------------------------------------------------------ */
/* diff (stats/diff.c computes it). Return 0, or -1 when writing failed. */

struct render_diff_opts {
	const char *name_a, *name_b; /* what the runs are called (file names) */
	double unit_ns;		     /* 1000 for µs, 1 for ns */
	const char *unit;	     /* "us" or "ns" */
	bool wall_known[2];	     /* A and B had events: their traces' wall spans */
	uint64_t wall_ns[2];
	unsigned width; /* table: the columns to fit; 0: 80 */
};

/* report --svg: a latency histogram per reason and a timeline of exits per second. */
struct render_svg {
	const char *title;		 /* the inputs */
	const char *source;		 /* "kvm_exit", "userspace", "summary" */
	const char *note;		 /* or NULL */
	const struct stats_view *v;	 /* the whole run; its rows' acc give the buckets */
	double unit_ns;			 /* of v */
	const struct stats_timeline *tl; /* NULL: the input has no timestamps */
	bool tl_by_reason;		 /* rows are buckets, the timeline is by exit reason */
	const struct stats_anatomy_view *anatomy; /* --anatomy: the parts stacked per reason */
};
/* 0, or -1 on a write error. */
int render_report_svg(FILE *f, const struct render_svg *s);

/* A row's label: "KVM_EXIT_IO", or with a sub-key "KVM_EXIT_IO@0x80" / "MMIO@other". */
const char *render_row_name(const struct stats_row *r, char *buf, size_t len);
/* The sub-key alone ("0x80", "other"), or NULL when the row has none. */
const char *render_row_sub(const struct stats_row *r, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* KVM's own statistics (render/kstat.c, kstat-svg.c) */

/* The "kind" of record --stats's snapshot file (input/kstatjson.c reads it back). */
#define RENDER_KSTAT_KIND "kvm-exitstat-kvm-stats"

/* top --stats --once and report of a snapshot: a table per VM (vCPU), then all VMs. */
void render_kstat_table(FILE *f, const struct kstat_view *v, const char *title);
/* The same as one JSON document (report -f json). */
void render_kstat_json(FILE *f, const struct kstat_view *v, const char *title);

struct render_kstat_snap {
	const struct kstat_schema *schema;
	const char *schema_src;
	const struct kstat_reading *readings;
	size_t nreadings;
	const char *host, *kernel;
};
/* diff -f json of two snapshots: {"a": view, "b": view}. */
void render_kstat_json_pair(FILE *f, const struct kstat_view *a, const struct kstat_view *b,
			    const char *name_a, const char *name_b);
/* record --stats's file: the schema and the raw readings. */
void render_kstat_snapshot(FILE *f, const struct render_kstat_snap *m);
/* diff of two snapshots: every VM summed in each, statistic by statistic, buckets too. */
void render_kstat_compare(FILE *f, const struct kstat_view *a, const struct kstat_view *b,
			  const char *name_a, const char *name_b);
/* report --svg of a snapshot: a panel per histogram with samples. 0, or -1 on a write error. */
int render_kstat_svg(FILE *f, const struct kstat_view *v, const char *title);

int render_diff(FILE *f, const struct diff *d, enum render_format fmt,
		const struct render_diff_opts *o);
/* diff --anatomy: each reason's parts, A against B (diff_anatomy_new()). */
int render_diff_anatomy(FILE *f, const struct diff_anatomy *d, enum render_format fmt,
			const struct render_diff_opts *o);
/* A self-contained SVG: per-row horizontal bars of time share, A vs B. */
int render_diff_svg(FILE *f, const struct diff *d, const struct render_diff_opts *o);

#endif
