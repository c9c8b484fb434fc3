// SPDX-License-Identifier: GPL-2.0
/*
 * exit_types/ data files: the parser, and the lookups the decoder makes with
 * the tables it builds. Format: kvm-exitstat-exit-types(5).
 *
 * The parser reads untrusted input (a user's --exit-types file, and a fuzzer):
 * every line is copied into a bounded buffer first, numbers are checked for
 * overflow, there is no recursion, and nothing reaches the caller's set until
 * the whole text parsed (so an error leaves the set as it was).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "err.h"
#include "file.h"
#include "exit-types.h"
#include "intern.h"
#include "num.h"
#include "sorted.h"
#include "types-local.h"

#define MAX_LINE 1024		    /* bytes, without the newline */
#define MAX_ARGS 16		    /* a directive and its arguments */
#define MAX_FILE (16 * 1024 * 1024) /* a table file is a few kB */

/* A name, flag or errname line before sorting: the line says where a duplicate is. */
struct pending {
	uint64_t key;
	const char *name;
	unsigned line;
};

struct plist {
	struct pending *v;
	size_t n, cap;
};

/* Directives that may appear once per table: bits of struct builder.seen. */
enum once {
	ONCE_DESCRIBE = 1 << 0,
	ONCE_KIND = 1 << 1,
	ONCE_EXIT = 1 << 2,
	ONCE_REASON = 1 << 3,
	ONCE_MATCH = 1 << 4,
	ONCE_VCPU = 1 << 5,
	ONCE_ENTRY = 1 << 6,
	ONCE_ENTRY_MATCH = 1 << 7,
	ONCE_SUB = 1 << 8,
	ONCE_ERROR = 1 << 9,
	ONCE_DETAIL_FIELD = 1 << 10,
	ONCE_SUBKEY_FIELD = 1 << 11,
	ONCE_PC = 1 << 12,
};

struct builder {
	struct exit_table t;
	unsigned seen;
	unsigned isa_line, exit_line, reason_line, error_line, entry_match_line, event_line,
	    dfield_line, skfield_line, pc_line;
	struct plist names, flags, errnames, aliases, explains, implies, halts;
	size_t cdetails, cforms, csyms, ctracepoints; /* capacities */
};

/*
 * Table index by isa: isa names are interned, so the pointer is the key. A
 * file may hold tens of thousands of tables (generated, or hostile): finding
 * one by a scan of all of them per line would take quadratic time.
 */
struct isa_index {
	struct {
		const char *isa; /* NULL: free */
		size_t i;	 /* into the set's tables */
	} * slot;
	size_t cap, used;
};

struct parser {
	struct types_at at;
	struct builder cur;
	bool have_cur;
	struct exit_types done; /* finished tables, not yet in the caller's set */
	size_t done_cap;
	struct isa_index done_index;
};

struct args {
	int argc;
	bool more; /* words beyond MAX_ARGS */
	char *argv[MAX_ARGS];
	const char *from[MAX_ARGS]; /* where argv[i] starts in the untouched copy */
};

struct directive {
	const char *name;
	int min, max; /* argument counts, the directive itself not counted */
	int text;     /* > 0: argument `text` and the rest of the line are one text */
	unsigned once;
	int (*fn)(struct parser *p, const struct args *a);
};

/* ---- tokens ---------------------------------------------------------- */

/*
 * Decimal or 0x hex, u64. A leading '-' gives the two's complement, because
 * the kernel writes SVM_EXIT_ERR as -1 ("-1" == 0xffffffffffffffff).
 */
static int parse_u64(const char *s, uint64_t *out)
{
	bool neg = *s == '-';
	unsigned base = 10;
	uint64_t v;
	size_t len, used;

	if (neg)
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	len = strlen(s);
	if (!len || num_digits(s, len, base, &v, &used) < 0 || used != len)
		return -1;
	if (neg && v > (1ULL << 63))
		return -1;
	*out = neg ? 0 - v : v;
	return 0;
}

