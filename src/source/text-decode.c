// SPDX-License-Identifier: GPL-2.0
/*
 * Field values of a printed event -> struct kes_event, through the same
 * exit_types tables and the same exit_table_compose()/exit_table_display()
 * the binary decoder (decode/decoder.c) uses, so that a text trace and the
 * trace.dat of the same run give identical events:
 *
 *  - a reason printed as a number (riscv scause, "0x53" for a value the
 *    kernel has no name for, the kvm plugin's "UNKNOWN (n)") is composed and
 *    named by the table;
 *  - a reason printed as the kernel's own __print_symbolic() name is shown
 *    as printed, since the binary decoder shows the names of the
 *    recording's format file over the table's (decode/symbolic.c); tables
 *    with a composite key (arm64) show the table's names in both;
 *  - the table is the one whose names hold the printed name (x86 prints no
 *    isa: "HLT" is VMX, "hlt" SVM); for a number, the one this thread's
 *    last exit came from.
 *
 * Everything here is bounded: the per-event and per-thread caches have
 * fixed sizes, and names not in any table are interned only up to a limit.
 */
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "decode.h"
#include "text-local.h"

#define BIND_SLOTS     256
#define THREAD_SLOTS   1024
#define MAX_CANDS      8
#define MAX_FORMS      8
#define MAX_NEW_NAMES  1024 /* names/keys no table knows, interned at most */
#define MAX_FIELD_REFS 16
#define ROLE_NONE      0xff

/* What an event name means, looked up once. */
struct binding {
	bool used;
	char key[2 * TEXT_MAX_NAME + 2]; /* system '\0' event; system "" when not printed */
	uint8_t role;			 /* enum kes_kind, or ROLE_NONE */
	const struct exit_table *t[MAX_CANDS];
	size_t nt;
	const struct detail_event *detail;
	const struct text_form *forms[MAX_FORMS + 1];
	const struct exit_table *sticky; /* the table the last printed name picked */
};

struct thread {
	int32_t tid;
	int32_t vcpu;
	const struct exit_table *exit; /* of its last exit */
};

struct text_decoder {
	const struct exit_types *types;
	const struct exit_table *last_exit;
	bool plugin_names;
	unsigned new_names;
	uint64_t new_seen[2 * MAX_NEW_NAMES]; /* hashes of the new names made so far (0: free) */
	struct binding bind[BIND_SLOTS];
	struct thread threads[THREAD_SLOTS];
};

struct text_decoder *text_decoder_new(const struct exit_types *types)
{
	struct text_decoder *d = xcalloc(1, sizeof(*d));

	d->types = types;
	for (size_t i = 0; i < THREAD_SLOTS; i++)
		d->threads[i].tid = -1;
	return d;
}

void text_decoder_free(struct text_decoder *d)
{
	free(d);
}

void text_decoder_set_plugin_names(struct text_decoder *d, bool on)
{
	d->plugin_names = on;
}

static bool name_eq(const char *table_name, const char *s)
{
	return table_name && strcmp(table_name, s) == 0;
}

static void add_cand(struct binding *b, const struct exit_table *t, uint8_t role)
{
	if (b->nt && b->role != role)
		return; /* a table of another kind on the same event: the first kind wins */
	b->role = role;
	if (b->nt < MAX_CANDS)
		b->t[b->nt++] = t;
}

