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
 * caller passes a file nobody else can change (source_stable_fd()), so the
 * child's verdict holds for the parent's read. A path opened again could be
 * another file by then.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <trace-cmd/trace-cmd.h>
#include "alloc.h"
#include "err.h"
#include "source.h"

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
 * How long the child may take: libtracecmd reads a real file at tens of MB/s
 * (1.4 M zstd events in 0.34 s), so 2 MiB/s is slack for a loaded machine,
 * while a 12 KB crafted zstd file on which it loops is stopped after 5 s,
 * not the minute a fixed limit gave it.
 */
static unsigned probe_seconds(int fd)
{
	/* KES_PROBE_SECONDS=N: the base instead of 5 s (valgrind runs libtracecmd ~30x slower) */
	const char *env = getenv("KES_PROBE_SECONDS");
	int asked = env ? atoi(env) : 0;
	unsigned base = asked > 0 && asked <= 3600 ? (unsigned)asked : TRACEDAT_PROBE_SECONDS;
	struct stat st;
	uint64_t extra = fstat(fd, &st) == 0 && st.st_size > 0
				 ? (uint64_t)st.st_size / TRACEDAT_PROBE_BYTES_PER_S
				 : 0;

	return base + (unsigned)(extra < 3600 ? extra : 3600);
}

/* The child: quiet, default signal actions, exit 0 only if the open (and read) worked. */
static void probe_child(int fd, int flags, bool iterate, unsigned seconds)
{
	struct tracecmd_input *h;
	static const int crash[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM};
	int null = open("/dev/null", O_RDWR);
	sigset_t none;

	/* libtracecmd printf()s some of its complaints: not into our report. */
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	for (size_t i = 0; i < sizeof(crash) / sizeof(crash[0]); i++)
		signal(crash[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* A hang is as bad as a crash; a real header parses in milliseconds. */
	alarm(seconds);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	/* The fd's offset is the parent's too: it seeks back before its own open. */
	if (lseek(fd, 0, SEEK_SET) < 0 || !(h = tracecmd_open_fd(fd, flags)))
		_exit(1);
	/* Not closed: closing can crash too, and _exit() frees it all. */
	_exit(iterate && read_all(h) < 0 ? 2 : 0);
}

int tracedat_probe(int fd, int flags, bool iterate, char *errbuf, size_t errlen)
{
	unsigned seconds = probe_seconds(fd);
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return err_buf_errno(errbuf, errlen, "cannot check the file: fork");
	if (pid == 0)
		probe_child(fd, flags, iterate, seconds);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return err_buf_errno(errbuf, errlen, "cannot check the file: waitpid");
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
		return err_buf(errbuf, errlen,
				  "corrupt trace data: libtracecmd cannot read its records");
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		return err_buf(errbuf, errlen,
			       "corrupt trace.dat: libtracecmd did not finish %s it in %u s",
			       iterate ? "reading" : "opening", seconds);
	if (WIFSIGNALED(status) && iterate)
		return err_buf(errbuf, errlen,
				  "corrupt trace.dat: libtracecmd crashes reading it (signal %d)",
				  WTERMSIG(status));
	return err_buf(errbuf, errlen, "not a readable trace.dat (corrupt or truncated)");
}
