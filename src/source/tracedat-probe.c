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
 * header parse (about a millisecond; the event data is not read).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <trace-cmd/trace-cmd.h>
#include "source.h"

/* The child: quiet, default signal actions, exit 0 only if the open worked. */
static void probe_child(const char *path, int flags)
{
	static const int crash[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM};
	int fd = open("/dev/null", O_RDWR);
	sigset_t none;

	/* libtracecmd printf()s some of its complaints: not into our report. */
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
	}
	for (size_t i = 0; i < sizeof(crash) / sizeof(crash[0]); i++)
		signal(crash[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* A hang is as bad as a crash; a real header parses in milliseconds. */
	alarm(TRACEDAT_PROBE_SECONDS);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	/* Not closed: closing can crash too, and _exit() frees it all. */
	_exit(tracecmd_open(path, flags) ? 0 : 1);
}

int tracedat_probe(const char *path, int flags, char *errbuf, size_t errlen)
{
	pid_t pid = fork();
	int status;

	if (pid < 0) {
		snprintf(errbuf, errlen, "cannot check '%s': fork: %s", path, strerror(errno));
		return -1;
	}
	if (pid == 0)
		probe_child(path, flags);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			snprintf(errbuf, errlen, "cannot check '%s': waitpid: %s", path,
				 strerror(errno));
			return -1;
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	snprintf(errbuf, errlen, "'%s': not a readable trace.dat (corrupt or truncated)", path);
	return -1;
}
