// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread exit/entry pairing. Detail events (kvm_mmio, kvm_pio, ...) give
 * the open exit its sub-key. Where they fall differs by machine: after
 * kvm_exit and before kvm_entry for the exit/entry machine, but *before*
 * kvm_userspace_exit (the kernel handles the exit, then returns to the VMM)
 * for the userspace machine, so each machine keeps its own slot.
 */
#include <stdlib.h>
#include "common.h"
#include "pair.h"

enum { S_NONE, S_GUEST, S_HOST };

struct machine {
	uint8_t state;
	int32_t vcpu;
	uint64_t ts;
	const char *reason;
	const char *isa;
	struct pair_details d;
};

struct thread {
	int32_t tid; /* 0 marks a free slot: the idle task makes no exits */
	uint64_t last_ts;
	struct machine x; /* kvm_exit / kvm_entry */
	struct machine u; /* kvm_userspace_exit / KVM_RUN */
};

struct pair {
	struct stats_table *exits, *uexits;
	bool with_sub;
	struct thread *threads;
	size_t nslots, used;
	struct pair_counts n;
	const char *tig;
	pair_namer_fn namer;
	void *namer_arg;
};

struct pair *pair_new(struct stats_table *exits, struct stats_table *uexits, bool with_sub)
{
	struct pair *p = xcalloc(1, sizeof(*p));

	p->exits = exits;
	p->uexits = uexits;
	p->with_sub = with_sub;
	p->nslots = 64;
	p->threads = xcalloc(p->nslots, sizeof(*p->threads));
	p->tig = intern(PAIR_TIMEINGUEST);
	return p;
}

void pair_set_namer(struct pair *p, pair_namer_fn fn, void *arg)
{
	p->namer = fn;
	p->namer_arg = arg;
}

void pair_free(struct pair *p)
{
	if (!p)
		return;
	free(p->threads);
	free(p);
}

static struct thread *slot(struct thread *t, size_t n, int32_t tid)
{
	size_t i = ((uint32_t)tid * 2654435761u) & (n - 1);

	while (t[i].tid && t[i].tid != tid)
		i = (i + 1) & (n - 1);
	return &t[i];
}

static struct thread *thread_of(struct pair *p, int32_t tid)
{
	struct thread *t = slot(p->threads, p->nslots, tid);

	if (t->tid)
		return t;
	if (2 * (p->used + 1) > p->nslots) {
		struct thread *old = p->threads;
		size_t n = p->nslots;
		p->nslots *= 2;
		p->threads = xcalloc(p->nslots, sizeof(*p->threads));
		for (size_t i = 0; i < n; i++)
			if (old[i].tid)
				*slot(p->threads, p->nslots, old[i].tid) = old[i];
		free(old);
		t = slot(p->threads, p->nslots, tid);
	}
	*t = (struct thread){.tid = tid};
	t->x.vcpu = t->u.vcpu = -1;
	p->used++;
	return t;
}

/* Forget an exit's details. value[] stays: mask says none of it is valid. */
static void details_clear(struct pair_details *d)
{
	d->mask = d->flags = 0;
	d->has_sub = false;
}

/* The row an open exit is counted in. */
static struct stats_key exit_key(const struct pair *p, int32_t tid, const struct machine *m)
{
	struct stats_key k = {.name = m->reason, .tid = tid, .vcpu = m->vcpu};

	if (p->namer)
		k.name = p->namer(p->namer_arg, m->isa, m->reason, &m->d);
	if (p->with_sub && m->d.has_sub) {
		k.sub = m->d.sub;
		k.has_sub = true;
	}
	return k;
}

static void guest_time(struct pair *p, struct stats_table *tab, int32_t tid,
		       const struct machine *m, uint64_t ns)
{
	struct stats_key k = {.name = p->tig, .tid = tid, .vcpu = m->vcpu};

	stats_acc_add(stats_table_get(tab, &k), ns);
}

