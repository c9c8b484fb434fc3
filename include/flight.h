/* SPDX-License-Identifier: GPL-2.0 */
/*
 * live/flight.c: a flight recorder. A private instance (its own: serve's is
 * "kvm-exitstat-<pid>-flight") records the KVM exit and entry events in
 * overwrite mode and nobody reads it; on a trigger the window before it (the
 * ring buffer, swapped into the instance's snapshot buffer at that moment)
 * and a short window after it are saved as a trace.dat, at most N files
 * kept (the oldest removed). Triggers: an exit slower than T (in the kernel:
 * a synthetic exit -> entry event whose "snapshot:1 if lat >= T" trigger
 * swaps the buffers at that very exit), the exits per second of a VM over a
 * threshold (KVM's own counters, read once a second), or a request
 * (SIGUSR1, serve's POST /flight).
 *
 * Steady cost: the kernel writing the events into the ring buffer (and, with
 * a slow-exit trigger, the hists that time them); nothing is read.
 */
#ifndef KES_FLIGHT_H
#define KES_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct flight_opts {
	const int32_t *pids; /* only these VMMs and their threads; NULL: every VM */
	size_t npids;
	bool pids_later;     /* a filter with no pid yet: a command's comes (flight_add_pid) */
	const char *const *events; /* "kvm:kvm_exit", "kvm:kvm_entry", ... (enabled) */
	size_t nevents;
	unsigned buffer_kb; /* per CPU (the window and as much again for the snapshot) */
	double window_s;    /* keep this much history in a saved file; 0: all the buffer held */
	double after_s;	    /* and this much after the trigger */
	uint64_t slow_ns;   /* trigger: an exit slower than this (0: none) */
	/* the exit event's reason fields, for the slow-exit trigger's synthetic event */
	const char *fields[2];
	size_t nfields;
	double rate;	  /* trigger: a VM's exits per second over this (0: none) */
	const char *dir;  /* where the files go */
	unsigned keep;	  /* at most this many of our files in dir */
	const char *tag;  /* instance tag (serve: "flight"), or NULL */
};

struct flight;

/* Sets up (and reaps what a dead one left). NULL with a one-line reason. */
struct flight *flight_new(const struct flight_opts *o, char *errbuf, size_t errlen);
/* A process to record too (a command record runs), and the processes it makes. 0 or -1. */
int flight_add_pid(struct flight *f, int32_t pid);
/* Tracing on: the recorder runs. 0 or -1 (errno). */
int flight_start(struct flight *f);
/* A trigger from outside (SIGUSR1, POST /flight): why is a word for the file name. */
void flight_trigger(struct flight *f, const char *why);
/*
 * Checks the triggers and, a trigger's after-window past, saves: call it
 * every 100 ms or so. *saved gets the path of a file saved now (valid until
 * the next call), else NULL. 0, or -1 with a one-line reason (a file that
 * could not be written: the recorder goes on).
 */
int flight_tick(struct flight *f, const char **saved, char *errbuf, size_t errlen);
/* At the end: a window whose after-part is still running is saved now, shorter. */
int flight_flush(struct flight *f, const char **saved, char *errbuf, size_t errlen);
uint64_t flight_saves(const struct flight *f);
uint64_t flight_triggers(const struct flight *f);
/* Removes the triggers and the instance. */
void flight_free(struct flight *f);

#endif
