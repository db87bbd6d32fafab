// SPDX-License-Identifier: LGPL-2.1
/*
 * --top: the events per function, as perf report --stdio --children and
 * go tool pprof -top count them. A row is per the sort keys (the
 * function by default; its file, the task name, the event, or several of
 * them); its self count is that of the stacks whose leaf it is (the
 * innermost frame: an inlined call when there is one), its total that of
 * the stacks it is anywhere in, each stack counted once however often it
 * recurses. Percentages are of every event of the profile. Rows are
 * sorted by self, then total, then name.
 *
 * A writer of the profile, self-contained: top_open(), top_add() for each
 * distinct stack, top_close() prints and frees.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-array.h"
#include "ustack-hash.h"
#include "ustack-profile-int.h"
#include "ustack-text.h"

#define KEY_UNUSED	UINT32_MAX	/* a key the rows are not per */
#define COLUMN_MAX	40		/* key columns wider are not padded */

/*
 * A row: its keys as string ids (the function's name and annotation,
 * its file, the task name) or the event's index, each KEY_UNUSED when
 * the rows are not per it. @frame is a frame of the row, for the names.
 */
struct trow {
	struct ustack_hnode	node;
	uint32_t		key[USTACK_SORT_NR + 1];
	uint32_t		frame;
	uint64_t		self;
	uint64_t		total;
	uint32_t		seen;	/* the last stack counted in total, + 1 */
};

struct top {
	const struct ustack_profile	*p;
	struct ustack_top_opts		o;
	bool				key_on[USTACK_SORT_NR];
	struct ustack_htable		hash;
	struct trow			**rows;
	size_t				nr, alloc;
	uint32_t			stacks;	/* added so far */
	bool				failed;
};

static struct top *top_open(const struct ustack_profile *p, const struct ustack_top_opts *o)
{
	struct top *t = calloc(1, sizeof(*t));
	unsigned int i;

	if (!t)
		return NULL;
	t->p = p;
	if (o)
		t->o = *o;
	if (!t->o.nr_keys) {
		t->o.keys[0] = USTACK_SORT_SYM;
		t->o.nr_keys = 1;
	}
	for (i = 0; i < t->o.nr_keys && i < USTACK_SORT_NR; i++)
		t->key_on[t->o.keys[i]] = true;
	return t;
}

static void top_free(struct top *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free(t->rows[i]);
	free(t->rows);
	ustack_hash_table_release(&t->hash);
	free(t);
}

/*
 * A frame's file: its path's string id, or for those without one a code
 * for what ustack_profile_dso() names them, past every string id
 */
static uint32_t dso_key(const struct ustack_profile *p, const struct pframe *f)
{
	const char *name;

	if (f->dso)
		return f->dso;
	name = ustack_profile_dso(p, f);
	if (!strcmp(name, "[kernel.kallsyms]"))
		return KEY_UNUSED - 1;
	return !strcmp(name, "[jit]") ? KEY_UNUSED - 2 : KEY_UNUSED - 3;
}

/*
 * The keys of a frame of @st. An inlined call is its function: "_[i]"
 * is left out of the name, as pprof merges a function's inlined and
 * called instances; kernel and JIT frames keep theirs.
 */
static void row_key(const struct top *t, const struct pstack *st, const struct pframe *f,
		    uint32_t *key)
{
	const struct ustack_profile *p = t->p;
	bool inl = f->suffix && !strcmp(pstr(p, f->suffix), "_[i]");

	memset(key, 0xff, (USTACK_SORT_NR + 1) * sizeof(*key));
	if (t->key_on[USTACK_SORT_SYM]) {
		key[0] = f->name;
		key[USTACK_SORT_NR] = inl ? 0 : f->suffix;
	}
	if (t->key_on[USTACK_SORT_DSO])
		key[1] = dso_key(p, f);
	if (t->key_on[USTACK_SORT_COMM])
		key[2] = st->comm;
	if (t->key_on[USTACK_SORT_EVENT])
		key[3] = st->event;
}

static struct trow *row_get(struct top *t, const uint32_t *key, uint32_t frame)
{
	size_t len = (USTACK_SORT_NR + 1) * sizeof(*key);
	uint64_t hash = ustack_hash_mem(key, len, 0);
	struct ustack_hnode *pos;
	struct trow *r;

