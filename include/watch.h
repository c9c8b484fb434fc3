/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watch/: the live pipeline top and serve both watch: the tracefs collector
 * (live.h) -> per-CPU page queues -> the feed (feed.h) -> interval tables
 * (watch.c), and which VM each vCPU thread belongs to (watch-vms.c).
 */
#ifndef KES_WATCH_H
#define KES_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include "bucket-map.h"
#include "exit-types.h"
#include "engine.h"
#include "feed.h"
#include "stats.h"

/* ------------------------------------------------------------------------ */
/* watch.c: the collector and the aggregates */

/*
 * The tables: exits of both sources (serve walks these), then the
 * all-events view's counts (top only): every kvm:* record by event name and
 * thread, in stats_acc.untimed (a count with no time).
 */
enum { WATCH_EXITS, WATCH_UEXITS, WATCH_NSRC, WATCH_EVENTS = WATCH_NSRC, WATCH_NTABLES };

struct watch {
	struct live *c;
	struct tep_handle *tep;
	struct decoder *d;
	struct engine *en;	    /* the one event path (engine.h) */
	struct feed *feed;	    /* en's */
	struct feed_queue **queues; /* per CPU: the pages of a poll, copied */
	int ncpus;
	struct feed_counts seen; /* the feed's counts at the last poll */
	/* [WATCH_EXITS]: kvm_exit pairs; [WATCH_UEXITS]: userspace exits. Keys: reason, tid, vcpu, sub.
	 * [WATCH_EVENTS]: kvm:* records by event name and tid (with all_events). */
	struct stats_table *cur[WATCH_NTABLES];   /* the running interval; the pair writes here */
	struct stats_table *last[WATCH_NTABLES];  /* the interval that ended at the last tick */
	struct stats_table *total[WATCH_NTABLES]; /* since start or the last reset */
	double last_dt;			    /* seconds the last interval lasted */
	uint64_t events_cur, events_last;   /* raw events read */
	uint64_t events_total;
	uint64_t lost, lost_base; /* the instance's overrun + dropped; base: at reset */
	uint64_t gaps;		  /* pages that said events were lost before them */
	const char *isa;	  /* table of the kvm_exit events seen, or NULL */
	bool has_kvm_exit;	  /* this kernel has kvm:kvm_exit */
	/* --slower-than: the latest exits over it, per source (the pair adds them); NULL: off */
	struct stats_outliers *slow[WATCH_NSRC];
	uint64_t slower_ns;
	/* all_events (NULL: off): the interned name of each counted event by its common_type id */
	const char **evname;
	int maxid;
	const char **evnames; /* the counted events, by name (columns of --log) */
	size_t nevnames;
	uint32_t type_off, pid_off; /* common_type, common_pid in a record */
	/* --anatomy (NULL: off): each source's split exits, as cur/last/total above */
	struct stats_anatomy *an_cur[WATCH_NSRC], *an_last[WATCH_NSRC], *an_total[WATCH_NSRC];
	/* --in-kernel (watch-inkernel.c): the kernel's hists instead of the events; NULL: off */
	struct watch_ik *ik;
	uint64_t ik_dropped; /* hist entries the kernel had no room for */
	uint64_t ik_exits;   /* exits the kernel counted, since the start */
};

/* --slower-than: how many of the latest are kept (per source); past that in one poll, a count. */
#define WATCH_SLOW_KEEP 256

struct watch_opts {
	const int32_t *pids; /* NULL: every process */
	size_t npids;
	unsigned buffer_kb;
	const struct exit_types *types;
	struct bucket_map *buckets; /* NULL: rows are exit reasons */
	uint64_t slower_ns;	    /* keep the exits slower than this (0: none): the latest WATCH_SLOW_KEEP */
	bool all_events;	    /* count every kvm:* tracepoint from the start */
	/*
	 * Key exits by detail sub-key too (top's drill-down). Without it,
	 * buckets or slower_ns, no detail event is traced at all.
	 */
	bool subkeys;
	/* with subkeys: the sub-key is the guest's pc at the exit (pair_set_by_guest()) */
	bool by_guest;
	/* split each exit into its causes (stats.h, enum stats_part): the sched and irq events too */
	bool anatomy;
	/*
	 * The kernel counts the exits and times them (hist triggers, a
	 * synthetic event: live/khist.c); each poll with timeout 0 reads what
	 * grew. Only the kvm_exit table; p99 and max to a power of two.
	 */
	bool in_kernel;
};

