// SPDX-License-Identifier: GPL-2.0
/*
 * Binds the recording's events to exit_types tables once, then decodes each
 * record with a lookup by common_type and a few loads at known offsets:
 * tep_read_number() per field would cost 20-30 ns each (tracing-facts.md).
 *
 * The formats come from the file being read, so they are checked before they
 * are used: event ids must fit common_type (a u16) and be unique, and every
 * field read must lie inside a record (no record is longer than a page).
 * Offsets and sizes are compared in 64 bits, so no value wraps.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include "alloc.h"
#include "decode.h"
#include "intern.h"
#include "decode-local.h"

struct fld {
	uint32_t off, size; /* checked against the page size when bound */
	bool is_signed;
	bool present;
};

/* common_type is an unsigned short in every kernel: no record can carry a larger id. */
#define MAX_EVENT_ID 65535

/* One exit table bound to one event (kvm_exit serves both VMX and SVM). */
struct exit_bind {
	const struct exit_table *t;
	struct fld reason, sub, error, match, vcpu, dfield, skfield, sklow, pc;
	bool pc_bound; /* the event has the table's pc field (pc: present while details are read) */
	bool extra;    /* dfield, skfield or pc present (exit_extra()) */
	enum kes_detail dkind;	/* the table's detail-field kind */
	struct exit_name *over; /* names from the recording's own format file */
	size_t nover;
};

#define NAME_CACHE 256

/*
 * An exit's raw fields (reason, sub, error) and table -> its key, interned
 * display name and details; they repeat endlessly. Keyed by what the
 * record holds, so that a hit skips exit_table_compose() too (report of
 * the bench's 1 M-event recording: 268.6 -> 265.1 M instructions), and
 * matched on all of it: a hash of the key alone let two keys share a name.
 * NAME_CACHE slots, for an exit's bind only (bind_exit()): in every
 * bind, a small report's 44 binds zeroed 573 KB; without, it takes 548
 * -> 469 page faults, at ~20 us each on this machine kind (a PVM guest).
 */
struct name_slot {
	uint64_t reason, sub;
	int64_t error;
	uint64_t key; /* exit_table_compose()'s */
	const char *name;
	struct decode_kinds kinds;
	uint8_t table; /* the exit_bind's index */
};

struct bind {
	uint8_t role; /* enum kes_kind, or 0xff: unbound */
	uint8_t nexit;
	uint32_t need; /* bytes a record must have for every field read */
	uint32_t fast; /* and for common_pid too: decode_rec()'s fast path */
	struct exit_bind exit[4];
	/* entry/detail */
	struct fld vcpu, match, sub, flag;
	int64_t match_value;
	uint64_t flag_mask;
	enum kes_detail detail;
	const char *isa;
	/* KES_SCHED (--anatomy): enum kes_sched and its fields (sched.c) */
	uint8_t sched;
	struct fld s_tid, s_sub, s_value;
	struct fld s_comm[2]; /* char arrays: off, size; -> reason, isa */
	struct name_slot *cache; /* NAME_CACHE slots: see struct name_slot */
};

struct decoder {
	struct text_decoder *text; /* a text decoder (decode_new_text()): the rest is unused */
	struct sched_comms *comms; /* --anatomy's thread names (decode_anatomy()), or NULL */
	struct tep_handle *tep;
	bool swap;	     /* file endianness differs from ours */
	uint32_t pid_off;    /* common_pid */
	uint32_t max_record; /* bytes: a record never exceeds a page */
	int nbound;
	int maxid;
	int lim;		 /* the largest id decode_rec()'s fast path takes: -1 none */
	bool lean;		 /* detail events: their kind only (decode_need_details()) */
	struct bind **byid;			 /* indexed by event id */
	uint32_t *detail_size; /* [id <= lim]: a detail's least size on the fast path, else 0 */
	uint64_t known[(MAX_EVENT_ID + 1) / 64]; /* ids some format has */
	uint64_t unknown;			 /* records whose id no format has */
	int first_unknown;
	uint64_t first_unknown_ts; /* its time and CPU */
	int first_unknown_cpu;
	uint64_t short_records; /* records shorter than the fields their format says they have */
	char err[320];		/* why the formats cannot be used, or "" */
};

static bool name_eq(const char *table_name, const char *s)
{
	return table_name && strcmp(table_name, s) == 0;
}

static void add_table(struct decode_role *r, const struct exit_table *t, uint8_t role)
{
	if (r->nt && r->role != role)
		return; /* a table of another kind on the same event: the first kind wins */
	r->role = role;
	if (r->nt < DECODE_MAX_TABLES)
		r->t[r->nt++] = t;
}

