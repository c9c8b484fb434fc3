// SPDX-License-Identifier: GPL-2.0
/*
 * Reader for the two KVM-PPC exit-timing text forms (see include/ppctext.h).
 *
 * Saved reports. The 2008-2010 script (kvmppc_timing.py on the old KVM wiki,
 * lost since) printed per type
 *	NAME count N min X max Y sum S avg A stddev D % P
 * in µs, then "csum N", "sumsum S => ~M:SS runtime", "sumavg A". Mailers
 * wrapped the long lines (usually after "max Y") and quoted them ("> "), and
 * people wrote prose around them. So the text is read as a stream of
 * whitespace-separated tokens, a row may span lines, and anything that is not
 * a row is skipped; but once "NAME count N min X" has been seen the rest of the
 * row must follow, so a damaged row is an error rather than a silent gap.
 *
 * Debugfs dumps (arch/powerpc/kvm/timing.c, kvmppc_exit_timing_show) print
 *	"type\tcount\tmin\tmax\tsum\tsum_squared"
 * then "%12s\t%10d\t%10lld\t%10lld\t%20lld\t%20lld" for every type, in µs.
 * Kernel quirks this reader knows about:
 *  - Types that never happened are printed too, with count 0, max 0 and min
 *    0xFFFFFFFF (divided by the timebase rate in some kernels): skipped.
 *  - count is a u32 printed with %d and the others u64 printed with %lld, so
 *    very large values come out negative: read back modulo 2^32 / 2^64.
 *  - sum_squared has two meanings. Kernels of the 2.6.3x era divided every
 *    duration by tb_ticks_per_usec before accumulating (add_exit_timing), so
 *    sum_squared is Σµs². The original 2008 code and kernels from 2011 on keep
 *    timebase ticks and divide min/max/sum/sum_squared by tb_ticks_per_usec
 *    once at print time: sum_squared is then Σticks²/tpu = tpu·Σµs², a
 *    factor tb_ticks_per_usec too large, and the file does not say which.
 *    Σµs² can never exceed max·sum (every sample is <= max), so a dump that
 *    breaks that bound must be tick-scaled: it needs the timebase rate
 *    (ppctext_opts.tb_ticks_per_usec), and without it the row's stddev is
 *    unknown (m2 = NAN). A wrapped sum_squared (the kernel logs "wrap adding
 *    sum of squared durations") fails the lower bound sum²/count and gets an
 *    unknown stddev too. A tick-scaled dump whose rows all stay within the
 *    bound cannot be told apart and is read as Σµs² (stddev too large).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "err.h"
#include "exit-table.h"
#include "exit-types.h"
#include "intern.h"
#include "ppctext.h"

#define PPC_MAX_TEXT (64u << 20) /* reports are a few KiB; dumps ~2 KiB a vCPU */
#define PPC_MAX_NAME 128

enum tok_mark {
	TOK_WORD,
	TOK_FILE,  /* "==> FILE <==" (head) */
	TOK_LABEL, /* "# vcpu 0 tid 4102 (comm)": a block of `report --per-vcpu` */
	TOK_ALL,   /* "# all vCPUs": that report's sum of the blocks before it */
	TOK_UNTIMED, /* "# NAME: N exits not timed ...": the row NAME left out N (s: NAME) */
};

struct tok {
	char *s;
	unsigned line;
	bool bol; /* first token of its line */
	enum tok_mark mark;
	int vhint, thint; /* vcpu id / tid this line names, or -1 */
	uint64_t untimed; /* TOK_UNTIMED */
};

struct block {
	int vcpu, tid; /* from file names or labels; -1 when none */
	bool all;      /* a report's "all vCPUs" block, redundant when the others are there */
};

struct prow {
	const char *name;
	unsigned block;
	uint64_t count, min, max, sum; /* ns */
	double m2;		       /* ns², NAN when unknown */
	uint64_t untimed;	       /* exits of the row without a time (kvm-exitstat's '#' line) */
};

/* (name, block) pairs seen: "is this name already in the current block?" in O(1). */
struct seen {
	const char *name; /* interned; NULL: free slot */
	unsigned block;
};

struct parser {
	char *buf;
	struct tok *t;
	size_t nt, tcap;
	struct prow *rows;
	size_t nrows, rcap;
	struct block *blk;
	unsigned nblocks, bcap;
	unsigned cur_rows; /* rows of the current (last) block */
	bool block_closed; /* a csum line ended the current report */
	struct seen *seen; /* open addressing, at most half full */
	size_t nseen, seen_cap;
	int default_vcpu;
	unsigned tpu;
	struct ppctext_info info;
	char *errbuf;
	size_t errlen;
};