static void untimed(struct pair *p, struct stats_table *tab, int32_t tid, struct machine *m)
{
	struct stats_key k = exit_key(p, tid, m);

	stats_table_get(tab, &k)->untimed++;
	p->n.untimed++;
}

/* keep_details: the userspace machine's details came before its exit event. */
static void exit_event(struct pair *p, struct stats_table *tab, struct thread *t, struct machine *m,
		       const struct kes_event *ev, bool keep_details)
{
	if (m->state == S_GUEST)
		guest_time(p, tab, t->tid, m, ev->ts - m->ts);
	else if (m->state == S_HOST)
		untimed(p, tab, t->tid, m);
	if (ev->vcpu >= 0)
		m->vcpu = ev->vcpu;
	m->state = S_HOST;
	m->ts = ev->ts;
	m->reason = ev->reason;
	m->isa = ev->isa;
	if (!keep_details)
		details_clear(&m->d);
}

static void entry_event(struct pair *p, struct stats_table *tab, struct thread *t,
			struct machine *m, const struct kes_event *ev)
{
	if (m->state == S_HOST) {
		struct stats_key k = exit_key(p, t->tid, m);
		stats_acc_add(stats_table_get(tab, &k), ev->ts - m->ts);
	}
	if (ev->vcpu >= 0)
		m->vcpu = ev->vcpu;
	m->state = S_GUEST;
	m->ts = ev->ts;
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
static void add_detail(struct pair_details *d, const struct kes_event *ev)
{
	uint32_t bit = 1u << ev->detail;

	if (!(d->mask & bit)) {
		if (!d->has_sub || sub_rank(ev->detail) > sub_rank(d->sub_kind)) {
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

static void detail_event(struct thread *t, const struct kes_event *ev)
{
	if (ev->detail >= KES_D_MAX)
		return; /* no decoder makes one; value[] has no room for it */
	if (t->x.state == S_HOST)
		add_detail(&t->x.d, ev);
	if (t->u.state != S_HOST)
		add_detail(&t->u.d, ev);
}

void pair_event(struct pair *p, const struct kes_event *ev)
{
	if (ev->tid <= 0)
		return;
	struct thread *t = thread_of(p, ev->tid);
	if (ev->ts < t->last_ts) {
		/* Out of order on one thread: pairing across it would invent a duration. */
		p->n.backwards++;
		t->x.state = t->u.state = S_NONE;
		return;
	}
	t->last_ts = ev->ts;
	switch (ev->kind) {
	case KES_EXIT:
		p->n.exits++;
		exit_event(p, p->exits, t, &t->x, ev, false);
		break;
	case KES_ENTRY:
		entry_event(p, p->exits, t, &t->x, ev);
		break;
	case KES_UEXIT:
		p->n.uexits++;
		exit_event(p, p->uexits, t, &t->u, ev, true);
		break;
	case KES_UENTRY:
		entry_event(p, p->uexits, t, &t->u, ev);
		break;
	case KES_DETAIL:
		detail_event(t, ev);
		break;
	}
}

static void close_open(struct pair *p)
{
	for (size_t i = 0; i < p->nslots; i++) {
		struct thread *t = &p->threads[i];
		if (!t->tid)
			continue;
		if (t->x.state == S_HOST)
			untimed(p, p->exits, t->tid, &t->x);
		if (t->u.state == S_HOST)
			untimed(p, p->uexits, t->tid, &t->u);
		t->x.state = t->u.state = S_NONE;
		details_clear(&t->x.d);
		details_clear(&t->u.d);
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
	t = slot(p->threads, p->nslots, tid);
	if (!t->tid)
		return;
	if (t->x.state == S_HOST)
		untimed(p, p->exits, tid, &t->x);
	if (t->u.state == S_HOST)
		untimed(p, p->uexits, tid, &t->u);
	t->x.state = t->u.state = S_NONE;
	details_clear(&t->x.d);
	details_clear(&t->u.d);
}

void pair_finish(struct pair *p)
{
	close_open(p);
}

void pair_get_counts(const struct pair *p, struct pair_counts *c)
{
	*c = p->n;
}
