// SPDX-License-Identifier: GPL-2.0
/*
 * The HTTP side: libmicrohttpd (as collectd's write_prometheus uses it),
 * a thread per connection, so no client, however slow or stuck, can hold
 * up collection or another client: the collector never waits for HTTP, it
 * only swaps in a new page under a mutex held for a few pointer moves. A
 * page is reference-counted; a slow reader keeps the one it started with
 * while newer ones are published.
 *
 * Pages are made on demand: a GET /metrics asks the collector for a fresh
 * one and waits for it (the collector looks at least every 100 ms; at most
 * 2 s, then the last page), so what a scrape sees is at most ~0.1 s old and
 * rendering costs one page per scrape, not one per interval. Gzip when the
 * scraper accepts it (Prometheus does).
 *
 * GET (and HEAD, which libmicrohttpd answers as GET without a body) of
 * /metrics only; anything else is 404 or 405. Connections time out after
 * 10 s of silence, at most 32 at once and 8 per client address.
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
#include "alloc.h"
#include "err.h"
#include "prom.h"
#include "serve-local.h"

#define WAIT_S 2

/* libmicrohttpd (mhd.c): set by serve_http_start() before the daemon's threads exist */
static const struct serve_mhd *M;

struct page {
	struct serve_http *h;
	struct serve_page p;
	unsigned refs;
};

struct serve_http {
	struct MHD_Daemon *d;
	pthread_mutex_t mu;
	pthread_cond_t fresh;
	struct page *text, *om;
	uint64_t asked, done; /* requests for a fresh page; the last one a page answered */
	atomic_bool om_wanted, gz_wanted;
	atomic_ullong served[2]; /* /metrics answered: text, OpenMetrics */
	atomic_ullong pending;	 /* = asked, for the collector's lock-free look */
	unsigned port;
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

/* Asks the collector for a page made after now and waits for it (lock held). */
static void wait_fresh(struct serve_http *h)
{
	uint64_t mine = ++h->asked;
	struct timespec until;

	atomic_store(&h->pending, mine);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += WAIT_S;
	while (h->done < mine)
		if (pthread_cond_timedwait(&h->fresh, &h->mu, &until) != 0)
			break;
}

static enum MHD_Result metrics(struct serve_http *h, struct MHD_Connection *c)
{
	bool om = wants_openmetrics(c), gz = accepts_gzip(c);
	struct MHD_Response *r;
	struct page *p;
	enum MHD_Result ret;

	if (om)
		atomic_store(&h->om_wanted, true);
	if (gz)
		atomic_store(&h->gz_wanted, true);
	pthread_mutex_lock(&h->mu);
	wait_fresh(h);
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
 * POST /flight: the flight recorder saves its window (serve --flight). A
 * POST comes in two calls at least (the headers, then the end of its body,
 * which is read and ignored): answered at the last; the collector saves.
 */
static enum MHD_Result flight(struct serve_http *h, struct MHD_Connection *c, size_t *upload_len,
			      void **con_cls)
{
	static int seen;

	if (!atomic_load(&h->flight))
		return reply(c, MHD_HTTP_NOT_FOUND, "no flight recorder here (serve --flight)\n",
			     NULL);
	if (!*con_cls) {
		*con_cls = &seen;
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
	(void)version;
	(void)upload;
	if (!strcmp(url, "/flight"))
		return strcmp(method, MHD_HTTP_METHOD_POST)
			       ? reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "POST only\n", "POST")
			       : flight(cls, c, upload_len, con_cls);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only\n", "GET, HEAD");
	if (*upload_len)
		return reply(c, MHD_HTTP_BAD_REQUEST, "a GET has no body\n", NULL);
	if (!strcmp(url, "/metrics"))
		return metrics(cls, c);
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, "kvm-exitstat serve: the metrics are at /metrics\n",
			     NULL);
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

struct serve_http *serve_http_start(const char *addr, char *errbuf, size_t errlen)
{
	struct sockaddr_storage ss;
	struct serve_http *h;
	const union MHD_DaemonInfo *info;
	unsigned flags =
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;

	if (parse_addr(addr, &ss, errbuf, errlen) < 0)
		return NULL;
	M = serve_mhd(errbuf, errlen);
	if (!M)
		return NULL;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h = xcalloc(1, sizeof(*h));
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->fresh, NULL);
	h->d = M->start_daemon(flags, 0, NULL, NULL, answer, h, MHD_OPTION_SOCK_ADDR, &ss,
				MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_CONNECTION_LIMIT,
				32u, MHD_OPTION_PER_IP_CONNECTION_LIMIT, 8u, MHD_OPTION_END);
	if (!h->d) {
		err_buf(errbuf, errlen, "cannot listen on %s (in use, or not an address here)",
			addr);
		pthread_mutex_destroy(&h->mu);
		pthread_cond_destroy(&h->fresh);
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
	pthread_cond_broadcast(&h->fresh);
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
	/* Joins the server thread; responses still queued release their pages. */
	M->stop_daemon(h->d);
	if (h->text)
		page_put(h->text);
	if (h->om)
		page_put(h->om);
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->fresh);
	free(h);
}
