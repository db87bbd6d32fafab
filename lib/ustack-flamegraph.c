// SPDX-License-Identifier: LGPL-2.1
/*
 * An interactive flame graph: one self-contained SVG file.
 *
 * The stacks of the profile are merged into a tree (root "all", then the
 * event with event_root, the task name, then the frames outermost first;
 * leaf first with reverse), children ordered by name, each box as wide
 * as its samples. Boxes narrower than a threshold (0.1% of all samples by
 * default) are merged into one box per parent so that big profiles stay
 * small and fast to open; the subtitle says how many. Every box is drawn
 * by the file itself (it shows without scripts); the embedded script
 * (ustack-flamegraph.js) adds tooltips, click to zoom, reset and search.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-array.h"
#include "ustack-hash.h"
#include "ustack-render-int.h"
#include "ustack-profile-int.h"
#include "ustack-text.h"
#include "ustack-flamegraph-js.h"

#define FRAME_ROOT	UINT32_MAX
#define FRAME_MERGED	(UINT32_MAX - 1)
#define NO_NODE		0	/* node 0 is the root, never a child */

#define BOX_HEIGHT	16
#define TOP		78	/* title, subtitle, buttons, legend */
#define BOTTOM		28	/* the details line */
#define MARGIN		10
#define FONT_SIZE	12
#define CHAR_WIDTH	(FONT_SIZE * 0.59)
#define MAX_EVENTS	8	/* per-event counts in tooltips up to this many */
/*
 * Boxes narrower than this many pixels are drawn as part of one path per
 * class, not as elements of their own: tens of thousands of elements make
 * a browser slow to open the file, and a box that narrow cannot be
 * clicked anyway. The script makes them elements when a zoom widens them.
 */
#define SLIVER		3
#define SLIVER_CLASSES	(PF_CLASS_NR + 2)	/* and merged boxes, the root */

struct fnode {
	uint32_t	frame;	/* frame id, comm id + comm_base, FRAME_* */
	uint32_t	parent;
	uint32_t	child;	/* first child */
	uint32_t	next;	/* next sibling */
	uint32_t	depth;
	uint32_t	merged;	/* FRAME_MERGED: boxes it stands for; its
				 * children are theirs, kept for the search */
	uint64_t	count;
};

/* Slivers side by side, drawn as one rectangle */
struct sliver_run {
	double		start;
	double		end;
};

struct fgraph {
	const struct ustack_profile	*p;
	struct ustack_flamegraph_opts	opts;
	struct fnode			*nodes;
	size_t				nr, alloc_nodes;
	uint64_t			*ev;	/* ev_nodes * nr_ev counts, or NULL */
	size_t				nr_ev;
	size_t				ev_nodes; /* merged boxes come after */
	uint32_t			*slots;	/* open addressing: (parent, frame) */
	size_t				nr_slots;
	uint32_t			comm_base;
	uint32_t			max_depth;
	uint64_t			merged_boxes;
	uint64_t			merged_frames;
	uint32_t			*frame_map;	/* frame -> index in the JSON table */
	uint32_t			nr_used;
	FILE				*fp;
	/* written while the boxes are, put in the script at the end */
	FILE				*data;		/* BOXES */
	char				*data_buf;
	size_t				data_len;
	FILE				*ev_data;	/* EVC: per-event counts */
	char				*ev_buf;
	size_t				ev_len;
	FILE				*merged_data;	/* MERGED: box -> boxes */
	char				*merged_buf;
	size_t				merged_len;
	uint64_t			merged_put;
	FILE				*hidden_data;	/* HIDDEN: what they hold */
	char				*hidden_buf;
	size_t				hidden_len;
	struct sliver_run		*runs;		/* depth * classes */
	FILE				*sliver[SLIVER_CLASSES];
	char				*sliver_buf[SLIVER_CLASSES];
	size_t				sliver_len[SLIVER_CLASSES];
};

/* ------------------------------------------------------------------ */
/* The tree                                                           */
/* ------------------------------------------------------------------ */

static uint64_t slot_hash(uint32_t parent, uint32_t frame)
{
	return ustack_hash_u64((uint64_t)parent << 32 | frame);
}

static int slots_grow(struct fgraph *g)
{
	size_t n = g->nr_slots ? g->nr_slots * 2 : 1024, i, j;
	uint32_t *s = calloc(n, sizeof(*s));
	struct fnode *x;

	if (!s)
		return -1;
	for (i = 1; i < g->nr; i++) {
		x = &g->nodes[i];
		j = slot_hash(x->parent, x->frame) & (n - 1);
		while (s[j])
			j = (j + 1) & (n - 1);
		s[j] = i;
	}
	free(g->slots);
	g->slots = s;
	g->nr_slots = n;
	return 0;
}

static int node_new(struct fgraph *g, uint32_t parent, uint32_t frame)
{
	struct fnode *n;

	if (ustack_array_grow((void **)&g->nodes, &g->alloc_nodes, g->nr + 1, sizeof(*n)))
		return -1;
	n = &g->nodes[g->nr];
	memset(n, 0, sizeof(*n));
	n->frame = frame;
	n->parent = parent;
	if (g->nr) {
		n->depth = g->nodes[parent].depth + 1;
		n->next = g->nodes[parent].child;
		g->nodes[parent].child = g->nr;
		if (n->depth > g->max_depth)
			g->max_depth = n->depth;
	}
	return g->nr++;
}

