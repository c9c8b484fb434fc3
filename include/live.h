/* SPDX-License-Identifier: GPL-2.0 */
/*
 * live/: the tracefs collector and the process's signal policy.
 *
 * A private tracefs instance ("kvm-exitstat-<pid>") with the KVM events
 * enabled and, optionally, a pid filter that follows threads and children.
 * Raw ring-buffer pages are handed out per CPU through a callback: `record`
 * appends them to a trace.dat, `top` decodes them. The top level of tracefs
 * is never written to.
 *
 * All functions return 0 / -1 (or NULL); the ones that take errbuf write a
 * one-line reason there and print nothing.
 */
#ifndef KES_LIVE_H
#define KES_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "output.h"

/*
 * Per-CPU ring buffer size when the caller gives none. Measured: 0 lost at
 * exitgen's top rate (about 600 k events/s on one CPU) with a 100 ms tick.
 */
#define LIVE_DEFAULT_BUFFER_KB 4096
#define LIVE_INSTANCE_PREFIX   "kvm-exitstat-"

struct live_opts {
	/*
	 * "system:event" or "system:*" names. Events this kernel lacks are
	 * skipped; live_new() fails only when none exists.
	 */
	const char *const *events;
	size_t nevents;
	/* The same, asked for by name (record -e): each must exist, else live_new() fails. */
	const char *const *extra;
	size_t nextra;
	/* Left out of the above ("system:event" or "system:*"): record -e '!EVENT'. */
	const char *const *drop;
	size_t ndrop;
	/*
	 * Trace only these processes, all their threads and later children.
	 * NULL: every process. Non-NULL with npids 0: filter, the pids come
	 * later through live_add_pids() (a child forked after setup).
	 */
	const int32_t *pids;
	size_t npids;
	unsigned buffer_kb; /* per CPU; 0: LIVE_DEFAULT_BUFFER_KB */
	/*
	 * Have the kernel keep each traced thread's process in saved_tgids
	 * (the instance's record-tgid option), for record's thread map: the
	 * threads are often gone before their pages are read. Best effort.
	 */
	bool record_tgid;
	/*
	 * The events are looked up (their formats are there to read) but not
	 * enabled: hist triggers (khist.h) attach to them and nothing reaches
	 * the ring buffer (top/serve --in-kernel).
	 */
	bool triggers_only;
	/*
	 * A second instance of the same process (serve's flight recorder):
	 * named "kvm-exitstat-<pid>-<tag>" (letters only). NULL: "kvm-exitstat-<pid>".
	 */
	const char *tag;
};

/* Called once per raw page (len == page size; the page header says how much is used). */
typedef int (*live_page_fn)(void *arg, int cpu, const void *page, size_t len);

struct live;

/* What tracing needs, for the command table's checks (cli.c). */
enum {
	LIVE_NEED_ROOT = 1 << 0,
	LIVE_NEED_TRACEFS = 1 << 1, /* mounted; mounts it when nothing is mounted there */
	LIVE_NEED_KVM = 1 << 2,	    /* the kvm tracepoints */
	LIVE_NEED_KVM_HOST = 1 << 3, /* KVM works here: /dev/kvm or its misc device */
};
/* 0, or -1 with a reason that names who in errbuf ("top needs root (tracefs)", "top: no ..."). */
int live_require(unsigned need, const char *who, char *errbuf, size_t errlen);

/*
 * Removes instances left behind by dead owners, creates the instance and
 * enables the events (what live_require() checks, the caller has checked).
 * Tracing is not on yet. Returns NULL with a reason in errbuf.
 */
struct live *live_new(const struct live_opts *o, char *errbuf, size_t errlen);
/*
 * Enables more events ("system:event" or "system:*"; those already on and
 * those this kernel lacks are skipped) while tracing runs: top's e key.
 * live_events() lists them after. 0, or -1 with errbuf.
 */
int live_enable_more(struct live *c, const char *spec, char *errbuf, size_t errlen);
/* Add processes to the pid filter (for a child forked after live_new). */
int live_add_pids(struct live *c, const int32_t *pids, size_t n);
/* Opens the per-CPU readers and turns tracing on. */
int live_start(struct live *c);
/*
 * Waits up to timeout_ms for data or a signal (see live_signals_install),
 * then hands out every full page available. Returns the number of pages, or -1.
 */
int live_read(struct live *c, int timeout_ms, live_page_fn fn, void *arg);
/*
 * An fd (an eventfd) whose readability ends live_read()'s wait at once, as a
 * signal does: serve's scrapes ask for a page through it. The caller empties
 * it. -1: none (the default).
 */
void live_set_wake_fd(struct live *c, int fd);
/* Hands out everything, partial pages included (end of a recording, or a live tick). */
int live_flush(struct live *c, live_page_fn fn, void *arg);
/* Turns tracing off; readers stay open so live_flush() can drain. */
int live_stop(struct live *c);
int live_ncpus(const struct live *c);
size_t live_page_size(const struct live *c);
/* The size of the page header's commit field (a kernel long): 4 or 8. */
int live_long_size(const struct live *c);
/* The "system:event" names actually enabled (wildcards expanded). Owned by c. */
const char *const *live_events(const struct live *c, size_t *n);
/*
 * A file of the tracing directory, e.g. "events/kvm/kvm_exit/format" or
 * "saved_cmdlines" (malloc'd, NUL-terminated; len may be NULL), or NULL. Read
 * through a directory fd opened by live_new(): it works after tracefs was
 * unmounted (umount -l) under a running collector.
 */
