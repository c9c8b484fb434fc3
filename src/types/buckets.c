// SPDX-License-Identifier: GPL-2.0
/*
 * Timing bucket maps: parser, checker and the per-exit lookup that pair/
 * calls through pair_opts.namer. Format: kvm-exitstat-exit-types(5),
 * BUCKET MAPS.
 *
 * A user's map is untrusted input: lines are copied into a bounded buffer,
 * there is no recursion, and nothing is returned until the whole text parsed.
 * The lookup runs once per exit (millions per run), so its answer is memoized
 * by (isa, reason, details): names are interned, so pointers compare. Value
 * tests (DETAIL&MASK) enter the memo key as one bit per distinct test, not
 * as raw values, so error codes that differ only in bits no rule tests share
 * an entry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "bucket-map.h"
#include "err.h"
#include "file.h"
#include "intern.h"
#include "types-local.h"

#define MAX_LINE    1024	  /* bytes, without the newline */
#define MAX_TOKENS  16		  /* rule, isa, reason, conditions, ->, bucket */
#define MAX_VTESTS  64		  /* distinct DETAIL&MASK of a map: bits of a u64 */
#define MAX_FILE    (1024 * 1024) /* a map is a few kB */
#define DETAIL_BITS ((1u << KES_D_MAX) - 1)

/*
 * The flag each detail kind carries, as decode/detail.c sets it; NULL: none.
 * A condition names it, e.g. mmio/write. kvm_page_fault has none: which bit
 * of its error_code is a fetch depends on the exit (decode/detail.c), so maps
 * test the bits themselves (page_fault&0x4).
 */
static const char *const flag_names[KES_D_MAX] = {
    [KES_D_MMIO] = "write",	/* kvm_mmio type KVM_TRACE_MMIO_WRITE */
    [KES_D_PIO] = "write",	/* kvm_pio rw: out */
    [KES_D_EMULATE] = "failed", /* kvm_emulate_insn failed */
    [KES_D_MSR] = "write",	/* kvm_msr write */
};

struct rule {
	const char *isa;    /* interned; NULL: any */
	const char *reason; /* interned exact name; NULL: any (or prefix) */
	const char *prefix; /* "TRAP_*" -> "TRAP_"; NULL: none */
	size_t plen;
	uint32_t need, absent;	       /* detail kinds seen / not seen */
	uint32_t flag_set, flag_clear; /* kinds whose flag must be set / unset */
	uint64_t vset, vclear;	       /* value tests (bit i: map's vtest[i]) true / false */
	const char *bucket;	       /* interned; NULL: the exit's own name */
	unsigned line;
};

struct memo {
	const char *isa, *reason; /* reason NULL: free slot (exits always have one) */
	uint32_t mask, flags;
	uint64_t tests; /* outcomes of the map's value tests */
	const char *name;
};

/* DETAIL&MASK: the first detail of that kind has a bit of MASK set. */
struct vtest {
	enum kes_detail kind;
	uint64_t bits;
};

struct bucket_map {
	const char *name, *describe, *origin; /* interned */
	struct rule *rules;
	size_t nrules;
	struct vtest vtest[MAX_VTESTS];
	unsigned nvtests;
	uint32_t vkinds; /* kinds some vtest reads: other exits skip them all */
	struct memo *memo;
	size_t memo_cap, memo_used;
};

struct parser {
	struct types_at at;
	struct bucket_map *m;
	size_t cap;
};

struct token {
	char *s;
	bool quoted; /* "..." : a literal name, never a pattern or keyword */
};

/*
 * Splits a line into tokens in place. "..." makes one token of a name with
 * blanks ("Wait state"); '#' outside quotes ends the line. Returns the count,
 * or -1 (unterminated quote, too many tokens).
 */