static bool is_ident(const char *s)
{
	if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	for (s++; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* An isa: one token of printable ASCII. */
static bool is_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/*
 * The rest of the line from argument i, blanks squeezed to one space and
 * trimmed: names keep the kernel's own spelling ("DE excp", "Host
 * interruption"), so they match the names a format file's print fmt gives.
 * Printable ASCII only.
 */
static int text_arg(struct parser *p, const struct args *a, int i, const char **out)
{
	char buf[MAX_LINE + 1];
	size_t n = 0;

	for (const char *s = a->from[i]; *s; s++) {
		if (types_blank(*s)) {
			if (n && buf[n - 1] != ' ')
				buf[n++] = ' ';
			continue;
		}
		if ((unsigned char)*s < ' ' || (unsigned char)*s >= 0x7f)
			return types_fail(&p->at, "byte 0x%02x in a name (printable ASCII only)",
					  (unsigned char)*s);
		buf[n++] = *s;
	}
	while (n && buf[n - 1] == ' ')
		n--;
	*out = intern_n(buf, n);
	return 0;
}

static const char *field_arg(struct parser *p, const char *s)
{
	if (!is_ident(s)) {
		types_fail(&p->at, "bad field name '%s'", s);
		return NULL;
	}
	return intern(s);
}

static int number_arg(struct parser *p, const char *s, uint64_t *out)
{
	if (parse_u64(s, out) < 0)
		return types_fail(&p->at, "bad number '%s'", s);
	return 0;
}

/* "kvm:kvm_exit" */
static int event_arg(struct parser *p, const char *s, const char **sys, const char **ev)
{
	const char *colon = strchr(s, ':');

	if (!colon || colon == s || !colon[1] || strchr(colon + 1, ':'))
		return types_fail(&p->at, "bad event '%s' (want system:event)", s);
	*sys = intern_n(s, (size_t)(colon - s));
	*ev = intern(colon + 1);
	if (!is_ident(*sys) || !is_ident(*ev))
		return types_fail(&p->at, "bad event '%s' (want system:event)", s);
	return 0;
}

/*
 * Splits a comment-free line into blank-separated tokens. `from` points into
 * the untouched copy, for arguments that run to the end of the line.
 */
static void split(char *line, const char *copy, struct args *a)
{
	char *s = line;

	a->argc = 0;
	a->more = false;
	for (;;) {
		while (types_blank(*s))
			s++;
		if (!*s)
			return;
		if (a->argc == MAX_ARGS) {
			a->more = true;
			return;
		}
		a->from[a->argc] = copy + (s - line);
		a->argv[a->argc++] = s;
		while (*s && !types_blank(*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
}

/* ---- pending name lists ---------------------------------------------- */

static void plist_add(struct plist *l, uint64_t key, const char *name, unsigned line)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = (struct pending){key, name, line};
}

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/*
 * Sorts by key and turns the list into the table's array. A key given twice
 * with the same name is fine (tables are often merged by hand); with two
 * different names it is an error at the later line.
 */
static int plist_finish(struct parser *p, struct plist *l, const char *what, struct exit_name **out,
			size_t *nout)
{
	size_t n = 0;

	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_pending);
	*out = l->n ? xcalloc(l->n, sizeof(**out)) : NULL;
	for (size_t i = 0; i < l->n; i++) {
		if (n && (*out)[n - 1].key == l->v[i].key) {
			if ((*out)[n - 1].name == l->v[i].name)
				continue;
			p->at.line = l->v[i].line;
			return types_fail(&p->at, "%s 0x%llx is both '%s' and '%s'", what,
					  (unsigned long long)l->v[i].key, (*out)[n - 1].name,
					  l->v[i].name);
		}
		(*out)[n++] = (struct exit_name){l->v[i].key, l->v[i].name};
	}
	*nout = n;
	return 0;
}

static void plist_free(struct plist *l)
{
	free(l->v);
	*l = (struct plist){0};
}

static void table_free(struct exit_table *t)
{
	free(t->names);
	free(t->flags);
	free(t->errnames);
	free(t->details);
	free(t->forms);
	free(t->syms);
	free(t->aliases);
	free(t->explains);
	free(t->implies);
	free(t->halts);
	free(t->tracepoints);
	*t = (struct exit_table){0};
}

static void builder_free(struct builder *b)
{
	table_free(&b->t);
	plist_free(&b->names);
	plist_free(&b->flags);
	plist_free(&b->errnames);
	plist_free(&b->aliases);
	plist_free(&b->explains);
	plist_free(&b->implies);
	plist_free(&b->halts);
}

/* ---- directives ------------------------------------------------------ */

static size_t index_slot(const struct isa_index *x, const char *isa)
{
	size_t i =
	    (size_t)(((uint64_t)(uintptr_t)isa * 0x9e3779b97f4a7c15ULL) >> 17) & (x->cap - 1);

	while (x->slot[i].isa && x->slot[i].isa != isa)
		i = (i + 1) & (x->cap - 1);
	return i;
}

/* The table index of isa (interned), or -1. */
static long index_find(const struct isa_index *x, const char *isa)
{
	size_t i;

	if (!x->cap)
		return -1;
	i = index_slot(x, isa);
	return x->slot[i].isa ? (long)x->slot[i].i : -1;
}

static void index_add(struct isa_index *x, const char *isa, size_t table)
{
	if (2 * (x->used + 1) > x->cap) {
		struct isa_index old = *x;

		x->cap = old.cap ? 2 * old.cap : 64;
		x->slot = xcalloc(x->cap, sizeof(*x->slot));
		for (size_t i = 0; i < old.cap; i++)
			if (old.slot[i].isa)
				x->slot[index_slot(x, old.slot[i].isa)] = old.slot[i];
		free(old.slot);
	}
	size_t i = index_slot(x, isa);
	if (!x->slot[i].isa)
		x->used++;
	x->slot[i].isa = isa;
	x->slot[i].i = table;
}

static struct exit_table *cur(struct parser *p)
{
	return &p->cur.t;
}

static int d_describe(struct parser *p, const struct args *a)
{
	return text_arg(p, a, 1, &cur(p)->describe);
}

static int d_kind(struct parser *p, const struct args *a)
{
	static const char *const kinds[] = {
	    [EXIT_TABLE_EXIT] = "exit",
	    [EXIT_TABLE_USERSPACE] = "userspace",
	    [EXIT_TABLE_NAMES] = "names",
	    [EXIT_TABLE_EVENTS] = "events",
	};

	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (strcmp(a->argv[1], kinds[i]) == 0) {
			cur(p)->kind = (enum exit_table_kind)i;
			return 0;
		}
	}
	return types_fail(&p->at, "bad kind '%s' (exit, userspace, names or events)", a->argv[1]);
}

static int d_exit(struct parser *p, const struct args *a)
{
	p->cur.exit_line = p->at.line;
	return event_arg(p, a->argv[1], &cur(p)->exit_system, &cur(p)->exit_event);
}

/* "entry SYSTEM:EVENT [SYSTEM:EVENT]": the second an other way in (LoongArch's). */
static int d_entry(struct parser *p, const struct args *a)
{
	if (event_arg(p, a->argv[1], &cur(p)->entry_system, &cur(p)->entry_event) < 0)
		return -1;
	if (a->argc < 3)
		return 0;
	return event_arg(p, a->argv[2], &cur(p)->entry_system2, &cur(p)->entry_event2);
}

static int d_reason(struct parser *p, const struct args *a)
{
	struct exit_table *t = cur(p);

	p->cur.reason_line = p->at.line;
	if (!(t->reason_field = field_arg(p, a->argv[1])))
		return -1;
	if (a->argc == 2)
		return 0;
	if (a->argc != 4 || strcmp(a->argv[2], "mask") != 0)
		return types_fail(&p->at, "want: reason FIELD [mask N]");
	if (number_arg(p, a->argv[3], &t->reason_mask) < 0)
		return -1;
	if (!t->reason_mask)
		return types_fail(&p->at, "mask 0 leaves no reason");
	return 0;
}

static int match_arg(struct parser *p, const struct args *a, struct exit_match *m)
{
	uint64_t v;

	if (!(m->field = field_arg(p, a->argv[1])) || number_arg(p, a->argv[2], &v) < 0)
		return -1;
	m->value = (int64_t)v;
	return 0;
}

static int d_match(struct parser *p, const struct args *a)
{
	return match_arg(p, a, &cur(p)->match);
}

static int d_entry_match(struct parser *p, const struct args *a)
{
	p->cur.entry_match_line = p->at.line;
	return match_arg(p, a, &cur(p)->entry_match);
}

static int d_vcpu(struct parser *p, const struct args *a)
{
	return (cur(p)->vcpu_field = field_arg(p, a->argv[1])) ? 0 : -1;
}

/*
 * pc FIELD [kernel ADDR]: the guest's program counter at the exit (report
 * --by-guest); with kernel, addresses from ADDR up are the guest kernel's
 * (the exit event carries no privilege level on most ISAs: the address
 * layout is what tells them apart).
 */
static int d_pc(struct parser *p, const struct args *a)
{
	struct exit_table *t = cur(p);

	p->cur.pc_line = p->at.line;
	if (!(t->pc_field = field_arg(p, a->argv[1])))
		return -1;
	if (a->argc == 2)
		return 0;
	if (a->argc != 4 || strcmp(a->argv[2], "kernel") != 0)
		return types_fail(&p->at, "want: pc FIELD [kernel ADDR]");
	if (number_arg(p, a->argv[3], &t->pc_kernel) < 0)
		return -1;
	if (!t->pc_kernel)
		return types_fail(&p->at, "'pc ... kernel 0' leaves no guest user space");
	return 0;
}

static int d_subreason(struct parser *p, const struct args *a)
{
	uint64_t shift;

	if (!(cur(p)->sub_field = field_arg(p, a->argv[1])))
		return -1;
	if (strcmp(a->argv[2], "shift") != 0)
		return types_fail(&p->at, "want: subreason FIELD shift N");
	if (number_arg(p, a->argv[3], &shift) < 0)
		return -1;
	if (shift > 63)
		return types_fail(&p->at, "shift %llu is more than 63", (unsigned long long)shift);
	cur(p)->sub_shift = (unsigned)shift;
	return 0;
}

static int d_error(struct parser *p, const struct args *a)
{
	p->cur.error_line = p->at.line;
	return (cur(p)->error_field = field_arg(p, a->argv[1])) ? 0 : -1;
}

/* name/flag/errname: KEY NAME */
static int keyed(struct parser *p, const struct args *a, struct plist *l, uint64_t *key,
		 const char **name)
{
	if (number_arg(p, a->argv[1], key) < 0 || text_arg(p, a, 2, name) < 0)
		return -1;
	plist_add(l, *key, *name, p->at.line);
	return 0;
}

static int d_name(struct parser *p, const struct args *a)
{
	uint64_t key;
	const char *name;

	return keyed(p, a, &p->cur.names, &key, &name);
}

static int d_flag(struct parser *p, const struct args *a)
{
	uint64_t bits;
	const char *name;

	if (keyed(p, a, &p->cur.flags, &bits, &name) < 0)
		return -1;
	return bits ? 0 : types_fail(&p->at, "flag 0 can never be set");
}

static int d_errname(struct parser *p, const struct args *a)
{
	uint64_t err;
	const char *name;

	if (keyed(p, a, &p->cur.errnames, &err, &name) < 0)
		return -1;
	if (!err || err >= EXIT_KEY_ERRNO)
		return types_fail(&p->at, "errno %s out of range", a->argv[1]);
	return 0;
}

/*
 * detail KEY KIND: a userspace exit with this reason tells what the kvm_exit
 * it ends was (KVM_EXIT_MMIO: an MMIO access), on ISAs whose kernels trace
 * no kvm_mmio of their own (powerpc, riscv). KIND is a detail kind name.
 */
static int d_detail(struct parser *p, const struct args *a)
{
	uint64_t key;
	const char *kind;

	if (keyed(p, a, &p->cur.implies, &key, &kind) < 0)
		return -1;
	if (exit_types_detail_kind(kind) >= 0)
		return 0;
	return types_fail(&p->at, "unknown detail kind '%s'", kind);
}

/* detail-field FIELD KIND: an exit whose FIELD is non-zero has detail KIND (HV's ceded). */
static int d_detail_field(struct parser *p, const struct args *a)
{
	struct exit_table *t = cur(p);

	p->cur.dfield_line = p->at.line;
	if (!(t->detail_field = field_arg(p, a->argv[1])))
		return -1;
	if (exit_types_detail_kind(a->argv[2]) < 0)
		return types_fail(&p->at, "unknown detail kind '%s'", a->argv[2]);
	t->detail_kind = intern(a->argv[2]);
	return 0;
}

/*
 * subkey-field FIELD [shift N LOW] KEY...: FIELD is the sub-key of the exits
 * of these keys (PR's dar); with shift, FIELD << N | LOW's low N bits (riscv:
 * htval shift 2 stval, as gstage_page_fault() computes the fault address).
 */
static int d_subkey_field(struct parser *p, const struct args *a)
{
	struct exit_table *t = cur(p);
	uint64_t shift;
	int i = 2;

	p->cur.skfield_line = p->at.line;
	if (!(t->subkey_field = field_arg(p, a->argv[1])))
		return -1;
	if (strcmp(a->argv[2], "shift") == 0) {
		if (a->argc < 6)
			return types_fail(&p->at,
					  "want: subkey-field FIELD [shift N LOWFIELD] KEY...");
		if (number_arg(p, a->argv[3], &shift) < 0)
			return -1;
		if (shift < 1 || shift > 63)
			return types_fail(&p->at, "shift %llu is not in 1..63",
					  (unsigned long long)shift);
		t->subkey_shift = (unsigned)shift;
		if (!(t->subkey_low_field = field_arg(p, a->argv[4])))
			return -1;
		i = 5;
	}
	if (a->argc - i > (int)ARRAY_SIZE(t->subkey_keys))
		return types_fail(&p->at, "too many keys (at most %zu)",
				  ARRAY_SIZE(t->subkey_keys));
	for (; i < a->argc; i++)
		if (number_arg(p, a->argv[i], &t->subkey_keys[t->nsubkey_keys++]) < 0)
			return -1;
	return 0;
}

/* ---- detail events, printed forms, symbols, aliases ------------------ */

/* Appends one element of size sz to *v (n, cap). */
static void *grow_one(void *v, size_t *n, size_t *cap, size_t sz)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		v = xrealloc(v, *cap * sz);
	}
	(*n)++;
	return v;
}

