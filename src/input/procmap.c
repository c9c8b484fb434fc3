// SPDX-License-Identifier: GPL-2.0
/*
 * The thread -> process -> VM name map of a recording (include/procmap.h).
 * Threads are kept sorted by tid and names by pid (a VM has a handful:
 * memmove on insert is cheaper than a hash). A map read from a file, whose
 * size a hostile file chooses, is sorted first and then appended, so that
 * reading it stays O(n log n).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "alloc.h"
#include "err.h"
#include "intern.h"
#include "procmap.h"
#include "sorted.h"

#define PROCMAP_MAGIC "kvm-exitstat procmap 1"

struct pm_thread {
	int32_t tid, tgid, vcpu;
};

struct pm_name {
	int32_t pid;
	const char *name; /* interned */
};

struct procmap {
	struct pm_thread *t;
	size_t nt, ct;
	struct pm_name *n;
	size_t nn, cn;
};

struct procmap *procmap_new(void)
{
	return xcalloc(1, sizeof(struct procmap));
}

void procmap_free(struct procmap *pm)
{
	if (!pm)
		return;
	free(pm->t);
	free(pm->n);
	free(pm);
}

SORTED_DEFINE_FIND(find_thread, struct pm_thread, tid, int32_t)
SORTED_DEFINE_FIND(find_pid, struct pm_name, pid, int32_t)

static size_t find(const struct procmap *pm, int32_t tid, bool *found)
{
	return find_thread(pm->t, pm->nt, tid, found);
}

void procmap_set_thread(struct procmap *pm, int32_t tid, int32_t tgid)
{
	bool found;
	size_t i = find(pm, tid, &found);

	if (found) {
		if (pm->t[i].tgid < 0)
			pm->t[i].tgid = tgid;
		return;
	}
	if (pm->nt == pm->ct) {
		pm->ct = pm->ct ? 2 * pm->ct : 16;
		pm->t = xrealloc(pm->t, pm->ct * sizeof(*pm->t));
	}
	memmove(&pm->t[i + 1], &pm->t[i], (pm->nt - i) * sizeof(*pm->t));
	pm->t[i] = (struct pm_thread){tid, tgid, -1};
	pm->nt++;
}

bool procmap_has_thread(const struct procmap *pm, int32_t tid)
{
	bool found;

	find(pm, tid, &found);
	return found;
}

int32_t procmap_tgid(const struct procmap *pm, int32_t tid)
{
	bool found;
	size_t i = pm ? find(pm, tid, &found) : 0;

	return pm && found ? pm->t[i].tgid : -1;
}

void procmap_set_vcpu(struct procmap *pm, int32_t tid, int32_t vcpu)
{
	bool found;
	size_t i = find(pm, tid, &found);

	if (found)
		pm->t[i].vcpu = vcpu;
}

int32_t procmap_vcpu(const struct procmap *pm, int32_t tid)
{
	bool found;
	size_t i = pm ? find(pm, tid, &found) : 0;

	return pm && found ? pm->t[i].vcpu : -1;
}

static size_t find_name(const struct procmap *pm, int32_t pid, bool *found)
{
	return find_pid(pm->n, pm->nn, pid, found);
}

const char *procmap_name(const struct procmap *pm, int32_t pid)
{
	bool found;
	size_t i = pm ? find_name(pm, pid, &found) : 0;

	return pm && found ? pm->n[i].name : NULL;
}

void procmap_set_name(struct procmap *pm, int32_t pid, const char *name)
{
	bool found;
	size_t i;

	if (!name || !*name || pid <= 0)
		return;
	i = find_name(pm, pid, &found);
	if (found) /* the first name given stays */
		return;
	if (pm->nn == pm->cn) {
		pm->cn = pm->cn ? 2 * pm->cn : 8;
		pm->n = xrealloc(pm->n, pm->cn * sizeof(*pm->n));
	}
	memmove(&pm->n[i + 1], &pm->n[i], (pm->nn - i) * sizeof(*pm->n));
	pm->n[i] = (struct pm_name){pid, intern(name)};
	pm->nn++;
}

