// SPDX-License-Identifier: GPL-2.0
/*
 * rusage: run a command and write what it cost, for the benchmarks.
 *
 *   rusage [-o FILE] [-p PIDFILE] [--] COMMAND [ARGS...]
 *
 * Writes one line "wall_s user_s sys_s maxrss_kb status" to FILE (default
 * stderr). wall is CLOCK_MONOTONIC around fork..wait4; user and sys come
 * from wait4()'s rusage, which the kernel derives from the task's exact
 * runtime (microseconds here, against /usr/bin/time's 10 ms), threads and
 * waited-for children included. SIGINT, SIGTERM and SIGHUP are passed on
 * to the command (so a tracer stopped by the bench still prints and
 * exits); -p writes the command's pid to PIDFILE once it is started. The
 * exit status is the command's (128 + signal when a signal ended it).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

static volatile sig_atomic_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static double since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static double tv(const struct timeval *t)
{
	return (double)t->tv_sec + (double)t->tv_usec / 1e6;
}

static int usage(void)
{
	fprintf(stderr, "usage: rusage [-o FILE] [-p PIDFILE] [--] COMMAND [ARGS...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *pidfile = NULL;
	struct sigaction sa = {.sa_handler = forward};
	struct timespec t0;
	struct rusage ru;
	int opt, st, code;
	pid_t pid;
	FILE *f;

	while ((opt = getopt(argc, argv, "+o:p:")) != -1) {
		if (opt == 'o')
			out = optarg;
		else if (opt == 'p')
			pidfile = optarg;
		else
			return usage();
	}
	if (optind >= argc)
		return usage();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rusage: fork: %s\n", strerror(errno));
		return 127;
	}
	if (!pid) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "rusage: cannot run '%s': %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	child = pid;
	if (pidfile && (f = fopen(pidfile, "w"))) {
		fprintf(f, "%d\n", (int)pid);
		fclose(f);
	}
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "rusage: wait4: %s\n", strerror(errno));
			return 127;
		}
	code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	f = out ? fopen(out, "w") : stderr;
	if (!f) {
		fprintf(stderr, "rusage: cannot write '%s': %s\n", out, strerror(errno));
		return 127;
	}
	fprintf(f, "%.6f %.6f %.6f %ld %d\n", since(&t0), tv(&ru.ru_utime), tv(&ru.ru_stime),
		ru.ru_maxrss, code);
	if (f != stderr)
		fclose(f);
	return code;
}
