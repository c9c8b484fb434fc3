// SPDX-License-Identifier: GPL-2.0
/*
 * The anatomy clock of a vCPU thread: which part (stats.h, enum stats_part)
 * each nanosecond of its time goes to, by what it was doing then:
 *
 *   off its CPU, preempted (switched out in state R) or woken and waiting
 *   for it (sched_wakeup until switched in)               -> runnable
 *   off its CPU, asleep: in the VMM                        -> vmm
 *                        anywhere else (a halt, a lock)    -> blocked
 *   on its CPU, in a hard interrupt handler                -> irq
 *              in a softirq (and no hard handler)          -> softirq
 *              between a userspace exit and KVM_RUN        -> vmm
 *              otherwise, in KVM                           -> handling
 *              ... of which, inside a halt (kvm_vcpu_wakeup's window:
 *              its ns before it), the part it polled       -> polled
 *
 * The clock adds every stretch between two events to exactly one part
 * (cum[]), so an interval's parts, cum[] at its end minus cum[] at its start,
 * add up to its length exactly: the test asserts it on every interval.
 *
 * The kernel's pid filter (set_event_pid) keeps a sched_switch when either
 * task is traced, a sched_wakeup when the woken task or the waker is, and
 * every other event only while a traced task holds the CPU
 * (event_filter_pid_sched_switch_probe_pre/post, ..._wakeup_probe_pre/post
 * in kernel/trace/trace_events.c). So the vCPU thread's own switches and
 * wake-ups are all there, and the interrupt events are those that
 * interrupted a traced thread: a handler's entry and exit carry its pid.
 * What ran on the CPU meanwhile is not traced, and need not be: while the
 * thread is off its CPU, its time is runnable or asleep, whoever ran.
 *
 * Lost events are never guessed across: an event that contradicts the
 * clock (switched in while running, a handler's exit with no entry, a KVM
 * event while switched out, a clock that goes back) breaks the open
 * intervals, which are then counted unsplit; pair_lost() breaks them all.
 */
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "event.h"
#include "pair-local.h"

enum { RUN_UNKNOWN, RUN_ON, RUN_PREEMPTED, RUN_ASLEEP, RUN_WOKEN };

/* Nested handlers deeper than this are a broken trace, not a kernel. */
#define ANAT_MAX_DEPTH 15
/* State changes remembered for a halt's window (anat_halt()); more in one halt: unsplit. */
#define ANAT_MARKS 32

struct anat_iv {
	bool open, broken;
	uint64_t start;
	uint64_t snap[STATS_NPARTS]; /* cum[] at its start */
	struct stats_who who[STATS_SPLIT_WHO + 1];
	uint16_t halts, slept;
};

/* Where the handling count stood at ts, and whether it counted on from there. */
struct mark {
	uint64_t ts, handling;
	bool on;
};

struct anat {
	uint8_t run;
	bool vmm;
	uint8_t irq, soft; /* nesting of handlers interrupting it */
	bool started;
	uint64_t since; /* cum[] holds everything up to here */
	uint64_t cum[STATS_NPARTS];
	/* the runnable stretch: since when, and who holds the CPU (NULL: not known yet) */
	uint64_t seg;
	const char *who;
	int32_t who_pid;
	struct mark mark[ANAT_MARKS];
	unsigned nmark, head; /* head: the next slot */
	struct anat_iv iv[2];
	struct stats_split done[2];
};

struct anat *anat_new(void)
{
	return xcalloc(1, sizeof(struct anat));
}

void anat_free(struct anat *a)
{
	free(a);
}

static enum stats_part part_now(const struct anat *a)
{
	switch (a->run) {
	case RUN_PREEMPTED:
	case RUN_WOKEN:
		return STATS_PART_RUNNABLE;
	case RUN_ASLEEP:
		/* a VMM that sleeps (a nanosleep, a read) is the VMM's time */
		return a->vmm ? STATS_PART_VMM : STATS_PART_BLOCKED;
	default:
		break;
	}
	if (a->irq)
		return STATS_PART_IRQ;
	if (a->soft)
		return STATS_PART_SOFTIRQ;
	return a->vmm ? STATS_PART_VMM : STATS_PART_HANDLING;
}

static void break_open(struct anat *a)
{
	for (int i = 0; i < 2; i++)
		if (a->iv[i].open)
			a->iv[i].broken = true;
}

