// SPDX-License-Identifier: GPL-2.0
/*
 * libtracecmd trusts the files it opens. A trace.dat whose header is corrupt
 * can crash it inside tracecmd_open(): 3.1.6 calls tracecmd_close() on the
 * half-built handle when tracecmd_init_data() fails, and that dereferences
 * NULL (found by tests/fuzz/fuzz_input.c, input saved under
 * tests/fixtures/bad/input/). A trace.dat is something people mail each
 * other and this tool runs as root, so the open is tried first in a child
 * process: a child that dies or fails means the file is refused with one
 * line, and the library never sees it in our process. Costs one fork and a
 * header parse (about a millisecond).
 *
 * The library trusts the pages too (a corrupt commit crashes kbuffer), so
 * when libtracecmd is to read the records (compressed files, buffer
 * instances, options that move timestamps; not the fast path, which checks
 * every page itself) the child reads them all first: the cost of reading the
 * file twice, for such files only.
 *
 * The child reads the caller's fd, the same bytes the parent then reads: the
 * caller passes a file nobody else can change (input_stable_fd()), so the
 * child's verdict holds for the parent's read. A path opened again could be
 * another file by then.
 *
 * A command that reads its inputs and exits may let the child carry on
 * (tracedat_probe_carry_on()): where the probe is an open only (the fast
 * path), the child's open is the one that counts, and once it worked the
 * child is the command while the parent only waits and passes on its exit
 * status and the signals sent to it. libtracecmd then opens the file once,
 * not twice, and what it does to the process still happens in a child.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <trace-cmd/trace-cmd.h>
#include "alloc.h"
#include "err.h"
#include "knobs.h"
#include "tracedat-local.h"
#include "input.h"
#include "tracedat.h"

static int count(struct tracecmd_input *h, struct tep_record *r, int cpu, void *arg)
{
	(*(unsigned long long *)arg)++;
	return 0;
}

/* Every record of every buffer, as tracedat_iterate() reads them: 0, or -1. */
static int read_all(struct tracecmd_input *h)
{
	int nbuf = tracecmd_buffer_instances(h), n = 0;
	struct tracecmd_input **all = xcalloc((size_t)(nbuf > 0 ? nbuf : 0) + 1, sizeof(*all));
	unsigned long long records = 0;

	all[n++] = h;
	for (int i = 0; i < nbuf; i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(h, i);
		if (b)
			all[n++] = b;
	}
	int ret = tracecmd_iterate_events_multi(all, n, count, &records) < 0 ? -1 : 0;

	free(all);
	return ret;
}

/*
 * How much CPU time the child may take: libtracecmd reads a real file at
 * tens of MB/s (1.4 M zstd events in 0.34 s), so 2 MiB/s is slack, while a
 * 12 KB crafted zstd file on which it loops (reads and seeks: CPU time) is
 * stopped after 5 s, not the minute a fixed limit gave it. CPU time, not
 * wall: a machine loaded with other work stretches the wall time of a good
 * file's open (a CI rehearsal's lab host, under TCG and two kernel builds,
 * refused a 2 MB-of-formats trace.dat at 5 s of wall), not its CPU time.
 * A child that neither ends nor spends CPU is stopped by the wall clock at
 * PROBE_WALL_FACTOR times as long.
 */
#define PROBE_WALL_FACTOR 12
static unsigned probe_seconds(int fd, uint64_t bytes)
{
	/* KES_PROBE_SECONDS=N (knobs.h): the base instead of 5 s */
	unsigned asked = knobs_get()->probe_seconds;
	unsigned base = asked ? asked : TRACEDAT_PROBE_SECONDS;
	struct stat st;
	uint64_t size = fstat(fd, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
	uint64_t extra = (bytes > size ? bytes : size) / TRACEDAT_PROBE_BYTES_PER_S;

	return base + (unsigned)(extra < 3600 ? extra : 3600);
}

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM, SIGPROF};
#define NCRASH (sizeof(crash_signals) / sizeof(crash_signals[0]))

/* What quiet() changed, for loud() to put back: a child that carries on. */
struct loudness {
	int out, err; /* dups of stdout and stderr, -1: they were closed */
	sigset_t mask;
	struct sigaction crash[NCRASH];
};

/* fd's duplicate, -1 when fd is closed; -2 with errno when none could be had. */
static int keep_fd(int fd)
{
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);

	return d < 0 && errno != EBADF ? -2 : d;
}