/* event SYS:EV KIND [sub FIELD] [flag FIELD MASK] [label NAME] [base 10|16] [need buckets] */
static int d_event(struct parser *p, const struct args *a)
{
	struct exit_table *t = cur(p);
	struct exit_detail d = {0};
	int i;

	if (t->kind != EXIT_TABLE_EVENTS)
		return types_fail(&p->at, "'event' needs 'kind events' (before it)");
	p->cur.event_line = p->at.line;
	if (event_arg(p, a->argv[1], &d.system, &d.event) < 0)
		return -1;
	if ((d.kind = exit_types_detail_kind(a->argv[2])) < 0)
		return types_fail(&p->at, "unknown detail kind '%s'", a->argv[2]);
	d.base = 16;
	/* No `sub`: an event that says only that it happened (kvm_vcpu_wakeup: a halt). */
	if (a->argc > 3 && !strcmp(a->argv[3], "sub")) {
		if (a->argc < 5 || !(d.sub_field = field_arg(p, a->argv[4])))
			return types_fail(&p->at,
					  "want: event SYS:EV KIND [sub FIELD] [flag FIELD MASK] "
					  "[label NAME] [base 10|16] [need buckets]");
		d.label = d.sub_field;
		i = 5;
	} else {
		i = 3;
	}
	for (; i < a->argc; i += 2) {
		const char *kw = a->argv[i], *v = i + 1 < a->argc ? a->argv[i + 1] : NULL;

		if (!v)
			return types_fail(&p->at, "'%s' needs a value", kw);
		if (!strcmp(kw, "flag") && i + 2 < a->argc) {
			if (!(d.flag_field = field_arg(p, v)) ||
			    number_arg(p, a->argv[i + 2], &d.flag_mask) < 0)
				return -1;
			i++;
		} else if (!strcmp(kw, "label") && is_ident(v) && d.sub_field) {
			d.label = intern(v);
		} else if (!strcmp(kw, "base") && (!strcmp(v, "10") || !strcmp(v, "16"))) {
			d.base = (unsigned)atoi(v);
		} else if (!strcmp(kw, "need") && !strcmp(v, "buckets")) {
			d.need |= EXIT_NEED_BUCKETS;
		} else {
			return types_fail(
			    &p->at,
			    "bad '%s %s' (want: event SYS:EV KIND [sub FIELD] [flag FIELD MASK] "
			    "[label NAME] [base 10|16] [need buckets])",
			    kw, v);
		}
	}
	for (size_t k = 0; k < t->ndetails; k++)
		if (t->details[k].system == d.system && t->details[k].event == d.event)
			return types_fail(&p->at, "event %s:%s given twice", d.system, d.event);
	t->details = grow_one(t->details, &t->ndetails, &p->cur.cdetails, sizeof(d));
	t->details[t->ndetails - 1] = d;
	return 0;
}