void decode_role_of(const struct exit_types *types, const char *sys, const char *ev,
		    struct decode_role *r)
{
	*r = (struct decode_role){.role = DECODE_ROLE_NONE};
	for (size_t i = 0; i < types->n; i++) {
		const struct exit_table *t = &types->tables[i];

		if (name_eq(t->exit_event, ev) && (!sys || name_eq(t->exit_system, sys)))
			add_table(r, t, t->kind == EXIT_TABLE_USERSPACE ? KES_UEXIT : KES_EXIT);
	}
	bool is_exit = r->nt > 0;

	for (size_t i = 0; i < types->n && !is_exit; i++) {
		const struct exit_table *t = &types->tables[i];

		if ((name_eq(t->entry_event, ev) && (!sys || name_eq(t->entry_system, sys))) ||
		    (t->entry_event2 && name_eq(t->entry_event2, ev) &&
		     (!sys || name_eq(t->entry_system2, sys))))
			add_table(r, t, t->kind == EXIT_TABLE_USERSPACE ? KES_UENTRY : KES_ENTRY);
	}
	if (!r->nt && (r->detail = exit_types_detail(types, sys, ev)))
		r->role = KES_DETAIL;
}

static void fail(struct decoder *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct decoder *d, const char *fmt, ...)
{
	va_list ap;

	if (d->err[0])
		return; /* the first problem is the one to name */
	va_start(ap, fmt);
	vsnprintf(d->err, sizeof(d->err), fmt, ap);
	va_end(ap);
}

static struct fld field_of(struct decoder *d, struct tep_event *ev, const char *name)
{
	struct fld f = {0};
	struct tep_format_field *tf;

	if (!name || !(tf = tep_find_field(ev, name)))
		return f;
	/* int in libtraceevent: a huge offset in the file comes out negative */
	if (tf->offset < 0 || tf->size < 0 ||
	    (uint64_t)tf->offset + (uint64_t)tf->size > d->max_record) {
		fail(d,
		     "event %s:%s: field '%s' at offset %d (size %d) lies outside any record "
		     "(a page holds %u bytes)",
		     ev->system, ev->name, name, tf->offset, tf->size, d->max_record);
		return f;
	}
	f.off = (uint32_t)tf->offset;
	f.size = (uint32_t)tf->size;
	f.is_signed = tf->flags & TEP_FIELD_IS_SIGNED;
	f.present = f.size == 1 || f.size == 2 || f.size == 4 || f.size == 8;
	/* the fields the tables name are numbers: another size is a changed format */
	if (!f.present)
		fail(d, "event %s:%s: field '%s' has %d bytes (a number has 1, 2, 4 or 8)",
		     ev->system, ev->name, name, tf->size);
	return f;
}

static void needs(struct bind *b, const struct fld *f)
{
	if (f->present && f->off + f->size > b->need)
		b->need = f->off + f->size;
}

/*
 * A field's value. checked: the record may be shorter than the field, or of
 * the other byte order; unchecked (a constant at every call, so the compiler
 * drops the tests) is for records decode_rec() has seen to hold every field
 * of their bind (b->need) in host order.
 */
static inline __attribute__((always_inline)) uint64_t
load_as(const struct decoder *d, const void *data, int size, const struct fld *f, bool checked)
{
	uint64_t v = 0;

	if (!f->present)
		return 0;
	if (checked && (size < 0 || (uint64_t)f->off + f->size > (uint64_t)size))
		return 0;
	if (checked && d->swap)
		return tep_read_number(d->tep, (const char *)data + f->off, f->size);
	switch (f->size) {
	case 1: {
		uint8_t x;
		memcpy(&x, (const char *)data + f->off, 1);
		v = f->is_signed ? (uint64_t)(int64_t)(int8_t)x : x;
		break;
	}
	case 2: {
		uint16_t x;
		memcpy(&x, (const char *)data + f->off, 2);
		v = f->is_signed ? (uint64_t)(int64_t)(int16_t)x : x;
		break;
	}
	case 4: {
		uint32_t x;
		memcpy(&x, (const char *)data + f->off, 4);
		v = f->is_signed ? (uint64_t)(int64_t)(int32_t)x : x;
		break;
	}
	case 8:
		memcpy(&v, (const char *)data + f->off, 8);
		break;
	}
	return v;
}

static uint64_t load(const struct decoder *d, const void *data, int size, const struct fld *f)
{
	return load_as(d, data, size, f, true);
}

static struct bind *bind_new(struct decoder *d, struct tep_event *ev, uint8_t role)
{
	struct bind *b;

	if (ev->id < 0 || ev->id > d->maxid || d->byid[ev->id])
		return NULL;
	b = xcalloc(1, sizeof(*b));
	b->role = role;
	d->byid[ev->id] = b;
	d->nbound++;
	return b;
}