/* The child's CPU-time limit and its wall-clock backstop; 0: both off. */
static void limit(unsigned seconds)
{
	struct itimerval cpu = {.it_value = {.tv_sec = seconds}};

	setitimer(ITIMER_PROF, &cpu, NULL);
	alarm(seconds * PROBE_WALL_FACTOR);
}

/*
 * The child before libtracecmd sees the file: its complaints into
 * /dev/null (it printf()s some: not into our report), crashes and a hang
 * (SIGPROF after seconds of CPU time, SIGALRM after PROBE_WALL_FACTOR times
 * as many of wall: a real header parses in milliseconds) are the default deaths the
 * parent reads. old: where to keep what it was, or NULL. 0, or an errno
 * with nothing changed: a shortage of descriptors is said by the parent.
 * (A child that carried on with stderr at /dev/null, having failed to keep
 * it, was the command with nowhere to say what failed next: with
 * `ulimit -n 8`, report exited 1 and printed nothing.)
 */
static int quiet(unsigned seconds, struct loudness *old)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t none;

	if (null < 0)
		return errno;
	if (old) {
		old->out = keep_fd(STDOUT_FILENO);
		old->err = old->out == -2 ? -2 : keep_fd(STDERR_FILENO);
		if (old->out == -2 || old->err == -2) {
			int e = errno;

			if (old->out >= 0)
				close(old->out);
			close(null);
			return e;
		}
	}
	dup2(null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	close(null);
	sigemptyset(&dfl.sa_mask);
	for (size_t i = 0; i < NCRASH; i++)
		sigaction(crash_signals[i], &dfl, old ? &old->crash[i] : NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, old ? &old->mask : NULL);
	limit(seconds);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	return 0;
}

/* fd as it was: saved's file, or closed (-1: it was closed). */
static void back(int saved, int fd)
{
	if (saved < 0) {
		close(fd);
		return;
	}
	dup2(saved, fd);
	close(saved);
}

/* quiet() undone, in a child that carries on. */
static void loud(struct loudness *old)
{
	limit(0);
	for (size_t i = 0; i < NCRASH; i++)
		sigaction(crash_signals[i], &old->crash[i], NULL);
	sigprocmask(SIG_SETMASK, &old->mask, NULL);
	back(old->out, STDOUT_FILENO);
	back(old->err, STDERR_FILENO);
}

/* A child's exit status for "could not go quiet: errno e" (the parent says it). */
#define EXIT_NO_QUIET(e) (64 + ((e) > 0 && (e) < 64 ? (e) : 0))

/* The child: quiet, exit 0 only if the open (and read) worked. */
static void probe_child(int fd, int flags, bool iterate, unsigned seconds)
{
	struct tracecmd_input *h;

	int e = quiet(seconds, NULL);

	if (e)
		_exit(EXIT_NO_QUIET(e));
	/* The fd's offset is the parent's too: it seeks back before its own open. */
	if (lseek(fd, 0, SEEK_SET) < 0 || !(h = tracecmd_open_fd(fd, flags)))
		_exit(1);
	/* Not closed: closing can crash too, and _exit() frees it all. */
	_exit(iterate && read_all(h) < 0 ? 2 : 0);
}

/* The one line for a child's status that is not a clean 0 (probe or carry-on). */
static int refusal(int status, bool iterate, unsigned seconds, char *errbuf, size_t errlen)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) >= 64 && WEXITSTATUS(status) < 128)
		return err_buf(errbuf, errlen, "cannot check the file: the checking process: %s",
			       WEXITSTATUS(status) > 64 ? strerror(WEXITSTATUS(status) - 64)
							: "no descriptors left");
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
		return err_buf(errbuf, errlen,
				  "corrupt trace data: libtracecmd cannot read its records");
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGPROF)
		return err_buf(errbuf, errlen,
			       "corrupt trace.dat: libtracecmd did not finish %s it in %u s of CPU time",
			       iterate ? "reading" : "opening", seconds);
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		return err_buf(errbuf, errlen,
			       "corrupt trace.dat: libtracecmd did not finish %s it in %u s",
			       iterate ? "reading" : "opening", seconds * PROBE_WALL_FACTOR);
	if (WIFSIGNALED(status) && iterate)
		return err_buf(errbuf, errlen,
				  "corrupt trace.dat: libtracecmd crashes reading it (signal %d)",
				  WTERMSIG(status));
	return err_buf(errbuf, errlen, "not a readable trace.dat (corrupt or truncated)");
}