static int known_fixup(const char *s)
{
	static const char *const fixups[] = {EXIT_FIXUPS};

	for (size_t i = 0; i < ARRAY_SIZE(fixups); i++)
		if (!strcmp(s, fixups[i]))
			return 0;
	return -1;
}

/*
 * The pattern: from the first double quote after argument i to the last one
 * on the line, kept as written (blanks inside and at the end count).
 */
static int pattern_arg(struct parser *p, const struct args *a, int i, const char **out)
{
	const char *q = a->from[i], *end;

	if (*q != '"' || !(end = strrchr(q + 1, '"')))
		return types_fail(&p->at, "want: form SYS:EV [fixup NAME] [aliases] \"PATTERN\"");
	for (const char *s = q + 1; s < end; s++)
		if ((unsigned char)*s < ' ' || (unsigned char)*s >= 0x7f || *s == '"')
			return types_fail(&p->at,
					  "byte 0x%02x in a pattern (printable ASCII, no quote)",
					  (unsigned char)*s);
	for (const char *s = end + 1; *s; s++)
		if (!types_blank(*s))
			return types_fail(&p->at, "text after the pattern's closing quote");
	if (end == q + 1)
		return types_fail(&p->at, "empty pattern");
	*out = intern_n(q + 1, (size_t)(end - q - 1));
	return 0;
}

/* form SYS:EV [fixup NAME] [aliases] "PATTERN" */
static int d_form(struct parser *p, const struct args *a)
{
	struct exit_table *t = cur(p);
	struct exit_form f = {0};
	int i = 2;

	if (event_arg(p, a->argv[1], &f.system, &f.event) < 0)
		return -1;
	for (; i < a->argc && a->argv[i][0] != '"'; i++) {
		if (!strcmp(a->argv[i], "aliases")) {
			f.aliases = true;
		} else if (!strcmp(a->argv[i], "fixup") && i + 1 < a->argc) {
			if (known_fixup(a->argv[++i]) < 0)
				return types_fail(&p->at, "unknown fixup '%s'", a->argv[i]);
			f.fixup = intern(a->argv[i]);
		} else {
			return types_fail(&p->at,
					  "bad '%s' (want fixup NAME, aliases, then \"PATTERN\")",
					  a->argv[i]);
		}
	}
	if (i >= a->argc || pattern_arg(p, a, i, &f.pattern) < 0)
		return i >= a->argc ? types_fail(&p->at, "form without a \"PATTERN\"") : -1;
	t->forms = grow_one(t->forms, &t->nforms, &p->cur.cforms, sizeof(f));
	t->forms[t->nforms - 1] = f;
	return 0;
}

/* sym FIELD NAME VALUE */
static int d_sym(struct parser *p, const struct args *a)
{
	struct exit_table *t = cur(p);
	struct exit_sym y = {0};

	if (!(y.field = field_arg(p, a->argv[1])))
		return -1;
	if (!is_word(a->argv[2]))
		return types_fail(&p->at, "bad symbol '%s'", a->argv[2]);
	if (number_arg(p, a->argv[3], &y.value) < 0)
		return -1;
	y.name = intern(a->argv[2]);
	for (size_t k = 0; k < t->nsyms; k++)
		if (t->syms[k].field == y.field && t->syms[k].name == y.name)
			return types_fail(&p->at, "sym %s %s given twice", y.field, y.name);
	t->syms = grow_one(t->syms, &t->nsyms, &p->cur.csyms, sizeof(y));
	t->syms[t->nsyms - 1] = y;
	return 0;
}