static void bind(const struct text_decoder *d, const char *sys, const char *ev, struct binding *b)
{
	const struct exit_types *ts = d->types;

	b->role = ROLE_NONE;
	b->nt = 0;
	b->detail = NULL;
	b->sticky = NULL;
	for (size_t i = 0; i < ts->n; i++) {
		const struct exit_table *t = &ts->tables[i];
		if (t->kind != EXIT_TABLE_NAMES && name_eq(t->exit_event, ev) &&
		    (!sys || name_eq(t->exit_system, sys)))
			add_cand(b, t, t->kind == EXIT_TABLE_USERSPACE ? KES_UEXIT : KES_EXIT);
	}
	bool is_exit = b->nt > 0;
	for (size_t i = 0; i < ts->n && !is_exit; i++) {
		const struct exit_table *t = &ts->tables[i];
		if (t->kind != EXIT_TABLE_NAMES && name_eq(t->entry_event, ev) &&
		    (!sys || name_eq(t->entry_system, sys)))
			add_cand(b, t, t->kind == EXIT_TABLE_USERSPACE ? KES_UENTRY : KES_ENTRY);
	}
	for (size_t i = 0; i < decode_ndetail_events && !b->nt; i++) {
		const struct detail_event *de = &decode_detail_events[i];
		if (strcmp(de->event, ev) == 0 && (!sys || strcmp(de->system, sys) == 0)) {
			b->detail = de;
			b->role = KES_DETAIL;
			break;
		}
	}
	text_forms_find(sys, ev, b->forms, ARRAY_SIZE(b->forms));
}

static struct binding *lookup(struct text_decoder *d, const struct text_line *l)
{
	char key[sizeof(((struct binding *)0)->key)];
	size_t sl = l->system ? l->system_len : 0;
	uint32_t h = 2166136261u;

	if (sl)
		memcpy(key, l->system, sl);
	key[sl] = '\0';
	memcpy(key + sl + 1, l->event, l->event_len);
	key[sl + 1 + l->event_len] = '\0';
	for (size_t i = 0; i < sl + 1 + l->event_len; i++)
		h = (h ^ (uint8_t)key[i]) * 16777619u;
	struct binding *b = &d->bind[h % BIND_SLOTS];
	if (b->used && memcmp(b->key, key, sl + 2 + l->event_len) == 0)
		return b;
	b->used = true;
	memcpy(b->key, key, sl + 2 + l->event_len);
	bind(d, l->system ? key : NULL, key + sl + 1, b);
	return b;
}

static struct thread *thread_of(struct text_decoder *d, int32_t tid)
{
	struct thread *th = &d->threads[(uint32_t)tid % THREAD_SLOTS];

	if (th->tid != tid)
		*th = (struct thread){.tid = tid, .vcpu = -1};
	return th;
}

static bool in(const struct exit_table *const *c, size_t n, const struct exit_table *t)
{
	for (size_t i = 0; t && i < n; i++)
		if (c[i] == t)
			return true;
	return false;
}

static bool num_of(const struct text_fields *f, const char *name, uint64_t *v)
{
	const struct text_field *x = text_field_get(f, name);

	if (!x || !x->has_num)
		return false;
	*v = x->num;
	return true;
}

/* ---- reason names ---- */

struct resolved {
	uint64_t key, flags;
	size_t name_len; /* of the name part of the printed text, 0: not the kernel's name */
};

static bool copy_name(char *buf, const char *s, size_t len)
{
	if (!len || len > TEXT_MAX_NAME)
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return true;
}

/* A printed flag word of t: "FAILED_VMENTRY", or the "0x%lx" __print_flags() gives unnamed bits. */
static bool flag_word(const struct exit_table *t, const char *w, size_t len, uint64_t *bits)
{
	char buf[TEXT_MAX_NAME + 1];

	if (!copy_name(buf, w, len))
		return false;
	for (size_t i = 0; i < t->nflags; i++) {
		if (strcmp(t->flags[i].name, buf) == 0) {
			*bits = t->flags[i].key;
			return true;
		}
	}
	if (len > 2 && w[0] == '0' && w[1] == 'x' && t->nflags) {
		uint64_t v = 0;
		for (size_t i = 2; i < len; i++) {
			char c = w[i];
			int x = -1;
			if (c >= '0' && c <= '9')
				x = c - '0';
			else if (c >= 'a' && c <= 'f')
				x = c - 'a' + 10;
			if (x < 0 || v >> 60)
				return false;
			v = v << 4 | (uint64_t)x;
		}
		*bits = v;
		return true;
	}
	return false;
}

/* Moves trailing flag words of t from s[0, *len) into *flags (the kernel prints "NAME FLAG ...").
 */