static const char *const keywords[] = {"count",	 "min", "max",	"sum",	  "avg",
				       "stddev", "%",	"csum", "sumsum", "sumavg"};

__attribute__((format(printf, 2, 3))) static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_buf_v(p->errbuf, p->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Tokens */

/* Text with NULs or control characters is not a report (UTF-8 prose is fine). */
static bool is_binary(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && (c == 0 || !strchr("\t\n\r\f\v", c))) || c == 0x7f)
			return true;
	}
	return false;
}

/*
 * A vcpu id named by a debugfs path: "vm1234_vcpu0_timing" (2008-2011) or
 * ".../vcpu0/timing" (later kernels). -1 when s[0..n) names none.
 */
static int vcpu_in_path(const char *s, size_t n)
{
	for (size_t i = 0; i + 4 < n; i++) {
		if (memcmp(s + i, "vcpu", 4) != 0 || (i && s[i - 1] != '_' && s[i - 1] != '/'))
			continue;
		size_t j = i + 4;
		long v = 0;
		while (j < n && s[j] >= '0' && s[j] <= '9' && v < 1000000)
			v = v * 10 + (s[j++] - '0');
		if (j == i + 4 || v >= 1000000 || n - j < 7)
			continue;
		if (memcmp(s + j, "_timing", 7) == 0 || memcmp(s + j, "/timing", 7) == 0)
			return (int)v;
	}
	return -1;
}

static struct tok *push_tok(struct parser *p, char *s, unsigned line, bool bol, int vhint)
{
	if (p->nt == p->tcap) {
		p->tcap = p->tcap ? 2 * p->tcap : 256;
		p->t = xrealloc(p->t, p->tcap * sizeof(*p->t));
	}
	p->t[p->nt] = (struct tok){.s = s, .line = line, .bol = bol, .vhint = vhint, .thint = -1};
	return &p->t[p->nt++];
}

/* The number after `word` in s ("vcpu 3", "tid 4102"), or -1. */
static int labelled(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (const char *w = strstr(s, word); w; w = strstr(w + 1, word)) {
		if ((w != s && w[-1] != ' ') || w[n] != ' ')
			continue;
		char *end;
		long v = strtol(w + n + 1, &end, 10);
		if (end != w + n + 1 && v >= 0 && v < INT32_MAX && (!*end || *end == ' '))
			return (int)v;
	}
	return -1;
}

/*
 * '#' lines are comments (kvm-exitstat's own report puts its header there),
 * except the block labels of `report --per-vcpu`, which say whose rows follow.
 */
/*
 * kvm-exitstat's "# NAME: N exit(s) not timed (...)" under a row: N more
 * exits of NAME, counted with it (count is every exit once read back).
 */
static bool untimed_line(struct parser *p, char *s, unsigned line)
{
	char *name, *colon, *end, *blank;
	unsigned long long n;

	/* the prefix first: a line of a lone '#' has nothing after its NUL to search */
	if (strncmp(s, "# ", 2))
		return false;
	name = s + 2;
	colon = strstr(name, ": ");
	blank = strchr(name, ' ');
	if (!colon || colon == name || (blank && blank < colon))
		return false;
	n = strtoull(colon + 2, &end, 10);
	if (end == colon + 2 || (strncmp(end, " exit not timed", 15) && strncmp(end, " exits not timed", 16)))
		return false;
	*colon = '\0';
	struct tok *t = push_tok(p, name, line, true, -1);
	t->mark = TOK_UNTIMED;
	t->untimed = n;
	return true;
}

static void comment_line(struct parser *p, char *s, unsigned line)
{
	if (untimed_line(p, s, line))
		return;
	if (strstr(s, "# all vCPUs") == s) {
		push_tok(p, s, line, true, -1)->mark = TOK_ALL;
		return;
	}
	int vcpu = labelled(s, "vcpu"), tid = labelled(s, "tid");
	if (vcpu < 0 && tid < 0)
		return;
	struct tok *t = push_tok(p, s, line, true, vcpu);
	t->mark = TOK_LABEL;
	t->thint = tid;
}

/*
 * Strip what mail and shell tools put before a (NUL-terminated) line:
 * quoting ("> > "), a grep file prefix ("vm1_vcpu0_timing:"). Returns the
 * start of the content and sets *vhint from a file name.
 */
