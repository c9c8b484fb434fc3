// SPDX-License-Identifier: GPL-2.0
/*
 * The HTTP side: libmicrohttpd (as collectd's write_prometheus uses it) on
 * one thread of its own, with epoll, so no client, however slow or stuck,
 * can hold up collection or another client: the collector never waits for
 * HTTP, it only swaps in a new page under a mutex held for a few pointer
 * moves. A page is reference-counted; a slow reader keeps the one it
 * started with while newer ones are published.
 *
 * Pages are made on demand: a GET /metrics asks the collector for a fresh
 * one (waking it through an eventfd it polls with the trace buffers) and
 * its connection is suspended until that page is published (at most 2 s,
 * then the last page): what a scrape sees is what was traced until it
 * asked, and rendering costs one page per scrape, not one per interval.
 * Gzip when the scraper accepts it (Prometheus does). A thread per
 * connection, as this was before, made a burst of 10,000 connections cost
 * 10,000 thread starts: the scrape after it waited up to 0.6 s.
 *
 * GET (and HEAD, which libmicrohttpd answers as GET without a body) of
 * /metrics only; anything else is 404 or 405 (/ too: kvm-exitstat-serve(1)).
 * Connections time out after 10 s of silence; a request must end within
 * DEADLINE_S of the connection (or of its last answer) whatever it
 * trickles, and at most MAX_CONNS connections, MAX_PER_ADDR of one address,
 * are kept: a newcomer makes room by dropping the slowest (guard.c). With
 * --web-config: TLS (GnuTLS, through libmicrohttpd) and basic
 * authentication, checked before anything else (http-auth.c).
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "alloc.h"
#include "err.h"
#include "prom.h"
#include "serve-local.h"

#define WAIT_S 2
#define DEADLINE_S   5.0
#define MAX_CONNS    32u
#define MAX_PER_ADDR 8u
/*
 * libmicrohttpd's own limit: the sockets it holds, those dropped and not yet
 * closed included. Above ours so that it never refuses a newcomer itself
 * (at its limit it stops accepting: the old behaviour).
 */
#define MHD_CONNS (4 * MAX_CONNS)

/* libmicrohttpd (mhd.c): set by serve_http_start() before the daemon's threads exist */
static const struct serve_mhd *M;

struct page {
	struct serve_http *h;
	struct serve_page p;
	unsigned refs;
};

/* A /metrics request waiting, suspended, for the page it asked for. */
struct ask {
	struct MHD_Connection *c;
	uint64_t mine; /* its number: answered by a page made for `mine` or later */
	double since;  /* when it asked (monotonic s) */
	bool waiting;  /* suspended, in the waiting list */
};

struct serve_http {
	struct MHD_Daemon *d;
	struct serve_guard *guard;
	pthread_mutex_t mu;
	struct page *text, *om;
	uint64_t asked, done; /* requests for a fresh page; the last one a page answered */
	struct ask **waiting; /* suspended requests, in the order they asked */
	size_t nwaiting, capwaiting;
	bool stopping; /* answer at once: libmicrohttpd cannot stop with one suspended */
	atomic_bool om_wanted, gz_wanted;
	atomic_ullong served[2]; /* /metrics answered: text, OpenMetrics */
	atomic_ullong pending;	 /* = asked, for the collector's lock-free look */
	int wake;		 /* eventfd: a request asked for a fresh page */
	unsigned port;
	const struct serve_webconfig *wc; /* TLS and users, or NULL */
	atomic_bool flight;	 /* POST /flight is answered (serve --flight) */
	atomic_ullong flights;	 /* POST /flight requests, for the collector to take */
};

static void page_put(void *cls)
{
	struct page *p = cls;
	struct serve_http *h = p->h;
	bool last;

	pthread_mutex_lock(&h->mu);
	last = --p->refs == 0;
	pthread_mutex_unlock(&h->mu);
	if (last) {
		free(p->p.buf);
		free(p->p.gz);
		free(p);
	}
}

static struct page *page_new(struct serve_http *h, const struct serve_page *sp)
{
	struct page *p = xcalloc(1, sizeof(*p));

	*p = (struct page){.h = h, .p = *sp, .refs = 1};
	return p;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *text,
			     const char *allow)
{
	struct MHD_Response *r =
	    M->create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	M->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (allow)
		M->add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = M->queue_response(c, status, r);
	M->destroy_response(r);
	return ret;
}

