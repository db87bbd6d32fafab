// SPDX-License-Identifier: LGPL-2.1
/*
 * The structure of a trace.dat, checked before libtracecmd reads it.
 *
 * libtracecmd 1.3 (trace-cmd 3.1.6) trusts what the file says: it divides
 * by the page size it reads (0 kills it with SIGFPE), follows the chain of
 * option sections without looking for a loop (unbounded recursion), seeks
 * to section and CPU data offsets past the end, and frees what it did not
 * set up when a read falls short (tests/data/README.md). Every number it
 * uses to find something is checked here first against the file: the
 * header, the page sizes, each section and option offset and size, the
 * chain of option sections (no loop), each CPU's data and, when
 * compressed, its table of chunks, else the header of each of its
 * sub-buffers. Formats and records themselves are libtraceevent's and the
 * reader's (ustack-tracedat.c) to check.
 *
 * What compressed data may make a reader allocate and decompress is
 * bounded before anything is decompressed: a chunk holds at most
 * MAX_CHUNK_PAGES sub-buffers, a section at most MAX_SECTION bytes, all
 * of them together at most MAX_INFLATE times the size of the file, and
 * the chunks read at once (one a CPU) fit the memory budget
 * (ustack_tracedat_check_budget()). Compressed sub-buffers are seen once
 * decompressed: by our reader (ustack-tracedat-cpu.c), which checks each header
 * before it loads it, or, where libtracecmd reads them itself, by
 * ustack_tracedat_check_chunks() beforehand.
 *
 * File versions 6 (sections one after another) and 7 (sections found
 * through options) are the ones libtracecmd 1.3 reads.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <event-parse.h>

#include "tracecmd-private-decls.h"
#include "ustack-array.h"
#include "ustack-err.h"
#include "ustack-session.h"
#include "ustack-tracedat-check.h"

#define SEC_FL_COMPRESS		1
#define SEC_HEADER_SIZE		16	/* id 2, flags 2, string 4, size 8 */
#define MAX_OPTION_SECTIONS	1024
#define MAX_CPUS		65536
#define MIN_PAGE		1024
#define MAX_PAGE		(1U << 24)
/* Decompressed size of one section: the kallsyms of a big kernel are 30 MB */
#define MAX_SECTION		(64U << 20)
/*
 * Sub-buffers in one chunk of compressed CPU data: trace-cmd writes 10
 * (PAGES_IN_CHUNK of its trace-output.c, 3.1.6 through 3.4), and a reader
 * holds a whole chunk to read one of them.
 */
#define MAX_CHUNK_PAGES		32
#define STR_(x)			#x
#define STR(x)			STR_(x)
/*
 * Bytes decompressed, sections and CPU data together, per byte of the
 * file: trace-cmd's zstd gives its recordings 10 to 40 (bench of issue
 * 44: 36 for dense sched events), a 4-byte zstd block 128 KiB. Each
 * decompressed byte is also a byte for the report to parse.
 */
#define MAX_INFLATE		128
/* Memory a CPU with data takes to read besides its pages (see check_cpu_data()) */
#define CPU_HELD		(8U << 10)
#define MAX_NAME		4096
/* The memory budget's variable, as the command reads it (ustack-opts.c) */
#define BUDGET_ENV		"USTACK_MEMORY_BUDGET_MB"

struct tdc {
	int		fd;
	uint64_t	size;		/* of the file */
	bool		big;		/* big-endian file */
	bool		compressed;	/* v7 with an algorithm other than "none" */
	unsigned int	page;
	unsigned int	lsize;		/* bytes in a long of the traced kernel */
	unsigned int	cpus;		/* v6: the count before the options */
	uint64_t	seen[MAX_OPTION_SECTIONS];
	unsigned int	nr_seen;
	uint64_t	inflated;	/* bytes the compressed parts decompress to */
	uint64_t	cpu_inflated;	/* those of CPU data */
	uint64_t	held;		/* what reading each CPU holds, summed: check_cpu_data() */
	uint64_t	biggest;	/* bytes of the largest chunk, either size */
	uint64_t	cpus_read;	/* CPUs with data, of every buffer */
	char		*msg;
	size_t		msg_size;
	int		code;		/* what a failure returns: see ustack_tracedat_check_layout() */
	struct ustack_tracedat_layout *layout;	/* filled in when not NULL */
};

static int bad(struct tdc *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct tdc *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->msg, t->msg_size, fmt, ap);
	va_end(ap);
	return -1;
}

/* A read that failed (EIO, ENOMEM): said as itself, not as damage */
static int failed(struct tdc *t, uint64_t off, int err)
{
	t->code = -err;
	return bad(t, "read at byte %" PRIu64 ": %s", off, strerror(err));
}

/* Whether @len bytes at @off lie inside the file (no overflow) */
static bool inside(const struct tdc *t, uint64_t off, uint64_t len)
{
	return off <= t->size && len <= t->size - off;
}

static int get(struct tdc *t, uint64_t off, void *buf, size_t len, const char *what)
{
	ssize_t r;

	if (!inside(t, off, len))
		return bad(t, "%s at %" PRIu64 " runs past the end of the file", what, off);
	r = pread(t->fd, buf, len, off);
	if (r < 0)
		return failed(t, off, errno);
	if ((size_t)r != len)
		return bad(t, "%s at %" PRIu64 " runs past the end of the file", what, off);
	return 0;
}

