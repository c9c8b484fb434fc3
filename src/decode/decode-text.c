// SPDX-License-Identifier: GPL-2.0
/*
 * The text side of the decoder: a printed event -> field values (its printed
 * forms, decode-form.c) -> struct kes_event, through the same exit_types
 * tables and the same exit_table_compose()/exit_table_display() the binary
 * side (decoder.c) uses, so that a text trace and the trace.dat of the same
 * run give identical events:
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
#include "alloc.h"
#include "decode-local.h"
#include "decode.h"
#include "intern.h"

#define TEXT_MAX_NAME  128 /* event and system names the reader hands out */
#define BIND_SLOTS     256
#define THREAD_SLOTS   1024
#define MAX_CANDS      8
#define MAX_NEW_NAMES  1024 /* names/keys no table knows, interned at most */
/*
 * Field names a generic "name=value" payload is searched for: every table of
 * the event's (kvm_exit: x86 twice, arm64, riscv, loongarch, ...) names up to
 * ten, many the same; each name is kept once.
 */
#define MAX_FIELD_REFS 48
#define MAX_LABELS     24 /* words of an event's forms that a value follows */
#define NAME_MEMOS     256 /* resolve_name()'s answers kept (direct-mapped) */
#define NAME_MEMO_LEN  40  /* longer printed names are resolved every time */

struct label {
	const char *s; /* into an interned pattern */
	size_t len;
};

/* What an event name means, looked up once. */
struct binding {
	bool used;
	char key[2 * TEXT_MAX_NAME + 2]; /* system '\0' event; system "" when not printed */
	uint8_t sys_len, ev_len;	 /* of the two names in key */
	uint8_t role;			 /* enum kes_kind, or DECODE_ROLE_NONE */
	bool kvm;			 /* a KVM tracepoint (used or not) */
	const struct exit_table *t[MAX_CANDS];
	size_t nt;
	const struct exit_detail *detail;
	struct text_form *forms; /* nforms of them, compiled (malloc'ed: most events have one) */
	size_t nforms;
	struct label labels[MAX_LABELS];
	size_t nlabels;
	const struct exit_table *sticky; /* the table the last printed name picked */
	const struct sched_event *sched; /* role KES_SCHED (--anatomy): which one */
};

/* What the printed reason text meant to a table (resolve_name()), kept. */
struct resolved {
	uint64_t key, flags;
	size_t name_len; /* of the name part of the printed text, 0: not the kernel's name */
};

struct name_memo {
	const struct exit_table *t; /* NULL: the slot is free */
	uint8_t len, how;	    /* the text's length; aliases | plugin << 1 */
	bool found;
	char text[NAME_MEMO_LEN];
	struct resolved r;
};

/*
 * display() and what the table says of the key, kept: a trace shows a few
 * exits a million times, and each showing looked the key up in the table
 * five times (callgrind: 600 of an exit line's instructions). They depend
 * on the table, the key and flags, and the printed name display() may show
 * instead of the table's (none: len 0) only.
 */
#define SHOWN_MEMOS 128

struct shown {
	const struct exit_table *t; /* NULL: the slot is free */
	uint64_t key, flags;
	uint8_t len;
	char text[NAME_MEMO_LEN];
	const char *name;
	struct decode_kinds kinds;
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
	bool anatomy;		     /* read the sched and irq events too */
	struct sched_comms *comms; /* their thread names */
	const char *why; /* of the last text_decode() that returned -1 */
	unsigned new_names;
	uint64_t new_seen[2 * MAX_NEW_NAMES]; /* hashes of the new names made so far (0: free) */
	/*
	 * the slots ever bound, whose forms are to free (a walk of all 256
	 * would fault their pages in)
	 */
	uint64_t bound[BIND_SLOTS / 64];
	struct binding bind[BIND_SLOTS];
	struct binding *last; /* lookup()'s last answer */
	/* the record text_decode_role() was last asked about, and its binding */
	const struct kes_text_rec *asked;
	struct binding *asked_b;
	struct thread threads[THREAD_SLOTS];
	struct name_memo memo[NAME_MEMOS];
	struct shown shown[SHOWN_MEMOS];
	struct shown spill; /* for a printed name too long to keep */
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
	if (!d)
		return;
	sched_comms_free(d->comms);
	for (size_t i = 0; i < BIND_SLOTS; i++)
		if (d->bound[i / 64] >> (i % 64) & 1)
			free(d->bind[i].forms);
	free(d);
}