/* Prometheus asks "application/openmetrics-text;version=1.0.0,...;q=0.75,text/plain;...". */
static bool wants_openmetrics(struct MHD_Connection *c)
{
	const char *a = M->lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);

	return a && strstr(a, "application/openmetrics-text");
}

static bool accepts_gzip(struct MHD_Connection *c)
{
	const char *a =
	    M->lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);

	return a && strstr(a, "gzip");
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Asks the collector for a page made after now and suspends the connection
 * until it is published (h->mu held). false: answer at once (stopping).
 */
static bool ask_fresh(struct serve_http *h, struct ask *a)
{
	if (h->stopping)
		return false;
	a->mine = ++h->asked;
	a->since = mono_s();
	atomic_store(&h->pending, a->mine);
	/* the collector, in its poll, at once: not at its next look, up to 100 ms on */
	if (write(h->wake, &(uint64_t){1}, sizeof(uint64_t)) < 0) {
		/* a full counter (2^64 - 2 asks) is readable anyway */
	}
	if (h->nwaiting == h->capwaiting) {
		h->capwaiting = h->capwaiting ? 2 * h->capwaiting : 16;
		h->waiting = xrealloc(h->waiting, h->capwaiting * sizeof(*h->waiting));
	}
	h->waiting[h->nwaiting++] = a;
	a->waiting = true;
	M->suspend_connection(a->c);
	return true;
}

/* Resumes the waiting requests that done answers, or that waited `patience` s (h->mu held). */
static void resume_due(struct serve_http *h, double patience)
{
	double now = mono_s();
	size_t kept = 0;

	for (size_t i = 0; i < h->nwaiting; i++) {
		struct ask *a = h->waiting[i];

		if (a->mine <= h->done || now - a->since >= patience) {
			a->waiting = false;
			M->resume_connection(a->c);
		} else {
			h->waiting[kept++] = a;
		}
	}
	h->nwaiting = kept;
}

/* The page it asked for (or the last one), as the response. */
static enum MHD_Result send_page(struct serve_http *h, struct MHD_Connection *c)
{
	bool om = wants_openmetrics(c), gz = accepts_gzip(c);
	struct MHD_Response *r;
	struct page *p;
	enum MHD_Result ret;

	pthread_mutex_lock(&h->mu);
	/* Until the collector has rendered an OpenMetrics page, the text one (by its type). */
	p = om && h->om ? h->om : h->text;
	om = p == h->om && p;
	if (p)
		p->refs++;
	pthread_mutex_unlock(&h->mu);
	if (!p)
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no data yet\n", NULL);
	gz = gz && p->p.gz;
	r = M->create_response_from_buffer_with_free_callback_cls(
	    gz ? p->p.gzlen : p->p.len, gz ? p->p.gz : p->p.buf, page_put, p);
	if (!r) {
		page_put(p);
		return MHD_NO;
	}
	M->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				om ? PROM_CT_OPENMETRICS : PROM_CT_TEXT);
	if (gz)
		M->add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	atomic_fetch_add(&h->served[om], 1);
	ret = M->queue_response(c, MHD_HTTP_OK, r);
	M->destroy_response(r);
	return ret;
}

/*
 * GET /metrics: the first call asks for a fresh page and suspends the
 * connection; libmicrohttpd calls again once it is resumed, and the page
 * is sent. *con_cls: the request's struct ask (freed by on_completed).
 */
static enum MHD_Result metrics(struct serve_http *h, struct MHD_Connection *c, void **con_cls)
{
	struct ask *a = *con_cls;
	bool suspended;

	if (a)
		return send_page(h, c);
	if (wants_openmetrics(c))
		atomic_store(&h->om_wanted, true);
	if (accepts_gzip(c))
		atomic_store(&h->gz_wanted, true);
	a = xcalloc(1, sizeof(*a));
	a->c = c;
	*con_cls = a;
	pthread_mutex_lock(&h->mu);
	suspended = ask_fresh(h, a);
	pthread_mutex_unlock(&h->mu);
	return suspended ? MHD_YES : send_page(h, c);
}

static struct serve_conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i =
	    M->get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

/* A socket accepted or closed (libmicrohttpd's thread, before it closes the socket). */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct serve_http *h = cls;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		serve_guard_close(h->guard, *socket_context);
		*socket_context = NULL;
		return;
	}
	const union MHD_ConnectionInfo *fd =
	    M->get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	const union MHD_ConnectionInfo *addr =
	    M->get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	*socket_context =
	    fd ? serve_guard_open(h->guard, fd->connect_fd, addr ? addr->client_addr : NULL) : NULL;
}