static void bind_exit(struct decoder *d, struct bind *b, struct tep_event *ev,
		      const struct exit_table *t)
{
	struct fld reason = field_of(d, ev, t->reason_field);

	if (b->nexit == ARRAY_SIZE(b->exit) || !reason.present)
		return; /* a kernel whose event lacks the field: the table does not apply */
	if (!b->cache)
		b->cache = xcalloc(NAME_CACHE, sizeof(*b->cache));
	struct exit_bind *x = &b->exit[b->nexit];
	*x = (struct exit_bind){.t = t, .reason = reason};
	x->sub = field_of(d, ev, t->sub_field);
	x->error = field_of(d, ev, t->error_field);
	x->vcpu = field_of(d, ev, t->vcpu_field);
	x->match = field_of(d, ev, t->match.field);
	x->dfield = field_of(d, ev, t->detail_field);
	x->skfield = field_of(d, ev, t->subkey_field);
	x->sklow = field_of(d, ev, t->subkey_low_field);
	x->pc = field_of(d, ev, t->pc_field);
	x->pc_bound = x->pc.present;
	x->extra = x->dfield.present || x->skfield.present || x->pc.present;
	x->dkind = t->detail_kind && exit_types_detail_kind(t->detail_kind) > 0
		       ? (enum kes_detail)exit_types_detail_kind(t->detail_kind)
		       : KES_D_NONE;
	if (t->match.field && !x->match.present)
		return;
	symbolic_names(ev, t, &x->over, &x->nover);
	needs(b, &x->reason);
	needs(b, &x->sub);
	needs(b, &x->error);
	needs(b, &x->vcpu);
	needs(b, &x->match);
	b->nexit++;
}

/* An entry shared by tables (kvm_entry: VMX and SVM) reads as the last one's. */
static void bind_entry(struct decoder *d, struct bind *b, struct tep_event *ev,
		       const struct exit_table *t)
{
	b->vcpu = field_of(d, ev, t->vcpu_field);
	b->match = field_of(d, ev, t->entry_match.field);
	b->match_value = t->entry_match.value;
	b->isa = t->isa;
	needs(b, &b->vcpu);
	needs(b, &b->match);
}

static void bind_detail(struct decoder *d, struct bind *b, struct tep_event *ev,
			const struct exit_detail *de)
{
	b->detail = (enum kes_detail)de->kind;
	b->sub = field_of(d, ev, de->sub_field);
	b->flag = field_of(d, ev, de->flag_field);
	b->flag_mask = de->flag_mask;
	b->vcpu = field_of(d, ev, "vcpu_id");
	needs(b, &b->sub);
	needs(b, &b->flag);
	needs(b, &b->vcpu);
}

static void check_overlap(struct decoder *d, struct tep_event *ev);

/* A char array field (a thread name), within a record; present false when there is none. */
static struct fld str_field_of(struct decoder *d, struct tep_event *ev, const char *name)
{
	struct fld f = {0};
	struct tep_format_field *tf;

	if (!name || !(tf = tep_find_field(ev, name)))
		return f;
	if (tf->offset < 0 || tf->size <= 0 ||
	    (uint64_t)tf->offset + (uint64_t)tf->size > d->max_record) {
		fail(d, "event %s:%s: field '%s' at offset %d (size %d) lies outside any record",
		     ev->system, ev->name, name, tf->offset, tf->size);
		return f;
	}
	f.off = (uint32_t)tf->offset;
	f.size = (uint32_t)tf->size;
	f.present = true;
	return f;
}

/* One of --anatomy's events (sched.c), if the recording has it: bound, 1; else 0. */
static int bind_sched(struct decoder *d, const struct sched_event *e)
{
	struct tep_event *ev = tep_find_event_by_name(d->tep, e->sys, e->name);
	struct bind *b;

	if (!ev || (ev->flags & TEP_EVENT_FL_FAILED) || !(b = bind_new(d, ev, KES_SCHED)))
		return 0;
	b->sched = (uint8_t)e->what;
	b->s_tid = field_of(d, ev, e->tid);
	b->s_sub = field_of(d, ev, e->sub);
	b->s_value = field_of(d, ev, e->value);
	b->s_comm[0] = str_field_of(d, ev, e->comm);
	b->s_comm[1] = str_field_of(d, ev, e->comm2);
	needs(b, &b->s_tid);
	needs(b, &b->s_sub);
	needs(b, &b->s_value);
	needs(b, &b->s_comm[0]);
	needs(b, &b->s_comm[1]);
	check_overlap(d, ev);
	/*
	 * Never the fast path (decode_rec()): its switch stays the one it was
	 * without --anatomy, and these records are few (callgrind, report of
	 * 0.9 M records: 2.5 M instructions more in decode_rec() with a case
	 * of their own there).
	 */
	b->fast = UINT32_MAX;
	return 1;
}

