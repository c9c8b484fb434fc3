// SPDX-License-Identifier: GPL-2.0
/*
 * A perf.data file (magic "PERFILE2", tools/perf/util/header.c) is read
 * through `perf script`, when perf is installed: its text is what the text
 * reader reads anyway, and Debian ships no libperf that decodes a recording
 * (libperf-dev is the counting API only). Without perf, one line says how
 * to convert it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include "err.h"
#include "input.h"
#include "knobs.h"
#include "term.h"

/* The perf to run: $KES_PERF (tests, knobs.h), else the first "perf" on $PATH; NULL when none. */
static const char *find_perf(char *buf, size_t len)
{
	const char *env = knobs_get()->perf, *path = getenv("PATH");

	if (env && *env)
		return access(env, X_OK) == 0 ? env : NULL;
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		if (n && (size_t)snprintf(buf, len, "%.*s/perf", (int)n, p) < len &&
		    access(buf, X_OK) == 0)
			return buf;
		p += n + (p[n] == ':');
	}
	return NULL;
}

/*
 * perf parses a file someone else may have crafted, as root: a file that
 * sends it into a loop must not hang report. Its CPU time is bounded
 * (SIGXCPU), far above what a real file needs (perf script runs at about
 * 1 M events/s here); $KES_PERF_CPU_S lowers it for the tests.
 */
#define PERF_CPU_S 900

static rlim_t cpu_limit(void)
{
	unsigned v = knobs_get()->perf_cpu_s;

	return v ? (rlim_t)v : PERF_CPU_S;
}

/* Runs perf script on fd (stdout to out, stderr to errfd); its exit status, 256 + the signal that killed it, or -1. */
static int run_script(const char *perf, int fd, int out, int errfd)
{
	struct rlimit cpu = {cpu_limit(), cpu_limit() + 5};
	char in[64];
	int status;
	pid_t pid;

	snprintf(in, sizeof(in), "/proc/self/fd/%d", fd);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);
		/* the input is open O_CLOEXEC: perf reads it through /proc/self/fd */
		if (nul < 0 || fcntl(fd, F_SETFD, 0) < 0 || dup2(nul, 0) < 0 || dup2(out, 1) < 0 ||
		    dup2(errfd, 2) < 0 || setrlimit(RLIMIT_CPU, &cpu) < 0)
			_exit(127);
		/* --ns: every digit of the time; the default fields are the ones text.c reads */
		execl(perf, "perf", "script", "--ns", "-i", in, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFSIGNALED(status) ? 256 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* The last line perf printed on stderr, for the error. */
static void last_line(int fd, char *buf, size_t len)
{
	char tail[256];
	off_t end = lseek(fd, 0, SEEK_END);
	off_t at = end > (off_t)sizeof(tail) - 1 ? end - (off_t)sizeof(tail) + 1 : 0;
	ssize_t n = pread(fd, tail, sizeof(tail) - 1, at);

	tail[n > 0 ? n : 0] = '\0';
	while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
		tail[--n] = '\0';
	const char *nl = strrchr(tail, '\n');
	char shown[256];

	/* perf's words about a hostile file may hold escape bytes: shown escaped */
	snprintf(buf, len, "%s", term_safe(nl ? nl + 1 : tail, shown, sizeof(shown)));
}

int input_perfdata_text(int fd, const char *path, char *errbuf, size_t errlen)
{
	char pbuf[4096], why[512];
	const char *perf = find_perf(pbuf, sizeof(pbuf));
	FILE *out, *errs;
	int ofd, efd, rc;

	if (!perf) {
		snprintf(errbuf, errlen,
			 "a perf.data file, and perf is not installed here: convert it with "
			 "`perf script --ns -i %s > %s.txt` (where perf is) and give that",
			 path, path);
		return -1;
	}
	if (!(out = tmpfile()) || !(errs = tmpfile())) {
		if (out)
			fclose(out);
		err_buf_errno(errbuf, errlen, "a perf.data file: no temporary file for perf script");
		return -1;
	}
	ofd = dup(fileno(out));
	efd = dup(fileno(errs));
	fclose(out);
	fclose(errs);
	rc = ofd < 0 || efd < 0 ? -1 : run_script(perf, fd, ofd, efd);
	if (rc == 256 + SIGXCPU || rc == 256 + SIGKILL) {
		/* SIGKILL: the hard limit, 5 s after SIGXCPU (or someone's kill -9) */
		snprintf(errbuf, errlen,
			 "a perf.data file: `%s script` was stopped after %llu s of CPU time "
			 "(a file that loops it?)", perf, (unsigned long long)cpu_limit());
	} else if (rc > 256) {
		snprintf(errbuf, errlen, "a perf.data file: `%s script` was killed by signal %d", perf,
			 rc - 256);
	} else if (rc != 0) {
		last_line(efd, why, sizeof(why));
		snprintf(errbuf, errlen, "a perf.data file: `%s script` failed (%s%s%s)", perf,
			 rc < 0 ? "did not run" : "exit status", rc < 0 ? "" : ": ",
			 rc < 0 ? "" : *why ? why : "no message");
	}
	if (rc != 0) {
		if (ofd >= 0)
			close(ofd);
		if (efd >= 0)
			close(efd);
		return -1;
	}
	close(efd);
	return ofd;
}