	ustack_hash_table_for_each_hash(&t->hash, pos, hash) {
		r = ustack_hash_table_entry(pos, struct trow, node);
		if (!memcmp(r->key, key, len))
			return r;
	}
	r = calloc(1, sizeof(*r));
	if (!r || ustack_array_grow((void **)&t->rows, &t->alloc, t->nr + 1, sizeof(*t->rows)) ||
	    ustack_hash_table_add(&t->hash, &r->node, hash)) {
		free(r);
		t->failed = true;
		return NULL;
	}
	memcpy(r->key, key, len);
	r->frame = frame;
	t->rows[t->nr++] = r;
	return r;
}

/* One distinct stack: its leaf's row gets self, every row in it total */
static void top_add(struct top *t, const struct pstack *st)
{
	const struct ustack_profile *p = t->p;
	const uint32_t *locs = &p->stack_locs[st->first_loc];
	uint32_t key[USTACK_SORT_NR + 1], i, j, frame;
	const struct ploc *l;
	struct trow *r;
	bool leaf = true;

	t->stacks++;
	for (i = 0; i < st->nr_locs && !t->failed; i++) {
		l = p->locs[locs[i]];
		for (j = 0; j < l->nr_lines; j++) {
			frame = p->lines[l->first_line + j].frame;
			row_key(t, st, p->frames[frame], key);
			r = row_get(t, key, frame);
			if (!r)
				return;
			if (leaf)
				r->self += st->count;
			leaf = false;
			if (r->seen != t->stacks) {
				r->seen = t->stacks;
				r->total += st->count;
			}
		}
	}
}

/* ------------------------------------------------------------------ */
/* Printing                                                           */
/* ------------------------------------------------------------------ */

/* The text of key column @k of row @r */
static const char *column_text(const struct top *t, const struct trow *r,
			       enum ustack_sort_key k, char *buf, size_t size)
{
	const struct ustack_profile *p = t->p;
	const struct pframe *f = p->frames[r->frame];

	switch (k) {
	case USTACK_SORT_SYM:
		snprintf(buf, size, "%s%s", pstr(p, f->name),
			 r->key[USTACK_SORT_NR] ? pstr(p, f->suffix) : "");
		return buf;
	case USTACK_SORT_DSO:
		return ustack_profile_dso(p, f);
	case USTACK_SORT_COMM:
		return pstr(p, r->key[2]);
	case USTACK_SORT_EVENT:
		return pstr(p, p->events[r->key[3]].name);
	default:
		return "";
	}
}

static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct trow *x = *(const struct trow * const *)a;
	const struct trow *y = *(const struct trow * const *)b;
	const struct top *t = arg;
	char bx[512], by[512];
	unsigned int i;
	int c;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	for (i = 0; i < t->o.nr_keys; i++) {
		c = strcmp(column_text(t, x, t->o.keys[i], bx, sizeof(bx)),
			   column_text(t, y, t->o.keys[i], by, sizeof(by)));
		if (c)
			return c;
	}
	return 0;
}

static const char *key_title(enum ustack_sort_key k)
{
	static const char * const titles[USTACK_SORT_NR] = {
		[USTACK_SORT_SYM] = "function", [USTACK_SORT_DSO] = "file",
		[USTACK_SORT_COMM] = "task", [USTACK_SORT_EVENT] = "event",
	};

	return k < USTACK_SORT_NR ? titles[k] : "";
}

/* Width of each key column but the last: its widest text, up to a cap */
static void column_widths(const struct top *t, struct trow **rows, size_t nr, size_t *w)
{
	char buf[512];
	size_t i, len;
	unsigned int k;

	for (k = 0; k < t->o.nr_keys; k++) {
		w[k] = strlen(key_title(t->o.keys[k]));
		for (i = 0; i < nr; i++) {
			len = ustack_text_width(column_text(t, rows[i], t->o.keys[k], buf, sizeof(buf)),
						USTACK_TEXT_TERM);
			if (len > w[k])
				w[k] = len;
		}
		if (w[k] > COLUMN_MAX)
			w[k] = COLUMN_MAX;
	}
}

