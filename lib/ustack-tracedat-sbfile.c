// SPDX-License-Identifier: LGPL-2.1
/*
 * Sub-buffers of ftrace:print records for the side-band (see
 * ustack-tracedat-sbfile.h), in the format the kernel's ring buffer uses and the
 * trace.dat header describes (events/header_page, header_event):
 *
 *	page:	u64 timestamp of the first event, commit (the header page's
 *		long: bytes of data), then the events
 *	event:	u32 type_len:5 | time_delta:27 << 5, then for type_len 0 a
 *		u32 length (data + 4) and the data padded to 4 bytes;
 *		type_len 30 (time extend) carries the bits of a delta above
 *		27 in the next u32
 *
 * The record's fields are placed where the print event's format says;
 * the perf source's samples are ustack:sample records instead
 * (ustack-sample-event.h), ustack:sample_copy with their stack copies,
 * trimmed or whole, in sub-buffers that hold a whole copy where the
 * instance's do;
 * USTACK_TEXT_SAMPLES=1 in the environment writes them as text, as
 * earlier recordings have them.
 * Times must not go backwards: a record older than the one before it
 * (one that came late from its perf ring) is written with the previous
 * time, which is also the order live fed it in.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "ustack-dropped.h"
#include "ustack-tracedat-sbfile.h"
#include "ustack-sideband.h"
#include "ustack-sample-event.h"
#include "ustack-word-map.h"

#define TYPE_TIME_EXTEND	30
#define TS_BITS			27
#define TEXT_MAX		4096
/*
 * Pages written at once: a perf source writes a sample per traced event,
 * some twenty to a page, and a write() per page was a syscall every
 * twenty events
 */
#define OUT_PAGES		64

struct ustack_tracedat_sbfile {
	int		fd;
	int		page_size;
	int		hdr_size;	/* timestamp + commit */
	int		commit_size;
	char		*out;		/* OUT_PAGES pages */
	char		*data;		/* a record being built: a page's room */
	int		nr_out;		/* pages done in @out */
	char		*page;		/* the one being filled, in @out */
	int		used;		/* bytes of events in @page */
	uint64_t	page_ts;
	uint64_t	last_ts;
	int		event_id;
	int		type_off;
	int		pid_off;
	int		buf_off;
	bool		binary;		/* samples as ustack:sample records */
	bool		failed;
	struct ustack_sb_prev	*prev;	/* repeated samples written short */
};

static bool find_fields(struct ustack_tracedat_sbfile *f, struct tep_handle *tep)
{
	struct tep_event *e = tep_find_event_by_name(tep, "ftrace", "print");
	struct tep_format_field *type, *pid, *buf, *ip;

	if (!e)
		return false;
	type = tep_find_common_field(e, "common_type");
	pid = tep_find_common_field(e, "common_pid");
	buf = tep_find_field(e, "buf");
	if (!type || !pid || !buf || type->size != 2 || pid->size != 4)
		return false;
	f->event_id = e->id;
	f->type_off = type->offset;
	f->pid_off = pid->offset;
	f->buf_off = buf->offset;
	/* ustack:sample takes the kernel's common fields, which end at 8 */
	ip = tep_find_field(e, "ip");
	f->binary = f->type_off == 0 && f->pid_off == 4 && ip && ip->offset == 8 &&
		    !getenv("USTACK_TEXT_SAMPLES");
	return true;
}

/**
 * ustack_tracedat_sbfile_open - start a side-band data file
 * @tep:	the formats of the recording (print event, page layout)
 * @page_size:	bytes in a sub-buffer: the trace.dat's page size, which is
 *		the recorded instance's (0: the header page's in @tep)
 * @path:	the file, created or truncated
 *
 * Returns NULL with errno on failure.
 */