static int tokenize(struct parser *p, char *s, struct token *tok)
{
	int n = 0;

	for (;;) {
		while (types_blank(*s))
			s++;
		if (!*s || *s == '#')
			return n;
		if (n == MAX_TOKENS)
			return types_fail(&p->at, "too many words (at most %d)", MAX_TOKENS);
		tok[n].quoted = *s == '"';
		if (tok[n].quoted) {
			char *end = strchr(++s, '"');
			if (!end)
				return types_fail(&p->at, "unterminated quote");
			*end = '\0';
			tok[n++].s = s;
			s = end + 1;
			if (*s && !types_blank(*s) && *s != '#')
				return types_fail(&p->at, "a blank must follow a closing quote");
			continue;
		}
		tok[n++].s = s;
		while (*s && !types_blank(*s) && *s != '#')
			s++;
		if (*s == '#') {
			*s = '\0';
			return n;
		}
		if (*s)
			*s++ = '\0';
	}
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* ---- conditions ------------------------------------------------------- */

static int detail_kind(const char *s, size_t len)
{
	for (int k = KES_D_NONE + 1; k < KES_D_MAX; k++) {
		const char *name = exit_types_detail_name((enum kes_detail)k);
		if (strlen(name) == len && !strncmp(name, s, len))
			return k;
	}
	return -1;
}

static int unknown_detail(struct parser *p, const char *s, size_t len)
{
	char list[256] = "";

	for (int k = KES_D_NONE + 1; k < KES_D_MAX; k++) {
		strcat(list, k > KES_D_NONE + 1 ? ", " : "");
		strcat(list, exit_types_detail_name((enum kes_detail)k));
	}
	return types_fail(&p->at, "unknown detail '%.*s' (want %s)", (int)len, s, list);
}

/*
 * The field the decoder reads a kind's value from, by the built-in detail
 * events (exit_types/detail.types); NULL: it has none.
 */
static const char *value_field(int k)
{
	const struct exit_types *d = exit_types_builtin_details();

	for (size_t i = 0; d && i < d->n; i++)
		for (size_t j = 0; j < d->tables[i].ndetails; j++)
			if (d->tables[i].details[j].kind == k && d->tables[i].details[j].flag_field)
				return d->tables[i].details[j].flag_field;
	return NULL;
}

/* "0x1f" or "31": a non-zero 64-bit mask; no sign, no octal, nothing after. */
static int parse_mask(const char *s, uint64_t *bits)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = hex ? s + 2 : s;
	char *end;

	if (!*digits ||
	    strspn(digits, hex ? "0123456789abcdefABCDEF" : "0123456789") != strlen(digits))
		return -1;
	if (!hex && digits[0] == '0' && digits[1])
		return -1; /* 010: octal to strtoull, eight to nobody */
	errno = 0;
	*bits = strtoull(digits, &end, hex ? 16 : 10);
	return errno || *end || !*bits ? -1 : 0;
}

/* The index of test (k, bits) in the map, added if new. */
static int vtest_index(struct parser *p, int k, uint64_t bits)
{
	struct bucket_map *m = p->m;

	for (unsigned i = 0; i < m->nvtests; i++)
		if ((int)m->vtest[i].kind == k && m->vtest[i].bits == bits)
			return (int)i;
	if (m->nvtests == MAX_VTESTS)
		return types_fail(&p->at, "more than %d different DETAIL&MASK tests in one map",
				  MAX_VTESTS);
	m->vtest[m->nvtests] = (struct vtest){(enum kes_detail)k, bits};
	m->vkinds |= 1u << k;
	return (int)m->nvtests++;
}

/* "DETAIL&[!]MASK": the detail seen, and its first one's value has a bit of MASK (set / none). */
static int parse_value_test(struct parser *p, const char *s, int k, const char *amp, struct rule *r)
{
	bool vneg = amp[1] == '!';
	const char *mask = amp + 1 + vneg;
	uint64_t bits;
	int i;

	if (!value_field(k))
		return types_fail(&p->at, "detail %.*s carries no value to test", (int)(amp - s),
				  s);
	if (parse_mask(mask, &bits) < 0)
		return types_fail(&p->at, "'%s': bad mask '%s' (a non-zero number: 0x10 or 16)", s,
				  mask);
	if ((i = vtest_index(p, k, bits)) < 0)
		return -1;
	r->need |= 1u << k;
	*(vneg ? &r->vclear : &r->vset) |= 1ULL << i;
	return 0;
}

static int parse_flag(struct parser *p, const char *name, size_t len, int k, const char *slash,
		      struct rule *r)
{
	bool fneg = slash[1] == '!';
	const char *flag = slash + 1 + fneg;

