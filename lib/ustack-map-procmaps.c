// SPDX-License-Identifier: LGPL-2.1
/*
 * /proc/<tgid>/maps snapshots for the synchronous fallback path
 * (see ustack-map-procmaps.h).
 *
 * Marker format, one trace_marker write per part (a write must fit one
 * ring-buffer event, so big maps are split on line boundaries):
 *
 *	ustack-maps <tgid> <ts> <part>/<parts>\n<maps lines>
 *
 * <ts> is the trace-clock time the snapshot applies from: 0 for the first
 * one of a process (it is the best we have for everything before it), the
 * exec time after an exec, the time it was taken otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "ustack-events.h"
#include "ustack-hash.h"
#include "ustack-instance.h"
#include "ustack-proc.h"
#include "ustack-map-procmaps.h"

#define MARKER_PART_MAX	3000

struct proc_entry {
	struct ustack_hnode	node;
	int			tgid;
	bool			dead;
	char			*text;		/* last snapshot */
	char			comm[32];
};

struct ustack_map_procmaps {
	struct ustack_instance	*ui;
	int			marker_fd;
	ustack_map_procmaps_fn	fn;
	void			*ctx;
	struct ustack_htable	procs;
};

/* Keep the lines that name a file or a special mapping: frames land there. */
static char *filter_maps(char *maps)
{
	char *out = malloc(strlen(maps) + 1);
	char *line, *save, *p;
	size_t len = 0;

	if (!out)
		return NULL;
	for (line = strtok_r(maps, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		p = strchr(line, '/');
		if (!p)
			p = strchr(line, '[');
		if (!p)
			continue;
		len += sprintf(out + len, "%s\n", line);
	}
	out[len] = '\0';
	return out;
}

static char *snapshot(int tgid)
{
	char *raw = ustack_proc_read(tgid, "maps", NULL);
	char *text;

	/* A process whose mm is gone (exiting, zombie) has empty maps. */
	if (!raw || !*raw) {
		free(raw);
		return NULL;
	}
	text = filter_maps(raw);
	free(raw);
	return text;
}

/* End of the next marker part: whole lines, at most MARKER_PART_MAX bytes. */
static const char *next_chunk(const char *p)
{
	const char *end = p, *nl;

	while (*end) {
		nl = strchr(end, '\n');
		nl = nl ? nl + 1 : end + strlen(end);
		if (nl - p > MARKER_PART_MAX)
			break;
		end = nl;
	}
	/* A single line longer than a part (never in practice): cut it. */
	if (end == p && *p)
		end = p + (strlen(p) < MARKER_PART_MAX ? strlen(p) : MARKER_PART_MAX);
	return end;
}

static void write_markers(struct ustack_map_procmaps *pm, int tgid, uint64_t ts, const char *text)
{
	char buf[MARKER_PART_MAX + 128];
	int parts = 0, part = 0;
	const char *p, *end;
	int hdr;

	for (p = text; *p; p = next_chunk(p))
		parts++;
	for (p = text; *p; p = end) {
		end = next_chunk(p);
		hdr = snprintf(buf, sizeof(buf), USTACK_MAPS_MARKER "%d %" PRIu64 " %d/%d\n",
			       tgid, ts, ++part, parts);
		memcpy(buf + hdr, p, end - p);
		if (write(pm->marker_fd, buf, hdr + (end - p)) < 0)
			return;
	}
}

static struct proc_entry *find_proc(struct ustack_map_procmaps *pm, int tgid)
{
	struct ustack_hnode *pos;
	struct proc_entry *pe;

	ustack_hash_table_for_each_hash(&pm->procs, pos, ustack_hash_u64(tgid)) {
		pe = ustack_hash_table_entry(pos, struct proc_entry, node);
		if (pe->tgid == tgid)
			return pe;
	}
	return NULL;
}

static void read_comm(struct proc_entry *pe)
{
	char comm[sizeof(pe->comm)], *c;

	if (ustack_proc_comm(pe->tgid, comm, sizeof(comm)))
		return;
	/* PROCMAPS stores the name as one word. */
	for (c = comm; *c; c++)
		if (*c == ' ')
			*c = '_';
	memcpy(pe->comm, comm, sizeof(comm));
}

/* Take a snapshot; hand it out when it differs from the last one. */
static void take(struct ustack_map_procmaps *pm, struct proc_entry *pe, uint64_t ts, bool force)
{
	char *text = snapshot(pe->tgid);

	if (!text) {
		pe->dead = true;
		return;
	}
	if (!force && pe->text && !strcmp(pe->text, text)) {
		free(text);
		return;
	}
	free(pe->text);
	pe->text = text;
	read_comm(pe);
	if (pm->fn)
		pm->fn(pe->tgid, ts, text, pm->ctx);
	if (pm->marker_fd >= 0)
		write_markers(pm, pe->tgid, ts, text);
}

static struct proc_entry *add_proc(struct ustack_map_procmaps *pm, int tgid)
{
	struct proc_entry *pe = calloc(1, sizeof(*pe));

	if (!pe)
		return NULL;
	pe->tgid = tgid;
	snprintf(pe->comm, sizeof(pe->comm), "<...>");
	if (ustack_hash_table_add(&pm->procs, &pe->node, ustack_hash_u64(tgid))) {
		free(pe);
		return NULL;
	}
	return pe;
}

void ustack_map_procmaps_see(struct ustack_map_procmaps *pm, int tgid)
{
	struct proc_entry *pe;

	if (tgid <= 0 || find_proc(pm, tgid))
		return;
	pe = add_proc(pm, tgid);
	if (pe)
		take(pm, pe, 0, true);
}

void ustack_map_procmaps_exec(struct ustack_map_procmaps *pm, int tgid, uint64_t ts)
{
	struct proc_entry *pe = find_proc(pm, tgid);

	if (!pe) {
		pe = add_proc(pm, tgid);
		if (!pe)
			return;
		/* The first snapshot stands for the time before the exec too. */
		take(pm, pe, 0, true);
		return;
	}
	pe->dead = false;
	take(pm, pe, ts, true);
}

void ustack_map_procmaps_update(struct ustack_map_procmaps *pm, int tgid, uint64_t now)
{
	struct proc_entry *pe = find_proc(pm, tgid);

	if (!pe) {
		pe = add_proc(pm, tgid);
		if (pe)
			take(pm, pe, now, true);
		return;
	}
	take(pm, pe, now, false);
}

void ustack_map_procmaps_refresh(struct ustack_map_procmaps *pm, uint64_t now)
{
	struct ustack_hnode *pos, *tmp;
	struct proc_entry *pe;
	size_t i;

	ustack_hash_table_for_each_safe(&pm->procs, i, pos, tmp) {
		pe = ustack_hash_table_entry(pos, struct proc_entry, node);
		if (!pe->dead)
			take(pm, pe, now, false);
	}
}

/* trace-cmd's PROCMAPS: "pid nr comm" then "start end path", one per file. */
static char *procmaps_option(struct proc_entry *pe)
{
	unsigned long long start, end, s, e;
	char path[4096], last[4096] = "";
	char *text, *line, *save, *out;
	size_t len = 0, alloc;
	int nr = 0, hdr;

	text = strdup(pe->text);
	alloc = strlen(pe->text) + 128;
	out = malloc(alloc);
	if (!text || !out) {
		free(text);
		free(out);
		return NULL;
	}
	hdr = snprintf(out, alloc, "%-64s\n", "");
	len = hdr;
	start = end = 0;
	for (line = strtok_r(text, "\n", &save); ; line = strtok_r(NULL, "\n", &save)) {
		if (line && sscanf(line, "%llx-%llx %*s %*s %*s %*s %4095s", &s, &e, path) != 3)
			continue;
		if (line && !strcmp(path, last)) {
			end = e;
			continue;
		}
		if (*last) {
			len += snprintf(out + len, alloc - len, "%llx %llx %s\n", start, end, last);
			nr++;
		}
		if (!line)
			break;
		snprintf(last, sizeof(last), "%s", path);
		start = s;
		end = e;
	}
	free(text);
	/* The header was reserved as blanks; fill it now that nr is known. */
	snprintf(path, sizeof(path), "%x %x %s", pe->tgid, nr, pe->comm);
	memcpy(out, path, strlen(path) < 64 ? strlen(path) : 64);
	return out;
}

char **ustack_map_procmaps_options(struct ustack_map_procmaps *pm)
{
	struct ustack_hnode *pos, *tmp;
	struct proc_entry *pe;
	char **opts;
	size_t i, n = 0;

	opts = calloc(pm->procs.nr + 1, sizeof(*opts));
	if (!opts)
		return NULL;
	ustack_hash_table_for_each_safe(&pm->procs, i, pos, tmp) {
		pe = ustack_hash_table_entry(pos, struct proc_entry, node);
		if (pe->text && (opts[n] = procmaps_option(pe)))
			n++;
	}
	return opts;
}

/**
 * ustack_map_procmaps_new - start tracking processes for the fallback path
 * @ui: instance whose trace_marker receives the snapshots, or NULL
 * @fn: called with every new snapshot
 * @ctx: passed to @fn
 */
struct ustack_map_procmaps *ustack_map_procmaps_new(struct ustack_instance *ui, ustack_map_procmaps_fn fn,
					    void *ctx)
{
	struct ustack_map_procmaps *pm = calloc(1, sizeof(*pm));

	if (!pm)
		return NULL;
	pm->ui = ui;
	pm->fn = fn;
	pm->ctx = ctx;
	pm->marker_fd = -1;
	if (ui) {
		pm->marker_fd = tracefs_instance_file_open(ustack_instance_tracefs(ui),
							   "trace_marker", O_WRONLY | O_CLOEXEC);
		if (pm->marker_fd >= 0)
			ustack_instance_register_fd(ui, pm->marker_fd);
	}
	return pm;
}

void ustack_map_procmaps_free(struct ustack_map_procmaps *pm)
{
	struct ustack_hnode *pos, *tmp;
	struct proc_entry *pe;
	size_t i;

	if (!pm)
		return;
	if (pm->marker_fd >= 0) {
		ustack_instance_unregister_fd(pm->ui, pm->marker_fd);
		close(pm->marker_fd);
	}
	ustack_hash_table_for_each_safe(&pm->procs, i, pos, tmp) {
		pe = ustack_hash_table_entry(pos, struct proc_entry, node);
		free(pe->text);
		free(pe);
	}
	ustack_hash_table_release(&pm->procs);
	free(pm);
}

/* The parts of one process's snapshot read so far. */
struct pending_maps {
	struct ustack_hnode	node;
	int			tgid;
	uint64_t		ts;
	int			next_part;
	char			*text;
	size_t			len;
};

struct ustack_map_procmaps_reader {
	ustack_map_procmaps_fn	fn;
	void			*ctx;
	struct ustack_htable	pending;
};

struct ustack_map_procmaps_reader *ustack_map_procmaps_reader_new(ustack_map_procmaps_fn fn, void *ctx)
{
	struct ustack_map_procmaps_reader *mr = calloc(1, sizeof(*mr));

	if (mr) {
		mr->fn = fn;
		mr->ctx = ctx;
	}
	return mr;
}

static struct pending_maps *pending_for(struct ustack_map_procmaps_reader *mr, int tgid)
{
	uint64_t hash = ustack_hash_u64(tgid);
	struct ustack_hnode *pos;
	struct pending_maps *p;

	ustack_hash_table_for_each_hash(&mr->pending, pos, hash) {
		p = ustack_hash_table_entry(pos, struct pending_maps, node);
		if (p->tgid == tgid)
			return p;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->tgid = tgid;
	if (ustack_hash_table_add(&mr->pending, &p->node, hash)) {
		free(p);
		return NULL;
	}
	return p;
}

static void append_part(struct pending_maps *p, const char *body)
{
	size_t blen = strlen(body);
	char *nt = realloc(p->text, p->len + blen + 2);

	if (!nt)
		return;
	p->text = nt;
	memcpy(p->text + p->len, body, blen);
	p->len += blen;
	/* trace_marker may add a newline or not: make sure lines end. */
	if (p->len && p->text[p->len - 1] != '\n')
		p->text[p->len++] = '\n';
	p->text[p->len] = '\0';
}

/**
 * ustack_map_procmaps_reader_feed - look at one ftrace:print text
 * @mr: the reader
 * @buf: the print event's text
 *
 * Returns true when @buf is one of our maps markers (consumed).
 */
bool ustack_map_procmaps_reader_feed(struct ustack_map_procmaps_reader *mr, const char *buf)
{
	const char *body;
	struct pending_maps *p;
	int tgid, part, parts;
	uint64_t ts;

	if (strncmp(buf, USTACK_MAPS_MARKER, strlen(USTACK_MAPS_MARKER)))
		return false;
	if (sscanf(buf + strlen(USTACK_MAPS_MARKER), "%d %" SCNu64 " %d/%d",
		   &tgid, &ts, &part, &parts) != 4)
		return true;
	body = strchr(buf, '\n');
	p = pending_for(mr, tgid);
	if (!body || !p)
		return true;
	if (part == 1) {
		p->len = 0;
		p->ts = ts;
		p->next_part = 1;
	}
	/*
	 * A lost part: drop this snapshot. A part of another snapshot (its
	 * own first part lost) is not the next one either, whatever its
	 * number: its timestamp is the first part's only if it is of it.
	 */
	if (part != p->next_part || ts != p->ts)
		return true;
	append_part(p, body + 1);
	p->next_part++;
	if (part == parts && p->text) {
		mr->fn(tgid, p->ts, p->text, mr->ctx);
		p->len = 0;
		p->next_part = 0;
	}
	return true;
}

void ustack_map_procmaps_reader_free(struct ustack_map_procmaps_reader *mr)
{
	struct ustack_hnode *pos, *tmp;
	struct pending_maps *p;
	size_t i;

	if (!mr)
		return;
	ustack_hash_table_for_each_safe(&mr->pending, i, pos, tmp) {
		p = ustack_hash_table_entry(pos, struct pending_maps, node);
		free(p->text);
		free(p);
	}
	ustack_hash_table_release(&mr->pending);
	free(mr);
}
