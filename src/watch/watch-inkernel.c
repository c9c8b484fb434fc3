// SPDX-License-Identifier: GPL-2.0
/*
 * The live pipeline's in-kernel mode (top/serve --in-kernel): the kernel
 * counts exits per (thread, reason) and keeps each thread's exit -> entry
 * latency per reason in power-of-two buckets with their sums (live/khist.c);
 * at each tick we read both hists and add what grew since the last one to
 * the interval tables, which top and serve then show as they show streamed
 * exits. Nothing is read per event.
 *
 * The reason's name: the hist keys are the exit event's raw fields
 * (exit_reason and isa on x86, esr_ec and ret on arm64), put into a record
 * of the event's own layout and handed to the decoder, which names it as it
 * names a streamed kvm_exit (exit_types/, the format's symbols). The
 * latency hist keeps the first field only (the kernel allows 3 keys): the
 * second comes from the counts of the same thread and first field (x86's
 * isa is one value per host; arm64's ret is 2 for every trap).
 *
 * Timed samples are added when their entry came; an exit still waiting for
 * its entry is not counted yet, and one that never gets it (a VMM's last)
 * is counted untimed when its thread is gone: so totals are the kernel's
 * counts, exactly, once a VM has ended, and at most one exit per vCPU
 * behind while it runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <traceevent/event-parse.h>
#include "alloc.h"
#include "decode.h"
#include "err.h"
#include "khist.h"
#include "live.h"
#include "watch-local.h"
#include "watch.h"

struct ik_name {
	uint64_t f0, f1;
	const char *name; /* interned, NULL: the decoder did not take it */
};

/* The last cumulative counts seen, and per (thread, reason) what was added. */
struct ik_tot {
	int32_t tid;
	const char *name;
	uint64_t counted, timed;
};

struct watch_ik {
	struct khist *kh;
	struct khist_data prev;
	struct tep_event *ev; /* the exit event's format */
	struct tep_format_field *fld[KHIST_MAX_FIELDS], *type_f, *pid_f;
	size_t nfields;
	int size; /* of a record of the exit event */
	struct ik_name *names;
	size_t nnames;
	struct ik_tot *tot;
	size_t ntot;
};

/* The reason fields of the first exit table bound to kvm:kvm_exit, as khist wants them. */
static size_t pick_fields(const struct exit_types *types, struct tep_event *ev,
			  const char **f)
{
	for (size_t i = 0; i < types->n; i++) {
		const struct exit_table *t = &types->tables[i];
		size_t n = 0;

		if (t->kind != EXIT_TABLE_EXIT || !t->exit_event || strcmp(t->exit_system, "kvm") ||
		    strcmp(t->exit_event, "kvm_exit") || !tep_find_field(ev, t->reason_field))
			continue;
		/* the field that tells reasons apart best first (the latency hist keeps it) */
		if (t->sub_field)
			f[n++] = t->sub_field;
		f[n++] = t->reason_field;
		if (!t->sub_field && t->match.field)
			f[n++] = t->match.field;
		for (size_t k = 0; k < n; k++)
			if (!tep_find_field(ev, f[k]))
				n = 0;
		if (n)
			return n;
	}
	return 0;
}

size_t watch_in_kernel_fields(const struct exit_types *types, const char **fields)
{
	struct tep_handle *tep = tep_alloc();
	int len = 0;
	char *buf = tracefs_event_file_read(NULL, "kvm", "kvm_exit", "format", &len);
	struct tep_event *ev = NULL;
	size_t n = 0;

	if (tep && buf && tep_parse_event(tep, buf, (unsigned long)len, "kvm") == 0)
		ev = tep_find_event_by_name(tep, "kvm", "kvm_exit");
	if (ev)
		n = pick_fields(types, ev, fields);
	free(buf);
	if (tep)
		tep_free(tep);
	return n;
}

bool watch_in_kernel_ok(char *why, size_t len)
{
	return khist_supported("kvm", "kvm_exit", why, len);
}

