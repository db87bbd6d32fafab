// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-tracedat-gen: a big trace.dat made of a small recorded one, for
 * the report rows of bench/pipeline.
 *
 *   ustack-tracedat-gen -i TEMPLATE.dat -o OUT.dat -n COPIES [-C NONE] [-F EVENT]...
 *
 * TEMPLATE is a file `trace-cmd ustack record` wrote on the patched
 * kernel (the host may lack its events: formats, kallsyms and cmdlines
 * are copied from TEMPLATE, not read from this machine's tracefs). The
 * records of its ustack buffer are written COPIES times, each copy
 * shifted in time past the end of the one before (records keep their
 * CPU, data and spacing), into fresh ring-buffer sub-buffers of our own
 * encoding, then appended as the CPU data of one buffer, "ustack-gen",
 * through libtracecmd's writer, compressed as TEMPLATE is (or not, with
 * -C none). Every copy holds the same stacks: a report's memory should
 * not grow with COPIES. Records of an EVENT named with -F are in the first
 * copy only (-F inode_cache: files are announced once, as in a long run
 * of one workload, not once a copy). Prints "records R copies C".
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "tracecmd-private-decls.h"
#include "ustack-tracedat.h"

/* libtracecmd's, not in its public header */
struct tracecmd_output *tracecmd_copy(struct tracecmd_input *ihandle, const char *file,
				      int state, int file_version, const char *compression);
#define FILE_STATE_CMD_LINES	7

#define PAGE_HDR	16	/* u64 time stamp, u64 commit */
#define TS_BITS		27
#define TYPE_EXTEND	30
#define MAX_INLINE	(28 * 4)
#define GAP_NS		1000000ULL

struct page_writer {
	FILE			*f;
	char			*page;
	int			size;
	int			used;		/* bytes of data after the header */
	unsigned long long	last_ts;
	bool			empty;
};

#define MAX_ONCE	8

struct gen {
	struct page_writer	*cpus;
	struct tep_handle	*tep;
	const char		*once[MAX_ONCE];	/* -F: first copy only */
	int			nr_once;
	bool			later;			/* past the first copy */
	int			nr_cpus;
	unsigned long long	shift;
	unsigned long long	first, last;
	unsigned long		records;
};

static void die(const char *msg)
{
	fprintf(stderr, "ustack-tracedat-gen: %s\n", msg);
	exit(1);
}

static void put32(struct page_writer *w, uint32_t v)
{
	memcpy(w->page + PAGE_HDR + w->used, &v, 4);
	w->used += 4;
}

static void flush_page(struct page_writer *w)
{
	uint64_t commit = w->used;

	if (w->empty)
		return;
	memcpy(w->page + 8, &commit, 8);
	if (fwrite(w->page, w->size, 1, w->f) != 1)
		die("cannot write a CPU file");
	memset(w->page, 0, w->size);
	w->used = 0;
	w->empty = true;
}

/* One event, encoded as the ring buffer does (ring_buffer_event) */
static void add_event(struct page_writer *w, unsigned long long ts, const void *data, int size)
{
	int len = (size + 3) & ~3, need;
	unsigned long long delta;

	need = 4 + (len <= MAX_INLINE ? len : 4 + len);
	delta = w->empty ? 0 : ts - w->last_ts;
	if (delta >> TS_BITS)
		need += 8;
	if (PAGE_HDR + w->used + need > w->size)
		flush_page(w);
	if (w->empty) {
		uint64_t page_ts = ts;

		memcpy(w->page, &page_ts, 8);
		w->empty = false;
		delta = 0;
	}
	if (delta >> TS_BITS) {
		put32(w, TYPE_EXTEND | (uint32_t)(delta & ((1U << TS_BITS) - 1)) << 5);
		put32(w, delta >> TS_BITS);
		delta = 0;
	}
	if (len <= MAX_INLINE) {
		put32(w, (len / 4) | (uint32_t)delta << 5);
	} else {
		put32(w, (uint32_t)delta << 5);
		put32(w, len + 4);
	}
	memcpy(w->page + PAGE_HDR + w->used, data, size);
	w->used += len;
	w->last_ts = ts;
}

/* Whether @rec is of an event -F keeps to the first copy */
static bool once_only(struct gen *g, struct tep_record *rec)
{
	struct tep_event *ev = tep_find_event(g->tep, tep_data_type(g->tep, rec));
	int i;

	for (i = 0; ev && i < g->nr_once; i++)
		if (!strcmp(ev->name, g->once[i]))
			return true;
	return false;
}

