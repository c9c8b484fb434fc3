// SPDX-License-Identifier: GPL-2.0
/*
 * Who may hold a connection to the exporter, and for how long (issue 29).
 * libmicrohttpd's own guards were not enough: its timeout is one of
 * silence, so a client that sends a header line every 4 s is never timed
 * out, and its connection limits refuse the newcomer, so 40 such clients
 * (4 per address, under the per-address limit) held every slot and no
 * scrape was answered for as long as they kept trickling.
 *
 * Here a connection has a deadline to finish a request: DEADLINE after it
 * was accepted or its last answer was sent, whatever it trickles meanwhile.
 * The bounds per address and overall make room for the newcomer instead of
 * refusing it: the connection of that address (or of all) that has waited
 * longest for its request to end is dropped first, then, when every one is
 * being answered, the oldest. A scraper's request arrives whole, so its
 * connection is the youngest and leaves the header stage at once.
 *
 * Dropping is shutdown(2) of the socket: libmicrohttpd's thread of that
 * connection sees the end of the stream and closes it the usual way. The
 * socket number stays valid until then: libmicrohttpd tells serve_guard_close()
 * (under our lock) before it closes the socket, so a number is never shut
 * down after it was reused. Nothing here knows HTTP; http.c ties it to
 * libmicrohttpd's callbacks.
 */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include "alloc.h"
#include "serve-local.h"

struct serve_conn {
	bool used, dropped, answering;
	int fd;
	unsigned char addr[16]; /* IPv4 as ::ffff:a.b.c.d */
	double since;		/* accepted, or its last answer sent (monotonic s) */
};

struct serve_guard {
	pthread_mutex_t mu;
	pthread_cond_t wake;
	pthread_t watchdog;
	bool running, stopping;
	struct serve_conn *c;
	size_t cap;
	unsigned per_addr, total;
	double deadline;
	atomic_ullong dropped[SERVE_DROP_NREASONS];
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The address as 16 bytes, IPv4 mapped into IPv6: one key for both families. */
static void addr_key(const struct sockaddr *sa, unsigned char key[16])
{
	memset(key, 0, 16);
	if (sa && sa->sa_family == AF_INET6) {
		memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	} else if (sa && sa->sa_family == AF_INET) {
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	}
}

static void drop(struct serve_guard *g, struct serve_conn *c, enum serve_drop why)
{
	shutdown(c->fd, SHUT_RDWR);
	c->dropped = true;
	atomic_fetch_add(&g->dropped[why], 1);
}

/*
 * The connection to make room with among those of addr (NULL: all): the one
 * whose request has been coming the longest, else the oldest answered.
 */
static struct serve_conn *victim(struct serve_guard *g, const unsigned char *addr)
{
	struct serve_conn *best = NULL;

	for (size_t i = 0; i < g->cap; i++) {
		struct serve_conn *c = &g->c[i];

		if (!c->used || c->dropped || (addr && memcmp(c->addr, addr, 16)))
			continue;
		if (!best || (best->answering && !c->answering) ||
		    (best->answering == c->answering && c->since < best->since))
			best = c;
	}
	return best;
}

static unsigned live_count(const struct serve_guard *g, const unsigned char *addr)
{
	unsigned n = 0;

	for (size_t i = 0; i < g->cap; i++)
		n += g->c[i].used && !g->c[i].dropped && (!addr || !memcmp(g->c[i].addr, addr, 16));
	return n;
}

struct serve_conn *serve_guard_open(struct serve_guard *g, int fd, const struct sockaddr *sa)
{
	struct serve_conn *slot = NULL, *v;
	unsigned char key[16];

	addr_key(sa, key);
	pthread_mutex_lock(&g->mu);
	if (live_count(g, key) >= g->per_addr && (v = victim(g, key)))
		drop(g, v, SERVE_DROP_ADDRESS);
	if (live_count(g, NULL) >= g->total && (v = victim(g, NULL)))
		drop(g, v, SERVE_DROP_FULL);
	for (size_t i = 0; i < g->cap && !slot; i++)
		if (!g->c[i].used)
			slot = &g->c[i];
	if (slot) {
		*slot = (struct serve_conn){.used = true, .fd = fd, .since = mono_s()};
		memcpy(slot->addr, key, 16);
	}
	pthread_mutex_unlock(&g->mu);
	if (!slot) { /* more sockets than libmicrohttpd was allowed: cannot happen, refuse it */
		shutdown(fd, SHUT_RDWR);
		atomic_fetch_add(&g->dropped[SERVE_DROP_FULL], 1);
	}
	return slot;
}

void serve_guard_answering(struct serve_guard *g, struct serve_conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&g->mu);
	c->answering = true;
	pthread_mutex_unlock(&g->mu);
}

void serve_guard_answered(struct serve_guard *g, struct serve_conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&g->mu);
	c->answering = false;
	c->since = mono_s(); /* a kept-alive connection's next request: a new deadline */
	pthread_mutex_unlock(&g->mu);
}

void serve_guard_close(struct serve_guard *g, struct serve_conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&g->mu);
	c->used = false;
	pthread_mutex_unlock(&g->mu);
}

/* Drops the connections whose request is late; the time until the next one is. */
static double sweep(struct serve_guard *g, double now)
{
	double next = g->deadline;

	for (size_t i = 0; i < g->cap; i++) {
		struct serve_conn *c = &g->c[i];

		if (!c->used || c->dropped || c->answering)
			continue;
		if (now - c->since >= g->deadline)
			drop(g, c, SERVE_DROP_DEADLINE);
		else if (c->since + g->deadline - now < next)
			next = c->since + g->deadline - now;
	}
	return next;
}

static void *watch(void *arg)
{
	struct serve_guard *g = arg;

	pthread_mutex_lock(&g->mu);
	while (!g->stopping) {
		double next = sweep(g, mono_s()) + 0.01;
		struct timespec until;

		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += (time_t)next;
		until.tv_nsec += (long)((next - (double)(time_t)next) * 1e9);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&g->wake, &g->mu, &until);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

struct serve_guard *serve_guard_new(size_t cap, unsigned per_addr, unsigned total, double deadline)
{
	struct serve_guard *g = xcalloc(1, sizeof(*g));
	pthread_condattr_t ca;

	g->c = xcalloc(cap, sizeof(*g->c));
	g->cap = cap;
	g->per_addr = per_addr;
	g->total = total;
	g->deadline = deadline;
	pthread_mutex_init(&g->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&g->watchdog, NULL, watch, g) != 0) {
		serve_guard_free(g);
		return NULL;
	}
	g->running = true;
	return g;
}

uint64_t serve_guard_dropped(struct serve_guard *g, enum serve_drop why)
{
	return atomic_load(&g->dropped[why]);
}

void serve_guard_free(struct serve_guard *g)
{
	if (!g)
		return;
	if (g->running) {
		pthread_mutex_lock(&g->mu);
		g->stopping = true;
		pthread_cond_signal(&g->wake);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->watchdog, NULL);
	}
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->wake);
	free(g->c);
	free(g);
}
