// SPDX-License-Identifier: LGPL-2.1
/*
 * The perf stack source (see ustack-perf-source.h).
 *
 * Why each attribute of a tracepoint event:
 *  - sample_period 1: every hit is a sample, as every hit is a record in
 *    a tracefs buffer;
 *  - PERIOD, so that a hit is one sample whatever it counts: a tracepoint
 *    whose TP_PROTO has a __perf_count(x) argument adds x to the event's
 *    count, not 1 (Linux 7.3: sched_stat_runtime and the sched_stat_template
 *    events, x in nanoseconds), and perf_swevent_event() (kernel/events/
 *    core.c) then writes one sample per unit of it, the same sample again,
 *    until the event is throttled, losing other hits without a count. With
 *    PERF_SAMPLE_PERIOD (and no freq) it writes one sample carrying x as its
 *    period (there since 2011, "events: Don't divide events if it has field
 *    period"; read in 7.3, seen on 6.18), as perf record asks. So no list of
 *    such events to keep, and none to refuse;
 *  - TID, TIME, CPU, PERIOD, then CALLCHAIN and RAW: the sample layout below.
 *    sample_id_all with TID | TIME | CPU is the side-band's own trailer,
 *    so that the records of both (a LOST record names the event whose
 *    record was dropped) have one layout in the ring they share;
 *  - RAW: the tracepoint's payload, the bytes of a tracefs record of the
 *    event, decoded with the same format;
 *  - exclude_callchain_kernel unless the kernel stack is asked for: the
 *    walk costs, and it needs a lower perf_event_paranoid;
 *  - sample_max_stack: what kernel.perf_event_max_stack allows, the most
 *    the kernel gives (perf's default of 127 would cut sooner);
 *  - use_clockid with the side-band's clock: both are ordered by one
 *    clock, and the kernel refuses SET_OUTPUT between two clocks;
 *  - inherit for a task: the tasks it creates are sampled too;
 *  - disabled until the capture turns tracing on: a launched command is
 *    held before its exec, and what it does until then is not traced.
 *
 * --call-graph=dwarf (fill_dwarf()): REGS_USER and STACK_USER come after
 * RAW in the record, and the kernel's user callchain is left out (the
 * frame-pointer walk it does would be thrown away).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "ustack-perf-source.h"
#include "ustack-proc.h"
#include "ustack-sideband.h"
#include "ustack-unwind.h"

#define SAMPLE_TYPE	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)
/* header, pid + tid, time, cpu + reserved, period, callchain nr */
#define CHAIN_OFF	48

/*
 * Deferred user callchains (Linux 6.19; include/uapi/linux/perf_event.h
 * of 7.3): two bits of the attribute's flags word, right after sigtrap
 * (bit 37), defer_callchain at bit 38 and defer_output at bit 39, then
 * __reserved_1. Defined here by bit because older headers (this build
 * host's) have no names for them: the word follows read_format.
 */
#define ATTR_FLAGS_OFF		(offsetof(struct perf_event_attr, read_format) + 8)
#define ATTR_DEFER_CALLCHAIN	(1ULL << 38)
#define ATTR_DEFER_OUTPUT	(1ULL << 39)
/* The 7.3 uapi's PERF_RECORD_CALLCHAIN_DEFERRED and its chain marker */
#define RECORD_CALLCHAIN_DEFERRED	22
#define CONTEXT_USER_DEFERRED		((uint64_t)-640)
/*
 * The deferred unwinder's own limit (kernel/unwind/deferred.c: its cache
 * of entries fits a 4 KiB page, after a 16-byte header): a chain this long
 * may have been cut, and there is no flag that says so
 */
#define DEFERRED_MAX_FRAMES	((4096 - 16) / 8)
/* header, cookie, nr; the sample_id trailer (pid, tid, time, cpu) */
#define DEFERRED_IPS_OFF	24
#define TRAILER_SIZE		24

/* perf's own default when the sysctl cannot be read */
#define DEFAULT_MAX_STACK	127

/**
 * ustack_perf_source_max_stack - the deepest callchain the kernel gives
 *
 * Returns kernel.perf_event_max_stack, or perf's default 127 when it
 * cannot be read.
 */
