// SPDX-License-Identifier: LGPL-2.1
/*
 * Records a full buffer dropped, told in the CPU data.
 *
 * The tool's instance is out of overwrite mode while it is read, as
 * perf's rings are: a full buffer drops the newest records and keeps the
 * oldest, which the later ones need (a process's inode_cache records of
 * its exec come before its stacks). An overwritten buffer tells a reader
 * how many records it lost in the first sub-buffer after the loss; a full
 * one only counts its drops in per_cpu/cpuN/stats ("dropped events"), so
 * where they fell in the data is not known exactly.
 *
 * What is known: records are dropped only while the buffer is full, which
 * a reader ends by taking sub-buffers out. Drops counted by a read of the
 * stats that follows a take of sub-buffers fell after every record taken
 * before the previous read (the buffer filled after that read), and
 * before the end of what the next take, or one after it, holds. So each
 * reader, after every take and before it writes what it took, reads the
 * count: the first time it grew, the reader writes a "span begins" marker
 * before what it took; once a read after a drain that emptied the buffer
 * finds no more drops, it writes a "span ends" marker with the number
 * dropped in the span, after what it took. Between the two, an event of a
 * CPU whose cookie (or user_stack record) never came is told as a stack
 * lost, not as an event without one: its cookie may be among the drops
 * (ustack-pair.c).
 *
 * A marker is a sub-buffer with no record and the kernel's "missed
 * events" flag in its commit word: the end marker also has the number,
 * stored where the kernel stores it; the begin marker has none (an
 * unknown number, which no sub-buffer of the kernel's says without a
 * record). Readers of the data (ustack-stream.c live, ustack-tracedat-cpu.c
 * from a trace.dat) tell them in their place, as they tell the kernel's
 * losses; stock trace-cmd report skips a sub-buffer with no record.
 */
#include <string.h>

#include <event-parse.h>

#include "ustack-dropped.h"
#include "ustack-instance.h"

/* The kernel's flags in a sub-buffer's commit word (kernel/trace/ring_buffer.c) */
#define COMMIT_MISSED_EVENTS	(1ULL << 31)
#define COMMIT_MISSED_STORED	(1ULL << 30)
/* The sub-buffer header: a 64-bit timestamp, then the commit word */
#define HEADER_TS_SIZE		8

/**
 * ustack_dropped_commit_size - bytes of a sub-buffer's commit word
 * @tep: the formats of the traced kernel
 *
 * The kernel's long: 8, or 4 for a 32-bit kernel.
 */
int ustack_dropped_commit_size(struct tep_handle *tep)
{
	int size = tep_get_header_page_size(tep);

	if (size != 4 && size != 8)
		size = tep_get_long_size(tep);
	return size == 4 ? 4 : 8;
}

/* An empty sub-buffer whose commit word is @flags, then @n stored when @store */
static void fill_marker(void *page, int size, int commit_size, uint64_t flags, bool store,
			uint64_t n)
{
	uint32_t flags32 = flags, n32 = n > UINT32_MAX ? UINT32_MAX : n;
	char *p = page;

	memset(p, 0, size);
	if (commit_size == 8) {
		memcpy(p + HEADER_TS_SIZE, &flags, 8);
		if (store)
			memcpy(p + HEADER_TS_SIZE + 8, &n, 8);
	} else {
		memcpy(p + HEADER_TS_SIZE, &flags32, 4);
		if (store)
			memcpy(p + HEADER_TS_SIZE + 4, &n32, 4);
	}
}

/**
 * ustack_dropped_marker - a marker of a span of drops
 * @page:	where to build it
 * @size:	the instance's sub-buffer size
 * @commit_size: from ustack_dropped_commit_size()
 * @n:		0 for the marker before the span; else the marker after it,
 *		with the number of records dropped in it
 */
void ustack_dropped_marker(void *page, int size, int commit_size, uint64_t n)
{
	if (n)
		fill_marker(page, size, commit_size,
			    COMMIT_MISSED_EVENTS | COMMIT_MISSED_STORED, true, n);
	else
		fill_marker(page, size, commit_size, COMMIT_MISSED_EVENTS, false, 0);
}

/**
 * ustack_dropped_read - read a CPU's count after a take of sub-buffers
 * @d:		the CPU's watch
 * @ui:		the instance read
 * @cpu:	the CPU
 *
 * Called after the take, before what was taken is written. Returns true
 * when a span begins: its marker (ustack_dropped_marker(), @n 0) goes
 * before what was taken. A count that cannot be read counts as unchanged.
 */
bool ustack_dropped_read(struct ustack_dropped *d, struct ustack_instance *ui, int cpu)
{
	struct ustack_rb_stats st;

	d->grew = !ustack_instance_rb_stats(ui, cpu, &st) && st.dropped > d->seen;
	if (!d->grew)
		return false;
	d->count += st.dropped - d->seen;
	d->seen = st.dropped;
	if (d->open)
		return false;
	d->open = true;
	return true;
}

/**
 * ustack_dropped_close - whether the open span ends after what was written
 * @d:		the CPU's watch
 * @emptied:	the drain ended with the buffer empty (not at a bound)
 * @last:	the last drain: tracing is off, nothing more comes
 *
 * Returns the number dropped in the span, for the marker after it
 * (ustack_dropped_marker()), or 0 when the span stays
 * open (or none is). Its records may still be in the buffer while the
 * last read found drops, or the drain left sub-buffers behind.
 */
uint64_t ustack_dropped_close(struct ustack_dropped *d, bool emptied, bool last)
{
	uint64_t n = d->count;

	if (!d->open || (!last && (d->grew || !emptied)))
		return 0;
	d->open = false;
	d->count = 0;
	return n;
}