/* *con_cls of a POST /flight whose headers were seen (not an ask: never freed). */
static int post_seen;

/* A request answered (or given up): the connection may send the next one. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct serve_http *h = cls;

	(void)toe;
	/* a GET's struct ask (never a waiting one: those are resumed first); a POST's marker */
	if (*con_cls != &post_seen)
		free(*con_cls);
	*con_cls = NULL;
	serve_guard_answered(h->guard, conn_of(c));
}

/*
 * POST /flight: the flight recorder saves its window (serve --flight). A
 * POST comes in two calls at least (the headers, then the end of its body,
 * which is read and ignored): answered at the last; the collector saves.
 */
static enum MHD_Result flight(struct serve_http *h, struct MHD_Connection *c, size_t *upload_len,
			      void **con_cls)
{
	if (!atomic_load(&h->flight))
		return reply(c, MHD_HTTP_NOT_FOUND, "no flight recorder here (serve --flight)\n",
			     NULL);
	if (!*con_cls) {
		*con_cls = &post_seen;
		return MHD_YES;
	}
	if (*upload_len) {
		*upload_len = 0;
		return MHD_YES;
	}
	atomic_fetch_add(&h->flights, 1);
	return reply(c, MHD_HTTP_ACCEPTED, "flight recorder: the window is being saved\n", NULL);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_len, void **con_cls)
{
	struct serve_http *h = cls;
	enum MHD_Result denied;

	(void)version;
	(void)upload;
	/* the headers are in: the deadline no longer runs */
	serve_guard_answering(h->guard, conn_of(c));
	if (serve_http_auth(M, h->wc, c, &denied) < 0)
		return denied;
	if (!strcmp(url, "/flight"))
		return strcmp(method, MHD_HTTP_METHOD_POST)
			       ? reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "POST only\n", "POST")
			       : flight(cls, c, upload_len, con_cls);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only\n", "GET, HEAD");
	if (*upload_len)
		return reply(c, MHD_HTTP_BAD_REQUEST, "a GET has no body\n", NULL);
	if (!strcmp(url, "/metrics"))
		return metrics(h, c, con_cls);
	return reply(c, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n", NULL);
}

/* "127.0.0.1:9477", "[::1]:9477", ":9477" (every IPv4 address). Literal addresses only. */
static int parse_addr(const char *s, struct sockaddr_storage *ss, char *e, size_t n)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	char *end;
	long port;

	memset(ss, 0, sizeof(*ss));
	if (!colon || (size_t)(colon - s) >= sizeof(host))
		return err_buf(e, n, "bad listen address '%s': want HOST:PORT", s);
	port = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || *end || port < 0 || port > 65535)
		return err_buf(e, n, "bad port in '%s': want 0 to 65535", s);
	snprintf(host, sizeof(host), "%.*s", (int)(colon - s), s);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		host[strlen(host) - 1] = 0;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) == 1)
			return 0;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		if (!host[0] || inet_pton(AF_INET, host, &a->sin_addr) == 1)
			return 0;
	}
	return err_buf(e, n,
		       "bad listen address '%s': the host must be a literal IPv4 "
		       "address or [IPv6]",
		       s);
}