void text_decoder_set_anatomy(struct text_decoder *d, bool on)
{
	d->anatomy = on;
	if (on && !d->comms)
		d->comms = sched_comms_new();
	for (size_t i = 0; i < BIND_SLOTS; i++) /* what each event is may have changed */
		if (d->bound[i / 64] >> (i % 64) & 1)
			d->bind[i].used = false;
}

void text_decoder_set_plugin_names(struct text_decoder *d, bool on)
{
	d->plugin_names = on;
}

/* Names of the tables and of the forms are interned: the pointer says yes, or it compares. */
static bool name_eq(const char *table_name, const char *s)
{
	return table_name && (table_name == s || strcmp(table_name, s) == 0);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * The words of a pattern that a value follows ("reason %{...}", "rip 0x%{",
 * a pattern's last word before its closing blank: "... rip "): where a mail
 * client's wrap may cut a record that still goes on (text_decode_label()).
 */
static void form_labels(struct binding *b, const char *p)
{
	while (*p) {
		while (is_blank(*p))
			p++;
		const char *w = p;
		while (*p && !is_blank(*p))
			p++;
		size_t len = (size_t)(p - w);
		const char *next = p;
		while (is_blank(*next))
			next++;
		bool value = *next ? !strncmp(next, "%{", 2) || !strncmp(next, "0x%{", 4)
				   : p > w && is_blank(p[0]);
		if (!len || memchr(w, '%', len) || !value || b->nlabels == MAX_LABELS)
			continue;
		b->labels[b->nlabels++] = (struct label){w, len};
	}
}

/* What the event is to the tables: the binary side's rule (decode_role_of), and its forms. */
static void bind(const struct text_decoder *d, const char *sys, const char *ev, struct binding *b)
{
	struct decode_role r;

	decode_role_of(d->types, sys, ev, &r);
	b->role = r.role;
	b->nt = r.nt < MAX_CANDS ? r.nt : MAX_CANDS;
	memcpy(b->t, r.t, b->nt * sizeof(*b->t));
	b->detail = r.detail;
	b->sticky = NULL;
	struct text_form forms[TEXT_MAX_FORMS];
	b->nforms = text_forms_find(d->types, sys, ev, forms, ARRAY_SIZE(forms));
	free(b->forms);
	b->forms = NULL;
	if (b->nforms) {
		b->forms = xmalloc(b->nforms * sizeof(*forms));
		memcpy(b->forms, forms, b->nforms * sizeof(*forms));
	}
	b->kvm = b->role != DECODE_ROLE_NONE || exit_types_is_kvm_event(d->types, sys, ev);
	b->nlabels = 0;
	for (size_t i = 0; i < b->nforms; i++)
		form_labels(b, b->forms[i].f->pattern);
	b->sched = NULL;
	if (d->anatomy && b->role == DECODE_ROLE_NONE && (b->sched = sched_event_find(sys, ev))) {
		b->role = KES_SCHED;
		b->kvm = true; /* read as the KVM events are: its time orders, its line counts */
	}
}

/* Is b the binding of l's event? The lengths first: most misses are names of another length. */
static bool bound_to(const struct binding *b, const struct kes_text_rec *l, size_t sl)
{
	return b && b->used && b->ev_len == l->event_len && b->sys_len == sl &&
	       !memcmp(b->key + sl + 1, l->event, l->event_len) &&
	       (!sl || !memcmp(b->key, l->system, sl));
}

#define FNV_BASIS 1469598103934665603ULL
#define FNV_PRIME 1099511628211ULL

/*
 * FNV-1a over s[0, n) from h, a word at a time: the memos below hash event
 * names (7 to 25 bytes, looked up per line) and printed reason names.
 */
static uint64_t hash_name(const char *s, size_t n, uint64_t h)
{
	uint64_t w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * FNV_PRIME;
	}
	for (; n; s++, n--)
		h = (h ^ (uint8_t)*s) * FNV_PRIME;
	return h;
}

/* Table t's key and flags with a name (new_name_ok(), shown_of()). */
static uint64_t hash_key(const struct exit_table *t, uint64_t key, uint64_t flags, const char *name,
			 size_t len)
{
	uint64_t h = (FNV_BASIS ^ (uintptr_t)t) * FNV_PRIME;

	h = (h ^ key) * FNV_PRIME;
	return hash_name(name, len, (h ^ flags) * FNV_PRIME);
}

static struct binding *lookup(struct text_decoder *d, const struct kes_text_rec *l)
{
	size_t sl = l->system ? l->system_len : 0;
	uint64_t h = FNV_BASIS;

	/* the reader asks for a line's role, then decodes it: the same event twice */
	if (bound_to(d->last, l, sl))
		return d->last;
	h = hash_name(l->system, sl, h ^ sl);
	h = hash_name(l->event, l->event_len, h);
	struct binding *b = &d->bind[(h ^ h >> 32) % BIND_SLOTS];
	d->last = b;
	if (bound_to(b, l, sl))
		return b;
	b->used = true;
	d->bound[(size_t)(b - d->bind) / 64] |= 1ULL << ((size_t)(b - d->bind) % 64);
	b->sys_len = (uint8_t)sl;
	b->ev_len = (uint8_t)l->event_len;
	if (sl)
		memcpy(b->key, l->system, sl);
	b->key[sl] = '\0';
	memcpy(b->key + sl + 1, l->event, l->event_len);
	b->key[sl + 1 + l->event_len] = '\0';
	bind(d, sl ? b->key : NULL, b->key + sl + 1, b);
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

/* One of t's aliases (another printer's name for a reason of t). */
static bool alias_of(const struct exit_table *t, const char *name, uint64_t *value)
{
	for (size_t i = 0; i < t->naliases; i++) {
		if (strcmp(t->aliases[i].name, name) == 0) {
			*value = t->aliases[i].key;
			return true;
		}
	}
	return false;
}

/*
 * Is the printed name one of t's (alone, through an alias, or followed by
 * t's flags)? An alias says which table and key; the name shown is the
 * table's when a plugin printed it (plugin), else the printed one.
 */
static bool resolve_name(const struct exit_table *t, const struct text_field *rf, bool aliases,
			 bool plugin, struct resolved *r)
{
	char buf[TEXT_MAX_NAME + 1];
	uint64_t v;
	size_t len = rf->text_len;

	if (!copy_name(buf, rf->text, len))
		return false;
	*r = (struct resolved){.name_len = len};
	if (exit_table_key(t, buf, &r->key) == 0)
		return true;
	if (aliases && alias_of(t, buf, &v)) {
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
 * resolve_name(), remembered: a trace prints a few reasons a million times,
 * and each look-up compares the name with every name of the table (and of
 * the other ISA's table first, on x86): callgrind gave exit_table_key() and
 * its strcmp() 1,500 of a text line's 6,600 instructions. The answer
 * depends on the table, the text and the two switches only (the tables do
 * not change while a trace is read): a slot holds all of them.
 */
static bool resolve_memo(struct text_decoder *d, const struct exit_table *t,
			 const struct text_field *rf, bool aliases, struct resolved *r)
{
	uint8_t how = (uint8_t)(aliases | d->plugin_names << 1);
	uint64_t h;
	struct name_memo *m;

	if (rf->text_len > NAME_MEMO_LEN)
		return resolve_name(t, rf, aliases, d->plugin_names, r);
	h = hash_name(rf->text, rf->text_len, (FNV_BASIS ^ (uintptr_t)t ^ how) * FNV_PRIME);
	m = &d->memo[(h ^ h >> 29) % NAME_MEMOS];
	if (m->t == t && m->how == how && m->len == rf->text_len &&
	    !memcmp(m->text, rf->text, rf->text_len)) {
		*r = m->r;
		return m->found;
	}
	*m = (struct name_memo){.t = t, .len = (uint8_t)rf->text_len, .how = how};
	memcpy(m->text, rf->text, rf->text_len);
	m->found = resolve_name(t, rf, aliases, d->plugin_names, r);
	m->r = *r;
	return m->found;
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
	uint64_t h = hash_key(t, key, flags, name, len) | 1; /* 0: a free slot */
	size_t slot;

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

/* The name shown for r's key and its kinds (struct shown), or NULL: one new name too many. */
static const struct shown *shown_of(struct text_decoder *d, const struct exit_table *t,
				    const struct text_field *rf, bool over_ok,
				    const struct resolved *r)
{
	size_t len = over_ok && rf->text ? r->name_len : 0;
	uint64_t h = hash_key(t, r->key, r->flags, rf->text, len);
	struct shown *m = &d->spill;
	const char *name;

	if (len <= NAME_MEMO_LEN) {
		m = &d->shown[(h ^ h >> 29) % SHOWN_MEMOS];
		if (m->t == t && m->key == r->key && m->flags == r->flags && m->len == len &&
		    (!len || !memcmp(m->text, rf->text, len)))
			return m;
	}
	if (!(name = display(d, t, rf, over_ok, r)))
		return NULL;
	*m = (struct shown){.t = t, .key = r->key, .flags = r->flags, .name = name};
	if (len <= NAME_MEMO_LEN) {
		m->len = (uint8_t)len;
		if (len)
			memcpy(m->text, rf->text, len);
	}
	decode_exit_kinds(t, r->key, &m->kinds);
	return m;
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

	if (!nc) {
		d->why = "no exit reason in its payload";
		return -1;
	}
	for (size_t i = 0; i < nc && !t; i++) {
		rf = text_field_get(f, c[i]->reason_field);
		if (rf->text && !rf->has_num && resolve_memo(d, c[i], rf, f->aliases, &r))
			t = c[i];
	}
	by_name = t != NULL;
	rf = text_field_get(f, c[0]->reason_field);
	if (!t && rf->word && !rf->has_num) {
		/*
		 * A line trimmed after its reason ("reason HLT") has no rip to show
		 * where the name ends: a name no table knows may be one cut short
		 * ("reason EPT_VIOLA"), so it is not read as a reason of its own.
		 */
		d->why = "a trimmed line's reason no table knows";
		return -1;
	}
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
	const struct shown *sh = shown_of(
	    d, t, rf, (f->kernel_symbols && !t->sub_field) || (!by_name && !rf->has_num), &r);
	if (!sh) {
		d->why = "one reason name too many (at most 1024 names no table knows)";
		return -1;
	}
	ev->reason = sh->name;
	ev->isa = t->isa;
	if (t->detail_field && num_of(f, t->detail_field, &v) && v)
		ev->detail = (uint16_t)exit_types_detail_kind(t->detail_kind);
	if (t->subkey_field && (by_name || rf->has_num) && exit_table_has_subkey(t, r.key) &&
	    num_of(f, t->subkey_field, &v)) { /* as decoder.c does */
		uint64_t low = 0;
		if (t->subkey_low_field)
			num_of(f, t->subkey_low_field, &low);
		ev->sub = exit_table_subkey(t, v, low);
		ev->flags |= KES_EXIT_HAS_SUB;
	}
	if (t->pc_field && num_of(f, t->pc_field, &v)) { /* as decoder.c does */
		ev->value = v;
		ev->flags |= KES_EXIT_HAS_PC;
	}
	/* the key's kinds, as decoder.c gives them: only for a key the table knows */
	if ((by_name || rf->has_num) && sh->kinds.halt)
		ev->flags |= KES_EXIT_HALT;
	if (by_name || rf->has_num)
		ev->implies = sh->kinds.implies;
	/* the detail kind that explains this exit (pair.h): the table's `explain` */
	if (ev->kind == KES_UEXIT)
		ev->detail = sh->kinds.explain;
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
			if (fsys && !name_eq(c->entry_system, fsys) &&
			    !(c->entry_system2 && name_eq(c->entry_system2, fsys)))
				continue;
			if (pass == 1 || (c->vcpu_field && text_field_get(f, c->vcpu_field)))
				t = c;
		}
	}
	if (!t) {
		d->why = "no entry event of a table in this form";
		return -1;
	}
	if (t->entry_match.field) {
		if (!num_of(f, t->entry_match.field, &v)) {
			d->why = "its payload is not one the tables know";
			return -1;
		}
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

static int decode_detail(struct text_decoder *d, const struct binding *b, const struct text_fields *f,
			 struct kes_event *ev)
{
	const struct exit_detail *de = b->detail;
	uint64_t v;

	if (de->sub_field && !num_of(f, de->sub_field, &ev->sub)) {
		d->why = "its payload is not one the tables know";
		return -1; /* kvm_vcpu_wakeup has no sub-key */
	}
	ev->detail = de->kind;
	/* as decoder.c does: the field whole in value, its flag bit in flags */
	if (de->flag_field && num_of(f, de->flag_field, &ev->value))
		ev->flags = (ev->value & de->flag_mask) != 0;
	if (num_of(f, "vcpu_id", &v))
		ev->vcpu = (int32_t)v;
	/* --anatomy: kvm_vcpu_wakeup's length in sub, as the binary side (decoder.c) */
	if (d->anatomy && de->kind == KES_D_HALT)
		num_of(f, SCHED_HALT_NS, &ev->sub);
	return 1;
}

static bool listed(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* The field names the tables read from this event: what the generic "name=value" reader looks for.
 */
static size_t field_refs(const struct binding *b, const char **names)
{
	size_t n = 0;

#define REF(x)                                                                                     \
	do {                                                                                       \
		if ((x) && n < MAX_FIELD_REFS && !listed(names, n, (x)))                           \
			names[n++] = (x);                                                          \
	} while (0)
	for (size_t i = 0; i < b->nt; i++) {
		const struct exit_table *t = b->t[i];
		REF(t->reason_field);
		REF(t->sub_field);
		REF(t->error_field);
		REF(t->detail_field);
		REF(t->subkey_field);
		REF(t->subkey_low_field);
		REF(t->match.field);
		REF(t->vcpu_field);
		REF(t->pc_field);
		REF(t->entry_match.field);
	}
	if (b->detail) {
		if (b->detail->kind == KES_D_HALT)
			REF(SCHED_HALT_NS);
		REF(b->detail->sub_field);
		REF(b->detail->flag_field);
		REF("vcpu_id");
	}
#undef REF
	return n;
}

/*
 * libtraceevent's kvm plugin handles kvm_exit and kvm_entry on every ISA, with
 * x86's fields: on arm64 and riscv it prints its errors, then libtraceevent
 * the event's own format after them (trace-cmd 3.1.6 report of the lab's
 * riscv recording, tests/fixtures/lab/riscv64):
 *   kvm_entry: CAN'T FIND FIELD "vcpu_id"<CANT FIND FIELD rip>PC: 0x01680010000
 *   kvm_exit:  <CANT FIND FIELD exit_reason>SEPC:0x80010000, SCAUSE:0x14, ...
 * These are libtraceevent's own messages (tep_get_field_val(),
 * tep_print_num_field()): skip them.
 */
static const char *skip_field_errors(const char *s)
{
	static const char a[] = "<CANT FIND FIELD ", b[] = "CAN'T FIND FIELD \"";
	const char *e;

	/* most lines start with neither: the first byte says so without a call */
	while (*s == '<' || *s == 'C') {
		if (strncmp(s, a, sizeof(a) - 1) == 0 && (e = strchr(s, '>')))
			s = e + 1;
		else if (strncmp(s, b, sizeof(b) - 1) == 0 && (e = strchr(s + sizeof(b) - 1, '"')))
			s = e + 1;
		else
			return s;
	}
	return s;
}

/* Does the payload give the vcpu field of one of the event's tables (none has one: yes)? */
static bool vcpu_printed(const struct binding *b, const struct text_fields *f)
{
	bool any = false;

	for (size_t i = 0; i < b->nt; i++) {
		if (!b->t[i]->vcpu_field)
			continue;
		any = true;
		if (text_field_get(f, b->t[i]->vcpu_field))
			return true;
	}
	return !any;
}

/*
 * 32-bit ARM's kvm_exit (arch/arm/kvm/trace.h, until Linux 5.7) printed
 * "PC: 0x%08lx" and no reason at all: such an exit is counted, and timed to
 * its entry, under a reason of its own rather than refused.
 */
static bool arm32_exit(const struct binding *b, const char *payload, struct kes_event *ev)
{
	const char *s = payload;

	if (b->role != KES_EXIT)
		return false;
	while (*s == ' ')
		s++;
	if (strncmp(s, "PC: 0x", 6))
		return false;
	for (s += 6; *s && strchr("0123456789abcdefABCDEF", *s); s++)
		;
	while (*s == ' ')
		s++;
	if (*s)
		return false; /* more than a PC: not that form */
	ev->reason = intern(KES_ARM32_UNKNOWN);
	ev->isa = intern("arm");
	return true;
}

int text_decode(struct text_decoder *d, const struct kes_text_rec *l, struct kes_event *ev)
{
	struct binding *b = l == d->asked ? d->asked_b : lookup(d, l);
	struct text_fields f;
	const char *fsys = NULL, *payload;
	size_t i;

	d->asked = NULL;
	if (b->role == DECODE_ROLE_NONE)
		return 0;
	payload = skip_field_errors(l->payload);
	if (b->role == KES_SCHED) {
		*ev = (struct kes_event){.ts = l->ts, .cpu = l->cpu, .tid = l->tid, .vcpu = -1};
		d->why = "its payload is not the kernel's or trace-cmd's print of it";
		return sched_text(d->comms, b->sched, payload, ev);
	}
	for (i = 0; i < b->nforms; i++) {
		if (text_form_match(&b->forms[i], payload, &f) == 0) {
			fsys = b->forms[i].f->system;
			break;
		}
	}
	if (i == b->nforms) {
		const char *names[MAX_FIELD_REFS];
		text_fields_generic(payload, names, field_refs(b, names), &f);
	}
	*ev = (struct kes_event){
	    .ts = l->ts, .cpu = l->cpu, .tid = l->tid, .vcpu = -1, .kind = b->role};
	d->why = NULL;
	switch (b->role) {
	case KES_EXIT:
	case KES_UEXIT:
		if (arm32_exit(b, payload, ev)) {
			thread_of(d, ev->tid)->exit = NULL;
			return 1;
		}
		return decode_exit(d, b, fsys, &f, ev);
	case KES_ENTRY:
	case KES_UENTRY:
		if (b->nforms && i == b->nforms && !vcpu_printed(b, &f)) {
			/* "kvm_entry: vc": its vcpu lost, the thread's per-vCPU rows would change */
			d->why = "its payload is not one the tables know";
			return -1;
		}
		return decode_entry(d, b, fsys, &f, ev);
	default:
		return decode_detail(d, b, &f, ev);
	}
}

const char *text_decode_why(const struct text_decoder *d)
{
	return d->why ? d->why : "its payload did not parse";
}

int text_decode_role(struct text_decoder *d, const struct kes_text_rec *l)
{
	struct binding *b = lookup(d, l);

	d->asked = l;
	d->asked_b = b;
	if (!b->kvm)
		return DECODE_TEXT_NOT_KVM;
	return b->role == DECODE_ROLE_NONE ? DECODE_TEXT_UNUSED : b->role;
}

bool text_decode_label(struct text_decoder *d, const struct kes_text_rec *l, const char *w,
		       size_t len)
{
	struct binding *b = lookup(d, l);

	for (size_t i = 0; i < b->nlabels; i++)
		if (b->labels[i].len == len && !memcmp(b->labels[i].s, w, len))
			return true;
	return false;
}
