// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-stream-test: drives the cross-CPU merge of lib/ustack-stream.c
 * with hand-built per-CPU sub-buffer files, read back through
 * ustack_stream_open_files() (the direct mode's read-back path), so the
 * order can be checked without tracefs.
 *
 * usage: ustack-stream-test DIR NR_CPUS < SCRIPT
 *
 * SCRIPT lines (per CPU, timestamps must not go back):
 *   r CPU TS ID		one 4-byte record carrying ID
 *   fill CPU N TS STEP ID	N records from TS every STEP, IDs from ID
 *   page CPU		end CPU's sub-buffer here
 *   lost CPU		end it, the next one says events were lost before it
 *   sb TS PID NAME	a perf side-band record (a COMM) at TS
 *   sbraw TS TYPE SIZE	a perf record of TYPE, SIZE bytes (8 to 248, a multiple
 *			of 8), zeros but its header and, from 32 bytes, the
 *			sample id's time TS: one too short for its type, or
 *			of a type the parser does not know
 *   drain		the sb records so far are one drain of the side-band
 *			(ustack_stream_add_sideband()); the rest are the last
 *
 * Prints "CPU TS ID" per record handed out, "lost CPU" per loss told,
 * "horizon TS" per horizon and "sb TS PID NAME" per side-band record
 * ("sbbad TS TYPE SIZE" for one that did not parse, "sbthrottle TS ID"
 * and "sbunthrottle TS ID" for THROTTLE and UNTHROTTLE), in the order the
 * stream calls back. (A live stream's unread count:
 * ustack-stream-unread-test.)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <linux/perf_event.h>

#include "ustack-sideband.h"
#include "ustack-stream.h"

#define PAGE_HDR	16		/* u64 time stamp, u64 commit */
#define TS_BITS		27
#define TYPE_EXTEND	30
#define MISSED_EVENTS	(1ULL << 31)	/* commit flag: lost before this page */

struct cpu_file {
	FILE			*f;
	char			*page;
	int			used;
	bool			empty;
	bool			missed;
	unsigned long long	last_ts;
};

/* Side-band drains: raw perf records, as ustack_perf_sideband_drain() gives them */
struct drain {
	char	*buf;
	size_t	len;
};

static int subbuf;
static struct drain drains[64];
static int nr_drains;

static void die(const char *msg)
{
	fprintf(stderr, "ustack-stream-test: %s\n", msg);
	exit(2);
}

static void put32(struct cpu_file *c, uint32_t v)
{
	memcpy(c->page + PAGE_HDR + c->used, &v, 4);
	c->used += 4;
}

static void flush(struct cpu_file *c)
{
	uint64_t commit = c->used | (c->missed ? MISSED_EVENTS : 0);

	if (c->empty)
		return;
	memcpy(c->page + 8, &commit, 8);
	if (fwrite(c->page, subbuf, 1, c->f) != 1)
		die("cannot write a CPU file");
	memset(c->page, 0, subbuf);
	c->used = 0;
	c->empty = true;
	c->missed = false;
}

/* One event as the ring buffer encodes it: type_len 1 = 4 data bytes */
static void add(struct cpu_file *c, unsigned long long ts, uint32_t id)
{
	unsigned long long delta;
	int need = 8;

	if (ts < c->last_ts)
		die("time goes back on a CPU");
	delta = c->empty ? 0 : ts - c->last_ts;
	if (delta >> TS_BITS)
		need += 8;
	if (PAGE_HDR + c->used + need > subbuf)
		flush(c);
	if (c->empty) {
		uint64_t page_ts = ts;

		memcpy(c->page, &page_ts, 8);
		delta = 0;
		c->empty = false;
	}
	if (delta >> TS_BITS) {
		put32(c, TYPE_EXTEND | (uint32_t)(delta & ((1U << TS_BITS) - 1)) << 5);
		put32(c, (uint32_t)(delta >> TS_BITS));
		delta = 0;
	}
	put32(c, 1 | (uint32_t)delta << 5);
	put32(c, id);
	c->last_ts = ts;
}

static void put_sb(struct drain *d, const void *p, size_t n)
{
	d->buf = realloc(d->buf, d->len + n);
	if (!d->buf)
		die("out of memory");
	memcpy(d->buf + d->len, p, n);
	d->len += n;
}

/* A PERF_RECORD_COMM with the sample id the side-band asks for */
static void add_comm(unsigned long long ts, uint32_t pid, const char *name)
{
	struct perf_event_header hdr = { .type = PERF_RECORD_COMM };
	uint32_t ids[2] = { pid, pid }, cpu[2] = { 0, 0 };
	size_t name_len = (strlen(name) + 1 + 7) & ~(size_t)7;
	char comm[64] = "";
	uint64_t time = ts;
	struct drain *d;

	if (nr_drains == 64 || name_len > sizeof(comm))
		die("too many drains or too long a name");
	d = &drains[nr_drains];
	strcpy(comm, name);
	hdr.size = sizeof(hdr) + sizeof(ids) + name_len + 24;
	put_sb(d, &hdr, sizeof(hdr));
	put_sb(d, ids, sizeof(ids));
	put_sb(d, comm, name_len);
	put_sb(d, ids, sizeof(ids));
	put_sb(d, &time, sizeof(time));
	put_sb(d, cpu, sizeof(cpu));
}

/* A record the parser is to refuse or skip: its header, and its time where a trailer's is */
static void add_raw(unsigned long long ts, unsigned int type, unsigned int size)
{
	struct perf_event_header hdr = { .type = type, .size = size };
	char rec[248] = "";
	uint64_t time = ts;
	struct drain *d;

	if (nr_drains == 64 || size < sizeof(hdr) || size > sizeof(rec) || size % 8)
		die("too many drains or a bad record size");
	d = &drains[nr_drains];
	memcpy(rec, &hdr, sizeof(hdr));
	if (size >= 32)
		memcpy(rec + size - 16, &time, sizeof(time));
	put_sb(d, rec, size);
}

static struct cpu_file *cpu_of(struct cpu_file *cpus, int nr, int cpu)
{
	if (cpu < 0 || cpu >= nr)
		die("no such CPU");
	return &cpus[cpu];
}

static void run_script(struct cpu_file *cpus, int nr)
{
	unsigned long long ts, step;
	char line[256], cmd[16];
	int cpu, n, i;
	unsigned int id, type;
	char name[32];

	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "%15s", cmd) != 1 || cmd[0] == '#')
			continue;
		if (!strcmp(cmd, "r") && sscanf(line, "r %d %llu %u", &cpu, &ts, &id) == 3) {
			add(cpu_of(cpus, nr, cpu), ts, id);
		} else if (!strcmp(cmd, "fill") &&
			   sscanf(line, "fill %d %d %llu %llu %u", &cpu, &n, &ts, &step, &id) == 5) {
			for (i = 0; i < n; i++)
				add(cpu_of(cpus, nr, cpu), ts + i * step, id + i);
		} else if (!strcmp(cmd, "page") && sscanf(line, "page %d", &cpu) == 1) {
			flush(cpu_of(cpus, nr, cpu));
		} else if (!strcmp(cmd, "lost") && sscanf(line, "lost %d", &cpu) == 1) {
			flush(cpu_of(cpus, nr, cpu));
			cpus[cpu].missed = true;
		} else if (!strcmp(cmd, "sb") &&
			   sscanf(line, "sb %llu %u %31s", &ts, &id, name) == 3) {
			add_comm(ts, id, name);
		} else if (!strcmp(cmd, "sbraw") &&
			   sscanf(line, "sbraw %llu %u %u", &ts, &type, &id) == 3) {
			add_raw(ts, type, id);
		} else if (!strcmp(cmd, "drain")) {
			if (drains[nr_drains].len)
				nr_drains++;
		} else {
			die("bad script line");
		}
	}
}