/* alias NAME KEY: another printer's name for the reason KEY (sorted by name after parse). */
static int d_alias(struct parser *p, const struct args *a)
{
	uint64_t key;

	if (!is_word(a->argv[1]))
		return types_fail(&p->at, "bad alias '%s'", a->argv[1]);
	if (number_arg(p, a->argv[2], &key) < 0)
		return -1;
	plist_add(&p->cur.aliases, key, intern(a->argv[1]), p->at.line);
	return 0;
}

/* explain: KEY KIND, the detail kind that explains an exit of KEY (pio, mmio, msr, ...) */
static int d_explain(struct parser *p, const struct args *a)
{
	uint64_t key;

	if (number_arg(p, a->argv[1], &key) < 0)
		return -1;
	if (exit_types_detail_kind(a->argv[2]) < 0)
		return types_fail(&p->at,
				  "unknown detail kind '%s' (mmio, pio, emulate, hypercall, msr, "
				  "page_fault)",
				  a->argv[2]);
	plist_add(&p->cur.explains, key, intern(a->argv[2]), p->at.line);
	return 0;
}

/*
 * halt KEY...: exits of these keys are halts (the vCPU idles in them: x86 hlt,
 * KVM_EXIT_HLT), left out of top --slower-than as perf kvm stat live
 * --duration leaves out HLT, whether or not the kernel blocked in
 * kvm_vcpu_halt() (kvm_vcpu_wakeup marks only those).
 */
static int d_halt(struct parser *p, const struct args *a)
{
	for (int i = 1; i < a->argc; i++) {
		uint64_t key;

		if (number_arg(p, a->argv[i], &key) < 0)
			return -1;
		plist_add(&p->cur.halts, key, intern("halt"), p->at.line);
	}
	return 0;
}

/*
 * tracepoints PATTERN...: "SYS:*" (every event of a system), "PREFIX*" (event
 * names without a system that start so), or a name.
 */
static int d_tracepoints(struct parser *p, const struct args *a)
{
	struct exit_table *t = cur(p);

	for (int i = 1; i < a->argc; i++) {
		const char *w = a->argv[i], *colon = strchr(w, ':');
		size_t n = strlen(w);
		char name[MAX_LINE + 1];

		memcpy(name, w, n + 1);
		if (colon)
			name[colon - w] = '\0';
		else if (name[n - 1] == '*')
			name[n - 1] = '\0';
		if (!is_ident(name) || (colon && strcmp(colon, ":*")))
			return types_fail(
			    &p->at, "bad tracepoint pattern '%s' (want SYS:*, PREFIX* or NAME)", w);
		t->tracepoints = grow_one(t->tracepoints, &t->ntracepoints, &p->cur.ctracepoints,
					  sizeof(*t->tracepoints));
		t->tracepoints[t->ntracepoints - 1] = intern(w);
	}
	return 0;
}

static int finish_table(struct parser *p);

static int d_isa(struct parser *p, const struct args *a)
{
	const char *isa;

	if (p->have_cur && finish_table(p) < 0)
		return -1;
	if (!is_word(a->argv[1]) || strchr(a->argv[1], ':'))
		return types_fail(&p->at, "bad isa name '%s'", a->argv[1]);
	isa = intern(a->argv[1]);
	if (index_find(&p->done_index, isa) >= 0)
		return types_fail(&p->at, "table '%s' defined twice", isa);
	p->cur = (struct builder){.isa_line = p->at.line};
	p->cur.t.isa = isa;
	p->cur.t.origin = intern(p->at.origin);
	p->cur.t.kind = EXIT_TABLE_EXIT;
	p->cur.t.reason_mask = UINT64_MAX;
	p->have_cur = true;
	return 0;
}

static const struct directive directives[] = {
    {"isa", 1, 1, 0, 0, d_isa},
    {"describe", 1, 1, 1, ONCE_DESCRIBE, d_describe},
    {"kind", 1, 1, 0, ONCE_KIND, d_kind},
    {"exit", 1, 1, 0, ONCE_EXIT, d_exit},
    {"reason", 1, 3, 0, ONCE_REASON, d_reason},
    {"match", 2, 2, 0, ONCE_MATCH, d_match},
    {"vcpu", 1, 1, 0, ONCE_VCPU, d_vcpu},
    {"entry", 1, 2, 0, ONCE_ENTRY, d_entry},
    {"entry-match", 2, 2, 0, ONCE_ENTRY_MATCH, d_entry_match},
    {"subreason", 3, 3, 0, ONCE_SUB, d_subreason},
    {"error", 1, 1, 0, ONCE_ERROR, d_error},
    {"errname", 2, 2, 2, 0, d_errname},
    {"flag", 2, 2, 2, 0, d_flag},
    {"name", 2, 2, 2, 0, d_name},
    {"detail", 2, 2, 0, 0, d_detail},
    {"detail-field", 2, 2, 0, ONCE_DETAIL_FIELD, d_detail_field},
    {"subkey-field", 2, 10, 0, ONCE_SUBKEY_FIELD, d_subkey_field},
    {"pc", 1, 3, 0, ONCE_PC, d_pc},
    {"event", 2, MAX_ARGS - 1, 0, 0, d_event},
    {"form", 2, 2, 2, 0, d_form},
    {"sym", 3, 3, 0, 0, d_sym},
    {"alias", 2, 2, 0, 0, d_alias},
    {"explain", 2, 2, 0, 0, d_explain},
    {"halt", 1, MAX_ARGS - 1, 0, 0, d_halt},
    {"tracepoints", 1, MAX_ARGS - 1, 0, 0, d_tracepoints},
};

/* ---- tables ---------------------------------------------------------- */

