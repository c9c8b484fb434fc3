// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread exit/entry pairing. Detail events (kvm_mmio, kvm_pio, ...) give
 * the open exit its sub-key. Where they fall differs by machine: after
 * kvm_exit and before kvm_entry for the exit/entry machine, but *before*
 * kvm_userspace_exit (the kernel handles the exit, then returns to the VMM)
 * for the userspace machine, so each machine keeps its own slot.
 *
 * On the userspace path a run of the guest (KVM_RUN to the exit) may hold
 * details of accesses the kernel handled itself (a PIO it emulates, a
 * coalesced VGA write) before the one that made the exit, which the kernel
 * traces last; and some kernels trace an IN (or an MMIO read) only when the
 * VMM has answered, after KVM_RUN is entered again. So the sub-key of a
 * userspace exit is that of the last detail of the kind that explains it
 * (ev->detail: exit_types' `explain`, KVM_EXIT_IO <- pio), else of the first
 * one of that kind after the re-entry: the exit's sample then waits for it
 * (or for the next exit, without a sub-key). An exit nothing explains (a
 * halt) has no sub-key.
 *
 * A userspace exit can also say what the kvm_exit before it was: one that
 * ends in KVM_EXIT_MMIO was an MMIO access, whatever the hardware called it
 * (powerpc and riscv trace no kvm_mmio; exit_types/userspace.types,
 * `detail`). Its kvm_exit is the thread's open one (kvm_entry follows the
 * VMM's next KVM_RUN), or the one an entry event just closed: book3s PR
 * traces kvm_book3s_reenter at the end of every in-kernel handling, also
 * when it returns to the VMM, so there the userspace exit comes after the
 * "entry". So the x machine counts a handled exit only at the thread's next
 * exit or userspace exit (or at its end), and a userspace exit in between
 * still adds its detail to it.
 */
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "intern.h"
#include "pair.h"
#include "pair-local.h"
#include "tidhash.h"

/*
 * The steps of one event, inline in pair_event(): as calls they cost a
 * prologue each, ten per exit (callgrind, report of the pinned 1 M-event
 * recording: 219.8 -> 197.7 M instructions, with decoder.c's exit_fields()
 * and exit_name() of the same step).
 */
#define PAIR_INLINE static inline __attribute__((always_inline))

enum { S_NONE, S_GUEST, S_HOST };

/*
 * In a machine's details mask, past every detail kind's bit: the exit
 * carried the guest's pc (machine.pc). No bucket map reads it: report
 * --by-guest takes no --buckets.
 */
#define PC_BIT (1u << KES_D_PC)

struct machine {
	uint8_t state;
	bool pend;	  /* x machine: a handled exit not yet counted (see the top) */
	uint64_t pend_ns; /* its handling time */
	uint64_t pend_ts; /* its exit's timestamp */
	int32_t vcpu;
	uint64_t ts;
	const char *reason;
	const char *isa;
	struct kes_details d;
	uint64_t pc; /* the guest's pc at the exit when d.mask has PC_BIT (by_guest's key) */
	/* userspace path: the last sub-key of each detail kind since KVM_RUN */
	uint32_t seen;
	uint64_t last_sub[KES_D_MAX];
	uint16_t want_after; /* the open exit's sub-key may come after the re-entry: its kind */
};

/* A timed userspace exit waiting for its sub-key from after the re-entry. */
struct pending {
	bool on;
	uint16_t kind;
	uint64_t ns;
	struct machine m; /* the exit as it was at the re-entry */
};

/* pair->on_cpu's size */
#define PAIR_CPU_CACHE 64

/* A row's accumulator, kept while its key and the table's epoch stay the same. */
struct acc_cache {
	const char *name;
	int32_t vcpu;
	bool has_sub;
	uint64_t sub;
	uint64_t epoch;
	struct stats_acc *acc;
};

struct thread {
	int32_t tid; /* 0 marks a free slot: the idle task makes no exits */
	/* [0] the exits table, [1] the userspace one: the exit row, TIMEINGUEST */
	struct acc_cache exit_c[2], tig_c[2];
	uint64_t last_ts;
	struct machine x; /* kvm_exit / kvm_entry */
	struct machine u; /* kvm_userspace_exit / KVM_RUN */
	struct pending up;
	struct anat *an; /* --anatomy: the thread's clock (anatomy.c), else NULL */
};

struct pair {
	struct stats_table *exits, *uexits;
	const uint64_t *epoch[2]; /* stats_table_epoch() of exits, uexits */
	bool with_sub;
	bool by_guest; /* the sub-key is the guest's pc (pair_opts.by_guest) */
	struct thread *threads;
	size_t nslots, used;
	struct pair_counts n;
	const char *tig;
	struct stats_outliers *out[2]; /* [0] kvm_exit, [1] userspace exits; NULL: none kept */
	pair_namer_fn namer;
	void *namer_arg;
	/* a view reads detail events' fields (sub-keys, buckets, outliers): see pair_new() */
	bool details;
	struct thread *last; /* the thread of the last event: events come in runs of one thread */
	/*
	 * The thread of each CPU's last event (by cpu % PAIR_CPU_CACHE): two
	 * vCPUs busy on two CPUs alternate in the one order, and each miss of
	 * last was a hash lookup (half the events of such a trace).
	 */
	struct thread *on_cpu[PAIR_CPU_CACHE];
	void (*thread_hook)(void *arg, int32_t tid);
	void *thread_hook_arg;
	/* --anatomy: each timed exit's split to these ([0] kvm_exit, [1] userspace), else NULL */
	struct stats_anatomy *an[2];
	bool anatomy;
	struct stats_nested *nested; /* report --nested: each kvm_exit's nesting, else NULL */
	bool hooked; /* anatomy or nested: one test per timed exit for both (hooks()) */
};

bool pair_reads_details(const struct pair *p)
{
	return p->details;
}

struct pair *pair_new(const struct pair_opts *o)
{
	struct pair *p = xcalloc(1, sizeof(*p));

	p->exits = o->exits;
	p->uexits = o->uexits;
	p->epoch[0] = stats_table_epoch(o->exits);
	p->epoch[1] = stats_table_epoch(o->uexits);
	p->with_sub = o->with_sub;
	p->by_guest = o->by_guest;
	p->nested = o->nested;
	p->namer = o->namer;
	p->namer_arg = o->namer_arg;
	p->out[0] = o->outliers[0];
	p->out[1] = o->outliers[1];
	p->an[0] = o->anatomy[0];
	p->an[1] = o->anatomy[1];
	p->anatomy = o->anatomy[0] || o->anatomy[1];
	p->thread_hook = o->thread_hook;
	p->thread_hook_arg = o->thread_hook_arg;
	/* the anatomy reads kvm_vcpu_wakeup, and each event's place on its thread's clock */
	p->details = p->with_sub || p->by_guest || p->namer || p->out[0] || p->out[1] ||
		     p->anatomy || p->nested;
	p->hooked = p->anatomy || p->nested;
	/*
	 * Grown as threads come (threads_grow()). A slot is 1 KB: 64 of them
	 * touched 17 pages at once (a small report: 465 -> 440 page faults).
	 */
	p->nslots = 16;
	p->threads = xcalloc(p->nslots, sizeof(*p->threads));
	p->tig = intern(KES_TIMEINGUEST);
	return p;
}

void pair_free(struct pair *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nslots; i++)
		anat_free(p->threads[i].an);
	free(p->threads);
	free(p);
}

