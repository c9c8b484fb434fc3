/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live collector and the trace.dat v6 writer.
 *
 * collect_*: a private tracefs instance ("kvm-exitstat-<pid>") with the KVM
 * events enabled and, optionally, a pid filter that follows threads and
 * children. Raw ring-buffer pages are handed out per CPU through a callback:
 * `record` appends them to a trace.dat, `top` parses them with kbuffer.
 * The top level of tracefs is never written to.
 *
 * datwrite_*: writes trace-cmd's documented trace.dat version 6 layout
 * (trace-cmd.dat.v6(5)) so that `trace-cmd report` and libtracecmd read it.
 *
 * All functions return 0 / -1 (or NULL); the ones that take errbuf write a
 * one-line reason there and print nothing.
 */
#ifndef KES_COLLECT_H
#define KES_COLLECT_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Per-CPU ring buffer size when the caller gives none. Measured: 0 lost at
 * exitgen's top rate (about 600 k events/s on one CPU) with a 100 ms tick.
 */
#define COLLECT_DEFAULT_BUFFER_KB 4096
#define COLLECT_INSTANCE_PREFIX	  "kvm-exitstat-"

struct collect_opts {
	/*
	 * "system:event" or "system:*" names. Events this kernel lacks are
	 * skipped; collect_new() fails only when none exists.
	 */
	const char *const *events;
	size_t nevents;
	/*
	 * Trace only these processes, all their threads and later children.
	 * NULL: every process. Non-NULL with npids 0: filter, the pids come
	 * later through collect_add_pids() (a child forked after setup).
	 */
	const int32_t *pids;
	size_t npids;
	unsigned buffer_kb; /* per CPU; 0: COLLECT_DEFAULT_BUFFER_KB */
};

/* Called once per raw page (len == page size; the page header says how much is used). */
typedef int (*collect_page_fn)(void *arg, int cpu, const void *page, size_t len);

struct collect;

/*
 * Checks root, mounts tracefs when needed, removes instances left behind by
 * dead owners, creates the instance and enables the events. Tracing is not on
 * yet. Returns NULL with a reason in errbuf.
 */
struct collect *collect_new(const struct collect_opts *o, char *errbuf, size_t errlen);
/* Add processes to the pid filter (for a child forked after collect_new). */
int collect_add_pids(struct collect *c, const int32_t *pids, size_t n);
/* Opens the per-CPU readers and turns tracing on. */
int collect_start(struct collect *c);
/*
 * Waits up to timeout_ms for data or a signal (see collect_signals_install),
 * then hands out every full page available. Returns the number of pages, or -1.
 */
int collect_read(struct collect *c, int timeout_ms, collect_page_fn fn, void *arg);
/* Hands out everything, partial pages included (end of a recording, or a live tick). */
int collect_flush(struct collect *c, collect_page_fn fn, void *arg);
/* Turns tracing off; readers stay open so collect_flush() can drain. */
int collect_stop(struct collect *c);
int collect_ncpus(const struct collect *c);
size_t collect_page_size(const struct collect *c);
const char *collect_instance_name(const struct collect *c);
/* The "system:event" names actually enabled (wildcards expanded). Owned by c. */
const char *const *collect_events(const struct collect *c, size_t *n);
/*
 * A file of the tracing directory, e.g. "events/kvm/kvm_exit/format" or
 * "saved_cmdlines" (malloc'd, NUL-terminated; len may be NULL), or NULL. Read
 * through a directory fd opened by collect_new(): it works after tracefs was
 * unmounted (umount -l) under a running collector.
 */
char *collect_file_read(const struct collect *c, const char *rel, size_t *len);
/* The same for a file of our instance ("trace_clock"): the clock our events were stamped with. */
char *collect_instance_file_read(const struct collect *c, const char *rel, size_t *len);
/* Text of per_cpu/cpuN/stats in the instance (malloc'd), or NULL. Read it before collect_free(). */
char *collect_cpu_stats(const struct collect *c, int cpu);
/* overrun + dropped events summed over all CPUs, from the instance's stats. */
int collect_lost(const struct collect *c, uint64_t *lost);
/* Closes the readers first (rmdir fails with EBUSY while they are open), then removes the instance.
 */
void collect_free(struct collect *c);
/*
 * True while any thread of pid runs. A zombie counts as gone (kill(pid, 0)
 * still succeeds on it), a process whose main thread exited as alive.
 */
