// SPDX-License-Identifier: LGPL-2.1
/*
 * Reading the CPU data of a version 7 trace.dat one piece at a time.
 *
 * libtracecmd 1.3.1 (trace-cmd 3.1.6) never frees a decompressed chunk:
 * its free_zpage() looks for the page in a range no page is ever in, so
 * every chunk read stays in a list that every later page load walks.
 * Reading a compressed recording then takes memory that grows with the
 * recording and time that grows with the square of its chunks (fixed
 * upstream in 1.5.0 and 1.5.1; bench/pipeline/NOTES.md). Here each CPU
 * holds one chunk (one group of pages when the data is not compressed),
 * read when its pages are reached and dropped for the next: memory is
 * bounded by the chunk size whatever the file's. The chunks are
 * decompressed by libtracecmd's decompressor, each to exactly the size it
 * claims (ustack_tracedat_check_inflate()), the sub-buffers parsed by
 * libtraceevent's kbuffer, as libtracecmd does, each header checked
 * first, and the records carry what its tracecmd_read_data() would give
 * them. Every size and count is read again from the file and held to the
 * bounds of the structure check (ustack-tracedat-check.c): the file may have
 * changed since.
 *
 * libtracecmd, opening the file, decompresses the first chunk of each CPU
 * and keeps it; for a buffer read here it is given an empty sub-buffer
 * instead (ustack-tracedat.c): each chunk is decompressed once.
 *
 * Where libtracecmd would change the timestamps (options that shift or
 * scale them), for latency buffers, version 6 files and anything the
 * layout does not say plainly, ustack_tracedat_cpu_open() returns NULL and the
 * caller reads with libtracecmd.
 */
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "tracecmd-private-decls.h"
#include "ustack-tracedat-check.h"
#include "ustack-tracedat-cpu.h"
#include "ustack-warn.h"

struct tracedat_cpu_state {
	const struct ustack_tracedat_layout_cpu *data;	/* NULL: no data */
	struct kbuffer		*kbuf;
	char			*buf;		/* the chunk (or pages) in hand */
	size_t			alloc;
	uint32_t		len;		/* bytes in buf */
	uint32_t		at;		/* next page in buf */
	uint64_t		pos;		/* compressed: next chunk's sizes */
	uint64_t		end_pos;	/* compressed: the end of the CPU's data */
	uint32_t		chunks_left;
	uint32_t		chunk;		/* compressed: the next chunk's number */
	uint64_t		done;		/* bytes of data before buf */
	uint64_t		page_off;	/* offset of the page in kbuf */
	bool			loaded;		/* kbuf holds a page */
	bool			end;
	bool			said;		/* its bad page was told */
	long long		lost;		/* told by pages with no record, not taken */
	bool			drops;		/* the last of those began a span of drops */
	struct tep_record	rec;
};

struct ustack_tracedat_cpu {
	int				fd;
	const char			*file;
	const struct ustack_tracedat_layout	*layout;
	const struct ustack_tracedat_layout_buffer *buffer;
	struct tracecmd_compression	*zip;
	unsigned int			page;
	int				nr;
	struct tracedat_cpu_state		*cpus;
	unsigned long			bad;
};

/* The buffer named @name, when exactly one buffer option has that name */
static const struct ustack_tracedat_layout_buffer *find_buffer(const struct ustack_tracedat_layout *l,
							 const char *name)
{
	const struct ustack_tracedat_layout_buffer *found = NULL;
	size_t i;

	for (i = 0; i < l->nr_buffers; i++) {
		if (strcmp(l->buffers[i].name, name))
			continue;
		if (found)
			return NULL;
		found = &l->buffers[i];
	}
	return found;
}

/**
 * ustack_tracedat_cpu_wanted - whether ustack_tracedat_cpu_open() reads this layout
 * @l: what ustack_tracedat_check_layout() found in the file
 *
 * Files that libtracecmd would read differently (see above) are its own;
 * USTACK_TRACEDAT_READER=library makes every file its own.
 */
bool ustack_tracedat_cpu_wanted(const struct ustack_tracedat_layout *l)
{
	const char *env = getenv("USTACK_TRACEDAT_READER");

	if (env && !strcmp(env, "library"))
		return false;
	return l->version == 7 && !l->ts_options && !l->latency && !l->incomplete;
}

/* libtracecmd 1.3 does not open a file whose CPU data has another timestamp size */
static bool plain(const struct ustack_tracedat_layout *l, struct tep_handle *tep)
{
	return ustack_tracedat_cpu_wanted(l) && tep_get_header_timestamp_size(tep) == 8;
}