int watch_ik_setup(struct watch *l, const struct watch_opts *o, char *errbuf, size_t errlen)
{
	struct watch_ik *ik = xcalloc(1, sizeof(*ik));
	struct khist_opts ko = {.exit_sys = "kvm",
				.exit_ev = "kvm_exit",
				.entry_sys = "kvm",
				.entry_ev = "kvm_entry"};

	l->ik = ik;
	ik->ev = tep_find_event_by_name(l->tep, "kvm", "kvm_exit");
	if (!ik->ev || !tep_find_event_by_name(l->tep, "kvm", "kvm_entry"))
		return err_buf(errbuf, errlen, "--in-kernel: no kvm:kvm_exit and kvm:kvm_entry here");
	ik->nfields = pick_fields(o->types, ik->ev, ko.fields);
	if (!ik->nfields)
		return err_buf(errbuf, errlen, "--in-kernel: no exit table names kvm:kvm_exit's fields");
	ko.nfields = ik->nfields;
	for (size_t i = 0; i < ik->nfields; i++)
		ik->fld[i] = tep_find_field(ik->ev, ko.fields[i]);
	ik->type_f = tep_find_common_field(ik->ev, "common_type");
	ik->pid_f = tep_find_common_field(ik->ev, "common_pid");
	for (struct tep_format_field *f = ik->ev->format.fields; f; f = f->next)
		if (f->offset + f->size > ik->size)
			ik->size = f->offset + f->size;
	if (!ik->type_f || !ik->pid_f || ik->size <= 0)
		return err_buf(errbuf, errlen, "--in-kernel: kvm:kvm_exit's format is not usable");
	ik->kh = khist_new(l->c, &ko, errbuf, errlen);
	return ik->kh ? 0 : -1;
}

/* ------------------------------------------------------------------------ */
/* Names */

static void put(void *rec, const struct tep_format_field *f, uint64_t v)
{
	unsigned char *p = (unsigned char *)rec + f->offset;

	if (f->size == 8)
		memcpy(p, &v, 8);
	else if (f->size == 4)
		memcpy(p, &(uint32_t){(uint32_t)v}, 4);
	else if (f->size == 2)
		memcpy(p, &(uint16_t){(uint16_t)v}, 2);
	else if (f->size == 1)
		*p = (uint8_t)v;
}

/* The reason (f0, f1) names, as the decoder names a streamed exit with those fields. */
static const char *name_of(struct watch *l, uint64_t f0, uint64_t f1)
{
	struct watch_ik *ik = l->ik;
	struct kes_event e;
	unsigned char *rec;

	for (size_t i = 0; i < ik->nnames; i++)
		if (ik->names[i].f0 == f0 && ik->names[i].f1 == f1)
			return ik->names[i].name;
	rec = xcalloc(1, (size_t)ik->size);
	put(rec, ik->type_f, (uint64_t)ik->ev->id);
	put(rec, ik->pid_f, 1);
	put(rec, ik->fld[0], f0);
	if (ik->nfields > 1)
		put(rec, ik->fld[1], f1);
	e = (struct kes_event){0};
	const char *name = decode_rec(l->d, rec, ik->size, 0, 0, &e) == 1 && e.kind == KES_EXIT
				   ? e.reason
				   : NULL;
	free(rec);
	if (name && e.isa)
		l->isa = e.isa; /* as the feed says which table a streamed kvm_exit was */
	ik->names = xrealloc(ik->names, (ik->nnames + 1) * sizeof(*ik->names));
	ik->names[ik->nnames++] = (struct ik_name){f0, f1, name};
	return name;
}

/* ------------------------------------------------------------------------ */
/* What grew since the last read */

static int cmp_entry(const void *a, const void *b)
{
	const struct khist_entry *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	for (int i = 0; i < KHIST_MAX_FIELDS; i++)
		if (x->f[i] != y->f[i])
			return x->f[i] < y->f[i] ? -1 : 1;
	return (x->log2 > y->log2) - (x->log2 < y->log2);
}

static const struct khist_entry *find(const struct khist_entry *v, size_t n,
				      const struct khist_entry *k)
{
	return n ? bsearch(k, v, n, sizeof(*v), cmp_entry) : NULL;
}

static struct ik_tot *tot_of(struct watch_ik *ik, int32_t tid, const char *name)
{
	for (size_t i = 0; i < ik->ntot; i++)
		if (ik->tot[i].tid == tid && ik->tot[i].name == name)
			return &ik->tot[i];
	ik->tot = xrealloc(ik->tot, (ik->ntot + 1) * sizeof(*ik->tot));
	ik->tot[ik->ntot] = (struct ik_tot){.tid = tid, .name = name};
	return &ik->tot[ik->ntot++];
}