struct ustack_tracedat_sbfile *ustack_tracedat_sbfile_open(struct tep_handle *tep, int page_size,
					 const char *path)
{
	struct ustack_tracedat_sbfile *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->fd = -1;
	f->page_size = page_size > 0 ? page_size : tep_get_sub_buffer_size(tep);
	if (f->page_size <= 0)
		f->page_size = getpagesize();
	f->commit_size = ustack_dropped_commit_size(tep);
	f->hdr_size = tep_get_header_timestamp_size(tep) + f->commit_size;
	f->out = calloc(OUT_PAGES, f->page_size);
	f->page = f->out;
	f->data = malloc(f->page_size);
	f->prev = ustack_sideband_prev_new();
	if (!f->out || !f->data || !f->prev || !find_fields(f, tep)) {
		errno = f->out && f->data && f->prev ? ENOENT : ENOMEM;
		goto fail;
	}
	f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (f->fd < 0)
		goto fail;
	return f;
 fail:
	ustack_sideband_prev_free(f->prev);
	free(f->data);
	free(f->out);
	free(f);
	return NULL;
}

/* The pages done so far, to the file */
static int write_out(struct ustack_tracedat_sbfile *f)
{
	ssize_t size = (ssize_t)f->nr_out * f->page_size;

	if (f->nr_out && write(f->fd, f->out, size) != size)
		f->failed = true;
	f->nr_out = 0;
	f->page = f->out;
	return f->failed ? -1 : 0;
}

/*
 * The page's header, and zeros after its events: only there, not over the
 * whole page before it is filled (a whole stack copy fills half a page)
 */
static int flush_page(struct ustack_tracedat_sbfile *f)
{
	uint64_t commit = f->used;
	uint32_t commit32 = f->used;

	if (!f->used)
		return 0;
	memcpy(f->page, &f->page_ts, 8);
	if (f->commit_size == 8)
		memcpy(f->page + 8, &commit, 8);
	else
		memcpy(f->page + 8, &commit32, 4);
	memset(f->page + f->hdr_size + f->used, 0, f->page_size - f->hdr_size - f->used);
	f->used = 0;
	f->page += f->page_size;
	if (++f->nr_out == OUT_PAGES && write_out(f))
		return -1;
	return f->failed ? -1 : 0;
}

static void put32(struct ustack_tracedat_sbfile *f, uint32_t v)
{
	memcpy(f->page + f->hdr_size + f->used, &v, 4);
	f->used += 4;
}

/* The delta from the event before, with a time extend when it is wide. */
static void put_delta(struct ustack_tracedat_sbfile *f, uint64_t delta)
{
	uint32_t low = delta & ((1U << TS_BITS) - 1);

	if (delta >> TS_BITS) {
		put32(f, TYPE_TIME_EXTEND | low << 5);
		put32(f, delta >> TS_BITS);
		low = 0;
	}
	put32(f, low << 5);
}

/* The print record's data: common_type, common_pid, ip 0, the text. */
static int build_data(struct ustack_tracedat_sbfile *f, const struct ustack_sb_rec *rec, char *data,
		      int room)
{
	uint16_t type = f->event_id;
	int32_t pid = rec->tid;
	int len;

	if (room <= f->buf_off + 1)
		return -1;
	memset(data, 0, f->buf_off);
	memcpy(data + f->type_off, &type, 2);
	memcpy(data + f->pid_off, &pid, 4);
	len = ustack_sideband_format_prev(f->prev, rec, data + f->buf_off, room - f->buf_off);
	if (len < 0)
		return -1;
	if (len >= room - f->buf_off)
		len = room - f->buf_off - 1;
	return f->buf_off + len + 1;
}

/* A __data_loc field: the array's length and its offset in the record */
static void put_loc(char *data, int field, size_t off, size_t len)
{
	uint32_t v = (uint32_t)len << 16 | (uint32_t)off;

	memcpy(data + field, &v, 4);
}

/*
 * The stack copy's arrays: @stack bytes of words and @kept bytes of map.
 * A trimmed copy (stack_valid: the words the recorder's unwind read)
 * keeps those words and the map up to the last of them; another keeps
 * every word. Returns the copy's size in bytes.
 */
static uint32_t copy_span(const struct ustack_sb_rec *rec, size_t *stack, size_t *kept)
{
	uint32_t i, nw = (rec->stack_size & ~7U) / 8, last = 0, n = 0;

	*stack = *kept = 0;
	if (!rec->stack)
		return 0;
	if (!rec->stack_valid) {
		*stack = (size_t)nw * 8;
		return nw * 8;
	}
	ustack_word_map_for_each(i, rec->stack_valid, nw) {
		n++;
		last = i + 1;
	}
	*stack = (size_t)n * 8;
	*kept = (last + 7) / 8;
	return nw * 8;
}