/*
 * The halt's length: kvm_vcpu_wakeup's ns into its detail event's sub (a
 * halt has no sub-key, so sub is free), for the anatomy's polling window.
 */
static void bind_halt_ns(struct decoder *d)
{
	struct tep_event *ev = tep_find_event_by_name(d->tep, SCHED_HALT_SYS, SCHED_HALT_EVENT);
	struct bind *b;

	if (!ev || ev->id < 0 || ev->id > d->maxid || !(b = d->byid[ev->id]) ||
	    b->role != KES_DETAIL || b->detail != KES_D_HALT)
		return;
	b->sub = field_of(d, ev, SCHED_HALT_NS);
	needs(b, &b->sub);
	b->fast = b->need > d->pid_off + 4 ? b->need : d->pid_off + 4;
	if (d->detail_size && ev->id <= d->lim)
		d->detail_size[ev->id] = b->fast;
}

/*
 * libtraceevent's lookups (tep_find_event(), tep_find_event_by_name()) keep
 * their last answer in the tep handle and read it back unlocked: one thread
 * can be handed the event another thread just looked up. The split's two
 * halves bind a decoder each on one handle at once (split.c), and one time
 * in about a thousand under load a half bound kvm_exit to another event's
 * format (its exits "UNKNOWN_ISA", its table different from the one
 * thread's). So every binding takes this lock; decoding does no lookup.
 */
static pthread_mutex_t bind_lock = PTHREAD_MUTEX_INITIALIZER;

static bool anatomy_bind(struct decoder *d);

bool decode_anatomy(struct decoder *d)
{
	bool ret;

	pthread_mutex_lock(&bind_lock);
	ret = anatomy_bind(d);
	pthread_mutex_unlock(&bind_lock);
	return ret;
}

static bool anatomy_bind(struct decoder *d)
{
	bool has_switch = false;
	const struct sched_event *e;

	if (d->text) {
		text_decoder_set_anatomy(d->text, true);
		return true;
	}
	if (!d->byid || d->maxid < 0)
		return false;
	if (!d->comms)
		d->comms = sched_comms_new();
	for (size_t i = 0; (e = sched_event_at(i)); i++)
		if (bind_sched(d, e) && e->what == KES_S_SWITCH)
			has_switch = true;
	bind_halt_ns(d);
	if (d->err[0])
		d->lim = -1; /* as decode_new() leaves a decoder whose formats it refused */
	return has_switch && !d->err[0];
}

struct bind_walk {
	struct decoder *d;
	const struct exit_types *types;
};

/* One event the tables name: what it is to them (decode_role_of, as text), bound to its fields. */
static void bind_event(const char *sys, const char *name, void *arg)
{
	struct bind_walk *w = arg;
	struct tep_event *ev = tep_find_event_by_name(w->d->tep, sys, name);
	struct decode_role r;
	struct bind *b;

	if (!ev)
		return;
	decode_role_of(w->types, sys, name, &r);
	if (r.role == DECODE_ROLE_NONE)
		return;
	/*
	 * libtraceevent keeps an event whose format it could not parse, with the
	 * fields it read before the error (a size of -1, an offset of -2): bound,
	 * it would lack fields and its records would silently count as nothing.
	 */
	if (ev->flags & TEP_EVENT_FL_FAILED) {
		fail(w->d, "event %s:%s: its format in the file does not parse", sys, name);
		return;
	}
	if (!(b = bind_new(w->d, ev, r.role)))
		return;
	for (size_t i = 0; i < r.nt; i++) {
		if (r.role == KES_EXIT || r.role == KES_UEXIT)
			bind_exit(w->d, b, ev, r.t[i]);
		else
			bind_entry(w->d, b, ev, r.t[i]);
	}
	if (r.role == KES_DETAIL)
		bind_detail(w->d, b, ev, r.detail);
}

/*
 * Every format's id fits common_type and no two formats share one (the
 * records of one would be read as the other's). Fills d->known, d->maxid.
 */
