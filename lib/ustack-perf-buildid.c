// SPDX-License-Identifier: LGPL-2.1
/*
 * Whether the perf side-band may ask for build ids in its mmap2 records.
 *
 * Kernels from 5.12 until perf_event_mmap_output() kept the header's misc
 * field per output set PERF_RECORD_MISC_MMAP_BUILD_ID in the one record
 * header every event of a mapping shares, when they wrote it for an event
 * that asked for build ids (attr.build_id), and never cleared it: every
 * event written after that one for the same mapping gets the flag over a
 * record laid out with maj, min, ino and generation. Another tracer's
 * records are then read wrong: perf record (6.1) aborts, its report shows
 * build ids made of device and inode numbers. A side-band that asks for
 * build ids on such a kernel breaks every other tracer of the machine, so
 * it asks for none there: its records keep device and inode, and build
 * ids are read from the files, as before 5.12.
 *
 * The probe watches the kernel do it, on this process alone: events
 * without build ids opened before and after one with them (the kernel
 * walks a context's events in an order of its own), an executable mapping
 * of a file with a build id (this program's, /proc/self/exe), and the
 * records those events got. The verdict is kept for the process.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "ustack-sideband.h"

/* events without, with, without build ids */
#define PROBE_EVENTS	3
#define PROBE_WITH	1

enum probe_seen {
	SEEN_NONE,	/* no mmap2 record (no file, no build id to read) */
	SEEN_PLAIN,	/* an mmap2 record without the flag */
	SEEN_FLAG,	/* an mmap2 record with it */
};

struct probe_event {
	int	fd;
	void	*ring;
	size_t	size;
};

/* -1 until probed, then whether build ids are asked for */
static int build_id_ok = -1;
static const char *build_id_why = "";

static int probe_open(struct probe_event *e, int build_id, long page)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.build_id = build_id;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	e->fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (e->fd < 0)
		return -1;
	/* the header page and one page of data */
	e->size = 2 * page;
	e->ring = mmap(NULL, e->size, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
	if (e->ring == MAP_FAILED) {
		e->ring = NULL;
		return -1;
	}
	return 0;
}

static void probe_close(struct probe_event *e)
{
	if (e->ring)
		munmap(e->ring, e->size);
	if (e->fd >= 0)
		close(e->fd);
}

/* What the mmap2 records in @e's ring say; one page of data never wraps here. */
static enum probe_seen probe_read(const struct probe_event *e, long page)
{
	const struct perf_event_mmap_page *pc = e->ring;
	const char *data = (const char *)e->ring + page;
	enum probe_seen seen = SEEN_NONE;
	struct perf_event_header hdr;
	uint64_t head, pos;

	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	if (head > (uint64_t)page)
		head = page;
	for (pos = 0; pos + sizeof(hdr) <= head; pos += hdr.size) {
		memcpy(&hdr, data + pos, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || pos + hdr.size > head)
			break;
		if (hdr.type != PERF_RECORD_MMAP2)
			continue;
		if (hdr.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
			return SEEN_FLAG;
		seen = SEEN_PLAIN;
	}
	return seen;
}

/* Map this program's first page executable, so that the events see it. */
static int probe_map(long page)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	void *m;

	if (fd < 0)
		return -1;
	m = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	munmap(m, page);
	return 0;
}

static void probe(void)
{
	struct probe_event ev[PROBE_EVENTS];
	enum probe_seen seen[PROBE_EVENTS];
	long page = sysconf(_SC_PAGESIZE);
	int i, err = 0;

	for (i = 0; i < PROBE_EVENTS; i++) {
		ev[i] = (struct probe_event){ .fd = -1 };
		seen[i] = SEEN_NONE;
	}
	for (i = 0; i < PROBE_EVENTS && !err; i++)
		err = probe_open(&ev[i], i == PROBE_WITH, page);
	if (!err)
		err = probe_map(page);
	for (i = 0; i < PROBE_EVENTS && !err; i++)
		seen[i] = probe_read(&ev[i], page);
	for (i = 0; i < PROBE_EVENTS; i++)
		probe_close(&ev[i]);

	/*
	 * Refused (no build ids before 5.12, perf_event_paranoid): the
	 * side-band's own open finds out and says why, keep asking.
	 */
	build_id_ok = 1;
	if (err) {
		build_id_why = "not probed";
		return;
	}
	if (seen[0] == SEEN_FLAG || seen[2] == SEEN_FLAG) {
		build_id_ok = 0;
		build_id_why = "this kernel marks other tracers' mmap2 records as build ids";
	} else if (seen[PROBE_WITH] != SEEN_FLAG) {
		/* no record with a build id to leak: nothing learnt */
		build_id_why = "not probed (no build id seen)";
	} else if (seen[0] != SEEN_PLAIN || seen[2] != SEEN_PLAIN) {
		build_id_why = "not probed (a record missing)";
	} else {
		build_id_why = "probed";
	}
}

/**
 * ustack_perf_sideband_build_ids - whether the side-band asks for build ids
 * @why:	if not NULL, set to a short reason (for a debug line)
 *
 * False on a kernel that would mark other events' mmap2 records of the
 * same mapping as carrying a build id when one event asks for it (the
 * probe above), or when USTACK_TEST_NO_BUILD_ID is set (tests). The
 * probe runs once a process; it costs three perf events on this process,
 * their rings and one mapping.
 */
bool ustack_perf_sideband_build_ids(const char **why)
{
	if (build_id_ok < 0) {
		if (getenv("USTACK_TEST_NO_BUILD_ID")) {
			build_id_ok = 0;
			build_id_why = "USTACK_TEST_NO_BUILD_ID";
		} else {
			probe();
		}
	}
	if (why)
		*why = build_id_why;
	return build_id_ok;
}

/**
 * ustack_perf_sideband_build_ids_off - whether build ids were found unwanted
 *
 * True once ustack_perf_sideband_build_ids() said no: the events of this
 * process were opened without build ids, and a PERF_RECORD_MISC_MMAP_BUILD_ID
 * in their records is another event's, over device and inode. Never probes.
 */
bool ustack_perf_sideband_build_ids_off(void)
{
	return build_id_ok == 0;
}
