// SPDX-License-Identifier: GPL-2.0
/*
 * The live collector: a private tracefs instance, the KVM events enabled in
 * it, a kernel-side pid filter, and per-CPU raw readers.
 *
 * Why this shape:
 * - Other software on the host traces too: everything happens inside
 *   instances/kvm-exitstat-<pid>; the top level is only read.
 * - The pid filter is set_event_pid + the event-fork option, so the kernel
 *   drops other VMs' events before they reach the buffer, and the vCPU
 *   threads a VMM creates later are followed.
 * - Pages are moved in bulk: spliced from trace_pipe_raw into a pipe of our
 *   own, then read out of it, all that one splice moved, in one read();
 *   woken by poll() on the trace_pipe_raw fds once buffer_percent of a CPU's
 *   buffer is used, and at least every tick. libtracefs's
 *   tracefs_cpu_buffered_read() does the same splice but reads its pipe a
 *   page per call: recording 1.4 M events (10,662 pages) took 10,893
 *   read()s, now 1,152 (strace -c, every read of the process). Partial
 *   pages at the end still come through tracefs_cpu_flush().
 *   tracefs_iterate_raw_events() reopens every per-CPU file per call
 *   (~90 us), so it is never used in a loop.
 * - tracefs can go away under a long run (umount -l, a mount namespace torn
 *   down): what is read or written after setup (tracing_on, the stats, the
 *   formats, the instance's removal) goes through a directory fd opened at
 *   setup, which keeps the mount reachable. Otherwise the instance would be
 *   left in the host's tracefs and the recording lost.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <tracefs.h>
#include "alloc.h"
#include "live-local.h"
#include "err.h"
#include "file.h"
#include "live.h"
#include "ring.h"

#define TRACEFS_DEFAULT "/sys/kernel/tracing"

struct live_cpu {
	int fd;
	struct tracefs_cpu *tcpu;
	int pipe[2]; /* full pages spliced from fd, not read yet */
	size_t held; /* bytes in the pipe: a read() of an empty one is a wasted syscall */
};

struct live {
	struct tracefs_instance *inst;
	int root_fd; /* the tracing directory (O_PATH) */
	char name[64];
	char **events; /* "system:event", enabled */
	size_t nevents;
	bool filter;   /* false: every process */
	int32_t *pids; /* the set_event_pid list (threads included) */
	size_t npids;
	int ncpus;
	size_t page_size;
	int long_size;	       /* of the page header's commit field */
	struct live_cpu *cpus; /* NULL until live_start() */
	struct pollfd *pfds;
	void *page;	  /* one page, for tracefs_cpu_flush() */
	unsigned char *buf; /* what one read() takes out of a CPU's pipe */
	size_t buf_len;
	bool idle;	  /* the last wake-up found no full page: do not spin on poll */
	int wait_cap_ms;  /* the longest wait between reads this buffer size allows */
	int buffer_pages; /* per CPU: the most one live_read() moves from a CPU */
	int wake_fd;	  /* ends live_read()'s wait when readable (live_set_wake_fd), or -1 */
};

static bool path_exists(const char *dir, const char *rel)
{
	char path[1024];

	if (snprintf(path, sizeof(path), "%s/%s", dir, rel) >= (int)sizeof(path))
		return false;
	return access(path, F_OK) == 0;
}

/* The tracefs mount point, mounting it when nothing is mounted there. */
static const char *tracing_dir(char *errbuf, size_t errlen)
{
	const char *dir;

	if (!path_exists(TRACEFS_DEFAULT, "events") &&
	    mount("nodev", TRACEFS_DEFAULT, "tracefs", 0, NULL) < 0 && errno != EBUSY) {
		err_buf_errno(errbuf, errlen, "cannot mount tracefs on %s", TRACEFS_DEFAULT);
		return NULL;
	}
	dir = tracefs_tracing_dir();
	if (!dir || !path_exists(dir, "events")) {
		err_buf(errbuf, errlen, "tracefs is not available (mount -t tracefs nodev %s)",
			TRACEFS_DEFAULT);
		return NULL;
	}
	return dir;
}

/* ------------------------------------------------------------------------ */
/* Stale instances: SIGKILL leaves "kvm-exitstat-<pid>" behind. */