static int check_ids(struct decoder *d)
{
	int n = tep_get_events_count(d->tep);

	for (int i = 0; i < n; i++) {
		struct tep_event *ev = tep_get_event(d->tep, i);

		if (!ev)
			continue;
		if (ev->id < 0 || ev->id > MAX_EVENT_ID) {
			fail(d, "event %s:%s has ID %d: event ids are 16-bit (common_type)",
			     ev->system, ev->name, ev->id);
			return -1;
		}
		if (d->known[ev->id / 64] >> (ev->id % 64) & 1) {
			struct tep_event *other = tep_find_event(d->tep, ev->id);

			fail(d, "events %s:%s and %s:%s have the same ID %d", ev->system, ev->name,
			     other ? other->system : "?", other ? other->name : "?", ev->id);
			return -1;
		}
		d->known[ev->id / 64] |= 1ULL << (ev->id % 64);
		if (ev->id > d->maxid)
			d->maxid = ev->id;
	}
	return 0;
}

static int cmp_field_offset(const void *pa, const void *pb)
{
	const struct tep_format_field *a = *(const struct tep_format_field *const *)pa;
	const struct tep_format_field *b = *(const struct tep_format_field *const *)pb;

	return (a->offset > b->offset) - (a->offset < b->offset);
}

/*
 * The kernel lays an event's fields out one after the other: two that share
 * bytes mean a changed offset or size, and a field read from the wrong
 * bytes gives plausible numbers (a reason read from the errno).
 */
static void check_overlap(struct decoder *d, struct tep_event *ev)
{
	struct tep_format_field *v[256], *f;
	size_t n = 0;

	for (f = ev->format.common_fields; f && n < ARRAY_SIZE(v); f = f->next)
		v[n++] = f;
	for (f = ev->format.fields; f && n < ARRAY_SIZE(v); f = f->next)
		v[n++] = f;
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_field_offset);
	for (size_t i = 1; i < n; i++)
		if ((int64_t)v[i - 1]->offset + v[i - 1]->size > v[i]->offset)
			fail(d, "event %s:%s: fields '%s' and '%s' overlap (offsets %d and %d)",
			     ev->system, ev->name, v[i - 1]->name, v[i]->name, v[i - 1]->offset,
			     v[i]->offset);
}

/* common_pid is an int at offset 4 on every kernel; the format says so, within a record. */
static void find_pid(struct decoder *d)
{
	struct tep_event *first = tep_get_first_event(d->tep);
	struct tep_format_field *cp = first ? tep_find_common_field(first, "common_pid") : NULL;

	d->pid_off = 4;
	if (!cp || cp->size != 4)
		return;
	if (cp->offset < 0 || (uint64_t)cp->offset + 4 > d->max_record)
		fail(d, "common_pid at offset %d lies outside any record", cp->offset);
	else
		d->pid_off = (uint32_t)cp->offset;
}

static void bind_all(struct decoder *d, struct tep_handle *tep, const struct exit_types *types);

struct decoder *decode_new(struct tep_handle *tep, const struct exit_types *types)
{
	struct decoder *d = xcalloc(1, sizeof(*d));

	pthread_mutex_lock(&bind_lock); /* see bind_lock */
	bind_all(d, tep, types);
	pthread_mutex_unlock(&bind_lock);
	return d;
}

static void bind_all(struct decoder *d, struct tep_handle *tep, const struct exit_types *types)
{
	int page = tep_get_page_size(tep);

	d->tep = tep;
	d->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	/* A page the file does not state: the largest a kernel ring buffer has. */
	d->max_record = page > 0 ? (uint32_t)page : 1u << 27;
	d->first_unknown = -1;
	if (check_ids(d) < 0) {
		d->maxid = d->lim = -1; /* nothing bound: decode_error() says why */
		return;
	}
	find_pid(d);
	d->byid = xcalloc((size_t)d->maxid + 1, sizeof(*d->byid));
	exit_types_events(types, EXIT_NEED_ALL, bind_event, &(struct bind_walk){d, types});
	for (int id = 0; id <= d->maxid && !d->err[0]; id++)
		if (d->byid[id]) {
			struct tep_event *ev = tep_find_event(tep, id);
			if (ev)
				check_overlap(d, ev);
		}
	/* none after an error; none for a swapped file: tep_read_number() per field */
	d->lim = d->err[0] || d->swap ? -1 : d->maxid;
	d->detail_size = xcalloc((size_t)d->lim + 1, sizeof(*d->detail_size));
	for (int id = 0; id <= d->lim; id++)
		if (d->byid[id]) {
			struct bind *b = d->byid[id];

			b->fast = b->need > d->pid_off + 4 ? b->need : d->pid_off + 4;
			if (b->role == KES_DETAIL)
				d->detail_size[id] = b->fast;
		}
}

struct decoder *decode_new_text(const struct exit_types *types)
{
	struct decoder *d = xcalloc(1, sizeof(*d));

	d->text = text_decoder_new(types);
	d->nbound = 1; /* text names its events: there is nothing to bind up front */
	d->byid = xcalloc(1, sizeof(*d->byid));
	d->lim = -1;
	return d;
}

