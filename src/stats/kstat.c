// SPDX-License-Identifier: GPL-2.0
/*
 * KVM's own statistics: the descriptors' arithmetic (include/kstat.h), the
 * one place that knows what a bucket of a KVM histogram holds and what a
 * delta of each type means. The bucket rules are the kernel's
 * (include/linux/kvm_host.h, kvm_stats_log_hist_update(): index =
 * fls64(value), the last bucket taking everything above;
 * kvm_stats_linear_hist_update(): index = value / bucket_size).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "kstat.h"

static const char *const type_names[] = {
    [KSTAT_CUMULATIVE] = "cumulative", [KSTAT_INSTANT] = "instant",
    [KSTAT_PEAK] = "peak",	       [KSTAT_LINEAR_HIST] = "linear-hist",
    [KSTAT_LOG_HIST] = "log-hist",     [KSTAT_UNKNOWN] = "unknown",
};
static const char *const unit_names[] = {
    [KSTAT_UNIT_NONE] = "none",	    [KSTAT_UNIT_BYTES] = "bytes",
    [KSTAT_UNIT_SECONDS] = "seconds", [KSTAT_UNIT_CYCLES] = "cycles",
    [KSTAT_UNIT_BOOLEAN] = "boolean",
};

const char *kstat_type_name(enum kstat_type t)
{
	return t <= KSTAT_UNKNOWN ? type_names[t] : "unknown";
}

const char *kstat_unit_name(enum kstat_unit u)
{
	return u <= KSTAT_UNIT_BOOLEAN ? unit_names[u] : "none";
}

int kstat_type_of(const char *name)
{
	for (int i = 0; i <= KSTAT_UNKNOWN; i++)
		if (!strcmp(name, type_names[i]))
			return i;
	return -1;
}

int kstat_unit_of(const char *name)
{
	for (int i = 0; i <= KSTAT_UNIT_BOOLEAN; i++)
		if (!strcmp(name, unit_names[i]))
			return i;
	return -1;
}

void kstat_schema_free(struct kstat_schema *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->d[i].name);
	free(s->d);
	*s = (struct kstat_schema){0};
}

size_t kstat_schema_add(struct kstat_schema *s, const struct kstat_desc *d)
{
	struct kstat_desc *n;

	s->d = xrealloc(s->d, (s->n + 1) * sizeof(*s->d));
	n = &s->d[s->n];
	*n = *d;
	n->name = xstrdup(d->name);
	n->size = d->size ? d->size : 1;
	n->off = s->nvals;
	s->nvals += n->size;
	return s->n++;
}

const struct kstat_desc *kstat_schema_find(const struct kstat_schema *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->d[i].name, name))
			return &s->d[i];
	return NULL;
}

bool kstat_is_hist(const struct kstat_desc *d)
{
	return d->type == KSTAT_LINEAR_HIST || d->type == KSTAT_LOG_HIST;
}

bool kstat_is_counter(const struct kstat_desc *d)
{
	/* unknown: a debugfs file without a descriptor; nearly all of them count */
	return d->type == KSTAT_CUMULATIVE || d->type == KSTAT_UNKNOWN || kstat_is_hist(d);
}

double kstat_scale(const struct kstat_desc *d)
{
	return pow(d->base == 2 ? 2.0 : 10.0, d->exponent);
}

const char *kstat_unit_label(const struct kstat_desc *d, char *buf, size_t len)
{
	static const char *const si[] = {"n", "u", "m", ""}; /* 10^-9 .. 10^0 */
	static const char *const bin[] = {"", "Ki", "Mi", "Gi"};	/* 2^0 .. 2^30 */
	const char *u = d->unit == KSTAT_UNIT_SECONDS ? "s"
			: d->unit == KSTAT_UNIT_BYTES	? "B"
			: d->unit == KSTAT_UNIT_CYCLES	? "cycles"
							: "";

	if (!*u || d->unit == KSTAT_UNIT_CYCLES)
		snprintf(buf, len, "%s", u);
	else if (d->base == 10 && d->exponent <= 0 && d->exponent >= -9 && d->exponent % 3 == 0)
		snprintf(buf, len, "%s%s", si[(d->exponent + 9) / 3], u);
	else if (d->base == 2 && d->exponent >= 0 && d->exponent <= 30 && d->exponent % 10 == 0)
		snprintf(buf, len, "%s%s", bin[d->exponent / 10], u);
	else
		snprintf(buf, len, "%d^%d %s", d->base, d->exponent, u);
	return buf;
}

void kstat_bucket_range(const struct kstat_desc *d, uint32_t i, uint64_t *lo, uint64_t *hi)
{
	bool last = i + 1 >= d->size;

	if (d->type == KSTAT_LINEAR_HIST) {
		*lo = (uint64_t)i * d->bucket_size;
		*hi = last ? UINT64_MAX : *lo + d->bucket_size - 1;
		return;
	}
	*lo = i == 0 ? 0 : i > 64 ? UINT64_MAX : 1ull << (i - 1);
	*hi = last ? UINT64_MAX : i == 0 ? 0 : i >= 64 ? UINT64_MAX : (1ull << i) - 1;
}