static bool owner_gone(const char *name)
{
	size_t plen = strlen(LIVE_INSTANCE_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, LIVE_INSTANCE_PREFIX, plen))
		return false;
	pid = strtol(name + plen, &end, 10);
	/* "kvm-exitstat-<pid>" or a second one, "kvm-exitstat-<pid>-<tag>" */
	if (*end == '-' && end[1] && strspn(end + 1, "abcdefghijklmnopqrstuvwxyz") == strlen(end + 1))
		end += strlen(end);
	if (end == name + plen || *end || pid <= 0)
		return false;
	/* Our own pid: left by an earlier process that had it, never by us. */
	return pid == live_kernel_self() || !live_kernel_pid_exists((int32_t)pid);
}

/* Removes "kvm-exitstat-<pid>" instances whose owner is gone. Returns how many. */
static int reap_stale(void)
{
	const char *dir = tracefs_tracing_dir();
	char path[512];
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (!dir)
		return 0;
	snprintf(path, sizeof(path), "%s/instances", dir);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct tracefs_instance *inst;

		if (!owner_gone(de->d_name))
			continue;
		inst = tracefs_instance_alloc(NULL, de->d_name);
		if (!inst)
			continue;
		if (tracefs_instance_destroy(inst) == 0)
			n++;
		tracefs_instance_free(inst);
	}
	closedir(d);
	return n;
}

/* ------------------------------------------------------------------------ */
/* Events */

static void add_event(struct live *c, const char *sys, const char *ev)
{
	char name[256];

	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	for (size_t i = 0; i < c->nevents; i++)
		if (!strcmp(c->events[i], name))
			return;
	c->events = xrealloc(c->events, (c->nevents + 1) * sizeof(*c->events));
	c->events[c->nevents++] = xstrdup(name);
}

/* Expands "system:*", drops events this kernel lacks. */
static void resolve_event(struct live *c, const char *dir, const char *spec)
{
	const char *colon = strchr(spec, ':');
	char sys[128], rel[512];
	char **list;

	if (!colon || (size_t)(colon - spec) >= sizeof(sys))
		return;
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - spec), spec);
	if (strcmp(colon + 1, "*")) {
		snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, colon + 1);
		if (path_exists(dir, rel))
			add_event(c, sys, colon + 1);
		return;
	}
	list = tracefs_system_events(dir, sys);
	for (size_t i = 0; list && list[i]; i++)
		add_event(c, sys, list[i]);
	tracefs_list_free(list);
}

/* Does "system:event" match spec ("system:event" or "system:*")? */
static bool event_matches(const char *name, const char *spec)
{
	size_t n = strlen(spec);

	if (n >= 2 && !strcmp(spec + n - 2, ":*"))
		return !strncmp(name, spec, n - 1);
	return !strcmp(name, spec);
}

static void drop_events(struct live *c, const char *spec)
{
	size_t k = 0;

	for (size_t i = 0; i < c->nevents; i++) {
		if (event_matches(c->events[i], spec))
			free(c->events[i]);
		else
			c->events[k++] = c->events[i];
	}
	c->nevents = k;
}

/* Events asked for by name must exist: a typo must not record less in silence. */
static int resolve_extra(struct live *c, const char *dir, const struct live_opts *o, char *errbuf,
			 size_t errlen)
{
	for (size_t i = 0; i < o->nextra; i++) {
		size_t before = c->nevents;
		bool had = false;

		for (size_t j = 0; j < c->nevents && !had; j++)
			had = event_matches(c->events[j], o->extra[i]);
		resolve_event(c, dir, o->extra[i]);
		if (!had && c->nevents == before)
			return err_buf(errbuf, errlen, "no event '%s' in %s/events", o->extra[i], dir);
	}
	return 0;
}

/* Writes the enable file directly: tracefs_event_enable() takes regexes. From events[from]. */
static int enable_from(struct live *c, size_t from, char *errbuf, size_t errlen)
{
	for (size_t i = from; i < c->nevents; i++) {
		char rel[512];
		const char *colon = strchr(c->events[i], ':');

		snprintf(rel, sizeof(rel), "events/%.*s/%s/enable", (int)(colon - c->events[i]),
			 c->events[i], colon + 1);
		if (tracefs_instance_file_write(c->inst, rel, "1") < 0) {
			err_buf_errno(errbuf, errlen, "cannot enable %s", c->events[i]);
			return -1;
		}
	}
	return 0;
}