void decode_need_details(struct decoder *d, bool need)
{
	d->lean = !need;
	/* the guest's pc is a detail too: unbound, a plain report's exits never test for it */
	for (int id = 0; id <= d->maxid; id++)
		for (unsigned i = 0; d->byid && d->byid[id] && i < d->byid[id]->nexit; i++) {
			struct exit_bind *x = &d->byid[id]->exit[i];

			x->pc.present = need && x->pc_bound;
			x->extra = x->dfield.present || x->skfield.present || x->pc.present;
		}
}

void decode_text_plugin_names(struct decoder *d, bool on)
{
	text_decoder_set_plugin_names(d->text, on);
}

int decode_text(struct decoder *d, const struct kes_text_rec *r, struct kes_event *ev)
{
	return text_decode(d->text, r, ev);
}

const char *decode_text_why(const struct decoder *d)
{
	return text_decode_why(d->text);
}

int decode_text_role(struct decoder *d, const struct kes_text_rec *r)
{
	return text_decode_role(d->text, r);
}

bool decode_text_label(struct decoder *d, const struct kes_text_rec *r, const char *w, size_t len)
{
	return text_decode_label(d->text, r, w, len);
}

void decode_free(struct decoder *d)
{
	if (!d)
		return;
	text_decoder_free(d->text);
	sched_comms_free(d->comms);
	for (int i = 0; d->byid && i <= d->maxid; i++) {
		if (!d->byid[i])
			continue;
		for (int j = 0; j < d->byid[i]->nexit; j++)
			free(d->byid[i]->exit[j].over);
		free(d->byid[i]->cache);
		free(d->byid[i]);
	}
	free(d->byid);
	free(d->detail_size);
	free(d);
}

const uint32_t *decode_detail_sizes(const struct decoder *d, int *lim, uint32_t *pid_off)
{
	*lim = d->detail_size ? d->lim : -1;
	*pid_off = d->pid_off;
	return d->detail_size;
}

bool decode_binds(const struct decoder *d, enum kes_kind role)
{
	for (int i = 0; d->byid && i <= d->maxid; i++)
		if (d->byid[i] && d->byid[i]->role == role &&
		    (role != KES_EXIT || d->byid[i]->nexit))
			return true;
	return false;
}

int decode_nbound(const struct decoder *d)
{
	return d->err[0] ? 0 : d->nbound;
}

const char *decode_error(const struct decoder *d)
{
	return d->err[0] ? d->err : NULL;
}

uint64_t decode_unknown_ids(const struct decoder *d, int *first)
{
	*first = d->first_unknown;
	return d->unknown;
}

uint64_t decode_short_records(const struct decoder *d)
{
	return d->short_records;
}

void decode_add_counts(struct decoder *d, const struct decoder *from)
{
	if (from->unknown && (!d->unknown || from->first_unknown_ts < d->first_unknown_ts ||
			      (from->first_unknown_ts == d->first_unknown_ts &&
			       from->first_unknown_cpu < d->first_unknown_cpu))) {
		d->first_unknown = from->first_unknown;
		d->first_unknown_ts = from->first_unknown_ts;
		d->first_unknown_cpu = from->first_unknown_cpu;
	}
	d->unknown += from->unknown;
	d->short_records += from->short_records;
}

static inline __attribute__((always_inline)) const struct exit_bind *
pick_exit(const struct decoder *d, const struct bind *b, const void *data, int size, bool checked)
{
	for (int i = 0; i < b->nexit; i++) {
		const struct exit_bind *x = &b->exit[i];
		if (!x->t->match.field ||
		    (int64_t)load_as(d, data, size, &x->match, checked) == x->t->match.value)
			return x;
	}
	return NULL;
}

/* exit_name() past its cache: the key, names and kinds looked up, into the slot. */
static __attribute__((noinline)) void exit_name_fill(struct bind *b, const struct exit_bind *x,
						     struct name_slot *n, uint64_t reason,
						     uint64_t sub, int64_t error)
{
	uint64_t key, flags;

	exit_table_compose(x->t, reason, sub, error, &key, &flags);
	*n = (struct name_slot){
	    .reason = reason,
	    .sub = sub,
	    .error = error,
	    .key = key,
	    .name = exit_table_display(x->t, x->over, x->nover, key, flags),
	    .table = (uint8_t)(x - b->exit),
	};
	decode_exit_kinds(x->t, key, &n->kinds);
}

void decode_exit_kinds(const struct exit_table *t, uint64_t key, struct decode_kinds *k)
{
	const char *kind = t->nimplies ? exit_table_detail(t, key) : NULL;

	k->explain = (uint16_t)exit_table_explain(t, key);
	k->implies = kind && exit_types_detail_kind(kind) > 0
			 ? (uint16_t)exit_types_detail_kind(kind)
			 : KES_D_NONE;
	k->halt = exit_table_is_halt(t, key);
}