bool collect_pid_alive(int32_t pid);
/* Removes "kvm-exitstat-<pid>" instances whose owner is gone. Returns how many. */
int collect_reap_stale(void);

/*
 * SIGINT/SIGTERM/SIGHUP set a stop flag, SIGCHLD a child flag. The signals are
 * blocked except while collect_read() waits, so none is missed between a flag
 * check and the wait. A forked child must call collect_signals_child() before
 * exec to get the normal mask back.
 */
int collect_signals_install(void);
void collect_signals_child(void);
bool collect_stop_requested(void);
/* The stopping signal number, 0 if none. */
int collect_stop_signal(void);
/* True once after each SIGCHLD. */
bool collect_child_event(void);

/* ------------------------------------------------------------------------ */
/* Per-CPU stats text ("overrun: N", "dropped events: N", ...). */

/* overrun + dropped events in one stats text. */
uint64_t cpustats_lost(const char *text);
/* Value of "key: N" in a stats text; -1 when absent. */
int cpustats_field(const char *text, const char *key, uint64_t *val);

/* ------------------------------------------------------------------------ */
/* Ring-buffer pages (header_page layout: u64 timestamp, long commit, data). */

struct ringpage_info {
	uint64_t events;   /* data events */
	uint64_t missed;   /* events the kernel says were lost before this page */
	bool missed_known; /* the page flagged a loss and stored its count */
	bool flagged;	   /* the page flagged a loss */
};
/* Walks a raw page. long_size: 4 or 8 (kernel long). Returns 0, or -1 if malformed. */
int ringpage_count(const void *page, size_t len, int long_size, struct ringpage_info *info);

/* ------------------------------------------------------------------------ */
/* trace.dat v6 writer. */

struct datwrite_format {
	const char *system;
	const char *text; /* events/<system>/<event>/format */
	size_t len;
};

struct datwrite_meta {
	const char *header_page, *header_event;
	size_t header_page_len, header_event_len;
	const struct datwrite_format *formats;
	size_t nformats;
	const char *cmdlines;	 /* saved_cmdlines text, or NULL */
	char *const *cpustats;	 /* one stats text per CPU (or NULL entries), or NULL */
	const char *trace_clock; /* trace_clock text ("[local] global ..."), or NULL */
	bool uname;		 /* add the UNAME option */
};

struct datwrite;

/* Per-CPU pages go to unlinked temporary files next to path until datwrite_finish(). */
struct datwrite *datwrite_new(const char *path, int ncpus, size_t page_size, char *errbuf,
			      size_t errlen);
/* Appends one page of cpu (len <= page size; padded with zeros). */
int datwrite_page(struct datwrite *w, int cpu, const void *page, size_t len);
/* Pages written for cpu so far. */
uint64_t datwrite_cpu_pages(const struct datwrite *w, int cpu);
/* Writes the header and the CPU data, then links the file to path. Returns 0 or -1 (errbuf). */
int datwrite_finish(struct datwrite *w, const struct datwrite_meta *m, char *errbuf, size_t errlen);
/* Frees w. Until datwrite_finish() succeeds, path is untouched (the file has no name yet). */
void datwrite_free(struct datwrite *w);

/* Reads the tracefs header_page/header_event texts (malloc'd). */
int datwrite_read_headers(char **page, size_t *page_len, char **event, size_t *event_len);

/*
 * Lost events stored in a trace.dat's CPUSTAT options (overrun + dropped,
 * all CPUs). Returns -1 when the file has no such information (or is not a
 * v6 file, e.g. trace-cmd's v7) or is malformed.
 */
int datfile_lost_events(const char *path, uint64_t *lost);

/* ------------------------------------------------------------------------ */
/*
 * Test fixtures: a v6 trace.dat built from format files and text events, for
 * ISAs this host does not have.
 *
 * format_specs: "PATH" or "SYSTEM:PATH"; PATH is a format file or a directory
 * holding <event>/format (and optionally header_page, header_event). Without
 * SYSTEM, an event's system is the one the event lines give it ("kvm" if none).
 *
 * events_text: one event a line, "cpu ts_ns pid system:event field=value ...";
 * values are integers (decimal, 0x hex, negative) or, for char arrays and
 * __data_loc strings, text. Unnamed fields are 0. '#' starts a comment.
 */
int datfixture_build(const char *out, const char *const *format_specs, size_t nspecs,
		     const char *events_text, char *errbuf, size_t errlen);

#endif
