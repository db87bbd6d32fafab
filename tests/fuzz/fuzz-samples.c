// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: a recording of the perf stack source as report reads
 * it. Its side-band records (samples with their payload, callchain, user
 * registers, stack copy and frame limit; mmap, comm, fork, exit, lost,
 * deferred) and markers go into a session as ftrace:print records, the
 * session unwinds the stack copies by CFI through the files the mmap
 * records name, and every sample it hands out goes through the render
 * stage to the text printer and the profile, whose flame graph, pprof and
 * speedscope writers all run at the end, with the summary.
 *
 * The input is lines:
 *	#FLAGS		(first line only) options, one letter each:
 *			f folded, p perf-script, n no printer (else stacks);
 *			r raw, k kernel frames, l lines and inlines, d demangle,
 *			w why, e skip empty, P fold by pid, E fold by event,
 *			x no profile, R reversed flame graph, o ordered,
 *			m report's --max-stack 8, S perf source's max stack 16,
 *			h short hold time, B a memory budget of 64 KiB
 *	+N		time passes: N ns (decimal), the session is told
 *	!CPU N		the reader lost N events on CPU (N <= 0: unknown)
 *	ev CPU HEX	a record of the tracefs formats, its data in hex (an
 *			event, its user_unwind_cookie and user_unwind_copy:
 *			a deferred stack copy, unwound as a sample's is)
 *	ustack-...	a marker (info, maps) as it is
 *	anything else	a side-band record without its "ustack-sb " marker
 * "path=@" in a record stands for "path=" and the symfs of tests/data:
 * "path=@/tmp/ustack-fixtures/deep" is a real ELF file with CFI. Files
 * the records name outside it (libc.so.6 of this machine) are read too.
 * Each record is an allocation of exactly its size: any read past it is
 * AddressSanitizer's to report. A run that does not end is libFuzzer's
 * timeout (tests/fuzz/run gives -timeout).
 *
 * FUZZ_SAMPLES_SHOW=1 .fuzz/fuzz-samples FILE prints what FILE gives
 * (the printer, the summary, the library's messages; the profiles still
 * go to /dev/null).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack.h"
#include "ustack-events.h"
#include "ustack-output.h"
#include "ustack-profile.h"
#include "ustack-render.h"
#include "ustack-resolve.h"
#include "ustack-session.h"
#include "ustack-sideband.h"
#include "ustack-unwind.h"
#include "ustack-warn.h"

#define NR_CPUS		8
#define SYMFS		FUZZ_DATA "/symfs"

static struct tep_handle *tep;
static struct tep_event *print_ev;
static FILE *out, *sink;
static bool show;

/*
 * The library's messages: formatted (their arguments are read), shown
 * only with FUZZ_SAMPLES_SHOW set
 */
void ustack_vwarning(const char *fmt, va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (show)
		fprintf(stderr, "warning: %s\n", buf);
}

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

static struct tep_event *load(const char *sys, const char *file)
{
	struct tep_event *ev = NULL;
	char path[512];
	size_t size;
	char *buf;

	snprintf(path, sizeof(path), "%s/%s", FUZZ_DATA, file);
	buf = slurp(path, &size);
	if (!buf || tep_parse_format(tep, &ev, buf, size, sys)) {
		fprintf(stderr, "fuzz-samples: cannot parse %s\n", path);
		exit(1);
	}
	free(buf);
	return ev;
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
	/* deferred stack copies, unwound by the session as the samples' */
	load("ftrace", "formats/user_unwind_copy.format");
	load("inode_cache", "formats/inode_cache.format");
	load("ftrace", "session/kernel_stack.format");
	load("ftrace", "session/user_stack.format");
	print_ev = load("ftrace", "session/print.format");
	load("task", "session/task_newtask.format");
	load("task", "session/task_rename.format");
	load("sched", "session/sched_process_exec.format");
	load("test", "session/sys_enter_test.format");
	/* the traced event of the seeds, their samples' payload */
	load("syscalls", "session/sys_enter_getppid.format");
	/* FUZZ_SAMPLES_SHOW set: what an input prints, on stdout */
	show = getenv("FUZZ_SAMPLES_SHOW");
	sink = fopen("/dev/null", "w");
	out = show ? stdout : sink;
	if (!sink)
		exit(1);
	return 0;
}

struct opts {
	struct ustack_session_opts	so;
	struct ustack_output_opts	out;
	struct ustack_resolver_opts	ro;
	bool				profile;
	bool				reverse;
	unsigned int			perf_max_stack;
};

static void parse_opts(const char *line, struct opts *o)
{
	static const char * const no_dirs[] = { NULL };

	memset(o, 0, sizeof(*o));
	o->profile = true;
	/* nothing of this machine's debug directories or debuginfod */
	o->ro.debug_dirs = no_dirs;
	o->so.mem_budget = USTACK_MEM_BUDGET_DEFAULT;
	if (line[0] != '#')
		return;
	for (line++; *line; line++) {
		switch (*line) {
		case 'f': o->out.mode = USTACK_OUTPUT_FOLDED; break;
		case 'p': o->out.mode = USTACK_OUTPUT_PERF_SCRIPT; break;
		case 'n': o->out.mode = USTACK_OUTPUT_NONE; break;
		case 'r': o->out.raw = true; break;
		case 'k': o->out.kernel = o->so.want_kernel = true; break;
		case 'l': o->out.lines = o->ro.lines = o->ro.inlines = true; break;
		case 'd': o->ro.demangle = true; break;
		case 'w': o->out.why = true; break;
		case 'e': o->out.skip_empty = true; break;
		case 'P': o->out.fold_pid = true; break;
		case 'E': o->out.fold_event = true; break;
		case 'x': o->profile = false; break;
		case 'R': o->reverse = true; break;
		case 'o': o->so.ordered = true; break;
		case 'm': o->so.unwind_max = 8; break;
		case 'S': o->perf_max_stack = 16; break;
		case 'h': o->so.hold_ns = 1000; break;
		case 'B': o->so.mem_budget = 64 << 10; break;
		}
	}
}

/* Everything a report run has, built as tracecmd/ustack-run.c does */
struct run {
	struct opts		o;
	struct ustack_events	*ev;
	struct ustack_session	*session;
	struct ustack_resolver	*resolver;
	struct ustack_unwinder	*unwinder;
	struct ustack_render	*render;
	struct ustack_output	*printer;
	struct ustack_profile	*profile;
	uint64_t		ts;
	bool			failed;
};

static void on_sample(const struct ustack_sample *smp, void *data)
{
	struct run *run = data;

	if (!run->failed && ustack_render_sample(run->render, smp) < 0)
		run->failed = true;
}

static bool run_open(struct run *run)
{
	struct ustack_render_opts rro = {
		.raw = run->o.out.raw, .kernel = run->o.out.kernel,
		.skip_empty = run->o.out.skip_empty,
	};
	struct ustack_consumer c;

	run->ev = ustack_events_new(tep);
	run->resolver = ustack_resolver_new(&run->o.ro);
	if (!run->ev || !run->resolver)
		return false;
	run->session = ustack_session_new(run->ev, &run->o.so, on_sample, run);
	run->unwinder = ustack_unwinder_new(run->resolver);
	run->render = ustack_render_new(tep, run->o.out.raw ? NULL : run->resolver, &rro);
	run->printer = ustack_output_new(tep, &run->o.out, out);
	if (!run->session || !run->unwinder || !run->render || !run->printer)
		return false;
	ustack_session_set_unwinder(run->session, run->unwinder);
	if (run->o.perf_max_stack)
		ustack_session_set_perf_max_stack(run->session, run->o.perf_max_stack);
	if (run->o.out.mode != USTACK_OUTPUT_NONE) {
		ustack_output_consumer(run->printer, &c);
		ustack_render_attach(run->render, &c);
	}
	if (run->o.profile) {
		run->profile = ustack_profile_new(true);
		if (!run->profile)
			return false;
		ustack_profile_consumer(run->profile, &c);
		ustack_render_attach(run->render, &c);
	}
	return true;
}

/* The end of the data: what report does after its last record */
static void run_finish(struct run *run)
{
	struct ustack_flamegraph_opts fo = { .reverse = run->o.reverse };
	const struct ustack_stats *st;

	ustack_session_flush(run->session);
	if (!run->failed)
		ustack_render_finish(run->render);
	st = ustack_session_stats(run->session);
	if (run->profile) {
		ustack_profile_set_command(run->profile, "trace-cmd ustack report -i fuzz.dat");
		ustack_profile_set_stats(run->profile, st);
		ustack_flamegraph_write(run->profile, &fo, sink);
		ustack_speedscope_write(run->profile, sink);
		ustack_pprof_write(run->profile, "/dev/null");
	}
	ustack_output_summary(run->render, out, st);
	fflush(out);
	fflush(sink);
}

static void run_close(struct run *run)
{
	ustack_render_free(run->render);
	ustack_output_free(run->printer);
	ustack_profile_free(run->profile);
	if (run->session)
		ustack_session_set_unwinder(run->session, NULL);
	ustack_unwinder_free(run->unwinder);
	ustack_resolver_free(run->resolver);
	ustack_session_free(run->session);
	ustack_events_free(run->ev);
}

/* A record of exactly @size bytes, fed at the next time */
static int feed(struct run *run, void *data, size_t size, int cpu)
{
	struct tep_record rec = { 0 };
	int ret;

	rec.ts = run->ts += 10;
	rec.cpu = cpu;
	rec.size = size;
	rec.record_size = size + 4;
	rec.ref_count = 1;
	rec.data = data;
	ret = ustack_session_feed(run->session, &rec);
	/* the session may not keep pointers into a record */
	memset(data, 0xa5, size);
	free(data);
	return ret;
}

/* @text as a ftrace:print record, "path=@" made the symfs of tests/data */
static int feed_print(struct run *run, const char *prefix, const char *text)
{
	const char *at = strstr(text, "path=@");
	size_t head = at ? (size_t)(at - text) + 5 : strlen(text);
	const char *tail = at ? at + 6 : "";
	const char *mid = at ? SYMFS : "";
	size_t len = strlen(prefix) + head + strlen(mid) + strlen(tail);
	uint8_t *data = malloc(16 + len + 1);
	uint16_t type = print_ev->id;
	int32_t pid = 1;
	char *p;

	if (!data)
		return 0;
	memcpy(data, &type, 2);
	data[2] = data[3] = 0;
	memcpy(data + 4, &pid, 4);
	memset(data + 8, 0, 8);
	p = (char *)data + 16;
	p = stpcpy(p, prefix);
	memcpy(p, text, head);
	p = stpcpy(p + head, mid);
	strcpy(p, tail);
	return feed(run, data, 16 + len + 1, 0);
}

static int hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "ev CPU HEX": a tracefs record as it is */
static int feed_event(struct run *run, const char *line)
{
	unsigned int cpu;
	const char *h;
	uint8_t *data;
	size_t n, i;
	int off;

	if (sscanf(line, "ev %u %n", &cpu, &off) != 1)
		return 0;
	h = line + off;
	for (n = 0; hex(h[2 * n]) >= 0 && hex(h[2 * n + 1]) >= 0; n++)
		;
	if (!n)
		return 0;
	data = malloc(n);
	if (!data)
		return 0;
	for (i = 0; i < n; i++)
		data[i] = hex(h[2 * i]) << 4 | hex(h[2 * i + 1]);
	return feed(run, data, n, cpu % NR_CPUS);
}

static int do_line(struct run *run, const char *line)
{
	unsigned long long n;
	long long missed;
	unsigned int cpu;

	if (line[0] == '+') {
		n = strtoull(line + 1, NULL, 10);
		/* at most 10 s of the trace clock a line */
		run->ts += n < 10000000000ULL ? n : 10000000000ULL;
		ustack_session_advance(run->session, run->ts);
		return 0;
	}
	if (line[0] == '!') {
		if (sscanf(line + 1, "%u %lld", &cpu, &missed) == 2)
			ustack_session_add_lost(run->session, cpu % NR_CPUS, missed);
		return 0;
	}
	if (!strncmp(line, "ev ", 3))
		return feed_event(run, line);
	if (!strncmp(line, "ustack-", 7))
		return feed_print(run, "", line);
	return feed_print(run, USTACK_SB_MARKER, line);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	const uint8_t *p = in, *end = in + size, *nl;
	struct run run = { .ts = 1000 };
	bool first = true;
	char *line;
	size_t len;

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		len = (nl ? nl : end) - p;
		line = malloc(len + 1);
		if (!line)
			break;
		memcpy(line, p, len);
		line[len] = '\0';
		p += len + 1;
		if (first) {
			first = false;
			parse_opts(line, &run.o);
			if (!run_open(&run)) {
				free(line);
				goto out;
			}
			if (line[0] == '#') {
				free(line);
				continue;
			}
		}
		/* the session stopped (memory, budget): report stops too */
		if (do_line(&run, line)) {
			free(line);
			break;
		}
		free(line);
	}
	if (run.session)
		run_finish(&run);
out:
	run_close(&run);
	return 0;
}