/* TLS from the web config: libmicrohttpd's options, ended by MHD_OPTION_END; 0 or -1. */
static int tls_options(const struct serve_webconfig *wc, struct MHD_OptionItem *o, char *prio,
		       size_t plen, unsigned *flags, char *errbuf, size_t errlen)
{
	size_t n = 0;

	if (wc && wc->cert_pem) {
		if (M->is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
			return err_buf(errbuf, errlen,
				       "this libmicrohttpd has no TLS: cannot serve HTTPS");
		*flags |= MHD_USE_TLS;
		o[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, wc->cert_pem};
		o[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, wc->key_pem};
		o[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0,
						 (void *)serve_webconfig_priorities(wc, prio, plen)};
	}
	o[n] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
	return 0;
}

struct serve_http *serve_http_start(const char *addr, const struct serve_webconfig *wc,
				    char *errbuf, size_t errlen)
{
	struct MHD_OptionItem tls[4];
	char prio[128];
	struct sockaddr_storage ss;
	struct serve_http *h;
	const union MHD_DaemonInfo *info;
	unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME;

	if (parse_addr(addr, &ss, errbuf, errlen) < 0)
		return NULL;
	M = serve_mhd(errbuf, errlen);
	if (!M)
		return NULL;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (tls_options(wc, tls, prio, sizeof(prio), &flags, errbuf, errlen) < 0)
		return NULL;
	h = xcalloc(1, sizeof(*h));
	h->wc = wc;
	pthread_mutex_init(&h->mu, NULL);
	h->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	h->guard =
	    h->wake >= 0 ? serve_guard_new(MHD_CONNS, MAX_PER_ADDR, MAX_CONNS, DEADLINE_S) : NULL;
	if (h->guard)
		h->d = M->start_daemon(flags, 0, NULL, NULL, answer, h, MHD_OPTION_SOCK_ADDR, &ss,
				       MHD_OPTION_CONNECTION_TIMEOUT, 10u,
				       MHD_OPTION_CONNECTION_LIMIT, MHD_CONNS,
				       MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
				       MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
				       MHD_OPTION_ARRAY, tls, MHD_OPTION_END);
	if (!h->d) {
		err_buf(errbuf, errlen,
			"cannot listen on %s (in use, or not an address here%s)", addr,
			flags & MHD_USE_TLS ? "; or the TLS certificate and key do not load" : "");
		serve_guard_free(h->guard);
		if (h->wake >= 0)
			close(h->wake);
		pthread_mutex_destroy(&h->mu);
		free(h);
		return NULL;
	}
	info = M->get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : 0;
	return h;
}

unsigned serve_http_port(const struct serve_http *h)
{
	return h->port;
}

void serve_http_served(struct serve_http *h, uint64_t *text, uint64_t *om)
{
	*text = atomic_load(&h->served[0]);
	*om = atomic_load(&h->served[1]);
}

void serve_http_dropped(struct serve_http *h, uint64_t *dropped)
{
	for (int i = 0; i < SERVE_DROP_NREASONS; i++)
		dropped[i] = serve_guard_dropped(h->guard, (enum serve_drop)i);
}

bool serve_http_wants_openmetrics(struct serve_http *h)
{
	return atomic_load(&h->om_wanted);
}

bool serve_http_wants_gzip(struct serve_http *h)
{
	return atomic_load(&h->gz_wanted);
}

uint64_t serve_http_pending(struct serve_http *h)
{
	return atomic_load(&h->pending);
}

int serve_http_wake_fd(const struct serve_http *h)
{
	return h->wake;
}

void serve_http_tick(struct serve_http *h)
{
	pthread_mutex_lock(&h->mu);
	if (h->nwaiting)
		resume_due(h, WAIT_S);
	pthread_mutex_unlock(&h->mu);
}

void serve_http_woken(struct serve_http *h)
{
	uint64_t n;

	if (read(h->wake, &n, sizeof(n)) < 0) {
		/* EAGAIN: nothing asked since the last time */
	}
}

void serve_http_enable_flight(struct serve_http *h)
{
	atomic_store(&h->flight, true);
}

uint64_t serve_http_flights(struct serve_http *h)
{
	return atomic_exchange(&h->flights, 0);
}

void serve_http_publish(struct serve_http *h, uint64_t answers, struct serve_page *text,
			struct serve_page *om)
{
	struct page *nt = page_new(h, text), *no = om && om->buf ? page_new(h, om) : NULL;
	struct page *ot, *oo;

	pthread_mutex_lock(&h->mu);
	ot = h->text;
	oo = h->om;
	h->text = nt;
	h->om = no;
	if (answers > h->done)
		h->done = answers;
	resume_due(h, WAIT_S);
	pthread_mutex_unlock(&h->mu);
	if (ot)
		page_put(ot);
	if (oo)
		page_put(oo);
}

void serve_http_stop(struct serve_http *h)
{
	if (!h)
		return;
	/* Every waiting request answered (with the last page): none may stay suspended. */
	pthread_mutex_lock(&h->mu);
	h->stopping = true;
	resume_due(h, 0);
	pthread_mutex_unlock(&h->mu);
	/* Joins the server thread; responses still queued release their pages. */
	M->stop_daemon(h->d);
	serve_guard_free(h->guard); /* every connection closed: nothing uses it */
	close(h->wake);
	if (h->text)
		page_put(h->text);
	if (h->om)
		page_put(h->om);
	pthread_mutex_destroy(&h->mu);
	free(h->waiting);
	free(h);
}