char *live_file_read(const struct live *c, const char *rel, size_t *len);
/* The same for a file of our instance ("trace_clock"): the clock our events were stamped with. */
char *live_instance_file_read(const struct live *c, const char *rel, size_t *len);
/* Text of per_cpu/cpuN/stats in the instance (malloc'd), or NULL. Read it before live_free(). */
char *live_cpu_stats(const struct live *c, int cpu);
/* overrun + dropped events summed over all CPUs, from the instance's stats. */
int live_lost(const struct live *c, uint64_t *lost);
/* Closes the readers first (rmdir fails with EBUSY while they are open), then removes the instance.
 */
void live_free(struct live *c);
/*
 * True while any thread of pid runs. A zombie counts as gone (kill(pid, 0)
 * still succeeds on it), a process whose main thread exited as alive.
 */
bool live_pid_alive(int32_t pid);
/*
 * The processes pid has now: children, theirs, and so on (one pass over
 * /proc). *out is malloc'd (free it); returns how many.
 */
size_t live_descendants(int32_t pid, int32_t **out);
/* The process (tgid) thread tid is in, from /proc, or -1 when it is gone. */
int32_t live_tgid_of(int32_t tid);
/*
 * The VM name of process pid (vmname.c): QEMU's `-name [guest=]NAME` on its
 * command line, else its comm. False when it is gone (or nameless).
 */
bool live_vm_name(int32_t pid, char *out, size_t len);
/* Thread tid's comm (/proc/TID/comm, no newline); false when it is gone or empty. */
bool live_comm_of(int32_t tid, char *out, size_t len);
/* The threads of process kpid (/proc/KPID/task: kernel ids); *tids malloc'd, 0 when gone. */
size_t live_threads(int32_t kpid, int32_t **tids);
/*
 * The vCPU id whose KVM_RUN thread tid is blocked in now (vmname.c), or -1
 * when it is not in KVM_RUN just now (running, in userspace) or gone.
 */
int32_t live_vcpu_of_thread(int32_t tid);
/* The vCPU ids process pid has fds of (anon_inode:kvm-vcpu:ID); *ids malloc'd. */
size_t live_vcpu_ids(int32_t pid, int32_t **ids);
/* The VM name QEMU's -name option gives in argv (the command record runs), or false. */
bool live_qemu_name(char *const *argv, int argc, char *out, size_t len);

/*
 * health.c: can collector c see KVM's exits? The kvm_exit or
 * kvm_userspace_exit tracepoint exists and is on in its instance, and the
 * host has KVM (live_kvm_host()). False with *why saying which.
 */
bool live_sees_kvm(const struct live *c, const char **why);
/* The host part of that: dev (/dev/kvm) or misc (/sys/class/misc/kvm) exists. */
bool live_host_has_kvm(const char *dev, const char *misc);
/*
 * Whether KVM works on this host: /dev/kvm, or (a container without it) the
 * kvm misc device the kernel registers only once KVM initialised. A kernel
 * whose kvm module did not bind (a guest without virtualisation) keeps its
 * kvm tracepoints but never fires them.
 */
bool live_kvm_host(void);
/* The one line that says so, naming who and what to run instead. */
int live_no_kvm_reason(const char *who, char *errbuf, size_t errlen);

/*
 * PID namespaces (live/pidns.c): tracing filters on, and events carry, the
 * kernel's pids. live_new() refuses a namespace whose /proc cannot show
 * them (-1 with the reason); live_kernel_pid() translates a pid as this
 * process sees it (identity outside a namespace; -1 with ESRCH when there is
 * no such process); live_kernel_self() is our own kernel pid, and
 * live_kernel_pid_exists() whether a kernel pid names a process.
 */
int live_pidns_check(char *errbuf, size_t errlen);
int live_kernel_pid(int32_t pid, int32_t *kpid);
int32_t live_kernel_self(void);
bool live_kernel_pid_exists(int32_t kpid);

/*
 * SIGINT/SIGTERM/SIGHUP set a stop flag, SIGCHLD a child flag. The signals are
 * blocked except while live_read() waits, so none is missed between a flag
 * check and the wait. A forked child must call live_signals_child() before
 * exec to get the normal mask back.
 */
int live_signals_install(void);
void live_signals_child(void);
bool live_stop_requested(void);
/* The stopping signal number, 0 if none. */
int live_stop_signal(void);
/* True once after each SIGCHLD. */
bool live_child_event(void);
/*
 * wait.c: SIGUSR1 as a trigger (the flight recorder's), delivered like the
 * stop signals only while waiting; live_usr1_taken() is true once per
 * signal. live_sleep() waits timeout_ms with that policy, no trace buffer
 * needed (it returns at once when a stop was asked for).
 */
int live_usr1_install(void);
bool live_usr1_taken(void);
void live_sleep(int timeout_ms);
/* The same, ended early when fd becomes readable (serve's scrape eventfd): 1 if it did. */
int live_sleep_on(int fd, int timeout_ms);

/*
 * meta.c: what a trace.dat's header needs of the collector's instance
 * (record at its end, the flight recorder at each save): the events'
 * formats, each CPU's stats, saved_cmdlines, the clock, the page and event
 * headers; m points into the rest.
 */
struct live_meta {
	struct dat_writer_meta m;
	struct dat_writer_format *forms;
	size_t nforms;
	char **stats, *cmdlines, *clock, *hpage, *hevent;
	int ncpus;
};
/* 0, or -1 with errbuf (live_meta_free() then too). */
int live_meta_gather(struct live *c, struct live_meta *s, char *errbuf, size_t errlen);
void live_meta_free(struct live_meta *s);

#endif
