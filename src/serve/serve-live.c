// SPDX-License-Identifier: GPL-2.0
/*
 * serve's live pipeline, the one top watches too (watch.h: collector ->
 * feed -> interval tables) and its VM map (tid -> VMM -> VM name, looked up
 * once per thread). This is the only serve file that knows where the
 * events come from.
 *
 * Unlike top it keeps no since-start tables: a daemon that runs for months
 * must not keep a row per thread it ever saw. Every interval is handed over
 * and emptied; the store keeps the counters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "alloc.h"
#include "gsym.h"
#include "intern.h"
#include "live.h"
#include "pair.h"
#include "serve-local.h"
#include "watch.h"

/* --by-guest: a function that has its own series, for the run (first come). */
struct guest_fn {
	const char *reason, *func; /* interned */
};

struct serve_live {
	struct watch *l;
	struct watch_vms vms;
	uint64_t events;
	const char *tig, *unknown, *other;
	const struct gsym *syms; /* --by-guest's symbols, or NULL */
	unsigned top;		 /* --guest-top: functions per reason with their own series */
	struct guest_fn *fns;	 /* those functions, at most top per reason */
	size_t nfns;
};

struct serve_live *serve_live_new(const struct serve_opts *o, char *errbuf, size_t errlen)
{
	struct watch_opts lo = {.pids = o->pids,
				  .npids = o->npids,
				  .buffer_kb = o->buffer_kb,
				  .types = o->types,
				  .buckets = o->buckets,
				  .anatomy = o->anatomy,
				  .in_kernel = o->in_kernel,
				  .subkeys = o->by_guest,
				  .by_guest = o->by_guest};
	struct serve_live *s = xcalloc(1, sizeof(*s));

	s->l = watch_new(&lo, errbuf, errlen);
	if (!s->l) {
		free(s);
		return NULL;
	}
	s->tig = intern(KES_TIMEINGUEST);
	s->unknown = intern("unknown");
	s->other = intern("other");
	s->syms = o->syms;
	s->top = o->guest_top;
	/* The traced processes' threads now: a short VM may end before its first lookup. */
	watch_vms_seed(&s->vms, o->pids, o->npids);
	return s;
}

int serve_live_start(struct serve_live *s)
{
	return watch_start(s->l);
}

void serve_live_set_wake(struct serve_live *s, int fd)
{
	live_set_wake_fd(s->l->c, fd);
}

int serve_live_poll(struct serve_live *s, int timeout_ms)
{
	if (watch_poll(s->l, timeout_ms) < 0)
		return -1;
	/* New threads are looked up right after the read that first saw them. */
	for (int i = 0; i < WATCH_NSRC; i++)
		watch_vms_learn(&s->vms, s->l->cur[i]);
	return 0;
}

static void thread_gone(void *arg, int32_t tid)
{
	watch_thread_gone(arg, tid);
}

struct walk {
	struct serve_live *s;
	enum serve_source src;
	const struct stats_anatomy *an; /* --anatomy: the interval's splits of this source */
	void (*fn)(const struct serve_row *r, void *arg);
	void *arg;
};

/* The function of pc: its symbol (interned), else "0xPC". */
static const char *fn_name(const struct serve_live *s, uint64_t pc)
{
	uint64_t off;
	const char *name = s->syms ? gsym_lookup(s->syms, pc, &off) : NULL;
	char buf[32];

	if (name)
		return intern(name);
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)pc);
	return intern(buf);
}

/*
 * A row's guest_function label: the function, while it is one of the first
 * top its reason met (for the run, so that each series keeps counting), else
 * "other". The label set stays bounded: reasons x (top + 1).
 */
static const char *guest_label(struct serve_live *s, const struct stats_key *k,
			       const struct stats_acc *a)
{
	const char *f;
	size_t have = 0;

	if (!k->has_sub || a->sub_kind != KES_D_PC || k->sub == STATS_SUB_OTHER)
		return k->has_sub ? s->other : NULL;
	f = fn_name(s, k->sub);
	for (size_t i = 0; i < s->nfns; i++) {
		if (s->fns[i].reason != k->name)
			continue;
		if (s->fns[i].func == f)
			return f;
		have++;
	}
	if (have >= s->top)
		return s->other;
	s->fns = xrealloc(s->fns, (s->nfns + 1) * sizeof(*s->fns));
	s->fns[s->nfns++] = (struct guest_fn){k->name, f};
	return f;
}

static void one_row(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct walk *w = arg;
	const struct watch_thread *t = watch_vms_thread(&w->s->vms, k->tid);
	const struct watch_vm *vm = t && t->tgid > 0 ? watch_vms_vm(&w->s->vms, t->tgid) : NULL;
	struct serve_row r = {.source = w->src,
			      .pid = vm ? vm->pid : -1,
			      .vm = vm ? vm->name : w->s->unknown,
			      .tid = k->tid,
			      .vcpu = k->vcpu,
			      .reason = k->name,
			      .guest = k->name == w->s->tig,
			      .acc = a};

	if (w->s->top && !r.guest && w->src == SERVE_KVM_EXIT) /* --by-guest */
		r.func = guest_label(w->s, k, a);

	for (int p = 0; w->an && !r.guest && p < STATS_NPARTS; p++) {
		const struct stats_acc *pa = stats_anatomy_acc(w->an, k, (unsigned)p);

		if (pa) {
			r.has_parts = true;
			r.part_ns[p] = pa->sum;
		}
	}
	w->fn(&r, w->arg);
}

int serve_live_tick(struct serve_live *s, void (*fn)(const struct serve_row *r, void *arg),
		    void *arg)
{
	static const enum serve_source src[WATCH_NSRC] = {
	    [WATCH_EXITS] = SERVE_KVM_EXIT, [WATCH_UEXITS] = SERVE_USERSPACE};

	/* Whatever the threads wrote before we look at which are gone. */
	if (serve_live_poll(s, 0) < 0)
		return -1;
	watch_vms_reap(&s->vms, thread_gone, s->l);
	for (int i = 0; i < WATCH_NSRC; i++) {
		struct walk w = {s, src[i], s->l->an_cur[i], fn, arg};

		stats_table_foreach(s->l->cur[i], one_row, &w);
		stats_table_clear(s->l->cur[i]);
		if (s->l->an_cur[i])
			stats_anatomy_clear(s->l->an_cur[i]);
	}
	s->events += s->l->events_cur;
	s->l->events_cur = 0;
	return 0;
}

bool serve_live_vm_gone(const struct serve_live *s, int32_t pid)
{
	const struct watch_vm *vm = watch_vms_vm(&s->vms, pid);

	return vm && vm->dead;
}

void serve_live_counts(const struct serve_live *s, struct serve_live_counts *c)
{
	uint64_t lost = 0;

	live_lost(s->l->c, &lost);
	*c = (struct serve_live_counts){.events = s->events, .lost = lost, .gaps = s->l->gaps};
}

bool serve_live_sees_kvm(const struct serve_live *s, const char **why)
{
	return live_sees_kvm(s->l->c, why);
}

void serve_live_free(struct serve_live *s)
{
	if (!s)
		return;
	watch_free(s->l);
	watch_vms_free(&s->vms);
	free(s->fns);
	free(s);
}
