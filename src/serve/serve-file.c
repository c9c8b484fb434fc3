// SPDX-License-Identifier: GPL-2.0
/*
 * serve -i FILE: a recording's metrics, exposed once, as the live collector
 * would have exposed them at the end of the recording: the same store, the
 * same page, labelled by the recording's own thread -> process -> VM map
 * (record keeps one in its trace.dat; a trace-cmd file has none: pid and vm
 * "unknown"). For a recording's metrics in a Prometheus or node_exporter of
 * their own (a lab run, a bug report), with the fleet's dashboard.
 *
 * Inputs with statistics only (a saved report, a timing dump) are refused:
 * they have no histograms, and a histogram with a count but no buckets is
 * not one.
 */
#include "intern.h"
#include "err.h"
#include "pipeline.h"
#include "procmap.h"
#include "serve-local.h"

struct walk {
	const struct input_result *r;
	enum serve_source src;
	void (*fn)(const struct serve_row *r, void *arg);
	void *arg;
	const char *tig, *unknown;
};

static void one_row(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct walk *w = arg;
	int32_t pid = w->r->procs ? procmap_tgid(w->r->procs, k->tid) : -1;
	const char *vm = pid > 0 ? procmap_name(w->r->procs, pid) : NULL;
	struct serve_row row = {.source = w->src,
				.pid = pid > 0 ? pid : -1,
				.vm = pid > 0 && vm ? vm : w->unknown,
				.tid = k->tid,
				.vcpu = k->vcpu,
				.reason = k->name,
				.guest = k->name == w->tig,
				.acc = a};

	w->fn(&row, w->arg);
}

int serve_file_load(const struct serve_opts *o, void (*fn)(const struct serve_row *r, void *arg),
		    void *arg, struct serve_live_counts *c)
{
	struct input_opts io = {.types = o->types,
				.pids = o->pids,
				.npids = o->npids,
				.vcpu = -1,
				.buckets = o->buckets};
	struct input_result r;
	char e[INPUT_ERR_MAX];
	int ret = -1;

	input_result_init(&r);
	for (size_t i = 0; i < o->ninputs; i++)
		if (input_load(o->inputs[i], &io, &r, e, sizeof(e)) < 0) {
			err("%s", e);
			goto out;
		}
	if (!stats_table_size(r.exits) && !stats_table_size(r.uexits)) {
		err("'%s': statistics only (a saved report or timing dump), no histograms to "
		    "expose: read it with report",
		    o->inputs[0]);
		goto out;
	}
	for (size_t i = 0; i < r.nwarnings; i++)
		err_info("kvm-exitstat: warning: %s\n", r.warnings[i]);
	stats_table_foreach(r.exits, one_row,
			    &(struct walk){&r, SERVE_KVM_EXIT, fn, arg, intern(KES_TIMEINGUEST),
					   intern("unknown")});
	stats_table_foreach(r.uexits, one_row,
			    &(struct walk){&r, SERVE_USERSPACE, fn, arg, intern(KES_TIMEINGUEST),
					   intern("unknown")});
	*c = (struct serve_live_counts){.events = r.events, .lost = r.lost};
	ret = 0;
out:
	input_result_free(&r);
	return ret;
}
