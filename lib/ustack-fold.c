// SPDX-License-Identifier: LGPL-2.1
/*
 * Aggregation of folded stacks: stack string -> count, printed sorted by
 * the stack string like the stackcollapse-* tools do.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-array.h"
#include "ustack-fold.h"
#include "ustack-hash.h"
#include "ustack-text.h"

struct ustack_fold_line {
	struct ustack_hnode	node;
	char			*stack;
	uint64_t		count;
};

struct ustack_fold {
	struct ustack_htable	stacks;
	/* the stack being built */
	char			*buf;
	size_t			len;
	size_t			alloc;
};

/**
 * ustack_fold_new - create an empty aggregation
 */
struct ustack_fold *ustack_fold_new(void)
{
	return calloc(1, sizeof(struct ustack_fold));
}

/**
 * ustack_fold_free - free an aggregation
 * @f: the aggregation (may be NULL)
 */
void ustack_fold_free(struct ustack_fold *f)
{
	struct ustack_hnode *pos, *tmp;
	struct ustack_fold_line *e;
	size_t i;

	if (!f)
		return;
	ustack_hash_table_for_each_safe(&f->stacks, i, pos, tmp) {
		e = ustack_hash_table_entry(pos, struct ustack_fold_line, node);
		free(e->stack);
		free(e);
	}
	ustack_hash_table_release(&f->stacks);
	free(f->buf);
	free(f);
}

static int buf_reserve(struct ustack_fold *f, size_t more)
{
	return ustack_array_grow((void **)&f->buf, &f->alloc, f->len + more + 1, 1);
}

/*
 * Names go into a line format, escaped as for a terminal (ustack-text.h:
 * control characters would break lines), and ';' separates frames: it
 * becomes ':', as stackcollapse-perf does (no escape has one). @len is
 * @s's length, room for 4 times that is reserved (each byte may become
 * "\xNN").
 */
static void put_clean(struct ustack_fold *f, const char *s, size_t len)
{
	char *p = f->buf + f->len, *semi;
	size_t n;

	n = ustack_text_escape(p, 4 * len + 1, s, len, USTACK_TEXT_TERM);
	f->len += n;
	for (semi = memchr(p, ';', n); semi; semi = memchr(semi, ';', p + n - semi))
		*semi = ':';
}

/**
 * ustack_fold_push - append a frame to the stack being built
 * @f:		the aggregation
 * @name:	frame name; escaped for a terminal (ustack-text.h), ';'
 *		replaced
 * @suffix:	annotation appended (e.g. "_[k]"), or NULL
 *
 * Frames are pushed root (outermost) first. Returns 0 or -1 (no memory;
 * the stack being built is then dropped at commit).
 */
int ustack_fold_push(struct ustack_fold *f, const char *name, const char *suffix)
{
	size_t len = strlen(name), slen = suffix ? strlen(suffix) : 0;

	/* escaped, a byte takes 4 at most */
	if (buf_reserve(f, 4 * (len + slen) + 2))
		return -1;
	if (f->len)
		f->buf[f->len++] = ';';
	put_clean(f, name, len);
	if (suffix)
		put_clean(f, suffix, slen);
	return 0;
}

/* Drop the stack being built. */
static void fold_abort(struct ustack_fold *f)
{
	f->len = 0;
	if (f->buf)
		f->buf[0] = '\0';
}

/* Add @count to the line @stack (frames root first joined by ';'). */
static struct ustack_fold_line *fold_add(struct ustack_fold *f, const char *stack, size_t len,
				 uint64_t count)
{
	uint64_t hash = ustack_hash_mem(stack, len, 0);
	struct ustack_hnode *pos;
	struct ustack_fold_line *e;

	ustack_hash_table_for_each_hash(&f->stacks, pos, hash) {
		e = ustack_hash_table_entry(pos, struct ustack_fold_line, node);
		if (!strcmp(e->stack, stack)) {
			e->count += count;
			return e;
		}
	}
	e = malloc(sizeof(*e));
	if (!e)
		return NULL;
	e->stack = strdup(stack);
	e->count = count;
	if (!e->stack || ustack_hash_table_add(&f->stacks, &e->node, hash)) {
		free(e->stack);
		free(e);
		return NULL;
	}
	return e;
}

/**
 * ustack_fold_commit_line - count the stack built with ustack_fold_push()
 * @f:		the aggregation
 * @count:	weight to add
 *
 * Returns the line it was counted in, for ustack_fold_count(), or NULL
 * when the stack was empty or memory ran out. The line lives as long as
 * @f.
 */
struct ustack_fold_line *ustack_fold_commit_line(struct ustack_fold *f, uint64_t count)
{
	struct ustack_fold_line *e = NULL;

	if (f->len)
		e = fold_add(f, f->buf, f->len, count);
	fold_abort(f);
	return e;
}

/**
 * ustack_fold_commit - count the stack built with ustack_fold_push()
 * @f:		the aggregation
 * @count:	weight to add
 *
 * An empty stack is not counted. Returns 0 or -1.
 */
int ustack_fold_commit(struct ustack_fold *f, uint64_t count)
{
	bool empty = !f->len;

	return ustack_fold_commit_line(f, count) || empty ? 0 : -1;
}

/**
 * ustack_fold_count - add to a line counted before
 * @line:	what ustack_fold_commit_line() returned for it
 * @count:	weight to add
 */
void ustack_fold_count(struct ustack_fold_line *line, uint64_t count)
{
	line->count += count;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct ustack_fold_line *x = *(const struct ustack_fold_line * const *)a;
	const struct ustack_fold_line *y = *(const struct ustack_fold_line * const *)b;

	return strcmp(x->stack, y->stack);
}

/**
 * ustack_fold_print - print "stack count" lines sorted by stack
 * @f:	the aggregation
 * @fp:	where to
 *
 * Returns 0, or -1 on allocation or write failure.
 */
int ustack_fold_print(struct ustack_fold *f, FILE *fp)
{
	struct ustack_hnode *pos, *tmp;
	struct ustack_fold_line **v;
	size_t i, n = 0;
	int ret = 0;

	v = malloc((f->stacks.nr ? f->stacks.nr : 1) * sizeof(*v));
	if (!v)
		return -1;
	ustack_hash_table_for_each_safe(&f->stacks, i, pos, tmp)
		v[n++] = ustack_hash_table_entry(pos, struct ustack_fold_line, node);
	qsort(v, n, sizeof(*v), ent_cmp);
	for (i = 0; i < n; i++)
		if (fprintf(fp, "%s %llu\n", v[i]->stack,
			    (unsigned long long)v[i]->count) < 0)
			ret = -1;
	free(v);
	return ret;
}
