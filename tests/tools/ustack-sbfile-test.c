// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sbfile-test: writes side-band records through
 * lib/ustack-tracedat-sbfile.c, then reads the file back with
 * libtraceevent's kbuffer (the ring buffer's own reader, not ours), so
 * that the layout can be checked: page headers, time deltas and extends,
 * lengths, padding, the text's end, the ustack:sample fields.
 *
 * usage: ustack-sbfile-test FILE < SCRIPT
 *
 * SCRIPT lines, written in this order:
 *   comm TS PID NAME		a COMM record at TS
 *   many N TS STEP		N COMM records (pid 1000 + i, name tI) from TS every STEP
 *   grow N TS STEP		N COMM records (pid 1000 + i) from TS every STEP,
 *				named by 1 + x % 61 'x's, x from 1 by x = (75 x +
 *				74) % 65537: records of every size at a page's end
 *   sample TS PID TID CPU CUT N	a sample with a chain of N entries (N of
 *				them 0x1000 + i), CUT 0 or 1
 *   unparsed TS TYPE SIZE	a perf record of TYPE and SIZE bytes that did not
 *				parse (USTACK_SB_UNPARSED)
 *
 * The format is the x86-64 kernel's (ftrace:print with ip at 8, 8-byte
 * commit), the page 4096 bytes. Prints per page "page TS COMMIT", per
 * record "TS text TEXT" for a print record (TEXT up to its NUL, "<no NUL>"
 * when the record holds none) or "TS sample pid P tid T cpu C flags F chain
 * N" for a ustack:sample record; "close RET" first, "size BYTES" (of the
 * whole file) last.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "ustack-sideband.h"
#include "ustack-sample-event.h"
#include "ustack-tracedat-sbfile.h"

#define PAGE	4096

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char print_format[] =
	"name: print\n"
	"ID: 5\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n"
	"\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

static void die(const char *msg)
{
	fprintf(stderr, "ustack-sbfile-test: %s\n", msg);
	exit(2);
}

static struct tep_handle *make_tep(void)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		die("out of memory");
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, PAGE);
	if (tep_parse_header_page(tep, (char *)header_page, sizeof(header_page) - 1, 8))
		die("cannot parse the header page");
	if (tep_parse_event(tep, print_format, sizeof(print_format) - 1, "ftrace"))
		die("cannot parse the print format");
	return tep;
}

static void add(struct ustack_tracedat_sbfile *f, const struct ustack_sb_rec *rec)
{
	if (ustack_tracedat_sbfile_add(f, rec) < 0)
		die("cannot add a record");
}

static void write_script(struct ustack_tracedat_sbfile *f)
{
	unsigned long long ts, step;
	uint64_t chain[64];
	char line[256], name[64];
	int pid, tid, cpu, cut, n, i;
	unsigned int type, size;
	long x;

	while (fgets(line, sizeof(line), stdin)) {
		struct ustack_sb_rec rec = { .kind = USTACK_SB_COMM };

		if (sscanf(line, "comm %llu %d %63s", &ts, &pid, name) == 3) {
			rec.ts = ts;
			rec.pid = rec.tid = pid;
			rec.name = name;
			add(f, &rec);
		} else if (sscanf(line, "many %d %llu %llu", &n, &ts, &step) == 3) {
			for (i = 0; i < n; i++) {
				snprintf(name, sizeof(name), "t%d", i);
				rec.ts = ts + i * step;
				rec.pid = rec.tid = 1000 + i;
				rec.name = name;
				add(f, &rec);
			}
		} else if (sscanf(line, "grow %d %llu %llu", &n, &ts, &step) == 3) {
			for (i = 0, x = 1; i < n; i++) {
				x = (75 * x + 74) % 65537;
				memset(name, 'x', 1 + x % 61);
				name[1 + x % 61] = 0;
				rec.ts = ts + i * step;
				rec.pid = rec.tid = 1000 + i;
				rec.name = name;
				add(f, &rec);
			}
		} else if (sscanf(line, "sample %llu %d %d %d %d %d", &ts, &pid, &tid, &cpu,
				  &cut, &n) == 6) {
			if (n < 0 || n > 64)
				die("a chain of 0 to 64 entries");
			for (i = 0; i < n; i++)
				chain[i] = 0x1000 + i;
			rec.kind = USTACK_SB_SAMPLE;
			rec.ts = ts;
			rec.pid = pid;
			rec.tid = tid;
			rec.cpu = cpu;
			rec.cut = cut;
			rec.nr_chain = n;
			rec.chain = chain;
			add(f, &rec);
		} else if (sscanf(line, "unparsed %llu %u %u", &ts, &type, &size) == 3) {
			rec.kind = USTACK_SB_UNPARSED;
			rec.ts = ts;
			rec.perf_type = type;
			rec.perf_size = size;
			add(f, &rec);
		} else {
			die("bad script line");
		}
	}
}

static uint32_t get32(const char *data, int off)
{
	uint32_t v;

	memcpy(&v, data + off, 4);
	return v;
}

static void show_record(const char *data, int size, unsigned long long ts)
{
	uint16_t type;

	memcpy(&type, data, 2);
	if (type == USTACK_SAMPLE_ID && size >= USTACK_SAMPLE_HDR) {
		printf("%llu sample pid %u tid %u cpu %u flags %u chain %u\n", ts,
		       get32(data, USTACK_SAMPLE_OFF_PID), get32(data, USTACK_SAMPLE_OFF_TID),
		       get32(data, USTACK_SAMPLE_OFF_CPU), get32(data, USTACK_SAMPLE_OFF_FLAGS),
		       get32(data, USTACK_SAMPLE_OFF_CHAIN) >> 16);
	} else if (type == 5 && size > 16) {
		if (memchr(data + 16, 0, size - 16))
			printf("%llu text %s\n", ts, data + 16);
		else
			printf("%llu text <no NUL>\n", ts);
	} else {
		printf("%llu type %u size %d\n", ts, type, size);
	}
}

static void read_back(const char *path)
{
	struct kbuffer *kbuf = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	unsigned long long ts, commit;
	static char page[PAGE];
	FILE *in = fopen(path, "r");
	void *data;

	if (!kbuf || !in)
		die("cannot read the file back");
	while (fread(page, PAGE, 1, in) == 1) {
		memcpy(&ts, page, 8);
		memcpy(&commit, page + 8, 8);
		printf("page %llu %llu\n", ts, commit);
		if (commit > PAGE - 16)
			continue;
		if (kbuffer_load_subbuffer(kbuf, page) < 0)
			die("kbuffer refused a page");
		for (data = kbuffer_read_event(kbuf, &ts); data;
		     data = kbuffer_next_event(kbuf, &ts))
			show_record(data, kbuffer_event_size(kbuf), ts);
	}
	printf("size %ld\n", ftell(in));
	fclose(in);
	kbuffer_free(kbuf);
}

int main(int argc, char **argv)
{
	struct ustack_tracedat_sbfile *f;
	struct tep_handle *tep;

	if (argc != 2)
		die("usage: ustack-sbfile-test FILE < SCRIPT");
	tep = make_tep();
	f = ustack_tracedat_sbfile_open(tep, PAGE, argv[1]);
	if (!f)
		die("cannot open the side-band file");
	write_script(f);
	printf("close %d\n", ustack_tracedat_sbfile_close(f));
	read_back(argv[1]);
	tep_free(tep);
	return 0;
}