/* Can this kernel do in_kernel (hist triggers, synthetic events)? False with the reason. */
bool watch_in_kernel_ok(char *why, size_t len);
/*
 * The fields of this kernel's kvm:kvm_exit that make its reason, as the
 * exit tables name them (at most 2, the one that tells reasons apart best
 * first): what khist.h keys on. 0 when no table fits the format.
 */
size_t watch_in_kernel_fields(const struct exit_types *types, const char **fields);
/* NULL with a reason in errbuf. */
struct watch *watch_new(const struct watch_opts *o, char *errbuf, size_t errlen);
int watch_start(struct watch *l);
/* Enables and counts every kvm:* tracepoint from now on (the all-events view). 0 or -1. */
int watch_count_all(struct watch *l, char *errbuf, size_t errlen);
/* Waits up to timeout_ms, drains every CPU (partial pages too) and aggregates. 0 or -1. */
int watch_poll(struct watch *l, int timeout_ms);
/* Ends the interval: cur -> last, cur merged into total; dt in seconds. */
void watch_tick(struct watch *l, double dt);
/* The thread exited: its open exit (a VMM's last) is counted now, untimed. */
void watch_thread_gone(struct watch *l, int32_t tid);
/* Counters and totals start again from zero. */
void watch_reset(struct watch *l);
/* kvm_exit pairs seen (since start), userspace exits seen. */
void watch_counts(const struct watch *l, uint64_t *exits, uint64_t *uexits);
void watch_free(struct watch *l);

/* ------------------------------------------------------------------------ */
/* watch-vms.c: which VM (VMM process) a vCPU thread belongs to */

struct watch_thread {
	int32_t tid, tgid; /* tgid -1: the thread was gone before it was looked up */
	const char *comm;  /* interned thread name, or NULL */
	unsigned dead;	   /* ticks since it was found gone; 0: alive */
};

struct watch_vm {
	int32_t pid;
	const char *name;  /* interned: QEMU -name, else comm, else "?" */
	const char *label; /* interned: "name[pid]" */
	bool dead;
};

struct watch_vms {
	struct watch_thread *t; /* sorted by tid */
	size_t nt, ct;
	struct watch_vm *v; /* in order of appearance */
	size_t nv, cv;
	int32_t *pending; /* traced processes with no VM yet (a wrapper about to exec one) */
	size_t npending;
};

void watch_vms_free(struct watch_vms *vs);
/* The traced processes and the threads they have now (a short run may end before a tick). */
void watch_vms_seed(struct watch_vms *vs, const int32_t *pids, size_t n);
/*
 * Looks up the tids of t's keys it has not seen yet (/proc/TID/status, once
 * per tid), and whether a pending process has made its VM by now.
 */
void watch_vms_learn(struct watch_vms *vs, const struct stats_table *t);
/* Marks gone threads and VMs; calls gone() for each thread found gone (twice: late events). */
void watch_vms_reap(struct watch_vms *vs, void (*gone)(void *arg, int32_t tid), void *arg);
const struct watch_thread *watch_vms_thread(const struct watch_vms *vs, int32_t tid);
const struct watch_vm *watch_vms_vm(const struct watch_vms *vs, int32_t pid);

/*
 * Processes whose VM name is `name`: QEMU's `-name [guest=]NAME` on the
 * command line, else the process name (comm). *pids is malloc'd.
 * Returns how many (0: none), or -1.
 */
int watch_vm_find(const char *name, int32_t **pids, size_t *n);

#endif
