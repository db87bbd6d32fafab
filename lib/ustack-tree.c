// SPDX-License-Identifier: LGPL-2.1
/*
 * --tree: the call tree of a profile as text, each line a function with
 * the share and count of the events whose stacks go through it there.
 * Caller trees start at the outermost frames and branch towards the
 * leaves; callee trees start at the leaves (the functions the events
 * were in) and branch towards their callers. The task names and events
 * may group the tree at its top (the sort keys comm and event); the
 * event is also the outermost frame of every stack in a profile with
 * event_root.
 *
 * Readable at 80 columns: a function whose parent has no other child (a
 * chain) is printed under it without indenting further, so that only
 * the branches indent (perf's call graphs do the same); children under
 * the percent limit are folded into one line per parent; a name too long
 * for its line is cut, ending in "...". Children are ordered by count,
 * then name.
 *
 * A writer of the profile, self-contained: tree_open(), tree_add() for
 * each distinct stack, tree_close() prints and frees.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-array.h"
#include "ustack-hash.h"
#include "ustack-profile-int.h"

#define PERCENT_DEFAULT	0.5
#define WIDTH_DEFAULT	80
#define NAME_MIN	20	/* a name keeps this much however deep its line */
#define NO_NODE		0	/* node 0 is the root, never a child */

enum tkind {
	TK_ROOT,
	TK_FRAME,		/* @key: a frame's name, @suffix its "_[k]" or
				 * "_[j]" (not "_[i]": an inlined call is its
				 * function), @dso its file */
	TK_COMM,		/* @key: the task name's string id */
	TK_EVENT,		/* @key: the event's index */
};

struct tnode {
	uint8_t		kind;
	uint32_t	key;
	uint32_t	suffix;
	uint32_t	dso;
	uint32_t	frame;	/* a frame of the node (TK_FRAME), for its names */
	uint32_t	parent;
	uint32_t	child;	/* first child */
	uint32_t	next;	/* next sibling */
	uint64_t	count;
};

struct tree {
	const struct ustack_profile	*p;
	struct ustack_tree_opts		o;
	bool				dso;	/* names carry their file */
	struct tnode			*nodes;
	size_t				nr, alloc;
	uint32_t			*slots;	/* open addressing: (parent, key) */
	size_t				nr_slots;
	uint32_t			*path;	/* of the stack being added */
	size_t				alloc_path;
	char				*prefix; /* the guides of the line printed */
	size_t				alloc_prefix;
	FILE				*fp;
	int				cw;	/* width of the counts */
	bool				failed;
};

static struct tree *tree_open(const struct ustack_profile *p, const struct ustack_tree_opts *o)
{
	struct tree *t = calloc(1, sizeof(*t));
	unsigned int i;

	if (!t)
		return NULL;
	t->p = p;
	if (o)
		t->o = *o;
	else
		t->o.percent_limit = -1;
	if (t->o.percent_limit < 0)
		t->o.percent_limit = PERCENT_DEFAULT;
	if (!t->o.width)
		t->o.width = WIDTH_DEFAULT;
	for (i = 0; i < t->o.nr_keys && i < USTACK_SORT_NR; i++)
		if (t->o.keys[i] == USTACK_SORT_DSO)
			t->dso = true;
	t->nodes = calloc(1, sizeof(*t->nodes));
	if (!t->nodes) {
		free(t);
		return NULL;
	}
	t->nr = t->alloc = 1;	/* the root */
	return t;
}

static void tree_free(struct tree *t)
{
	free(t->nodes);
	free(t->slots);
	free(t->path);
	free(t->prefix);
	free(t);
}

/* ------------------------------------------------------------------ */
/* Building                                                           */
/* ------------------------------------------------------------------ */

static uint64_t slot_hash(uint32_t parent, const struct tnode *k)
{
	uint64_t v[3] = { (uint64_t)parent << 32 | k->key, (uint64_t)k->suffix << 32 | k->dso,
			  k->kind };

	return ustack_hash_mem(v, sizeof(v), 0);
}

static bool same_node(const struct tnode *a, const struct tnode *b)
{
	return a->kind == b->kind && a->key == b->key && a->suffix == b->suffix &&
	       a->dso == b->dso;
}

static int slots_grow(struct tree *t)
{
	size_t n = t->nr_slots ? t->nr_slots * 2 : 1024, i, j;
	uint32_t *s = calloc(n, sizeof(*s));
	const struct tnode *x;

	if (!s)
		return -1;
	for (i = 1; i < t->nr; i++) {
		x = &t->nodes[i];
		j = slot_hash(x->parent, x) & (n - 1);
		while (s[j])
			j = (j + 1) & (n - 1);
		s[j] = i;
	}
	free(t->slots);
	t->slots = s;
	t->nr_slots = n;
	return 0;
}

/*
 * The child of @parent that is @k (kind, key, suffix, dso; @k->frame
 * names it), made when new; -1 when out of memory
 */
