/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to ui/. Data flows one way: live (collector -> pair -> tables) ->
 * model (filtered, rolled-up rows with rates) -> table (curses) or batch
 * (--once/--log text). keys maps keys to actions; loop owns the screen.
 */
#ifndef KES_UI_LOCAL_H
#define KES_UI_LOCAL_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "exittypes.h"
#include "source.h"
#include "stats.h"
#include "ui.h"

/* ------------------------------------------------------------------------ */
/* merge.c: per-CPU raw pages -> one stream in timestamp order */

struct tep_handle;
struct ui_merge;

struct ui_merge *ui_merge_new(struct tep_handle *tep, int ncpus, size_t page_size);
void ui_merge_free(struct ui_merge *m);
/* Queues a copy of one raw page of cpu (pages of a CPU come in order). */
int ui_merge_add(struct ui_merge *m, int cpu, const void *page, size_t len);
/* Hands every queued event to fn, oldest first across CPUs; empties the queues. */
void ui_merge_run(struct ui_merge *m, source_record_fn fn, void *arg);

/* ------------------------------------------------------------------------ */
/* live.c: the collector and the aggregates */

enum { UI_EXITS, UI_UEXITS, UI_NSRC };

struct ui_live {
	struct collect *c;
	struct tep_handle *tep;
	struct decoder *d;
	struct pair *p;
	struct ui_merge *m;
	/* [UI_EXITS]: kvm_exit pairs; [UI_UEXITS]: userspace exits. Keys: reason, tid, vcpu, sub.
	 */
	struct stats_table *cur[UI_NSRC];   /* the running interval; the pair writes here */
	struct stats_table *last[UI_NSRC];  /* the interval that ended at the last tick */
	struct stats_table *total[UI_NSRC]; /* since start or the last reset */
	double last_dt;			    /* seconds the last interval lasted */
	uint64_t events_cur, events_last;   /* raw events read */
	uint64_t events_total;
	uint64_t lost, lost_base; /* the instance's overrun + dropped; base: at reset */
	uint64_t gaps;		  /* pages that said events were lost before them */
	const char *isa;	  /* table of the kvm_exit events seen, or NULL */
	bool has_kvm_exit;	  /* this kernel has kvm:kvm_exit */
};

struct ui_live_opts {
	const int32_t *pids; /* NULL: every process */
	size_t npids;
	unsigned buffer_kb;
	const struct exit_types *types;
	struct bucket_map *buckets; /* NULL: rows are exit reasons */
};

/* NULL with a reason in errbuf. */
struct ui_live *ui_live_new(const struct ui_live_opts *o, char *errbuf, size_t errlen);
int ui_live_start(struct ui_live *l);
/* Waits up to timeout_ms, drains every CPU (partial pages too) and aggregates. 0 or -1. */
int ui_live_poll(struct ui_live *l, int timeout_ms);
/* Ends the interval: cur -> last, cur merged into total; dt in seconds. */
void ui_live_tick(struct ui_live *l, double dt);
/* The thread exited: its open exit (a VMM's last) is counted now, untimed. */
void ui_live_thread_gone(struct ui_live *l, int32_t tid);
/* Counters and totals start again from zero. */
void ui_live_reset(struct ui_live *l);
/* kvm_exit pairs seen (since start), userspace exits seen. */
void ui_live_counts(const struct ui_live *l, uint64_t *exits, uint64_t *uexits);
void ui_live_free(struct ui_live *l);

/* ------------------------------------------------------------------------ */
/* vm.c: which VM (VMM process) a vCPU thread belongs to */

struct ui_thread {
	int32_t tid, tgid; /* tgid -1: the thread was gone before it was looked up */
	const char *comm;  /* interned thread name, or NULL */
	unsigned dead;	   /* ticks since it was found gone; 0: alive */
};

struct ui_vm {
	int32_t pid;
	const char *name;  /* interned: QEMU -name, else comm, else "?" */
	const char *label; /* interned: "name[pid]" */
	bool dead;
};

struct ui_vms {
	struct ui_thread *t; /* sorted by tid */
	size_t nt, ct;
	struct ui_vm *v; /* in order of appearance */
	size_t nv, cv;
};

void ui_vms_free(struct ui_vms *vs);
/* The traced processes and the threads they have now (a short run may end before a tick). */
void ui_vms_seed(struct ui_vms *vs, const int32_t *pids, size_t n);
/* Looks up the tids of t's keys it has not seen yet (/proc/TID/status, once per tid). */
void ui_vms_learn(struct ui_vms *vs, const struct stats_table *t);
/* Marks gone threads and VMs; calls gone() for each thread found gone (twice: late events). */
void ui_vms_reap(struct ui_vms *vs, void (*gone)(void *arg, int32_t tid), void *arg);
const struct ui_thread *ui_vms_thread(const struct ui_vms *vs, int32_t tid);
const struct ui_vm *ui_vms_vm(const struct ui_vms *vs, int32_t pid);
/* The VM name of a process (QEMU -name, else comm), interned; NULL when it is gone. */
const char *ui_vm_name(int32_t pid);
/* QEMU's -name argument value -> the guest name ("guest=a,,b,debug-threads=on" -> "a,b"). */
void ui_vm_parse_qemu_name(const char *arg, char *out, size_t len);