/* The child of @parent for @frame, made when new; -1 when out of memory */
static int child_of(struct fgraph *g, uint32_t parent, uint32_t frame)
{
	size_t j;
	int n;

	if (2 * (g->nr + 1) > g->nr_slots && slots_grow(g))
		return -1;
	j = slot_hash(parent, frame) & (g->nr_slots - 1);
	for (; g->slots[j]; j = (j + 1) & (g->nr_slots - 1)) {
		n = g->slots[j];
		if (g->nodes[n].parent == parent && g->nodes[n].frame == frame)
			return n;
	}
	n = node_new(g, parent, frame);
	if (n >= 0)
		g->slots[j] = n;
	return n;
}

/* The frame of a pseudo location (one line) */
static uint32_t loc_frame(const struct ustack_profile *p, uint32_t loc)
{
	return p->lines[p->locs[loc]->first_line].frame;
}

/*
 * The frames of a stack in drawing order: root first (the event with
 * event_root, the task name, then the frames outermost first), or leaf
 * first (the same backwards)
 */
static size_t stack_path(const struct ustack_profile *p, const struct pstack *st,
			 uint32_t comm_frame, bool reverse, uint32_t *out)
{
	const uint32_t *locs = &p->stack_locs[st->first_loc];
	uint32_t i, j, nr = st->nr_locs;
	const struct ploc *l;
	size_t n = 0;

	/* the event's location is the outermost: it goes above the task */
	if (p->event_root && nr)
		nr--;
	if (!reverse && nr < st->nr_locs)
		out[n++] = loc_frame(p, locs[nr]);
	if (!reverse)
		out[n++] = comm_frame;
	for (i = 0; i < nr; i++) {
		/* leaf first: the location, and its lines innermost first */
		l = p->locs[locs[reverse ? i : nr - 1 - i]];
		for (j = 0; j < l->nr_lines; j++)
			out[n++] = p->lines[l->first_line +
					    (reverse ? j : l->nr_lines - 1 - j)].frame;
	}
	if (reverse)
		out[n++] = comm_frame;
	if (reverse && nr < st->nr_locs)
		out[n++] = loc_frame(p, locs[nr]);
	return n;
}

static size_t path_max(const struct ustack_profile *p, const struct pstack *st)
{
	const uint32_t *locs = &p->stack_locs[st->first_loc];
	size_t n = 1;
	uint32_t i;

	for (i = 0; i < st->nr_locs; i++)
		n += p->locs[locs[i]]->nr_lines;
	return n;
}

/*
 * Count a stack along its path; with per-event counts (@g->ev allocated,
 * second pass) only those are added.
 */
static int add_stack(struct fgraph *g, const struct pstack *st, uint32_t **path,
		     size_t *alloc)
{
	size_t n = path_max(g->p, st), i;
	int node = 0;

	if (ustack_array_grow((void **)path, alloc, n, sizeof(**path)))
		return -1;
	n = stack_path(g->p, st, g->comm_base + st->comm, g->opts.reverse, *path);
	for (i = 0; i <= n; i++) {
		if (i)
			node = child_of(g, node, (*path)[i - 1]);
		if (node < 0)
			return -1;
		if (g->ev)
			g->ev[node * g->nr_ev + st->event] += st->count;
		else
			g->nodes[node].count += st->count;
	}
	return 0;
}