unsigned int ustack_perf_source_max_stack(void)
{
	char *text = ustack_proc_read_file("/proc/sys/kernel/perf_event_max_stack", NULL);
	long v = text ? strtol(text, NULL, 10) : 0;

	free(text);
	/* sample_max_stack is a __u16 */
	if (v <= 0 || v > 65535)
		return DEFAULT_MAX_STACK;
	return v;
}

static void fill_dwarf(struct perf_event_attr *attr, unsigned int size)
{
	attr->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	attr->sample_regs_user = USTACK_REGS_USER_X86_64;
	attr->sample_stack_user = size;
	attr->exclude_callchain_user = 1;
}

static void fill_attr(struct perf_event_attr *attr, const struct ustack_perf_source_opts *o,
		      int id, int pid, int clockid)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = id;
	attr->sample_period = 1;
	attr->sample_type = SAMPLE_TYPE;
	attr->sample_id_all = 1;
	attr->exclude_callchain_kernel = !o->kernel;
	attr->sample_max_stack = o->max_stack ? o->max_stack : ustack_perf_source_max_stack();
	attr->inherit = pid >= 0;
	/* the losses no LOST record told: ustack_perf_sideband_drain_last() */
	attr->read_format = PERF_FORMAT_LOST;
	/* until tracing starts (ustack_perf_sideband_enable()), as the instance's events */
	attr->disabled = 1;
	ustack_perf_source_attr_defer(attr, o->defer, false);
	if (clockid >= 0) {
		attr->use_clockid = 1;
		attr->clockid = clockid;
	}
	if (o->dwarf_size)
		fill_dwarf(attr, o->dwarf_size);
}

/**
 * ustack_perf_source_open - the tracepoint events of one task (or all) on one CPU
 * @opts:	what to sample
 * @pid:	the task (inherited by its children), or -1 for every task
 * @cpu:	the CPU
 * @clockid:	clock of the samples' times (CLOCK_*), -1 for perf's own
 * @output:	the event whose ring they write into (SET_OUTPUT)
 * @add_fd:	takes each new fd over (closes it and returns -1 on failure)
 * @ctx:	for @add_fd
 *
 * Returns 0; -1 with errno set (EINVAL from a filter: the filter is bad).
 * ENODEV (CPU offline) and ESRCH (task gone) are the caller's to forgive.
 */
int ustack_perf_source_open(const struct ustack_perf_source_opts *opts, int pid, int cpu,
			int clockid, int output, int (*add_fd)(void *ctx, int fd), void *ctx)
{
	struct perf_event_attr attr;
	size_t i;
	int fd;

	for (i = 0; i < opts->nr_events; i++) {
		fill_attr(&attr, opts, opts->events[i].id, pid, clockid);
		fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		/* before 6.0: no PERF_FORMAT_LOST */
		if (fd < 0 && errno == EINVAL) {
			attr.read_format = 0;
			fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1,
				     PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0)
			return -1;
		if (add_fd(ctx, fd))
			return -1;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, output) < 0)
			return -1;
		if (opts->events[i].filter &&
		    ioctl(fd, PERF_EVENT_IOC_SET_FILTER, opts->events[i].filter) < 0)
			return -1;
	}
	return 0;
}

/*
 * What follows RAW with --call-graph=dwarf: abi, the registers (when abi
 * is not NONE), the copy's size, the copy and how much of it the kernel
 * filled (dyn_size). @off is where abi is.
 */
static bool parse_dwarf(const char *rec, size_t size, size_t off, struct ustack_sb_rec *out)
{
	uint64_t abi, ssize, dyn = 0;
	size_t nr = __builtin_popcountll(USTACK_REGS_USER_X86_64);

	if (off + 8 > size)
		return false;
	memcpy(&abi, rec + off, 8);
	off += 8;
	if (abi) {
		if (off + nr * 8 > size)
			return false;
		out->regs_mask = USTACK_REGS_USER_X86_64;
		out->regs = (const uint64_t *)(rec + off);
		/* PERF_SAMPLE_REGS_ABI_32: a 32-bit task's, not unwound as x86-64 */
		out->regs_abi = abi;
		off += nr * 8;
	}
	if (off + 8 > size)
		return false;
	memcpy(&ssize, rec + off, 8);
	off += 8;
	if (ssize > size - off || (ssize && size - off - ssize < 8))
		return false;
	out->stack = rec + off;
	if (ssize)
		memcpy(&dyn, rec + off + ssize, 8);
	out->stack_size = dyn < ssize ? dyn : ssize;
	return true;
}