TIDHASH_DEFINE(threads, struct thread)

/* thread_of() past its one-entry cache: the hash, and a new slot when it is a new thread. */
static __attribute__((noinline)) struct thread *thread_find(struct pair *p, int32_t tid)
{
	struct thread *t = threads_slot(p->threads, p->nslots, tid);

	if (t->tid)
		return p->last = t;
	if (threads_grow(&p->threads, &p->nslots, p->used)) {
		memset(p->on_cpu, 0, sizeof(p->on_cpu)); /* they pointed into old */
		t = threads_slot(p->threads, p->nslots, tid);
	}
	*t = (struct thread){.tid = tid};
	t->x.vcpu = t->u.vcpu = -1;
	if (p->anatomy)
		t->an = anat_new();
	p->used++;
	if (p->thread_hook)
		p->thread_hook(p->thread_hook_arg, tid);
	return p->last = t;
}

/* The thread when one of the caches (the last event's, c: its CPU's) holds it, else NULL. */
static inline struct thread *thread_cached(struct pair *p, int32_t tid, struct thread *const *c)
{
	if (p->last && p->last->tid == tid)
		return p->last;
	if (*c && (*c)->tid == tid)
		return p->last = *c;
	return NULL;
}

static inline struct thread *thread_of(struct pair *p, int32_t tid, int32_t cpu)
{
	struct thread **c = &p->on_cpu[(uint32_t)cpu % PAIR_CPU_CACHE];
	struct thread *t = thread_cached(p, tid, c);

	return t ? t : (*c = thread_find(p, tid));
}