	if (!flag_names[k] && value_field(k))
		return types_fail(&p->at,
				  "detail %.*s has no flag (test the bits of its %s: %.*s&MASK)",
				  (int)len, name, value_field(k), (int)len, name);
	if (!flag_names[k])
		return types_fail(&p->at, "detail %.*s has no flag", (int)len, name);
	if (strcmp(flag, flag_names[k]))
		return types_fail(&p->at, "detail %.*s has no flag '%s' (it has '%s')", (int)len,
				  name, flag, flag_names[k]);
	r->need |= 1u << k;
	*(fneg ? &r->flag_clear : &r->flag_set) |= 1u << k;
	return 0;
}

/* "[!]DETAIL", "DETAIL/[!]FLAG" or "DETAIL&[!]MASK": all of a rule's conditions must hold. */
static int parse_condition(struct parser *p, const char *s, struct rule *r)
{
	bool neg = *s == '!';
	const char *name = s + neg, *op = name + strcspn(name, "/&");
	size_t len = (size_t)(op - name);
	int k = detail_kind(name, len);

	if (k < 0)
		return unknown_detail(p, name, len);
	if (!*op) {
		*(neg ? &r->absent : &r->need) |= 1u << k;
		return 0;
	}
	/* "none seen, or none with it" or "seen, none with it"? Say which. */
	if (neg && *op == '/')
		return types_fail(&p->at, "'%s': a flag needs its detail seen (write %.*s/!%s)", s,
				  (int)len, name, op[1] == '!' ? op + 2 : op + 1);
	if (neg)
		return types_fail(&p->at,
				  "'%s': a value test needs its detail seen (write %.*s&!%s)", s,
				  (int)len, name, op[1] == '!' ? op + 2 : op + 1);
	if (*op == '&')
		return parse_value_test(p, name, k, op, r);
	return parse_flag(p, name, len, k, op, r);
}

/* ---- directives ------------------------------------------------------- */

static int parse_reason(struct parser *p, const struct token *t, struct rule *r)
{
	size_t len = strlen(t->s);

	if (!*t->s || !printable(t->s))
		return types_fail(&p->at, "bad reason '%s'", t->s);
	if (!t->quoted && !strcmp(t->s, "*"))
		return 0;
	if (!t->quoted && t->s[len - 1] == '*') {
		r->prefix = intern_n(t->s, len - 1);
		r->plen = len - 1;
		return 0;
	}
	r->reason = intern(t->s);
	return 0;
}

static int parse_bucket(struct parser *p, const struct token *t, struct rule *r)
{
	if (t->quoted || !printable(t->s))
		return types_fail(&p->at, "bad bucket '%s' (one word of printable ASCII)", t->s);
	if (!strcmp(t->s, "="))
		return 0;
	/* pair/ counts guest time there: an exit in it would corrupt every %. */
	if (!strcmp(t->s, KES_TIMEINGUEST))
		return types_fail(&p->at, "bucket %s is the time in the guest, not an exit", t->s);
	r->bucket = intern(t->s);
	return 0;
}

static int add_rule(struct parser *p, const struct rule *r)
{
	struct bucket_map *m = p->m;

	if (m->nrules == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		m->rules = xrealloc(m->rules, p->cap * sizeof(*m->rules));
	}
	m->rules[m->nrules++] = *r;
	return 0;
}

/* rule ISA REASON [CONDITION...] -> BUCKET */
static int do_rule(struct parser *p, const struct token *tok, int n)
{
	struct rule r = {.line = p->at.line};
	int arrow = 0;

	for (int i = 3; i < n; i++)
		if (!tok[i].quoted && !strcmp(tok[i].s, "->"))
			arrow = i;
	if (!arrow || arrow != n - 2)
		return types_fail(&p->at, "want 'rule ISA REASON [CONDITION...] -> BUCKET'");
	if (!printable(tok[1].s) || !*tok[1].s)
		return types_fail(&p->at, "bad isa '%s'", tok[1].s);
	if (tok[1].quoted || strcmp(tok[1].s, "*"))
		r.isa = intern(tok[1].s);
	if (parse_reason(p, &tok[2], &r) < 0)
		return -1;
	for (int i = 3; i < arrow; i++)
		if (parse_condition(p, tok[i].s, &r) < 0)
			return -1;
	if (r.need & r.absent)
		return types_fail(&p->at, "a detail both seen and not seen: the rule cannot match");
	if (parse_bucket(p, &tok[n - 1], &r) < 0)
		return -1;
	return add_rule(p, &r);
}