/* Checks that need the whole table, reported at the line that caused them. */
static int check_table(struct parser *p)
{
	struct builder *b = &p->cur;
	struct exit_table *t = &b->t;

	if (t->kind == EXIT_TABLE_NAMES || t->kind == EXIT_TABLE_EVENTS) {
		if (!t->exit_event && !t->reason_field)
			return 0;
		p->at.line = b->exit_line ? b->exit_line : b->reason_line;
		return types_fail(&p->at, "a 'kind %s' table takes no exit event or fields",
				  t->kind == EXIT_TABLE_NAMES ? "names" : "events");
	}
	if (t->exit_event && !t->reason_field) {
		p->at.line = b->exit_line;
		return types_fail(&p->at, "'exit' without 'reason'");
	}
	if (!t->exit_event) {
		p->at.line = b->reason_line ? b->reason_line : b->isa_line;
		return types_fail(&p->at, "table '%s' has no 'exit' event", t->isa);
	}
	if (t->entry_match.field && !t->entry_event) {
		p->at.line = b->entry_match_line;
		return types_fail(&p->at, "'entry-match' without 'entry'");
	}
	if ((t->error_field || b->errnames.n) && t->kind != EXIT_TABLE_USERSPACE) {
		p->at.line = t->error_field ? b->error_line : b->errnames.v[0].line;
		return types_fail(&p->at, "'error' and 'errname' need 'kind userspace'");
	}
	if (t->subkey_field && t->kind != EXIT_TABLE_EXIT) {
		p->at.line = b->skfield_line;
		return types_fail(&p->at, "'subkey-field' needs 'kind exit'");
	}
	if (t->pc_field && t->kind != EXIT_TABLE_EXIT) {
		p->at.line = b->pc_line;
		return types_fail(&p->at, "'pc' needs 'kind exit'");
	}
	if (t->detail_field && t->kind != EXIT_TABLE_EXIT) {
		p->at.line = b->dfield_line;
		return types_fail(&p->at, "'detail-field' needs 'kind exit'");
	}
	if (b->implies.n && t->kind != EXIT_TABLE_USERSPACE) {
		p->at.line = b->implies.v[0].line;
		return types_fail(&p->at, "'detail' needs 'kind userspace'");
	}
	for (size_t i = 0; t->kind == EXIT_TABLE_USERSPACE && i < b->names.n; i++) {
		if (b->names.v[i].key & EXIT_KEY_ERRNO) {
			p->at.line = b->names.v[i].line;
			return types_fail(&p->at,
					  "in a userspace table, keys with bit 63 are errors");
		}
	}
	for (size_t i = 0; i < b->flags.n; i++) {
		if (b->flags.v[i].key & t->reason_mask) {
			p->at.line = b->flags.v[i].line;
			return types_fail(&p->at, "flag 0x%llx overlaps the reason mask",
					  (unsigned long long)b->flags.v[i].key);
		}
	}
	return 0;
}

static int linear_key(const struct exit_name *v, size_t n, const char *name, uint64_t *key)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i].name, name) == 0) {
			*key = v[i].key;
			return 0;
		}
	}
	return -1;
}

/*
 * linear_key() for a name interned as a table's names are (text_arg(),
 * intern()): the pointer is the name. aliases_finish() asks it of each alias
 * of every table (12,000 strcmp() calls a start, callgrind: 0.4 M instructions).
 */
static int interned_key(const struct exit_name *v, size_t n, const char *name, uint64_t *key)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i].name == name) {
			*key = v[i].key;
			return 0;
		}
	}
	return -1;
}

/*
 * Aliases, by name: a name given twice with two keys is an error at the later
 * line, and so is an alias that is another reason's name in the table (a
 * user's "SERROR" would have two meanings). t's names are final.
 */
static int aliases_finish(struct parser *p, struct plist *l, struct exit_table *t)
{
	struct exit_name **out = &t->aliases;
	size_t *nout = &t->naliases;
	uint64_t named;

	*out = l->n ? xcalloc(l->n, sizeof(**out)) : NULL;
	*nout = 0;
	for (size_t i = 0; i < l->n; i++) {
		size_t j;

		if (interned_key(t->names, t->nnames, l->v[i].name, &named) == 0 &&
		    named != l->v[i].key) {
			p->at.line = l->v[i].line;
			return types_fail(&p->at, "alias '%s' is the name of 0x%llx", l->v[i].name,
					  (unsigned long long)named);
		}
		for (j = 0; j < *nout && (*out)[j].name != l->v[i].name; j++)
			;
		if (j < *nout && (*out)[j].key != l->v[i].key) {
			p->at.line = l->v[i].line;
			return types_fail(&p->at, "alias '%s' is both 0x%llx and 0x%llx",
					  l->v[i].name, (unsigned long long)(*out)[j].key,
					  (unsigned long long)l->v[i].key);
		}
		if (j == *nout)
			(*out)[(*nout)++] = (struct exit_name){l->v[i].key, l->v[i].name};
	}
	return 0;
}

/* Errors point p->at.line at the culprit; success leaves it alone. */
static int finish_table(struct parser *p)
{
	struct builder *b = &p->cur;
	struct exit_table *t = &b->t;
	unsigned line = p->at.line;
	int rc = -1;

	p->have_cur = false;
	if (check_table(p) == 0 && plist_finish(p, &b->names, "name", &t->names, &t->nnames) == 0 &&
	    plist_finish(p, &b->flags, "flag", &t->flags, &t->nflags) == 0 &&
	    plist_finish(p, &b->errnames, "errname", &t->errnames, &t->nerrnames) == 0 &&
	    aliases_finish(p, &b->aliases, t) == 0 &&
	    plist_finish(p, &b->explains, "explain", &t->explains, &t->nexplains) == 0 &&
	    plist_finish(p, &b->implies, "detail", &t->implies, &t->nimplies) == 0 &&
	    plist_finish(p, &b->halts, "halt", &t->halts, &t->nhalts) == 0) {
		if (p->done.n == p->done_cap) {
			p->done_cap = p->done_cap ? 2 * p->done_cap : 16;
			p->done.tables = xrealloc(p->done.tables, p->done_cap * sizeof(*t));
		}
		index_add(&p->done_index, t->isa, p->done.n);
		p->done.tables[p->done.n++] = *t;
		*t = (struct exit_table){0}; /* now owned by p->done */
		p->at.line = line;
		rc = 0;
	}
	builder_free(b);
	return rc;
}

/* Moves the parsed tables into set, replacing tables of the same isa. */
static void commit(struct exit_types *set, struct exit_types *done)
{
	struct isa_index x = {0};

	/* one allocation and one index for the whole file, not one scan per table */
	set->tables = xrealloc(set->tables, (set->n + done->n + 1) * sizeof(*set->tables));
	for (size_t i = 0; i < set->n; i++)
		index_add(&x, intern(set->tables[i].isa), i);
	for (size_t i = 0; i < done->n; i++) {
		long old = index_find(&x, done->tables[i].isa);
		if (old >= 0) {
			table_free(&set->tables[old]);
			set->tables[old] = done->tables[i];
		} else {
			index_add(&x, done->tables[i].isa, set->n);
			set->tables[set->n++] = done->tables[i];
		}
	}
	free(x.slot);
	free(done->tables);
	*done = (struct exit_types){0};
}