static int enable_events(struct live *c, char *errbuf, size_t errlen)
{
	return enable_from(c, 0, errbuf, errlen);
}

/* triggers_only: the events off again once the buffer is sized (configure()). */
static int disable_events(struct live *c)
{
	for (size_t i = 0; i < c->nevents; i++) {
		char rel[512];
		const char *colon = strchr(c->events[i], ':');

		snprintf(rel, sizeof(rel), "events/%.*s/%s/enable", (int)(colon - c->events[i]),
			 c->events[i], colon + 1);
		if (tracefs_instance_file_write(c->inst, rel, "0") < 0)
			return -1;
	}
	return 0;
}

int live_enable_more(struct live *c, const char *spec, char *errbuf, size_t errlen)
{
	const char *dir = tracefs_tracing_dir();
	size_t before = c->nevents;

	if (!dir)
		return err_buf(errbuf, errlen, "tracefs is not available");
	resolve_event(c, dir, spec);
	return enable_from(c, before, errbuf, errlen);
}

/* ------------------------------------------------------------------------ */
/* Pid filter */

static void add_tid(struct live *c, int32_t tid)
{
	for (size_t i = 0; i < c->npids; i++)
		if (c->pids[i] == tid)
			return;
	c->pids = xrealloc(c->pids, (c->npids + 1) * sizeof(*c->pids));
	c->pids[c->npids++] = tid;
}

/* A thread group by its kernel pid: it and the threads it already has. -1: no such process. */
static int add_threads(struct live *c, int32_t kpid)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)kpid);
	add_tid(c, kpid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			add_tid(c, (int32_t)atoi(de->d_name));
	closedir(d);
	return 0;
}

/*
 * A process (pid as this process sees it) and the threads it already has,
 * its children's too, by the kernel's pids (pidns.c: /proc shows those, or
 * live_new() refused); event-fork follows new ones.
 */
static int add_process(struct live *c, int32_t pid)
{
	int32_t kpid, *kids;
	size_t n;

	if (live_kernel_pid(pid, &kpid) < 0)
		return -1;
	if (add_threads(c, kpid) < 0 && !(kill(pid, 0) == 0 || errno == EPERM))
		return -1;
	/* event-fork follows only the forks to come: a VMM under a wrapper came before us */
	n = live_descendants(kpid, &kids);
	for (size_t i = 0; i < n; i++)
		add_threads(c, kids[i]);
	free(kids);
	return 0;
}