static int get16(struct tdc *t, uint64_t off, uint16_t *v, const char *what)
{
	if (get(t, off, v, 2, what))
		return -1;
	*v = t->big ? be16toh(*v) : le16toh(*v);
	return 0;
}

static int get32(struct tdc *t, uint64_t off, uint32_t *v, const char *what)
{
	if (get(t, off, v, 4, what))
		return -1;
	*v = t->big ? be32toh(*v) : le32toh(*v);
	return 0;
}

static int get64(struct tdc *t, uint64_t off, uint64_t *v, const char *what)
{
	if (get(t, off, v, 8, what))
		return -1;
	*v = t->big ? be64toh(*v) : le64toh(*v);
	return 0;
}

/* A NUL-terminated string at @off, within @limit bytes: its length + 1 */
static int get_string(struct tdc *t, uint64_t off, uint64_t limit, char *buf,
		      size_t size, const char *what)
{
	size_t n = limit < size ? limit : size;
	ssize_t r;
	char *nul;

	r = off <= t->size ? pread(t->fd, buf, n, off) : 0;
	if (r < 0)
		return failed(t, off, errno);
	nul = memchr(buf, '\0', r);
	if (!nul)
		return bad(t, "%s at %" PRIu64 " has no end", what, off);
	return nul - buf + 1;
}

static int check_page(struct tdc *t, uint32_t page, const char *what)
{
	if (page < MIN_PAGE || page > MAX_PAGE || (page & (page - 1)))
		return bad(t, "%s page size %" PRIu32 " (want a power of two from %u to %u)",
			   what, page, MIN_PAGE, MAX_PAGE);
	return 0;
}

/* A size followed by that many bytes at *@off (v6); *@off moves past them */
static int skip_sized(struct tdc *t, uint64_t *off, int width, const char *what)
{
	uint64_t len;
	uint32_t len32;

	if (width == 4 ? get32(t, *off, &len32, what) : get64(t, *off, &len, what))
		return -1;
	if (width == 4)
		len = len32;
	*off += width;
	if (!inside(t, *off, len))
		return bad(t, "%s at %" PRIu64 " (%" PRIu64 " bytes) runs past the end of the file",
			   what, *off - width, len);
	*off += len;
	return 0;
}

/* ------------------------------------------------------------------ */
/* CPU data                                                           */
/* ------------------------------------------------------------------ */

/**
 * ustack_tracedat_check_chunk_sizes - whether a chunk's sizes are allowed
 * @csize: its compressed bytes
 * @usize: the bytes it claims to decompress to
 * @left: bytes of the CPU's data after the chunk's sizes
 * @page: the page size of its buffer
 *
 * The rule of the structure check and of the reader, which reads the
 * sizes again. Returns NULL, or what is wrong with them.
 */
const char *ustack_tracedat_check_chunk_sizes(uint32_t csize, uint32_t usize, uint64_t left,
				       unsigned int page)
{
	if (!csize || csize > left)
		return "the compressed bytes run past the CPU's data";
	if (!usize || usize % page || usize / page > MAX_CHUNK_PAGES)
		return "not 1 to " STR(MAX_CHUNK_PAGES) " whole sub-buffers";
	return NULL;
}

/* Whether @usize more bytes decompressed stay within MAX_INFLATE per byte of the file */
static bool inflate(struct tdc *t, uint32_t usize)
{
	t->inflated += usize;
	return t->size > UINT64_MAX / MAX_INFLATE || t->inflated <= t->size * MAX_INFLATE;
}

#define INFLATE_FMT \
	"the compressed parts of the file decompress to more than %d times its %" PRIu64 " bytes"

/*
 * Compressed CPU data: a count of chunks, then each chunk's compressed
 * and uncompressed sizes and the compressed bytes. The size the buffer
 * option gives leaves out the count.
 */
static int check_chunks(struct tdc *t, uint64_t off, uint64_t size, int cpu,
			unsigned int psize)
{
	uint64_t pos = off + 4, end, most = 0;
	uint32_t count, csize, usize, i;
	const char *why;

	if (size > t->size || !inside(t, off, size + 4))
		return bad(t, "CPU %d data at %" PRIu64 " (%" PRIu64
			   " bytes) runs past the end of the file", cpu, off, size);
	end = off + 4 + size;
	if (get32(t, off, &count, "chunk table"))
		return -1;
	if (count > size / 8)
		return bad(t, "CPU %d: chunk table at %" PRIu64 ": %" PRIu32
			   " chunks cannot fit in its %" PRIu64 " bytes", cpu, off, count, size);
	for (i = 0; i < count; i++) {
		if (end - pos < 8)
			return bad(t, "CPU %d: chunk table: chunk %" PRIu32 " at %" PRIu64
				   " runs past the CPU's data", cpu, i, pos);
		if (get32(t, pos, &csize, "chunk table") || get32(t, pos + 4, &usize, "chunk table"))
			return -1;
		pos += 8;
		why = ustack_tracedat_check_chunk_sizes(csize, usize, end - pos, psize);
		if (why)
			return bad(t, "CPU %d: chunk %" PRIu32 " at %" PRIu64 " claims %" PRIu32
				   " bytes in %" PRIu32 ": %s", cpu, i, pos - 8, usize, csize, why);
		if (!inflate(t, usize))
			return bad(t, "CPU %d: chunk %" PRIu32 " at %" PRIu64 ": " INFLATE_FMT,
				   cpu, i, pos - 8, MAX_INFLATE, t->size);
		t->cpu_inflated += usize;
		if (usize > most)
			most = usize;
		if (usize > t->biggest || csize > t->biggest)
			t->biggest = usize > csize ? usize : csize;
		pos += csize;
	}
	t->held += most;
	return 0;
}