static void strip_flags(const struct exit_table *t, const char *s, size_t *len, uint64_t *flags)
{
	*flags = 0;
	for (;;) {
		size_t end = *len, start = end;
		uint64_t bits;
		while (start && s[start - 1] != ' ')
			start--;
		if (!start || !flag_word(t, s + start, end - start, &bits))
			return;
		*flags |= bits;
		*len = start;
		while (*len && s[*len - 1] == ' ')
			(*len)--;
	}
}

static bool alias_of(const struct exit_table *t, const struct text_alias *a, const char *name,
		     uint64_t *value)
{
	for (; a && a->name; a++) {
		if (strcmp(a->name, name) != 0)
			continue;
		if (a->match_field &&
		    !(name_eq(t->match.field, a->match_field) && t->match.value == a->match_value))
			continue;
		*value = a->value;
		return true;
	}
	return false;
}

/*
 * Is the printed name one of t's (alone, through an alias, or followed by
 * t's flags)? An alias says which table and key; the name shown is the
 * table's when a plugin printed it (plugin), else the printed one.
 */
static bool resolve_name(const struct exit_table *t, const struct text_field *rf,
			 const struct text_alias *aliases, bool plugin, struct resolved *r)
{
	char buf[TEXT_MAX_NAME + 1];
	uint64_t v;
	size_t len = rf->text_len;

	if (!copy_name(buf, rf->text, len))
		return false;
	*r = (struct resolved){.name_len = len};
	if (exit_table_key(t, buf, &r->key) == 0)
		return true;
	if (alias_of(t, aliases, buf, &v)) {
		exit_table_compose(t, v, 0, 0, &r->key, &r->flags);
		if (plugin)
			r->name_len = 0;
		return true;
	}
	strip_flags(t, rf->text, &len, &r->flags);
	if (len == rf->text_len || !copy_name(buf, rf->text, len))
		return false;
	r->name_len = len;
	return exit_table_key(t, buf, &r->key) == 0;
}

/*
 * The table for a reason printed as a number, or a name no table has: the
 * one of this thread's last exit, of this event's last printed name, of the
 * input's last exit; with none of those, the one table that names the
 * number (an old kernel prints "0x39" for VMX RDRAND, which only VMX names).
 */
static const struct exit_table *guess(struct text_decoder *d, const struct binding *b,
				      const struct exit_table *const *c, size_t nc,
				      const struct text_fields *f, int32_t tid)
{
	const struct exit_table *th = thread_of(d, tid)->exit, *named = NULL;
	unsigned nnamed = 0;

	if (in(c, nc, th))
		return th;
	if (in(c, nc, b->sticky))
		return b->sticky;
	if (in(c, nc, d->last_exit))
		return d->last_exit;
	for (size_t i = 0; i < nc; i++) {
		uint64_t v, sub = 0, key, flags;
		if (!num_of(f, c[i]->reason_field, &v))
			continue;
		num_of(f, c[i]->sub_field, &sub);
		exit_table_compose(c[i], v, sub, 0, &key, &flags);
		if (exit_table_name(c[i], key)) {
			named = c[i];
			nnamed++;
		}
	}
	return nnamed == 1 ? named : c[0];
}

/* Candidate tables the printed fields fit: their reason is there, their match does not contradict.
 */
static size_t fit(const struct binding *b, const char *fsys, const struct text_fields *f,
		  const struct exit_table **c)
{
	size_t nc = 0;

	for (size_t i = 0; i < b->nt; i++) {
		const struct exit_table *t = b->t[i];
		uint64_t m;
		if (fsys && !name_eq(t->exit_system, fsys))
			continue;
		if (!text_field_get(f, t->reason_field))
			continue;
		if (t->match.field && num_of(f, t->match.field, &m) && (int64_t)m != t->match.value)
			continue;
		c[nc++] = t;
	}
	return nc;
}

/*
 * Names that are not a table's own (a kernel name the table lacks, an
 * UNKNOWN(0x..), flags appended) are interned, and interned strings live
 * forever: a hostile input could make millions. Up to MAX_NEW_NAMES distinct
 * ones are made; past that the event is not decoded.
 */