/* Forget an exit's details. value[] stays: mask says none of it is valid. */
static void details_clear(struct kes_details *d)
{
	d->mask = d->flags = 0;
	d->has_sub = false;
}

/* The row an open exit is counted in. */
PAIR_INLINE struct stats_key exit_key(const struct pair *p, int32_t tid, const struct machine *m)
{
	struct stats_key k = {.name = m->reason, .tid = tid, .vcpu = m->vcpu};

	if (p->namer)
		k.name = p->namer(p->namer_arg, m->isa, m->reason, &m->d);
	if (!p->with_sub) /* by_guest comes with it: a plain report tests one flag */
		return k;
	if (p->by_guest) {
		k.sub = m->pc;
		k.has_sub = (m->d.mask & PC_BIT) != 0;
	} else if (m->d.has_sub) {
		k.sub = m->d.sub;
		k.has_sub = true;
	}
	return k;
}

/* The accumulator an open exit is counted in; a sub-key row learns what its sub-key is. */
/*
 * stats_table_get() without its hash while the thread's row stays the same
 * (the common case: a vCPU makes one exit over and over, to the same port or
 * address). A sub-key past the table's cap is not cached: each exit counted
 * in its "other" row must reach stats_table_get(), which counts it folded.
 */
PAIR_INLINE struct stats_acc *row_acc(struct acc_cache *c, struct stats_table *tab,
				      const uint64_t *epoch, const struct stats_key *k)
{
	uint64_t folded;

	if (c->acc && c->name == k->name && c->vcpu == k->vcpu && c->has_sub == k->has_sub &&
	    (!k->has_sub || c->sub == k->sub) && c->epoch == *epoch)
		return c->acc;
	folded = stats_table_folded(tab);
	c->acc = stats_table_get(tab, k);
	c->name = k->name;
	c->vcpu = k->vcpu;
	c->has_sub = k->has_sub;
	c->sub = k->sub;
	c->epoch = *epoch;
	if (stats_table_folded(tab) != folded) {
		struct stats_acc *a = c->acc;

		c->acc = NULL;
		return a;
	}
	return c->acc;
}

PAIR_INLINE struct stats_acc *exit_acc(struct pair *p, struct stats_table *tab, struct thread *t,
				       const struct machine *m)
{
	struct stats_key k = exit_key(p, t->tid, m);
	bool u = tab == p->uexits;
	struct stats_acc *a = row_acc(&t->exit_c[u], tab, p->epoch[u], &k);

	if (k.has_sub)
		a->sub_kind = (uint8_t)(p->by_guest ? KES_D_PC : m->d.sub_kind);
	return a;
}

/* A timed exit's split (made when its interval closed) to its row of the anatomy. */
static __attribute__((noinline)) void anatomy_add(struct pair *p, struct stats_table *tab,
						  struct thread *t, const struct machine *m)
{
	bool u = tab == p->uexits;
	struct stats_key k = exit_key(p, t->tid, m);

	struct stats_split s;

	if (!p->an[u] || !t->an)
		return;
	s = *anat_done(t->an, u ? ANAT_U : ANAT_X);
	s.sub_kind = k.has_sub ? (uint8_t)m->d.sub_kind : 0;
	stats_anatomy_add(p->an[u], &k, &s);
}

/*
 * One timed exit (m as it was when it was made, ts its timestamp): its
 * sample, and the exit itself to the outliers, with the sub-key it has
 * whether or not the table is keyed by it.
 */
