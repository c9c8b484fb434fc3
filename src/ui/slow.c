// SPDX-License-Identifier: GPL-2.0
/*
 * top --slower-than USEC: every exit whose handling took longer, as
 * perf kvm stat live --duration shows them (tools/perf/builtin-kvm.c,
 * handle_end_event(): strictly longer, halts skipped, one line each:
 * "TS VM PID, vcpu N: REASON event took Nusec"). Without a screen the
 * lines go to stderr as each poll (at most 100 ms) finds them, so that a
 * --log on stdout stays one format; on the screen the latest are listed
 * under the table. The pair keeps them (stats/outliers.c, a ring per source).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "exit-types.h"
#include "term.h"
#include "ui-local.h"

/* The source the rows are, for --once/--log (the view's own choice otherwise). */
static int source_of(const struct ui_top *t)
{
	uint64_t exits, uexits;

	if (t->o->source == UI_SOURCE_EXITS)
		return WATCH_EXITS;
	if (t->o->source == UI_SOURCE_USERSPACE)
		return WATCH_UEXITS;
	watch_counts(t->live, &exits, &uexits);
	return exits ? WATCH_EXITS : WATCH_UEXITS;
}

/* "KVM_EXIT_IO@port 0x80": the reason, and the sub-key when the exit had one. */
static void decode(char *buf, size_t len, const struct stats_outlier *x)
{
	char sub[64], e[128];
	const char *name = term_safe(x->name, e, sizeof(e));

	if (x->has_sub) {
		exit_types_sub_text(exit_types_builtin_details(), (enum kes_detail)x->sub_kind,
				    x->sub, sub, sizeof(sub));
		snprintf(buf, len, "%s@%s", name, sub);
	} else {
		snprintf(buf, len, "%s", name);
	}
}

static int32_t vm_pid(const struct watch_vms *vs, int32_t tid)
{
	const struct watch_thread *th = watch_vms_thread(vs, tid);

	return th && th->tgid > 0 ? th->tgid : -1;
}

int ui_slow_print(FILE *f, struct ui_top *t)
{
	struct stats_outliers *o = t->live->slow[source_of(t)];
	struct stats_outlier *v;
	uint64_t seen;
	size_t n;

	if (!o || !(seen = stats_outliers_seen(o)))
		return 0;
	n = stats_outliers_sorted(o, &v);
	for (size_t i = 0; i < n; i++) {
		char d[256];

		decode(d, sizeof(d), &v[i]);
		fprintf(f, "%llu VM %d, vcpu %d: %s event took %lluusec (tid %d)\n",
			(unsigned long long)v[i].ts, (int)vm_pid(&t->vms, v[i].tid), (int)v[i].vcpu,
			d, (unsigned long long)(v[i].ns / 1000), (int)v[i].tid);
	}
	if (seen > n)
		fprintf(f, "kvm-exitstat: %llu more exits slower than %llu us in 100 ms not shown\n",
			(unsigned long long)(seen - n),
			(unsigned long long)(t->live->slower_ns / 1000));
	free(v);
	/* the other source's too: they would be old news when the source changes */
	for (int s = 0; s < WATCH_NSRC; s++)
		stats_outliers_clear(t->live->slow[s]);
	return fflush(f) == 0 ? 0 : -1;
}

void ui_slow_view(struct ui_view *v, const struct watch *l, const struct watch_vms *vs)
{
	const struct stats_outliers *o = v->src < WATCH_NSRC ? l->slow[v->src] : NULL;
	struct stats_outlier *x;
	size_t n;

	if (!o)
		return; /* off, or the all-events view: events have no handling time */
	v->slow_on = true;
	snprintf(v->slow_title, sizeof(v->slow_title),
		 "Exits slower than %llu us (halts left out): %llu since start; the latest:",
		 (unsigned long long)(l->slower_ns / 1000),
		 (unsigned long long)stats_outliers_seen(o));
	n = stats_outliers_sorted(o, &x);
	v->slow = xcalloc(n + 1, sizeof(*v->slow));
	for (size_t i = 0; i < n; i++) {
		const struct watch_thread *th = watch_vms_thread(vs, x[i].tid);
		const struct watch_vm *vm = th ? watch_vms_vm(vs, th->tgid) : NULL;
		char d[96], tm[16], vc[16] = "";

		decode(d, sizeof(d), &x[i]);
		ui_fmt_time(tm, sizeof(tm), (double)x[i].ns, false);
		if (x[i].vcpu >= 0)
			snprintf(vc, sizeof(vc), " v%d", (int)x[i].vcpu);
		/* the drill-down's words: thread, vCPU, VM */
		snprintf(v->slow[i], sizeof(v->slow[i]), "%llu.%06llu %9s %s t%d%s %.40s",
			 (unsigned long long)(x[i].ts / 1000000000u),
			 (unsigned long long)(x[i].ts % 1000000000u / 1000), tm, d, (int)x[i].tid, vc,
			 vm ? vm->label : "?");
	}
	v->nslow = n;
	free(x);
}