/* ---- lines ----------------------------------------------------------- */

static const struct directive *lookup_directive(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(directives); i++)
		if (strcmp(directives[i].name, name) == 0)
			return &directives[i];
	return NULL;
}

static int run_directive(struct parser *p, const struct args *a)
{
	const struct directive *d = lookup_directive(a->argv[0]);
	int nargs = a->argc - 1;

	if (!d)
		return types_fail(&p->at, "unknown directive '%s'", a->argv[0]);
	if (!p->have_cur && d->fn != d_isa)
		return types_fail(&p->at, "'%s' before the first 'isa'", d->name);
	if (nargs < d->min)
		return types_fail(&p->at, "'%s' needs %d argument%s", d->name, d->min,
				  d->min > 1 ? "s" : "");
	if (!d->text && (a->more || nargs > d->max))
		return types_fail(&p->at, "too many arguments to '%s'", d->name);
	if (d->once & p->cur.seen)
		return types_fail(&p->at, "'%s' given twice in table '%s'", d->name, p->cur.t.isa);
	p->cur.seen |= d->once;
	return d->fn(p, a);
}

/* One line of len bytes (no newline, no NUL in it). */
static int parse_line(struct parser *p, const char *text, size_t len)
{
	char line[MAX_LINE + 1], copy[MAX_LINE + 1];
	const char *hash;
	struct args a;

	if (len > MAX_LINE)
		return types_fail(&p->at, "line longer than %d bytes", MAX_LINE);
	hash = memchr(text, '#', len);
	if (hash)
		len = (size_t)(hash - text);
	memcpy(line, text, len);
	line[len] = '\0';
	memcpy(copy, line, len + 1);
	split(line, copy, &a);
	return a.argc ? run_directive(p, &a) : 0;
}

static unsigned line_of(const char *buf, const char *at)
{
	unsigned n = 1;

	for (const char *s = buf; s < at; s++)
		n += *s == '\n';
	return n;
}

int exit_types_parse_mem(struct exit_types *set, const char *buf, size_t len, const char *origin,
			 char *errbuf, size_t errlen)
{
	struct parser p = {
	    .at = {.origin = origin ? origin : "(text)", .err = errbuf, .errlen = errlen}};
	const char *end = buf + len, *s = buf, *nul;
	int rc = 0;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!buf)
		return types_fail(&p.at, "no text");
	if ((nul = memchr(buf, '\0', len))) {
		p.at.line = line_of(buf, nul);
		return types_fail(&p.at, "NUL byte");
	}
	while (s < end && rc == 0) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;
		p.at.line++;
		rc = parse_line(&p, s, (size_t)(eol - s));
		s = nl ? nl + 1 : end;
	}
	if (rc == 0 && p.have_cur)
		rc = finish_table(&p);
	free(p.done_index.slot);
	if (rc < 0) {
		if (p.have_cur)
			builder_free(&p.cur);
		exit_types_free(&p.done);
		return -1;
	}
	commit(set, &p.done);
	return 0;
}

int exit_types_parse(struct exit_types *set, const char *text, const char *origin, char *errbuf,
		     size_t errlen)
{
	return exit_types_parse_mem(set, text, text ? strlen(text) : 0, origin, errbuf, errlen);
}

int exit_types_load_builtin(struct exit_types *set, char *errbuf, size_t errlen)
{
	char origin[256];

	for (size_t i = 0; i < exit_types_builtin_n; i++) {
		snprintf(origin, sizeof(origin), "builtin:%s", exit_types_builtin[i].file);
		if (exit_types_parse(set, exit_types_builtin[i].text, origin, errbuf, errlen) < 0)
			return -1;
	}
	return 0;
}

int exit_types_load_file(struct exit_types *set, const char *path, char *errbuf, size_t errlen)
{
	char *buf;
	size_t len;
	int rc;

	if (file_read_regular(path, MAX_FILE, &buf, &len) < 0) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "%s: %s", path, file_read_error(errno));
		return -1;
	}
	rc = exit_types_parse_mem(set, buf, len, path, errbuf, errlen);
	free(buf);
	return rc;
}

void exit_types_free(struct exit_types *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++)
		table_free(&set->tables[i]);
	free(set->tables);
	*set = (struct exit_types){0};
}

const struct exit_table *exit_types_find(const struct exit_types *set, const char *isa)
{
	for (size_t i = 0; set && isa && i < set->n; i++)
		if (strcmp(set->tables[i].isa, isa) == 0)
			return &set->tables[i];
	return NULL;
}

/* ---- lookups --------------------------------------------------------- */

SORTED_DEFINE_FIND(find_key, struct exit_name, key, uint64_t)

static const char *bsearch_name(const struct exit_name *v, size_t n, uint64_t key)
{
	bool found;
	size_t i = find_key(v, n, key, &found);

	return found ? v[i].name : NULL;
}

uint64_t exit_table_subkey(const struct exit_table *t, uint64_t field, uint64_t low)
{
	unsigned n = t->subkey_shift;

	return n ? field << n | (low & ((1ULL << n) - 1)) : field;
}

bool exit_table_has_subkey(const struct exit_table *t, uint64_t key)
{
	for (unsigned i = 0; t && t->subkey_field && i < t->nsubkey_keys; i++)
		if (t->subkey_keys[i] == key)
			return true;
	return false;
}

const char *exit_table_detail(const struct exit_table *t, uint64_t key)
{
	return t ? bsearch_name(t->implies, t->nimplies, key) : NULL;
}

static bool is_errno_key(const struct exit_table *t, uint64_t key)
{
	return t && t->kind == EXIT_TABLE_USERSPACE && (key & EXIT_KEY_ERRNO);
}

void exit_table_compose(const struct exit_table *t, uint64_t reason, uint64_t sub, int64_t error,
			uint64_t *key, uint64_t *flagbits)
{
	uint64_t mask = t ? t->reason_mask : UINT64_MAX;

	*flagbits = 0;
	if (t && t->kind == EXIT_TABLE_USERSPACE && t->error_field && error < 0) {
		/* 0 - (uint64_t)error: no signed overflow for INT64_MIN */
		*key = EXIT_KEY_ERRNO | ((0 - (uint64_t)error) & ~EXIT_KEY_ERRNO);
		return;
	}
	*key = reason & mask;
	/* Bits above the mask mean something only where the table names some. */
	if (t && t->nflags)
		*flagbits = reason & ~mask;
	if (t && t->sub_field) {
		uint64_t submask = t->sub_shift ? (1ULL << t->sub_shift) - 1 : UINT64_MAX;
		*key = (*key << t->sub_shift) | (sub & submask);
	}
}

