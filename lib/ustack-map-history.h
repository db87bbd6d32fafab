/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: what the side-band (and, on the deferred path, the
 * task events of the instance) said so far about each task's name and
 * each process's executable mappings. The session feeds it in time order
 * with the trace events, so that at each event it holds the picture as
 * it was when the event happened.
 */
#ifndef _USTACK_MAP_HISTORY_H
#define _USTACK_MAP_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ustack.h"

struct ustack_map_history;
struct ustack_sb_rec;
struct ustack_tasks;

struct ustack_map_history *ustack_map_history_new(void);
struct ustack_map_history *ustack_map_history_new_on(struct ustack_tasks *tasks);
void ustack_map_history_free(struct ustack_map_history *h);

int ustack_map_history_add(struct ustack_map_history *h, const struct ustack_sb_rec *rec);
int ustack_map_history_set_comm(struct ustack_map_history *h, int tid, const char *comm);

const char *ustack_map_history_comm(const struct ustack_map_history *h, int tid);
bool ustack_map_history_has_maps(const struct ustack_map_history *h);
void ustack_map_history_map(struct ustack_map_history *h, int tgid, uint64_t va,
			struct ustack_frame *fr);
void ustack_map_history_map_stack(struct ustack_map_history *h, int tgid, const uint64_t *va,
			      struct ustack_frame *fr, unsigned int nr);
size_t ustack_map_history_files(const struct ustack_map_history *h);
uint64_t ustack_map_history_work(const struct ustack_map_history *h);
int ustack_map_history_check(const struct ustack_map_history *h);
void ustack_map_history_use(struct ustack_map_history *h, int tgid);
char **ustack_map_history_procmaps(const struct ustack_map_history *h);

#endif /* _USTACK_MAP_HISTORY_H */
