// SPDX-License-Identifier: LGPL-2.1
/*
 * Aggregation of folded stacks: stack string -> count, printed sorted by
 * the stack string like the stackcollapse-* tools do.
 */
#include <stdlib.h>
#include <string.h>

#include "ustack-fold.h"

struct fold_ent {
	char		*stack;
	uint64_t	count;
	uint64_t	hash;
	struct fold_ent	*next;
};

struct ustack_fold {
	struct fold_ent	**buckets;
	size_t		nr_buckets;
	size_t		nr;
	/* the stack being built */
	char		*buf;
	size_t		len;
	size_t		alloc;
};

static uint64_t fold_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/**
 * ustack_fold_new - create an empty aggregation
 */
struct ustack_fold *ustack_fold_new(void)
{
	struct ustack_fold *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->nr_buckets = 1024;
	f->buckets = calloc(f->nr_buckets, sizeof(*f->buckets));
	if (!f->buckets) {
		free(f);
		return NULL;
	}
	return f;
}

/**
 * ustack_fold_free - free an aggregation
 * @f: the aggregation (may be NULL)
 */
void ustack_fold_free(struct ustack_fold *f)
{
	struct fold_ent *e, *next;
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nr_buckets; i++) {
		for (e = f->buckets[i]; e; e = next) {
			next = e->next;
			free(e->stack);
			free(e);
		}
	}
	free(f->buckets);
	free(f->buf);
	free(f);
}

static int buf_reserve(struct ustack_fold *f, size_t more)
{
	size_t n = f->alloc ? f->alloc : 256;
	char *p;

	if (f->len + more + 1 <= f->alloc)
		return 0;
	while (n < f->len + more + 1)
		n *= 2;
	p = realloc(f->buf, n);
	if (!p)
		return -1;
	f->buf = p;
	f->alloc = n;
	return 0;
}

/*
 * Names go into a line format: ';' separates frames (becomes ':', as
 * stackcollapse-perf does), control characters would break lines.
 */
static void put_clean(struct ustack_fold *f, const char *s)
{
	unsigned char ch;

	for (; (ch = *s); s++) {
		if (ch == ';')
			ch = ':';
		else if (ch < ' ' || ch == 0x7f)
			ch = '?';
		f->buf[f->len++] = ch;
	}
	f->buf[f->len] = '\0';
}

/**
 * ustack_fold_push - append a frame to the stack being built
 * @f:		the aggregation
 * @name:	frame name; ';' and control characters are replaced
 * @suffix:	annotation appended as is (e.g. "_[k]"), or NULL
 *
 * Frames are pushed root (outermost) first. Returns 0 or -1 (no memory;
 * the stack being built is then dropped at commit).
 */
int ustack_fold_push(struct ustack_fold *f, const char *name, const char *suffix)
{
	size_t need = strlen(name) + (suffix ? strlen(suffix) : 0) + 1;

	if (buf_reserve(f, need))
		return -1;
	if (f->len)
		f->buf[f->len++] = ';';
	put_clean(f, name);
	if (suffix)
		put_clean(f, suffix);
	return 0;
}

/**
 * ustack_fold_abort - drop the stack being built
 * @f: the aggregation
 */
void ustack_fold_abort(struct ustack_fold *f)
{
	f->len = 0;
	if (f->buf)
		f->buf[0] = '\0';
}

static void fold_rehash(struct ustack_fold *f)
{
	size_t nr = f->nr_buckets * 2, i;
	struct fold_ent **b, *e, *next;

	b = calloc(nr, sizeof(*b));
	if (!b)
		return;
	for (i = 0; i < f->nr_buckets; i++) {
		for (e = f->buckets[i]; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (nr - 1)];
			b[e->hash & (nr - 1)] = e;
		}
	}
	free(f->buckets);
	f->buckets = b;
	f->nr_buckets = nr;
}

/**
 * ustack_fold_add - count a ready-made stack line
 * @f:		the aggregation
 * @stack:	frames root first joined by ';' (no count)
 * @count:	weight to add
 *
 * Returns 0 or -1 on allocation failure.
 */
int ustack_fold_add(struct ustack_fold *f, const char *stack, uint64_t count)
{
	uint64_t h = fold_hash(stack);
	struct fold_ent *e;
	size_t b;

	for (e = f->buckets[h & (f->nr_buckets - 1)]; e; e = e->next) {
		if (e->hash == h && !strcmp(e->stack, stack)) {
			e->count += count;
			return 0;
		}
	}
	if (f->nr >= f->nr_buckets)
		fold_rehash(f);
	e = malloc(sizeof(*e));
	if (!e)
		return -1;
	e->stack = strdup(stack);
	if (!e->stack) {
		free(e);
		return -1;
	}
	e->count = count;
	e->hash = h;
	b = h & (f->nr_buckets - 1);
	e->next = f->buckets[b];
	f->buckets[b] = e;
	f->nr++;
	return 0;
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
	int ret = 0;

	if (f->len)
		ret = ustack_fold_add(f, f->buf, count);
	ustack_fold_abort(f);
	return ret;
}

/**
 * ustack_fold_nr - number of distinct stacks
 * @f: the aggregation
 */
size_t ustack_fold_nr(const struct ustack_fold *f)
{
	return f->nr;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct fold_ent *x = *(const struct fold_ent * const *)a;
	const struct fold_ent *y = *(const struct fold_ent * const *)b;

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
	struct fold_ent **v, *e;
	size_t i, n = 0;
	int ret = 0;

	v = malloc((f->nr ? f->nr : 1) * sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < f->nr_buckets; i++)
		for (e = f->buckets[i]; e; e = e->next)
			v[n++] = e;
	qsort(v, n, sizeof(*v), ent_cmp);
	for (i = 0; i < n; i++)
		if (fprintf(fp, "%s %llu\n", v[i]->stack,
			    (unsigned long long)v[i]->count) < 0)
			ret = -1;
	free(v);
	return ret;
}