static int do_line(struct parser *p, char *line)
{
	struct token tok[MAX_TOKENS];
	int n = tokenize(p, line, tok);
	struct bucket_map *m = p->m;

	if (n <= 0)
		return n;
	if (tok[0].quoted)
		return types_fail(&p->at, "a line starts with a directive: map, describe or rule");
	if (!strcmp(tok[0].s, "map")) {
		if (m->name)
			return types_fail(&p->at, "a second 'map' line (one map per file)");
		if (n != 2 || !printable(tok[1].s))
			return types_fail(&p->at, "want 'map NAME'");
		m->name = intern(tok[1].s);
		return 0;
	}
	if (!m->name)
		return types_fail(&p->at, "'%s' before 'map NAME'", tok[0].s);
	if (!strcmp(tok[0].s, "describe")) {
		char buf[MAX_LINE + 1] = "";
		if (m->describe)
			return types_fail(&p->at, "a second 'describe' line");
		for (int i = 1; i < n; i++) {
			strcat(buf, i > 1 ? " " : "");
			strcat(buf, tok[i].s);
		}
		m->describe = intern(buf);
		return 0;
	}
	if (!strcmp(tok[0].s, "rule"))
		return do_rule(p, tok, n);
	return types_fail(&p->at, "unknown directive '%s' (want map, describe or rule)", tok[0].s);
}

static int parse_all(struct parser *p, const char *text, size_t len)
{
	const char *s = text, *end = text + len;
	char line[MAX_LINE + 2];

	if (memchr(text, '\0', len)) {
		p->at.line = 1;
		for (const char *c = text; *c; c++)
			p->at.line += *c == '\n';
		return types_fail(&p->at, "NUL byte in a map file");
	}
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		p->at.line++;
		if (n > MAX_LINE)
			return types_fail(&p->at, "line longer than %d bytes", MAX_LINE);
		memcpy(line, s, n);
		line[n] = '\0';
		if (do_line(p, line) < 0)
			return -1;
		s += n + 1;
	}
	if (!p->at.line)
		p->at.line = 1; /* an empty file: its first line lacks the map line */
	if (!p->m->name)
		return types_fail(&p->at, "no 'map NAME' line");
	if (!p->m->nrules)
		return types_fail(&p->at, "map '%s' has no rule", p->m->name);
	return 0;
}

struct bucket_map *bucket_map_parse(const char *text, size_t len, const char *origin, char *errbuf,
				    size_t errlen)
{
	struct parser p = {
	    .at = {.origin = origin ? origin : "map", .err = errbuf, .errlen = errlen}};

	p.m = xcalloc(1, sizeof(*p.m));
	p.m->origin = intern(p.at.origin);
	if (parse_all(&p, text ? text : "", text ? len : 0) < 0) {
		bucket_map_free(p.m);
		return NULL;
	}
	return p.m;
}

void bucket_map_free(struct bucket_map *m)
{
	if (!m)
		return;
	free(m->rules);
	free(m->memo);
	free(m);
}

const char *bucket_map_name(const struct bucket_map *m)
{
	return m->name;
}

const char *bucket_map_describe(const struct bucket_map *m)
{
	return m->describe;
}

/* ---- loading ---------------------------------------------------------- */

struct bucket_map *bucket_map_builtin(const char *name, char *errbuf, size_t errlen)
{
	char file[256], origin[300];

	snprintf(file, sizeof(file), "%s.map", name);
	for (size_t i = 0; i < bucket_map_nfiles; i++) {
		if (strcmp(bucket_map_files[i].file, file))
			continue;
		snprintf(origin, sizeof(origin), "builtin:%s", file);
		return bucket_map_parse(bucket_map_files[i].text, strlen(bucket_map_files[i].text),
					origin, errbuf, errlen);
	}
	err_buf(errbuf, errlen, "no built-in bucket map '%s'", name);
	return NULL;
}

/* A map file a user gave: read whole (bounded), then parsed like a built-in one. */
static struct bucket_map *load_map_file(const char *path, char *errbuf, size_t errlen)
{
	size_t len;
	char *text;

	if (file_read_regular(path, MAX_FILE, &text, &len) < 0) {
		err_buf(errbuf, errlen, "cannot read bucket map '%s': %s", path,
			file_read_error(errno));
		return NULL;
	}
	struct bucket_map *m = bucket_map_parse(text, len, path, errbuf, errlen);
	free(text);
	return m;
}

