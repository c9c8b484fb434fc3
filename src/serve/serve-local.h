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
	const char *func;   /* --by-guest: the interned guest function label, or NULL */
	bool guest;	    /* time in guest (entry -> next exit), not an exit */
	const struct stats_acc *acc;
	/* --anatomy: the interval's time of these exits in each part, ns (has_parts: split) */
	bool has_parts;
	uint64_t part_ns[STATS_NPARTS];
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
/* fd's readability ends serve_live_poll()'s wait at once (a scrape's ask); -1: none. */
void serve_live_set_wake(struct serve_live *l, int fd);
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

/* The collector sees KVM's exits (live_sees_kvm()); *why when it does not. */
bool serve_live_sees_kvm(const struct serve_live *l, const char **why);

/* serve-file.c: serve -i: each row of the inputs to fn, once; *c their counts. 0, or -1 after err(). */
int serve_file_load(const struct serve_opts *o, void (*fn)(const struct serve_row *r, void *arg),
		    void *arg, struct serve_live_counts *c);

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
	const char *func;   /* --by-guest: interned guest_function label, or NULL */
};

struct serve_series {
	struct serve_key k;
	const char *vm;
	uint64_t exits;			/* every exit, timed or not */
	uint64_t timed, sum_ns;		/* the histogram's count and sum */
	uint64_t bucket[SERVE_NLE + 1]; /* per bucket, not cumulative */
	bool has_parts;			/* --anatomy: its exits were split */
	uint64_t part_ns[STATS_NPARTS]; /* their time in each part, ns */
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
/* process.c: the exporter's own process, the Prometheus client libraries' process_* */

struct serve_process {
	bool ok;		   /* read; false: the page leaves process_* out */
	double cpu_s;		   /* user + system */
	uint64_t rss, vsize;	   /* bytes */
	double vmax;		   /* RLIMIT_AS, bytes (RLIM_INFINITY: 2^64) */
	uint64_t open_fds;	   /* now */
	double max_fds;		   /* RLIMIT_NOFILE (soft) */
	unsigned long long start_ticks; /* since boot, in clock ticks */
	double start_s;		   /* since the epoch */
};

/* /proc/self now. 0, or -1 (p->ok false). */
int serve_process_read(struct serve_process *p);

/* ------------------------------------------------------------------------ */
/* expose.c */

struct kstat_view;

struct serve_meta {
	const char *version;
	bool sees_kvm; /* kvm_exitstat_collector_success */
	struct serve_process proc;
	bool untraced;	/* no traced exits (serve without --trace/--in-kernel): no store */
	bool in_kernel; /* its histograms are the kernel's (other bounds, another name) */
	const struct kstat_view *kstats; /* KVM's own statistics per VM, or NULL */
	bool flight;			 /* a flight recorder runs: */
	uint64_t flight_saves, flight_triggers;
	const char *buckets; /* the bucket map's name, or NULL */
	bool per_vcpu;
	bool anatomy; /* the cause counters */
	struct serve_live_counts live;
	bool http;			   /* scrapes: */
	uint64_t scrapes_text, scrapes_om; /* /metrics answered, by format */
	uint64_t dropped[3];		   /* connections dropped, by enum serve_drop (below) */
};

/* The whole page into a malloc'd buffer (s NULL: no traced exits). 0, or -1 (out of memory). */
int serve_expose(struct serve_store *s, const struct serve_meta *m, bool openmetrics, char **buf,
		 size_t *len);

/* expose-kstat.c: KVM's own statistics, a family per statistic (kvm-exitstat-serve(1)). */
void serve_expose_kstat(struct prom_w *w, const struct kstat_view *v);

/* gzip.c: in gzip'd into *out (malloc'd). 0 or -1. */
int serve_gzip(const char *in, size_t len, char **out, size_t *outlen);

/* ------------------------------------------------------------------------ */
/* webconfig.c: --web-config FILE, node_exporter's web config format */

struct serve_webconfig {
	char *cert_file, *key_file; /* resolved against the config file's directory */
	char *cert_pem, *key_pem;   /* their contents; NULL: no TLS */
	int min_version, max_version; /* 10..13 (TLS 1.x), 0: not given */
	struct {
		char *name, *hash; /* bcrypt */
	} *users;
	size_t nusers; /* 0: no authentication */
};

/* Reads and checks the file and the PEM files it names. NULL with errbuf. */
struct serve_webconfig *serve_webconfig_load(const char *path, char *errbuf, size_t errlen);
/* The GnuTLS priority string of the TLS versions allowed (into buf). */
const char *serve_webconfig_priorities(const struct serve_webconfig *w, char *buf, size_t len);
/* Does pass match user's bcrypt hash? (Unknown users take as long as a wrong password.) */
bool serve_webconfig_check(const struct serve_webconfig *w, const char *user, const char *pass);
void serve_webconfig_free(struct serve_webconfig *w);

/* ------------------------------------------------------------------------ */
/* guard.c: who may hold a connection, and how long its request may take */

struct serve_guard;
struct serve_conn;
struct sockaddr;

/* Why a connection was dropped (the counters of serve_guard_dropped()). */
enum serve_drop {
	SERVE_DROP_DEADLINE, /* its request did not end in time, however it trickled */
	SERVE_DROP_ADDRESS,  /* room for a newer one of its address */
	SERVE_DROP_FULL,     /* room for a newer one: every slot was held */
	SERVE_DROP_NREASONS
};
_Static_assert(SERVE_DROP_NREASONS == 3, "serve_meta.dropped has a counter per reason");

/*
 * cap slots (at least the sockets libmicrohttpd may hold), at most per_addr
 * live connections of one address and total in all, deadline seconds for a
 * request to end after the connection was accepted or last answered. Starts
 * the watchdog thread. NULL when it cannot be started.
 */
struct serve_guard *serve_guard_new(size_t cap, unsigned per_addr, unsigned total, double deadline);
/*
 * A new connection (its socket, the client's address): makes room for it by
 * dropping (shutdown) the one of its address, then of all, that has waited
 * longest for its request to end, else the oldest. Its slot, or NULL (no
 * slot: it was dropped itself).
 */
struct serve_conn *serve_guard_open(struct serve_guard *g, int fd, const struct sockaddr *sa);
/* Its request ended (headers read): no deadline while it is answered. */
void serve_guard_answering(struct serve_guard *g, struct serve_conn *c);
/* Its answer was sent: a kept-alive connection's next request has a new deadline. */
void serve_guard_answered(struct serve_guard *g, struct serve_conn *c);
/* The connection is being closed (before its socket is): the slot is free. */
void serve_guard_close(struct serve_guard *g, struct serve_conn *c);
/* Connections dropped so far for that reason. */
uint64_t serve_guard_dropped(struct serve_guard *g, enum serve_drop why);
/* Stops the watchdog; after every connection was closed. */
void serve_guard_free(struct serve_guard *g);

/* ------------------------------------------------------------------------ */
/* http.c */

struct serve_http;

/*
 * Listens on addr ("HOST:PORT", HOST a literal IPv4 or [IPv6]; port 0: any),
 * with TLS and/or basic authentication when wc says (NULL: plain HTTP, no
 * authentication; wc must outlive the server). NULL with errbuf.
 */
struct serve_http *serve_http_start(const char *addr, const struct serve_webconfig *wc,
				    char *errbuf, size_t errlen);
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
/* Connections dropped so far, by enum serve_drop (SERVE_DROP_NREASONS of them). */
void serve_http_dropped(struct serve_http *h, uint64_t *dropped);
/* The number of the last request for a fresh page (grows; 0: none yet). */
uint64_t serve_http_pending(struct serve_http *h);
/*
 * Readable when a request asks for a fresh page: the collector polls it
 * with the trace buffers (serve_live_set_wake) so that a scrape does not
 * wait for its next look. serve_http_woken() empties it.
 */
int serve_http_wake_fd(const struct serve_http *h);
void serve_http_woken(struct serve_http *h);
/* The collector's look (at least every 0.1 s): requests waiting 2 s get the last page. */
void serve_http_tick(struct serve_http *h);
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
/* http-auth.c */

struct serve_mhd;
/*
 * A request that wc's basic_auth_users does not let in is answered 401
 * here: -1 with *ret to return. 0: go on (no users, or the right password).
 */
int serve_http_auth(const struct serve_mhd *m, const struct serve_webconfig *wc,
		    struct MHD_Connection *c, enum MHD_Result *ret);

/* ------------------------------------------------------------------------ */
/* mhd.c: the libmicrohttpd calls http.c makes, from the library opened at run time */

struct serve_mhd {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_get_connection_info) *get_connection_info;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_create_response_from_buffer_with_free_callback_cls)
	    *create_response_from_buffer_with_free_callback_cls;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	/* --web-config */
	__typeof__(MHD_is_feature_supported) *is_feature_supported;
	__typeof__(MHD_basic_auth_get_username_password) *basic_auth_get_username_password;
	__typeof__(MHD_queue_basic_auth_fail_response) *queue_basic_auth_fail_response;
	__typeof__(MHD_free) *free;
	__typeof__(MHD_suspend_connection) *suspend_connection;
	__typeof__(MHD_resume_connection) *resume_connection;
};

/* The library's functions (opened once, then kept), or NULL with errbuf set. */
const struct serve_mhd *serve_mhd(char *errbuf, size_t errlen);

#endif
