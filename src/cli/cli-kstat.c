// SPDX-License-Identifier: GPL-2.0
/*
 * report and diff of record --stats snapshots: the span from a snapshot's
 * first reading to its last, per VM (per vCPU where the VMM's statistics
 * fds were read) and every VM summed; diff puts two snapshots' sums side by
 * side (halt polling before and after a halt_poll_ns change, say). The
 * numbers are stats/kstat-view.c's; this file only loads and prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include "cli-local.h"
#include "err.h"
#include "kstatjson.h"
#include "render.h"

static int load(const char *path, struct kstatjson *k)
{
	char e[512];

	if (kstatjson_load(path, k, e, sizeof(e)) < 0)
		return err("%s", e);
	return 0;
}

static struct kstat_view *span_of(const struct kstatjson *k, unsigned flags)
{
	const struct kstat_reading *first = k->nreadings > 1 ? &k->readings[0] : NULL;

	return kstat_view_new(&k->schema, first, &k->readings[k->nreadings - 1],
			      flags | KSTAT_VIEW_TOTAL, NULL, NULL);
}

struct svg_arg {
	const struct kstat_view *v;
	const char *title;
};

static int svg_to(FILE *f, const void *arg)
{
	const struct svg_arg *a = arg;

	return render_kstat_svg(f, a->v, a->title);
}

static int write_svg(const char *path, const struct kstat_view *v, const char *title)
{
	return cli_write_file(path, svg_to, &(struct svg_arg){v, title});
}

int cli_kstat_report(const char *path, bool json, bool per_vcpu, const char *svg)
{
	struct kstatjson k;
	struct kstat_view *v;
	char title[1024];
	int ret = 0;

	if (load(path, &k) < 0)
		return -1;
	v = span_of(&k, per_vcpu ? KSTAT_VIEW_VCPUS : 0);
	snprintf(title, sizeof(title),
		 "# kvm-exitstat report: %s (KVM statistics snapshot: host %s, kernel %s, %zu "
		 "readings, %.2f s)",
		 path, k.host, k.kernel, k.nreadings, v->dt);
	if (json)
		render_kstat_json(stdout, v, title + 2);
	else
		render_kstat_table(stdout, v, title);
	if (fflush(stdout) != 0)
		ret = err("writing the report: output error");
	if (!ret && svg)
		ret = write_svg(svg, v, path);
	kstat_view_free(v);
	kstatjson_free(&k);
	return ret;
}

int cli_kstat_diff(const char *a, const char *b, bool json)
{
	struct kstatjson ka, kb;
	struct kstat_view *va, *vb;
	int ret = 0;

	if (load(a, &ka) < 0)
		return -1;
	if (load(b, &kb) < 0) {
		kstatjson_free(&ka);
		return -1;
	}
	va = span_of(&ka, 0);
	vb = span_of(&kb, 0);
	if (json) {
		render_kstat_json_pair(stdout, va, vb, a, b);
	} else {
		render_kstat_compare(stdout, va, vb, a, b);
	}
	if (fflush(stdout) != 0)
		ret = err("writing the diff: output error");
	kstat_view_free(va);
	kstat_view_free(vb);
	kstatjson_free(&ka);
	kstatjson_free(&kb);
	return ret;
}