/* The second field of a latency line: that of the thread's counts with the same first. */
static uint64_t second_field(const struct khist_data *d, int32_t tid, uint64_t f0)
{
	uint64_t best = 0, hits = 0;

	for (size_t i = 0; i < d->ncounts; i++)
		if (d->counts[i].tid == tid && d->counts[i].f[0] == f0 && d->counts[i].n > hits) {
			best = d->counts[i].f[1];
			hits = d->counts[i].n;
		}
	return best;
}

static void add_counts(struct watch *l, const struct khist_data *d)
{
	struct watch_ik *ik = l->ik;

	for (size_t i = 0; i < d->ncounts; i++) {
		const struct khist_entry *e = &d->counts[i], *p = find(ik->prev.counts,
								       ik->prev.ncounts, e);
		uint64_t dn = e->n - (p && p->n <= e->n ? p->n : 0);
		const char *name = name_of(l, e->f[0], e->f[1]);

		if (!dn || !name)
			continue;
		tot_of(ik, e->tid, name)->counted += dn;
		l->events_cur += dn;
		l->ik_exits += dn;
	}
}

static void add_latency(struct watch *l, const struct khist_data *d)
{
	struct watch_ik *ik = l->ik;

	for (size_t i = 0; i < d->nlat; i++) {
		const struct khist_entry *e = &d->lat[i], *p = find(ik->prev.lat, ik->prev.nlat, e);
		uint64_t dn = e->n - (p && p->n <= e->n ? p->n : 0);
		uint64_t ds = e->sum - (p && p->n <= e->n ? p->sum : 0);
		const char *name;

		if (!dn)
			continue;
		name = name_of(l, e->f[0], ik->nfields > 1 ? second_field(d, e->tid, e->f[0]) : 0);
		if (!name)
			continue;
		struct stats_key k = {.name = name, .tid = e->tid, .vcpu = -1};

		stats_acc_add_log2(stats_table_get(l->cur[WATCH_EXITS], &k), e->log2, dn, ds);
		tot_of(ik, e->tid, name)->timed += dn;
	}
}

int watch_ik_poll(struct watch *l, int timeout_ms)
{
	struct watch_ik *ik = l->ik;
	struct khist_data d;

	/*
	 * Read at the interval's end only (timeout 0: the tick). Reading after
	 * each 100 ms wait cost top 20 % of a core in the lab host (TCG: ~250
	 * syscalls a second at ~1 ms each), as much as streaming every exit;
	 * the price: a VM that lives less than an interval may be gone before
	 * its threads are looked up (pid "unknown"), as in streaming mode for
	 * one that lives less than a read.
	 */
	if (timeout_ms > 0) {
		live_sleep(timeout_ms);
		return 0;
	}
	if (khist_read(ik->kh, &d) < 0)
		return -1;
	/* an empty hist has no array at all: qsort(NULL, 0) is undefined (UBSan) */
	if (d.ncounts)
		qsort(d.counts, d.ncounts, sizeof(*d.counts), cmp_entry);
	if (d.nlat)
		qsort(d.lat, d.nlat, sizeof(*d.lat), cmp_entry);
	add_counts(l, &d);
	add_latency(l, &d);
	l->ik_dropped = d.dropped;
	khist_data_free(&ik->prev);
	ik->prev = d;
	return 0;
}

/* The thread's exits that never got their entry (a VMM's last): counted now, untimed. */
void watch_ik_thread_gone(struct watch *l, int32_t tid)
{
	struct watch_ik *ik = l->ik;

	/* what the kernel counted until the thread ended, first */
	watch_ik_poll(l, 0);
	for (size_t i = 0; i < ik->ntot; i++) {
		struct ik_tot *t = &ik->tot[i];
		struct stats_key k = {.name = t->name, .tid = tid, .vcpu = -1};

		if (t->tid != tid || t->counted <= t->timed)
			continue;
		stats_table_get(l->cur[WATCH_EXITS], &k)->untimed += t->counted - t->timed;
		t->timed = t->counted;
	}
}

void watch_ik_free(struct watch *l)
{
	struct watch_ik *ik = l->ik;

	if (!ik)
		return;
	khist_free(ik->kh);
	khist_data_free(&ik->prev);
	free(ik->names);
	free(ik->tot);
	free(ik);
	l->ik = NULL;
}