/* What else a timed exit feeds: the anatomy, --nested. Out of line: a plain report has neither. */
static __attribute__((noinline)) void hooks(struct pair *p, struct stats_table *tab,
					    struct thread *t, const struct machine *m, uint64_t ts,
					    uint64_t ns)
{
	if (p->nested && tab == p->exits)
		stats_nested_exit(p->nested, t->tid, m->reason, m->d.mask, ts, ns, true);
	if (p->anatomy)
		anatomy_add(p, tab, t, m);
}

PAIR_INLINE void timed(struct pair *p, struct stats_table *tab, struct thread *t,
		       const struct machine *m, uint64_t ts, uint64_t ns)
{
	struct stats_outliers *o = p->out[tab == p->uexits];
	int32_t tid = t->tid;

	stats_acc_add(exit_acc(p, tab, t, m), ns);
	if (p->hooked)
		hooks(p, tab, t, m, ts, ns);
	if (!o)
		return;
	struct stats_outlier s = {.ns = ns,
				  .ts = ts,
				  .tid = tid,
				  .vcpu = m->vcpu,
				  .name = exit_key(p, tid, m).name,
				  .sub = m->d.has_sub ? m->d.sub : 0,
				  .sub_kind = m->d.has_sub ? (uint8_t)m->d.sub_kind : 0,
				  .has_sub = m->d.has_sub,
				  .halt = (m->d.mask >> KES_D_HALT) & 1};
	if (t->an) {
		s.has_split = true;
		s.split = *anat_done(t->an, tab == p->uexits ? ANAT_U : ANAT_X);
	}
	stats_outliers_add(o, &s);
}

/* The waiting exit's sample, with the sub-key it got after the re-entry or none. */
PAIR_INLINE void commit_pending(struct pair *p, struct thread *t)
{
	if (!t->up.on)
		return;
	timed(p, p->uexits, t, &t->up.m, t->up.m.ts, t->up.ns);
	t->up.on = false;
}

/* At a userspace exit: the sub-key of the last detail of the kind that explains it. */
PAIR_INLINE void explain_uexit(struct machine *m, uint16_t kind)
{
	m->want_after = 0;
	if (kind == KES_D_NONE || kind >= KES_D_MAX) {
		m->d.has_sub = false;
		return;
	}
	if (m->seen & (1u << kind)) {
		m->d.sub = m->last_sub[kind];
		m->d.sub_kind = kind;
		m->d.has_sub = true;
	} else {
		m->d.has_sub = false;
		m->want_after = kind;
	}
}

/* Counts the x machine's handled exit, now that nothing can add to it. */
PAIR_INLINE void flush_exit(struct pair *p, struct thread *t)
{
	struct machine *m = &t->x;

	if (!m->pend)
		return;
	timed(p, p->exits, t, m, m->pend_ts, m->pend_ns);
	m->pend = false;
	details_clear(&m->d);
}

/* A userspace exit's implied detail (no sub-key, no flag) for the kvm_exit it ends. */
PAIR_INLINE void uexit_detail(struct thread *t, const struct kes_event *ev)
{
	if (ev->implies == KES_D_NONE || ev->implies >= KES_D_MAX)
		return;
	if (t->x.state == S_HOST || t->x.pend)
		t->x.d.mask |= 1u << ev->implies;
}

PAIR_INLINE void guest_time(struct pair *p, struct stats_table *tab, struct thread *t,
			    const struct machine *m, uint64_t ns)
{
	struct stats_key k = {.name = p->tig, .tid = t->tid, .vcpu = m->vcpu};
	bool u = tab == p->uexits;

	stats_acc_add(row_acc(&t->tig_c[u], tab, p->epoch[u], &k), ns);
}

static void untimed(struct pair *p, struct stats_table *tab, struct thread *t, struct machine *m)
{
	exit_acc(p, tab, t, m)->untimed++;
	p->n.untimed++;
	if (p->nested && tab == p->exits)
		stats_nested_exit(p->nested, t->tid, m->reason, m->d.mask, m->ts, 0, false);
}

/*
 * The exit's own sub-key (PR's dar): a fault address, so a detail that names
 * what was accessed (kvm_mmio's gpa) still outranks it. The guest's pc
 * (--by-guest): kept beside it, its presence a bit of the details' mask,
 * which every exit clears.
 */