/* A state change at ts: where handling stood, for a halt's window. */
static void mark(struct anat *a, uint64_t ts)
{
	a->mark[a->head] = (struct mark){ts, a->cum[STATS_PART_HANDLING],
					 part_now(a) == STATS_PART_HANDLING};
	a->head = (a->head + 1) % ANAT_MARKS;
	if (a->nmark < ANAT_MARKS)
		a->nmark++;
}

static void marks_reset(struct anat *a, uint64_t ts)
{
	a->nmark = a->head = 0;
	mark(a, ts);
}

/* The clock up to ts, in the part of the state it was in; false when ts went back. */
static bool advance(struct anat *a, uint64_t ts)
{
	if (!a->started) {
		a->started = true;
		a->since = ts;
		marks_reset(a, ts);
		return true;
	}
	if (ts < a->since) {
		/* the clock went back (a wrap, a pasted trace): nothing open can be split */
		break_open(a);
		a->since = ts;
		marks_reset(a, ts);
		return false;
	}
	a->cum[part_now(a)] += ts - a->since;
	a->since = ts;
	return true;
}

/* ns of runnable time in the open intervals to who; the longest kept first. */
static void credit(struct anat *a, uint64_t from, uint64_t to, const char *comm, int32_t pid)
{
	for (int i = 0; i < 2; i++) {
		struct anat_iv *iv = &a->iv[i];
		uint64_t lo = from > iv->start ? from : iv->start;
		int k = 0;

		if (!iv->open || !comm || to <= lo)
			continue;
		while (k < STATS_SPLIT_WHO && iv->who[k].comm &&
		       (iv->who[k].comm != comm || iv->who[k].pid != pid))
			k++;
		if (k == STATS_SPLIT_WHO)
			k = STATS_SPLIT_WHO; /* the spare slot: compared below, then dropped */
		if (!iv->who[k].comm || k == STATS_SPLIT_WHO)
			iv->who[k] = (struct stats_who){comm, pid, 0};
		iv->who[k].ns += to - lo;
		/* bubble it up to its place: a few entries */
		for (; k > 0 && iv->who[k].ns > iv->who[k - 1].ns; k--) {
			struct stats_who t = iv->who[k];

			iv->who[k] = iv->who[k - 1];
			iv->who[k - 1] = t;
		}
		iv->who[STATS_SPLIT_WHO] = (struct stats_who){0};
	}
}

void anat_kvm(struct anat *a, uint64_t ts)
{
	bool known = a->run != RUN_UNKNOWN;

	advance(a, ts);
	if (a->run == RUN_ON && !a->irq && !a->soft)
		return;
	if (known)
		break_open(a); /* it runs, outside any handler: what the clock said was wrong */
	a->run = RUN_ON;
	a->irq = a->soft = 0;
	mark(a, ts);
}

void anat_open(struct anat *a, int which, uint64_t ts)
{
	struct anat_iv *iv = &a->iv[which];

	*iv = (struct anat_iv){.open = true, .start = ts};
	memcpy(iv->snap, a->cum, sizeof(iv->snap));
	if (which == ANAT_X)
		a->vmm = false; /* a guest exit: whatever the VMM did is over */
}

void anat_close(struct anat *a, int which, uint64_t ts)
{
	struct anat_iv *iv = &a->iv[which];
	struct stats_split *s = &a->done[which];
	uint64_t sum = 0;

	*s = (struct stats_split){.halts = iv->halts, .slept = iv->slept};
	if (iv->open && !iv->broken && ts >= iv->start) {
		for (int p = 0; p < STATS_NPARTS; p++)
			sum += s->ns[p] = a->cum[p] - iv->snap[p];
		memcpy(s->who, iv->who, sizeof(s->who));
		/* the parts are the clock's between its ends: they add up, or it is not split */
		s->split = sum == ts - iv->start;
	}
	if (!s->split) {
		memset(s->ns, 0, sizeof(s->ns));
		memset(s->who, 0, sizeof(s->who));
	}
	iv->open = false;
	if (which == ANAT_U)
		a->vmm = false;
}

const struct stats_split *anat_done(const struct anat *a, int which)
{
	return &a->done[which];
}

