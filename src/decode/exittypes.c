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
#include "common.h"
#include "exittypes.h"

#define MAX_LINE 1024		    /* bytes, without the newline */
#define MAX_ARGS 8		    /* a directive and its arguments */
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
};

struct builder {
	struct exit_table t;
	unsigned seen;
	unsigned isa_line, exit_line, reason_line, error_line, entry_match_line;
	struct plist names, flags, errnames;
};

struct parser {
	const char *origin;
	unsigned line;
	char *err;
	size_t errlen;
	struct builder cur;
	bool have_cur;
	struct exit_types done; /* finished tables, not yet in the caller's set */
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

static int fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errbuf_vat(p->err, p->errlen, p->origin, p->line, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- tokens ---------------------------------------------------------- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Decimal or 0x hex, u64. A leading '-' gives the two's complement, because
 * the kernel writes SVM_EXIT_ERR as -1 ("-1" == 0xffffffffffffffff).
 */
static int parse_u64(const char *s, uint64_t *out)
{
	bool neg = *s == '-';
	unsigned base = 10;
	uint64_t v = 0;

	if (neg)
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		int d = hexval(*s);
		if (d < 0 || (unsigned)d >= base || v > (UINT64_MAX - (unsigned)d) / base)
			return -1;
		v = v * base + (unsigned)d;
	}
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
		if (is_blank(*s)) {
			if (n && buf[n - 1] != ' ')
				buf[n++] = ' ';
			continue;
		}
		if ((unsigned char)*s < ' ' || (unsigned char)*s >= 0x7f)
			return fail(p, "byte 0x%02x in a name (printable ASCII only)",
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
		fail(p, "bad field name '%s'", s);
		return NULL;
	}
	return intern(s);
}

static int number_arg(struct parser *p, const char *s, uint64_t *out)
{
	if (parse_u64(s, out) < 0)
		return fail(p, "bad number '%s'", s);
	return 0;
}

/* "kvm:kvm_exit" */
static int event_arg(struct parser *p, const char *s, const char **sys, const char **ev)
{
	const char *colon = strchr(s, ':');

	if (!colon || colon == s || !colon[1] || strchr(colon + 1, ':'))
		return fail(p, "bad event '%s' (want system:event)", s);
	*sys = intern_n(s, (size_t)(colon - s));
	*ev = intern(colon + 1);
	if (!is_ident(*sys) || !is_ident(*ev))
		return fail(p, "bad event '%s' (want system:event)", s);
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
		while (is_blank(*s))
			s++;
		if (!*s)
			return;
		if (a->argc == MAX_ARGS) {
			a->more = true;
			return;
		}
		a->from[a->argc] = copy + (s - line);
		a->argv[a->argc++] = s;
		while (*s && !is_blank(*s))
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
			p->line = l->v[i].line;
			return fail(p, "%s 0x%llx is both '%s' and '%s'", what,
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
	*t = (struct exit_table){0};
}

static void builder_free(struct builder *b)
{
	table_free(&b->t);
	plist_free(&b->names);
	plist_free(&b->flags);
	plist_free(&b->errnames);
}

/* ---- directives ------------------------------------------------------ */

static struct exit_table *find_mut(struct exit_types *set, const char *isa)
{
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->tables[i].isa, isa) == 0)
			return &set->tables[i];
	return NULL;
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
	};

	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (strcmp(a->argv[1], kinds[i]) == 0) {
			cur(p)->kind = (enum exit_table_kind)i;
			return 0;
		}
	}
	return fail(p, "bad kind '%s' (exit, userspace or names)", a->argv[1]);
}

static int d_exit(struct parser *p, const struct args *a)
{
	p->cur.exit_line = p->line;
	return event_arg(p, a->argv[1], &cur(p)->exit_system, &cur(p)->exit_event);
}

static int d_entry(struct parser *p, const struct args *a)
{
	return event_arg(p, a->argv[1], &cur(p)->entry_system, &cur(p)->entry_event);
}

