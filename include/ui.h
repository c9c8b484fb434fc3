/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ui/: `kvm-exitstat top`, the live view. The live collector (live.h)
 * feeds decode -> pair -> stats as `record` + `report` would; the screen,
 * the --once table and the --log lines are drawn from those aggregates at
 * each refresh tick, never from the hot path.
 */
#ifndef KES_UI_H
#define KES_UI_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <regex.h>
#include "exit-types.h"

struct bucket_map;

enum ui_output {
	UI_OUT_SCREEN, /* the ncurses view */
	UI_OUT_ONCE,   /* one interval's table on stdout, no curses */
	UI_OUT_LOG,    /* one line per interval (like vmstat) */
};

/* Which exits the rows are: kvm_exit pairs, or exits that reach the VMM. */
enum ui_source { UI_SOURCE_AUTO, UI_SOURCE_EXITS, UI_SOURCE_USERSPACE };

struct ui_top_opts {
	const int32_t *pids; /* trace these processes (and their threads); NULL: all */
	size_t npids;
	const char *guest;	  /* the -g NAME the pids came from, for the header; or NULL */
	const char *fields;	  /* POSIX extended regex on reason names, or NULL */
	const regex_t *fields_re; /* it compiled (once, by cli/), or NULL */
	double delay;		  /* refresh interval, seconds */
	enum ui_output out;
	enum ui_source source;
	bool csv;		    /* --log: comma-separated */
	bool json;		    /* --log: one JSON object per interval (JSON Lines) */
	bool skip_zero;		    /* --log: no line for an interval without exits */
	bool times;		    /* --log: an average handling time column per reason */
	const char *log_file;	    /* --log: append here (reopened on SIGHUP), NULL: stdout */
	unsigned buffer_kb;	    /* per-CPU ring buffer, 0: default */
	struct bucket_map *buckets; /* count exits in timing buckets (bucket-map.h), or NULL */
	const char *buckets_name;   /* for the header */
	bool no_color;		    /* --no-color (NO_COLOR is read by ui/) */
	uint64_t slower_ns;	    /* --slower-than: show each exit slower than this; 0: off */
	unsigned width;		    /* --once: its header lines fold to this many columns */
	/*
	 * --all-events: rows (--once), columns (--log) and the first view are
	 * every kvm:* tracepoint, counted from the start (kvm_stat's default
	 * view). Without it the screen's e key enables them when first pressed.
	 */
	bool all_events;
	/* --anatomy: each exit split into its causes; a cause column (the a key toggles it) */
	bool anatomy;
	/*
	 * --in-kernel: the kernel counts exits per reason and keeps the exit ->
	 * entry latency histogram (hist triggers, a synthetic event); top reads
	 * them each interval instead of every event (watch.h, live/khist.c).
	 */
	bool in_kernel;
	/*
	 * --by-guest: the drill-down's sub-keys are the guest's pc at each exit
	 * (exit_types `pc`), named by syms (--guest-kallsyms) when given.
	 */
	bool by_guest;
	const struct gsym *syms;
	const struct exit_types *types;
};

/* Runs top until q, SIGINT/SIGTERM or (with pids) every traced process has exited
 * (--once, --log). Prints its own errors. Returns the exit status. */
int ui_top_run(const struct ui_top_opts *o);
/*
 * top --stats (kstat.c): KVM's own statistics per VM with rates, kvm_stat
 * -d's view; no tracing. The same outputs (o->out), -f on statistic names.
 */
int ui_kstat_run(const struct ui_top_opts *o);

/*
 * Compiles top's -f regex (and the f key's) as kvm_stat applies its fields
 * filter, with Python's re.match(): anchored at the start of the reason name,
 * not at its end ("KVM_EXIT_M" matches KVM_EXIT_MMIO, "IO" matches nothing).
 * regcomp()'s return value; free with regfree().
 */
int ui_fields_regcomp(regex_t *re, const char *text);

#endif
