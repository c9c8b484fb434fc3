// SPDX-License-Identifier: GPL-2.0
/*
 * The live pipeline of top and serve: the collector's raw pages go into per-CPU
 * queues, and the one event path (feed.h: walk, decode, order, pair) adds
 * them to the interval tables, all on the hot path; nothing here draws or
 * looks anything up in /proc. Why merged across CPUs: pairing is per thread,
 * and a vCPU thread migrates; each poll drains every CPU (partial pages
 * too), so what is queued is everything up to about "now".
 *
 * Events: the one list (exit_types_events()) for what the view needs: the
 * exit and entry events; the detail events only when a view reads them
 * (top's drill-down, --buckets, --slower-than: --once, --log and serve have
 * no sub-keys, and on an x86 VMM's trace most records are details); those
 * marked `need buckets` in exit_types/detail.types (kvm_emulate_insn,
 * kvm_page_fault: see there why) only with --buckets, and then sub-keys are
 * not kept.
 *
 * The all-events view (kvm_stat's default: every kvm:* tracepoint counted)
 * enables kvm:* besides (from the start with --all-events, else at the
 * first e key: a kvm_emulate_insn storm costs tracing a million events a
 * second that the exits view does not need), but the decoder still sees only the formats of the
 * list above, so that pairing and sub-keys are the same with it or without;
 * its counts come from a walk over each page before the page is queued
 * (type and pid of each record, runs of one (event, thread) added at once).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <traceevent/event-parse.h>
#include "alloc.h"
#include "bucket-map.h"
#include "decode.h"
#include "err.h"
#include "engine.h"
#include "feed.h"
#include "live.h"
#include "intern.h"
#include "pair.h"
#include "ring.h"
#include "watch-local.h"
#include "watch.h"

struct evlist {
	char **names; /* "system:event" */
	size_t n;
};


static void add_count(struct watch *l, const char *name, int32_t tid, uint64_t n)
{
	struct stats_key k = {.name = name, .tid = tid, .vcpu = -1};

	if (n)
		stats_table_get(l->cur[WATCH_EVENTS], &k)->untimed += n;
}

/* The all-events view's counts of a page; a corrupt page is the feed's to report. */
static void count_events(struct watch *l, const void *page, size_t len)
{
	struct ring_cur cur;
	struct ring_rec r;
	const char *name = NULL;
	int32_t tid = 0;
	uint64_t n = 0;

	if (ring_open(&cur, page, len, live_long_size(l->c)) < 0)
		return;
	while (ring_next(&cur, &r) > 0) {
		uint16_t type;
		int32_t pid;
		const char *nm;

		if (r.size < l->type_off + 2 || r.size < l->pid_off + 4)
			continue;
		memcpy(&type, (const unsigned char *)r.data + l->type_off, 2);
		memcpy(&pid, (const unsigned char *)r.data + l->pid_off, 4);
		nm = type <= l->maxid ? l->evname[type] : NULL;
		if (!nm)
			continue;
		if (nm == name && pid == tid) {
			n++;
			continue;
		}
		add_count(l, name, tid, n);
		name = nm;
		tid = pid;
		n = 1;
	}
	add_count(l, name, tid, n);
}

static int on_page(void *arg, int cpu, const void *page, size_t len)
{
	struct watch *l = arg;

	if (cpu < 0 || cpu >= l->ncpus)
		return -1;
	if (l->evname)
		count_events(l, page, len);
	return feed_queue_add(l->queues[cpu], page, len);
}

static bool listed(const struct evlist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->names[i], name))
			return true;
	return false;
}

/*
 * The formats of the enabled events only. tracefs_local_events_system()
 * parses a whole system and reads /proc/kallsyms too: 0.2 s here, seconds
 * under ASan, while a VM we were asked to watch may already be running.
 */
static struct tep_handle *local_formats(struct live *c, const struct evlist *needed)
{
	struct tep_handle *tep = tep_alloc();
	size_t n;
	const char *const *ev = live_events(c, &n);
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