static void on_record(struct tep_record *rec, void *ctx)
{
	uint32_t id;

	memcpy(&id, rec->data, 4);
	printf("%d %llu %u\n", rec->cpu, rec->ts, id);
}

static void on_lost(int cpu, long long missed, void *ctx)
{
	printf("lost %d\n", cpu);
}

static void on_sideband(const struct ustack_sb_rec *rec, void *ctx)
{
	if (rec->kind == USTACK_SB_UNPARSED)
		printf("sbbad %llu %u %u\n", (unsigned long long)rec->ts, rec->perf_type,
		       rec->perf_size);
	else if (rec->kind == USTACK_SB_THROTTLE || rec->kind == USTACK_SB_UNTHROTTLE)
		printf("sb%s %llu %llu\n", rec->kind == USTACK_SB_THROTTLE ? "throttle" : "unthrottle",
		       (unsigned long long)rec->ts, (unsigned long long)rec->event_id);
	else
		printf("sb %llu %d %s\n", (unsigned long long)rec->ts, rec->pid, rec->name);
}

static void on_horizon(unsigned long long ts, void *ctx)
{
	printf("horizon %llu\n", ts);
}

static struct tep_handle *make_tep(void)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		die("out of memory");
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, getpagesize());
	/* the stream falls back to the page size the same way */
	subbuf = tep_get_sub_buffer_size(tep);
	if (subbuf <= 0)
		subbuf = getpagesize();
	return tep;
}

int main(int argc, char **argv)
{
	static const struct ustack_stream_ops ops = {
		.record = on_record,
		.lost = on_lost,
		.horizon = on_horizon,
		.sideband = on_sideband,
	};
	struct cpu_file *cpus;
	struct ustack_stream *st;
	struct tep_handle *tep;
	char **files;
	int nr, cpu, ret, i;

	if (argc != 3 || (nr = atoi(argv[2])) <= 0)
		die("usage: ustack-stream-test DIR NR_CPUS < SCRIPT");
	tep = make_tep();
	cpus = calloc(nr, sizeof(*cpus));
	files = calloc(nr + 1, sizeof(*files));
	if (!cpus || !files)
		die("out of memory");
	for (cpu = 0; cpu < nr; cpu++) {
		if (asprintf(&files[cpu], "%s/cpu%d", argv[1], cpu) < 0)
			die("out of memory");
		cpus[cpu].f = fopen(files[cpu], "w");
		cpus[cpu].page = calloc(1, subbuf);
		cpus[cpu].empty = true;
		if (!cpus[cpu].f || !cpus[cpu].page)
			die("cannot create a CPU file");
	}
	run_script(cpus, nr);
	for (cpu = 0; cpu < nr; cpu++) {
		flush(&cpus[cpu]);
		if (fclose(cpus[cpu].f))
			die("cannot write a CPU file");
		free(cpus[cpu].page);
	}
	st = ustack_stream_open_files(tep, files);
	if (!st)
		die("cannot open the stream");
	if (drains[nr_drains].len)
		nr_drains++;
	for (i = 0; i < nr_drains; i++) {
		if (ustack_stream_add_sideband(st, drains[i].buf, drains[i].len) < 0)
			die("cannot add the side-band");
		free(drains[i].buf);
	}
	ret = ustack_stream_consume(st, &ops, NULL);
	ustack_stream_free(st);
	for (cpu = 0; cpu < nr; cpu++)
		free(files[cpu]);
	free(files);
	free(cpus);
	tep_free(tep);
	return ret == 1 ? 0 : 1;
}