/*
 * The exit's slot of the name cache, filled: its key, its name, in explain
 * the detail kind that explains it, in implies the one it says the kvm_exit
 * before it was (exit-table.h).
 */
static inline __attribute__((always_inline)) const struct name_slot *
exit_name(struct bind *b, const struct exit_bind *x, uint64_t reason, uint64_t sub, int64_t error)
{
	uint8_t table = (uint8_t)(x - b->exit);
	uint64_t h = reason ^ (sub * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)error << 8) ^ table;
	struct name_slot *n = &b->cache[(h ^ (h >> 17)) % NAME_CACHE];

	if (!n->name || n->reason != reason || n->sub != sub || n->error != error ||
	    n->table != table)
		exit_name_fill(b, x, n, reason, sub, error);
	return n;
}

/*
 * What some tables' exits carry besides the reason: a detail flag (HV's
 * ceded), a sub-key field (PR's dar), the guest's pc (while details are
 * read). One test of x->extra for all three: a plain x86 report has none.
 */
static inline __attribute__((always_inline)) void exit_extra(struct decoder *d,
							     const struct exit_bind *x,
							     const void *data, int size,
							     uint64_t key, struct kes_event *ev)
{
	if (x->dfield.present && load(d, data, size, &x->dfield))
		ev->detail = x->dkind;
	if (x->skfield.present && exit_table_has_subkey(x->t, key)) {
		ev->sub = exit_table_subkey(x->t, load(d, data, size, &x->skfield),
					    load(d, data, size, &x->sklow));
		ev->flags |= KES_EXIT_HAS_SUB;
	}
	if (x->pc.present) {
		ev->value = load(d, data, size, &x->pc);
		ev->flags |= KES_EXIT_HAS_PC;
	}
}

/*
 * checked: as load_as(). The fields b->need covers (reason, sub, error,
 * vcpu, match) load unchecked on the fast path; the detail and sub-key
 * fields, which it does not cover, always checked.
 */
static inline __attribute__((always_inline)) void exit_fields(struct decoder *d, struct bind *b,
							      const void *data, int size,
							      struct kes_event *ev, bool checked)
{
	const struct exit_bind *x = pick_exit(d, b, data, size, checked);
	const struct name_slot *n;

	if (!x) {
		ev->reason = intern("UNKNOWN_ISA");
		return;
	}
	n = exit_name(b, x, load_as(d, data, size, &x->reason, checked),
		      x->sub.present ? load_as(d, data, size, &x->sub, checked) : 0,
		      x->error.present ? (int64_t)load_as(d, data, size, &x->error, checked) : 0);
	ev->reason = n->name;
	ev->detail = n->kinds.explain;
	ev->implies = n->kinds.implies;
	if (n->kinds.halt)
		ev->flags |= KES_EXIT_HALT;
	ev->isa = x->t->isa;
	if (x->extra)
		exit_extra(d, x, data, size, n->key, ev);
	if (x->vcpu.present)
		ev->vcpu = (int32_t)load_as(d, data, size, &x->vcpu, checked);
}

/*
 * Out of line (one event in seven): inlined, its registers would lengthen
 * decode_rec()'s prologue.
 */
static __attribute__((noinline)) void decode_exit_fast(struct decoder *d, struct bind *b,
						       const void *data, int size,
						       struct kes_event *ev)
{
	exit_fields(d, b, data, size, ev, false);
}

static __attribute__((noinline)) void decode_exit_checked(struct decoder *d, struct bind *b,
							  const void *data, int size,
							  struct kes_event *ev)
{
	exit_fields(d, b, data, size, ev, true);
}

static const char *comm_at(struct decoder *d, const void *data, int size, const struct fld *f)
{
	if (!f->present || (uint64_t)f->off + f->size > (uint64_t)(size < 0 ? 0 : size))
		return NULL;
	return sched_comm(d->comms, (const char *)data + f->off, f->size);
}

/* --anatomy's events: out of line, the hot path of a plain report never meets one. */
static __attribute__((noinline)) void decode_sched(struct decoder *d, struct bind *b,
						   const void *data, int size,
						   struct kes_event *ev, bool checked)
{
	ev->detail = b->sched;
	if (b->s_tid.present)
		ev->tid = (int32_t)load_as(d, data, size, &b->s_tid, checked);
	ev->sub = load_as(d, data, size, &b->s_sub, checked);
	ev->value = load_as(d, data, size, &b->s_value, checked);
	ev->reason = comm_at(d, data, size, &b->s_comm[0]);
	ev->isa = comm_at(d, data, size, &b->s_comm[1]);
}