/*
 * Sub-buffer headers: a timestamp, then the commit (a long) whose low
 * bits are the bytes of data and whose top bits say events were lost and
 * their count is stored after the data. libtraceevent's kbuffer reads
 * that count wherever the commit says (kbuffer-lost.dat of
 * tests/data/README.md): commit and count must fit in the page.
 */
#define COMMIT_MASK		((1U << 27) - 1)
#define COMMIT_MISSED_STORED	(1U << 30)

/**
 * ustack_tracedat_check_commit_fits - whether a sub-buffer's commit fits its page
 * @commit: the commit word of the sub-buffer header
 * @page: the page size
 * @lsize: the long size of the traced kernel (that of the commit word)
 *
 * The rule for sub-buffers read from the file here and for those
 * decompressed by the reader (ustack-tracedat-cpu.c).
 */
bool ustack_tracedat_check_commit_fits(uint64_t commit, unsigned int page, unsigned int lsize)
{
	uint64_t room = page - 8 - lsize;

	return (commit & COMMIT_MASK) + (commit & COMMIT_MISSED_STORED ? lsize : 0) <= room;
}

static int check_pages(struct tdc *t, uint64_t off, uint64_t size, int cpu,
		       unsigned int psize)
{
	uint64_t page, commit, room = psize - 8 - t->lsize;
	uint32_t commit32;

	for (page = off; page < off + size; page += psize) {
		if (t->lsize == 8 ? get64(t, page + 8, &commit, "sub-buffer") :
				    get32(t, page + 8, &commit32, "sub-buffer"))
			return -1;
		if (t->lsize != 8)
			commit = commit32;
		if (!ustack_tracedat_check_commit_fits(commit, psize, t->lsize))
			return bad(t, "CPU %d: sub-buffer at %" PRIu64 " claims %" PRIu64
				   " bytes of %" PRIu64, cpu, page, commit & COMMIT_MASK, room);
	}
	return 0;
}

/*
 * @psize: the page size of the CPU's buffer (version 7 gives each its own).
 * What reading it holds: CPU_HELD (libtracecmd's first page of it, both
 * readers' state), and the pages read at once from uncompressed data
 * (compressed: the largest chunk, check_chunks()). Entries of the buffer
 * options may all point at the same data: each is counted.
 */
static int check_cpu_data(struct tdc *t, uint64_t off, uint64_t size, int cpu,
			  unsigned int psize)
{
	uint64_t batch = (uint64_t)USTACK_TRACEDAT_PAGES_PER_READ * psize;

	if (!size)
		return 0;
	t->held += CPU_HELD;
	t->cpus_read++;
	if (t->compressed)
		return check_chunks(t, off, size, cpu, psize);
	t->held += size < batch ? size : batch;
	if (!inside(t, off, size))
		return bad(t, "CPU %d data at %" PRIu64 " (%" PRIu64
			   " bytes) runs past the end of the file", cpu, off, size);
	if (off % psize || size % psize)
		return bad(t, "CPU %d data at %" PRIu64 " (%" PRIu64
			   " bytes) is not in whole pages", cpu, off, size);
	return check_pages(t, off, size, cpu, psize);
}

/* ------------------------------------------------------------------ */
/* Version 7                                                          */
/* ------------------------------------------------------------------ */

/* The section at @off: its id is @id and it lies inside the file */
static int check_section(struct tdc *t, uint64_t off, uint16_t id)
{
	uint16_t sid, flags;
	uint32_t csize, usize;
	uint64_t size;

	if (get16(t, off, &sid, "section") || get16(t, off + 2, &flags, "section") ||
	    get64(t, off + 8, &size, "section"))
		return -1;
	/* a latency buffer's section: its own type, or a buffer's */
	if (sid != id && !(id == USTACK_TRACECMD_OPTION_BUFFER_TEXT &&
			   sid == USTACK_TRACECMD_OPTION_BUFFER))
		return bad(t, "section at %" PRIu64 " is of type %u, its option says %u",
			   off, sid, id);
	if (!inside(t, off + SEC_HEADER_SIZE, size))
		return bad(t, "section at %" PRIu64 " (%" PRIu64
			   " bytes) runs past the end of the file", off, size);
	if (!(flags & SEC_FL_COMPRESS) || id == USTACK_TRACECMD_OPTION_BUFFER ||
	    id == USTACK_TRACECMD_OPTION_BUFFER_TEXT)
		return 0;
	if (size < 8 || get32(t, off + SEC_HEADER_SIZE, &csize, "section") ||
	    get32(t, off + SEC_HEADER_SIZE + 4, &usize, "section"))
		return bad(t, "section at %" PRIu64 " is too short", off);
	if (csize > size - 8 || usize > MAX_SECTION)
		return bad(t, "compressed section at %" PRIu64 " claims %" PRIu32
			   " bytes in %" PRIu64 ", %" PRIu32 " decompressed (at most %u)",
			   off, csize, size - 8, usize, MAX_SECTION);
	if (!inflate(t, usize))
		return bad(t, "compressed section at %" PRIu64 ": " INFLATE_FMT, off, MAX_INFLATE,
			   t->size);
	return 0;
}

