/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The stop signals: SIGINT, SIGTERM and SIGHUP end a run. The main thread
 * takes them (the library's threads block them), and the places a
 * handler must not see half done block them for a moment. The set is
 * defined here once.
 */
#ifndef _USTACK_STOPSIG_H
#define _USTACK_STOPSIG_H

#include <signal.h>

void ustack_stopsig_signals(sigset_t *set);
void ustack_stopsig_block(sigset_t *old);

#endif /* _USTACK_STOPSIG_H */