size_t procmap_nthreads(const struct procmap *pm)
{
	return pm ? pm->nt : 0;
}

void procmap_thread_at(const struct procmap *pm, size_t i, int32_t *tid, int32_t *tgid)
{
	*tid = pm->t[i].tid;
	*tgid = pm->t[i].tgid;
}

size_t procmap_nnames(const struct procmap *pm)
{
	return pm ? pm->nn : 0;
}

void procmap_name_at(const struct procmap *pm, size_t i, int32_t *pid, const char **name)
{
	*pid = pm->n[i].pid;
	*name = pm->n[i].name;
}

void procmap_fill_tgids(struct procmap *pm, const char *text)
{
	for (const char *p = text; p && *p;) {
		char *end;
		long tid = strtol(p, &end, 10), tgid = end != p ? strtol(end, &end, 10) : -1;
		bool found;
		size_t i = find(pm, (int32_t)tid, &found);

		if (found && pm->t[i].tgid < 0 && tgid > 0 && tgid <= INT32_MAX)
			pm->t[i].tgid = (int32_t)tgid;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
}

/* ------------------------------------------------------------------------ */
/* The file text */

struct sbuf {
	char *p;
	size_t len, cap;
};

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

char *procmap_format(const struct procmap *pm, size_t *len)
{
	struct sbuf b = {0};
	char line[64];

	sb_put(&b, PROCMAP_MAGIC "\n", sizeof(PROCMAP_MAGIC));
	for (size_t i = 0; i < pm->nt; i++) {
		int n = snprintf(line, sizeof(line), "t %d %d %d\n", (int)pm->t[i].tid,
				 (int)pm->t[i].tgid, (int)pm->t[i].vcpu);

		sb_put(&b, line, (size_t)n);
	}
	for (size_t i = 0; i < pm->nn; i++) {
		int n = snprintf(line, sizeof(line), "p %d ", (int)pm->n[i].pid);

		sb_put(&b, line, (size_t)n);
		/* a name is a process's own text: a newline in it must not end the item */
		for (const char *s = pm->n[i].name; *s; s++)
			sb_put(&b, *s == '\n' ? "\\n" : *s == '\\' ? "\\\\" : s,
			       *s == '\n' || *s == '\\' ? 2 : 1);
		sb_put(&b, "\n", 1);
	}
	*len = b.len;
	return b.p;
}

static void unescape(const char *s, size_t n, char *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n) {
			out[k++] = s[i + 1] == 'n' ? '\n' : s[i + 1];
			i++;
		} else {
			out[k++] = s[i];
		}
	}
	out[k] = 0;
}

/* A file's lines, in file order (seq), sorted before they go into the map. */
struct pm_line {
	int32_t id, tgid, vcpu; /* t: tid, tgid, vcpu; p: pid */
	char *name;		/* p: the name (owned); t: NULL */
	size_t seq;
};

struct pm_lines {
	struct pm_line *l;
	size_t n, cap;
};

/* One "t TID TGID VCPU" or "p PID NAME" line of n bytes into *out. Returns 0 or -1. */
static int parse_line(const char *s, size_t n, struct pm_line *out)
{
	char num[32], *end;
	size_t k = 2;
	long id;

	if (n < 4 || (s[0] != 't' && s[0] != 'p') || s[1] != ' ')
		return -1;
	while (k < n && k - 2 < sizeof(num) - 1 && s[k] != ' ') {
		num[k - 2] = s[k];
		k++;
	}
	num[k - 2] = 0;
	id = strtol(num, &end, 10);
	if (*end || end == num || id <= 0 || id > INT32_MAX || k >= n)
		return -1;
	k++;
	*out = (struct pm_line){.id = (int32_t)id};
	if (s[0] == 't') {
		char tg[32], *v;
		long tgid, vcpu;

		if (n - k >= sizeof(tg))
			return -1;
		memcpy(tg, s + k, n - k);
		tg[n - k] = 0;
		tgid = strtol(tg, &v, 10);
		if (v == tg || *v != ' ' || tgid < -1 || tgid == 0 || tgid > INT32_MAX)
			return -1;
		vcpu = strtol(v + 1, &end, 10);
		if (*end || end == v + 1 || vcpu < -1 || vcpu > INT32_MAX)
			return -1;
		out->tgid = (int32_t)tgid;
		out->vcpu = (int32_t)vcpu;
		return 0;
	}
	out->name = xmalloc(n - k + 1);
	unescape(s + k, n - k, out->name);
	return 0;
}