static char *strip_prefix(char *s, int *vhint)
{
	s += strspn(s, " \t>");
	char *colon = strchr(s, ':');
	if (colon && strcspn(s, " \t") > (size_t)(colon - s)) {
		int v = vcpu_in_path(s, (size_t)(colon - s + 1));
		if (v >= 0 || (colon - s >= 7 && memcmp(colon - 6, "timing", 6) == 0)) {
			*vhint = v;
			s = colon + 1;
		}
	}
	return s;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static void tokenize_line(struct parser *p, char *s, char *end, unsigned line)
{
	int vhint = -1;
	bool bol = true;

	s = strip_prefix(s, &vhint);
	if (s < end && *s == '#') {
		comment_line(p, s, line);
		return;
	}
	/* "head"'s "==> FILE <==" starts a new vCPU's dump. */
	if (end - s >= 3 && memcmp(s, "==>", 3) == 0) {
		vhint = vcpu_in_path(s, (size_t)(end - s));
		s[3] = '\0';
		push_tok(p, s, line, true, vhint)->mark = TOK_FILE;
		return;
	}
	while (s < end) {
		while (s < end && is_blank(*s))
			*s++ = '\0';
		if (s == end)
			break;
		char *tok = s;
		while (s < end && !is_blank(*s))
			s++;
		if (s < end)
			*s++ = '\0';
		push_tok(p, tok, line, bol, vhint);
		bol = false;
	}
}

static void tokenize(struct parser *p, size_t len)
{
	char *s = p->buf, *end = p->buf + len;
	unsigned line = 1;

	while (s < end) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		char *eol = nl ? nl : end;
		*eol = '\0';
		tokenize_line(p, s, eol, line++);
		s = eol + 1;
	}
}

static bool tok_is(const struct parser *p, size_t i, const char *word)
{
	return i < p->nt && strcmp(p->t[i].s, word) == 0;
}

/* ------------------------------------------------------------------------ */
/* Numbers: strict grammars, so prose and garbage never parse as values. */

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!all_digits(s))
		return false;
	for (; *s; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

/* A %d / %lld print of an unsigned kernel counter of `bits` bits: negatives wrapped. */
static bool parse_wrapped(const char *s, unsigned bits, uint64_t *v)
{
	uint64_t x, half = 1ULL << (bits - 1);

	if (*s != '-')
		return parse_u64(s, v) && (bits == 64 || *v < 2 * half);
	if (!parse_u64(s + 1, &x) || x == 0 || x > half)
		return false;
	*v = (bits == 64 ? 0 : 2 * half) - x; /* two's complement, modulo 2^bits */
	return true;
}

/* µs with an optional fraction ("1550", "293.3679") to ns, exactly (rounded at 1 ns). */
static bool parse_us(const char *s, uint64_t *ns)
{
	const char *dot = strchr(s, '.');
	char ip[24];
	uint64_t whole, frac = 0;
	size_t n = dot ? (size_t)(dot - s) : strlen(s);

	if (n == 0 || n >= sizeof(ip))
		return false;
	memcpy(ip, s, n);
	ip[n] = '\0';
	if (!parse_u64(ip, &whole) || whole > UINT64_MAX / 1000)
		return false;
	if (dot) {
		if (!all_digits(dot + 1))
			return false;
		unsigned k = 0;
		for (const char *f = dot + 1; *f && k < 4; f++, k++)
			frac = frac * 10 + (uint64_t)(*f - '0');
		for (; k < 4; k++)
			frac *= 10;
		frac = (frac + 5) / 10; /* 4 digits -> ns, rounded */
	}
	if (whole * 1000 > UINT64_MAX - frac)
		return false;
	*ns = whole * 1000 + frac;
	return true;
}

/* An unsigned decimal, or "nan"/"-nan"/"-" (what printf and tools print for unknown). */
static bool parse_real(const char *s, double *v)
{
	if (!strcmp(s, "nan") || !strcmp(s, "-nan") || !strcmp(s, "-")) {
		*v = NAN;
		return true;
	}
	const char *dot = strchr(s, '.');
	size_t n = dot ? (size_t)(dot - s) : strlen(s);
	if (n == 0 || n > 20 || strspn(s, "0123456789") != n || (dot && !all_digits(dot + 1)))
		return false;
	*v = strtod(s, NULL);
	return isfinite(*v);
}

static bool is_keyword(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(keywords); i++)
		if (!strcmp(s, keywords[i]))
			return true;
	return false;
}

