/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Folded stacks (FlameGraph / inferno / speedscope input): one line per
 * distinct stack, frames root first joined by ';', a space and a count.
 */
#ifndef _USTACK_FOLD_H
#define _USTACK_FOLD_H

#include <stdint.h>
#include <stdio.h>

struct ustack_fold;
struct ustack_fold_line;

struct ustack_fold *ustack_fold_new(void);
void ustack_fold_free(struct ustack_fold *f);

/* Build one stack: push frames root first, then commit it. */
int ustack_fold_push(struct ustack_fold *f, const char *name, const char *suffix);
int ustack_fold_commit(struct ustack_fold *f, uint64_t count);

/* The same, keeping the line: the next identical stack only counts. */
struct ustack_fold_line *ustack_fold_commit_line(struct ustack_fold *f, uint64_t count);
void ustack_fold_count(struct ustack_fold_line *line, uint64_t count);

int ustack_fold_print(struct ustack_fold *f, FILE *fp);

#endif /* _USTACK_FOLD_H */