/* Threads before names, each by id, then in file order: the map's own insert rules decide. */
static int line_order(const void *a, const void *b)
{
	const struct pm_line *x = a, *y = b;

	if ((x->name != NULL) != (y->name != NULL))
		return x->name ? 1 : -1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static struct procmap *map_of_lines(struct pm_lines *ls)
{
	struct procmap *pm = procmap_new();

	if (ls->n > 1) /* an empty map has no array: qsort may not be given NULL */
		qsort(ls->l, ls->n, sizeof(*ls->l), line_order);
	for (size_t i = 0; i < ls->n; i++) { /* in id order: every insert is an append */
		const struct pm_line *l = &ls->l[i];

		if (l->name) {
			procmap_set_name(pm, l->id, l->name);
		} else {
			procmap_set_thread(pm, l->id, l->tgid);
			procmap_set_vcpu(pm, l->id, l->vcpu);
		}
	}
	return pm;
}

static void free_lines(struct pm_lines *ls)
{
	for (size_t i = 0; i < ls->n; i++)
		free(ls->l[i].name);
	free(ls->l);
}

struct procmap *procmap_parse(const char *text, size_t len, char *errbuf, size_t errlen)
{
	struct pm_lines ls = {0};
	struct procmap *pm;
	const char *p = text, *end = text + len;
	unsigned line = 1;

	/* the option may carry its NUL */
	while (end > text && end[-1] == 0)
		end--;
	if ((size_t)(end - p) < sizeof(PROCMAP_MAGIC) ||
	    memcmp(p, PROCMAP_MAGIC "\n", sizeof(PROCMAP_MAGIC)) != 0) {
		err_buf(errbuf, errlen, "its thread map is of an unknown version");
		return NULL;
	}
	for (p += sizeof(PROCMAP_MAGIC); p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (ls.n == ls.cap) {
			ls.cap = ls.cap ? 2 * ls.cap : 64;
			ls.l = xrealloc(ls.l, ls.cap * sizeof(*ls.l));
		}
		if (parse_line(p, n, &ls.l[ls.n]) < 0) {
			err_buf(errbuf, errlen, "its thread map is malformed at line %u", line + 1);
			free_lines(&ls);
			return NULL;
		}
		ls.l[ls.n].seq = ls.n;
		ls.n++;
		p += n + 1;
	}
	pm = map_of_lines(&ls);
	free_lines(&ls);
	return pm;
}

/* ------------------------------------------------------------------------ */

/* "CPU 3/KVM" -> 3; "exitgen-vcpu2", "fc_vcpu 1", "vcpu0" -> the number; else -1. */
int32_t procmap_vcpu_of_comm(const char *comm)
{
	unsigned v;
	int n = 0;
	size_t len;
	const char *d;

	if (!comm)
		return -1;
	if (sscanf(comm, "CPU %u/KVM%n", &v, &n) == 1 && n && !comm[n])
		return v <= INT32_MAX ? (int32_t)v : -1;
	len = strlen(comm);
	d = comm + len;
	while (d > comm && isdigit((unsigned char)d[-1]))
		d--;
	if (d == comm + len || d - comm < 4 || len - (size_t)(d - comm) > 9)
		return -1;
	const char *w = d;
	if (w[-1] == ' ' || w[-1] == '_')
		w--;
	if (w - comm < 4 || strncasecmp(w - 4, "vcpu", 4) != 0)
		return -1;
	return (int32_t)strtol(d, NULL, 10);
}
