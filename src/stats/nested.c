// SPDX-License-Identifier: GPL-2.0
/*
 * report --nested: an x86 host's nested guests, from the kvm_nested_*
 * detail events pair/ attaches to each kvm_exit (enum kes_detail):
 *   - an exit with nested_exit is L2's; with nested_inject too, L0 reflected
 *     it to L1, else L0 handled it alone;
 *   - from a reflected exit's re-entry (into L1) to the re-entry of the exit
 *     whose handling entered L2 again (nested_enter: L1's VMRESUME/VMRUN) is
 *     L1's handling window; the exits of that window, the entering one
 *     included, are L1's: the amplification of the reflected exit.
 * An exit with nested_inject but no nested_exit (L0 made L1 exit, e.g. for an
 * interrupt) opens a window too. Each vCPU thread has its own state; a
 * window still open at the trace's end is counted apart.
 */
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "event.h"
#include "stats.h"
#include "tidhash.h"

#define BIT(k) (1u << (k))

struct nthread {
	int32_t tid;	 /* 0: free slot */
	bool open;	 /* in an L1 window */
	uint64_t start;	 /* the window's start: the reflected exit's re-entry */
	uint64_t exits;	 /* L1 exits in it so far */
	const char *why; /* the L2 reason that opened it (interned) */
};

struct stats_nested {
	struct stats_nested_row *rows; /* by L2 reason, then L1 reasons (kind) */
	size_t nrows, caprows;
	struct nthread *th;
	size_t nth, capth;
	uint64_t open_windows, open_exits; /* still open at the end */
	uint64_t broken; /* windows an L2 exit ended before L1 entered L2 (events lost) */
};

struct stats_nested *stats_nested_new(void)
{
	struct stats_nested *n = xcalloc(1, sizeof(*n));

	n->capth = 16;
	n->th = xcalloc(n->capth, sizeof(*n->th));
	return n;
}

void stats_nested_free(struct stats_nested *n)
{
	if (!n)
		return;
	free(n->rows);
	free(n->th);
	free(n);
}

TIDHASH_DEFINE(nthreads, struct nthread)

static struct nthread *thread_of(struct stats_nested *n, int32_t tid)
{
	struct nthread *t = nthreads_slot(n->th, n->capth, tid);

	if (t->tid)
		return t;
	if (nthreads_grow(&n->th, &n->capth, n->nth))
		t = nthreads_slot(n->th, n->capth, tid);
	*t = (struct nthread){.tid = tid};
	n->nth++;
	return t;
}

/* The row of reason (interned) and kind: few reasons, so a linear search. */
static struct stats_nested_row *row_of(struct stats_nested *n, const char *name,
				       enum stats_nested_kind kind)
{
	for (size_t i = 0; i < n->nrows; i++)
		if (n->rows[i].name == name && n->rows[i].kind == kind)
			return &n->rows[i];
	if (n->nrows == n->caprows) {
		n->caprows = n->caprows ? 2 * n->caprows : 16;
		n->rows = xrealloc(n->rows, n->caprows * sizeof(*n->rows));
	}
	n->rows[n->nrows] = (struct stats_nested_row){.name = name, .kind = kind};
	return &n->rows[n->nrows++];
}

static void open_window(struct nthread *t, const char *why, uint64_t at)
{
	*t = (struct nthread){.tid = t->tid, .open = true, .start = at, .why = why};
}

/* An exit of L2's: handled by L0, or reflected (the window opens at its re-entry). */
static void l2_exit(struct stats_nested *n, struct nthread *t, const char *reason, uint32_t mask,
		    uint64_t end, uint64_t ns, bool timed)
{
	struct stats_nested_row *r = row_of(n, reason, STATS_NESTED_L2);

	if (t->open) {
		n->broken++; /* L1 never entered L2 again: its VMRESUME's events were lost */
		t->open = false;
	}
	r->count++;
	if (mask & BIT(KES_D_NESTED_INJECT)) {
		r->reflected++;
		if (timed)
			open_window(t, reason, end);
		return;
	}
	r->l0++;
	if (timed) {
		r->l0_timed++;
		r->l0_ns += ns;
	}
}

/* An exit of L1's inside a window; the one that enters L2 closes it. */
static void l1_exit(struct stats_nested *n, struct nthread *t, const char *reason, uint32_t mask,
		    uint64_t end, bool timed)
{
	row_of(n, reason, STATS_NESTED_L1)->count++;
	t->exits++;
	if (!(mask & BIT(KES_D_NESTED_ENTER)))
		return;
	struct stats_nested_row *w = row_of(n, t->why, STATS_NESTED_L2);

	if (timed) {
		w->windows++;
		w->window_exits += t->exits;
		w->window_ns += end - t->start;
	}
	t->open = false;
}

void stats_nested_exit(struct stats_nested *n, int32_t tid, const char *reason, uint32_t mask,
		       uint64_t ts, uint64_t ns, bool timed)
{
	struct nthread *t = thread_of(n, tid);
	uint64_t end = ts + ns; /* the re-entry */

	if (mask & BIT(KES_D_NESTED_EXIT)) {
		l2_exit(n, t, reason, mask, end, ns, timed);
	} else if (mask & BIT(KES_D_NESTED_INJECT)) {
		/* L0 made L1 exit with no exit of L2's (an interrupt for L1) */
		if (t->open)
			l1_exit(n, t, reason, mask & ~BIT(KES_D_NESTED_ENTER), end, timed);
		row_of(n, reason, STATS_NESTED_INJECTED)->count++;
		if (timed)
			open_window(t, reason, end);
	} else if (t->open) {
		l1_exit(n, t, reason, mask, end, timed);
	}
}

static int by_count(const void *a, const void *b)
{
	const struct stats_nested_row *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

struct stats_nested_view *stats_nested_view_new(const struct stats_nested *n)
{
	struct stats_nested_view *v = xcalloc(1, sizeof(*v));

	v->nrows = n->nrows;
	v->rows = xcalloc(n->nrows ? n->nrows : 1, sizeof(*v->rows));
	memcpy(v->rows, n->rows, n->nrows * sizeof(*v->rows));
	qsort(v->rows, v->nrows, sizeof(*v->rows), by_count);
	for (size_t i = 0; i < v->nrows; i++) {
		const struct stats_nested_row *r = &v->rows[i];

		if (r->kind == STATS_NESTED_L2) {
			v->l2 += r->count;
			v->l0 += r->l0;
			v->reflected += r->reflected;
			v->windows += r->windows;
			v->window_exits += r->window_exits;
			v->window_ns += r->window_ns;
		} else if (r->kind == STATS_NESTED_L1) {
			v->l1 += r->count;
		} else {
			v->injected += r->count;
		}
	}
	for (size_t i = 0; i < n->capth; i++)
		if (n->th[i].tid && n->th[i].open) {
			v->open_windows++;
			v->open_exits += n->th[i].exits;
		}
	v->broken = n->broken;
	return v;
}

void stats_nested_view_free(struct stats_nested_view *v)
{
	if (!v)
		return;
	free(v->rows);
	free(v);
}

bool stats_nested_seen(const struct stats_nested *n)
{
	return n->nrows > 0;
}
