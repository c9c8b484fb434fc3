/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ui/: `kvm-exitstat top`, the live view. The live collector (collect.h)
 * feeds decode -> pair -> stats as `record` + `report` would; the screen,
 * the --once table and the --log lines are drawn from those aggregates at
 * each refresh tick, never from the hot path.
 */
#ifndef KES_UI_H
#define KES_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "exittypes.h"

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
	const char *guest;  /* the -g NAME the pids came from, for the header; or NULL */
	const char *fields; /* POSIX extended regex on reason names, or NULL */
	double delay;	    /* refresh interval, seconds */
	enum ui_output out;
	enum ui_source source;
	bool csv;		    /* --log: comma-separated */
	bool skip_zero;		    /* --log: no line for an interval without exits */
	bool times;		    /* --log: an average handling time column per reason */
	const char *log_file;	    /* --log: append here (reopened on SIGHUP), NULL: stdout */
	unsigned buffer_kb;	    /* per-CPU ring buffer, 0: default */
	struct bucket_map *buckets; /* count exits in timing buckets (buckets.h), or NULL */
	const char *buckets_name;   /* for the header */
	const struct exit_types *types;
};

/* Runs top until q, SIGINT/SIGTERM or (with pids) every traced process has exited
 * (--once, --log). Prints its own errors. Returns the exit status. */
int ui_top_run(const struct ui_top_opts *o);

/*
 * Processes whose VM name is `name`: QEMU's `-name [guest=]NAME` on the
 * command line, else the process name (comm). *pids is malloc'd.
 * Returns how many (0: none), or -1.
 */
int ui_vm_find(const char *name, int32_t **pids, size_t *n);

#endif