static int setup_cpus(struct ustack_tracedat_cpu *r, struct tep_handle *tep)
{
	const struct ustack_tracedat_layout_buffer *b = r->buffer;
	enum kbuffer_long_size lsize;
	enum kbuffer_endian endian;
	uint32_t i;
	int c;

	lsize = r->layout->lsize == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4;
	endian = r->layout->big ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE;
	r->cpus = calloc(r->nr > 0 ? r->nr : 1, sizeof(*r->cpus));
	if (!r->cpus)
		return -1;
	for (i = 0; i < b->nr_cpus; i++) {
		c = b->cpus[i].cpu;
		if (c >= r->nr || !b->cpus[i].size)
			continue;
		r->cpus[c].data = &b->cpus[i];
	}
	for (c = 0; c < r->nr; c++) {
		r->cpus[c].kbuf = kbuffer_alloc(lsize, endian);
		if (!r->cpus[c].kbuf)
			return -1;
		if (tep_is_old_format(tep))
			kbuffer_set_old_format(r->cpus[c].kbuf);
	}
	return 0;
}

/**
 * ustack_tracedat_cpu_open - read a buffer's CPU data without libtracecmd
 * @fd: the trace.dat, open; it must stay open while the reader is
 * @file: its name, for messages (must outlive the reader)
 * @layout: what ustack_tracedat_check_layout() found in it (must outlive the
 *	reader)
 * @buffer: the buffer's name, "" for the top one
 * @tep: the file's event parser (libtracecmd's, for the header formats)
 * @nr_cpus: the CPUs to read: those numbered 0 to @nr_cpus - 1
 *
 * Returns NULL when the file is libtracecmd's to read (see above) or on
 * any failure: the caller then reads it with libtracecmd.
 */
struct ustack_tracedat_cpu *ustack_tracedat_cpu_open(int fd, const char *file,
					 const struct ustack_tracedat_layout *layout, const char *buffer,
					 struct tep_handle *tep, int nr_cpus)
{
	struct ustack_tracedat_cpu *r;

	if (!plain(layout, tep))
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = fd;
	r->file = file;
	r->layout = layout;
	r->nr = nr_cpus;
	r->buffer = find_buffer(layout, buffer);
	if (!r->buffer)
		goto fail;
	/* the buffer's own (version 7), as libtracecmd reads it */
	r->page = r->buffer->page;
	if (layout->compressed) {
		r->zip = tracecmd_compress_alloc(layout->compression,
						 layout->compression_version, fd, tep, NULL);
		if (!r->zip)
			goto fail;
	}
	if (setup_cpus(r, tep))
		goto fail;
	return r;
 fail:
	ustack_tracedat_cpu_close(r);
	return NULL;
}

static uint32_t file32(const struct ustack_tracedat_cpu *r, uint32_t v)
{
	return r->layout->big ? be32toh(v) : le32toh(v);
}

static int grow(struct tracedat_cpu_state *c, size_t need)
{
	char *p;

	if (need <= c->alloc)
		return 0;
	p = realloc(c->buf, need);
	if (!p)
		return -1;
	c->buf = p;
	c->alloc = need;
	return 0;
}

