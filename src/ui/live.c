// SPDX-License-Identifier: GPL-2.0
/*
 * The live pipeline of top: the collector's raw pages, merged across CPUs,
 * decoded, paired and added to the interval tables, all on the hot path;
 * nothing here draws or looks anything up in /proc.
 *
 * Events: the exit/entry events of every exit_types table and the detail
 * events that give a sub-key (kvm_pio port, kvm_mmio gpa, kvm_msr index,
 * kvm_hypercall nr). Not kvm_emulate_insn and kvm_page_fault: the first
 * fires about three times per emulated exit (tracing-facts.md), tripling
 * the events to read for a sub-key the port already gives; the second fires
 * per EPT violation with a new address each time, and a view that runs for
 * hours must keep O(reasons x threads x sub-keys) rows, not O(pages).
 * With --buckets they are enabled (the maps read them) and sub-keys are not
 * kept.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <traceevent/event-parse.h>
#include "buckets.h"
#include "common.h"
#include "collect.h"
#include "decode.h"
#include "pair.h"
#include "ui-local.h"

/* Sub-keys kept per reason (times threads); the rest go to one "other" row. */
#define UI_SUB_CAP 4096

static const char *const skipped_events[] = {"kvm_emulate_insn", "kvm_page_fault"};

struct evlist {
	char **names; /* "system:event" */
	size_t n;
	bool all; /* bucket maps read every detail event */
};

static void add_event(const char *system, const char *event, void *arg)
{
	struct evlist *l = arg;
	char buf[256];

	for (size_t i = 0; i < ARRAY_SIZE(skipped_events) && !l->all; i++)
		if (!strcmp(system, "kvm") && !strcmp(event, skipped_events[i]))
			return;
	snprintf(buf, sizeof(buf), "%s:%s", system, event);
	l->names = xrealloc(l->names, (l->n + 1) * sizeof(*l->names));
	l->names[l->n++] = xstrdup(buf);
}

static void evlist_free(struct evlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
}

static int on_page(void *arg, int cpu, const void *page, size_t len)
{
	struct ui_live *l = arg;

	return ui_merge_add(l->m, cpu, page, len);
}

static int on_record(void *arg, const void *data, int size, uint64_t ts, int cpu, long long missed)
{
	struct ui_live *l = arg;
	struct kes_event ev;

	if (missed) {
		/* Whatever was open on any thread may have lost its entry. */
		l->gaps++;
		pair_lost(l->p);
	}
	if (!data)
		return 0;
	l->events_cur++;
	if (!decoder_decode(l->d, data, size, ts, cpu, &ev))
		return 0;
	if (ev.kind == KES_EXIT && ev.isa)
		l->isa = ev.isa;
	pair_event(l->p, &ev);
	return 0;
}

/*
 * The formats of the enabled events only. tracefs_local_events_system()
 * parses a whole system and reads /proc/kallsyms too: 0.2 s here, seconds
 * under ASan, while a VM we were asked to watch may already be running.
 */
static struct tep_handle *local_formats(struct collect *c)
{
	struct tep_handle *tep = tep_alloc();
	size_t n;
	const char *const *ev = collect_events(c, &n);
	int len = 0, parsed = 0;
	char *buf;

	if (!tep)
		return NULL;
	buf = tracefs_instance_file_read(NULL, "events/header_page", &len);
	if (buf)
		tep_parse_header_page(tep, buf, (unsigned long)len, (int)sizeof(long));
	free(buf);
	for (size_t i = 0; i < n; i++) {
		char sys[128];
		const char *colon = strchr(ev[i], ':');

		if (!colon || (size_t)(colon - ev[i]) >= sizeof(sys))
			continue;
		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - ev[i]), ev[i]);
		buf = tracefs_event_file_read(NULL, sys, colon + 1, "format", &len);
		if (buf && tep_parse_event(tep, buf, (unsigned long)len, sys) == 0)
			parsed++;
		free(buf);
	}
	if (!parsed) {
		tep_free(tep);
		return NULL;
	}
	return tep;
}

static int setup_decoder(struct ui_live *l, const struct exit_types *types, char *errbuf,
			 size_t errlen)
{
	l->tep = local_formats(l->c);
	if (!l->tep) {
		snprintf(errbuf, errlen, "cannot read the event formats from tracefs: %s",
			 strerror(errno));
		return -1;
	}
	l->d = decoder_new(l->tep, types);
	if (!l->d || decoder_nbound(l->d) == 0) {
		snprintf(errbuf, errlen, "no KVM exit events in tracefs (is kvm loaded?)");
		return -1;
	}
	l->has_kvm_exit = tep_find_event_by_name(l->tep, "kvm", "kvm_exit") != NULL;
	l->m = ui_merge_new(l->tep, collect_ncpus(l->c), collect_page_size(l->c));
	if (!l->m) {
		snprintf(errbuf, errlen, "cannot set up the ring-buffer reader");
		return -1;
	}
	return 0;
}

