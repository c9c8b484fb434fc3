// SPDX-License-Identifier: GPL-2.0
/*
 * Waiting without a trace buffer to wait on (top --stats, serve's KVM
 * statistics, the flight recorder, which reads nothing until a trigger),
 * with the collector's signal policy (signals.c): the stop signals, and
 * SIGUSR1 where a trigger was asked for, are delivered only while we wait,
 * so a flag is never missed between its check and the wait.
 */
#include <poll.h>
#include <signal.h>
#include <time.h>
#include "live-local.h"
#include "live.h"

static volatile sig_atomic_t usr1;

static void on_usr1(int sig)
{
	(void)sig;
	usr1 = 1;
}

int live_usr1_install(void)
{
	struct sigaction sa = {.sa_handler = on_usr1};
	sigset_t block;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) < 0)
		return -1;
	/* blocked but while waiting: the wait mask (signals.c) predates this block */
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	return sigprocmask(SIG_BLOCK, &block, NULL);
}

bool live_usr1_taken(void)
{
	if (!usr1)
		return false;
	usr1 = 0;
	return true;
}

void live_sleep(int timeout_ms)
{
	struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};

	if (timeout_ms <= 0 || live_stop_requested())
		return;
	ppoll(NULL, 0, &ts, live_wait_mask());
}

int live_sleep_on(int fd, int timeout_ms)
{
	struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
	struct pollfd p = {.fd = fd, .events = POLLIN};

	if (timeout_ms <= 0 || live_stop_requested())
		return 0;
	return ppoll(&p, 1, &ts, live_wait_mask()) > 0;
}
