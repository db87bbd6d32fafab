/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * A tracing directory for libtracecmd's writer that is the real one plus
 * the formats of our own events (ustack-sample-event.h), with the files
 * that change while it reads them copied once.
 */
#ifndef _USTACK_TRACEDAT_OVERLAY_H
#define _USTACK_TRACEDAT_OVERLAY_H

#include <stdbool.h>

char *ustack_tracedat_overlay_make(bool sample);
void ustack_tracedat_overlay_remove(char *dir);

#endif /* _USTACK_TRACEDAT_OVERLAY_H */