static int write_pid_filter(struct live *c)
{
	size_t cap = c->npids * 12 + 2, len = 0;
	char *buf = xmalloc(cap);
	int ret;

	buf[0] = 0;
	for (size_t i = 0; i < c->npids; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%d ", (int)c->pids[i]);
	/* The write replaces the list (O_TRUNC): always write all of it. */
	ret = tracefs_instance_file_write(c->inst, "set_event_pid", buf) < 0 ? -1 : 0;
	free(buf);
	return ret;
}

int live_add_pids(struct live *c, const int32_t *pids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (add_process(c, pids[i]) < 0) {
			errno = ESRCH;
			return -1;
		}
	return c->filter ? write_pid_filter(c) : 0;
}

/* ------------------------------------------------------------------------ */
/* Setup */

static int count_cpus(const struct live *c)
{
	char *path = tracefs_instance_get_file(c->inst, "per_cpu");
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = path ? opendir(path) : NULL;
	tracefs_put_tracing_file(path);
	if (!d)
		return (int)sysconf(_SC_NPROCESSORS_CONF);
	while ((de = readdir(d))) {
		int cpu;

		if (sscanf(de->d_name, "cpu%d", &cpu) == 1 && cpu + 1 > n)
			n = cpu + 1;
	}
	closedir(d);
	return n;
}

static int setup_page_size(struct live *c, char *errbuf, size_t errlen)
{
	int len = 0;
	char *hp = tracefs_instance_file_read(NULL, "events/header_page", &len);
	int ret = hp ? ring_header_parse(hp, (size_t)len, &c->page_size, &c->long_size) : -1;

	free(hp);
	if (ret < 0)
		err_buf(errbuf, errlen, "cannot parse tracefs events/header_page");
	return ret;
}

/*
 * The events are enabled before the buffer is sized, for the host's sake. On
 * kernels before 6.6 ("tracing: Fix unexpected ring buffer expand by
 * instance") one global flag says whether the ring buffers were expanded
 * from their boot minimum: writing any instance's buffer_size_kb sets it but
 * resizes only that instance, so the top-level buffer stayed at 7 KB for
 * good (plain ftrace then kept 178 of 9019 entries). Enabling an event
 * expands the top-level buffer to its configured size first, as any first
 * use of tracing does, and sets the flag; the resize after it is harmless.
 * The instance stays off (tracing_on 0), so nothing is recorded before
 * live_start().
 */
static int configure(struct live *c, const struct live_opts *o, char *errbuf, size_t errlen)
{
	char num[32];
	unsigned kb = o->buffer_kb ? o->buffer_kb : LIVE_DEFAULT_BUFFER_KB;

	/*
	 * Never sleep longer than a buffer of this size lasts at 16 MB/s (a busy
	 * VM's exits: 4 KB 1 ms, 64 KB 4 ms, 1 MB 64 ms; 4 MB: the caller's
	 * tick). Before 6.x kernels woke buffer_percent waiters reliably, a
	 * reader could sleep its whole tick in poll: -b 4 and -b 16 lost 96 %
	 * and 91 % of events at ~35 k events/s in Debian 6.1 (the lab).
	 */
	c->wait_cap_ms = (int)(kb / 16 ? kb / 16 : 1);
	c->buffer_pages = (int)(((size_t)kb * 1024 + c->page_size - 1) / c->page_size) + 1;

	/* A new instance traces at once: stay off until live_start(). */
	if (tracefs_trace_off(c->inst) < 0) {
		err_buf_errno(errbuf, errlen, "cannot set up tracefs instance %s", c->name);
		return -1;
	}
	if (enable_events(c, errbuf, errlen) < 0)
		return -1;
	/*
	 * Triggers only: the events are reserved in the buffer, handed to the
	 * triggers and discarded, the synthetic event nested in its entry
	 * event's: a new instance's boot-size buffer dropped 16 of 5,000 of
	 * them (the lab, Debian 6.1). So the buffer is sized all the same, the
	 * events enabled for that (see above) and disabled again: tracing is
	 * still off, nothing was recorded.
	 */
	if (o->triggers_only && !o->buffer_kb)
		kb = 256;
	if (tracefs_instance_set_buffer_size(c->inst, kb, -1) < 0) {
		err_buf_errno(errbuf, errlen, "cannot set the buffer size of tracefs instance %s",
			   c->name);
		return -1;
	}
	if (o->triggers_only && disable_events(c) < 0) {
		err_buf_errno(errbuf, errlen, "cannot set up tracefs instance %s", c->name);
		return -1;
	}
	/* Wake the reader when a tenth of a CPU's buffer is used, not half. */
	snprintf(num, sizeof(num), "%d", 10);
	tracefs_instance_file_write(c->inst, "buffer_percent", num);
	/* an old kernel without the option: the map just lacks those threads */
	if (o->record_tgid)
		tracefs_option_enable(c->inst, TRACEFS_OPTION_RECORD_TGID);
	if (c->filter) {
		if (tracefs_option_enable(c->inst, TRACEFS_OPTION_EVENT_FORK) < 0) {
			err_buf_errno(errbuf, errlen, "cannot enable the event-fork option");
			return -1;
		}
		for (size_t i = 0; i < o->npids; i++)
			if (add_process(c, o->pids[i]) < 0) {
				err_buf(errbuf, errlen, "no process %d", (int)o->pids[i]);
				return -1;
			}
		if (write_pid_filter(c) < 0) {
			err_buf_errno(errbuf, errlen, "cannot write set_event_pid");
			return -1;
		}
	}
	return 0;
}

int live_require(unsigned need, const char *who, char *errbuf, size_t errlen)
{
	const char *dir;
	char e[400];

	if ((need & LIVE_NEED_ROOT) && geteuid() != 0)
		return err_buf(errbuf, errlen, "%s needs root (tracefs)", who);
	if (!(need & (LIVE_NEED_TRACEFS | LIVE_NEED_KVM)))
		return 0;
	dir = tracing_dir(e, sizeof(e));
	if (!dir)
		return err_buf(errbuf, errlen, "%s: %s", who, e);
	if ((need & LIVE_NEED_KVM) && !path_exists(dir, "events/kvm"))
		return err_buf(errbuf, errlen,
			       "%s: no KVM tracepoints in %s/events (is the kvm module loaded?)", who,
			       dir);
	if ((need & LIVE_NEED_KVM_HOST) && !live_kvm_host())
		return live_no_kvm_reason(who, errbuf, errlen);
	return 0;
}

struct live *live_new(const struct live_opts *o, char *errbuf, size_t errlen)
{
	struct live *c;
	const char *dir;

	if (live_pidns_check(errbuf, errlen) < 0)
		return NULL;
	dir = tracing_dir(errbuf, errlen);
	if (!dir)
		return NULL;
	reap_stale();

	c = xcalloc(1, sizeof(*c));
	c->wake_fd = -1;
	c->root_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->root_fd < 0) {
		err_buf_errno(errbuf, errlen, "cannot open %s", dir);
		goto fail;
	}
	c->filter = o->pids != NULL;
	for (size_t i = 0; i < o->nevents; i++)
		resolve_event(c, dir, o->events[i]);
	if (resolve_extra(c, dir, o, errbuf, errlen) < 0)
		goto fail;
	for (size_t i = 0; i < o->ndrop; i++)
		drop_events(c, o->drop[i]);
	if (!c->nevents) {
		err_buf(errbuf, errlen, "none of the requested KVM events exists on this kernel");
		goto fail;
	}
	/* the kernel's pid: other recorders (in other namespaces) see the same number */
	snprintf(c->name, sizeof(c->name), LIVE_INSTANCE_PREFIX "%d%s%s", (int)live_kernel_self(),
		 o->tag ? "-" : "", o->tag ? o->tag : "");
	c->inst = tracefs_instance_create(c->name);
	if (!c->inst) {
		err_buf_errno(errbuf, errlen, "cannot create tracefs instance %s", c->name);
		goto fail;
	}
	c->ncpus = count_cpus(c);
	if (setup_page_size(c, errbuf, errlen) || configure(c, o, errbuf, errlen))
		goto fail;
	return c;
fail:
	live_free(c);
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Reading */

int live_start(struct live *c)
{
	long slots = 0;

	c->cpus = xcalloc((size_t)c->ncpus, sizeof(*c->cpus));
	/* one slot more: the wake fd's (live_set_wake_fd) */
	c->pfds = xcalloc((size_t)c->ncpus + 1, sizeof(*c->pfds));
	c->page = xmalloc(c->page_size);
	for (int i = 0; i < c->ncpus; i++) {
		c->cpus[i] = (struct live_cpu){.fd = -1, .pipe = {-1, -1}};
		c->pfds[i].fd = -1; /* an offline CPU's slot: poll() skips it */
	}
	for (int i = 0; i < c->ncpus; i++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", i);
		/* Own the fd (tracefs_cpu_alloc_fd) so that poll() can watch it. */
		c->cpus[i].fd = tracefs_instance_file_open(c->inst, rel, O_RDONLY | O_NONBLOCK);
		if (c->cpus[i].fd < 0)
			continue; /* an offline CPU has no buffer to read */
		c->cpus[i].tcpu = tracefs_cpu_alloc_fd(c->cpus[i].fd, (int)c->page_size, true);
		if (!c->cpus[i].tcpu || pipe2(c->cpus[i].pipe, O_NONBLOCK | O_CLOEXEC) < 0)
			return -1;
		slots = fcntl(c->cpus[i].pipe[0], F_GETPIPE_SZ) / sysconf(_SC_PAGESIZE);
		c->pfds[i].fd = c->cpus[i].fd;
		c->pfds[i].events = POLLIN;
	}
	/* a pipe holds a ring-buffer page per slot: 16 slots by default */
	c->buf_len = (size_t)(slots > 0 ? slots : 16) * c->page_size;
	c->buf = xmalloc(c->buf_len);
	return tracefs_trace_on(c->inst) < 0 ? -1 : 0;
}

/* "instances/<name>/rel", relative to root_fd. */
static void inst_path(const struct live *c, const char *rel, char *buf, size_t len)
{
	snprintf(buf, len, "instances/%s%s%s", c->name, rel ? "/" : "", rel ? rel : "");
}

static int trace_off(const struct live *c)
{
	char path[128];
	int fd, ret;

	inst_path(c, "tracing_on", path, sizeof(path));
	fd = openat(c->root_fd, path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = write(fd, "0", 1) == 1 ? 0 : -1;
	close(fd);
	return ret;
}

int live_stop(struct live *c)
{
	return trace_off(c);
}

/* Hands out the pages one read() took out of a CPU's pipe. */
static int hand_out(struct live *c, int cpu, size_t n, live_page_fn fn, void *arg)
{
	for (size_t off = 0; off < n; off += c->page_size) {
		size_t len = n - off < c->page_size ? n - off : c->page_size;

		if (fn(arg, cpu, c->buf + off, len) < 0)
			return -1;
	}
	return (int)((n + c->page_size - 1) / c->page_size);
}

/*
 * What the pipe holds, up to buf_len, in whole pages: 0 when it holds
 * nothing after all, else the bytes read, or -1. A page is one pipe
 * buffer, so a read ends inside one only when a signal cut it: the rest of
 * that page is read before it is handed out.
 */
static ssize_t read_pages(struct live *c, struct live_cpu *k)
{
	size_t want = k->held < c->buf_len ? k->held : c->buf_len, got = 0;

	while (got < want && (got == 0 || got % c->page_size)) {
		ssize_t n = read(k->pipe[0], c->buf + got, want - got);

		if (n > 0)
			got += (size_t)n;
		else if (n < 0 && errno == EINTR)
			continue;
		else if (n < 0 && errno == EAGAIN && !got)
			break; /* held was wrong: the pipe is empty */
		else
			return -1;
	}
	k->held = got ? k->held - got : 0;
	return (ssize_t)got;
}

/*
 * Moves the full pages of one CPU, stopping once max are moved (0: all);
 * splice gives only whole pages. The bound keeps a reader from
 * draining for ever while the CPU fills pages as fast as they are read:
 * `record -d` must see its deadline.
 */
static int drain_full(struct live *c, int cpu, int max, live_page_fn fn, void *arg)
{
	struct live_cpu *k = &c->cpus[cpu];
	int pages = 0;

	while (!max || pages < max) {
		ssize_t n;

		if (!k->held) {
			/* move what the CPU has filled into the pipe */
			n = splice(k->fd, NULL, k->pipe[1], NULL, c->buf_len,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				return -1;
			if (n <= 0)
				break;
			k->held = (size_t)n;
		}
		n = read_pages(c, k);
		if (n < 0)
			return -1;
		if (n == 0)
			continue;
		n = hand_out(c, cpu, (size_t)n, fn, arg);
		if (n < 0)
			return -1;
		pages += (int)n;
	}
	return pages;
}

static void wait_for_data(struct live *c, int timeout_ms)
{
	struct timespec ts;
	const sigset_t *mask = live_wait_mask();

	if (c->wait_cap_ms > 0 && timeout_ms > c->wait_cap_ms)
		timeout_ms = c->wait_cap_ms;
	ts = (struct timespec){timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};

	/*
	 * poll() reports a CPU readable when its buffer is buffer_percent full,
	 * or, for a buffer of a few pages, as soon as anything is there: then
	 * only sleep, or we would spin on a partial page that splice refuses.
	 */
	c->pfds[c->ncpus] = (struct pollfd){.fd = c->wake_fd, .events = POLLIN};
	if (c->idle)
		ppoll(&c->pfds[c->ncpus], 1, &ts, mask);
	else
		ppoll(c->pfds, (nfds_t)c->ncpus + 1, &ts, mask);
}

void live_set_wake_fd(struct live *c, int fd)
{
	c->wake_fd = fd;
}

int live_read(struct live *c, int timeout_ms, live_page_fn fn, void *arg)
{
	int total = 0;

	if (!c->cpus)
		return -1;
	if (!live_stop_requested())
		wait_for_data(c, timeout_ms);
	for (int i = 0; i < c->ncpus; i++) {
		int n;

		if (!c->cpus[i].tcpu)
			continue;
		n = drain_full(c, i, c->buffer_pages, fn, arg);
		if (n < 0)
			return -1;
		total += n;
	}
	c->idle = total == 0;
	return total;
}

int live_flush(struct live *c, live_page_fn fn, void *arg)
{
	int total = 0;

	if (!c->cpus)
		return 0;
	for (int i = 0; i < c->ncpus; i++) {
		int n;

		if (!c->cpus[i].tcpu)
			continue;
		/*
		 * Empty the splice pipe first: tracefs_cpu_flush() reads the
		 * trace_pipe_raw fd directly and would put pages out of order.
		 */
		n = drain_full(c, i, 0, fn, arg);
		if (n < 0)
			return -1;
		total += n;
		while ((n = tracefs_cpu_flush(c->cpus[i].tcpu, c->page)) > 0) {
			if (fn(arg, i, c->page, (size_t)n) < 0)
				return -1;
			total++;
		}
	}
	return total;
}

/* ------------------------------------------------------------------------ */
/* Facts and teardown */

struct tracefs_instance *live_tracefs_instance(const struct live *c)
{
	return c->inst;
}

const char *live_instance_name(const struct live *c)
{
	return c->name;
}

int live_ncpus(const struct live *c)
{
	return c->ncpus;
}

size_t live_page_size(const struct live *c)
{
	return c->page_size;
}

int live_long_size(const struct live *c)
{
	return c->long_size;
}

const char *const *live_events(const struct live *c, size_t *n)
{
	*n = c->nevents;
	return (const char *const *)c->events;
}

char *live_file_read(const struct live *c, const char *rel, size_t *len)
{
	int fd = openat(c->root_fd, rel, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	char *buf = NULL;

	if (fd < 0)
		return NULL;
	if (file_read_fd(fd, &buf, &n) < 0)
		buf = NULL;
	close(fd);
	if (len)
		*len = n;
	return buf;
}

char *live_instance_file_read(const struct live *c, const char *rel, size_t *len)
{
	char path[160];

	inst_path(c, rel, path, sizeof(path));
	return live_file_read(c, path, len);
}

char *live_cpu_stats(const struct live *c, int cpu)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", cpu);
	return live_instance_file_read(c, rel, NULL);
}

int live_lost(const struct live *c, uint64_t *lost)
{
	*lost = 0;
	for (int i = 0; i < c->ncpus; i++) {
		char *s = live_cpu_stats(c, i);

		if (!s)
			continue;
		*lost += ring_stats_lost(s);
		free(s);
	}
	return 0;
}

static void close_readers(struct live *c)
{
	if (!c->cpus)
		return;
	for (int i = 0; i < c->ncpus; i++) {
		if (c->cpus[i].tcpu)
			tracefs_cpu_free_fd(c->cpus[i].tcpu);
		for (int j = 0; j < 2; j++)
			if (c->cpus[i].pipe[j] >= 0)
				close(c->cpus[i].pipe[j]);
		if (c->cpus[i].fd >= 0)
			close(c->cpus[i].fd);
	}
	free(c->cpus);
	c->cpus = NULL;
}

void live_free(struct live *c)
{
	if (!c)
		return;
	close_readers(c);
	if (c->inst) {
		char path[128];

		trace_off(c);
		inst_path(c, NULL, path, sizeof(path));
		/* rmdir can race with the kernel releasing the last reader: retry. */
		for (int i = 0;
		     i < 50 && unlinkat(c->root_fd, path, AT_REMOVEDIR) < 0 && errno == EBUSY; i++)
			usleep(20000);
		tracefs_instance_free(c->inst);
	}
	if (c->root_fd >= 0)
		close(c->root_fd);
	for (size_t i = 0; i < c->nevents; i++)
		free(c->events[i]);
	free(c->events);
	free(c->pids);
	free(c->pfds);
	free(c->page);
	free(c->buf);
	free(c);
}
