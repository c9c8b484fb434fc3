// SPDX-License-Identifier: GPL-2.0
/*
 * Views of KVM's statistics between two readings (include/kstat.h): per VM,
 * per vCPU where the vCPUs were read apart, and every VM summed. Renderers
 * (render/kstat.c, top --stats, serve) print these and compute nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "kstat.h"

struct build {
	const struct kstat_schema *s;
	double dt;
	unsigned flags;
	bool (*keep)(const char *name, void *arg);
	void *arg;
	struct kstat_view *v;
};

static void hist_row(struct kstat_row *r, const struct kstat_desc *d, const uint64_t *delta)
{
	r->b = delta + d->off;
	r->samples = kstat_hist_count(d, r->b);
	r->delta = r->samples;
	r->p50 = kstat_hist_quantile(d, r->b, 0.5);
	r->p99 = kstat_hist_quantile(d, r->b, 0.99);
}

static void make_rows(struct build *bd, struct kstat_block *k, const bool *have)
{
	const struct kstat_schema *s = bd->s;

	k->rows = xcalloc(s->n + 1, sizeof(*k->rows));
	for (size_t i = 0; i < s->n; i++) {
		const struct kstat_desc *d = &s->d[i];
		struct kstat_row r = {.d = d, .rate = NAN, .p50 = NAN, .p99 = NAN};

		if ((have && !have[i]) || (k->vcpu >= 0 && !d->vcpu))
			continue;
		if (bd->keep && !bd->keep(d->name, bd->arg))
			continue;
		if (kstat_is_hist(d)) {
			hist_row(&r, d, k->delta);
			r.value = kstat_hist_count(d, k->now + d->off);
		} else {
			r.value = k->now[d->off];
			r.delta = k->delta[d->off];
		}
		if (kstat_is_counter(d) && bd->dt > 0)
			r.rate = (double)r.delta / bd->dt;
		if ((bd->flags & KSTAT_VIEW_NONZERO) && !r.delta && !r.value)
			continue;
		k->rows[k->nrows++] = r;
	}
}

static struct kstat_block *new_block(struct build *bd)
{
	struct kstat_view *v = bd->v;
	struct kstat_block *k;

	v->b = xrealloc(v->b, (v->nb + 1) * sizeof(*v->b));
	k = &v->b[v->nb++];
	*k = (struct kstat_block){.pid = -1, .vcpu = -1};
	k->delta = xcalloc(bd->s->nvals + 1, sizeof(uint64_t));
	k->now = xcalloc(bd->s->nvals + 1, sizeof(uint64_t));
	return k;
}

/* a: the VM in the first reading, NULL when it was not there (born: created since). */
static void vm_blocks(struct build *bd, const struct kstat_vm *a, const struct kstat_vm *b,
		      bool born)
{
	struct kstat_block *k = new_block(bd);
	char label[512];

	snprintf(label, sizeof(label), "VM %s pid %d (%s)%s", b->name, (int)b->pid, b->id,
		 born ? ", created within the span" : "");
	k->label = xstrdup(label);
	k->pid = b->pid;
	k->id = b->id;
	k->name = b->name;
	k->source = b->source;
	k->born = born;
	kstat_delta(bd->s, a, b, -1, k->delta);
	memcpy(k->now, b->v, bd->s->nvals * sizeof(uint64_t));
	make_rows(bd, k, b->have);
	if (!(bd->flags & KSTAT_VIEW_VCPUS))
		return;
	for (size_t i = 0; i < b->nvcpus; i++) {
		const struct kstat_vcpu *c = &b->vcpus[i];

		k = new_block(bd);
		snprintf(label, sizeof(label), "vCPU %d of VM %s pid %d", (int)c->id, b->name,
			 (int)b->pid);
		k->label = xstrdup(label);
		k->pid = b->pid;
		k->vcpu = c->id;
		k->id = b->id;
		k->name = b->name;
		k->source = b->source;
		kstat_delta(bd->s, a, b, c->id, k->delta);
		memcpy(k->now, c->v, bd->s->nvals * sizeof(uint64_t));
		make_rows(bd, k, b->have);
	}
}

/* Every VM summed: a statistic is shown when every VM had it. */
static void total_block(struct build *bd, const struct kstat_reading *b)
{
	const struct kstat_schema *s = bd->s;
	bool *have = xcalloc(s->n + 1, sizeof(bool));
	struct kstat_view *v = bd->v;
	size_t nvm = v->nb;
	struct kstat_block *k = new_block(bd);

	k->label = xstrdup("all VMs");
	for (size_t i = 0; i < s->n; i++)
		have[i] = b->nvms > 0;
	for (size_t i = 0; i < b->nvms; i++)
		for (size_t j = 0; j < s->n; j++)
			have[j] = have[j] && b->vms[i].have[j];
	/* new_block() may have moved the array: the VM blocks by index */
	for (size_t i = 0; i < nvm; i++) {
		if (v->b[i].vcpu >= 0)
			continue;
		kstat_sum(s, k->delta, v->b[i].delta);
		kstat_sum(s, k->now, v->b[i].now);
	}
	make_rows(bd, k, have);
	free(have);
}

struct kstat_view *kstat_view_new(const struct kstat_schema *s, const struct kstat_reading *a,
				  const struct kstat_reading *b, unsigned flags,
				  bool (*keep)(const char *name, void *arg), void *arg)
{
	struct kstat_view *v = xcalloc(1, sizeof(*v));
	struct build bd = {.s = s, .flags = flags, .keep = keep, .arg = arg, .v = v};

	v->s = s;
	v->dt = a && a->t > 0 && b->t > a->t ? b->t - a->t : 0;
	bd.dt = v->dt;
	for (size_t i = 0; i < b->nvms; i++) {
		const struct kstat_vm *vb = &b->vms[i];
		const struct kstat_vm *va = kstat_reading_find(a, vb->id);

		/* not in a: born since, from zero; in a but another VMM's since (ids reused): too */
		if (va && va->pid != vb->pid)
			va = NULL;
		vm_blocks(&bd, va, vb, a && a->t > 0 && !va);
	}
	if (flags & KSTAT_VIEW_TOTAL)
		total_block(&bd, b);
	return v;
}

void kstat_view_free(struct kstat_view *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->nb; i++) {
		free(v->b[i].label);
		free(v->b[i].rows);
		free(v->b[i].delta);
		free(v->b[i].now);
	}
	free(v->b);
	free(v);
}