static int build_tree(struct fgraph *g)
{
	const struct ustack_profile *p = g->p;
	uint32_t *path = NULL;
	size_t alloc = 0, i;
	int ret = 0;

	if (node_new(g, 0, FRAME_ROOT) < 0)
		return -1;
	for (i = 0; i < p->nr_stacks && !ret; i++)
		ret = add_stack(g, p->stacks[i], &path, &alloc);
	/* per-event counts: a second walk once the tree has its size */
	if (!ret && p->nr_events > 1 && p->nr_events <= MAX_EVENTS) {
		g->nr_ev = p->nr_events;
		g->ev_nodes = g->nr;
		g->ev = calloc(g->nr * g->nr_ev, sizeof(*g->ev));
		for (i = 0; g->ev && i < p->nr_stacks && !ret; i++)
			ret = add_stack(g, p->stacks[i], &path, &alloc);
	}
	free(path);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Order and merging                                                  */
/* ------------------------------------------------------------------ */

static const char *frame_name(const struct fgraph *g, uint32_t frame)
{
	const struct ustack_profile *p = g->p;

	if (frame == FRAME_ROOT)
		return "all";
	if (frame == FRAME_MERGED)
		return "";
	if (frame >= g->comm_base)
		return pstr(p, frame - g->comm_base);
	return pstr(p, p->frames[frame]->name);
}

static int frame_class(const struct fgraph *g, uint32_t frame)
{
	if (frame >= g->comm_base)
		return frame >= FRAME_MERGED ? PF_CLASS_NR : PF_COMM;
	return g->p->frames[frame]->cls;
}

/* By name, then class; the merged box last */
static int child_cmp(const void *a, const void *b, void *arg)
{
	const struct fgraph *g = arg;
	const struct fnode *x = &g->nodes[*(const uint32_t *)a];
	const struct fnode *y = &g->nodes[*(const uint32_t *)b];
	int r;

	if ((x->frame == FRAME_MERGED) != (y->frame == FRAME_MERGED))
		return x->frame == FRAME_MERGED ? 1 : -1;
	r = strcmp(frame_name(g, x->frame), frame_name(g, y->frame));
	if (r)
		return r;
	return frame_class(g, x->frame) - frame_class(g, y->frame);
}

static bool is_small(const struct fgraph *g, uint64_t count)
{
	return count * 1000 < g->nodes[0].count * g->opts.min_permille;
}

/*
 * Replace the small children of @n (two or more) with one merged box.
 * They become its children, never drawn but written for the search,
 * whose share must count their samples as a folded file does.
 */
static int merge_small(struct fgraph *g, uint32_t n, uint32_t *kids, size_t *nr)
{
	size_t i, keep = 0, small = 0;
	uint64_t sum = 0;
	int m;

	for (i = 0; i < *nr; i++)
		if (is_small(g, g->nodes[kids[i]].count))
			small++;
	if (small < 2)
		return 0;
	m = node_new(g, n, FRAME_MERGED);
	if (m < 0)
		return -1;
	for (i = 0; i < *nr; i++) {
		if (!is_small(g, g->nodes[kids[i]].count)) {
			kids[keep++] = kids[i];
			continue;
		}
		sum += g->nodes[kids[i]].count;
		g->nodes[kids[i]].next = g->nodes[m].child;
		g->nodes[m].child = kids[i];
	}
	g->nodes[m].count = sum;
	g->nodes[m].merged = small;
	g->merged_boxes++;
	g->merged_frames += small;
	kids[keep++] = m;
	*nr = keep;
	return 0;
}

/*
 * Merge the small children of @n, order the rest by name and do the same
 * below each of them.
 */
static int shape(struct fgraph *g, uint32_t n)
{
	uint32_t *kids = NULL, c;
	size_t nr = 0, alloc = 0, i;
	int ret = 0;

	for (c = g->nodes[n].child; c != NO_NODE; c = g->nodes[c].next) {
		if (ustack_array_grow((void **)&kids, &alloc, nr + 1, sizeof(*kids))) {
			free(kids);
			return -1;
		}
		kids[nr++] = c;
	}
	if (!nr)
		return 0;
	if (merge_small(g, n, kids, &nr)) {
		free(kids);
		return -1;
	}
	qsort_r(kids, nr, sizeof(*kids), child_cmp, g);
	g->nodes[n].child = kids[0];
	for (i = 0; i < nr; i++)
		g->nodes[kids[i]].next = i + 1 < nr ? kids[i + 1] : NO_NODE;
	for (i = 0; i < nr && !ret; i++)
		if (g->nodes[kids[i]].frame != FRAME_MERGED)
			ret = shape(g, kids[i]);
	free(kids);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Writing                                                            */
/* ------------------------------------------------------------------ */

/*
 * Strings of the trace are written as the SVG shows them (ustack-text.h):
 * valid UTF-8, U+FFFD for bytes that are not and for control characters
 * (XML 1.0 has no place for most of them, not even as &#x..;), both in
 * the SVG's text and in the script's data, which redraws the labels.
 */

/* @s as XML character data or attribute value */
static void put_xml(FILE *fp, const char *s)
{
	ustack_text_fput(fp, s, USTACK_TEXT_XML);
}

/*
 * @s as XML, at most @fit characters: cut with ".." (between characters)
 * when longer
 */
static void put_xml_fit(FILE *fp, const char *s, size_t fit)
{
	if (ustack_text_width(s, USTACK_TEXT_XML) <= fit) {
		put_xml(fp, s);
		return;
	}
	ustack_text_fput_chars(fp, s, fit > 2 ? fit - 2 : 0, USTACK_TEXT_XML);
	fputs("..", fp);
}

/* @s as a JSON string inside CDATA: no "]]>", no "</" either */
static void put_json(FILE *fp, const char *s)
{
	fputc('"', fp);
	ustack_text_fput(fp, s, USTACK_TEXT_JS);
	fputc('"', fp);
}

/*
 * FNV-1a (32 bits) of the name's bytes as the SVG shows it: the script
 * computes the same for the boxes it draws (the palette is in both too).
 */
static uint32_t name_hash(const char *name)
{
	char *shown = NULL;
	const unsigned char *c;
	uint32_t h = 2166136261U;

	if (!ustack_text_plain(name, USTACK_TEXT_UTF8))
		shown = ustack_text_dup(name, USTACK_TEXT_UTF8);
	c = (const unsigned char *)(shown ? shown : name);
	for (; *c; c++)
		h = (h ^ *c) * 16777619U;
	free(shown);
	return h;
}

/* One channel (@n: 0 red, 8 green, 4 blue) of an HSL colour, 0 to 255 */
static int hsl_channel(double hue, double sat, double lig, int n)
{
	double k = n + hue / 30, a = sat * (lig < 1 - lig ? lig : 1 - lig), m;

	while (k >= 12)
		k -= 12;
	m = k - 3 < 9 - k ? k - 3 : 9 - k;
	if (m > 1)
		m = 1;
	if (m < -1)
		m = -1;
	return (lig - a * m) * 255 + 0.5;
}

/*
 * The colours of the classes: hue base, hue range, saturation, lightness
 * base (percent). The script gets the table (CONF.palette).
 */
static const int palette[PF_CLASS_NR + 2][4] = {
	[PF_USER]	= { 2, 48, 85, 56 },	/* red to yellow */
	[PF_INLINED]	= { 172, 16, 60, 58 },	/* aqua */
	[PF_JIT]	= { 95, 30, 55, 52 },	/* green */
	[PF_KERNEL]	= { 208, 22, 65, 66 },	/* blue */
	[PF_UNRESOLVED]	= { 0, 0, 0, 72 },	/* grey */
	[PF_COMM]	= { 268, 20, 45, 70 },	/* lilac */
	[PF_NOTE]	= { 36, 10, 30, 70 },	/* tan */
	[PF_CLASS_NR]	= { 0, 0, 0, 88 },	/* merged: light grey */
	[PF_CLASS_NR + 1] = { 0, 0, 0, 80 },	/* all */
};

/*
 * A colour per class; the shade comes from the name, so a function keeps
 * its colour from one graph to the next (as flamegraph.pl's do).
 */
static void class_colour(int cls, const char *name, char *buf)
{
	const int *pal = palette[cls];
	uint32_t h = name_hash(name);
	double hue = pal[0] + (double)(h % 1000) / 1000 * pal[1];
	double sat = pal[2] / 100.0;
	double lig = (pal[3] + (double)(h >> 20 & 0xff) / 255 * 8) / 100.0;

	sprintf(buf, "#%02x%02x%02x", hsl_channel(hue, sat, lig, 0),
		hsl_channel(hue, sat, lig, 8), hsl_channel(hue, sat, lig, 4));
}

static void box_colour(const struct fgraph *g, uint32_t frame, char *buf)
{
	int cls = frame == FRAME_ROOT ? PF_CLASS_NR + 1 : frame_class(g, frame);

	class_colour(cls, frame_name(g, frame), buf);
}

static double box_width(const struct fgraph *g)
{
	return g->opts.width - 2 * MARGIN;
}

static int image_height(const struct fgraph *g)
{
	return TOP + (g->max_depth + 1) * BOX_HEIGHT + BOTTOM;
}

/* Top of a box at @depth: flames grow up from the bottom, icicles down */
static int box_y(const struct fgraph *g, uint32_t depth)
{
	if (g->opts.reverse)
		return TOP + depth * BOX_HEIGHT;
	return image_height(g) - BOTTOM - (depth + 1) * BOX_HEIGHT;
}

/* The index of @frame in the frame table written for the script */
static uint32_t used_frame(struct fgraph *g, uint32_t frame)
{
	if (frame == FRAME_ROOT || frame == FRAME_MERGED)
		return frame == FRAME_ROOT ? 0 : 1;
	if (!g->frame_map[frame])
		g->frame_map[frame] = g->nr_used++;
	return g->frame_map[frame];
}

/* The class a box is coloured by (the root and merged boxes have their own) */
static int box_class(const struct fgraph *g, uint32_t frame)
{
	return frame == FRAME_ROOT ? PF_CLASS_NR + 1 : frame_class(g, frame);
}

/* "[12 merged]" for a merged box, else the frame's name */
static const char *box_label(const struct fgraph *g, const struct fnode *nd, char *buf,
			     size_t size)
{
	if (nd->frame != FRAME_MERGED)
		return frame_name(g, nd->frame);
	snprintf(buf, size, "[%u merged]", nd->merged);
	return buf;
}

/* A box wide enough to click: an element of its own, with its label */
static void put_box_element(struct fgraph *g, const struct fnode *nd, uint32_t i,
			    double x, double w)
{
	size_t fit = (w - 6) / CHAR_WIDTH;
	char colour[8], label[32];
	const char *name = box_label(g, nd, label, sizeof(label));
	FILE *fp = g->fp;

	box_colour(g, nd->frame, colour);
	fprintf(fp, "<g data-i=\"%u\"><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
		"fill=\"%s\"%s/>", i, x, box_y(g, nd->depth), w, BOX_HEIGHT - 1, colour,
		nd->frame == FRAME_MERGED ? " class=\"merged\"" : "");
	/* A label only where three characters fit; the script redoes them on zoom */
	if (w >= 3 * CHAR_WIDTH + 6) {
		fprintf(fp, "<text x=\"%.2f\" y=\"%.1f\">", x + 3,
			box_y(g, nd->depth) + BOX_HEIGHT - 4.5);
		put_xml_fit(fp, name, fit);
		fputs("</text>", fp);
	}
	fputs("</g>\n", fp);
}

/* Draw the run of slivers of class @cls at @depth, and forget it */
static void sliver_flush(struct fgraph *g, int cls, uint32_t depth)
{
	struct sliver_run *r = &g->runs[depth * SLIVER_CLASSES + cls];
	double w = r->end - r->start;

	if (w <= 0)
		return;
	fprintf(g->sliver[cls], "M%.2f %dh%.2fv%dh-%.2fz", r->start, box_y(g, depth), w,
		BOX_HEIGHT - 1, w);
	r->start = r->end = 0;
}

/*
 * A sliver: slivers of one class side by side at one depth are one
 * rectangle of the class's colour (as the script draws them too).
 */
static void sliver_add(struct fgraph *g, int cls, uint32_t depth, double x, double w)
{
	struct sliver_run *r = &g->runs[depth * SLIVER_CLASSES + cls];

	if (r->end > r->start && x - r->end < 0.01 && r->end - x < 0.01) {
		r->end = x + w;
		return;
	}
	sliver_flush(g, cls, depth);
	r->start = x;
	r->end = x + w;
}

/* @v in base 36, as JavaScript's parseInt(s, 36) reads it */
static void put_base36(FILE *fp, uint32_t v)
{
	char buf[8], *s = buf + sizeof(buf);

	*--s = '\0';
	do {
		*--s = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
		v /= 36;
	} while (v);
	fputs(s, fp);
}

/*
 * The boxes under merged box @n, depth first, each ",frame[*samples]"
 * (base 36; samples when not 1) and a ")" once its own are written: a
 * 100,000-stack profile hides a million boxes, in a few bytes each.
 */
static void put_hidden(struct fgraph *g, uint32_t n)
{
	uint32_t c;

	for (c = g->nodes[n].child; c != NO_NODE; c = g->nodes[c].next) {
		fputc(',', g->hidden_data);
		put_base36(g->hidden_data, used_frame(g, g->nodes[c].frame));
		if (g->nodes[c].count != 1)
			fprintf(g->hidden_data, "*%" PRIu64, g->nodes[c].count);
		put_hidden(g, c);
		fputc(')', g->hidden_data);
	}
}

/*
 * Box @n, number @i in depth-first order, at @x: its numbers for the
 * script (depth, frame, samples; where it is follows from the order),
 * then an element, or a sliver.
 */
static void put_box(struct fgraph *g, uint32_t n, uint32_t i, double x)
{
	const struct fnode *nd = &g->nodes[n];
	double w = (double)nd->count / g->nodes[0].count * box_width(g);
	size_t e;

	fprintf(g->data, "%s%u,%u,%" PRIu64, i ? "," : "", nd->depth,
		used_frame(g, nd->frame), nd->count);
	if (nd->frame == FRAME_MERGED) {
		fprintf(g->merged_data, "%s%u:%u", g->merged_put ? "," : "", i, nd->merged);
		fprintf(g->hidden_data, "%s%u", g->merged_put++ ? ";" : "", i);
		put_hidden(g, n);
	}
	for (e = 0; g->ev && e < g->nr_ev; e++)
		fprintf(g->ev_data, "%s%" PRIu64, i || e ? "," : "",
			n < g->ev_nodes ? g->ev[n * g->nr_ev + e] : 0);
	if (w >= SLIVER)
		put_box_element(g, nd, i, x, w);
	else
		sliver_add(g, box_class(g, nd->frame), nd->depth, x, w);
}

/* Depth first from @n at @x; returns the next box number */
static uint32_t put_boxes(struct fgraph *g, uint32_t n, uint32_t i, double x)
{
	uint32_t c;

	put_box(g, n, i++, x);
	if (g->nodes[n].frame == FRAME_MERGED)
		return i;
	for (c = g->nodes[n].child; c != NO_NODE; c = g->nodes[c].next) {
		i = put_boxes(g, c, i, x);
		x += (double)g->nodes[c].count / g->nodes[0].count * box_width(g);
	}
	return i;
}

/* The slivers of each class as one path, and an empty one for matches */
static void put_slivers(struct fgraph *g)
{
	char colour[8];
	uint32_t d;
	int cls;

	for (d = 0; d <= g->max_depth; d++)
		for (cls = 0; cls < SLIVER_CLASSES; cls++)
			sliver_flush(g, cls, d);
	fputs("<g id=\"slivers\">\n", g->fp);
	for (cls = 0; cls < SLIVER_CLASSES; cls++) {
		class_colour(cls, "", colour);
		fflush(g->sliver[cls]);
		fprintf(g->fp, "<path data-c=\"%d\" fill=\"%s\" d=\"%s\"/>\n", cls, colour,
			g->sliver_buf[cls] ? g->sliver_buf[cls] : "");
	}
	fputs("<path class=\"match\" d=\"\"/>\n</g>\n", g->fp);
}

/* The frames the boxes name, for tooltips and search: name, class, file */
static void put_frames(struct fgraph *g)
{
	const struct ustack_profile *p = g->p;
	uint32_t *inv, i, f;
	FILE *fp = g->fp;

	inv = calloc(g->nr_used, sizeof(*inv));
	if (!inv)
		return;
	for (f = 0; f < g->comm_base + p->nr_str; f++)
		if (g->frame_map[f])
			inv[g->frame_map[f]] = f;
	fprintf(fp, "var FRAMES = [[\"all\",%d],[\"\",%d]", PF_CLASS_NR + 1, PF_CLASS_NR);
	for (i = 2; i < g->nr_used; i++) {
		fputs(",\n[", fp);
		put_json(fp, frame_name(g, inv[i]));
		if (inv[i] >= g->comm_base) {
			fprintf(fp, ",%d]", PF_COMM);
			continue;
		}
		f = inv[i];
		/* name, class, binary, source file, lines: as far as known */
		fprintf(fp, ",%d", p->frames[f]->cls);
		if (p->frames[f]->dso || p->frames[f]->file)
			fprintf(fp, ",%u", p->frames[f]->dso);
		if (p->frames[f]->file)
			fprintf(fp, ",%u,%d,%d", p->frames[f]->file, p->frames[f]->line_min,
				p->frames[f]->line_max);
		fputc(']', fp);
	}
	fputs("];\n", fp);
	free(inv);
}

/* The strings the frame table points to (paths); the others stay "" */
static void put_strings(struct fgraph *g)
{
	const struct ustack_profile *p = g->p;
	char *used = calloc(p->nr_str, 1);
	uint32_t i;

	if (!used)
		return;
	for (i = 0; i < p->nr_frames; i++) {
		used[p->frames[i]->dso] = 1;
		used[p->frames[i]->file] = 1;
	}
	fputs("var STRINGS = [\"\"", g->fp);
	for (i = 1; i < p->nr_str; i++) {
		fputc(',', g->fp);
		if (used[i])
			put_json(g->fp, pstr(p, i));
		else
			fputs("0", g->fp);
	}
	fputs("];\n", g->fp);
	free(used);
}

static void put_data(struct fgraph *g)
{
	const struct ustack_profile *p = g->p;
	uint32_t i;

	put_frames(g);
	put_strings(g);
	fflush(g->data);
	fflush(g->ev_data);
	fflush(g->merged_data);
	fflush(g->hidden_data);
	fprintf(g->fp, "var BOXES = [%s];\nvar MERGED = {%s};\nvar EVC = [%s];\n",
		g->data_buf ? g->data_buf : "", g->merged_buf ? g->merged_buf : "",
		g->ev_buf ? g->ev_buf : "");
	/* a string: read at the first search, not when the file opens */
	fprintf(g->fp, "var HIDDEN = \"%s\";\n", g->hidden_buf ? g->hidden_buf : "");
	fputs("var EVENTS = [", g->fp);
	for (i = 0; g->ev && i < p->nr_events; i++) {
		fputs(i ? "," : "", g->fp);
		put_json(g->fp, pstr(p, p->events[i].name));
	}
	fprintf(g->fp, "];\nvar CONF = { total: %" PRIu64 ", reverse: %s, width: %u, "
		"margin: %d, top: %d, bottom: %d, box: %d, charWidth: %.2f, "
		"height: %d, minPermille: %u, sliver: %d, palette: [",
		g->nodes[0].count, g->opts.reverse ? "true" : "false", g->opts.width,
		MARGIN, TOP, BOTTOM, BOX_HEIGHT, CHAR_WIDTH, image_height(g),
		g->opts.min_permille, SLIVER);
	for (i = 0; i < SLIVER_CLASSES; i++)
		fprintf(g->fp, "%s[%d,%d,%d,%d]", i ? "," : "", palette[i][0], palette[i][1],
			palette[i][2], palette[i][3]);
	fputs("] };\n", g->fp);
}

static int event_cmp(const void *a, const void *b)
{
	const struct pevent *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* "syscalls:sys_enter_read (12), ... and 3 more", biggest first, to @fp */
static void put_events(struct fgraph *g, FILE *fp)
{
	const struct ustack_profile *p = g->p;
	struct pevent *v = malloc((p->nr_events + 1) * sizeof(*v));
	size_t i;

	if (!v)
		return;
	/* a profile of no events has no array: memcpy() wants a real pointer */
	if (p->nr_events) {
		memcpy(v, p->events, p->nr_events * sizeof(*v));
		qsort(v, p->nr_events, sizeof(*v), event_cmp);
	}
	for (i = 0; i < p->nr_events && i < 3; i++)
		fprintf(fp, "%s%s (%" PRIu64 ")", i ? ", " : "", pstr(p, v[i].name), v[i].count);
	if (p->nr_events > 3)
		fprintf(fp, " and %zu more", p->nr_events - 3);
	if (!p->nr_events)
		fputs("no events", fp);
	free(v);
}

#define MAX_PIECES	8
#define DOT		" \xc2\xb7 "	/* between the pieces of a line */

/* The pieces of the lines under the title, each a string to free */
struct subtitle {
	char	*piece[MAX_PIECES];
	size_t	nr;
	size_t	second;		/* the first piece of the second line */
};

static void piece_add(struct subtitle *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void piece_add(struct subtitle *s, const char *fmt, ...)
{
	va_list ap;

	if (s->nr == MAX_PIECES)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s->piece[s->nr], fmt, ap) >= 0)
		s->nr++;
	va_end(ap);
}

/* Characters of text as the SVG shows it (what its width goes by) */
static size_t text_chars(const char *t)
{
	return ustack_text_width(t, USTACK_TEXT_XML);
}

/* Pieces @from to @to joined, ".." at the end where more than @fit characters */
static void put_line(FILE *fp, const struct subtitle *s, size_t from, size_t to, size_t fit)
{
	char *line = NULL;
	size_t len = 0, i;
	FILE *m = open_memstream(&line, &len);

	if (!m)
		return;
	for (i = from; i < to; i++)
		fprintf(m, "%s%s", i > from ? DOT : "", s->piece[i]);
	fclose(m);
	put_xml_fit(fp, line, fit);
	free(line);
}

/*
 * Two lines under the title: what the run holds, then how the graph is
 * drawn. Wider than the image, a browser cuts a centred line at both
 * edges: the pieces that do not fit on the first line go to the start of
 * the second, and what still does not fit there is cut with "..".
 */
static void put_subtitle(struct fgraph *g)
{
	const struct ustack_profile *p = g->p;
	const struct ustack_stats *st = &p->stats;
	size_t fit = (g->opts.width - 2 * MARGIN) / CHAR_WIDTH, used, i, first;
	struct subtitle s = { .nr = 0 };
	char *events = NULL, span[128];
	size_t events_len = 0;
	FILE *m = open_memstream(&events, &events_len);

	if (m) {
		put_events(g, m);
		fclose(m);
	}
	ustack_profile_span(p, span, sizeof(span));
	piece_add(&s, "%" PRIu64 " samples of %s", p->samples, events ? events : "");
	free(events);
	piece_add(&s, "%s", span);
	if (p->have_stats) {
		if (st->rb_lost)
			piece_add(&s, "stacks lost: %" PRIu64 ", ring-buffer losses: %" PRIu64,
				  st->lost, st->rb_lost);
		else
			piece_add(&s, "stacks lost: %" PRIu64, st->lost);
		if (ustack_profile_sync_note(st))
			piece_add(&s, "%s", ustack_profile_sync_note(st));
	}
	s.second = s.nr;
	if (g->opts.reverse)
		piece_add(&s, "callers (reversed stacks): leaf functions at the top, "
			  "their callers below");
	if (g->merged_boxes)
		piece_add(&s, "%" PRIu64 " boxes under %.1f%% of the samples merged into %"
			  PRIu64 " boxes", g->merged_frames, g->opts.min_permille / 10.0,
			  g->merged_boxes);
	else
		piece_add(&s, "no frame under %.1f%% of the samples (none merged)",
			  g->opts.min_permille / 10.0);
	/* the first line: as many pieces as fit, one at least */
	used = s.nr ? text_chars(s.piece[0]) : 0;
	for (first = 1; first < s.second; first++) {
		used += 3 + text_chars(s.piece[first]);
		if (used > fit)
			break;
	}
	if (first > s.second)
		first = s.second;
	fprintf(g->fp, "<text id=\"subtitle\" x=\"%u\" y=\"40\">", g->opts.width / 2);
	put_line(g->fp, &s, 0, first, fit);
	fprintf(g->fp, "</text>\n<text id=\"subtitle2\" x=\"%u\" y=\"56\">", g->opts.width / 2);
	put_line(g->fp, &s, first, s.nr, fit);
	fputs("</text>\n", g->fp);
	for (i = 0; i < s.nr; i++)
		free(s.piece[i]);
}

static const char style[] =
"<style type=\"text/css\">\n"
"text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
"#title { text-anchor: middle; font-size: 17px; }\n"
"#subtitle, #subtitle2 { text-anchor: middle; fill: #555; }\n"
"#frames > g:hover > rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
"#frames text { pointer-events: none; }\n"
"#frames rect.match, #slivers path.match { fill: #e040e0; }\n"
"#frames g.zoomed-parent { opacity: 0.5; }\n"
"#frames g.hidden { display: none; }\n"
"rect.merged { stroke: #999; stroke-dasharray: 2 2; }\n"
".button { cursor: pointer; }\n"
".button:hover { fill: #06c; }\n"
".hide { display: none; }\n"
"#tip rect { fill: #fffff0; stroke: #888; }\n"
"#tip text { font-size: 12px; }\n"
"</style>\n";

static void put_legend(struct fgraph *g)
{
	static const char * const names[PF_CLASS_NR + 1] = {
		[PF_USER] = "user", [PF_INLINED] = "inlined", [PF_JIT] = "JIT",
		[PF_KERNEL] = "kernel", [PF_UNRESOLVED] = "unresolved",
		[PF_COMM] = "task", [PF_NOTE] = "note", [PF_CLASS_NR] = "merged",
	};
	char colour[8];
	int i, x = MARGIN;

	fputs("<g id=\"legend\">", g->fp);
	for (i = 0; i <= PF_CLASS_NR; i++) {
		class_colour(i, "", colour);
		fprintf(g->fp, "<rect x=\"%d\" y=\"63\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"72\">%s</text>", x, colour, x + 14, names[i]);
		x += 14 + 8 * strlen(names[i]) + 12;
	}
	fputs("</g>\n", g->fp);
}

/*
 * The command line as the title, on one line and between the buttons
 * (shortened with ".." when longer); whole in the document's <title>.
 */
static void put_title(struct fgraph *g)
{
	const char *cmd = g->p->command ? g->p->command : "trace-cmd ustack";
	size_t fit = (g->opts.width - 2 * 120) / (17 * 0.59), i;
	char *t = strdup(cmd);
	FILE *fp = g->fp;

	if (!t)
		return;
	for (i = 0; t[i]; i++)
		if ((unsigned char)t[i] < ' ')
			t[i] = ' ';
	fputs("<title>", fp);
	put_xml(fp, t);
	fprintf(fp, "</title>\n<text id=\"title\" x=\"%u\" y=\"22\">", g->opts.width / 2);
	put_xml_fit(fp, t, fit);
	fputs("</text>\n", fp);
	free(t);
}

static void put_head(struct fgraph *g)
{
	int h = image_height(g), w = g->opts.width;
	FILE *fp = g->fp;

	fprintf(fp, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<!-- Flame graph written by trace-cmd ustack -->\n", w, h, w, h);
	fputs(style, fp);
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f4\"/>\n", w, h);
	put_title(g);
	put_subtitle(g);
	put_legend(g);
	fprintf(fp, "<text id=\"unzoom\" class=\"button hide\" x=\"%d\" y=\"22\">"
		"Reset Zoom</text>\n", MARGIN);
	fprintf(fp, "<text id=\"search\" class=\"button\" x=\"%d\" y=\"22\" "
		"text-anchor=\"end\">Search</text>\n", w - MARGIN);
	fprintf(fp, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n",
		w - MARGIN, h - 10);
	fprintf(fp, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", MARGIN, h - 10);
}

static void put_tail(struct fgraph *g)
{
	FILE *fp = g->fp;

	fputs("<g id=\"tip\" class=\"hide\"><rect rx=\"3\"/><text></text></g>\n", fp);
	fputs("<script type=\"text/ecmascript\"><![CDATA[\n", fp);
	put_data(g);
	fputs(ustack_flamegraph_js, fp);
	fputs("]]></script>\n</svg>\n", fp);
}

static int streams_open(struct fgraph *g)
{
	int cls;

	g->data = open_memstream(&g->data_buf, &g->data_len);
	g->ev_data = open_memstream(&g->ev_buf, &g->ev_len);
	g->merged_data = open_memstream(&g->merged_buf, &g->merged_len);
	g->hidden_data = open_memstream(&g->hidden_buf, &g->hidden_len);
	g->runs = calloc((g->max_depth + 1) * SLIVER_CLASSES, sizeof(*g->runs));
	if (!g->merged_data || !g->hidden_data || !g->runs)
		return -1;
	for (cls = 0; cls < SLIVER_CLASSES; cls++)
		g->sliver[cls] = open_memstream(&g->sliver_buf[cls], &g->sliver_len[cls]);
	for (cls = 0; cls < SLIVER_CLASSES; cls++)
		if (!g->sliver[cls])
			return -1;
	return g->data && g->ev_data ? 0 : -1;
}

static void fgraph_free(struct fgraph *g)
{
	int cls;

	for (cls = 0; cls < SLIVER_CLASSES; cls++) {
		if (g->sliver[cls])
			fclose(g->sliver[cls]);
		free(g->sliver_buf[cls]);
	}
	if (g->data)
		fclose(g->data);
	if (g->ev_data)
		fclose(g->ev_data);
	if (g->merged_data)
		fclose(g->merged_data);
	if (g->hidden_data)
		fclose(g->hidden_data);
	free(g->hidden_buf);
	free(g->data_buf);
	free(g->ev_buf);
	free(g->merged_buf);
	free(g->runs);
	free(g->nodes);
	free(g->ev);
	free(g->slots);
	free(g->frame_map);
}

/**
 * ustack_flamegraph_write - write the profile as an interactive SVG
 * @p:		the profile
 * @opts:	how to draw it (NULL: defaults)
 * @fp:		where to
 *
 * Returns 0, or -1 with errno set (ENOMEM also when the profile ran out
 * of memory while samples came in, EIO on a write error).
 */
int ustack_flamegraph_write(const struct ustack_profile *p,
			    const struct ustack_flamegraph_opts *opts, FILE *fp)
{
	struct fgraph g = { .p = p, .fp = fp };
	int ret = -1;

	if (opts)
		g.opts = *opts;
	if (!g.opts.min_permille)
		g.opts.min_permille = 1;
	if (!g.opts.width)
		g.opts.width = 1200;
	g.comm_base = p->nr_frames;
	g.frame_map = calloc(p->nr_frames + p->nr_str, sizeof(*g.frame_map));
	g.nr_used = 2;	/* 0: all, 1: merged */
	errno = ENOMEM;
	if (p->failed || !g.frame_map || build_tree(&g) || shape(&g, 0) || streams_open(&g))
		goto out;
	put_head(&g);
	fputs("<g id=\"frames\">\n", fp);
	put_boxes(&g, 0, 0, MARGIN);
	fputs("</g>\n", fp);
	put_slivers(&g);
	put_tail(&g);
	ret = 0;
	if (fflush(fp) || ferror(fp)) {
		errno = EIO;
		ret = -1;
	}
out:
	fgraph_free(&g);
	return ret;
}