/**
 * ustack_perf_source_parse - a PERF_RECORD_SAMPLE of our events as a side-band record
 * @rec:	the record, header included, 8-byte aligned
 * @size:	its size
 * @out:	filled in (USTACK_SB_SAMPLE; chain and raw point into @rec)
 *
 * Layout (SAMPLE_TYPE): pid, tid, time, cpu, reserved, period (what the
 * hit counted: 1 but for __perf_count() tracepoints), nr, ips[nr],
 * raw size, raw bytes, then with --call-graph=dwarf the user registers
 * and stack (parse_dwarf()). Returns false for a record that does not
 * fit it.
 */
bool ustack_perf_source_parse(const char *rec, size_t size, struct ustack_sb_rec *out)
{
	uint64_t nr;
	uint32_t raw_size;
	size_t off;

	if (size < CHAIN_OFF + 8)
		return false;
	memcpy(&nr, rec + CHAIN_OFF - 8, sizeof(nr));
	if (nr > (size - CHAIN_OFF) / 8)
		return false;
	off = CHAIN_OFF + nr * 8;
	if (off + 4 > size)
		return false;
	memcpy(&raw_size, rec + off, sizeof(raw_size));
	if (raw_size > size - off - 4)
		return false;
	out->kind = USTACK_SB_SAMPLE;
	memcpy(&out->pid, rec + 8, 4);
	memcpy(&out->tid, rec + 12, 4);
	memcpy(&out->ts, rec + 16, 8);
	memcpy(&out->cpu, rec + 24, 4);
	out->nr_chain = nr;
	out->chain = (const uint64_t *)(rec + CHAIN_OFF);
	out->raw_size = raw_size;
	out->raw = rec + off + 4;
	/* RAW is padded to 8 bytes: anything after it is the stack copy */
	off += 4 + raw_size;
	return off >= size || parse_dwarf(rec, size, off, out);
}

/* @n frames of context @ctx (a PERF_CONTEXT_* marker, 0 before the first) */
static void count_frames(struct ustack_perf_source_stack *out, uint64_t ctx, unsigned int n,
			 unsigned int *frames)
{
	*frames += n;
	if (ctx == PERF_CONTEXT_USER)
		out->nr_user += n;
	else if (ctx == PERF_CONTEXT_KERNEL)
		out->nr_kernel += n;
}

/**
 * ustack_perf_source_stack - the user and kernel parts of a sample's callchain
 * @rec:	a USTACK_SB_SAMPLE record
 * @max_stack:	the sample_max_stack the events were opened with
 * @out:	filled in
 *
 * The kernel puts a context marker (PERF_CONTEXT_*) before the frames of
 * each context; markers do not count against @max_stack, frames do, and
 * the walk stops without a word when they reach it: such a stack is
 * marked truncated, as is one whose record says so (@rec->cut, from a
 * trace.dat, where @max_stack is 0).
 */
void ustack_perf_source_stack(const struct ustack_sb_rec *rec, unsigned int max_stack,
			  struct ustack_perf_source_stack *out)
{
	const uint64_t *ip = rec->chain;
	unsigned int i, start = 0, frames = 0;
	uint64_t ctx = 0;

