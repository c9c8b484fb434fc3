// SPDX-License-Identifier: GPL-2.0
/*
 * Binds the recording's events to exit_types tables once, then decodes each
 * record with a lookup by common_type and a few loads at known offsets:
 * tep_read_number() per field would cost 20-30 ns each (tracing-facts.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include "common.h"
#include "decode.h"
#include "symbolic.h"

struct fld {
	int off, size;
	bool is_signed;
	bool present;
};

/* One exit table bound to one event (kvm_exit serves both VMX and SVM). */
struct exit_bind {
	const struct exit_table *t;
	struct fld reason, sub, error, match, vcpu;
	struct exit_name *over; /* names from the recording's own format file */
	size_t nover;
};

#define NAME_CACHE 256

struct bind {
	uint8_t role; /* enum kes_kind, or 0xff: unbound */
	uint8_t nexit;
	struct exit_bind exit[4];
	/* entry/detail */
	struct fld vcpu, match, sub, flag;
	int64_t match_value;
	uint64_t flag_mask;
	enum kes_detail detail;
	const char *isa;
	/* (key, flags) -> interned display name; exit names repeat endlessly */
	struct {
		uint64_t key;
		const char *name;
	} cache[NAME_CACHE];
};

struct decoder {
	struct tep_handle *tep;
	bool swap;   /* file endianness differs from ours */
	int pid_off; /* common_pid */
	int nbound;
	int maxid;
	struct bind **byid; /* indexed by event id */
};

static struct fld field_of(struct tep_event *ev, const char *name)
{
	struct fld f = {0};
	struct tep_format_field *tf;

	if (!name || !(tf = tep_find_field(ev, name)))
		return f;
	f.off = tf->offset;
	f.size = tf->size;
	f.is_signed = tf->flags & TEP_FIELD_IS_SIGNED;
	f.present = f.size == 1 || f.size == 2 || f.size == 4 || f.size == 8;
	return f;
}