/* waitpid() through EINTR: 0, or -1 with errno. */
static int reap(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

int tracedat_probe(int fd, int flags, bool iterate, uint64_t bytes, char *errbuf, size_t errlen)
{
	unsigned seconds = probe_seconds(fd, bytes);
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return err_buf_errno(errbuf, errlen, "cannot check the file: fork");
	if (pid == 0)
		probe_child(fd, flags, iterate, seconds);
	if (reap(pid, &status) < 0)
		return err_buf_errno(errbuf, errlen, "cannot check the file: waitpid");
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return refusal(status, iterate, seconds, errbuf, errlen);
}

/* ------------------------------------------------------------------------ */
/* Carrying on: see the top of this file. */

static bool carry_on;
static struct guard {
	int said;	/* the child's end of the pipe: a byte on it = the open worked */
	struct loudness old;
} guard = {.said = -1};
static volatile sig_atomic_t relay_pid;

void tracedat_probe_carry_on(void)
{
	carry_on = true;
}

static void pass_on(int sig)
{
	kill((pid_t)relay_pid, sig);
}

/*
 * Dies as the child died: the shell, a test or `timeout` see the status
 * they would have seen of one process. Its core, if any, is the child's.
 */
static _Noreturn void die_as(int sig)
{
	struct rlimit none = {0, 0};
	sigset_t one;

	setrlimit(RLIMIT_CORE, &none);
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	_exit(128 + sig);
}

/*
 * The parent, once the child's open worked: waits, passing on the signals
 * one sends a command (a terminal's reach the child too: twice is as once
 * for the default actions report and diff keep), then exits with the
 * child's status. _exit(): what this process buffered or holds is the
 * child's to write or free.
 */
static _Noreturn void relay(pid_t child)
{
	static const int passed[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2};
	struct sigaction sa = {.sa_handler = pass_on, .sa_flags = SA_RESTART};
	sigset_t none;
	int status;

	relay_pid = child;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(passed) / sizeof(passed[0]); i++)
		sigaction(passed[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (reap(child, &status) < 0)
		_exit(1);
	if (WIFSIGNALED(status))
		die_as(WTERMSIG(status));
	_exit(WEXITSTATUS(status));
}

/*
 * The parent: the child's word (relay() for good: a 0 byte; an errno
 * byte: it could not keep its stdout and stderr), or its refusal.
 */
static int hear(pid_t child, int said, unsigned seconds, char *errbuf, size_t errlen)
{
	unsigned char word;
	ssize_t n;
	int status;

	while ((n = read(said, &word, 1)) < 0 && errno == EINTR)
		;
	close(said);
	if (n == 1 && !word)
		relay(child);
	if (reap(child, &status) < 0)
		return err_buf_errno(errbuf, errlen, "cannot check the file: waitpid");
	if (n == 1)
		return err_buf(errbuf, errlen, "cannot check the file: the checking process: %s",
			       strerror(word));
	return refusal(status, false, seconds, errbuf, errlen);
}

int tracedat_guard_begin(int fd, uint64_t bytes, char *errbuf, size_t errlen)
{
	unsigned seconds = probe_seconds(fd, bytes);
	pid_t parent = getpid(), pid;
	int p[2];

	if (!carry_on)
		return 0;
	carry_on = false; /* once: each carrying-on child is a process more */
	if (pipe2(p, O_CLOEXEC) < 0)
		return err_buf_errno(errbuf, errlen, "cannot check the file: pipe");
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return err_buf_errno(errbuf, errlen, "cannot check the file: fork");
	}
	if (pid > 0) {
		close(p[1]);
		return hear(pid, p[0], seconds, errbuf, errlen);
	}
	close(p[0]);
	/* the parent killed (SIGKILL, which it cannot pass on): the command with it */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	guard.said = p[1];
	int e = quiet(seconds, &guard.old);

	if (e) { /* the parent says it: this child's stderr is the command's, but not for long */
		if (write(guard.said, &(unsigned char){(unsigned char)(e < 256 ? e : EIO)}, 1) < 0)
			_exit(1);
		_exit(1);
	}
	return 1;
}

void tracedat_guard_fail(void)
{
	_exit(1);
}

void tracedat_guard_end(void)
{
	loud(&guard.old);
	if (write(guard.said, &(unsigned char){0}, 1) != 1)
		_exit(1); /* the parent is gone: PR_SET_PDEATHSIG's SIGKILL is on its way */
	close(guard.said);
	guard.said = -1;
}