/*
 * The fields of an entry or detail record into ev (its common part set).
 * Returns 1, or 0 for an entry whose match field says it is none.
 */
static inline __attribute__((always_inline)) int
decode_fields(struct decoder *d, struct bind *b, const void *data, int size, struct kes_event *ev,
	      bool checked)
{
	if (checked && b->role == KES_SCHED) {
		decode_sched(d, b, data, size, ev, checked);
		return 1;
	}
	switch (b->role) {
	case KES_EXIT:
	case KES_UEXIT:
		if (checked)
			decode_exit_checked(d, b, data, size, ev);
		else
			decode_exit_fast(d, b, data, size, ev);
		break;
	case KES_ENTRY:
	case KES_UENTRY:
		/* unchecked, decode_rec() tested the match before building ev */
		if (checked && b->match.present &&
		    (int64_t)load_as(d, data, size, &b->match, checked) != b->match_value)
			return 0;
		if (b->vcpu.present)
			ev->vcpu = (int32_t)load_as(d, data, size, &b->vcpu, checked);
		ev->isa = b->isa;
		break;
	case KES_DETAIL:
		ev->detail = b->detail;
		if (d->lean)
			break; /* no view reads its fields: its kind and place are all */
		ev->sub = load_as(d, data, size, &b->sub, checked);
		if (b->flag.present) {
			ev->value = load_as(d, data, size, &b->flag, checked);
			ev->flags = (ev->value & b->flag_mask) != 0;
		}
		if (b->vcpu.present)
			ev->vcpu = (int32_t)load_as(d, data, size, &b->vcpu, checked);
		break;
	}
	return 1;
}

/* Any record: unknown ids counted, short records and the other byte order handled. */
/* noinline: inlined, its registers would cost decode_rec()'s fast path a longer prologue */
static __attribute__((noinline)) int decode_checked(struct decoder *d, const void *data, int size,
						    uint64_t ts, int cpu, struct kes_event *ev)
{
	uint16_t type;

	if (d->err[0])
		return 0;
	memcpy(&type, data, sizeof(type));
	if (d->swap)
		type = (uint16_t)tep_read_number(d->tep, data, 2);
	if (!(d->known[type / 64] >> (type % 64) & 1)) {
		/* the earliest by (ts, cpu), the one order: the feed decodes each CPU ahead of it */
		if (!d->unknown++ || ts < d->first_unknown_ts ||
		    (ts == d->first_unknown_ts && cpu < d->first_unknown_cpu)) {
			d->first_unknown = type;
			d->first_unknown_ts = ts;
			d->first_unknown_cpu = cpu;
		}
		return 0;
	}
	if ((uint64_t)size < (uint64_t)d->pid_off + 4 || type > d->maxid || !d->byid[type])
		return 0;
	struct bind *b = d->byid[type];
	/* a field past the record reads as 0: counted, so the report can say so */
	if ((uint32_t)size < b->need)
		d->short_records++;
	int32_t pid;
	memcpy(&pid, (const char *)data + d->pid_off, 4);
	if (d->swap)
		pid = (int32_t)tep_read_number(d->tep, (const char *)data + d->pid_off, 4);
	*ev = (struct kes_event){.ts = ts, .cpu = cpu, .tid = pid, .vcpu = -1, .kind = b->role};
	return decode_fields(d, b, data, size, ev, true);
}

/*
 * The hot path: a bound id in host order whose record holds every field its
 * bind reads goes straight to unchecked loads; anything else (an unbound or
 * unknown id, a short record, a swapped file, an error) to decode_checked(),
 * which gives the same result the slow way.
 */
int decode_rec(struct decoder *d, const void *data, int size, uint64_t ts, int cpu,
	       struct kes_event *ev)
{
	uint16_t type;
	struct bind *b;

	if (size < 2)
		return 0;
	memcpy(&type, data, sizeof(type));
	if ((int)type > d->lim || !(b = d->byid[type]) || (uint32_t)size < b->fast)
		return decode_checked(d, data, size, ts, cpu, ev);
	/*
	 * An entry its match field says is none (kvm_fpu's unloads: a third of
	 * the records decoded in a userspace-exit trace) before ev is built.
	 * Only entries have a match field.
	 */
	if (b->match.present && (int64_t)load_as(d, data, size, &b->match, false) != b->match_value)
		return 0;
	int32_t pid;
	memcpy(&pid, (const char *)data + d->pid_off, 4);
	*ev = (struct kes_event){.ts = ts, .cpu = cpu, .tid = pid, .vcpu = -1, .kind = b->role};
	return decode_fields(d, b, data, size, ev, false);
}