static int d_reason(struct parser *p, const struct args *a)
{
	struct exit_table *t = cur(p);

	p->cur.reason_line = p->line;
	if (!(t->reason_field = field_arg(p, a->argv[1])))
		return -1;
	if (a->argc == 2)
		return 0;
	if (a->argc != 4 || strcmp(a->argv[2], "mask") != 0)
		return fail(p, "want: reason FIELD [mask N]");
	if (number_arg(p, a->argv[3], &t->reason_mask) < 0)
		return -1;
	if (!t->reason_mask)
		return fail(p, "mask 0 leaves no reason");
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
	p->cur.entry_match_line = p->line;
	return match_arg(p, a, &cur(p)->entry_match);
}

static int d_vcpu(struct parser *p, const struct args *a)
{
	return (cur(p)->vcpu_field = field_arg(p, a->argv[1])) ? 0 : -1;
}

static int d_subreason(struct parser *p, const struct args *a)
{
	uint64_t shift;

	if (!(cur(p)->sub_field = field_arg(p, a->argv[1])))
		return -1;
	if (strcmp(a->argv[2], "shift") != 0)
		return fail(p, "want: subreason FIELD shift N");
	if (number_arg(p, a->argv[3], &shift) < 0)
		return -1;
	if (shift > 63)
		return fail(p, "shift %llu is more than 63", (unsigned long long)shift);
	cur(p)->sub_shift = (unsigned)shift;
	return 0;
}

static int d_error(struct parser *p, const struct args *a)
{
	p->cur.error_line = p->line;
	return (cur(p)->error_field = field_arg(p, a->argv[1])) ? 0 : -1;
}

/* name/flag/errname: KEY NAME */
static int keyed(struct parser *p, const struct args *a, struct plist *l, uint64_t *key,
		 const char **name)
{
	if (number_arg(p, a->argv[1], key) < 0 || text_arg(p, a, 2, name) < 0)
		return -1;
	plist_add(l, *key, *name, p->line);
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
	return bits ? 0 : fail(p, "flag 0 can never be set");
}

static int d_errname(struct parser *p, const struct args *a)
{
	uint64_t err;
	const char *name;

	if (keyed(p, a, &p->cur.errnames, &err, &name) < 0)
		return -1;
	if (!err || err >= EXIT_KEY_ERRNO)
		return fail(p, "errno %s out of range", a->argv[1]);
	return 0;
}

static int finish_table(struct parser *p);

static int d_isa(struct parser *p, const struct args *a)
{
	const char *isa;

	if (p->have_cur && finish_table(p) < 0)
		return -1;
	if (!is_word(a->argv[1]) || strchr(a->argv[1], ':'))
		return fail(p, "bad isa name '%s'", a->argv[1]);
	isa = intern(a->argv[1]);
	if (find_mut(&p->done, isa))
		return fail(p, "table '%s' defined twice", isa);
	p->cur = (struct builder){.isa_line = p->line};
	p->cur.t.isa = isa;
	p->cur.t.origin = intern(p->origin);
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
    {"entry", 1, 1, 0, ONCE_ENTRY, d_entry},
    {"entry-match", 2, 2, 0, ONCE_ENTRY_MATCH, d_entry_match},
    {"subreason", 3, 3, 0, ONCE_SUB, d_subreason},
    {"error", 1, 1, 0, ONCE_ERROR, d_error},
    {"errname", 2, 2, 2, 0, d_errname},
    {"flag", 2, 2, 2, 0, d_flag},
    {"name", 2, 2, 2, 0, d_name},
};

/* ---- tables ---------------------------------------------------------- */

/* Checks that need the whole table, reported at the line that caused them. */
static int check_table(struct parser *p)
{
	struct builder *b = &p->cur;
	struct exit_table *t = &b->t;

	if (t->kind == EXIT_TABLE_NAMES) {
		if (!t->exit_event && !t->reason_field)
			return 0;
		p->line = b->exit_line ? b->exit_line : b->reason_line;
		return fail(p, "a 'kind names' table takes no event or fields");
	}
	if (t->exit_event && !t->reason_field) {
		p->line = b->exit_line;
		return fail(p, "'exit' without 'reason'");
	}
	if (!t->exit_event) {
		p->line = b->reason_line ? b->reason_line : b->isa_line;
		return fail(p, "table '%s' has no 'exit' event", t->isa);
	}
	if (t->entry_match.field && !t->entry_event) {
		p->line = b->entry_match_line;
		return fail(p, "'entry-match' without 'entry'");
	}
	if ((t->error_field || b->errnames.n) && t->kind != EXIT_TABLE_USERSPACE) {
		p->line = t->error_field ? b->error_line : b->errnames.v[0].line;
		return fail(p, "'error' and 'errname' need 'kind userspace'");
	}
	for (size_t i = 0; t->kind == EXIT_TABLE_USERSPACE && i < b->names.n; i++) {
		if (b->names.v[i].key & EXIT_KEY_ERRNO) {
			p->line = b->names.v[i].line;
			return fail(p, "in a userspace table, keys with bit 63 are errors");
		}
	}
	for (size_t i = 0; i < b->flags.n; i++) {
		if (b->flags.v[i].key & t->reason_mask) {
			p->line = b->flags.v[i].line;
			return fail(p, "flag 0x%llx overlaps the reason mask",
				    (unsigned long long)b->flags.v[i].key);
		}
	}
	return 0;
}