PAIR_INLINE void exit_keys(struct machine *m, const struct kes_event *ev)
{
	if (ev->kind == KES_EXIT && (ev->flags & KES_EXIT_HAS_SUB)) {
		m->d.sub = ev->sub;
		m->d.sub_kind = KES_D_PF;
		m->d.has_sub = true;
	}
	if (ev->flags & KES_EXIT_HAS_PC) {
		m->pc = ev->value;
		m->d.mask |= PC_BIT;
	}
}

/* keep_details: the userspace machine's details came before its exit event. */
PAIR_INLINE void exit_event(struct pair *p, struct stats_table *tab, struct thread *t,
			    struct machine *m, const struct kes_event *ev, bool keep_details)
{
	if (keep_details)
		commit_pending(p, t); /* its sub-key did not come: this is the next exit */
	if (m->state == S_GUEST)
		guest_time(p, tab, t, m, ev->ts - m->ts);
	else if (m->state == S_HOST)
		untimed(p, tab, t, m);
	if (ev->vcpu >= 0)
		m->vcpu = ev->vcpu;
	m->state = S_HOST;
	m->ts = ev->ts;
	m->reason = ev->reason;
	m->isa = ev->isa;
	if (!keep_details)
		details_clear(&m->d);
	else
		explain_uexit(m, ev->detail);
	/* A detail the exit event itself carries (book3s HV ceded=1: a halt). */
	if (ev->kind == KES_EXIT && ev->detail > KES_D_NONE && ev->detail < KES_D_MAX)
		m->d.mask |= 1u << ev->detail;
	/* An exit its table calls a halt (x86 hlt, KVM_EXIT_HLT): no detail event says so. */
	if (ev->flags & KES_EXIT_HALT)
		m->d.mask |= 1u << KES_D_HALT;
	if (ev->flags & (KES_EXIT_HAS_SUB | KES_EXIT_HAS_PC)) /* one test: a plain report has neither */
		exit_keys(m, ev);
}

PAIR_INLINE void entry_event(struct pair *p, struct stats_table *tab, struct thread *t,
			     struct machine *m, const struct kes_event *ev)
{
	if (m->state == S_HOST && m == &t->x) {
		m->pend = true; /* counted by flush_exit(): a userspace exit may follow */
		m->pend_ns = ev->ts - m->ts;
		m->pend_ts = m->ts;
	} else if (m->state == S_HOST && m->want_after && (p->with_sub || p->out[1])) {
		t->up = (struct pending){.on = true, .kind = m->want_after, .ns = ev->ts - m->ts, .m = *m};
	} else if (m->state == S_HOST) {
		timed(p, tab, t, m, m->ts, ev->ts - m->ts);
	}
	if (ev->vcpu >= 0)
		m->vcpu = ev->vcpu;
	m->state = S_GUEST;
	m->ts = ev->ts;
	m->seen = 0;
	m->want_after = 0;
	if (!m->pend)
		details_clear(&m->d);
}

/*
 * How much a detail says about what the guest touched. An emulated `out`
 * shows kvm_emulate_insn (rip) before kvm_pio (port): the port is the key a
 * user wants, so what was accessed outranks how it was reached.
 */
static int sub_rank(unsigned kind)
{
	switch (kind) {
	case KES_D_HALT:
	case KES_D_NESTED_EXIT:
	case KES_D_NESTED_INJECT:
	case KES_D_NESTED_ENTER:
		return 0; /* no sub-key at all */
	case KES_D_PIO:
	case KES_D_MMIO:
	case KES_D_MSR:
	case KES_D_HCALL:
		return 3;
	case KES_D_PF:
		return 2;
	default:
		return 1;
	}
}

/*
 * The best-ranked detail gives the sub-key, the first of each kind its value;
 * every detail adds to the mask that buckets read.
 */
static void add_detail(struct kes_details *d, const struct kes_event *ev)
{
	uint32_t bit = 1u << ev->detail;

	if (!(d->mask & bit)) {
		if (sub_rank(ev->detail) &&
		    (!d->has_sub || sub_rank(ev->detail) > sub_rank(d->sub_kind))) {
			d->sub = ev->sub;
			d->sub_kind = ev->detail;
			d->has_sub = true;
		}
		d->value[ev->detail] = ev->value;
	}
	d->mask |= bit;
	if (ev->flags)
		d->flags |= bit;
}