static void builtin_list(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < bucket_map_nfiles && n < len; i++) {
		const char *f = bucket_map_files[i].file;
		int w = snprintf(buf + n, len - n, "%s%.*s", i ? ", " : "",
				 (int)(strlen(f) - strlen(".map")), f);
		n += w > 0 ? (size_t)w : 0;
	}
}

struct bucket_map *bucket_map_open(const char *name_or_path, char *errbuf, size_t errlen)
{
	char list[256];

	for (size_t i = 0; i < bucket_map_nfiles; i++) {
		const char *f = bucket_map_files[i].file;
		size_t n = strlen(name_or_path);
		if (!strncmp(f, name_or_path, n) && !strcmp(f + n, ".map"))
			return bucket_map_builtin(name_or_path, errbuf, errlen);
	}
	/* access(), not open(): opening a FIFO would wait for a writer */
	if (access(name_or_path, F_OK) == 0)
		return load_map_file(name_or_path, errbuf, errlen);
	builtin_list(list, sizeof(list));
	if (errno == ENOENT && !strchr(name_or_path, '/'))
		err_buf(errbuf, errlen, "no bucket map '%s': not a built-in map (%s) nor a file",
			name_or_path, list);
	else
		err_buf_errno(errbuf, errlen, "cannot read bucket map '%s'", name_or_path);
	return NULL;
}

/* ---- checking against the exit tables ---------------------------------- */

static bool has_prefix(const struct exit_name *v, size_t n, const char *prefix, size_t plen)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(v[i].name, prefix, plen))
			return true;
	return false;
}

/* Does table t know the rule's reason (an exact name, or a prefix)? */
static bool table_knows(const struct exit_table *t, const struct rule *r)
{
	uint64_t key;

	if (t->kind == EXIT_TABLE_NAMES || t->kind == EXIT_TABLE_EVENTS)
		return false;
	if (r->prefix)
		return has_prefix(t->names, t->nnames, r->prefix, r->plen) ||
		       has_prefix(t->errnames, t->nerrnames, r->prefix, r->plen);
	return exit_table_key_alias(t, r->reason, &key) == 0;
}

/*
 * A rule naming a reason by one of its table's aliases (arm64's "DABT_LOW")
 * matches the name the exits carry (TRAP_DABT_LOW): rules compare interned
 * names, so the alias is replaced here, by the first table that has it.
 */
static void canonical_reason(struct rule *r, const struct exit_types *types)
{
	uint64_t key;

	for (size_t i = 0; r->reason && i < types->n; i++) {
		const struct exit_table *t = &types->tables[i];

		if (r->isa && strcmp(t->isa, r->isa))
			continue;
		if (exit_table_key(t, r->reason, &key) == 0)
			return; /* a name of its own somewhere: kept */
	}
	for (size_t i = 0; r->reason && i < types->n; i++) {
		const struct exit_table *t = &types->tables[i];
		const char *name;

		if ((r->isa && strcmp(t->isa, r->isa)) ||
		    exit_table_key_alias(t, r->reason, &key) < 0 || !(name = exit_table_name(t, key)))
			continue;
		r->reason = intern(name);
		return;
	}
}

static int check_rule(struct parser *p, struct rule *r, const struct exit_types *types)
{
	const char *what = r->reason ? r->reason : r->prefix;
	const char *star = r->prefix ? "*" : "";

	p->at.line = r->line;
	canonical_reason(r, types);
	if (r->isa) {
		const struct exit_table *t = exit_types_find(types, r->isa);
		if (!t || t->kind == EXIT_TABLE_NAMES || t->kind == EXIT_TABLE_EVENTS)
			return types_fail(&p->at, "no exit table '%s'", r->isa);
		if (what && !table_knows(t, r))
			return types_fail(&p->at, "%s has no exit named '%s%s'", r->isa, what,
					  star);
		return 0;
	}
	if (!what)
		return 0;
	for (size_t i = 0; i < types->n; i++)
		if (table_knows(&types->tables[i], r))
			return 0;
	return types_fail(&p->at, "no exit table has an exit named '%s%s'", what, star);
}

int bucket_map_check(struct bucket_map *m, const struct exit_types *types, char *errbuf,
		     size_t errlen)
{
	struct parser p = {.at = {.origin = m->origin, .err = errbuf, .errlen = errlen}};

	for (size_t i = 0; i < m->nrules; i++)
		if (check_rule(&p, &m->rules[i], types) < 0)
			return -1;
	return 0;
}