/*
 * A buffer's entry in the layout, its CPUs left for the caller to fill
 * in; NULL when no layout is wanted or memory ran out (then marked
 * incomplete: the reader falls back on libtracecmd's).
 */
static struct ustack_tracedat_layout_buffer *layout_buffer(struct tdc *t, const char *name,
						    uint32_t page, uint32_t cpus)
{
	struct ustack_tracedat_layout *l = t->layout;
	struct ustack_tracedat_layout_buffer *b;

	if (!l || l->incomplete)
		return NULL;
	if (ustack_array_grow((void **)&l->buffers, &l->alloc_buffers, l->nr_buffers + 1,
			      sizeof(*l->buffers)))
		goto fail;
	b = &l->buffers[l->nr_buffers];
	b->name = strdup(name);
	b->cpus = calloc(cpus ? cpus : 1, sizeof(*b->cpus));
	if (!b->name || !b->cpus) {
		free(b->name);
		free(b->cpus);
		goto fail;
	}
	b->page = page;
	b->nr_cpus = cpus;
	l->nr_buffers++;
	return b;
 fail:
	l->incomplete = true;
	return NULL;
}

/* BUFFER: section offset, name, clock, page size, CPUs and their data */
static int check_buffer_v7(struct tdc *t, uint64_t off, uint32_t len)
{
	uint64_t end = off + len, soff, doff, dsize;
	struct ustack_tracedat_layout_buffer *b;
	uint32_t page, cpus, id, i;
	char buf[MAX_NAME], name[MAX_NAME];
	int n;

	if (len < 8 || get64(t, off, &soff, "buffer option") ||
	    check_section(t, soff, USTACK_TRACECMD_OPTION_BUFFER))
		return len < 8 ? bad(t, "buffer option at %" PRIu64 " is too short", off) : -1;
	off += 8;
	n = get_string(t, off, end - off, name, sizeof(name), "buffer name");
	if (n < 0)
		return -1;
	off += n;
	n = get_string(t, off, end - off, buf, sizeof(buf), "buffer clock");
	if (n < 0)
		return -1;
	off += n;
	if (end - off < 8)
		return bad(t, "buffer option at %" PRIu64 " is too short", off);
	if (get32(t, off, &page, "buffer") || check_page(t, page, "buffer") ||
	    get32(t, off + 4, &cpus, "buffer"))
		return -1;
	off += 8;
	if (cpus > MAX_CPUS || cpus * 20ULL > end - off)
		return bad(t, "buffer option at %" PRIu64 " claims %" PRIu32 " CPUs", off, cpus);
	b = layout_buffer(t, name, page, cpus);
	for (i = 0; i < cpus; i++, off += 20) {
		if (get32(t, off, &id, "cpu") || get64(t, off + 4, &doff, "cpu") ||
		    get64(t, off + 12, &dsize, "cpu") || check_cpu_data(t, doff, dsize, id, page))
			return -1;
		if (b)
			b->cpus[i] = (struct ustack_tracedat_layout_cpu){ id, doff, dsize };
	}
	return 0;
}

/*
 * Options after which libtracecmd's records are not the ring buffer's as
 * they are stored: timestamps shifted (DATE, OFFSET, TIME_SHIFT) or
 * scaled (TSC2NSEC), latency text instead of sub-buffers.
 */
static void note_option(struct tdc *t, uint16_t id)
{
	if (!t->layout)
		return;
	switch (id) {
	case USTACK_TRACECMD_OPTION_DATE:
	case USTACK_TRACECMD_OPTION_OFFSET:
	case USTACK_TRACECMD_OPTION_TIME_SHIFT:
	case USTACK_TRACECMD_OPTION_TSC2NSEC:
		t->layout->ts_options = true;
		break;
	case USTACK_TRACECMD_OPTION_BUFFER_TEXT:
		t->layout->latency = true;
		break;
	}
}

/* Where the kallsyms section's compressed block starts, for the reader */
static void note_kallsyms(struct tdc *t, uint64_t soff)
{
	uint16_t flags;

	if (t->layout && !get16(t, soff + 2, &flags, "section") && (flags & SEC_FL_COMPRESS))
		t->layout->kallsyms_block = soff + SEC_HEADER_SIZE;
}

/* One option of a v7 options section; *@next is set by DONE */
static int check_option_v7(struct tdc *t, uint16_t id, uint64_t off, uint32_t len,
			   uint64_t *next)
{
	uint64_t soff;

	note_option(t, id);
	switch (id) {
	case USTACK_TRACECMD_OPTION_DONE:
		if (len < 8)
			return bad(t, "option end at %" PRIu64 " is too short", off);
		return get64(t, off, next, "option end");
	case USTACK_TRACECMD_OPTION_BUFFER:
		return check_buffer_v7(t, off, len);
	case USTACK_TRACECMD_OPTION_HEADER_INFO ... USTACK_TRACECMD_OPTION_CMDLINES:
	case USTACK_TRACECMD_OPTION_BUFFER_TEXT:
		if (len < 8)
			return bad(t, "option at %" PRIu64 " is too short", off);
		if (get64(t, off, &soff, "option") || check_section(t, soff, id))
			return -1;
		if (id == USTACK_TRACECMD_OPTION_KALLSYMS)
			note_kallsyms(t, soff);
		return 0;
	}
	return 0;
}