static void detail_event(struct pair *p, struct thread *t, const struct kes_event *ev)
{
	if (ev->detail >= KES_D_MAX)
		return; /* no decoder makes one; value[] has no room for it */
	if (t->x.state == S_HOST)
		add_detail(&t->x.d, ev);
	if (t->u.state == S_HOST)
		return;
	if (t->up.on && ev->detail == t->up.kind) {
		/* the previous exit's own, traced once the VMM had answered: not the next one's */
		t->up.m.d.sub = ev->sub;
		t->up.m.d.sub_kind = ev->detail;
		t->up.m.d.has_sub = true;
		commit_pending(p, t);
		return;
	}
	add_detail(&t->u.d, ev);
	t->u.seen |= 1u << ev->detail;
	t->u.last_sub[ev->detail] = ev->sub;
}

/*
 * A userspace exit while the thread's previous one is still open: the VMM
 * called KVM_RUN again and it returned before entering the guest (-EINTR:
 * a signal was pending; riscv and arm64 trace no kvm_fpu to mark the call,
 * and no kvm_entry came). The previous exit's handling ended inside that
 * call, so it is timed until this exit: an upper bound by the few
 * microseconds KVM_RUN took to notice the signal. No detail can have come
 * in between (the machine was in the host), and none carries over.
 */
PAIR_INLINE void back_to_back(struct pair *p, struct thread *t, const struct kes_event *ev)
{
	struct machine *m = &t->u;

	commit_pending(p, t);
	if (m->state != S_HOST)
		return;
	timed(p, p->uexits, t, m, m->ts, ev->ts - m->ts);
	m->state = S_NONE;
	details_clear(&m->d);
}

/* An event whose timestamp went back on its thread: pairing across it would invent a duration. */
static __attribute__((noinline)) void backwards(struct pair *p, struct thread *t)
{
	p->n.backwards++;
	commit_pending(p, t);
	flush_exit(p, t);
	t->x.state = t->u.state = S_NONE;
	if (t->an)
		anat_lost(t->an);
}

/*
 * --anatomy, before the machines see a KVM event of the thread: its clock
 * to the event (the thread emitted it, so it runs), and the intervals the
 * event ends, split where they end (the machines count them later).
 */
static __attribute__((noinline)) void anat_before(struct thread *t, const struct kes_event *ev)
{
	anat_kvm(t->an, ev->ts);
	switch (ev->kind) {
	case KES_ENTRY:
		if (t->x.state == S_HOST)
			anat_close(t->an, ANAT_X, ev->ts);
		if (t->u.state == S_HOST)
			anat_close(t->an, ANAT_U, ev->ts);
		break;
	case KES_UEXIT: /* ends an open one: back_to_back() */
	case KES_UENTRY:
		if (t->u.state == S_HOST)
			anat_close(t->an, ANAT_U, ev->ts);
		break;
	case KES_DETAIL:
		if (ev->detail == KES_D_HALT) /* kvm_vcpu_wakeup: sub its ns, value waited */
			anat_halt(t->an, ev->ts, ev->sub, ev->value != 0);
		break;
	default:
		break;
	}
}

/* --anatomy, after the machines: the intervals the event opens. */
static __attribute__((noinline)) void anat_after(struct thread *t, const struct kes_event *ev)
{
	switch (ev->kind) {
	case KES_EXIT:
		anat_open(t->an, ANAT_X, ev->ts);
		break;
	case KES_UEXIT:
		anat_open(t->an, ANAT_U, ev->ts);
		anat_vmm(t->an, true);
		break;
	case KES_UENTRY:
	case KES_ENTRY:
		anat_vmm(t->an, false);
		break;
	default:
		break;
	}
}

/* A thread's clock, when it is one of pair/'s threads (it has made KVM events). */
static struct anat *anat_of(struct pair *p, int32_t tid)
{
	struct thread *t;

	if (tid <= 0)
		return NULL;
	t = threads_slot(p->threads, p->nslots, tid);
	return t->tid ? t->an : NULL;
}