/* ------------------------------------------------------------------------ */
/* model.c: rows as the screen, --once and --log show them */

enum ui_sort { UI_SORT_TOTAL, UI_SORT_RATE, UI_SORT_AVG, UI_SORT_MAX, UI_SORT_TIME, UI_NSORT };
enum ui_mode { UI_MODE_REASONS, UI_MODE_VMS, UI_MODE_DRILL };

struct ui_filter {
	regex_t re;
	bool has_re;
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
	bool show_zero;
	bool buckets; /* rows are timing buckets: no table of names for show_zero */
	bool paused;
	bool help;
	size_t sel, top; /* selected row, first row on screen */
	struct ui_filter f;
	double delay;
	int prompt; /* the key whose prompt is open, 0: none */
	char input[128];
	size_t ninput;
	char msg[160]; /* one line under the header until the next key */
};

struct ui_row {
	char label[96];
	struct stats_key key;
	int32_t pid;	/* VM rows: the VMM */
	uint64_t total; /* exits: timed + untimed */
	uint64_t timed;
	double pct_total, rate; /* % of all exits shown; exits/s in the last interval */
	double avg, p99, max;	/* handling time, ns; NAN when none was timed */
	double sum;		/* handling time, ns */
	double pct_time;	/* % of exit handling + guest time */
};

struct ui_view {
	int src;	     /* UI_EXITS / UI_UEXITS */
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
};

/* From l->total (since start) and l->last (rates), as st says (sort, mode, filters). */
void ui_model_build(struct ui_view *v, const struct ui_live *l, const struct ui_vms *vs,
		    const struct ui_state *st, const struct exit_types *types);
void ui_view_free(struct ui_view *v);
const char *ui_sort_name(enum ui_sort s);
/* Sets the regex filter; "" clears. 0, or -1 with the reason in msg. */
int ui_filter_set_re(struct ui_filter *f, const char *text, char *msg, size_t len);
/* "4101,4202" -> pid filter; "" clears. 0 or -1. */
int ui_filter_set_pids(struct ui_filter *f, const char *text, char *msg, size_t len);
void ui_filter_free(struct ui_filter *f);
/* Is the reason name shown under the regex filter? */
bool ui_filter_name(const struct ui_filter *f, const char *name);

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
	UI_A_DELAY,
	UI_A_REFRESH,
};

/* What the loop does after a key (htop's Htop_Reaction). */
enum {
	UI_R_REDRAW = 1 << 0,  /* draw the current view again */
	UI_R_REBUILD = 1 << 1, /* build the view again from the aggregates */
	UI_R_TICK = 1 << 2,    /* end the interval now */
	UI_R_RESET = 1 << 3,   /* zero the counters */
	UI_R_QUIT = 1 << 4,
};

struct ui_key_help {
	const char *keys, *what;
};

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
/* table.c: drawing */

struct ui_header {
	const char *host;
	const char *machine; /* uname -m, the ISA shown for userspace exits */
	const char *traced;  /* "pids 4101,4202", "guest vm1", "all processes" */
	const char *buckets; /* the timing-bucket map's name, or NULL */
	bool targets_gone;   /* every traced process has exited */
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
int ui_log_interval(struct ui_log *lg, const struct ui_live *l, const struct exit_types *types);
/* After SIGHUP: reopen the file (log rotation). 0 or -1 with errbuf. */
int ui_log_reopen(struct ui_log *lg, char *errbuf, size_t errlen);
void ui_log_free(struct ui_log *lg);

/* ------------------------------------------------------------------------ */
/* top.c, loop.c: one run of top */

struct ui_top {
	const struct ui_top_opts *o;
	struct ui_live *live;
	struct ui_vms vms;
	struct ui_header hdr;
	double t_last; /* when the running interval started (CLOCK_MONOTONIC, s) */
};

double ui_now(void);
/* How long to wait for the collector: until deadline, at most one tick (100 ms). */
int ui_wait_ms(double deadline);
/* With -p: every traced process has exited. */
bool ui_top_targets_gone(const struct ui_top *t);
/* Waits for and aggregates events, learns the new threads. 0 or -1. */
int ui_top_poll(struct ui_top *t, int timeout_ms);
/* The refresh tick (see top.c). 0 or -1. */
int ui_top_tick(struct ui_top *t);
/* The curses view until q or a stop signal. 0 or -1 after err(). */
int ui_screen_run(struct ui_top *t);

#endif
