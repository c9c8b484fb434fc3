// SPDX-License-Identifier: GPL-2.0
/*
 * Signals for a collector: the handlers only set flags. The signals stay
 * blocked except inside live_read()'s ppoll(), so a signal that arrives
 * between a flag check and the wait is not missed (it interrupts the wait).
 *
 * SIGPIPE is ignored: a collector killed by it (`top --log | head`, a
 * closed stderr) would leave its tracefs instance behind. Writes to a
 * closed pipe then fail with EPIPE, and the caller stops and cleans up.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include "live-local.h"
#include "live.h"

static volatile sig_atomic_t stop_sig;
static volatile sig_atomic_t child_flag;
static sigset_t wait_mask; /* the mask to wait with: the caller's original one */
static sigset_t orig_mask;
static struct sigaction orig_pipe;
static bool installed;

static void on_stop(int sig)
{
	stop_sig = sig;
}

static void on_child(int sig)
{
	(void)sig;
	child_flag = 1;
}

int live_signals_install(void)
{
	static const int stops[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
		if (sigaction(stops[i], &sa, NULL) < 0)
			return -1;
		sigaddset(&block, stops[i]);
	}
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	if (sigaction(SIGCHLD, &sa, NULL) < 0)
		return -1;
	sa.sa_handler = SIG_IGN;
	sa.sa_flags = 0;
	if (sigaction(SIGPIPE, &sa, &orig_pipe) < 0)
		return -1;
	sigaddset(&block, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &block, &orig_mask) < 0)
		return -1;
	wait_mask = orig_mask;
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	sigdelset(&wait_mask, SIGHUP);
	sigdelset(&wait_mask, SIGCHLD);
	installed = true;
	return 0;
}

/*
 * Handlers are reset by exec, the mask and an ignored SIGPIPE are not: give
 * the child the caller's.
 */
void live_signals_child(void)
{
	struct sigaction sa;

	if (!installed)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGPIPE, &orig_pipe, NULL);
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
}

const sigset_t *live_wait_mask(void)
{
	return installed ? &wait_mask : NULL;
}

bool live_stop_requested(void)
{
	return stop_sig != 0;
}

int live_stop_signal(void)
{
	return stop_sig;
}

bool live_child_event(void)
{
	if (!child_flag)
		return false;
	child_flag = 0;
	return true;
}
