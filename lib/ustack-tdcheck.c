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
 * reader's (ustack-tracedat.c) to check; compressed sub-buffers are only
 * seen once decompressed, by the library.
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
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "tracecmd-private-decls.h"
#include "ustack-array.h"
#include "ustack-tdcheck.h"

#define SEC_FL_COMPRESS		1
#define SEC_HEADER_SIZE		16	/* id 2, flags 2, string 4, size 8 */
#define MAX_OPTION_SECTIONS	1024
#define MAX_CPUS		65536
#define MIN_PAGE		1024
#define MAX_PAGE		(1U << 24)
/* Decompressed size of one section or chunk: far past any real one */
#define MAX_UNCOMPRESSED	(1U << 30)
#define MAX_NAME		4096

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
	char		*msg;
	size_t		msg_size;
	struct ustack_tdlayout *layout;	/* filled in when not NULL */
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
		return bad(t, "read: %s", strerror(errno));
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
		return bad(t, "read: %s", strerror(errno));
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

/*
 * Compressed CPU data: a count of chunks, then each chunk's compressed
 * and uncompressed sizes and the compressed bytes. The size the buffer
 * option gives leaves out the count.
 */
static int check_chunks(struct tdc *t, uint64_t off, uint64_t size, int cpu,
			unsigned int psize)
{
	uint64_t pos = off + 4, end = off + 4 + size;
	uint32_t count, csize, usize, i;

	if (!inside(t, off, size + 4))
		return bad(t, "CPU %d data at %" PRIu64 " (%" PRIu64
			   " bytes) runs past the end of the file", cpu, off, size);
	if (get32(t, off, &count, "chunk count"))
		return -1;
	if (count > size / 8)
		return bad(t, "CPU %d: %" PRIu32 " chunks in %" PRIu64 " bytes", cpu, count, size);
	for (i = 0; i < count; i++) {
		if (end - pos < 8 || get32(t, pos, &csize, "chunk") ||
		    get32(t, pos + 4, &usize, "chunk"))
			return bad(t, "CPU %d: chunk %" PRIu32 " runs past its data", cpu, i);
		pos += 8;
		if (csize > end - pos)
			return bad(t, "CPU %d: chunk %" PRIu32 " of %" PRIu32
				   " bytes runs past its data", cpu, i, csize);
		if (!usize || usize > MAX_UNCOMPRESSED || usize % psize)
			return bad(t, "CPU %d: chunk %" PRIu32 " decompresses to %" PRIu32
				   " bytes (want whole pages)", cpu, i, usize);
		pos += csize;
	}
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
 * ustack_tdcheck_commit_fits - whether a sub-buffer's commit fits its page
 * @commit: the commit word of the sub-buffer header
 * @page: the page size
 * @lsize: the long size of the traced kernel (that of the commit word)
 *
 * The rule for sub-buffers read from the file here and for those
 * decompressed by the reader (ustack-tdread.c).
 */
bool ustack_tdcheck_commit_fits(uint64_t commit, unsigned int page, unsigned int lsize)
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
		if (!ustack_tdcheck_commit_fits(commit, psize, t->lsize))
			return bad(t, "CPU %d: sub-buffer at %" PRIu64 " claims %" PRIu64
				   " bytes of %" PRIu64, cpu, page, commit & COMMIT_MASK, room);
	}
	return 0;
}

/* @psize: the page size of the CPU's buffer (version 7 gives each its own) */
static int check_cpu_data(struct tdc *t, uint64_t off, uint64_t size, int cpu,
			  unsigned int psize)
{
	if (!size)
		return 0;
	if (t->compressed)
		return check_chunks(t, off, size, cpu, psize);
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
	if (csize > size - 8 || usize > MAX_UNCOMPRESSED)
		return bad(t, "compressed section at %" PRIu64 " claims %" PRIu32
			   " bytes in %" PRIu64 ", %" PRIu32 " decompressed",
			   off, csize, size - 8, usize);
	return 0;
}

/*
 * A buffer's entry in the layout, its CPUs left for the caller to fill
 * in; NULL when no layout is wanted or memory ran out (then marked
 * incomplete: the reader falls back on libtracecmd's).
 */
static struct ustack_tdlayout_buffer *layout_buffer(struct tdc *t, const char *name,
						    uint32_t page, uint32_t cpus)
{
	struct ustack_tdlayout *l = t->layout;
	struct ustack_tdlayout_buffer *b;

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
	struct ustack_tdlayout_buffer *b;
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
			b->cpus[i] = (struct ustack_tdlayout_cpu){ id, doff, dsize };
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
 * ustack_tdcheck_file - check the structure of a trace.dat
 * @fd: the file, open for reading (its magic already seen)
 * @msg: set to a one-line reason when it is refused
 * @size: of @msg
 *
 * Returns 0 when every offset and size libtracecmd follows stays inside
 * the file and the option sections do not loop, else -1.
 */
int ustack_tdcheck_file(int fd, char *msg, size_t size)
{
	return ustack_tdcheck_layout(fd, NULL, msg, size);
}

/**
 * ustack_tdcheck_layout - ustack_tdcheck_file(), keeping what it found
 * @fd: the file, open for reading (its magic already seen)
 * @layout: filled in (zero it first; free it with ustack_tdcheck_layout_free()
 *	whatever the result), or NULL
 * @msg: set to a one-line reason when it is refused
 * @size: of @msg
 *
 * The buffers and their CPUs' data are those of a version 7 file only: a
 * version 6 file has none in @layout. Returns as ustack_tdcheck_file().
 */
int ustack_tdcheck_layout(int fd, struct ustack_tdlayout *layout, char *msg, size_t size)
{
	struct tdc t = { .fd = fd, .msg = msg, .msg_size = size, .layout = layout };
	struct stat st;
	uint64_t off = 0, first;
	int version = 0;

	if (fstat(fd, &st))
		return bad(&t, "fstat: %s", strerror(errno));
	t.size = st.st_size;
	if (check_header(&t, &off, &version))
		return -1;
	if (layout) {
		layout->version = version;
		layout->big = t.big;
		layout->compressed = t.compressed;
		layout->lsize = t.lsize;
		layout->page = t.page;
	}
	if (version == 6)
		return check_v6(&t, off);
	if (get64(&t, off, &first, "first option section"))
		return -1;
	if (!first)
		return bad(&t, "no option section");
	return check_v7(&t, first);
}

void ustack_tdcheck_layout_free(struct ustack_tdlayout *layout)
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