/* Exit names are any word that is not a number or a keyword ("UNKNOWN(0x83)" too). */
static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] > 0x7e)
			return false; /* names are ASCII; JSON output needs valid UTF-8 */
	return n && n <= PPC_MAX_NAME && !strchr("0123456789-+.%=~>#", s[0]) && !is_keyword(s);
}

/* A name exit_types/ppc_timing.types gives (exactly: "UNKNOWN(..)" is no type). */
static bool known_type(const char *s)
{
	const struct exit_types *set = exit_types_builtin_file("ppc_timing.types");
	const struct exit_table *t = set ? exit_types_find(set, "ppc_timing") : NULL;

	for (size_t i = 0; t && i < t->nnames; i++)
		if (!strcmp(s, t->names[i].name))
			return true;
	return false;
}

/* ------------------------------------------------------------------------ */
/* Blocks (one report or one vCPU's dump) and rows */

static void new_block(struct parser *p, int vcpu, int tid, bool all)
{
	if (p->nblocks == p->bcap) {
		p->bcap = p->bcap ? 2 * p->bcap : 16;
		p->blk = xrealloc(p->blk, p->bcap * sizeof(*p->blk));
	}
	p->blk[p->nblocks++] = (struct block){vcpu, tid, all};
	p->block_closed = false;
	p->cur_rows = 0;
}

static unsigned block_rows(const struct parser *p)
{
	return p->cur_rows;
}

/*
 * Reports of tens of thousands of rows are made by scripts (and by
 * attackers): a name is looked up in a hash, never in a scan of the block.
 */
static size_t seen_slot(const struct seen *v, size_t cap, const char *name, unsigned block)
{
	uint64_t h = ((uint64_t)(uintptr_t)name ^ (uint64_t)block << 40) * 0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(h >> 17) & (cap - 1);

	while (v[i].name && !(v[i].name == name && v[i].block == block))
		i = (i + 1) & (cap - 1);
	return i;
}

static void seen_add(struct parser *p, const char *name, unsigned block)
{
	if (2 * (p->nseen + 1) > p->seen_cap) {
		struct seen *old = p->seen;
		size_t n = p->seen_cap;

		p->seen_cap = n ? 2 * n : 256;
		p->seen = xcalloc(p->seen_cap, sizeof(*p->seen));
		for (size_t i = 0; i < n; i++)
			if (old[i].name)
				p->seen[seen_slot(p->seen, p->seen_cap, old[i].name,
						  old[i].block)] = old[i];
		free(old);
	}
	struct seen *s = &p->seen[seen_slot(p->seen, p->seen_cap, name, block)];
	if (!s->name) {
		*s = (struct seen){name, block};
		p->nseen++;
	}
}

static bool block_has(const struct parser *p, const char *name)
{
	return p->nblocks && p->seen_cap &&
	       p->seen[seen_slot(p->seen, p->seen_cap, name, p->nblocks - 1)].name;
}

/* "==> vm1_vcpu2_timing <==" then "type count ...": both describe one block. */
static void merge_hints(struct block *b, const struct tok *t)
{
	if (t->vhint >= 0)
		b->vcpu = t->vhint;
	if (t->thint >= 0)
		b->tid = t->thint;
	b->all |= t->mark == TOK_ALL;
}

/* A header or label line: a new block, unless the current one is still empty. */
static void start_block(struct parser *p, const struct tok *t)
{
	if (!p->nblocks || block_rows(p))
		new_block(p, t->vhint, t->thint, t->mark == TOK_ALL);
	else
		merge_hints(&p->blk[p->nblocks - 1], t);
}

/* A repeated name, a closed report or another file's line starts a new block. */
static void push_row(struct parser *p, struct prow r, int vhint)
{
	if (!p->nblocks || p->block_closed || block_has(p, r.name) ||
	    (vhint >= 0 && vhint != p->blk[p->nblocks - 1].vcpu && block_rows(p)))
		new_block(p, vhint, -1, false);
	else if (vhint >= 0)
		p->blk[p->nblocks - 1].vcpu = vhint;
	r.block = p->nblocks - 1;
	if (p->nrows == p->rcap) {
		p->rcap = p->rcap ? 2 * p->rcap : 32;
		p->rows = xrealloc(p->rows, p->rcap * sizeof(*p->rows));
	}
	p->rows[p->nrows++] = r;
	p->cur_rows++;
	seen_add(p, r.name, r.block);
	if (isnan(r.m2))
		p->info.stddev_unknown++;
}