/* ---- lookup ----------------------------------------------------------- */

/* What one exit is matched on: its details reduced to what rules test. */
struct what {
	const char *isa, *reason;
	uint32_t mask, flags;
	uint64_t tests;
};

static bool matches(const struct rule *r, const struct what *w)
{
	if ((r->isa && r->isa != w->isa) || (r->reason && r->reason != w->reason))
		return false;
	if (r->prefix && strncmp(w->reason, r->prefix, r->plen))
		return false;
	if ((w->mask & r->need) != r->need || (w->mask & r->absent))
		return false;
	if ((w->tests & r->vset) != r->vset || (w->tests & r->vclear))
		return false;
	return (w->flags & r->flag_set) == r->flag_set && !(w->flags & r->flag_clear);
}

static const char *resolve(const struct bucket_map *m, const struct what *w)
{
	char buf[MAX_LINE + 16];

	for (size_t i = 0; i < m->nrules; i++) {
		const struct rule *r = &m->rules[i];
		if (matches(r, w))
			return r->bucket ? r->bucket : w->reason;
	}
	/* Visible, never dropped: the reader sees what the map does not cover. */
	snprintf(buf, sizeof(buf), "OTHER(%s)", w->reason);
	return intern(buf);
}

static size_t memo_slot(const struct memo *v, size_t cap, const struct what *w)
{
	uint64_t h = (uint64_t)(uintptr_t)w->isa * 0x9e3779b97f4a7c15ULL ^
		     (uint64_t)(uintptr_t)w->reason * 0xc2b2ae3d27d4eb4fULL ^
		     ((uint64_t)w->mask << 32 | w->flags) * 0x165667b19e3779f9ULL ^
		     w->tests * 0x27d4eb2f165667c5ULL;
	size_t i = (size_t)(h >> 32) & (cap - 1);

	while (v[i].reason &&
	       !(v[i].reason == w->reason && v[i].isa == w->isa && v[i].mask == w->mask &&
		 v[i].flags == w->flags && v[i].tests == w->tests))
		i = (i + 1) & (cap - 1);
	return i;
}

static void memo_grow(struct bucket_map *m)
{
	struct memo *old = m->memo;
	size_t n = m->memo_cap;

	m->memo_cap = n ? 2 * n : 64;
	m->memo = xcalloc(m->memo_cap, sizeof(*m->memo));
	for (size_t i = 0; i < n; i++) {
		if (!old[i].reason)
			continue;
		struct what w = {old[i].isa, old[i].reason, old[i].mask, old[i].flags,
				 old[i].tests};
		m->memo[memo_slot(m->memo, m->memo_cap, &w)] = old[i];
	}
	free(old);
}

/* Bit i: the map's value test i holds (its kind seen, a bit of its mask set in the value). */
static uint64_t value_tests(const struct bucket_map *m, const struct kes_details *d, uint32_t mask)
{
	uint64_t t = 0;

	if (!(mask & m->vkinds))
		return 0;
	for (unsigned i = 0; i < m->nvtests; i++) {
		const struct vtest *v = &m->vtest[i];
		bool hit = (mask >> v->kind & 1) && (d->value[v->kind] & v->bits);
		t |= (uint64_t)hit << i;
	}
	return t;
}

const char *bucket_map_apply(struct bucket_map *m, const char *isa, const char *reason,
			     const struct kes_details *d)
{
	struct what w = {isa, reason ? reason : intern("?"), 0, 0, 0};

	if (d) {
		w.mask = d->mask & DETAIL_BITS;
		w.flags = d->flags & w.mask;
		w.tests = value_tests(m, d, w.mask);
	}
	if (2 * (m->memo_used + 1) > m->memo_cap)
		memo_grow(m);
	size_t i = memo_slot(m->memo, m->memo_cap, &w);
	if (!m->memo[i].reason) {
		m->memo[i] =
		    (struct memo){w.isa, w.reason, w.mask, w.flags, w.tests, resolve(m, &w)};
		m->memo_used++;
	}
	return m->memo[i].name;
}

const char *bucket_map_namer(void *arg, const char *isa, const char *reason,
			     const struct kes_details *d)
{
	return bucket_map_apply(arg, isa, reason, d);
}