static bool new_name_ok(struct text_decoder *d, const struct exit_table *t, uint64_t key,
			uint64_t flags, const char *name, size_t len)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)(uintptr_t)t;
	size_t slot;

	h = (h ^ key) * 1099511628211ULL;
	h = (h ^ flags) * 1099511628211ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 1099511628211ULL;
	h |= 1;
	for (slot = h % ARRAY_SIZE(d->new_seen); d->new_seen[slot];
	     slot = (slot + 1) % ARRAY_SIZE(d->new_seen))
		if (d->new_seen[slot] == h)
			return true;
	if (d->new_names >= MAX_NEW_NAMES)
		return false;
	d->new_names++;
	d->new_seen[slot] = h;
	return true;
}

static const char *display(struct text_decoder *d, const struct exit_table *t,
			   const struct text_field *rf, bool over_ok, const struct resolved *r)
{
	const char *known = exit_table_name(t, r->key);
	bool use_over = over_ok && rf->text && r->name_len;
	struct exit_name over;

	if (use_over && known && strlen(known) == r->name_len &&
	    memcmp(known, rf->text, r->name_len) == 0)
		use_over = false; /* the same name: no copy to make */
	if ((use_over || !known || r->flags) &&
	    !new_name_ok(d, t, r->key, r->flags, use_over ? rf->text : "",
			 use_over ? r->name_len : 0))
		return NULL;
	if (!use_over)
		return exit_table_display(t, NULL, 0, r->key, r->flags);
	over = (struct exit_name){r->key, intern_n(rf->text, r->name_len)};
	return exit_table_display(t, &over, 1, r->key, r->flags);
}

static int decode_exit(struct text_decoder *d, struct binding *b, const char *fsys,
		       const struct text_fields *f, struct kes_event *ev)
{
	const struct exit_table *c[MAX_CANDS], *t = NULL;
	const struct text_field *rf;
	struct resolved r = {0};
	size_t nc = fit(b, fsys, f, c);
	bool by_name = false;
	uint64_t sub = 0, err = 0, v;

	if (!nc)
		return -1;
	for (size_t i = 0; i < nc && !t; i++) {
		rf = text_field_get(f, c[i]->reason_field);
		if (rf->text && !rf->has_num &&
		    resolve_name(c[i], rf, f->aliases, d->plugin_names, &r))
			t = c[i];
	}
	by_name = t != NULL;
	if (t)
		b->sticky = t;
	else
		t = guess(d, b, c, nc, f, ev->tid);
	rf = text_field_get(f, t->reason_field);
	if (!by_name && rf->has_num) {
		num_of(f, t->sub_field, &sub);
		num_of(f, t->error_field, &err);
		exit_table_compose(t, rf->num, sub, (int64_t)err, &r.key, &r.flags);
		r.name_len = rf->text ? rf->text_len : 0;
	} else if (!by_name) {
		/* a name no table knows: shown as printed, like the format's own names */
		r = (struct resolved){.name_len = rf->text_len};
		strip_flags(t, rf->text, &r.name_len, &r.flags);
	}
	/*
	 * The printed name is shown as printed when it is the kernel's own
	 * (the binary decoder's format-file names), or when no table knows it.
	 */
	ev->reason = display(
	    d, t, rf, (f->kernel_symbols && !t->sub_field) || (!by_name && !rf->has_num), &r);
	if (!ev->reason)
		return -1;
	ev->isa = t->isa;
	struct thread *th = thread_of(d, ev->tid);
	if (t->vcpu_field) {
		/* trace-cmd's kvm plugin prints no vcpu on kvm_exit: the thread's entries did */
		ev->vcpu = num_of(f, t->vcpu_field, &v) ? (int32_t)v : th->vcpu;
		th->vcpu = ev->vcpu;
	}
	th->exit = t;
	d->last_exit = t;
	return 1;
}

static bool lists_entry(const struct exit_table *t, const struct binding *b)
{
	return in(b->t, b->nt, t);
}