static void types_push(struct exit_types *set, const struct exit_table *t)
{
	set->tables = xrealloc(set->tables, (set->n + 1) * sizeof(*set->tables));
	set->tables[set->n++] = *t;
}

/* Errors point p->line at the culprit; success leaves it alone. */
static int finish_table(struct parser *p)
{
	struct builder *b = &p->cur;
	struct exit_table *t = &b->t;
	unsigned line = p->line;
	int rc = -1;

	p->have_cur = false;
	if (check_table(p) == 0 && plist_finish(p, &b->names, "name", &t->names, &t->nnames) == 0 &&
	    plist_finish(p, &b->flags, "flag", &t->flags, &t->nflags) == 0 &&
	    plist_finish(p, &b->errnames, "errname", &t->errnames, &t->nerrnames) == 0) {
		types_push(&p->done, t);
		*t = (struct exit_table){0}; /* now owned by p->done */
		p->line = line;
		rc = 0;
	}
	builder_free(b);
	return rc;
}

/* Moves the parsed tables into set, replacing tables of the same isa. */
static void commit(struct exit_types *set, struct exit_types *done)
{
	for (size_t i = 0; i < done->n; i++) {
		struct exit_table *old = find_mut(set, done->tables[i].isa);
		if (old) {
			table_free(old);
			*old = done->tables[i];
		} else {
			types_push(set, &done->tables[i]);
		}
	}
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
		return fail(p, "unknown directive '%s'", a->argv[0]);
	if (!p->have_cur && d->fn != d_isa)
		return fail(p, "'%s' before the first 'isa'", d->name);
	if (nargs < d->min)
		return fail(p, "'%s' needs %d argument%s", d->name, d->min, d->min > 1 ? "s" : "");
	if (!d->text && (a->more || nargs > d->max))
		return fail(p, "too many arguments to '%s'", d->name);
	if (d->once & p->cur.seen)
		return fail(p, "'%s' given twice in table '%s'", d->name, p->cur.t.isa);
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
		return fail(p, "line longer than %d bytes", MAX_LINE);
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
	struct parser p = {.origin = origin ? origin : "(text)", .err = errbuf, .errlen = errlen};
	const char *end = buf + len, *s = buf, *nul;
	int rc = 0;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!buf)
		return fail(&p, "no text");
	if ((nul = memchr(buf, '\0', len))) {
		p.line = line_of(buf, nul);
		return fail(&p, "NUL byte");
	}
	while (s < end && rc == 0) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;
		p.line++;
		rc = parse_line(&p, s, (size_t)(eol - s));
		s = nl ? nl + 1 : end;
	}
	if (rc == 0 && p.have_cur)
		rc = finish_table(&p);
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

static int read_all(FILE *f, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);

	for (;;) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap) {
			if (ferror(f)) {
				free(buf);
				return -1;
			}
			break;
		}
		if (cap >= MAX_FILE) {
			free(buf);
			errno = EFBIG;
			return -1;
		}
		cap *= 2;
		buf = xrealloc(buf, cap);
	}
	*out = buf;
	*len = n;
	return 0;
}

int exit_types_load_file(struct exit_types *set, const char *path, char *errbuf, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t len;
	int rc;

	if (!f || read_all(f, &buf, &len) < 0) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
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

static const char *bsearch_name(const struct exit_name *v, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].key == key)
			return v[mid].name;
		if (v[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
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
