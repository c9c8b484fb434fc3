/* SPDX-License-Identifier: GPL-2.0 */
/*
 * live/khist.c: in-kernel aggregation in a live instance (Documentation/
 * trace/histogram.rst). The kernel counts exits per (thread, reason) with a
 * hist trigger on the exit event, and times each exit: a synthetic event
 * (exit -> entry of the same thread, its latency in ns and the exit's reason)
 * feeds a hist keyed by (thread, reason, log2 of the latency) with the
 * latencies' sum. Userspace only reads the two hist files, when it wants,
 * and nothing is written to the ring buffer unless the events are enabled
 * for another reason (the flight recorder).
 *
 * Optionally (the flight recorder) an exit slower than a threshold takes a
 * snapshot of the instance's ring buffer in the kernel, at once.
 *
 * Everything is in the live instance but the synthetic event's definition,
 * which the kernel keeps host-wide (dynamic_events): it is named after our
 * instance ("kes_<pid>[_<tag>]_lat"), removed with us, and one left by a
 * process that is gone is removed by the next one.
 */
#ifndef KES_KHIST_H
#define KES_KHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct live;

#define KHIST_MAX_FIELDS 2 /* the kernel allows 3 keys: the thread and two fields */

struct khist_opts {
	const char *exit_sys, *exit_ev;	  /* "kvm", "kvm_exit" */
	const char *entry_sys, *entry_ev; /* "kvm", "kvm_entry" */
	/*
	 * The exit event's fields that make its reason, the one that tells
	 * reasons apart best first (arm64: esr_ec, then ret; x86: exit_reason,
	 * then isa): the latency hist keeps the first only.
	 */
	const char *fields[KHIST_MAX_FIELDS];
	size_t nfields;
	uint64_t slow_ns; /* > 0: snapshot the ring buffer at an exit slower than this */
};

/* One line of a hist: the thread, the fields, the count; latency lines their log2 and sum. */
struct khist_entry {
	int32_t tid;
	uint64_t f[KHIST_MAX_FIELDS];
	int log2;     /* latency: the bucket (2^(log2-1), 2^log2] ns; -1 for counts */
	uint64_t n;   /* hitcount */
	uint64_t sum; /* latency: the sum of the latencies, ns */
};

struct khist_data {
	struct khist_entry *counts, *lat;
	size_t ncounts, nlat;
	uint64_t dropped; /* entries the maps had no room for (their hits are lost) */
};

struct khist;

/*
 * Whether this kernel can: hist triggers on the exit event and synthetic
 * events. False with the reason (one line) in why.
 */
bool khist_supported(const char *exit_sys, const char *exit_ev, char *why, size_t len);
/* Sets up the triggers in c's instance (before live_start()). NULL with a reason. */
struct khist *khist_new(struct live *c, const struct khist_opts *o, char *errbuf, size_t errlen);
/* Reads both hists, cumulative since khist_new(). 0, or -1 with errno. */
int khist_read(struct khist *h, struct khist_data *d);
void khist_data_free(struct khist_data *d);
/* slow_ns: has the snapshot been taken since khist_new() or khist_rearm()? */
bool khist_snapshot_taken(struct khist *h);
/* slow_ns: the snapshot trigger armed again (after the snapshot was saved). 0 or -1. */
int khist_rearm(struct khist *h);
/* Removes the triggers and the synthetic event; call before live_free(). */
void khist_free(struct khist *h);

#endif
