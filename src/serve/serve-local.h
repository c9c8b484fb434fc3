/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to serve/. Four parts, each behind a few functions:
 *   live   (serve-live.c) the live pipeline; the one file that knows which
 *          (watch.h, top's too), so a port touches only it;
 *   store  (store.c) monotonic counters and fixed histograms per label set,
 *          bounded, gone VMs kept then dropped;
 *   expose (expose.c) the store as a Prometheus/OpenMetrics page;
 *   http   (http.c) libmicrohttpd in its own thread, serving the last page.
 */
#ifndef KES_SERVE_LOCAL_H
#define KES_SERVE_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <microhttpd.h>
#include "prom.h"
#include "serve.h"
#include "stats.h"

enum serve_source { SERVE_KVM_EXIT, SERVE_USERSPACE, SERVE_NSRC };

/* ------------------------------------------------------------------------ */
/* serve-live.c */

struct serve_live;

/* One row of the interval that just ended: one thread's samples of one reason. */
struct serve_row {
	enum serve_source source;
	int32_t pid; /* the VMM (thread group); -1: the thread was gone before it was looked up */
	const char *vm;	    /* interned VM name (QEMU -name, else comm); "unknown" with pid -1 */
	int32_t tid, vcpu;  /* vcpu -1: the events carry none */
	const char *reason; /* interned exit reason (or timing bucket) */
	bool guest;	    /* time in guest (entry -> next exit), not an exit */
	const struct stats_acc *acc;
};

struct serve_live_counts {
	uint64_t events; /* raw events read, since start */
	uint64_t lost;	 /* events the kernel dropped (the instance's overrun + dropped) */
	uint64_t gaps;	 /* pages that said events were lost before them */
};

struct serve_live *serve_live_new(const struct serve_opts *o, char *errbuf, size_t errlen);
int serve_live_start(struct serve_live *l);
/* Waits up to timeout_ms for events and aggregates them. 0 or -1 (errno). */
int serve_live_poll(struct serve_live *l, int timeout_ms);
/*
 * Ends the interval: reads what is left, counts the open exits of threads
 * that are gone (a VMM's last exit), hands every row to fn, empties the
 * interval. 0 or -1 (errno).
 */
int serve_live_tick(struct serve_live *l, void (*fn)(const struct serve_row *r, void *arg),
		    void *arg);
/* The VM is known to have exited. */
bool serve_live_vm_gone(const struct serve_live *l, int32_t pid);
void serve_live_counts(const struct serve_live *l, struct serve_live_counts *c);
/* Removes the tracefs instance first. */
void serve_live_free(struct serve_live *l);

/* ------------------------------------------------------------------------ */
/* store.c */

/*
 * The histogram bounds: le = 125 ns x 2^k, k = 0..23 (125 ns .. 1.048576 s),
 * then +Inf. Each is an edge of the stats histogram, so the fold is exact: a
 * bucket counts the samples below its bound, in whole ns (a sample of exactly
 * le ns counts in the next bucket).
 */
#define SERVE_NLE 24
extern const uint64_t serve_le_ns[SERVE_NLE];
/* --in-kernel: 2^7 .. 2^30 ns, the kernel's .log2 buckets (each le holds (le/2, le]). */
extern const uint64_t serve_le_log2_ns[SERVE_NLE];

/* The label set of one row of the store. */
struct serve_key {
	int32_t pid;	    /* -1 unknown, -2 the overflow row */
	int32_t vcpu;	    /* -1: not per vCPU */
	int32_t tid;	    /* per vCPU and the events carry no vcpu id: the thread */
	uint8_t source;	    /* enum serve_source */
	bool guest;	    /* time in guest, not an exit reason */
	const char *reason; /* interned; NULL for guest rows */
};

struct serve_series {
	struct serve_key k;
	const char *vm;
	uint64_t exits;			/* every exit, timed or not */
	uint64_t timed, sum_ns;		/* the histogram's count and sum */
	uint64_t bucket[SERVE_NLE + 1]; /* per bucket, not cumulative */
};

struct serve_store;

struct serve_store *serve_store_new(size_t max_rows, bool per_vcpu);
void serve_store_free(struct serve_store *s);
/* Adds one interval row. Never fails: past max_rows it counts in the overflow row. */
void serve_store_add(struct serve_store *s, const struct serve_row *r);
/*
 * Marks the VMs gone() says have exited (at `now`, seconds) and drops the
 * rows of those gone for at least keep seconds.
 */
void serve_store_retire(struct serve_store *s, double now, double keep,
			bool (*gone)(void *arg, int32_t pid), void *arg);
/* The rows, sorted by pid, source, reason, vcpu: valid until the next add or retire. */
size_t serve_store_rows(struct serve_store *s, const struct serve_series *const **rows);
/* Exits counted in the overflow row (the cap was reached). */
uint64_t serve_store_capped(const struct serve_store *s);
/* The histograms' bounds (SERVE_NLE of them): serve_le_ns, or another set before any add. */
void serve_store_set_bounds(struct serve_store *s, const uint64_t *le_ns);
const uint64_t *serve_store_bounds(const struct serve_store *s);

/* ------------------------------------------------------------------------ */
/* expose.c */

struct kstat_view;

struct serve_meta {
	const char *version;
	bool untraced;	/* no traced exits (serve without --trace/--in-kernel): no store */
	bool in_kernel; /* its histograms are the kernel's (other bounds, another name) */
	const struct kstat_view *kstats; /* KVM's own statistics per VM, or NULL */
	bool flight;			 /* a flight recorder runs: */
	uint64_t flight_saves, flight_triggers;
	const char *buckets; /* the bucket map's name, or NULL */
	bool per_vcpu;
	struct serve_live_counts live;
	bool http;			   /* scrapes: */
	uint64_t scrapes_text, scrapes_om; /* /metrics answered, by format */
};

/* The whole page into a malloc'd buffer (s NULL: no traced exits). 0, or -1 (out of memory). */
int serve_expose(struct serve_store *s, const struct serve_meta *m, bool openmetrics, char **buf,
		 size_t *len);

/* expose-kstat.c: KVM's own statistics, a family per statistic (kvm-exitstat-serve(1)). */
void serve_expose_kstat(struct prom_w *w, const struct kstat_view *v);

/* gzip.c: in gzip'd into *out (malloc'd). 0 or -1. */
int serve_gzip(const char *in, size_t len, char **out, size_t *outlen);

/* ------------------------------------------------------------------------ */
/* http.c */

struct serve_http;

/* Listens on addr ("HOST:PORT", HOST a literal IPv4 or [IPv6]; port 0: any). NULL with errbuf. */
struct serve_http *serve_http_start(const char *addr, char *errbuf, size_t errlen);
/* The port it listens on (useful with port 0). */
unsigned serve_http_port(const struct serve_http *h);
/* A page in its formats, malloc'd; gz NULL when not made. */
struct serve_page {
	char *buf, *gz;
	size_t len, gzlen;
};
/* Has a scraper ever asked for OpenMetrics, or gzip? (Then those are made too.) */
bool serve_http_wants_openmetrics(struct serve_http *h);
bool serve_http_wants_gzip(struct serve_http *h);
/* /metrics requests answered so far, by format. */
void serve_http_served(struct serve_http *h, uint64_t *text, uint64_t *om);
/* The number of the last request for a fresh page (grows; 0: none yet). */
uint64_t serve_http_pending(struct serve_http *h);
/*
 * Replaces the pages served (takes ownership of the buffers; om may be NULL)
 * and answers the requests up to number `answers` (serve_http_pending()
 * read before the page was made).
 */
void serve_http_publish(struct serve_http *h, uint64_t answers, struct serve_page *text,
			struct serve_page *om);
/* POST /flight is answered from now on (202), each one counted for the collector. */
void serve_http_enable_flight(struct serve_http *h);
/* POST /flight requests since the last call. */
uint64_t serve_http_flights(struct serve_http *h);
/* Stops the server thread and closes every connection. */
void serve_http_stop(struct serve_http *h);

/* ------------------------------------------------------------------------ */
/* mhd.c: the libmicrohttpd calls http.c makes, from the library opened at run time */

struct serve_mhd {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_create_response_from_buffer_with_free_callback_cls)
	    *create_response_from_buffer_with_free_callback_cls;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
};

/* The library's functions (opened once, then kept), or NULL with errbuf set. */
const struct serve_mhd *serve_mhd(char *errbuf, size_t errlen);

#endif