static void copy_record(struct tep_record *rec, void *data)
{
	struct gen *g = data;

	if (rec->cpu < 0 || rec->cpu >= g->nr_cpus)
		return;
	if (g->later && once_only(g, rec)) {
		g->last = rec->ts;
		return;
	}
	if (!g->records && !g->first)
		g->first = rec->ts;
	g->last = rec->ts;
	add_event(&g->cpus[rec->cpu], rec->ts + g->shift, rec->data, rec->size);
	g->records++;
}

static void open_cpus(struct gen *g, const char *out, int subbuf, char **files)
{
	int c;

	g->cpus = calloc(g->nr_cpus, sizeof(*g->cpus));
	if (!g->cpus)
		die("out of memory");
	for (c = 0; c < g->nr_cpus; c++) {
		if (asprintf(&files[c], "%s.cpu%d", out, c) < 0)
			die("out of memory");
		g->cpus[c].f = fopen(files[c], "w");
		g->cpus[c].page = calloc(1, subbuf);
		if (!g->cpus[c].f || !g->cpus[c].page)
			die("cannot create the CPU files");
		g->cpus[c].size = subbuf;
		g->cpus[c].empty = true;
	}
}

static void write_file(const char *tmpl, const char *out, const char *compression,
		       int nr_cpus, char **files)
{
	struct tracecmd_input *in = tracecmd_open(tmpl, 0);
	struct tracecmd_output *o;
	char **empty = calloc(nr_cpus, sizeof(*empty));
	int c;

	if (!in || !empty)
		die("cannot read the template");
	for (c = 0; c < nr_cpus; c++)
		empty[c] = "/dev/null";
	o = tracecmd_copy(in, out, FILE_STATE_CMD_LINES, 0, compression);
	if (!o || tracecmd_add_buffer_info(o, "ustack-gen", nr_cpus) < 0 ||
	    tracecmd_append_cpu_data(o, nr_cpus, empty) < 0 ||
	    tracecmd_append_buffer_cpu_data(o, "ustack-gen", nr_cpus, files) < 0)
		die("cannot write the output");
	tracecmd_output_close(o);
	tracecmd_close(in);
	free(empty);
}

int main(int argc, char **argv)
{
	const char *tmpl = NULL, *out = NULL, *compression = NULL;
	struct ustack_tracedat *td;
	char msg[1024];
	struct gen g = { 0 };
	long copies = 1, k;
	char **files;
	int opt, c;

	while ((opt = getopt(argc, argv, "i:o:n:C:F:")) != -1) {
		switch (opt) {
		case 'i': tmpl = optarg; break;
		case 'o': out = optarg; break;
		case 'n': copies = atol(optarg); break;
		case 'C': compression = optarg; break;
		case 'F':
			if (g.nr_once == MAX_ONCE)
				die("too many -F");
			g.once[g.nr_once++] = optarg;
			break;
		default: die("usage: -i TEMPLATE.dat -o OUT.dat -n COPIES [-C none] [-F EVENT]...");
		}
	}
	if (!tmpl || !out || copies < 1)
		die("usage: -i TEMPLATE.dat -o OUT.dat -n COPIES [-C none] [-F EVENT]...");
	if (ustack_tracedat_open(tmpl, NULL, true, &td) < 0)
		die(ustack_tracedat_strerror(td, msg, sizeof(msg)));
	g.tep = ustack_tracedat_tep(td);
	g.nr_cpus = tep_get_cpus(g.tep);
	files = calloc(g.nr_cpus + 1, sizeof(*files));
	if (g.nr_cpus < 1 || !files)
		die("the template has no CPU data");
	open_cpus(&g, out, tep_get_sub_buffer_size(ustack_tracedat_tep(td)), files);
	for (k = 0; k < copies; k++) {
		ustack_tracedat_iterate(td, copy_record, NULL, &g);
		/* the next copy starts after this one's last record */
		g.shift += g.last - g.first + GAP_NS;
		g.later = true;
	}
	for (c = 0; c < g.nr_cpus; c++) {
		flush_page(&g.cpus[c]);
		if (fclose(g.cpus[c].f))
			die("cannot write a CPU file");
	}
	ustack_tracedat_close(td);
	write_file(tmpl, out, compression, g.nr_cpus, files);
	for (c = 0; c < g.nr_cpus; c++) {
		unlink(files[c]);
		free(files[c]);
		free(g.cpus[c].page);
	}
	printf("records %lu copies %ld\n", g.records, copies);
	free(files);
	free(g.cpus);
	return 0;
}