static int child_of(struct tree *t, uint32_t parent, const struct tnode *k)
{
	struct tnode *n;
	size_t j;

	if (2 * (t->nr + 1) > t->nr_slots && slots_grow(t))
		return -1;
	j = slot_hash(parent, k) & (t->nr_slots - 1);
	for (; t->slots[j]; j = (j + 1) & (t->nr_slots - 1)) {
		n = &t->nodes[t->slots[j]];
		if (n->parent == parent && same_node(n, k))
			return t->slots[j];
	}
	if (t->nr >= UINT32_MAX ||
	    ustack_array_grow((void **)&t->nodes, &t->alloc, t->nr + 1, sizeof(*t->nodes)))
		return -1;
	n = &t->nodes[t->nr];
	*n = *k;
	n->parent = parent;
	n->child = NO_NODE;
	n->count = 0;
	n->next = t->nodes[parent].child;
	t->nodes[parent].child = t->nr;
	t->slots[j] = t->nr;
	return t->nr++;
}

/* The frames of @st in the tree's order: outermost first, or leaf first */
static size_t stack_frames(struct tree *t, const struct pstack *st)
{
	const struct ustack_profile *p = t->p;
	const uint32_t *locs = &p->stack_locs[st->first_loc];
	const struct ploc *l;
	size_t n = 0, need = 0;
	uint32_t i, j, li;

	for (i = 0; i < st->nr_locs; i++)
		need += p->locs[locs[i]]->nr_lines;
	if (ustack_array_grow((void **)&t->path, &t->alloc_path, need + 1, sizeof(*t->path)))
		return SIZE_MAX;
	for (i = 0; i < st->nr_locs; i++) {
		/* leaf first: each location, its lines innermost first */
		l = p->locs[locs[t->o.callee ? i : st->nr_locs - 1 - i]];
		for (j = 0; j < l->nr_lines; j++) {
			li = t->o.callee ? j : l->nr_lines - 1 - j;
			t->path[n++] = p->lines[l->first_line + li].frame;
		}
	}
	return n;
}

/* The node a frame of a stack is: its function (and file) */
static void frame_node(const struct tree *t, uint32_t frame, struct tnode *k)
{
	const struct pframe *f = t->p->frames[frame];

	memset(k, 0, sizeof(*k));
	k->kind = TK_FRAME;
	k->key = f->name;
	if (f->suffix && strcmp(pstr(t->p, f->suffix), "_[i]"))
		k->suffix = f->suffix;
	k->dso = t->dso ? f->dso : 0;
	k->frame = frame;
}

/* One distinct stack, counted along its path: the groups, then its frames */
static void tree_add(struct tree *t, const struct pstack *st)
{
	size_t n = stack_frames(t, st), i;
	struct tnode k;
	int node = 0;

	if (n == SIZE_MAX || t->failed) {
		t->failed = true;
		return;
	}
	t->nodes[0].count += st->count;
	for (i = 0; i < t->o.nr_keys && node >= 0; i++) {
		memset(&k, 0, sizeof(k));
		if (t->o.keys[i] == USTACK_SORT_COMM) {
			k.kind = TK_COMM;
			k.key = st->comm;
		} else if (t->o.keys[i] == USTACK_SORT_EVENT) {
			k.kind = TK_EVENT;
			k.key = st->event;
		} else {
			continue;
		}
		node = child_of(t, node, &k);
		if (node >= 0)
			t->nodes[node].count += st->count;
	}
	for (i = 0; i < n && node >= 0; i++) {
		frame_node(t, t->path[i], &k);
		node = child_of(t, node, &k);
		if (node >= 0)
			t->nodes[node].count += st->count;
	}
	if (node < 0)
		t->failed = true;
}

/* ------------------------------------------------------------------ */
/* Printing                                                           */
/* ------------------------------------------------------------------ */

static double share(const struct tree *t, uint64_t n)
{
	return t->nodes[0].count ? 100.0 * n / t->nodes[0].count : 0;
}

/* What a line says of its node: the function (and file), task or event */
static const char *node_label(const struct tree *t, const struct tnode *n, char *buf,
			      size_t size)
{
	const struct ustack_profile *p = t->p;
	const struct pframe *f;

	switch (n->kind) {
	case TK_COMM:
		snprintf(buf, size, "[task %s]", pstr(p, n->key));
		return buf;
	case TK_EVENT:
		snprintf(buf, size, "[event %s]", pstr(p, p->events[n->key].name));
		return buf;
	case TK_FRAME:
		f = p->frames[n->frame];
		if (t->dso)
			snprintf(buf, size, "%s%s (%s)", pstr(p, f->name), pstr(p, n->suffix),
				 ustack_profile_dso(p, f));
		else
			snprintf(buf, size, "%s%s", pstr(p, f->name), pstr(p, n->suffix));
		return buf;
	default:
		return "";
	}
}

static int child_cmp(const void *a, const void *b, void *arg)
{
	const struct tree *t = arg;
	const struct tnode *x = &t->nodes[*(const uint32_t *)a];
	const struct tnode *y = &t->nodes[*(const uint32_t *)b];
	char bx[512], by[512];

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(node_label(t, x, bx, sizeof(bx)), node_label(t, y, by, sizeof(by)));
}

