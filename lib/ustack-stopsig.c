// SPDX-License-Identifier: LGPL-2.1
/*
 * The stop signals (see ustack-stopsig.h).
 */
#include <pthread.h>
#include <signal.h>

#include "ustack-stopsig.h"

/**
 * ustack_stopsig_signals - fill @set with the stop signals
 * @set: the set (emptied first)
 */
void ustack_stopsig_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

/**
 * ustack_stopsig_block - hold off the stop signals in this thread
 * @old: the mask before, for pthread_sigmask(SIG_SETMASK, ...), or NULL
 *
 * Async-signal-safe (pthread_sigmask() only).
 */
void ustack_stopsig_block(sigset_t *old)
{
	sigset_t set;

	ustack_stopsig_signals(&set);
	pthread_sigmask(SIG_BLOCK, &set, old);
}
