// SPDX-License-Identifier: GPL-2.0
/*
 * The terminal: curses mode in, and the terminal given back on every way
 * out. SIGINT/SIGTERM only set the collector's stop flag (endwin() is not
 * async-signal-safe), and the loop returns through ui_crt_done(); exit()
 * paths (xmalloc's) go through atexit. A crash cannot run curses either:
 * its handler restores the saved termios and writes the saved "leave the
 * alternate screen" and "show the cursor" strings with write(2), both
 * async-signal-safe, then the signal takes its default course (core dump)
 * thanks to SA_RESETHAND. SIGWINCH sets a flag; the loop resizes.
 */
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "ui-local.h"

static volatile sig_atomic_t resize_flag;
static bool active, atexit_set, have_termios;
static struct termios saved_termios;
static SCREEN *screen;
/* Terminal strings for the crash handler, copied while it is safe to. */
static char leave_seq[128];
static size_t leave_len;

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

static void on_winch(int sig)
{
	(void)sig;
	resize_flag = 1;
}

/* SA_RESETHAND put the default action back: raising again dies of sig, core and all. */
static void on_crash(int sig)
{
	if (have_termios)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
	if (leave_len && write(STDOUT_FILENO, leave_seq, leave_len) < 0) {
		/* nothing left to try */
	}
	raise(sig);
}

static void add_cap(const char *name)
{
	char *s = tigetstr(name);
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (leave_len + n < sizeof(leave_seq)) {
		memcpy(leave_seq + leave_len, s, n);
		leave_len += n;
	}
}

static void install(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

int ui_crt_init(char *errbuf, size_t errlen)
{
	const char *term = getenv("TERM");

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(errbuf, errlen, "the live view needs a terminal; use --once or --log");
		return -1;
	}
	have_termios = tcgetattr(STDIN_FILENO, &saved_termios) == 0;
	/* Ours before newterm(): curses then leaves SIGWINCH alone. */
	install(SIGWINCH, on_winch, 0);
	setlocale(LC_CTYPE, "");
	screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		snprintf(errbuf, errlen, "cannot use the terminal (TERM=%s)", term ? term : "");
		return -1;
	}
	set_term(screen);
	active = true;
	if (!atexit_set && atexit(ui_crt_done) == 0)
		atexit_set = true;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	add_cap("cnorm");
	add_cap("rmcup");
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		install(crash_signals[i], on_crash, SA_RESETHAND);
	return 0;
}

void ui_crt_done(void)
{
	if (!active)
		return;
	active = false;
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		install(crash_signals[i], SIG_DFL, 0);
	curs_set(1);
	endwin();
	delscreen(screen);
	screen = NULL;
	if (have_termios)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
	fflush(stdout);
}

bool ui_crt_resized(void)
{
	struct winsize ws;

	if (!resize_flag)
		return false;
	resize_flag = 0;
	if (active && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resize_term(ws.ws_row, ws.ws_col);
	/* The terminal has reflowed what was there: repaint all of it, once. */
	if (active)
		clearok(curscr, TRUE);
	return true;
}