void anat_vmm(struct anat *a, bool on)
{
	a->vmm = on;
	mark(a, a->since);
}

/*
 * Handling time since ts, by the marks: the newest mark at or before ts,
 * and the count from there. false when the marks do not reach back to ts.
 */
static bool handling_since(const struct anat *a, uint64_t ts, uint64_t *ns)
{
	for (unsigned i = 0; i < a->nmark; i++) {
		const struct mark *m = &a->mark[(a->head + ANAT_MARKS - 1 - i) % ANAT_MARKS];

		if (m->ts > ts)
			continue;
		*ns = a->cum[STATS_PART_HANDLING] - m->handling - (m->on ? ts - m->ts : 0);
		return true;
	}
	return false;
}

/*
 * kvm_vcpu_halt() traces kvm_vcpu_wakeup when the halt ends: ns is the
 * whole halt, polling, sleep and the wait to run again (virt/kvm/kvm_main.c).
 * The on-CPU handling time of that window was polling; the sleep and the
 * wait are the clock's already (blocked, runnable). A window reaching back
 * before an open interval's start is cut there, so no interval loses time
 * it did not have.
 */
void anat_halt(struct anat *a, uint64_t ts, uint64_t ns, bool waited)
{
	uint64_t from = ns < ts ? ts - ns : 0, moved;

	for (int i = 0; i < 2; i++) {
		if (!a->iv[i].open)
			continue;
		if (a->iv[i].start > from)
			from = a->iv[i].start;
		a->iv[i].halts++;
		a->iv[i].slept += waited;
	}
	if (!handling_since(a, from, &moved)) {
		break_open(a);
		return;
	}
	a->cum[STATS_PART_HANDLING] -= moved;
	a->cum[STATS_PART_POLLED] += moved;
	marks_reset(a, ts); /* the marks' handling counts are stale now */
}

void anat_switch_out(struct anat *a, uint64_t ts, uint64_t state, const char *comm, int32_t pid)
{
	advance(a, ts);
	if (a->run != RUN_ON || a->irq || a->soft)
		break_open(a); /* out while out, or from inside a handler */
	a->irq = a->soft = 0;
	a->run = (state & KES_STATE_SLEEP_MASK) ? RUN_ASLEEP : RUN_PREEMPTED;
	a->seg = ts;
	a->who = comm;
	a->who_pid = pid;
	mark(a, ts);
}

void anat_switch_in(struct anat *a, uint64_t ts, const char *comm, int32_t pid)
{
	advance(a, ts);
	switch (a->run) {
	case RUN_PREEMPTED:
		credit(a, a->seg, ts, a->who, a->who_pid); /* who preempted it */
		break;
	case RUN_WOKEN:
		/* who ran until it could; the idle task (pid 0) is a wake-up's latency, no one's */
		if (pid > 0)
			credit(a, a->seg, ts, comm, pid);
		break;
	case RUN_ASLEEP:
		break; /* its wake-up was not traced: the whole stretch counted asleep */
	default:
		break_open(a); /* in while in: its switch out was lost */
		break;
	}
	a->run = RUN_ON;
	a->irq = a->soft = 0;
	mark(a, ts);
}

void anat_wakeup(struct anat *a, uint64_t ts)
{
	if (a->run != RUN_ASLEEP)
		return; /* woken before it slept, or runnable already: nothing changes */
	advance(a, ts);
	a->run = RUN_WOKEN;
	a->seg = ts;
	mark(a, ts);
}

void anat_irq(struct anat *a, uint64_t ts, bool soft, bool entry)
{
	uint8_t *depth = soft ? &a->soft : &a->irq;

	advance(a, ts);
	if (a->run != RUN_ON) {
		if (a->run != RUN_UNKNOWN)
			break_open(a); /* a handler interrupting it while it was off its CPU */
		a->run = RUN_ON;
	}
	if (entry && *depth < ANAT_MAX_DEPTH) {
		++*depth;
	} else if (!entry && *depth) {
		--*depth;
	} else {
		break_open(a); /* an exit whose entry was lost, or a nest beyond any kernel's */
		*depth = 0;
	}
	mark(a, ts);
}

void anat_lost(struct anat *a)
{
	break_open(a);
	a->run = RUN_UNKNOWN;
	a->irq = a->soft = 0;
	a->vmm = false;
}