/* One line: share, count, the guides, the marker and the label */
static void put_line(struct tree *t, size_t depth, const char *marker, uint64_t count,
		     const char *label)
{
	size_t used = 8 + 2 + t->cw + 2 + depth + strlen(marker), room;

	room = used + NAME_MIN < t->o.width ? t->o.width - used : NAME_MIN;
	fprintf(t->fp, "%7.2f%%  %*" PRIu64 "  %.*s%s", share(t, count), t->cw, count,
		(int)depth, t->prefix, marker);
	ustack_profile_put_text(t->fp, label, room);
	fputc('\n', t->fp);
}

static int set_prefix(struct tree *t, size_t depth, const char *guide)
{
	if (ustack_array_grow((void **)&t->prefix, &t->alloc_prefix, depth + 4, 1))
		return -1;
	memcpy(t->prefix + depth, guide, 3);
	return 0;
}

/*
 * The children of @n as lines below it: at the same depth when there is
 * one line (a chain), else each behind "|--" ("`--" the last) and its
 * own children indented under its guide. Those under the limit make one
 * line of their own, last.
 */
static int put_children(struct tree *t, uint32_t n, size_t depth)
{
	uint64_t folded = 0, limit_hits = 0;
	uint32_t *kids = NULL, c;
	size_t nr = 0, alloc = 0, shown = 0, lines, i;
	char label[512], more[64];
	bool last;
	int ret = 0;

	for (c = t->nodes[n].child; c != NO_NODE; c = t->nodes[c].next) {
		if (ustack_array_grow((void **)&kids, &alloc, nr + 1, sizeof(*kids))) {
			free(kids);
			return -1;
		}
		kids[nr++] = c;
	}
	if (!nr)
		return 0;
	qsort_r(kids, nr, sizeof(*kids), child_cmp, t);
	for (i = 0; i < nr; i++) {
		if (share(t, t->nodes[kids[i]].count) < t->o.percent_limit) {
			folded += t->nodes[kids[i]].count;
			limit_hits++;
		} else {
			kids[shown++] = kids[i];
		}
	}
	lines = shown + (limit_hits ? 1 : 0);
	for (i = 0; i < shown && !ret; i++) {
		node_label(t, &t->nodes[kids[i]], label, sizeof(label));
		last = i + 1 == lines;
		if (lines == 1 && n != 0) {
			put_line(t, depth, "", t->nodes[kids[i]].count, label);
			ret = put_children(t, kids[i], depth);
		} else if (n == 0) {
			/* the roots: each a tree of its own, a blank line between */
			if (i)
				fputc('\n', t->fp);
			put_line(t, 0, "", t->nodes[kids[i]].count, label);
			ret = put_children(t, kids[i], 0);
		} else {
			put_line(t, depth, last ? "`--" : "|--", t->nodes[kids[i]].count, label);
			ret = set_prefix(t, depth, last ? "   " : "|  ");
			if (!ret)
				ret = put_children(t, kids[i], depth + 3);
		}
	}
	if (limit_hits && !ret) {
		snprintf(more, sizeof(more), "[%" PRIu64 " more, each under %g%%]", limit_hits,
			 t->o.percent_limit);
		if (n == 0 && shown)
			fputc('\n', t->fp);
		put_line(t, depth, n == 0 || lines == 1 ? "" : "`--", folded, more);
	}
	free(kids);
	return ret;
}

static void put_header(struct tree *t)
{
	FILE *fp = t->fp;

	fputs("# ", fp);
	ustack_profile_put_events(t->p, fp);
	fprintf(fp, "\n# call tree %s,\n# each line with its share of every "
		"event shown; branches under %g%% folded\n#\n",
		t->o.callee ? "from the leaves up to their callers (callee)" :
			      "from the outermost frames down to the leaves (caller)",
		t->o.percent_limit);
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

/* Print the tree and free @t; 0, or -1 with errno set */
static int tree_close(struct tree *t, FILE *fp)
{
	int ret = -1;

	errno = ENOMEM;
	t->fp = fp;
	t->cw = count_width(t->nodes[0].count);
	if (t->failed)
		goto out;
	put_header(t);
	if (put_children(t, 0, 0))
		goto out;
	ret = 0;
	if (fflush(fp) || ferror(fp)) {
		errno = EIO;
		ret = -1;
	}
out:
	tree_free(t);
	return ret;
}

/**
 * ustack_tree_write - print the call tree of a profile
 * @p:		the profile
 * @opts:	which way, its groups, what is folded (NULL: callers first,
 *		0.5%, 80 columns)
 * @fp:		where to
 *
 * Returns 0, or -1 with errno set (ENOMEM also when the profile ran out
 * of memory while samples came in, EIO on a write error).
 */
int ustack_tree_write(const struct ustack_profile *p, const struct ustack_tree_opts *opts,
		      FILE *fp)
{
	struct tree *t;
	size_t i;

	errno = ENOMEM;
	if (p->failed)
		return -1;
	t = tree_open(p, opts);
	if (!t)
		return -1;
	for (i = 0; i < p->nr_stacks && !t->failed; i++)
		tree_add(t, p->stacks[i]);
	return tree_close(t, fp);
}