/* The kept words of @rec's copy, packed, then the map up to the last */
static void put_copy(const struct ustack_sb_rec *rec, char *stack, size_t stack_len,
		     char *kept, size_t kept_len)
{
	uint32_t i, nw = rec->stack_size / 8;
	const char *from = rec->stack;

	if (!rec->stack_valid) {
		memcpy(stack, from, stack_len);
		return;
	}
	memcpy(kept, rec->stack_valid, kept_len);
	/* copy_span() counted these: none past the map's @kept_len bytes */
	ustack_word_map_for_each(i, rec->stack_valid, nw) {
		memcpy(stack, from + (size_t)i * 8, 8);
		stack += 8;
	}
}

/* ustack:sample_copy's fields after ustack:sample's */
static void put_copy_fields(const struct ustack_sb_rec *rec, char *data, uint32_t stack_size)
{
	memcpy(data + USTACK_SAMPLE_OFF_REGS_MASK, &rec->regs_mask, 8);
	memcpy(data + USTACK_SAMPLE_OFF_STACK_SIZE, &stack_size, 4);
	memcpy(data + USTACK_SAMPLE_OFF_UMAX, &rec->unwind_max, 4);
}

/* A ustack:sample record's layout: the sizes of its parts, its length */
struct sample_plan {
	size_t		hdr;
	size_t		chain;
	size_t		regs;
	size_t		stack;
	size_t		kept;
	size_t		len;
	uint32_t	flags;
	uint32_t	stack_size;
	uint16_t	type;
	bool		copy;
};

/*
 * A sample as a ustack:sample record: the chain and the payload copied
 * as they came, or nothing of them for a repeat; with a stack copy, a
 * ustack:sample_copy record, the registers and the copy too (trimmed to
 * the words its unwind read, when it was). A whole copy too big for
 * @room keeps its first words and says its size ends there, as the text
 * does. Returns -1 when it does not fit @room (written as text, cut,
 * instead); else the record is planned, a repeat taken as its thread's
 * last sample, and must be written (put_sample()).
 */
static int plan_sample(struct ustack_tracedat_sbfile *f, const struct ustack_sb_rec *rec,
		       int room, struct sample_plan *pl)
{
	size_t max = room < 0xffff ? (size_t)room : 0xffff, off;

	memset(pl, 0, sizeof(*pl));
	pl->hdr = USTACK_SAMPLE_HDR;
	pl->type = USTACK_SAMPLE_ID;
	pl->flags = rec->cut ? USTACK_SAMPLE_CUT : 0;
	pl->chain = (size_t)rec->nr_chain * 8;
	pl->copy = rec->regs_mask && rec->regs;
	if (pl->copy) {
		pl->hdr = USTACK_SAMPLE_COPY_HDR;
		pl->type = USTACK_SAMPLE_COPY_ID;
		pl->regs = (size_t)__builtin_popcountll(rec->regs_mask) * 8;
		pl->stack_size = copy_span(rec, &pl->stack, &pl->kept);
		if (rec->stack_valid)
			pl->flags |= USTACK_SAMPLE_TRIMMED;
	}
	pl->len = pl->hdr + pl->chain + pl->regs + pl->stack + rec->raw_size + pl->kept;
	if (pl->len > max && pl->stack && !rec->stack_valid) {
		/* the copy ends with the last word that fits */
		off = pl->len - pl->stack;
		pl->stack = off < max ? (max - off) & ~7UL : 0;
		pl->stack_size = pl->stack;
		pl->len = off + pl->stack;
	}
	if (pl->len > max)
		return -1;
	if (!pl->copy && ustack_sideband_prev_repeats(f->prev, rec)) {
		pl->flags |= USTACK_SAMPLE_SAME;
		pl->chain = 0;
		pl->len = pl->hdr;
	}
	return pl->len;
}