/*
 * A scheduler's or interrupt event: to the clocks of the threads it is
 * about. Threads that never made a KVM event have no interval to split.
 */
static __attribute__((noinline)) void sched_event(struct pair *p, const struct kes_event *ev)
{
	struct anat *a;
	bool soft = ev->detail == KES_S_SOFT_ENTRY || ev->detail == KES_S_SOFT_EXIT;

	switch (ev->detail) {
	case KES_S_SWITCH:
		if ((a = anat_of(p, ev->tid)))
			anat_switch_out(a, ev->ts, ev->value, ev->reason, (int32_t)ev->sub);
		if ((a = anat_of(p, (int32_t)ev->sub)))
			anat_switch_in(a, ev->ts, ev->isa, ev->tid);
		break;
	case KES_S_WAKEUP:
		if ((a = anat_of(p, ev->tid)))
			anat_wakeup(a, ev->ts);
		break;
	case KES_S_IRQ_ENTRY:
	case KES_S_IRQ_EXIT:
	case KES_S_SOFT_ENTRY:
	case KES_S_SOFT_EXIT:
		if ((a = anat_of(p, ev->tid)))
			anat_irq(a, ev->ts, soft,
				 ev->detail == KES_S_IRQ_ENTRY || ev->detail == KES_S_SOFT_ENTRY);
		break;
	default: /* sched_migrate_task: where it runs next shows in its switch in */
		break;
	}
}

/* The machines' work on one event (inline: a call per event cost 192.1 -> 188.0 M instructions). */
PAIR_INLINE void machine_event(struct pair *p, struct thread *t, const struct kes_event *ev)
{
	switch (ev->kind) {
	case KES_EXIT:
		p->n.exits++;
		flush_exit(p, t);
		/*
		 * A guest exit while a userspace exit is open: the guest ran, so
		 * KVM_RUN was called again unseen (book3s PR traces nothing when it
		 * re-enters; its kvm_book3s_reenter came before the userspace
		 * exit). The next entry belongs to this exit, not to the VMM's
		 * return: the userspace exit is counted untimed, as nothing can
		 * time it, and its guest time is unknown.
		 */
		if (t->u.state == S_HOST) {
			untimed(p, p->uexits, t, &t->u);
			t->u.state = S_NONE;
		}
		exit_event(p, p->exits, t, &t->x, ev, false);
		break;
	case KES_ENTRY:
		entry_event(p, p->exits, t, &t->x, ev);
		/*
		 * A guest entry proves the thread called KVM_RUN again: it ends an
		 * open userspace exit where nothing else does (kvm_fpu, which marks
		 * the return on x86 earlier, exists on no other ISA: arm64 and
		 * riscv userspace exits were all counted untimed). Only an open
		 * one: TIMEINGUEST of userspace exits runs across in-kernel exits.
		 */
		if (t->u.state == S_HOST)
			entry_event(p, p->uexits, t, &t->u, ev);
		break;
	case KES_UEXIT:
		p->n.uexits++;
		/* kvm_userspace_exit has no vcpu id: the thread's exits told it. */
		if (ev->vcpu < 0 && t->u.vcpu < 0)
			t->u.vcpu = t->x.vcpu;
		uexit_detail(t, ev);
		flush_exit(p, t);
		back_to_back(p, t, ev);
		exit_event(p, p->uexits, t, &t->u, ev, true);
		break;
	case KES_UENTRY:
		entry_event(p, p->uexits, t, &t->u, ev);
		break;
	case KES_DETAIL:
		detail_event(p, t, ev);
		break;
	}
}

/* The slots are keyed by tid, 0 their "free": such an event is counted, never paired. */
static void threadless(struct pair *p, const struct kes_event *ev)
{
	p->n.threadless++;
	p->n.threadless_exits += ev->kind == KES_EXIT || ev->kind == KES_UEXIT;
}

/*
 * --anatomy's way through: the scheduler's events to the clocks, a KVM event
 * to its thread's clock around the machines. Apart from pair_event()'s own
 * path, which without the view is what it was (one test of p->anatomy).
 */