		if (!colon || (size_t)(colon - ev[i]) >= sizeof(sys) || !listed(needed, ev[i]))
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

static int setup_decoder(struct watch *l, const struct exit_types *types,
			 const struct evlist *needed, char *errbuf, size_t errlen)
{
	l->tep = local_formats(l->c, needed);
	if (!l->tep) {
		err_buf_errno(errbuf, errlen, "cannot read the event formats from tracefs");
		return -1;
	}
	l->d = decode_new(l->tep, types);
	if (decode_error(l->d)) {
		snprintf(errbuf, errlen, "tracefs event formats: %s", decode_error(l->d));
		return -1;
	}
	if (decode_nbound(l->d) == 0) {
		snprintf(errbuf, errlen, "no KVM exit events in tracefs (is kvm loaded?)");
		return -1;
	}
	/* an exit table's exit event (kvm:kvm_exit, kvm_hv:kvm_guest_exit, ...) is there */
	l->has_kvm_exit = decode_binds(l->d, KES_EXIT);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The id of an enabled event, from tracefs; -1 if unreadable. */
static int event_id(const struct watch *l, const char *sys, const char *ev)
{
	char rel[320], *buf, *end;
	long id;

	snprintf(rel, sizeof(rel), "events/%s/%s/id", sys, ev);
	buf = live_file_read(l->c, rel, NULL);
	if (!buf)
		return -1;
	id = strtol(buf, &end, 10);
	free(buf);
	return end == buf || id < 0 || id > 65535 ? -1 : (int)id;
}

/*
 * all_events: every enabled kvm:* event by id (kvm_stat counts the events
 * of tracefs' kvm system). common_type and common_pid where the formats
 * put them (offsets 0 and 4 on every kernel).
 */
static void setup_counts(struct watch *l)
{
	struct tep_event *first = tep_get_first_event(l->tep);
	struct tep_format_field *ct = first ? tep_find_common_field(first, "common_type") : NULL;
	struct tep_format_field *cp = first ? tep_find_common_field(first, "common_pid") : NULL;
	size_t n;
	const char *const *ev = live_events(l->c, &n);

	l->type_off = ct && ct->size == 2 && ct->offset >= 0 ? (uint32_t)ct->offset : 0;
	l->pid_off = cp && cp->size == 4 && cp->offset >= 0 ? (uint32_t)cp->offset : 4;
	l->maxid = -1;
	l->evname = xcalloc(65536, sizeof(*l->evname));
	l->evnames = xcalloc(n + 1, sizeof(*l->evnames));
	for (size_t i = 0; i < n; i++) {
		int id;

		if (strncmp(ev[i], "kvm:", 4) || (id = event_id(l, "kvm", ev[i] + 4)) < 0)
			continue;
		l->evname[id] = intern(ev[i] + 4);
		l->evnames[l->nevnames++] = l->evname[id];
		if (id > l->maxid)
			l->maxid = id;
	}
	qsort(l->evnames, l->nevnames, sizeof(*l->evnames), cmp_name);
}

/*
 * The event path into the running interval's tables, over per-CPU queues; a
 * page that flags a loss is a gap where it starts.
 */
static void setup_engine(struct watch *l, const struct watch_opts *o)
{
	l->en = engine_new(&(struct engine_opts){
	    .pair = {.exits = l->cur[WATCH_EXITS],
		     .uexits = l->cur[WATCH_UEXITS],
		     .with_sub = o->subkeys && !o->buckets,
		     .by_guest = o->subkeys && o->by_guest && !o->buckets,
		     .namer = o->buckets ? bucket_map_namer : NULL,
		     .namer_arg = o->buckets,
		     .outliers = {l->slow[WATCH_EXITS], l->slow[WATCH_UEXITS]},
		     .anatomy = {l->an_cur[WATCH_EXITS], l->an_cur[WATCH_UEXITS]}},
	    .feed = {.d = l->d, .page_losses = true}});
	l->feed = engine_feed(l->en);
	l->ncpus = live_ncpus(l->c);
	l->queues = xcalloc((size_t)l->ncpus, sizeof(*l->queues));
	for (int i = 0; i < l->ncpus; i++) {
		l->queues[i] = feed_queue_new(i, live_long_size(l->c), live_page_size(l->c));
		feed_add_lane(l->feed, feed_queue_lane(l->queues[i]));
	}
}

int watch_count_all(struct watch *l, char *errbuf, size_t errlen)
{
	if (l->evname)
		return 0;
	if (live_enable_more(l->c, "kvm:*", errbuf, errlen) < 0)
		return -1;
	setup_counts(l);
	return 0;
}

/* The detail events the view reads (EXIT_NEED_*): see the top. */
static unsigned view_needs(const struct watch_opts *o)
{
	if (o->buckets)
		return EXIT_NEED_DETAILS | EXIT_NEED_BUCKETS;
	/* the anatomy reads kvm_vcpu_wakeup, a detail event */
	return o->subkeys || o->slower_ns || o->anatomy ? EXIT_NEED_DETAILS : 0;
}

/* --anatomy: its events after the KVM ones, enabled and their formats read with them. */
static void anatomy_events(struct evlist *ev)
{
	size_t k;
	const char *const *more = decode_anatomy_events(&k);

	ev->names = xrealloc(ev->names, (ev->n + k) * sizeof(*ev->names));
	for (size_t i = 0; i < k; i++)
		ev->names[ev->n++] = xstrdup(more[i]);
}

/* --anatomy: the tables the pair splits exits into, and its decoder's events. */
static void setup_anatomy(struct watch *l)
{
	for (int s = 0; s < WATCH_NSRC; s++) {
		l->an_cur[s] = stats_anatomy_new();
		l->an_last[s] = stats_anatomy_new();
		l->an_total[s] = stats_anatomy_new();
	}
	decode_anatomy(l->d);
}

struct watch *watch_new(const struct watch_opts *o, char *errbuf, size_t errlen)
{
	struct watch *l = xcalloc(1, sizeof(*l));
	struct evlist ev = {0};
	struct live_opts co = {.buffer_kb = o->buffer_kb, .triggers_only = o->in_kernel};

	ev.names = exit_types_event_names(o->types, o->in_kernel ? 0 : view_needs(o), &ev.n);
	if (o->anatomy)
		anatomy_events(&ev);
	co.events = (const char *const *)ev.names;
	co.nevents = ev.n;
	co.pids = o->pids;
	co.npids = o->npids;
	l->c = live_new(&co, errbuf, errlen);
	if (!l->c || setup_decoder(l, o->types, &ev, errbuf, errlen) < 0 ||
	    (o->in_kernel && watch_ik_setup(l, o, errbuf, errlen) < 0) ||
	    (o->all_events && watch_count_all(l, errbuf, errlen) < 0)) {
		exit_types_event_names_free(ev.names, ev.n);
		watch_free(l);
		return NULL;
	}
	exit_types_event_names_free(ev.names, ev.n);
	for (int s = 0; s < WATCH_NTABLES; s++) {
		l->cur[s] = stats_table_new();
		l->last[s] = stats_table_new();
		l->total[s] = stats_table_new();
		/* A guest that touches many MMIO addresses must not use up memory. */
		stats_table_set_sub_cap(l->cur[s], STATS_SUB_CAP);
		stats_table_set_sub_cap(l->last[s], STATS_SUB_CAP);
		stats_table_set_sub_cap(l->total[s], STATS_SUB_CAP);
	}
	/*
	 * Sub-keys from the start when asked (the drill-down shows them), but
	 * not with buckets: those need kvm_page_fault, whose addresses would
	 * be sub-keys.
	 */
	if (o->slower_ns) {
		l->slower_ns = o->slower_ns;
		for (int s = 0; s < WATCH_NSRC; s++)
			l->slow[s] = stats_outliers_new(WATCH_SLOW_KEEP, o->slower_ns);
	}
	if (o->anatomy)
		setup_anatomy(l);
	setup_engine(l, o);
	return l;
}

int watch_start(struct watch *l)
{
	return live_start(l->c);
}

/* Everything queued, through the feed; the interval's counts grow by what it walked. */
static int run_feed(struct watch *l)
{
	struct feed_counts c;
	char e[256];

	if (feed_run(l->feed, e, sizeof(e)) < 0) {
		errno = EIO; /* a page the kernel wrote wrong: "reading the trace buffers: ..." */
		return -1;
	}
	engine_counts(l->en, &c, NULL);
	l->events_cur += c.records - l->seen.records;
	l->gaps += c.gaps - l->seen.gaps;
	if (c.isa)
		l->isa = c.isa;
	l->seen = c;
	return 0;
}

int watch_poll(struct watch *l, int timeout_ms)
{
	if (l->ik)
		return watch_ik_poll(l, timeout_ms);
	if (live_read(l->c, timeout_ms, on_page, l) < 0)
		return -1;
	/* Partial pages too, so that every CPU is drained up to now (see above). */
	if (live_flush(l->c, on_page, l) < 0)
		return -1;
	return run_feed(l);
}

void watch_tick(struct watch *l, double dt)
{
	uint64_t lost = 0;

	for (int s = 0; s < WATCH_NTABLES; s++) {
		stats_table_clear(l->last[s]);
		stats_table_merge(l->last[s], l->cur[s]);
		stats_table_merge(l->total[s], l->cur[s]);
		stats_table_clear(l->cur[s]);
	}
	for (int s = 0; s < WATCH_NSRC && l->an_cur[s]; s++) {
		stats_anatomy_clear(l->an_last[s]);
		stats_anatomy_merge(l->an_last[s], l->an_cur[s]);
		stats_anatomy_merge(l->an_total[s], l->an_cur[s]);
		stats_anatomy_clear(l->an_cur[s]);
	}
	l->events_last = l->events_cur;
	l->events_total += l->events_cur;
	l->events_cur = 0;
	l->last_dt = dt;
	/* overrun (overwrite mode) + dropped events (overwrite off): the per-page
	 * flags only say that something was lost, the instance says how much. */
	if (live_lost(l->c, &lost) == 0)
		l->lost = lost >= l->lost_base ? lost - l->lost_base : 0;
	l->lost += l->ik_dropped;
}

void watch_thread_gone(struct watch *l, int32_t tid)
{
	if (l->ik)
		watch_ik_thread_gone(l, tid);
	else
		pair_end_thread(engine_pair(l->en), tid);
}

void watch_reset(struct watch *l)
{
	uint64_t lost = 0;

	for (int s = 0; s < WATCH_NTABLES; s++) {
		stats_table_clear(l->cur[s]);
		stats_table_clear(l->last[s]);
		stats_table_clear(l->total[s]);
		if (s < WATCH_NSRC && l->slow[s])
			stats_outliers_clear(l->slow[s]);
		if (s < WATCH_NSRC && l->an_cur[s]) {
			stats_anatomy_clear(l->an_cur[s]);
			stats_anatomy_clear(l->an_last[s]);
			stats_anatomy_clear(l->an_total[s]);
		}
	}
	live_lost(l->c, &lost);
	l->lost_base = lost;
	l->lost = 0;
	l->events_cur = l->events_last = l->events_total = 0;
	l->gaps = 0;
}

void watch_counts(const struct watch *l, uint64_t *exits, uint64_t *uexits)
{
	struct pair_counts n;

	engine_counts(l->en, NULL, &n);
	*exits = l->ik ? l->ik_exits : n.exits;
	*uexits = n.uexits;
}

void watch_free(struct watch *l)
{
	if (!l)
		return;
	/* Our triggers, then the instance: it must not outlive us whatever else fails. */
	watch_ik_free(l);
	live_free(l->c);
	engine_free(l->en);
	for (int i = 0; l->queues && i < l->ncpus; i++)
		feed_queue_free(l->queues[i]);
	free(l->queues);
	decode_free(l->d);
	if (l->tep)
		tep_free(l->tep);
	for (int s = 0; s < WATCH_NTABLES; s++) {
		stats_table_free(l->cur[s]);
		stats_table_free(l->last[s]);
		stats_table_free(l->total[s]);
		if (s < WATCH_NSRC) {
			stats_outliers_free(l->slow[s]);
			stats_anatomy_free(l->an_cur[s]);
			stats_anatomy_free(l->an_last[s]);
			stats_anatomy_free(l->an_total[s]);
		}
	}
	free(l->evname);
	free(l->evnames);
	free(l);
}