static int count_width(uint64_t n)
{
	int w = 1;

	while (n >= 10) {
		n /= 10;
		w++;
	}
	return w < 5 ? 5 : w;
}

static double percent(const struct top *t, uint64_t n)
{
	return t->p->samples ? 100.0 * n / t->p->samples : 0;
}

static void put_header(const struct top *t, const size_t *w, int cw, FILE *fp)
{
	unsigned int k;
	int len;

	fputs("# ", fp);
	ustack_profile_put_events(t->p, fp);
	fputs("\n# self: events in the function itself (the stack's leaf); total: in it\n"
	      "# or in what it called; percentages of the events shown\n#\n", fp);
	fprintf(fp, "#%7s  %7s  %*s  %*s", "self", "total", cw, "self", cw, "total");
	for (k = 0; k < t->o.nr_keys; k++) {
		len = fprintf(fp, "  %s", key_title(t->o.keys[k])) - 2;
		if (k + 1 < t->o.nr_keys && (size_t)len < w[k])
			fprintf(fp, "%*s", (int)(w[k] - len), "");
	}
	fputc('\n', fp);
}

static void put_row(const struct top *t, const struct trow *r, const size_t *w, int cw,
		    FILE *fp)
{
	char buf[512];
	unsigned int k;
	size_t len;

	fprintf(fp, "%7.2f%%  %6.2f%%  %*" PRIu64 "  %*" PRIu64, percent(t, r->self),
		percent(t, r->total), cw, r->self, cw, r->total);
	for (k = 0; k < t->o.nr_keys; k++) {
		fputs("  ", fp);
		len = ustack_profile_put_text(fp, column_text(t, r, t->o.keys[k], buf,
							      sizeof(buf)), SIZE_MAX);
		if (k + 1 < t->o.nr_keys && len < w[k])
			fprintf(fp, "%*s", (int)(w[k] - len), "");
	}
	fputc('\n', fp);
}

/* Print the rows and free @t; 0, or -1 with errno set */
static int top_close(struct top *t, FILE *fp)
{
	size_t w[USTACK_SORT_NR], nr = 0, limited = 0, i;
	int cw = count_width(t->p->samples), ret = -1;
	struct trow **shown = NULL;

	errno = ENOMEM;
	if (t->failed)
		goto out;
	shown = malloc((t->nr + 1) * sizeof(*shown));
	if (!shown)
		goto out;
	qsort_r(t->rows, t->nr, sizeof(*t->rows), row_cmp, t);
	for (i = 0; i < t->nr; i++) {
		if (percent(t, t->rows[i]->total) < t->o.percent_limit)
			limited++;
		else if (!t->o.max_rows || nr < t->o.max_rows)
			shown[nr++] = t->rows[i];
	}
	column_widths(t, shown, nr, w);
	put_header(t, w, cw, fp);
	for (i = 0; i < nr; i++)
		put_row(t, shown[i], w, cw, fp);
	if (limited)
		fprintf(fp, "# %zu row%s under --percent-limit %g%% left out\n", limited,
			limited == 1 ? "" : "s", t->o.percent_limit);
	if (t->nr - limited > nr)
		fprintf(fp, "# %zu more row%s (--top=%lu)\n", t->nr - limited - nr,
			t->nr - limited - nr == 1 ? "" : "s", t->o.max_rows);
	ret = 0;
	if (fflush(fp) || ferror(fp)) {
		errno = EIO;
		ret = -1;
	}
out:
	free(shown);
	top_free(t);
	return ret;
}

/**
 * ustack_top_write - print the table of functions of a profile
 * @p:		the profile
 * @opts:	its rows and how many (NULL: per function, all)
 * @fp:		where to
 *
 * Returns 0, or -1 with errno set (ENOMEM also when the profile ran out
 * of memory while samples came in, EIO on a write error).
 */
int ustack_top_write(const struct ustack_profile *p, const struct ustack_top_opts *opts,
		     FILE *fp)
{
	struct top *t;
	size_t i;

	errno = ENOMEM;
	if (p->failed)
		return -1;
	t = top_open(p, opts);
	if (!t)
		return -1;
	for (i = 0; i < p->nr_stacks; i++)
		top_add(t, p->stacks[i]);
	return top_close(t, fp);
}