static __attribute__((noinline)) void anatomy_event(struct pair *p, const struct kes_event *ev)
{
	struct thread *t;

	if (ev->kind == KES_SCHED) {
		sched_event(p, ev);
		return;
	}
	if (ev->tid <= 0) {
		threadless(p, ev);
		return;
	}
	t = thread_of(p, ev->tid, ev->cpu);
	if (ev->ts < t->last_ts) {
		backwards(p, t);
		return;
	}
	t->last_ts = ev->ts;
	anat_before(t, ev);
	machine_event(p, t, ev);
	anat_after(t, ev);
}

/*
 * The common entry: kvm_entry on a thread one of thread_of()'s caches holds,
 * in time, with no userspace exit open. Its whole work (entry_event() on the
 * x machine) makes no call, so pair_event() takes it without the prologue
 * the rest of the machines need (six registers saved and a frame, 17
 * instructions: report of the bench's 1 M-event recording, 273.9 -> 268.6 M).
 * false: not such an entry, nothing done.
 */
PAIR_INLINE bool entry_fast(struct pair *p, const struct kes_event *ev)
{
	struct thread *t;

	if (ev->kind != KES_ENTRY || p->anatomy ||
	    !(t = thread_cached(p, ev->tid, &p->on_cpu[(uint32_t)ev->cpu % PAIR_CPU_CACHE])))
		return false;
	if (ev->ts < t->last_ts || t->u.state == S_HOST)
		return false;
	t->last_ts = ev->ts;
	entry_event(p, p->exits, t, &t->x, ev);
	return true;
}

static __attribute__((noinline)) void pair_event_slow(struct pair *p, const struct kes_event *ev);

void pair_event(struct pair *p, const struct kes_event *ev)
{
	if (!entry_fast(p, ev))
		pair_event_slow(p, ev);
}

/* Every other event: pair_event()'s way when entry_fast() did not take it. */
static __attribute__((noinline)) void pair_event_slow(struct pair *p, const struct kes_event *ev)
{
	if (__builtin_expect(p->anatomy, 0)) {
		anatomy_event(p, ev);
		return;
	}
	if (ev->tid <= 0) {
		threadless(p, ev);
		return;
	}
	struct thread *t = thread_of(p, ev->tid, ev->cpu);
	if (ev->ts < t->last_ts) {
		backwards(p, t);
		return;
	}
	t->last_ts = ev->ts;
	/* A detail no view reads (p->details): its place in time was all it had to give. */
	if (ev->kind != KES_DETAIL || p->details)
		machine_event(p, t, ev);
}

/* The thread's open exits end here: the waiting and handled ones counted, the rest untimed. */
static void close_thread(struct pair *p, struct thread *t)
{
	commit_pending(p, t);
	flush_exit(p, t);
	if (t->x.state == S_HOST)
		untimed(p, p->exits, t, &t->x);
	if (t->u.state == S_HOST)
		untimed(p, p->uexits, t, &t->u);
	t->x.state = t->u.state = S_NONE;
	details_clear(&t->x.d);
	details_clear(&t->u.d);
}

static void close_open(struct pair *p)
{
	for (size_t i = 0; i < p->nslots; i++)
		if (p->threads[i].tid) {
			close_thread(p, &p->threads[i]);
			if (p->threads[i].an)
				anat_lost(p->threads[i].an); /* nothing is known of it any more */
		}
}

void pair_lost(struct pair *p)
{
	close_open(p);
}

void pair_end_thread(struct pair *p, int32_t tid)
{
	struct thread *t;

	if (tid <= 0)
		return;
	t = threads_slot(p->threads, p->nslots, tid);
	if (t->tid)
		close_thread(p, t);
}

void pair_segment(struct pair *p)
{
	close_open(p);
	for (size_t i = 0; i < p->nslots; i++)
		p->threads[i].last_ts = 0;
}

void pair_finish(struct pair *p)
{
	close_open(p);
}

void pair_get_counts(const struct pair *p, struct pair_counts *c)
{
	*c = p->n;
}

void pair_counts_add(struct pair_counts *to, const struct pair_counts *c)
{
	to->exits += c->exits;
	to->uexits += c->uexits;
	to->untimed += c->untimed;
	to->backwards += c->backwards;
	to->threadless += c->threadless;
	to->threadless_exits += c->threadless_exits;
}