static int decode_entry(struct text_decoder *d, struct binding *b, const char *fsys,
			const struct text_fields *f, struct kes_event *ev)
{
	struct thread *th = thread_of(d, ev->tid);
	const struct exit_table *t = NULL;
	uint64_t v;

	if (lists_entry(th->exit, b))
		t = th->exit;
	else if (lists_entry(d->last_exit, b))
		t = d->last_exit;
	/*
	 * No exit seen yet: a table whose vcpu field is printed here, else any.
	 * The last one, as decoder.c's bind_entry() keeps the last table's isa.
	 */
	for (int pass = 0; pass < 2 && !t; pass++) {
		for (size_t i = b->nt; i-- > 0 && !t;) {
			const struct exit_table *c = b->t[i];
			if (fsys && !name_eq(c->entry_system, fsys))
				continue;
			if (pass == 1 || (c->vcpu_field && text_field_get(f, c->vcpu_field)))
				t = c;
		}
	}
	if (!t)
		return -1;
	if (t->entry_match.field) {
		if (!num_of(f, t->entry_match.field, &v))
			return -1;
		if ((int64_t)v != t->entry_match.value)
			return 0; /* kvm_fpu unload: not an entry */
	}
	ev->isa = t->isa;
	if (t->vcpu_field && num_of(f, t->vcpu_field, &v)) {
		ev->vcpu = (int32_t)v;
		th->vcpu = ev->vcpu;
	}
	return 1;
}

static int decode_detail(const struct binding *b, const struct text_fields *f, struct kes_event *ev)
{
	const struct detail_event *de = b->detail;
	uint64_t v;

	if (!num_of(f, de->sub_field, &ev->sub))
		return -1;
	ev->detail = de->kind;
	/* as decoder.c does: the field whole in value, its flag bit in flags */
	if (de->flag_field && num_of(f, de->flag_field, &ev->value))
		ev->flags = (ev->value & de->flag_mask) != 0;
	if (num_of(f, "vcpu_id", &v))
		ev->vcpu = (int32_t)v;
	return 1;
}

/* The field names the tables read from this event: what the generic "name=value" reader looks for.
 */
static size_t field_refs(const struct binding *b, const char **names)
{
	size_t n = 0;

#define REF(x)                                                                                     \
	do {                                                                                       \
		if ((x) && n < MAX_FIELD_REFS)                                                     \
			names[n++] = (x);                                                          \
	} while (0)
	for (size_t i = 0; i < b->nt; i++) {
		const struct exit_table *t = b->t[i];
		REF(t->reason_field);
		REF(t->sub_field);
		REF(t->error_field);
		REF(t->match.field);
		REF(t->vcpu_field);
		REF(t->entry_match.field);
	}
	if (b->detail) {
		REF(b->detail->sub_field);
		REF(b->detail->flag_field);
		REF("vcpu_id");
	}
#undef REF
	return n;
}

int text_decode(struct text_decoder *d, const struct text_line *l, struct kes_event *ev)
{
	struct binding *b = lookup(d, l);
	struct text_fields f;
	const char *fsys = NULL;
	const struct text_form *const *form;

	if (b->role == ROLE_NONE)
		return 0;
	for (form = b->forms; *form; form++) {
		if (text_form_match(*form, l->payload, &f) == 0) {
			fsys = text_form_system(*form);
			break;
		}
	}
	if (!*form) {
		const char *names[MAX_FIELD_REFS];
		text_fields_generic(l->payload, names, field_refs(b, names), &f);
	}
	*ev = (struct kes_event){
	    .ts = l->ts, .cpu = l->cpu, .tid = l->tid, .vcpu = -1, .kind = b->role};
	switch (b->role) {
	case KES_EXIT:
	case KES_UEXIT:
		return decode_exit(d, b, fsys, &f, ev);
	case KES_ENTRY:
	case KES_UENTRY:
		return decode_entry(d, b, fsys, &f, ev);
	default:
		return decode_detail(b, &f, ev);
	}
}