static void stop_cpu(struct ustack_tracedat_cpu *r, int cpu, struct tracedat_cpu_state *c,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * The CPU's data ends here: what could not be read, decompressed or
 * trusted is counted and said once per reader, however often the CPU is
 * read again, with the rest of the CPU skipped (as libtracecmd does past
 * a page it cannot read, without a word).
 */
static void stop_cpu(struct ustack_tracedat_cpu *r, int cpu, struct tracedat_cpu_state *c,
		     const char *fmt, ...)
{
	char why[256];
	va_list ap;

	c->end = true;
	if (c->said)
		return;
	c->said = true;
	r->bad++;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	ustack_warning("%s: CPU %d: %s: the rest of the CPU is skipped", r->file, cpu, why);
}

/* The next chunk of compressed data into c->buf; false when the CPU stops */
static bool read_chunk(struct ustack_tracedat_cpu *r, int cpu, struct tracedat_cpu_state *c)
{
	uint32_t sizes[2], csize, usize, n = c->chunk;
	const char *why;
	ssize_t got;

	if (c->end_pos - c->pos < 8) {
		stop_cpu(r, cpu, c, "chunk table: chunk %u runs past the CPU's data", n);
		return false;
	}
	got = pread(r->fd, sizes, sizeof(sizes), c->pos);
	if (got != sizeof(sizes)) {
		stop_cpu(r, cpu, c, "chunk table: cannot read chunk %u: %s", n,
			 got < 0 ? strerror(errno) : "the file is shorter");
		return false;
	}
	csize = file32(r, sizes[0]);
	usize = file32(r, sizes[1]);
	why = ustack_tracedat_check_chunk_sizes(csize, usize, c->end_pos - c->pos - 8, r->page);
	if (why) {
		stop_cpu(r, cpu, c, "chunk %u claims %u bytes in %u: %s", n, usize, csize, why);
		return false;
	}
	if (grow(c, usize)) {
		stop_cpu(r, cpu, c, "chunk %u: out of memory for its %u bytes", n, usize);
		return false;
	}
	got = ustack_tracedat_check_inflate(r->zip, r->fd, c->pos, usize, c->buf);
	if (got < 0 && errno == EBADMSG)
		stop_cpu(r, cpu, c, "chunk %u (byte %llu of its data) does not decompress", n,
			 (unsigned long long)c->done);
	else if (got < 0)
		stop_cpu(r, cpu, c, "chunk %u: %s", n, strerror(errno));
	else if (got != usize)
		stop_cpu(r, cpu, c, "chunk %u decompresses to %s%zd bytes, its header says %u",
			 n, got > usize ? "more than " : "", got > usize ? got - 1 : got, usize);
	if (got != usize)
		return false;
	c->pos += 8 + (uint64_t)csize;
	c->chunks_left--;
	c->chunk++;
	c->len = usize;
	return true;
}

/* The next pages of uncompressed data into c->buf; false when the CPU stops */
static bool read_pages(struct ustack_tracedat_cpu *r, int cpu, struct tracedat_cpu_state *c)
{
	uint64_t left = c->data->size - c->done;
	size_t len = (size_t)r->page * USTACK_TRACEDAT_PAGES_PER_READ;
	ssize_t got;

	if (len > left)
		len = left;
	if (grow(c, len)) {
		stop_cpu(r, cpu, c, "out of memory for %zu bytes of its data", len);
		return false;
	}
	got = pread(r->fd, c->buf, len, c->data->offset + c->done);
	if (got != (ssize_t)len) {
		stop_cpu(r, cpu, c, "cannot read its data past byte %llu: %s",
			 (unsigned long long)c->done,
			 got < 0 ? strerror(errno) : "the file is shorter");
		return false;
	}
	c->len = len;
	return true;
}

/* Whether the CPU's data has more to read; refills c->buf when it must */
static bool refill(struct ustack_tracedat_cpu *r, int cpu, struct tracedat_cpu_state *c)
{
	if (c->end)
		return false;
	if (c->at < c->len)
		return true;
	c->done += c->len;
	c->len = c->at = 0;
	if (r->zip)
		return c->chunks_left && read_chunk(r, cpu, c);
	return c->done < c->data->size && read_pages(r, cpu, c);
}

/* The sub-buffer's commit word, as the file stores it */
static uint64_t commit_of(const struct ustack_tracedat_cpu *r, const char *page)
{
	uint64_t v64;
	uint32_t v32;

	if (r->layout->lsize == 8) {
		memcpy(&v64, page + 8, 8);
		return r->layout->big ? be64toh(v64) : le64toh(v64);
	}
	memcpy(&v32, page + 8, 4);
	return file32(r, v32);
}

/*
 * Load the CPU's next page into its kbuffer. A page that cannot be read
 * or decompressed, or whose commit runs past it, ends the CPU (as in
 * libtracecmd, which says "bad page read"), counted and said once.
 */
static bool next_page(struct ustack_tracedat_cpu *r, int cpu, struct tracedat_cpu_state *c)
{
	char *page;

	if (!refill(r, cpu, c)) {
		c->end = true;
		return false;
	}
	page = c->buf + c->at;
	if (c->len - c->at < r->page || !ustack_tracedat_check_commit_fits(commit_of(r, page), r->page,
								    r->layout->lsize)) {
		stop_cpu(r, cpu, c, "sub-buffer %llu runs past its page",
			 (unsigned long long)((c->done + c->at) / r->page));
		return false;
	}
	kbuffer_load_subbuffer(c->kbuf, page);
	/* uncompressed: the file offset, as libtracecmd's; else any multiple of the page */
	c->page_off = (r->zip ? 0 : c->data->offset) + c->done + c->at;
	c->at += r->page;
	c->loaded = true;
	return true;
}

static void rewind_cpu(struct tracedat_cpu_state *c)
{
	c->lost = 0;
	c->drops = false;
	c->len = c->at = 0;
	c->done = 0;
	c->loaded = false;
	c->end = !c->data;
	c->chunk = 0;
	c->chunks_left = 0;
	if (c->data) {
		c->pos = c->data->offset + 4;
		c->end_pos = c->pos + c->data->size;
	}
}

/* Compressed data starts with its count of chunks, bounded as the structure check does */
static void read_count(struct ustack_tracedat_cpu *r, int cpu, struct tracedat_cpu_state *c)
{
	uint32_t count;
	ssize_t got;

	got = pread(r->fd, &count, 4, c->data->offset);
	if (got != 4) {
		stop_cpu(r, cpu, c, "chunk table: cannot read its count: %s",
			 got < 0 ? strerror(errno) : "the file is shorter");
		return;
	}
	c->chunks_left = file32(r, count);
	if (c->chunks_left > c->data->size / 8)
		stop_cpu(r, cpu, c, "chunk table: %u chunks cannot fit in its %llu bytes",
			 c->chunks_left, (unsigned long long)c->data->size);
}

/*
 * A page that holds no record: the markers of ustack-dropped.c. One with
 * a number ends a span of drops (summed, with the kernel's missed
 * events of such a page, if any); one without begins one.
 */
static void add_lost(struct tracedat_cpu_state *c, long long missed)
{
	if (missed < 0) {
		c->drops = true;
	} else if (missed > 0) {
		c->lost += missed;
		c->drops = false;
	}
}

/**
 * ustack_tracedat_cpu_take_lost - what pages with no record told
 * @r: the reader
 * @cpu: the CPU
 * @drops: set when the last of them began a span of drops
 *	(lib/ustack-dropped.c), else cleared
 *
 * Those read since the last call: they come after every record of the CPU
 * handed out before the last ustack_tracedat_cpu_next(), and before the
 * record it returned (or the CPU's end). Returns the records they say
 * were lost, then 0.
 */
long long ustack_tracedat_cpu_take_lost(struct ustack_tracedat_cpu *r, int cpu, bool *drops)
{
	long long n;

	*drops = false;
	if (cpu < 0 || cpu >= r->nr)
		return 0;
	n = r->cpus[cpu].lost;
	*drops = r->cpus[cpu].drops;
	r->cpus[cpu].lost = 0;
	r->cpus[cpu].drops = false;
	return n;
}

/**
 * ustack_tracedat_cpu_next - the CPU's next record
 * @r: the reader
 * @cpu: the CPU
 * @first: start from the CPU's first record again
 *
 * The record is the reader's: valid until the next call for this CPU,
 * never freed by the caller. Returns NULL at the end of the CPU's data.
 */
struct tep_record *ustack_tracedat_cpu_next(struct ustack_tracedat_cpu *r, int cpu, bool first)
{
	struct tracedat_cpu_state *c;
	unsigned long long ts;
	void *data;

	if (cpu < 0 || cpu >= r->nr)
		return NULL;
	c = &r->cpus[cpu];
	if (first) {
		rewind_cpu(c);
		if (c->data && r->zip)
			read_count(r, cpu, c);
	}
	for (;;) {
		if (!c->loaded && !next_page(r, cpu, c))
			return NULL;
		data = kbuffer_read_event(c->kbuf, &ts);
		if (data)
			break;
		/* only a page with no record is still at its start here */
		add_lost(c, kbuffer_missed_events(c->kbuf));
		c->loaded = false;
	}
	memset(&c->rec, 0, sizeof(c->rec));
	c->rec.ts = ts;
	c->rec.size = kbuffer_event_size(c->kbuf);
	c->rec.record_size = kbuffer_curr_size(c->kbuf);
	c->rec.cpu = cpu;
	c->rec.data = data;
	c->rec.offset = c->page_off + kbuffer_curr_offset(c->kbuf);
	c->rec.missed_events = kbuffer_missed_events(c->kbuf);
	c->rec.ref_count = 1;
	kbuffer_next_event(c->kbuf, NULL);
	return &c->rec;
}

/**
 * ustack_tracedat_cpu_bad - CPUs a bad page ended early since the reader opened
 * @r: the reader
 */
unsigned long ustack_tracedat_cpu_bad(const struct ustack_tracedat_cpu *r)
{
	return r->bad;
}

void ustack_tracedat_cpu_close(struct ustack_tracedat_cpu *r)
{
	int c;

	if (!r)
		return;
	for (c = 0; r->cpus && c < r->nr; c++) {
		kbuffer_free(r->cpus[c].kbuf);
		free(r->cpus[c].buf);
	}
	free(r->cpus);
	tracecmd_compress_destroy(r->zip);
	free(r);
}
