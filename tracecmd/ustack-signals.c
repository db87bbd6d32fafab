// SPDX-License-Identifier: GPL-2.0
/*
 * Signals of a capture run. The first SIGINT/SIGTERM/SIGHUP asks the run
 * to stop (a flag and a pipe the main loop polls), a second one ends it
 * at once: whatever the main thread was doing (reading, writing the
 * trace.dat, removing files), the temporary files go, the command gets
 * SIGTERM, the instance is removed, and the process exits. The handler
 * does only async-signal-safe work: a flag, a write to a pipe, and on
 * the second signal unlink(), kill(), ustack_instance_abandon() and
 * _exit(). The three signals block each other while it runs: a third
 * one waits instead of cutting the second's cleanup short. The code the
 * second one interrupts never runs again: a file of the instance it
 * holds open (writing tracing_on, reading a stats file) is closed by
 * ustack_instance_abandon(), else the kernel would refuse to remove the
 * instance.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ustack-instance.h"
#include "ustack-stopsig.h"
#include "ustack-tempfile.h"
#include "ustack-cmd.h"

static struct ustack_instance *signal_ui;
static volatile pid_t signal_child;
static volatile sig_atomic_t stop_flag;
static int stop_pipe[2] = { -1, -1 };

/* A full pipe already says "stop": a failed write needs no handling. */
static void poke(void)
{
	char c = 0;
	ssize_t r;

	if (stop_pipe[1] >= 0)
		r = write(stop_pipe[1], &c, 1);
	(void)r;
}

static void on_signal(int sig)
{
	int saved = errno;

	if (!stop_flag) {
		stop_flag = 1;
		poke();
		errno = saved;
		return;
	}
	/* Second signal: the user means it. Leave nothing behind. */
	ustack_tempfile_unlink_all();
	if (signal_child > 0)
		kill(signal_child, SIGTERM);
	ustack_instance_abandon(signal_ui);
	_exit(128 + sig);
}

/**
 * ustack_signals_install - catch SIGINT, SIGTERM and SIGHUP for a run
 *
 * Also ignores SIGPIPE: a closed output pipe (| head) ends the run
 * through EPIPE instead.
 */
void ustack_signals_install(void)
{
	struct sigaction sa;

	if (stop_pipe[0] < 0 && pipe2(stop_pipe, O_NONBLOCK | O_CLOEXEC) < 0)
		stop_pipe[0] = stop_pipe[1] = -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	ustack_stopsig_signals(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/**
 * ustack_signals_child - the command a second signal sends SIGTERM to
 * @pid: its pid, or 0 once it is reaped (its pid may be reused)
 */
void ustack_signals_child(pid_t pid)
{
	signal_child = pid;
}

/**
 * ustack_signals_guard - the instance a second signal tears down
 * @ui: the instance, or NULL before it is freed (then a signal only exits)
 */
void ustack_signals_guard(struct ustack_instance *ui)
{
	signal_ui = ui;
}

bool ustack_stop_requested(void)
{
	return stop_flag;
}

int ustack_stop_fd(void)
{
	return stop_pipe[0];
}

void ustack_request_stop(void)
{
	stop_flag = 1;
	poke();
}

/**
 * ustack_test_stop - a named moment a test may hold the run at
 * @point: the moment's name
 *
 * With USTACK_TEST_STOP_AT=@point in the environment the process stops
 * itself here (SIGSTOP). Signals a test sends before its SIGCONT then
 * arrive at exactly this moment, not by the luck of timing: how a
 * second signal at the end of a run is tested
 * (tests/bats/signals-cleanup.bats). Without it, nothing.
 */
void ustack_test_stop(const char *point)
{
	const char *at = getenv("USTACK_TEST_STOP_AT");

	if (at && !strcmp(at, point))
		raise(SIGSTOP);
}
