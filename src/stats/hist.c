// SPDX-License-Identifier: GPL-2.0
/*
 * Log-linear latency histogram (HdrHistogram-style). Values below 128 ns get
 * a bucket each; above, every power of two is split into 128 linear
 * sub-buckets, so a bucket's midpoint is within 1/256 (0.4 %) of any value in
 * it. Blocks of 128 counters are allocated per power of two on first use:
 * a latency distribution spans a handful of them, so a key costs a few KiB.
 */
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "stats-local.h"

struct stats_hist *hist_new(void)
{
	return xcalloc(1, sizeof(struct stats_hist));
}

void hist_free(struct stats_hist *h)
{
	if (!h)
		return;
	for (int i = 0; i < NBLOCKS; i++)
		free(h->block[i]);
	free(h);
}

/* The value a bucket stands for: its midpoint (exact for block 0). */
static double bucket_value(unsigned b, unsigned s)
{
	if (b == 0)
		return s;
	unsigned shift = b - 1;
	double lo = (double)(SUB + s) * (double)(1ULL << shift);
	double width = (double)(1ULL << shift);
	return lo + (width - 1) / 2;
}

/* A first sample in a power of two: its block. */
uint64_t *stats_hist_block(struct stats_hist *h, unsigned b)
{
	return h->block[b] = xcalloc(SUB, sizeof(uint64_t));
}

void hist_merge(struct stats_hist *dst, const struct stats_hist *src)
{
	for (unsigned b = 0; b < NBLOCKS; b++) {
		if (!src->block[b])
			continue;
		if (!dst->block[b])
			dst->block[b] = xcalloc(SUB, sizeof(uint64_t));
		for (unsigned s = 0; s < SUB; s++)
			dst->block[b][s] += src->block[b][s];
	}
}

struct stats_hist *hist_dup(const struct stats_hist *src)
{
	struct stats_hist *h = hist_new();

	hist_merge(h, src);
	return h;
}

/* Nearest-rank quantile: the value of the ceil(q * total)-th smallest sample. */
double hist_quantile(const struct stats_hist *h, uint64_t total, double q)
{
	uint64_t rank = (uint64_t)(q * (double)total + 0.999999999);
	uint64_t seen = 0;

	if (rank < 1)
		rank = 1;
	for (unsigned b = 0; b < NBLOCKS; b++) {
		if (!h->block[b])
			continue;
		for (unsigned s = 0; s < SUB; s++) {
			seen += h->block[b][s];
			if (seen >= rank)
				return bucket_value(b, s);
		}
	}
	return 0;
}

void hist_foreach(const struct stats_hist *h,
		  void (*fn)(uint64_t lo, uint64_t hi, uint64_t n, void *arg), void *arg)
{
	for (unsigned b = 0; b < NBLOCKS; b++) {
		if (!h->block[b])
			continue;
		for (unsigned s = 0; s < SUB; s++) {
			uint64_t lo, width;

			if (!h->block[b][s])
				continue;
			width = b == 0 ? 1 : 1ULL << (b - 1);
			lo = b == 0 ? s : (uint64_t)(SUB + s) << (b - 1);
			fn(lo, lo + width - 1, h->block[b][s], arg);
		}
	}
}