static int us_to_ns(struct parser *p, unsigned line, const char *name, uint64_t us, uint64_t *ns)
{
	if (us > UINT64_MAX / 1000)
		return fail(p, "line %u: %s: %llu us is out of range", line, name,
			    (unsigned long long)us);
	*ns = us * 1000;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Saved reports */

struct rrow {
	const char *name;
	unsigned line;
	uint64_t count, min, max, sum; /* ns */
	double avg, sd, pct;	       /* µs, %; NAN when printed as unknown */
};

static bool row_starts(const struct parser *p, size_t i)
{
	return i + 4 < p->nt && name_ok(p->t[i].s) && tok_is(p, i + 1, "count") &&
	       all_digits(p->t[i + 2].s) && tok_is(p, i + 3, "min");
}

/* Read "KEY VALUE" at *i into the parser `get`; an error names what is missing. */
static int field(struct parser *p, size_t *i, const struct rrow *r, const char *key,
		 bool (*get)(const char *, void *), void *out)
{
	if (!tok_is(p, *i, key)) {
		/* only fields after "count N" can be missing (row_starts saw that) */
		const char *k0 = p->t[*i - 2].s, *v0 = p->t[*i - 1].s;
		return fail(p, "line %u: %s row cut short: expected '%s' after '%s %s'%s%s%s",
			    *i < p->nt ? p->t[*i].line : p->t[p->nt - 1].line, r->name, key, k0, v0,
			    *i < p->nt ? ", found '" : " at end of text",
			    *i < p->nt ? p->t[*i].s : "", *i < p->nt ? "'" : "");
	}
	if (*i + 1 >= p->nt || !get(p->t[*i + 1].s, out))
		return fail(p, "line %u: %s: bad %s value '%s'", p->t[*i].line, r->name, key,
			    *i + 1 < p->nt ? p->t[*i + 1].s : "");
	*i += 2;
	return 0;
}

static bool get_count(const char *s, void *out)
{
	return parse_u64(s, out);
}

static bool get_us(const char *s, void *out)
{
	return parse_us(s, out);
}

static bool get_real(const char *s, void *out)
{
	return parse_real(s, out);
}

static int read_report_row(struct parser *p, size_t *i, struct rrow *r)
{
	r->name = intern(p->t[*i].s);
	r->line = p->t[*i].line;
	r->pct = NAN;
	(*i)++;
	if (field(p, i, r, "count", get_count, &r->count) ||
	    field(p, i, r, "min", get_us, &r->min) || field(p, i, r, "max", get_us, &r->max) ||
	    field(p, i, r, "sum", get_us, &r->sum) || field(p, i, r, "avg", get_real, &r->avg) ||
	    field(p, i, r, "stddev", get_real, &r->sd))
		return -1;
	if (tok_is(p, *i, "%") && field(p, i, r, "%", get_real, &r->pct))
		return -1;
	return 0;
}

/*
 * The printed numbers must agree with each other to their printed precision
 * (min/max/sum may have been rounded to 1 µs, avg to 4 and stddev to 3
 * decimals): a row that does not was damaged, or is not what it seems.
 */
static int check_report_row(struct parser *p, const struct rrow *r)
{
	double n = (double)r->count, mean = (double)r->sum / 1000 / n;
	double lo = (double)r->min / 1000, hi = (double)r->max / 1000;

	if (r->min > r->max)
		return fail(p, "line %u: %s: min %.4g > max %.4g", r->line, r->name, lo, hi);
	if (!isnan(r->avg) && fabs(mean - r->avg) > 0.5 / n + 5e-5 + 1e-9 * r->avg)
		return fail(p, "line %u: %s: avg %.4f does not match sum/count = %.4f", r->line,
			    r->name, r->avg, mean);
	if (mean < lo - 0.5 || mean > hi + 0.5)
		return fail(p, "line %u: %s: sum/count = %.4f is outside min..max", r->line,
			    r->name, mean);
	if (!isnan(r->sd) && r->sd > (hi - lo) / 2 + 0.5 + 5e-4)
		return fail(p, "line %u: %s: stddev %.3f is impossible within min %.4g max %.4g",
			    r->line, r->name, r->sd, lo, hi);
	if (!isnan(r->pct) && r->pct > 100.005)
		return fail(p, "line %u: %s: %% %.2f is over 100", r->line, r->name, r->pct);
	return 0;
}

static int report_row(struct parser *p, size_t *i)
{
	struct rrow r;
	int vhint = p->t[*i].vhint;

	if (read_report_row(p, i, &r) || (r.count && check_report_row(p, &r)))
		return -1;
	if (!r.count)
		return 0;
	double sd_ns = r.sd * 1000;
	struct prow row = {.name = r.name,
			   .count = r.count,
			   .min = r.min,
			   .max = r.max,
			   .sum = r.sum,
			   .m2 = isnan(r.sd) ? NAN : (double)r.count * sd_ns * sd_ns};
	push_row(p, row, vhint);
	return 0;
}

/* "csum N" ends a report; a mismatch means rows were trimmed or lost (mail quoting does it). */
static void report_csum(struct parser *p, size_t i)
{
	uint64_t csum, sum = 0;

	if (!p->nblocks || !block_rows(p) || !parse_u64(p->t[i].s, &csum))
		return;
	for (size_t k = p->nrows; k > 0 && p->rows[k - 1].block == p->nblocks - 1; k--)
		sum += p->rows[k - 1].count;
	if (sum != csum)
		p->info.csum_mismatch++;
	p->block_closed = true;
}

/* The untimed exits of the row NAME of the current block (one with no timed exit has none yet). */
static void report_untimed(struct parser *p, const struct tok *t)
{
	const char *name = intern(t->s);

	for (size_t k = p->nrows; k > 0 && p->nblocks && p->rows[k - 1].block == p->nblocks - 1;
	     k--)
		if (p->rows[k - 1].name == name) {
			p->rows[k - 1].untimed += t->untimed;
			return;
		}
	push_row(p, (struct prow){.name = name, .untimed = t->untimed, .m2 = NAN}, -1);
}

static int parse_report(struct parser *p)
{
	for (size_t i = 0; i < p->nt;) {
		if (p->t[i].mark == TOK_UNTIMED) {
			report_untimed(p, &p->t[i++]);
		} else if (p->t[i].mark == TOK_LABEL || p->t[i].mark == TOK_ALL) {
			start_block(p, &p->t[i++]);
		} else if (row_starts(p, i)) {
			if (report_row(p, &i))
				return -1;
		} else if (tok_is(p, i, "csum") && i + 1 < p->nt) {
			report_csum(p, i + 1);
			i += 2;
		} else {
			i++;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Debugfs dumps */

static bool is_header(const struct parser *p, size_t a, size_t b)
{
	static const char *const h[] = {"type", "count", "min", "max", "sum", "sum_squared"};

	if (b - a != ARRAY_SIZE(h))
		return false;
	for (size_t k = 0; k < ARRAY_SIZE(h); k++)
		if (strcmp(p->t[a + k].s, h[k]))
			return false;
	return true;
}

/*
 * Σµs² from the printed sum_squared, or NAN when it cannot be (see the top of
 * this file). The bounds allow for the kernel's truncating divisions.
 */
static double debugfs_m2(struct parser *p, uint64_t n, uint64_t max_us, uint64_t sum_us,
			 uint64_t sq)
{
	double tpu = p->tpu ? p->tpu : 1, s = (double)sum_us, dn = (double)n;
	double sq_us = (double)sq / tpu, lower = s * s / dn;

	if (sq_us + 1 / tpu < lower * (1 - 1e-12))
		return NAN; /* wrapped in the kernel */
	if (sq_us > ((double)max_us + 1) * (s + 1) * (1 + 1e-12))
		return NAN; /* tick-scaled and the timebase rate not given */
	double m2 = sq_us - lower;
	return m2 > 0 ? m2 * 1e6 : 0;
}

static int debugfs_row(struct parser *p, size_t a)
{
	const struct tok *t = &p->t[a];
	uint64_t v[5];

	for (int k = 0; k < 5; k++)
		if (!parse_wrapped(t[k + 1].s, k ? 64 : 32, &v[k]))
			return fail(p, "line %u: %s: '%s' is not a number", t->line, t->s,
				    t[k + 1].s);
	if (!v[0])
		return 0;
	if (v[1] > v[2])
		return fail(p, "line %u: %s: min %llu > max %llu", t->line, t->s,
			    (unsigned long long)v[1], (unsigned long long)v[2]);
	if (v[3] < v[1] || (v[3] / v[0] > v[2]))
		return fail(p, "line %u: %s: sum %llu does not fit count %llu and min..max",
			    t->line, t->s, (unsigned long long)v[3], (unsigned long long)v[0]);
	struct prow r = {.name = intern(t->s), .count = v[0]};
	if (us_to_ns(p, t->line, t->s, v[1], &r.min) || us_to_ns(p, t->line, t->s, v[2], &r.max) ||
	    us_to_ns(p, t->line, t->s, v[3], &r.sum))
		return -1;
	r.m2 = debugfs_m2(p, v[0], v[2], v[3], v[4]);
	push_row(p, r, t->vhint);
	return 0;
}

/* One line [a, b): a header, a "==>" file marker, a row, or prose to skip. */
static int debugfs_line(struct parser *p, size_t a, size_t b, bool *in_dump, bool headered)
{
	const char *name = p->t[a].s;

	if (is_header(p, a, b) || p->t[a].mark == TOK_FILE) {
		start_block(p, &p->t[a]);
		*in_dump = p->t[a].mark != TOK_FILE || !headered;
		return 0;
	}
	if (p->t[a].mark != TOK_WORD)
		return 0;
	bool row_like = name_ok(name) && b - a >= 2 && strspn(p->t[a + 1].s, "-0123456789") > 0;
	if (!row_like || !(*in_dump || known_type(name)))
		return 0;
	if (b - a != 6)
		return fail(p,
			    "line %u: %s: expected count min max sum sum_squared, found %zu values",
			    p->t[a].line, name, b - a - 1);
	return debugfs_row(p, a);
}

static int parse_debugfs(struct parser *p, bool headered)
{
	bool in_dump = !headered;

	for (size_t a = 0; a < p->nt;) {
		size_t b = a + 1;
		while (b < p->nt && !p->t[b].bol)
			b++;
		if (debugfs_line(p, a, b, &in_dump, headered))
			return -1;
		a = b;
	}
	return 0;
}

static bool has_header(const struct parser *p)
{
	for (size_t a = 0; a + 6 <= p->nt; a++)
		if (p->t[a].bol && is_header(p, a, a + 6) && (a + 6 == p->nt || p->t[a + 6].bol))
			return true;
	return false;
}

/* ------------------------------------------------------------------------ */
/* Into the table */

static void store_row(struct stats_table *into, const struct prow *r, const struct stats_key *key)
{
	struct stats_acc tmp = {0};

	stats_acc_set_summary(&tmp, r->count, r->min, r->max, r->sum, r->m2);
	/* set_summary clamps m2 to >= 0; NAN here means "stddev unknown". */
	if (isnan(r->m2))
		tmp.m2 = NAN;
	tmp.untimed = r->untimed;
	stats_acc_merge(stats_table_get(into, key), &tmp);
}

/*
 * A report's "all vCPUs" block repeats the blocks before it: dropped when
 * they are there (others: some row is in a block that is not "all").
 */
static bool keep_block(const struct parser *p, unsigned b, bool others)
{
	return !p->blk[b].all || !others;
}

static bool has_other_blocks(const struct parser *p)
{
	for (size_t i = 0; i < p->nrows; i++)
		if (!p->blk[p->rows[i].block].all)
			return true;
	return false;
}

/*
 * One block: keyed by the vcpu id / tid its file name or label gave, else as
 * "all vCPUs" (-1). Several: by those, else by the block's ordinal as vcpu.
 */
static void store(struct parser *p, struct stats_table *into)
{
	unsigned *ord = xcalloc(p->nblocks ? p->nblocks : 1, sizeof(*ord)), n = 0;
	bool others = has_other_blocks(p);

	for (size_t i = 0; i < p->nrows; i++)
		if ((i == 0 || p->rows[i].block != p->rows[i - 1].block) &&
		    keep_block(p, p->rows[i].block, others))
			ord[p->rows[i].block] = n++;
	p->info.rows = 0;
	for (size_t i = 0; i < p->nrows; i++) {
		const struct block *b = &p->blk[p->rows[i].block];
		if (!keep_block(p, p->rows[i].block, others))
			continue;
		struct stats_key key = {.name = p->rows[i].name, .tid = b->tid, .vcpu = b->vcpu};
		if (key.vcpu < 0 && key.tid < 0)
			key.vcpu = n > 1 ? (int32_t)ord[p->rows[i].block] : p->default_vcpu;
		store_row(into, &p->rows[i], &key);
		p->info.rows++;
	}
	p->info.blocks = n;
	free(ord);
}

static void reset_rows(struct parser *p)
{
	p->nrows = 0;
	p->nblocks = 0;
	p->cur_rows = 0;
	p->nseen = 0;
	if (p->seen)
		memset(p->seen, 0, p->seen_cap * sizeof(*p->seen));
	p->block_closed = false;
	p->info.stddev_unknown = p->info.csum_mismatch = 0;
}

static int parse_tokens(struct parser *p)
{
	if (has_header(p)) {
		p->info.kind = INPUT_PPC_DEBUGFS;
		if (parse_debugfs(p, true))
			return -1;
	} else {
		p->info.kind = INPUT_PPC_REPORT;
		if (parse_report(p))
			return -1;
		if (!p->nrows) { /* a dump pasted without its header line */
			reset_rows(p);
			p->info.kind = INPUT_PPC_DEBUGFS;
			if (parse_debugfs(p, false))
				return -1;
		}
	}
	if (!p->nrows)
		return fail(p, "no exit-timing rows with a non-zero count (expected 'NAME count N "
			       "min ...' report lines or a debugfs 'type count min max sum "
			       "sum_squared' dump)");
	return 0;
}

static int parse_text(const char *text, size_t len, const struct ppctext_opts *o, int default_vcpu,
		      struct stats_table *into, struct ppctext_info *info, char *errbuf,
		      size_t errlen)
{
	struct parser p = {.default_vcpu = default_vcpu, .errbuf = errbuf, .errlen = errlen};
	int rc = -1;

	p.tpu = o ? o->tb_ticks_per_usec : 0;
	if (len > PPC_MAX_TEXT)
		return fail(&p, "%zu bytes is too large for an exit-timing report", len);
	if (is_binary(text, len))
		return fail(&p, "binary data, not an exit-timing report");
	p.buf = xmalloc(len + 1);
	memcpy(p.buf, text, len);
	p.buf[len] = '\0';
	tokenize(&p, len);
	if (parse_tokens(&p) == 0) {
		store(&p, into);
		rc = 0;
	}
	if (info)
		*info = p.info;
	free(p.buf);
	free(p.t);
	free(p.rows);
	free(p.blk);
	free(p.seen);
	return rc;
}

int ppctext_parse(const char *text, size_t len, const struct ppctext_opts *o,
		  struct stats_table *into, struct ppctext_info *info, char *errbuf, size_t errlen)
{
	return parse_text(text, len, o, -1, into, info, errbuf, errlen);
}

int ppctext_load_fd(int fd, const char *path, const struct ppctext_opts *o,
		    struct stats_table *into, struct ppctext_info *info, char *errbuf,
		    size_t errlen)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = xmalloc(cap);
	ssize_t n;
	int rc;

	/* Past PPC_MAX_TEXT the parser refuses the text: read one chunk more and stop. */
	while ((n = pread(fd, buf + len, cap - len, (off_t)len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err_buf_errno(errbuf, errlen, "cannot read '%s'", path);
			free(buf);
			return -1;
		}
		len += (size_t)n;
		if (len == cap && cap > PPC_MAX_TEXT)
			break;
		if (len == cap)
			buf = xrealloc(buf, cap *= 2);
	}
	rc = parse_text(buf, len, o, vcpu_in_path(path, strlen(path)), into, info, errbuf, errlen);
	free(buf);
	return rc;
}

int ppctext_load(const char *path, const struct ppctext_opts *o, struct stats_table *into,
		 struct ppctext_info *info, char *errbuf, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return err_buf_errno(errbuf, errlen, "cannot open '%s'", path);
	rc = ppctext_load_fd(fd, path, o, into, info, errbuf, errlen);
	close(fd);
	return rc;
}

/* ------------------------------------------------------------------------ */

static bool sniff_tokens(const struct parser *p, enum input_kind *kind)
{
	if (has_header(p)) {
		*kind = INPUT_PPC_DEBUGFS;
		return true;
	}
	for (size_t i = 0; i < p->nt; i++) {
		if (row_starts(p, i)) {
			*kind = INPUT_PPC_REPORT;
			return true;
		}
	}
	for (size_t a = 0; a + 6 <= p->nt; a++) {
		if (p->t[a].bol && known_type(p->t[a].s) && all_digits(p->t[a + 1].s) &&
		    (a + 6 == p->nt || p->t[a + 6].bol)) {
			*kind = INPUT_PPC_DEBUGFS;
			return true;
		}
	}
	return false;
}

bool ppctext_sniff(const char *buf, size_t len, enum input_kind *kind)
{
	struct parser p = {0};
	bool found;

	if (len > (64u << 10))
		len = 64u << 10;
	if (!len || is_binary(buf, len))
		return false;
	p.buf = xmalloc(len + 1);
	memcpy(p.buf, buf, len);
	p.buf[len] = '\0';
	tokenize(&p, len);
	found = sniff_tokens(&p, kind);
	free(p.buf);
	free(p.t);
	return found;
}
