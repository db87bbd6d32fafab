// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: records of our events (and a traced event) with
 * arbitrary field contents, lengths, ids, cookies, pids, CPUs and orders
 * go into a session, as ustack_tracedat_iterate() hands them out.
 *
 * The input is a list of records, each:
 *	u8 event (index into the parsed formats; 0xff: a session call)
 *	u8 cpu, u8 pid, u16 time step, u8 length, then length bytes
 * The bytes after the common header (common_type and common_pid are set
 * here, to reach the handlers) are the event's fields as they come, so
 * dynamic array locations and lengths are the fuzzer's. Each record's
 * data is an allocation of exactly its size: any read past it is
 * AddressSanitizer's to report.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack.h"
#include "ustack-events.h"
#include "ustack-session.h"

#define NR_CPUS	4

static struct tep_handle *tep;
static struct tep_event *events[16];
static int nr_events;

static char *slurp(const char *path, size_t *size)
{
	FILE *fp = fopen(path, "r");
	char *buf;
	long n;

	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = malloc(n + 1);
	if (buf && fread(buf, 1, n, fp) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(fp);
	*size = n;
	return buf;
}

static void load(const char *sys, const char *file)
{
	struct tep_event *ev = NULL;
	char path[512];
	size_t size;
	char *buf;

	snprintf(path, sizeof(path), "%s/%s", FUZZ_DATA, file);
	buf = slurp(path, &size);
	if (!buf || tep_parse_format(tep, &ev, buf, size, sys)) {
		fprintf(stderr, "fuzz-session: cannot parse %s\n", path);
		exit(1);
	}
	free(buf);
	events[nr_events++] = ev;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	tep = tep_alloc();
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, 4096);
	load("ftrace", "formats/user_unwind_cookie.format");
	load("ftrace", "formats/user_unwind_stack.format");
	load("inode_cache", "formats/inode_cache.format");
	load("ftrace", "session/kernel_stack.format");
	load("ftrace", "session/user_stack.format");
	load("ftrace", "session/print.format");
	load("task", "session/task_newtask.format");
	load("task", "session/task_rename.format");
	load("test", "session/sys_enter_test.format");
	return 0;
}

/* Touch what a printer would: every frame, its mapping, the kernel frames */
static void on_sample(const struct ustack_sample *s, void *ctx)
{
	volatile uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < s->nr_frames; i++) {
		sum += s->frames[i].offset + s->frames[i].id;
		if (s->frames[i].map)
			sum += s->frames[i].map->ino;
	}
	for (i = 0; i < s->nr_kframes; i++)
		sum += s->kframes[i];
	if (s->comm)
		sum += strlen(s->comm);
	if (s->record)
		sum += ((const uint8_t *)s->record->data)[0];
	(void)sum;
	(void)ctx;
}

static void put(uint8_t *data, size_t size, struct tep_format_field *f, uint64_t v)
{
	if (f && f->offset >= 0 && (size_t)(f->offset + f->size) <= size)
		memcpy(data + f->offset, &v, f->size < 8 ? f->size : 8);
}

/* A session call instead of a record: advance, lost events, flush */
static void call(struct ustack_session *s, uint8_t op, uint64_t ts)
{
	switch (op % 3) {
	case 0:
		ustack_session_advance(s, ts);
		break;
	case 1:
		ustack_session_add_lost(s, op % NR_CPUS, op);
		break;
	default:
		ustack_session_flush(s);
		break;
	}
}

static void feed(struct ustack_session *s, const uint8_t *in, size_t len, uint64_t ts)
{
	struct tep_event *ev = events[in[0] % nr_events];
	size_t size = 8 + in[5];
	struct tep_record rec = { 0 };
	uint8_t *data;

	data = malloc(size);
	memset(data, 0, 8);
	memcpy(data + 8, in + 6, size - 8 < len - 6 ? size - 8 : len - 6);
	put(data, size, tep_find_common_field(ev, "common_type"), ev->id);
	put(data, size, tep_find_common_field(ev, "common_pid"), 1 + in[2] % 8);
	rec.ts = ts;
	rec.cpu = in[1] % NR_CPUS;
	rec.size = size;
	rec.record_size = size + 4;
	rec.missed_events = in[1] >= 0xf0 ? in[1] & 0xf : 0;
	rec.ref_count = 1;
	rec.data = data;
	ustack_session_feed(s, &rec);
	/* the session may not keep pointers into a record */
	memset(data, 0xa5, size);
	free(data);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	struct ustack_session_opts opts = { .hold_ns = 1000, .max_pending = 16 };
	struct ustack_session *s;
	struct ustack_events *ev;
	uint64_t ts = 1000;

	ev = ustack_events_new(tep);
	if (!ev)
		return 0;
	if (len && (in[0] & 1))
		opts.ordered = true;
	if (len && (in[0] & 2))
		opts.want_kernel = true;
	s = ustack_session_new(ev, &opts, on_sample, NULL);
	if (!s) {
		ustack_events_free(ev);
		return 0;
	}
	if (len) {
		in++;
		len--;
	}
	while (len >= 6) {
		size_t n = 6 + in[5];

		ts += in[3] | in[4] << 8;
		if (in[0] == 0xff)
			call(s, in[1], ts);
		else
			feed(s, in, len, ts);
		if (n > len)
			break;
		in += n;
		len -= n;
	}
	ustack_session_flush(s);
	ustack_session_free(s);
	ustack_events_free(ev);
	return 0;
}