static bool seen_before(struct tdc *t, uint64_t off)
{
	unsigned int i;

	for (i = 0; i < t->nr_seen; i++)
		if (t->seen[i] == off)
			return true;
	return false;
}

/* The chain of option sections, each read once */
static int check_v7(struct tdc *t, uint64_t off)
{
	uint64_t pos, end, size, next;
	uint16_t sid, flags, id;
	uint32_t len;

	while (off) {
		if (seen_before(t, off))
			return bad(t, "the option sections loop (back to %" PRIu64 ")", off);
		if (t->nr_seen == MAX_OPTION_SECTIONS)
			return bad(t, "more than %d option sections", MAX_OPTION_SECTIONS);
		t->seen[t->nr_seen++] = off;
		if (check_section(t, off, USTACK_TRACECMD_OPTION_DONE) ||
		    get16(t, off, &sid, "section") || get16(t, off + 2, &flags, "section") ||
		    get64(t, off + 8, &size, "section"))
			return -1;
		/* libtracecmd 1.3 writes them uncompressed: nothing more to see */
		if (flags & SEC_FL_COMPRESS) {
			if (t->layout)
				t->layout->incomplete = true;
			return 0;
		}
		pos = off + SEC_HEADER_SIZE;
		end = pos + size;
		next = UINT64_MAX;
		while (next == UINT64_MAX) {
			if (end - pos < 6)
				return bad(t, "option section at %" PRIu64 " has no end", off);
			if (get16(t, pos, &id, "option") || get32(t, pos + 2, &len, "option"))
				return -1;
			pos += 6;
			if (len > end - pos)
				return bad(t, "option at %" PRIu64 " (%" PRIu32
					   " bytes) runs past its section", pos - 6, len);
			if (check_option_v7(t, id, pos, len, &next))
				return -1;
			if (id != USTACK_TRACECMD_OPTION_DONE)
				next = UINT64_MAX;
			pos += len;
		}
		off = next;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Version 6                                                          */
/* ------------------------------------------------------------------ */

static int expect(struct tdc *t, uint64_t *off, const char *s, size_t len)
{
	char buf[16];

	if (get(t, *off, buf, len, s) || memcmp(buf, s, len))
		return bad(t, "no \"%s\" at %" PRIu64, s, *off);
	*off += len;
	return 0;
}

/* header page and event, ftrace and event formats, kallsyms, printk, cmdlines */
static int check_metadata_v6(struct tdc *t, uint64_t *off)
{
	uint32_t n, systems, i, j;
	char buf[MAX_NAME];
	int len;

	if (expect(t, off, "header_page", 12) || skip_sized(t, off, 8, "header page") ||
	    expect(t, off, "header_event", 13) || skip_sized(t, off, 8, "header event") ||
	    get32(t, *off, &n, "ftrace formats"))
		return -1;
	for (*off += 4, i = 0; i < n; i++)
		if (skip_sized(t, off, 8, "ftrace format"))
			return -1;
	if (get32(t, *off, &systems, "event systems"))
		return -1;
	for (*off += 4, i = 0; i < systems; i++) {
		len = get_string(t, *off, MAX_NAME, buf, sizeof(buf), "event system");
		if (len < 0 || get32(t, *off + len, &n, "event formats"))
			return -1;
		for (*off += len + 4, j = 0; j < n; j++)
			if (skip_sized(t, off, 8, "event format"))
				return -1;
	}
	if (skip_sized(t, off, 4, "kallsyms") || skip_sized(t, off, 4, "printk formats") ||
	    skip_sized(t, off, 8, "command lines") || get32(t, *off, &t->cpus, "CPU count"))
		return -1;
	*off += 4;
	if (t->cpus > MAX_CPUS)
		return bad(t, "%" PRIu32 " CPUs", t->cpus);
	return 0;
}

/* CPUs times an offset and a size, at @off */
static int check_cpus_v6(struct tdc *t, uint64_t off)
{
	uint64_t doff, dsize;
	unsigned int i;

	for (i = 0; i < t->cpus; i++, off += 16)
		if (get64(t, off, &doff, "CPU data") || get64(t, off + 8, &dsize, "CPU data") ||
		    check_cpu_data(t, doff, dsize, i, t->page))
			return -1;
	return 0;
}

/* "flyrecord" and the CPUs' data, or "latency  " and text */
static int check_data_v6(struct tdc *t, uint64_t off)
{
	char buf[10];

	if (get(t, off, buf, 10, "data type"))
		return -1;
	if (!memcmp(buf, "latency  ", 10))
		return 0;
	if (memcmp(buf, "flyrecord", 10))
		return bad(t, "unknown data type at %" PRIu64, off);
	return check_cpus_v6(t, off + 10);
}

static int check_options_v6(struct tdc *t, uint64_t *off)
{
	uint64_t boff;
	uint32_t len;
	uint16_t id;

	for (;;) {
		if (get16(t, *off, &id, "option"))
			return -1;
		*off += 2;
		if (id == USTACK_TRACECMD_OPTION_DONE)
			return 0;
		if (get32(t, *off, &len, "option"))
			return -1;
		*off += 4;
		if (!inside(t, *off, len))
			return bad(t, "option at %" PRIu64 " (%" PRIu32
				   " bytes) runs past the end of the file", *off - 6, len);
		if (id == USTACK_TRACECMD_OPTION_BUFFER) {
			if (len < 8 || get64(t, *off, &boff, "buffer option"))
				return bad(t, "buffer option at %" PRIu64 " is too short", *off);
			/* the buffer's own data type and CPUs, like the top one's */
			if (check_data_v6(t, boff))
				return -1;
		}
		*off += len;
	}
}

static int check_v6(struct tdc *t, uint64_t off)
{
	char buf[10];

	if (check_metadata_v6(t, &off))
		return -1;
	if (get(t, off, buf, 10, "data type"))
		return -1;
	if (!memcmp(buf, "options  ", 10)) {
		off += 10;
		if (check_options_v6(t, &off))
			return -1;
	}
	return check_data_v6(t, off);
}

/* ------------------------------------------------------------------ */

/* magic, version, endianness, long size, page size; v7's compression */
static int check_header(struct tdc *t, uint64_t *off, int *version)
{
	unsigned char endian, lsize;
	char buf[64];
	uint32_t page;
	int n;

	n = get_string(t, 10, sizeof(buf), buf, sizeof(buf), "version");
	if (n < 0)
		return -1;
	if (strcmp(buf, "6") && strcmp(buf, "7"))
		return bad(t, "file version '%.16s' (libtracecmd reads 6 and 7)", buf);
	*version = buf[0] - '0';
	*off = 10 + n;
	if (get(t, *off, &endian, 1, "header") || get(t, *off + 1, &lsize, 1, "header"))
		return -1;
	if (endian > 1 || (lsize != 4 && lsize != 8))
		return bad(t, "header: endianness %u, long size %u", endian, lsize);
	t->big = endian;
	t->lsize = lsize;
	*off += 2;
	if (get32(t, *off, &page, "page size") || check_page(t, page, "file"))
		return -1;
	t->page = page;
	*off += 4;
	if (*version == 6)
		return 0;
	n = get_string(t, *off, sizeof(buf), buf, sizeof(buf), "compression");
	if (n < 0)
		return -1;
	t->compressed = strcmp(buf, "none") != 0;
	if (t->layout)
		strcpy(t->layout->compression, buf);
	*off += n;
	n = get_string(t, *off, sizeof(buf), buf, sizeof(buf), "compression version");
	if (n < 0)
		return -1;
	if (t->layout)
		strcpy(t->layout->compression_version, buf);
	*off += n;
	return 0;
}

/**
 * ustack_tracedat_check_budget - the memory reading a trace.dat may hold at once
 *
 * In bytes: USTACK_MEMORY_BUDGET_MB MiB from the environment, the budget
 * of the session's held samples too; 0 there is no budget (UINT64_MAX).
 * Unset or not a number: USTACK_MEM_BUDGET_DEFAULT (the command says a
 * bad value once, when it reads its options).
 */
uint64_t ustack_tracedat_check_budget(void)
{
	const char *env = getenv(BUDGET_ENV);
	unsigned long long mb;
	char *end;

	if (!env || *env < '0' || *env > '9')
		return USTACK_MEM_BUDGET_DEFAULT;
	errno = 0;
	mb = strtoull(env, &end, 10);
	if (errno || *end || mb > UINT64_MAX >> 20)
		return USTACK_MEM_BUDGET_DEFAULT;
	return mb ? (uint64_t)mb << 20 : UINT64_MAX;
}

/* What the readers hold at once: a chunk (or pages) a CPU, and one being decompressed */
static int check_budget(struct tdc *t)
{
	uint64_t need = t->held + 2 * t->biggest, budget = ustack_tracedat_check_budget();

	if (need <= budget)
		return 0;
	t->code = USTACK_ERR_BUDGET;
	return bad(t, "reading its CPU data takes %" PRIu64 " MiB at once (%" PRIu64
		   " CPUs, a chunk or %d sub-buffers of each), over the memory budget of %"
		   PRIu64 " MiB (" BUDGET_ENV ")", (need + (1 << 20) - 1) >> 20, t->cpus_read,
		   USTACK_TRACEDAT_PAGES_PER_READ, budget >> 20);
}

static int check_file(struct tdc *t)
{
	struct stat st;
	uint64_t off = 0, first;
	int version = 0;

	if (fstat(t->fd, &st)) {
		t->code = -errno;
		return bad(t, "fstat: %s", strerror(errno));
	}
	t->size = st.st_size;
	if (check_header(t, &off, &version))
		return -1;
	if (t->layout) {
		t->layout->version = version;
		t->layout->big = t->big;
		t->layout->compressed = t->compressed;
		t->layout->lsize = t->lsize;
		t->layout->page = t->page;
	}
	if (version == 6)
		return check_v6(t, off) ? -1 : check_budget(t);
	if (get64(t, off, &first, "first option section"))
		return -1;
	if (!first)
		return bad(t, "no option section");
	if (check_v7(t, first))
		return -1;
	if (t->layout)
		t->layout->cpu_inflated = t->cpu_inflated;
	return check_budget(t);
}

/**
 * ustack_tracedat_check_file - check the structure of a trace.dat
 * @fd: the file, open for reading (its magic already seen)
 * @msg: set to a one-line reason when it is refused
 * @size: of @msg
 *
 * Returns as ustack_tracedat_check_layout().
 */
int ustack_tracedat_check_file(int fd, char *msg, size_t size)
{
	return ustack_tracedat_check_layout(fd, NULL, msg, size);
}

/**
 * ustack_tracedat_check_layout - check the structure of a trace.dat, keeping what
 *	it found
 * @fd: the file, open for reading (its magic already seen)
 * @layout: filled in (zero it first; free it with ustack_tracedat_check_layout_free()
 *	whatever the result), or NULL
 * @msg: set to a one-line reason when it is refused
 * @size: of @msg
 *
 * The buffers and their CPUs' data are those of a version 7 file only: a
 * version 6 file has none in @layout.
 *
 * Returns 0 when every offset and size libtracecmd follows stays inside
 * the file, the option sections do not loop and what the compressed parts
 * decompress to is within bounds (see above); else, with @msg set, -1
 * for damage, USTACK_ERR_BUDGET for a file over the memory budget, or
 * -errno when the file could not be read.
 */
int ustack_tracedat_check_layout(int fd, struct ustack_tracedat_layout *layout, char *msg, size_t size)
{
	struct tdc t = { .fd = fd, .msg = msg, .msg_size = size, .code = -1, .layout = layout };

	return check_file(&t) ? t.code : 0;
}

/**
 * ustack_tracedat_check_inflate - decompress one chunk of CPU data
 * @zip: a decompressor of the file's algorithm that reads @fd
 * @fd: the file
 * @pos: the file offset of the chunk's sizes
 * @usize: the size it claims, allowed by ustack_tracedat_check_chunk_sizes()
 * @buf: room for @usize bytes
 *
 * The chunk is decompressed as a block (its sizes and bytes are laid out
 * as one), for the size it really decompresses to:
 * tracecmd_uncompress_chunk() does not say it, and leaves what the buffer
 * held before past a chunk that decompresses to less than it claims.
 *
 * Returns the bytes it decompressed to, @usize + 1 standing for more than
 * @usize; or -1 with errno: ENOMEM, EIO (the file could not be read) or
 * EBADMSG (it does not decompress).
 */
ssize_t ustack_tracedat_check_inflate(struct tracecmd_compression *zip, int fd, uint64_t pos,
			       uint32_t usize, char *buf)
{
	ssize_t got;
	char more;

	errno = 0;
	if (lseek(fd, pos, SEEK_SET) < 0)
		return -1;
	if (tracecmd_uncompress_block(zip)) {
		/* the algorithms' own codes come as negative errnos */
		if (errno != ENOMEM && errno != EIO)
			errno = EBADMSG;
		return -1;
	}
	got = tracecmd_compress_buffer_read(zip, buf, usize);
	if (got == (ssize_t)usize && tracecmd_compress_buffer_read(zip, &more, 1) == 1)
		got = (ssize_t)usize + 1;
	tracecmd_compress_reset(zip);
	return got < 0 ? 0 : got;
}

/* A decompressor of the layout's algorithm on @fd, with its own parser for endianness */
static struct tracecmd_compression *decompressor(const struct ustack_tracedat_layout *l, int fd,
						 struct tep_handle **tep)
{
	*tep = tep_alloc();
	if (!*tep)
		return NULL;
	tep_set_file_bigendian(*tep, l->big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(*tep, __BYTE_ORDER == __BIG_ENDIAN ? TEP_BIG_ENDIAN :
								     TEP_LITTLE_ENDIAN);
	return tracecmd_compress_alloc(l->compression, l->compression_version, fd, *tep, NULL);
}

/* One chunk at @pos: its size exactly, each sub-buffer's commit inside its page */
static int check_chunk(struct tdc *t, struct tracecmd_compression *zip, uint64_t pos,
		       uint32_t usize, char *buf, int cpu, uint32_t nr, unsigned int psize)
{
	uint64_t commit;
	uint32_t at, c32;
	ssize_t got;

	got = ustack_tracedat_check_inflate(zip, t->fd, pos, usize, buf);
	if (got < 0 && errno == EBADMSG)
		return bad(t, "CPU %d: chunk %" PRIu32 " at %" PRIu64 " does not decompress",
			   cpu, nr, pos);
	if (got < 0)
		return failed(t, pos, errno);
	if (got != usize)
		return bad(t, "CPU %d: chunk %" PRIu32 " at %" PRIu64 " decompresses to %s%zd bytes, "
			   "its header says %" PRIu32, cpu, nr, pos, got > usize ? "more than " : "",
			   got > usize ? got - 1 : got, usize);
	for (at = 0; at < usize; at += psize) {
		if (t->lsize == 8) {
			memcpy(&commit, buf + at + 8, 8);
			commit = t->big ? be64toh(commit) : le64toh(commit);
		} else {
			memcpy(&c32, buf + at + 8, 4);
			commit = t->big ? be32toh(c32) : le32toh(c32);
		}
		if (!ustack_tracedat_check_commit_fits(commit, psize, t->lsize))
			return bad(t, "CPU %d: chunk %" PRIu32 " at %" PRIu64 ": sub-buffer %" PRIu32
				   " claims %" PRIu64 " bytes of %u", cpu, nr, pos, at / psize,
				   commit & COMMIT_MASK, psize - 8 - t->lsize);
	}
	return 0;
}

/* Every chunk of one CPU's data, its table read again within the same bounds */
static int check_cpu_chunks(struct tdc *t, struct tracecmd_compression *zip,
			    const struct ustack_tracedat_layout_cpu *d, unsigned int psize, char *buf)
{
	uint64_t pos = d->offset + 4, end = d->offset + 4 + d->size;
	uint32_t count, csize, usize, i;

	if (get32(t, d->offset, &count, "chunk table"))
		return -1;
	for (i = 0; i < count; i++) {
		if (end - pos < 8 || get32(t, pos, &csize, "chunk table") ||
		    get32(t, pos + 4, &usize, "chunk table") ||
		    ustack_tracedat_check_chunk_sizes(csize, usize, end - pos - 8, psize))
			return bad(t, "CPU %" PRIu32 ": its chunk table changed while it was read",
				   d->cpu);
		if (check_chunk(t, zip, pos, usize, buf, d->cpu, i, psize))
			return -1;
		pos += 8 + (uint64_t)csize;
	}
	return 0;
}

static int check_buffers(struct tdc *t, struct tracecmd_compression *zip,
			 const struct ustack_tracedat_layout *layout)
{
	const struct ustack_tracedat_layout_buffer *b;
	char *buf = NULL;
	size_t i, j;
	int ret = 0;

	for (i = 0; !ret && i < layout->nr_buffers; i++) {
		b = &layout->buffers[i];
		free(buf);
		buf = malloc((size_t)MAX_CHUNK_PAGES * b->page);
		if (!buf) {
			t->code = USTACK_ERR_NOMEM;
			ret = bad(t, "out of memory");
		}
		for (j = 0; !ret && j < b->nr_cpus; j++)
			if (b->cpus[j].size)
				ret = check_cpu_chunks(t, zip, &b->cpus[j], b->page, buf);
	}
	free(buf);
	return ret;
}

/**
 * ustack_tracedat_check_chunks - decompress and check the compressed CPU data
 *	that libtracecmd reads itself
 * @fd: the file
 * @layout: what ustack_tracedat_check_layout() found in it, accepted
 * @msg: set to a one-line reason when it is refused
 * @size: of @msg
 *
 * For compressed files that ustack_tracedat_cpu_open() leaves to libtracecmd:
 * kbuffer loads every sub-buffer it decompresses without a check (a
 * lost-events count read past the page: SIGSEGV), libtracecmd takes a
 * chunk for the size it claims (what the buffer held before stays past a
 * short one) and 3.1.6 keeps every chunk it decompressed (ustack-tracedat-cpu.c).
 * So every chunk is decompressed here first, one at a time: it must
 * decompress to exactly the size it claims, each sub-buffer's commit must
 * fit its page, and all of the CPU data must fit the memory budget.
 *
 * Returns as ustack_tracedat_check_layout().
 */
int ustack_tracedat_check_chunks(int fd, const struct ustack_tracedat_layout *layout, char *msg, size_t size)
{
	struct tdc t = { .fd = fd, .msg = msg, .msg_size = size, .code = -1,
			 .big = layout->big, .lsize = layout->lsize };
	uint64_t budget = ustack_tracedat_check_budget();
	struct tracecmd_compression *zip;
	struct tep_handle *tep;
	struct stat st;
	int ret;

	if (!layout->compressed || !layout->cpu_inflated)
		return 0;
	if (layout->cpu_inflated > budget) {
		t.code = USTACK_ERR_BUDGET;
		bad(&t, "read by libtracecmd, which keeps all of its %" PRIu64 " MiB of "
		    "decompressed CPU data, over the memory budget of %" PRIu64 " MiB ("
		    BUDGET_ENV ")", (layout->cpu_inflated + (1 << 20) - 1) >> 20, budget >> 20);
		return t.code;
	}
	if (fstat(fd, &st)) {
		bad(&t, "fstat: %s", strerror(errno));
		return -errno;
	}
	t.size = st.st_size;
	zip = decompressor(layout, fd, &tep);
	if (!zip) {
		bad(&t, "no decompressor for %s %s", layout->compression,
		    layout->compression_version);
		ret = -1;
	} else {
		ret = check_buffers(&t, zip, layout);
	}
	tracecmd_compress_destroy(zip);
	if (tep)
		tep_free(tep);
	return ret ? t.code : 0;
}

void ustack_tracedat_check_layout_free(struct ustack_tracedat_layout *layout)
{
	size_t i;

	for (i = 0; i < layout->nr_buffers; i++) {
		free(layout->buffers[i].name);
		free(layout->buffers[i].cpus);
	}
	free(layout->buffers);
	layout->buffers = NULL;
	layout->nr_buffers = layout->alloc_buffers = 0;
}
