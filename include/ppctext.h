/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The KVM-PPC exit-timing text forms (summary statistics only, times in µs):
 *
 *  - saved timing reports as mailed in 2008-2010, one line a type or wrapped
 *    after "max N", possibly mail-quoted ("> "), with csum/sumsum/sumavg
 *    summary lines and free text around them:
 *      MMIO count 10000 min 45 max 1550 sum 2933679 avg 293.3679 stddev 294.569 % 2.50
 *  - the kernel's debugfs dump (arch/powerpc/kvm/timing.c,
 *    kvmppc_exit_timing_show): a "type count min max sum sum_squared" header,
 *    then one tab-separated line per type.
 *
 * Both become summary-only accumulators (stats_acc_set_summary) in ns / ns².
 * A row whose spread cannot be known has m2 = NAN (stddev unknown).
 */
#ifndef KES_PPCTEXT_H
#define KES_PPCTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include "input.h"
#include "stats.h"

struct ppctext_opts {
	/*
	 * The host's timebase ticks per µs, for debugfs dumps from kernels that
	 * keep durations in timebase ticks and print sum_squared divided by it
	 * only once (see ppctext.c). 0: unknown; such rows get an unknown stddev.
	 */
	unsigned tb_ticks_per_usec;
};

struct ppctext_info {
	enum input_kind kind;	 /* INPUT_PPC_REPORT or INPUT_PPC_DEBUGFS */
	unsigned rows;		 /* rows loaded (types with count 0 are skipped) */
	unsigned blocks;	 /* reports / vCPU dumps in the text (> 1: keyed by vcpu) */
	unsigned stddev_unknown; /* rows loaded with m2 = NAN */
	unsigned csum_mismatch;	 /* report blocks whose csum line != sum of their counts */
};

/*
 * Cheap content sniffing on the first bytes of a file (input_detect passes
 * up to 4 KiB). True and *kind set when the text looks like one of the two
 * forms; false for anything else (including binary data).
 */
bool ppctext_sniff(const char *buf, size_t len, enum input_kind *kind);

/*
 * Parse text (len bytes, need not be NUL-terminated) into `into`, keyed by
 * interned type name, tid -1, vcpu -1 (or the block number / the vcpu id of
 * a "vmP_vcpuN_timing" file name when the text holds several blocks).
 * o and info may be NULL. Returns 0, or -1 with a one-line message in errbuf:
 * no row at all, a row cut short, numbers out of range or inconsistent,
 * binary data. On error `into` may hold part of the rows.
 */
int ppctext_parse(const char *text, size_t len, const struct ppctext_opts *o,
		  struct stats_table *into, struct ppctext_info *info, char *errbuf, size_t errlen);

/* Read path and ppctext_parse() it. The file name gives a debugfs dump's vcpu id. */
int ppctext_load(const char *path, const struct ppctext_opts *o, struct stats_table *into,
		 struct ppctext_info *info, char *errbuf, size_t errlen);
/* The same from fd, read from its start (it stays the caller's); path names it. */
int ppctext_load_fd(int fd, const char *path, const struct ppctext_opts *o,
		    struct stats_table *into, struct ppctext_info *info, char *errbuf,
		    size_t errlen);

#endif
