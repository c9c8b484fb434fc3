/* SPDX-License-Identifier: GPL-2.0 */
/*
 * serve/: `kvm-exitstat serve`, a Prometheus exporter. The live pipeline of
 * top (collector -> decode -> pair -> stats) without a terminal: at each
 * interval the new samples are added to monotonic per-VM counters and
 * fixed-bound histograms, rendered once, and handed to an HTTP server
 * (libmicrohttpd, its own thread) and/or written to a node_exporter
 * textfile. The metrics are in kvm-exitstat-serve(1).
 */
#ifndef KES_SERVE_H
#define KES_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "exit-types.h"

struct bucket_map;
struct flight_opts;

struct serve_opts {
	const int32_t *pids; /* trace these processes (and their threads); NULL: all */
	size_t npids;
	const char *listen;   /* "127.0.0.1:9477", "[::1]:9477"; NULL: no HTTP */
	const char *textfile; /* directory for kvm_exitstat.prom, or NULL */
	double interval;      /* seconds between folds (and textfile writes) */
	double keep_gone;     /* seconds a gone VM's series stay (>= 300 by default) */
	size_t max_rows;      /* label sets (pid, vm, source, reason[, vcpu]) at most */
	bool per_vcpu;
	unsigned buffer_kb;
	struct bucket_map *buckets;
	const char *buckets_name;
	const struct exit_types *types;
	const char *version; /* for kvm_exitstat_build_info */
	/* serve -i: these recordings' metrics instead of live ones, made once; 0: live */
	const char *const *inputs;
	size_t ninputs;
	const char *web_config; /* --web-config FILE (TLS, basic auth), or NULL */
	/* --anatomy: the sched and irq events too, and each row's exit time by cause */
	bool anatomy;
	/*
	 * What is exported besides KVM's own statistics (always, read without
	 * tracing): trace: every exit streamed (the exits and handling-time
	 * metrics); in_kernel: the same counted and timed by the kernel.
	 * Neither: no tracing at all.
	 */
	bool trace, in_kernel;
	/*
	 * A flight recorder beside (its own instance, "-flight"): NULL, or its
	 * settings (the dir, keep, window, triggers; flight.h). POST /flight and
	 * SIGUSR1 trigger it too.
	 */
	const struct flight_opts *flight;
	/*
	 * --by-guest: kvm_exit series split by the guest function at each exit
	 * (a guest_function label: the symbol of syms holding the pc, else
	 * "0xPC"); the first guest_top functions of each reason keep their own
	 * series for the run, later ones count in guest_function="other".
	 */
	bool by_guest;
	const struct gsym *syms;
	unsigned guest_top;
};

/*
 * Runs until SIGINT/SIGTERM/SIGHUP (with inputs and no listen address: until
 * the textfile is written). Prints its own errors; returns the exit status.
 */
int serve_run(const struct serve_opts *o);

#endif