static uint64_t load(const struct decoder *d, const void *data, int size, const struct fld *f)
{
	uint64_t v = 0;

	if (!f->present || f->off + f->size > size)
		return 0;
	if (d->swap)
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

static struct bind *bind_for(struct decoder *d, struct tep_event *ev, uint8_t role)
{
	if (ev->id < 0 || ev->id > d->maxid)
		return NULL;
	struct bind *b = d->byid[ev->id];
	if (!b) {
		b = xcalloc(1, sizeof(*b));
		b->role = role;
		d->byid[ev->id] = b;
		d->nbound++;
	}
	return b->role == role ? b : NULL;
}

static void bind_exit(struct decoder *d, const struct exit_table *t)
{
	struct tep_event *ev = tep_find_event_by_name(d->tep, t->exit_system, t->exit_event);
	uint8_t role = t->kind == EXIT_TABLE_USERSPACE ? KES_UEXIT : KES_EXIT;
	struct bind *b;

	if (!ev || !(b = bind_for(d, ev, role)) || b->nexit == ARRAY_SIZE(b->exit))
		return;
	struct fld reason = field_of(ev, t->reason_field);
	if (!reason.present)
		return; /* a kernel whose event lacks the field: the table does not apply */
	struct exit_bind *x = &b->exit[b->nexit];
	*x = (struct exit_bind){.t = t, .reason = reason};
	x->sub = field_of(ev, t->sub_field);
	x->error = field_of(ev, t->error_field);
	x->vcpu = field_of(ev, t->vcpu_field);
	x->match = field_of(ev, t->match.field);
	if (t->match.field && !x->match.present)
		return;
	symbolic_names(ev, t, &x->over, &x->nover);
	b->nexit++;
}

static void bind_entry(struct decoder *d, const struct exit_table *t)
{
	struct tep_event *ev;
	uint8_t role = t->kind == EXIT_TABLE_USERSPACE ? KES_UENTRY : KES_ENTRY;
	struct bind *b;

	if (!t->entry_event)
		return;
	ev = tep_find_event_by_name(d->tep, t->entry_system, t->entry_event);
	if (!ev || !(b = bind_for(d, ev, role)))
		return;
	b->vcpu = field_of(ev, t->vcpu_field);
	b->match = field_of(ev, t->entry_match.field);
	b->match_value = t->entry_match.value;
	b->isa = t->isa;
}

static void bind_detail(struct decoder *d, const struct detail_event *de)
{
	struct tep_event *ev = tep_find_event_by_name(d->tep, de->system, de->event);
	struct bind *b;

	if (!ev || !(b = bind_for(d, ev, KES_DETAIL)))
		return;
	b->detail = de->kind;
	b->sub = field_of(ev, de->sub_field);
	b->flag = field_of(ev, de->flag_field);
	b->flag_mask = de->flag_mask;
	b->vcpu = field_of(ev, "vcpu_id");
}

static int max_event_id(struct tep_handle *tep)
{
	int n = tep_get_events_count(tep), maxid = 0;

	for (int i = 0; i < n; i++) {
		struct tep_event *ev = tep_get_event(tep, i);
		if (ev && ev->id > maxid)
			maxid = ev->id;
	}
	return maxid;
}

struct decoder *decoder_new(struct tep_handle *tep, const struct exit_types *types)
{
	struct decoder *d = xcalloc(1, sizeof(*d));

	d->tep = tep;
	d->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	d->maxid = max_event_id(tep);
	/* common_type is a u16 at 0 and common_pid an int at 4 on every kernel; ask anyway */
	struct tep_event *first = tep_get_first_event(tep);
	struct tep_format_field *cp = first ? tep_find_common_field(first, "common_pid") : NULL;
	d->pid_off = cp && cp->size == 4 ? cp->offset : 4;
	d->byid = xcalloc((size_t)d->maxid + 1, sizeof(*d->byid));
	for (size_t i = 0; i < types->n; i++) {
		if (types->tables[i].kind == EXIT_TABLE_NAMES)
			continue;
		bind_exit(d, &types->tables[i]);
		bind_entry(d, &types->tables[i]);
	}
	for (size_t i = 0; i < decode_ndetail_events; i++)
		bind_detail(d, &decode_detail_events[i]);
	return d;
}

void decoder_free(struct decoder *d)
{
	if (!d)
		return;
	for (int i = 0; i <= d->maxid; i++) {
		if (!d->byid[i])
			continue;
		for (int j = 0; j < d->byid[i]->nexit; j++)
			free(d->byid[i]->exit[j].over);
		free(d->byid[i]);
	}
	free(d->byid);
	free(d);
}

int decoder_nbound(const struct decoder *d)
{
	return d->nbound;
}

static const struct exit_bind *pick_exit(const struct decoder *d, const struct bind *b,
					 const void *data, int size)
{
	for (int i = 0; i < b->nexit; i++) {
		const struct exit_bind *x = &b->exit[i];
		if (!x->t->match.field ||
		    (int64_t)load(d, data, size, &x->match) == x->t->match.value)
			return x;
	}
	return NULL;
}

static const char *exit_name(struct bind *b, const struct exit_bind *x, uint64_t key,
			     uint64_t flags)
{
	uint64_t ck = key ^ (flags * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)(x - b->exit) << 60;
	size_t slot = (size_t)((ck ^ (ck >> 17)) % NAME_CACHE);

	if (b->cache[slot].name && b->cache[slot].key == ck)
		return b->cache[slot].name;
	b->cache[slot].key = ck;
	b->cache[slot].name = exit_table_display(x->t, x->over, x->nover, key, flags);
	return b->cache[slot].name;
}

static void decode_exit(struct decoder *d, struct bind *b, const void *data, int size,
			struct kes_event *ev)
{
	const struct exit_bind *x = pick_exit(d, b, data, size);
	uint64_t key, flags;

	if (!x) {
		ev->reason = intern("UNKNOWN_ISA");
		return;
	}
	exit_table_compose(x->t, load(d, data, size, &x->reason),
			   x->sub.present ? load(d, data, size, &x->sub) : 0,
			   x->error.present ? (int64_t)load(d, data, size, &x->error) : 0, &key,
			   &flags);
	ev->reason = exit_name(b, x, key, flags);
	ev->isa = x->t->isa;
	if (x->vcpu.present)
		ev->vcpu = (int32_t)load(d, data, size, &x->vcpu);
}

int decoder_decode(struct decoder *d, const void *data, int size, uint64_t ts, int cpu,
		   struct kes_event *ev)
{
	uint16_t type;

	if (size < d->pid_off + 4)
		return 0;
	memcpy(&type, data, sizeof(type));
	if (d->swap)
		type = (uint16_t)tep_read_number(d->tep, data, 2);
	if (type > d->maxid || !d->byid[type])
		return 0;
	struct bind *b = d->byid[type];
	int32_t pid;
	memcpy(&pid, (const char *)data + d->pid_off, 4);
	if (d->swap)
		pid = (int32_t)tep_read_number(d->tep, (const char *)data + d->pid_off, 4);
	*ev = (struct kes_event){.ts = ts, .cpu = cpu, .tid = pid, .vcpu = -1, .kind = b->role};
	switch (b->role) {
	case KES_EXIT:
	case KES_UEXIT:
		decode_exit(d, b, data, size, ev);
		break;
	case KES_ENTRY:
	case KES_UENTRY:
		if (b->match.present && (int64_t)load(d, data, size, &b->match) != b->match_value)
			return 0;
		if (b->vcpu.present)
			ev->vcpu = (int32_t)load(d, data, size, &b->vcpu);
		ev->isa = b->isa;
		break;
	case KES_DETAIL:
		ev->detail = b->detail;
		ev->sub = load(d, data, size, &b->sub);
		if (b->flag.present) {
			ev->value = load(d, data, size, &b->flag);
			ev->flags = (ev->value & b->flag_mask) != 0;
		}
		if (b->vcpu.present)
			ev->vcpu = (int32_t)load(d, data, size, &b->vcpu);
		break;
	}
	return 1;
}
