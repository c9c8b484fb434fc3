/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to ui/. Data flows one way: watch.h (collector -> feed -> tables) ->
 * model (filtered, rolled-up rows with rates) -> table (curses) or batch
 * (--once/--log text). keys maps keys to actions; loop owns the screen.
 */
#ifndef KES_UI_LOCAL_H
#define KES_UI_LOCAL_H

#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "exit-types.h"
#include "feed.h"
#include "stats.h"
#include "ui.h"
#include "watch.h"

/* ------------------------------------------------------------------------ */
/* model.c: rows as the screen, --once and --log show them */

enum ui_sort { UI_SORT_TOTAL, UI_SORT_RATE, UI_SORT_AVG, UI_SORT_MAX, UI_SORT_TIME, UI_NSORT };
enum ui_mode { UI_MODE_REASONS, UI_MODE_VMS, UI_MODE_DRILL };

struct ui_filter {
	const regex_t *re; /* NULL: no regex; else own, or the command line's (compiled once) */
	regex_t own;	   /* a regex typed in the view */
	bool has_own;
	char re_text[128];
	int32_t *pids; /* VMM pids or thread ids */
	size_t npids;
	char guest[128]; /* VM name; "" none */
};

/* What the user chose; keys.c changes it, model.c reads it. */
struct ui_state {
	enum ui_sort sort;
	enum ui_mode mode;
	enum ui_source source;
	const char *drill; /* interned reason of the drill-down */
	const struct gsym *syms; /* --guest-kallsyms: names the drill-down's guest pcs, or NULL */
	bool events;	   /* the all-events view: every kvm:* tracepoint counted (e key) */
	bool show_zero;
	bool buckets; /* rows are timing buckets: no table of names for show_zero */
	bool paused;
	bool help;
	bool cause; /* the cause column (--anatomy; the a key) */
	size_t sel, top; /* selected row, first row on screen */
	struct ui_filter f;
	double delay;
	int prompt; /* the key whose prompt is open, 0: none */
	char input[128];
	size_t ninput;
	char msg[160]; /* one line under the header until the next key */
};

/*
 * A row of the view: the statistics as report has them (stats_row, in ns;
 * avg and max NAN when none was timed, p99 NAN without a histogram, so a
 * renderer prints "-"; acc NULL: the table it came from is the frame's),
 * and what only a live view adds.
 */
struct ui_row {
	struct stats_row s;
	char label[96];
	uint8_t sub_kind; /* enum kes_detail of s.key.sub: what the drill-down calls it */
	double rate;	  /* exits/s in the last interval */
	double pct_total; /* % of all exits shown */
	double pct_time;  /* % of exit handling + guest time */
	char cause[32];	  /* --anatomy: the part most of its time went to, "runnable 57%" */
};

struct ui_view {
	int src;	     /* WATCH_EXITS / WATCH_UEXITS / WATCH_EVENTS (rows are event names, counts only) */
	size_t nevents;	     /* WATCH_EVENTS: how many kvm:* events are counted */
	bool exit_silent;    /* kvm:kvm_exit exists but never fired, rows are userspace exits */
	const char *isa;     /* for the header */
	struct ui_row *rows; /* the reasons, VMs or (drill) vCPU threads */
	size_t nrows;
	struct ui_row *subs; /* drill: the reason by sub-key */
	size_t nsubs;
	struct ui_row total; /* over rows; drill: the reason itself */
	struct ui_row guest; /* TIMEINGUEST: time from entry to the next exit */
	bool has_guest;
	double events_s;
	uint64_t lost;
	size_t nvms, nvms_dead;
	char vms[256]; /* "exitgen[4101] qemu:vm1[4200]" */
	bool empty;    /* nothing seen yet */
	bool has_cause; /* the rows have a cause (--anatomy, the reasons view) */
	/* --slower-than (slow.c): a title and the latest such exits, oldest first */
	bool slow_on;
	char slow_title[128];
	char (*slow)[256];
	size_t nslow;
};

/* From l->total (since start) and l->last (rates), as st says (sort, mode, filters). */
void ui_model_build(struct ui_view *v, const struct watch *l, const struct watch_vms *vs,
		    const struct ui_state *st, const struct exit_types *types);
void ui_view_free(struct ui_view *v);
/* " (all exited)", " (some exited)" or "": for the header's VM count. */
const char *ui_vms_exited(const struct ui_view *v);
const char *ui_sort_name(enum ui_sort s);
/* The command line's -f regex (compiled once, by cli/; the caller keeps it). */
void ui_filter_use_re(struct ui_filter *f, const regex_t *re, const char *text);
/* Sets the regex filter; "" clears. 0, or -1 with the reason in msg. */
int ui_filter_set_re(struct ui_filter *f, const char *text, char *msg, size_t len);
/* "4101,4202" -> pid filter; "" clears. 0 or -1. */
int ui_filter_set_pids(struct ui_filter *f, const char *text, char *msg, size_t len);
void ui_filter_free(struct ui_filter *f);

/* "5.59", "1234.5", "12.3ms", "4.56s": a time in ns in a column of width w. */
void ui_fmt_time(char *buf, size_t len, double ns, bool plain_us);

/* ------------------------------------------------------------------------ */
/* keys.c: key -> action -> what the loop must do */