	memset(out, 0, sizeof(*out));
	/* a sample's every event: the frames are counted a context at a time */
	for (i = 0; i < rec->nr_chain; i++) {
		if (ip[i] < (uint64_t)PERF_CONTEXT_MAX)
			continue;
		count_frames(out, ctx, i - start, &frames);
		start = i + 1;
		/* the marker, then the cookie: no user frames here */
		if (ip[i] == CONTEXT_USER_DEFERRED) {
			if (i + 1 < rec->nr_chain)
				out->cookie = ip[i + 1];
			break;
		}
		ctx = ip[i];
		if (ctx == PERF_CONTEXT_USER)
			out->user = ip + i + 1;
		else if (ctx == PERF_CONTEXT_KERNEL)
			out->kernel = ip + i + 1;
	}
	if (i == rec->nr_chain)
		count_frames(out, ctx, i - start, &frames);
	out->truncated = rec->cut || (max_stack && frames >= max_stack);
}

/**
 * ustack_perf_source_attr_defer - ask for deferred user callchains
 * @attr:	the attribute
 * @callchain:	the samples' user callchains deferred (defer_callchain)
 * @output:	the event writes PERF_RECORD_CALLCHAIN_DEFERRED records
 *		(defer_output: a side-band event, the kernel hands them to
 *		those)
 *
 * A kernel before 6.19 refuses either bit (EINVAL): reserved there.
 */
void ustack_perf_source_attr_defer(struct perf_event_attr *attr, bool callchain, bool output)
{
	uint64_t flags;

	memcpy(&flags, (char *)attr + ATTR_FLAGS_OFF, sizeof(flags));
	flags &= ~(ATTR_DEFER_CALLCHAIN | ATTR_DEFER_OUTPUT);
	if (callchain)
		flags |= ATTR_DEFER_CALLCHAIN;
	if (output)
		flags |= ATTR_DEFER_OUTPUT;
	memcpy((char *)attr + ATTR_FLAGS_OFF, &flags, sizeof(flags));
}

/**
 * ustack_perf_source_defer_probe - does this kernel defer perf's user callchains?
 *
 * Opens (and closes) a dummy software event of this task with both bits
 * set: a kernel without them refuses the reserved bits.
 */
bool ustack_perf_source_defer_probe(void)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_type = PERF_SAMPLE_CALLCHAIN;
	attr.exclude_kernel = 1;
	attr.disabled = 1;
	ustack_perf_source_attr_defer(&attr, true, true);
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/**
 * ustack_perf_source_parse_deferred - a PERF_RECORD_CALLCHAIN_DEFERRED record
 * @rec:	the record, header included, 8-byte aligned
 * @size:	its size
 * @out:	filled in (USTACK_SB_DEFERRED; the chain points into @rec)
 *
 * Layout: header, cookie, nr, ips[nr] (user addresses, leaf first), then
 * the sample_id trailer of the side-band event that wrote it. Returns
 * false for another record type or one that does not fit.
 */
bool ustack_perf_source_parse_deferred(const char *rec, size_t size, struct ustack_sb_rec *out)
{
	struct perf_event_header hdr;
	uint64_t nr;

	if (size < DEFERRED_IPS_OFF + TRAILER_SIZE)
		return false;
	memcpy(&hdr, rec, sizeof(hdr));
	if (hdr.type != RECORD_CALLCHAIN_DEFERRED)
		return false;
	memcpy(&nr, rec + 16, sizeof(nr));
	if (nr > (size - DEFERRED_IPS_OFF - TRAILER_SIZE) / 8)
		return false;
	out->kind = USTACK_SB_DEFERRED;
	memcpy(&out->cookie, rec + 8, 8);
	out->nr_chain = nr;
	out->chain = (const uint64_t *)(rec + DEFERRED_IPS_OFF);
	memcpy(&out->pid, rec + size - TRAILER_SIZE, 4);
	memcpy(&out->tid, rec + size - TRAILER_SIZE + 4, 4);
	memcpy(&out->ts, rec + size - TRAILER_SIZE + 8, 8);
	memcpy(&out->cpu, rec + size - TRAILER_SIZE + 16, 4);
	out->cut = ustack_perf_source_deferred_cut(nr);
	return true;
}

/**
 * ustack_perf_source_deferred_cut - may a deferred chain of @nr frames be cut?
 * @nr: its frames
 */
bool ustack_perf_source_deferred_cut(unsigned int nr)
{
	return nr >= DEFERRED_MAX_FRAMES;
}
