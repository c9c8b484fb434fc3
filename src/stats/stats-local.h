/* SPDX-License-Identifier: GPL-2.0 */
/* Private to src/stats: the histogram behind stats_acc. */
#ifndef KES_STATS_LOCAL_H
#define KES_STATS_LOCAL_H

#include <stdint.h>
#include "stats.h"

struct stats_hist *hist_new(void);
void hist_free(struct stats_hist *h);
/* hist.c's names for stats.h's layout */
#define SUB_BITS STATS_HIST_SUB_BITS
#define SUB	 STATS_HIST_SUB
#define NBLOCKS	 STATS_HIST_BLOCKS

void hist_merge(struct stats_hist *dst, const struct stats_hist *src);
struct stats_hist *hist_dup(const struct stats_hist *src);
double hist_quantile(const struct stats_hist *h, uint64_t total, double q);
/* Each non-empty bucket in ascending order: the integer values [lo, hi] it holds, its count. */
void hist_foreach(const struct stats_hist *h,
		  void (*fn)(uint64_t lo, uint64_t hi, uint64_t n, void *arg), void *arg);

#endif
