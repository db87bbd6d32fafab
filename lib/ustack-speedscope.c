// SPDX-License-Identifier: LGPL-2.1
/*
 * speedscope files (https://www.speedscope.app/file-format-schema.json):
 * one "sampled" profile per traced event, samples in the order the events
 * came in (a run of one stack is one sample with its weight), each stack
 * root first: the event's name with event_root, the task name, then the
 * frames as folded stacks name them.
 * Weights are counts: speedscope's Time Order view shows the order of the
 * events, not the time between them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-profile-int.h"
#include "ustack-text.h"

#define SCHEMA	"https://www.speedscope.app/file-format-schema.json"

/*
 * A string of the trace as a JSON string: valid UTF-8 (U+FFFD for what is
 * not), control characters as \u00XX (ustack-text.h)
 */
static void put_json(FILE *fp, const char *s)
{
	fputc('"', fp);
	ustack_text_fput(fp, s, USTACK_TEXT_JSON);
	fputc('"', fp);
}

/* The frames: the profile's, then one per task name (ids nr_frames + n) */
static void put_frames(const struct ustack_profile *p, const uint32_t *comm_idx, FILE *fp)
{
	const struct pframe *f;
	char *name;
	size_t i;

	fputs("\"shared\":{\"frames\":[", fp);
	for (i = 0; i < p->nr_frames; i++) {
		f = p->frames[i];
		if (asprintf(&name, "%s%s", pstr(p, f->name), pstr(p, f->suffix)) < 0)
			name = NULL;
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", fp);
		put_json(fp, name ? name : pstr(p, f->name));
		free(name);
		if (f->file || f->dso) {
			fputs(",\"file\":", fp);
			put_json(fp, pstr(p, f->file ? f->file : f->dso));
		}
		if (f->file && f->line_min && f->line_min == f->line_max)
			fprintf(fp, ",\"line\":%d", f->line_min);
		fputc('}', fp);
	}
	for (i = 0; i < p->nr_str; i++) {
		if (comm_idx[i] == UINT32_MAX)
			continue;
		fputs(p->nr_frames || comm_idx[i] > 0 ? ",\n{\"name\":" : "\n{\"name\":", fp);
		put_json(fp, pstr(p, i));
		fputc('}', fp);
	}
	fputs("]},\n", fp);
}

/*
 * Root first: the event with event_root (the outermost location), the
 * task, then the locations outermost first, each caller first
 */
static void put_stack(const struct ustack_profile *p, const struct pstack *st,
		      const uint32_t *comm_idx, FILE *fp)
{
	const uint32_t *locs = &p->stack_locs[st->first_loc];
	uint32_t i, j, nr = st->nr_locs;
	const struct ploc *l;

	fputc('[', fp);
	if (p->event_root && nr) {
		nr--;
		l = p->locs[locs[nr]];
		fprintf(fp, "%u,", p->lines[l->first_line].frame);
	}
	fprintf(fp, "%u", comm_idx[st->comm]);
	for (i = nr; i > 0; i--) {
		l = p->locs[locs[i - 1]];
		for (j = l->nr_lines; j > 0; j--)
			fprintf(fp, ",%u", p->lines[l->first_line + j - 1].frame);
	}
	fputc(']', fp);
}

static void put_profile(const struct ustack_profile *p, uint32_t ev,
			const uint32_t *comm_idx, FILE *fp)
{
	const struct pstack *st;
	size_t i, n = 0;

	fputs("{\"type\":\"sampled\",\"name\":", fp);
	put_json(fp, pstr(p, p->events[ev].name));
	fputs(",\"unit\":\"none\",\"startValue\":0,", fp);
	fprintf(fp, "\"endValue\":%" PRIu64 ",\n\"samples\":[", p->events[ev].count);
	for (i = 0; i < p->nr_order; i++) {
		st = p->stacks[p->order[i].stack];
		if (st->event != ev)
			continue;
		fputs(n++ ? ",\n" : "\n", fp);
		put_stack(p, st, comm_idx, fp);
	}
	fputs("],\n\"weights\":[", fp);
	n = 0;
	for (i = 0; i < p->nr_order; i++) {
		if (p->stacks[p->order[i].stack]->event != ev)
			continue;
		fprintf(fp, n++ ? ",%u" : "%u", p->order[i].weight);
	}
	fputs("]}", fp);
}

/* Index of each task name's frame, UINT32_MAX for strings that are none */
static uint32_t *comm_frames(const struct ustack_profile *p)
{
	uint32_t *idx = malloc((p->nr_str + 1) * sizeof(*idx)), n = p->nr_frames;
	size_t i;

	if (!idx)
		return NULL;
	memset(idx, 0xff, (p->nr_str + 1) * sizeof(*idx));
	for (i = 0; i < p->nr_stacks; i++)
		if (idx[p->stacks[i]->comm] == UINT32_MAX)
			idx[p->stacks[i]->comm] = 0;
	/* numbered in string order, as put_frames() writes them */
	for (i = 0; i < p->nr_str; i++)
		if (idx[i] != UINT32_MAX)
			idx[i] = n++;
	return idx;
}

/*
 * The profile speedscope opens on: the event with the most samples, not
 * the one that came first (an execve's handful in a run of thousands).
 */
static size_t largest_profile(const struct ustack_profile *p)
{
	size_t i, best = 0;

	for (i = 1; i < p->nr_events; i++)
		if (p->events[i].count > p->events[best].count)
			best = i;
	return best;
}

/**
 * ustack_speedscope_write - write the profile as a speedscope file
 * @p:		the profile (made with keep_order: samples in time order)
 * @fp:		where to
 *
 * Returns 0, or -1 with errno set.
 */
int ustack_speedscope_write(const struct ustack_profile *p, FILE *fp)
{
	uint32_t *comm_idx;
	size_t i;

	errno = ENOMEM;
	comm_idx = p->failed ? NULL : comm_frames(p);
	if (!comm_idx)
		return -1;
	fprintf(fp, "{\"$schema\":\"%s\",\n", SCHEMA);
	put_frames(p, comm_idx, fp);
	fputs("\"profiles\":[", fp);
	for (i = 0; i < p->nr_events; i++) {
		fputs(i ? ",\n" : "\n", fp);
		put_profile(p, i, comm_idx, fp);
	}
	fputs("],\n\"name\":", fp);
	put_json(fp, p->command ? p->command : "trace-cmd ustack");
	fprintf(fp, ",\"activeProfileIndex\":%zu,\"exporter\":\"trace-cmd ustack\"}\n",
		largest_profile(p));
	free(comm_idx);
	if (fflush(fp) || ferror(fp)) {
		errno = EIO;
		return -1;
	}
	return 0;
}