/* The record planned by plan_sample() into @data: its every byte */
static void put_sample(struct ustack_tracedat_sbfile *f, const struct ustack_sb_rec *rec,
		       const struct sample_plan *pl, char *data)
{
	size_t hdr = pl->hdr, chain = pl->chain, regs = pl->regs, stack = pl->stack;
	size_t kept = pl->kept, off;
	uint32_t flags = pl->flags, stack_size = pl->stack_size;
	uint16_t type = pl->type;
	int32_t tid = rec->tid;

	memset(data, 0, hdr);
	memcpy(data + f->type_off, &type, 2);
	memcpy(data + f->pid_off, &tid, 4);
	memcpy(data + USTACK_SAMPLE_OFF_PID, &rec->pid, 4);
	memcpy(data + USTACK_SAMPLE_OFF_TID, &tid, 4);
	memcpy(data + USTACK_SAMPLE_OFF_CPU, &rec->cpu, 4);
	memcpy(data + USTACK_SAMPLE_OFF_FLAGS, &flags, 4);
	if (flags & USTACK_SAMPLE_SAME) {
		put_loc(data, USTACK_SAMPLE_OFF_CHAIN, hdr, 0);
		put_loc(data, USTACK_SAMPLE_OFF_RAW, hdr, 0);
		return;
	}
	/* the words first, where they stay 8-byte apart from the record's start */
	off = hdr;
	put_loc(data, USTACK_SAMPLE_OFF_CHAIN, off, chain);
	if (chain)
		memcpy(data + off, rec->chain, chain);
	off += chain;
	if (pl->copy) {
		put_copy_fields(rec, data, stack_size);
		put_loc(data, USTACK_SAMPLE_OFF_REGS, off, regs);
		memcpy(data + off, rec->regs, regs);
		off += regs;
		put_loc(data, USTACK_SAMPLE_OFF_STACK, off, stack);
		put_loc(data, USTACK_SAMPLE_OFF_KEPT, off + stack + rec->raw_size, kept);
		if (stack || kept)
			put_copy(rec, data + off, stack, data + off + stack + rec->raw_size, kept);
		off += stack;
	}
	put_loc(data, USTACK_SAMPLE_OFF_RAW, off, rec->raw_size);
	if (rec->raw_size)
		memcpy(data + off, rec->raw, rec->raw_size);
}

/**
 * ustack_tracedat_sbfile_add - append one record
 * @f:		the file
 * @rec:	the record; its time must not be much before the last one's
 *		(see above)
 *
 * Returns 0, or -1 when the file could not be written.
 */
int ustack_tracedat_sbfile_add(struct ustack_tracedat_sbfile *f, const struct ustack_sb_rec *rec)
{
	uint64_t ts = rec->ts > f->last_ts ? rec->ts : f->last_ts;
	struct sample_plan pl;
	int len, padded, need, max;
	bool sample = false;
	char *dst;

	/* an event with its length word and a time extend fit one page */
	max = f->page_size - f->hdr_size - 16;
	len = -1;
	if (f->binary && ustack_sideband_sample_binary(rec))
		len = plan_sample(f, rec, max, &pl);
	sample = len >= 0;
	if (len < 0)
		len = build_data(f, rec, f->data, max < TEXT_MAX ? max : TEXT_MAX);
	if (len < 0 || f->failed)
		return -1;
	padded = (len + 3) & ~3;
	need = 16 + padded;
	if (f->used && f->hdr_size + f->used + need > f->page_size && flush_page(f))
		return -1;
	if (!f->used)
		f->page_ts = f->last_ts = ts;
	put_delta(f, ts - f->last_ts);
	put32(f, padded + 4);
	/* a sample is built in place, its arrays (a whole stack copy: 8 KiB) copied once */
	dst = f->page + f->hdr_size + f->used;
	if (sample)
		put_sample(f, rec, &pl, dst);
	else
		memcpy(dst, f->data, len);
	if (padded > len)
		memset(dst + len, 0, padded - len);
	f->used += padded;
	f->last_ts = ts;
	return 0;
}

/**
 * ustack_tracedat_sbfile_close - write the last page and close
 * @f: the file (may be NULL)
 *
 * Returns 0, or -1 when some of it could not be written.
 */
int ustack_tracedat_sbfile_close(struct ustack_tracedat_sbfile *f)
{
	int ret;

	if (!f)
		return 0;
	ret = flush_page(f) || write_out(f) ? -1 : 0;
	if (close(f->fd) < 0 || f->failed)
		ret = -1;
	ustack_sideband_prev_free(f->prev);
	free(f->data);
	free(f->out);
	free(f);
	return ret;
}