enum ui_action {
	UI_A_NONE,
	UI_A_QUIT,
	UI_A_HELP,
	UI_A_SORT_NEXT,
	UI_A_SORT_TOTAL,
	UI_A_SORT_RATE,
	UI_A_SORT_AVG,
	UI_A_SORT_MAX,
	UI_A_SORT_TIME,
	UI_A_UP,
	UI_A_DOWN,
	UI_A_PGUP,
	UI_A_PGDN,
	UI_A_HOME,
	UI_A_END,
	UI_A_DRILL,
	UI_A_BACK,
	UI_A_VMS,
	UI_A_FILTER_RE,
	UI_A_FILTER_GUEST,
	UI_A_FILTER_PID,
	UI_A_CLEAR,
	UI_A_RESET,
	UI_A_PAUSE,
	UI_A_ZERO,
	UI_A_SOURCE,
	UI_A_EVENTS,
	UI_A_DELAY,
	UI_A_REFRESH,
	UI_A_CAUSE,
};

/* What the loop does after a key (htop's Htop_Reaction). */
enum {
	UI_R_REDRAW = 1 << 0,  /* draw the current view again */
	UI_R_REBUILD = 1 << 1, /* build the view again from the aggregates */
	UI_R_TICK = 1 << 2,    /* end the interval now */
	UI_R_RESET = 1 << 3,   /* zero the counters */
	UI_R_QUIT = 1 << 4,
	UI_R_EVENTS = 1 << 5, /* the all-events view is shown: count every kvm:* event */
};

struct ui_key_help {
	const char *keys, *what;
};

/* The binding of a key; any key without one refreshes (kvm_stat does the same). */
enum ui_action ui_keys_action(int ch);
/* Applies a key (prompts included) to st; v is the view on screen. Returns UI_R_* flags. */
unsigned ui_keys_handle(struct ui_state *st, const struct ui_view *v, int ch, int page_rows);
extern const struct ui_key_help ui_key_help[];
extern const size_t ui_nkey_help;

/* ------------------------------------------------------------------------ */
/* crt.c: the terminal */

/* Puts the terminal in curses mode. 0, or -1 with the reason in errbuf. */
int ui_crt_init(char *errbuf, size_t errlen);
/* Restores the terminal; safe to call twice and from atexit. */
void ui_crt_done(void);
/* True once after a SIGWINCH; the curses size follows the terminal. */
bool ui_crt_resized(void);

/* ------------------------------------------------------------------------ */
/* color.c: colour where the terminal has it */

#define UI_WARM_PCT 5.0	 /* %TIME from which a row is yellow */
#define UI_HOT_PCT  20.0 /* ... red */

/* Colour unless --no-color or NO_COLOR (non-empty). */
bool ui_color_wanted(bool no_color_opt);
/* After ui_crt_init(): colour on if wanted and the terminal has it. */
void ui_color_init(bool want);
/* Colour pairs (0: none) for the sorted column and for a row by its %TIME. */
short ui_color_sorted(void);
short ui_color_row(double pct_time);

/* ------------------------------------------------------------------------ */
/* table.c: drawing */

struct ui_header {
	const char *host;
	const char *machine; /* uname -m, the ISA shown for userspace exits */
	const char *traced;  /* "pids 4101,4202", "guest vm1", "all processes" */
	const char *buckets; /* the timing-bucket map's name, or NULL */
	bool targets_gone;   /* every traced process has exited */
	unsigned width;	     /* --once's header lines fold to it */
};

void ui_table_draw(const struct ui_view *v, struct ui_state *st, const struct ui_header *h);
/* Rows of the table area for the current terminal size (for paging). */
int ui_table_page_rows(void);

/* ------------------------------------------------------------------------ */
/* batch.c: --once and --log */

void ui_batch_table(FILE *f, const struct ui_view *v, const struct ui_header *h, double dt);

struct ui_log;
/* Columns are fixed at the first interval that has exits. NULL with errbuf. */
struct ui_log *ui_log_new(const struct ui_top_opts *o, char *errbuf, size_t errlen);
/* One interval: a line (and the banner when due). 0, or -1 on a write error. */
int ui_log_interval(struct ui_log *lg, const struct watch *l, const struct exit_types *types);
/* After SIGHUP: reopen the file (log rotation). 0 or -1 with errbuf. */
int ui_log_reopen(struct ui_log *lg, char *errbuf, size_t errlen);
void ui_log_free(struct ui_log *lg);

/* ------------------------------------------------------------------------ */
/* slow.c: --slower-than, perf kvm stat live --duration's list */

struct ui_top;
/* The view's slow_* from l->slow[v->src] (the thread's VM from vs). */
void ui_slow_view(struct ui_view *v, const struct watch *l, const struct watch_vms *vs);
/*
 * --once/--log: one line per exit over the threshold since the last call, in
 * time order, perf's words ("TS VM PID, vcpu N: REASON event took Nusec"),
 * then forgets them. 0, or -1 on a write error.
 */
int ui_slow_print(FILE *f, struct ui_top *t);

/* ------------------------------------------------------------------------ */
/* top.c, loop.c: one run of top */

struct ui_top {
	const struct ui_top_opts *o;
	struct watch *live;
	struct watch_vms vms;
	struct ui_header hdr;
	double t_last; /* when the running interval started (CLOCK_MONOTONIC, s) */
};

double ui_now(void);
/* How long to wait for the collector: until deadline, at most one tick (100 ms). */
int ui_wait_ms(double deadline);
/* Waits for and aggregates events, learns the new threads. 0 or -1. */
int ui_top_poll(struct ui_top *t, int timeout_ms);
/* The refresh tick (see top.c). 0 or -1. */
int ui_top_tick(struct ui_top *t);
/* The curses view until q or a stop signal. 0 or -1 after err(). */
int ui_screen_run(struct ui_top *t);

#endif