const char *exit_table_name(const struct exit_table *t, uint64_t key)
{
	if (!t)
		return NULL;
	if (is_errno_key(t, key))
		return bsearch_name(t->errnames, t->nerrnames, key & ~EXIT_KEY_ERRNO);
	return bsearch_name(t->names, t->nnames, key);
}

bool exit_table_is_halt(const struct exit_table *t, uint64_t key)
{
	return t && t->nhalts && !is_errno_key(t, key) && bsearch_name(t->halts, t->nhalts, key);
}

enum kes_detail exit_table_explain(const struct exit_table *t, uint64_t key)
{
	const char *kind = t && !is_errno_key(t, key) ? bsearch_name(t->explains, t->nexplains, key)
						      : NULL;

	return kind && exit_types_detail_kind(kind) > 0 ? (enum kes_detail)exit_types_detail_kind(kind)
						       : KES_D_NONE;
}

/* Appends to buf (always NUL-terminated, silently truncated). */
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len >= size - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len = *len + (size_t)n < size - 1 ? *len + (size_t)n : size - 1;
}

const char *exit_table_display(const struct exit_table *t, const struct exit_name *over,
			       size_t nover, uint64_t key, uint64_t flagbits)
{
	char buf[2 * MAX_LINE];
	size_t len = 0;
	const char *name = NULL;

	if (is_errno_key(t, key)) {
		name = exit_table_name(t, key);
		if (name)
			return name;
		snprintf(buf, sizeof(buf), "error(%llu)",
			 (unsigned long long)(key & ~EXIT_KEY_ERRNO));
		return intern(buf);
	}
	if (over)
		name = bsearch_name(over, nover, key);
	if (!name)
		name = exit_table_name(t, key);
	if (name && !flagbits)
		return name; /* already interned: the common case costs no copy */
	if (name)
		append(buf, sizeof(buf), &len, "%s", name);
	else
		append(buf, sizeof(buf), &len, "UNKNOWN(0x%llx)", (unsigned long long)key);
	for (size_t i = 0; t && i < t->nflags && flagbits; i++) {
		if ((flagbits & t->flags[i].key) == t->flags[i].key) {
			append(buf, sizeof(buf), &len, "|%s", t->flags[i].name);
			flagbits &= ~t->flags[i].key;
		}
	}
	if (flagbits)
		append(buf, sizeof(buf), &len, "|0x%llx", (unsigned long long)flagbits);
	return intern(buf);
}

/* "UNKNOWN(0x83)" or "error(4)": the number inside prefix( ). */
static int paren_number(const char *s, const char *prefix, uint64_t *v)
{
	size_t plen = strlen(prefix), len = strlen(s);
	char num[32];

	if (len <= plen + 1 || len - plen - 1 >= sizeof(num) || strncmp(s, prefix, plen) != 0 ||
	    s[len - 1] != ')')
		return -1;
	memcpy(num, s + plen, len - plen - 1);
	num[len - plen - 1] = '\0';
	return parse_u64(num, v);
}


int exit_table_key(const struct exit_table *t, const char *name, uint64_t *key)
{
	uint64_t v;

	if (!t || !name)
		return -1;
	if (linear_key(t->names, t->nnames, name, key) == 0)
		return 0;
	if (t->kind == EXIT_TABLE_USERSPACE) {
		if (linear_key(t->errnames, t->nerrnames, name, &v) == 0 ||
		    (paren_number(name, "error(", &v) == 0 && v && v < EXIT_KEY_ERRNO)) {
			*key = EXIT_KEY_ERRNO | v;
			return 0;
		}
	}
	if (paren_number(name, "UNKNOWN(", &v) == 0) {
		*key = v;
		return 0;
	}
	return -1;
}

int exit_table_key_alias(const struct exit_table *t, const char *name, uint64_t *key)
{
	if (exit_table_key(t, name, key) == 0)
		return 0;
	return t ? linear_key(t->aliases, t->naliases, name, key) : -1;
}

size_t exit_types_aliases(const struct exit_types *set, const char *name, const char **out,
			  size_t max)
{
	size_t n = 0;
	uint64_t key;

	for (size_t i = 0; set && name && i < set->n; i++) {
		const struct exit_table *t = &set->tables[i];

		if (!t->naliases || linear_key(t->names, t->nnames, name, &key) < 0)
			continue;
		for (size_t j = 0; j < t->naliases && n < max; j++)
			if (t->aliases[j].key == key)
				out[n++] = t->aliases[j].name;
	}
	return n;
}

/* One "|part" of a display string: a flag name, or the hex of unnamed bits. */
static int flag_part(const struct exit_table *t, const char *s, size_t len, uint64_t *bits)
{
	char part[MAX_LINE + 1];

	if (!len || len > MAX_LINE)
		return -1;
	memcpy(part, s, len);
	part[len] = '\0';
	if (linear_key(t->flags, t->nflags, part, bits) == 0)
		return 0;
	if (strncmp(part, "0x", 2) == 0 && parse_u64(part, bits) == 0)
		return 0;
	return -1;
}

int exit_table_key_flags(const struct exit_table *t, const char *display, uint64_t *key,
			 uint64_t *flagbits)
{
	char head[MAX_LINE + 1];
	const char *bar;
	size_t len;

	if (!t || !display)
		return -1;
	bar = strchr(display, '|');
	len = bar ? (size_t)(bar - display) : strlen(display);
	if (len > MAX_LINE)
		return -1;
	memcpy(head, display, len);
	head[len] = '\0';
	if (exit_table_key(t, head, key) < 0)
		return -1;
	*flagbits = 0;
	while (bar) {
		const char *s = bar + 1;
		uint64_t bits;
		bar = strchr(s, '|');
		len = bar ? (size_t)(bar - s) : strlen(s);
		if (flag_part(t, s, len, &bits) < 0)
			return -1;
		*flagbits |= bits;
	}
	return 0;
}
