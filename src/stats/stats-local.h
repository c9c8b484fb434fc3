/* SPDX-License-Identifier: GPL-2.0 */
/* Private to src/stats: the histogram behind stats_acc. */
#ifndef KES_STATS_LOCAL_H
#define KES_STATS_LOCAL_H

#include <stdint.h>
#include "stats.h"

struct stats_hist *hist_new(void);
void hist_free(struct stats_hist *h);
/*
 * Log-linear buckets (hist.c says why): inline, since every timed exit adds
 * to two histograms and the call cost as much as the add.
 */
#define SUB_BITS 7
#define SUB	 (1u << SUB_BITS)
#define NBLOCKS	 (64 - SUB_BITS + 1) /* block 0: 0..127; block b: [2^(b+6), 2^(b+7)) */

struct stats_hist {
	uint64_t *block[NBLOCKS];
};

static inline void hist_locate(uint64_t v, unsigned *b, unsigned *s)
{
	if (v < SUB) {
		*b = 0;
		*s = (unsigned)v;
		return;
	}
	unsigned e = 63 - (unsigned)__builtin_clzll(v); /* >= SUB_BITS */
	unsigned shift = e - SUB_BITS;
	*b = shift + 1;
	*s = (unsigned)(v >> shift) - SUB;
}

uint64_t *hist_block_new(struct stats_hist *h, unsigned b);

static inline void hist_add_n(struct stats_hist *h, uint64_t v, uint64_t n)
{
	unsigned b, s;

	hist_locate(v, &b, &s);
	(h->block[b] ? h->block[b] : hist_block_new(h, b))[s] += n;
}

void hist_merge(struct stats_hist *dst, const struct stats_hist *src);
struct stats_hist *hist_dup(const struct stats_hist *src);
double hist_quantile(const struct stats_hist *h, uint64_t total, double q);
/* Each non-empty bucket in ascending order: the integer values [lo, hi] it holds, its count. */
void hist_foreach(const struct stats_hist *h,
		  void (*fn)(uint64_t lo, uint64_t hi, uint64_t n, void *arg), void *arg);

#endif