uint64_t kstat_hist_count(const struct kstat_desc *d, const uint64_t *b)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < d->size; i++)
		n += b[i];
	return n;
}

double kstat_hist_quantile(const struct kstat_desc *d, const uint64_t *b, double q)
{
	uint64_t n = kstat_hist_count(d, b), seen = 0, lo, hi;
	/* the rank of the sample sought, counted from 1 (nearest rank) */
	uint64_t rank = (uint64_t)ceil(q * (double)n);

	if (!n)
		return NAN;
	if (rank < 1)
		rank = 1;
	for (uint32_t i = 0; i < d->size; i++) {
		seen += b[i];
		if (seen < rank)
			continue;
		kstat_bucket_range(d, i, &lo, &hi);
		return hi == UINT64_MAX ? (double)lo : (double)hi;
	}
	return NAN;
}

/* ------------------------------------------------------------------------ */

void kstat_vm_init(struct kstat_vm *vm, const struct kstat_schema *s, int32_t pid,
		   const char *id, const char *name)
{
	*vm = (struct kstat_vm){.pid = pid,
				.id = xstrdup(id ? id : "?"),
				.name = xstrdup(name ? name : "?"),
				.v = xcalloc(s->nvals + 1, sizeof(uint64_t)),
				.have = xcalloc(s->n + 1, sizeof(bool))};
}

void kstat_vm_free(struct kstat_vm *vm)
{
	for (size_t i = 0; i < vm->nvcpus; i++)
		free(vm->vcpus[i].v);
	free(vm->vcpus);
	free(vm->id);
	free(vm->name);
	free(vm->source);
	free(vm->v);
	free(vm->have);
	*vm = (struct kstat_vm){0};
}

struct kstat_vcpu *kstat_vm_vcpu(struct kstat_vm *vm, const struct kstat_schema *s, int32_t id)
{
	for (size_t i = 0; i < vm->nvcpus; i++)
		if (vm->vcpus[i].id == id)
			return &vm->vcpus[i];
	vm->vcpus = xrealloc(vm->vcpus, (vm->nvcpus + 1) * sizeof(*vm->vcpus));
	vm->vcpus[vm->nvcpus] = (struct kstat_vcpu){id, xcalloc(s->nvals + 1, sizeof(uint64_t))};
	return &vm->vcpus[vm->nvcpus++];
}

void kstat_reading_add(struct kstat_reading *r, struct kstat_vm *vm)
{
	r->vms = xrealloc(r->vms, (r->nvms + 1) * sizeof(*r->vms));
	r->vms[r->nvms++] = *vm;
	*vm = (struct kstat_vm){0};
}

void kstat_reading_free(struct kstat_reading *r)
{
	for (size_t i = 0; i < r->nvms; i++)
		kstat_vm_free(&r->vms[i]);
	free(r->vms);
	*r = (struct kstat_reading){0};
}

const struct kstat_vm *kstat_reading_find(const struct kstat_reading *r, const char *id)
{
	for (size_t i = 0; r && i < r->nvms; i++)
		if (!strcmp(r->vms[i].id, id))
			return &r->vms[i];
	return NULL;
}

static const uint64_t *values_of(const struct kstat_vm *vm, int32_t vcpu)
{
	if (!vm)
		return NULL;
	if (vcpu < 0)
		return vm->v;
	for (size_t i = 0; i < vm->nvcpus; i++)
		if (vm->vcpus[i].id == vcpu)
			return vm->vcpus[i].v;
	return NULL;
}

void kstat_delta(const struct kstat_schema *s, const struct kstat_vm *a, const struct kstat_vm *b,
		 int32_t vcpu, uint64_t *out)
{
	const uint64_t *va = values_of(a, vcpu), *vb = values_of(b, vcpu);

	memset(out, 0, s->nvals * sizeof(*out));
	if (!vb)
		return;
	for (size_t i = 0; i < s->n; i++) {
		const struct kstat_desc *d = &s->d[i];

		for (uint32_t k = 0; k < d->size; k++) {
			uint64_t now = vb[d->off + k], then = va ? va[d->off + k] : 0;

			/* a counter below its earlier value was cleared (debugfs write of 0) */
			out[d->off + k] = !kstat_is_counter(d) ? now : now >= then ? now - then : now;
		}
	}
}

void kstat_sum(const struct kstat_schema *s, uint64_t *dst, const uint64_t *src)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct kstat_desc *d = &s->d[i];

		for (uint32_t k = 0; k < d->size; k++) {
			uint64_t *x = &dst[d->off + k], y = src[d->off + k];

			/* the peak of several VMs is the highest one's, the rest add up */
			*x = d->type == KSTAT_PEAK ? (*x > y ? *x : y) : *x + y;
		}
	}
}
