/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: how a stack source sets its mapping source up
 * (include/ustack-map-source.h says what each one is).
 */
#ifndef _USTACK_MAP_SOURCE_INT_H
#define _USTACK_MAP_SOURCE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "ustack-map-source.h"

struct ustack_instance;
struct ustack_perf_source_opts;

struct ustack_map_source *ustack_map_source_new(struct ustack_instance *ui,
						 const struct ustack_map_feed *feed);
int ustack_map_source_open_sideband(struct ustack_map_source *ms,
				    const struct ustack_perf_source_opts *src);
int ustack_map_source_open_snapshots(struct ustack_map_source *ms);
const char *ustack_map_source_no_perf(const struct ustack_map_source *ms);
void ustack_map_source_enable(struct ustack_map_source *ms);
void ustack_map_source_free(struct ustack_map_source *ms);

#endif /* _USTACK_MAP_SOURCE_INT_H */