struct ui_live *ui_live_new(const struct ui_live_opts *o, char *errbuf, size_t errlen)
{
	struct ui_live *l = xcalloc(1, sizeof(*l));
	struct evlist ev = {.all = o->buckets != NULL};
	struct collect_opts co = {.buffer_kb = o->buffer_kb};

	decode_foreach_event(o->types, add_event, &ev);
	co.events = (const char *const *)ev.names;
	co.nevents = ev.n;
	co.pids = o->pids;
	co.npids = o->npids;
	l->c = collect_new(&co, errbuf, errlen);
	if (!l->c || setup_decoder(l, o->types, errbuf, errlen) < 0) {
		evlist_free(&ev);
		ui_live_free(l);
		return NULL;
	}
	evlist_free(&ev);
	for (int s = 0; s < UI_NSRC; s++) {
		l->cur[s] = stats_table_new();
		l->last[s] = stats_table_new();
		l->total[s] = stats_table_new();
		/* A guest that touches many MMIO addresses must not use up memory. */
		stats_table_set_sub_cap(l->cur[s], UI_SUB_CAP);
		stats_table_set_sub_cap(l->last[s], UI_SUB_CAP);
		stats_table_set_sub_cap(l->total[s], UI_SUB_CAP);
	}
	/*
	 * Sub-keys always (the drill-down shows them since the start), but with
	 * buckets: those need kvm_page_fault, whose addresses would be sub-keys.
	 */
	l->p = pair_new(l->cur[UI_EXITS], l->cur[UI_UEXITS], !o->buckets);
	if (o->buckets)
		pair_set_namer(l->p, bucket_namer, o->buckets);
	return l;
}

int ui_live_start(struct ui_live *l)
{
	return collect_start(l->c);
}

int ui_live_poll(struct ui_live *l, int timeout_ms)
{
	if (collect_read(l->c, timeout_ms, on_page, l) < 0)
		return -1;
	/* Partial pages too, so that every CPU is drained up to now (see merge.c). */
	if (collect_flush(l->c, on_page, l) < 0)
		return -1;
	ui_merge_run(l->m, on_record, l);
	return 0;
}

void ui_live_tick(struct ui_live *l, double dt)
{
	uint64_t lost = 0;

	for (int s = 0; s < UI_NSRC; s++) {
		stats_table_clear(l->last[s]);
		stats_table_merge(l->last[s], l->cur[s]);
		stats_table_merge(l->total[s], l->cur[s]);
		stats_table_clear(l->cur[s]);
	}
	l->events_last = l->events_cur;
	l->events_total += l->events_cur;
	l->events_cur = 0;
	l->last_dt = dt;
	/* overrun (overwrite mode) + dropped events (overwrite off): the per-page
	 * flags only say that something was lost, the instance says how much. */
	if (collect_lost(l->c, &lost) == 0)
		l->lost = lost >= l->lost_base ? lost - l->lost_base : 0;
}

void ui_live_thread_gone(struct ui_live *l, int32_t tid)
{
	pair_end_thread(l->p, tid);
}

void ui_live_reset(struct ui_live *l)
{
	uint64_t lost = 0;

	for (int s = 0; s < UI_NSRC; s++) {
		stats_table_clear(l->cur[s]);
		stats_table_clear(l->last[s]);
		stats_table_clear(l->total[s]);
	}
	collect_lost(l->c, &lost);
	l->lost_base = lost;
	l->lost = 0;
	l->events_cur = l->events_last = l->events_total = 0;
	l->gaps = 0;
}

void ui_live_counts(const struct ui_live *l, uint64_t *exits, uint64_t *uexits)
{
	struct pair_counts n;

	pair_get_counts(l->p, &n);
	*exits = n.exits;
	*uexits = n.uexits;
}

void ui_live_free(struct ui_live *l)
{
	if (!l)
		return;
	/* The instance first: it must not outlive us whatever else fails. */
	collect_free(l->c);
	pair_free(l->p);
	decoder_free(l->d);
	if (l->tep)
		tep_free(l->tep);
	ui_merge_free(l->m);
	for (int s = 0; s < UI_NSRC; s++) {
		stats_table_free(l->cur[s]);
		stats_table_free(l->last[s]);
		stats_table_free(l->total[s]);
	}
	free(l);
}
