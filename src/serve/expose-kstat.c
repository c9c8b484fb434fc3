// SPDX-License-Identifier: GPL-2.0
/*
 * KVM's own statistics on the exporter's page: one family per statistic,
 * named after its descriptor, kvm_exitstat_kvm_<name>, with the unit's
 * suffix where it has one (seconds, bytes: values scaled to that unit; a
 * name's own _ns, _us or _ms is dropped then: halt_wait_ns ->
 * kvm_exitstat_kvm_halt_wait_seconds_total);
 * cumulative statistics are counters, instant and peak ones gauges, the
 * histograms histograms whose bounds are the kernel's own buckets (a bucket
 * of raw values lo..hi is le = hi in the unit; the last, open one +Inf) and
 * which have no _sum (KVM counts samples per bucket and keeps no sum; the
 * matching *_ns counters have it). Labels: pid and vm; vcpu on the vCPUs'
 * own series (serve --per-vcpu, where the VMM's statistics fds were read),
 * which then replace the VM's series of that statistic.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "kstat.h"
#include "serve-local.h"

static enum prom_type type_of(const struct kstat_desc *d)
{
	if (kstat_is_hist(d))
		return PROM_HISTOGRAM;
	return kstat_is_counter(d) ? PROM_COUNTER : PROM_GAUGE;
}

static const char *unit_of(const struct kstat_desc *d)
{
	return d->unit == KSTAT_UNIT_SECONDS ? "seconds" : d->unit == KSTAT_UNIT_BYTES ? "bytes" : NULL;
}

/*
 * How much of a descriptor's name to keep: a time in seconds whose name
 * ends with its raw unit's abbreviation (halt_wait_ns, exponent -9) loses
 * it, as the value is given in seconds (and Prometheus' lint refuses
 * abbreviated units in a name).
 */
static size_t name_len(const struct kstat_desc *d)
{
	static const char *const abbr[] = {"_ns", "_us", "_ms"}; /* exponent -9, -6, -3 */
	size_t n = strlen(d->name);

	if (d->unit != KSTAT_UNIT_SECONDS || d->base != 10 || d->exponent > -3 ||
	    d->exponent < -9 || d->exponent % 3)
		return n;
	const char *a = abbr[(d->exponent + 9) / 3];

	return n > 3 && !strcmp(d->name + n - 3, a) ? n - 3 : n;
}

static void family(struct prom_w *w, const struct kstat_desc *d, char *name, size_t len)
{
	const char *unit = unit_of(d);
	char help[256];
	size_t n = (size_t)snprintf(name, len, "kvm_exitstat_kvm_"), keep = name_len(d);

	/* a descriptor's name is a C identifier; anything else becomes _ all the same */
	for (const char *p = d->name; *p && p < d->name + keep && n + 1 < len; p++)
		name[n++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
					   (*p >= '0' && *p <= '9')
				       ? *p
				       : '_');
	name[n] = '\0';
	if (unit)
		snprintf(name + n, len - n, "_%s", unit);
	snprintf(help, sizeof(help),
		 "KVM's statistic %s (%s, per %s), as its descriptor names it; read without "
		 "tracing (debugfs, a VMM's statistics fds).",
		 d->name, kstat_type_name(d->type), d->vcpu ? "vCPU, summed per VM" : "VM");
	prom_family(w, name, type_of(d), unit, help);
}

static void hist(struct prom_w *w, const struct prom_label *l, size_t nl,
		 const struct kstat_desc *d, const uint64_t *b)
{
	double *le = xcalloc(d->size + 1, sizeof(double));
	double scale = kstat_scale(d);

	for (uint32_t i = 0; i + 1 < d->size; i++) {
		uint64_t lo, hi;

		kstat_bucket_range(d, i, &lo, &hi);
		le[i] = (double)hi * scale;
	}
	prom_histogram_le(w, l, nl, le, d->size - 1, b);
	free(le);
}

static void sample(struct prom_w *w, const struct kstat_block *b, const struct kstat_row *r)
{
	char pid[16], vcpu[16];
	struct prom_label l[3] = {{"pid", pid}, {"vm", b->name}, {"vcpu", vcpu}};
	size_t nl = b->vcpu >= 0 ? 3 : 2;
	const struct kstat_desc *d = r->d;

	snprintf(pid, sizeof(pid), "%d", (int)b->pid);
	snprintf(vcpu, sizeof(vcpu), "%d", (int)b->vcpu);
	if (kstat_is_hist(d))
		hist(w, l, nl, d, b->now + d->off);
	else if (unit_of(d) && kstat_scale(d) != 1)
		prom_sample_f(w, l, nl, (double)r->value * kstat_scale(d));
	else
		prom_sample(w, l, nl, r->value);
}

static const struct kstat_row *row_of(const struct kstat_block *b, const struct kstat_desc *d)
{
	for (size_t i = 0; i < b->nrows; i++)
		if (b->rows[i].d == d)
			return &b->rows[i];
	return NULL;
}

/* Does the VM of block i have blocks of its own vCPUs (serve --per-vcpu)? */
static bool has_vcpus(const struct kstat_view *v, size_t i)
{
	return i + 1 < v->nb && v->b[i + 1].vcpu >= 0 && v->b[i + 1].pid == v->b[i].pid;
}

void serve_expose_kstat(struct prom_w *w, const struct kstat_view *v)
{
	char name[192];

	for (size_t k = 0; k < v->s->n; k++) {
		const struct kstat_desc *d = &v->s->d[k];
		bool named = false;

		for (size_t i = 0; i < v->nb; i++) {
			const struct kstat_block *b = &v->b[i];
			const struct kstat_row *r = b->pid >= 0 ? row_of(b, d) : NULL;

			/* a vCPU statistic: the vCPUs' series, where there are, not the VM's sum */
			if (!r || (b->vcpu < 0 && d->vcpu && has_vcpus(v, i)))
				continue;
			if (!named)
				family(w, d, name, sizeof(name));
			named = true;
			sample(w, b, r);
		}
	}
}
