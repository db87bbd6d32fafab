// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-unwind-test: unwind the stacks of a real program with the CFI
 * unwinder (lib/ustack-unwind.c), as perf's --call-graph dwarf would.
 *
 * usage: ustack-unwind-test [options] -- PROG [ARGS...]
 *
 * PROG runs under a perf event on a tracepoint (syscalls:sys_enter_getppid
 * by default) that samples, at every hit, the user registers, the top
 * SIZE bytes of the user stack and perf's own frame-pointer callchain.
 * Its mappings come from the event's PERF_RECORD_MMAP2 records, kept in
 * the session's mapping history. Each sample is unwound and symbolized
 * with the project's resolver.
 *
 * Output, one sample after the other:
 *	sample N: F frames, perf fp P, end: REASON
 *	  #i ADDR NAME+0xOFF (DSO) HOW		(HOW: regs, cfi or fp)
 * With --fold, one line per sample instead:
 *	F<TAB>P<TAB>REASON<TAB>outer;...;leaf
 * --stats adds a summary on stderr: samples, complete, average frames
 * (ours and perf's), the CPU time of the unwinder per stack (not a test:
 * for bench/) and the count of each end reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "ustack.h"
#include "../../lib/ustack-array.h"
#include "ustack-resolve.h"
#include "ustack-sideband.h"
#include "ustack-unwind.h"
#include "../../lib/ustack-map-history.h"

#define MAX_FRAMES	256
#define MAX_DEBUG_DIRS	8
#define RING_PAGES	1024	/* data pages of the ring (4 MiB) */

struct state {
	struct ustack_resolver	*r;
	struct ustack_unwinder	*u;
	struct ustack_map_history	*h;
	int			pid;
	bool			fold;
	bool			stats;
	unsigned long		samples;
	unsigned long		complete;
	unsigned long		frames;
	unsigned long		fp_frames;
	unsigned long		ends[USTACK_UNWIND_E_NR];
	unsigned long		bad;		/* malformed samples */
	unsigned long		lost;		/* dropped by the kernel */
	uint64_t		unwind_ns;	/* CPU time in ustack_unwind() */
};

struct ring {
	int			fd;
	void			*base;
	size_t			data_size;
	char			*rec;		/* one record, unwrapped */
	size_t			rec_alloc;
};

static __attribute__((noreturn)) void usage(int code)
{
	fprintf(code ? stderr : stdout,
		"usage: ustack-unwind-test [options] -- PROG [ARGS...]\n"
		"  --event SYS:NAME   tracepoint to sample (default syscalls:sys_enter_getppid)\n"
		"  --stack-size N     bytes of user stack per sample (default 8192)\n"
		"  --fold             one line per sample: frames, perf fp frames, end, stack\n"
		"  --stats            summary on stderr\n"
		"  --symfs DIR        look files up under DIR\n"
		"  --debuginfod       ask debuginfod (DEBUGINFOD_URLS)\n"
		"  --debug-dir DIR    look for debug files in DIR too (repeatable)\n");
	exit(code);
}

static int tracepoint_id(const char *event)
{
	char path[512], buf[32];
	const char *colon = strchr(event, ':');
	int fd, n;

	if (!colon)
		return -1;
	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%.*s/%s/id",
		 (int)(colon - event), event, colon + 1);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return atoi(buf);
}

static int open_event(int pid, int id, unsigned int stack_size)
{
	struct perf_event_attr attr = {
		.size			= sizeof(attr),
		.type			= PERF_TYPE_TRACEPOINT,
		.config			= id,
		.sample_period		= 1,
		/* TID, TIME and CPU: the side-band parser's trailer (ustack-perf-sideband.c) */
		.sample_type		= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					  PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN |
					  PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
		.sample_regs_user	= USTACK_REGS_USER_X86_64,
		.sample_stack_user	= stack_size,
		.exclude_callchain_kernel = 1,
		.disabled		= 1,
		.enable_on_exec		= 1,
		.mmap			= 1,
		.mmap2			= 1,
		.comm			= 1,
		.task			= 1,
		.sample_id_all		= 1,
		.wakeup_events		= 1,
	};

	/* as the side-band: none where the kernel leaks their flag to others */
	attr.build_id = ustack_perf_sideband_build_ids(NULL);
	return syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static const struct ustack_mapping *history_map(void *ctx, int tgid, uint64_t va,
						uint64_t *offset)
{
	struct ustack_frame fr;

	ustack_map_history_map(ctx, tgid, va, &fr);
	*offset = fr.offset;
	return fr.map;
}

/* The innermost name of frame @f, NULL when unresolved. */
static const char *frame_name(struct state *st, const struct ustack_uframe *f,
			      uint64_t *sym_off, const char **dso_name)
{
	const struct ustack_mapping *m = f->fr.map;
	struct ustack_sym sym[8];
	struct ustack_dso *dso;

	*dso_name = "[unknown]";
	if (!m)
		return NULL;
	dso = ustack_resolver_dso(st->r, m->path, m->build_id, m->build_id_len, m->tgid,
				  m->flags);
	*dso_name = ustack_resolve_dso_name(dso);
	if (!dso || ustack_resolve_dso_lookup(dso, f->fr.offset, !f->exact, sym, 8) <= 0)
		return NULL;
	*sym_off = sym[0].sym_off;
	return sym[0].name;
}

static void print_fold(struct state *st, const struct ustack_uframe *f, int nr)
{
	const char *name, *dso;
	uint64_t off;
	int i;

	for (i = nr - 1; i >= 0; i--) {
		name = frame_name(st, &f[i], &off, &dso);
		if (name)
			printf("%s%s", name, i ? ";" : "");
		else
			printf("[unknown] (%s)%s", dso, i ? ";" : "");
	}
}

static void print_frames(struct state *st, const struct ustack_uframe *f, int nr)
{
	const char *name, *dso;
	uint64_t off;
	int i;

	for (i = 0; i < nr; i++) {
		name = frame_name(st, &f[i], &off, &dso);
		printf("  #%-3d %#014llx ", i, (unsigned long long)f[i].addr);
		if (name)
			printf("%s+%#llx", name, (unsigned long long)off);
		else
			printf("[unknown]");
		printf(" (%s) %s\n", dso, ustack_unwind_how_str(f[i].how));
	}
}

static const char *end_text(const struct ustack_unwind_result *res, char *buf, size_t size)
{
	if (res->err == USTACK_UNWIND_OK)
		snprintf(buf, size, "%s", ustack_unwind_strerror(res->err));
	else if (res->err_map)
		snprintf(buf, size, "%s at %#llx (%s)", ustack_unwind_strerror(res->err),
			 (unsigned long long)res->err_addr, res->err_map->path);
	else
		snprintf(buf, size, "%s at %#llx", ustack_unwind_strerror(res->err),
			 (unsigned long long)res->err_addr);
	return buf;
}

/* perf's own user callchain: entries after PERF_CONTEXT_USER. */
static int fp_count(const uint64_t *ips, uint64_t nr)
{
	int n = 0;
	uint64_t i;

	for (i = 0; i < nr; i++)
		if (ips[i] < (uint64_t)PERF_CONTEXT_MAX)
			n++;
	return n;
}

struct cursor {
	const char	*p;
	size_t		left;
};

static bool take(struct cursor *c, void *out, size_t n)
{
	if (c->left < n)
		return false;
	if (out)
		memcpy(out, c->p, n);
	c->p += n;
	c->left -= n;
	return true;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void do_sample(struct state *st, const char *rec, size_t size)
{
	struct cursor c = { rec + sizeof(struct perf_event_header),
			    size - sizeof(struct perf_event_header) };
	static struct ustack_uframe frames[MAX_FRAMES];
	uint64_t ip, ts, cpu, nr, abi, regs[64], stack_size = 0, dyn = 0;
	struct ustack_unwind_input in = { 0 };
	struct ustack_unwind_result res;
	struct ustack_uregs uregs;
	const uint64_t *ips;
	const char *stack;
	uint32_t pt[2];
	int nregs = __builtin_popcountll(USTACK_REGS_USER_X86_64), fp;
	char buf[512];
	uint64_t t0;

	if (!take(&c, &ip, 8) || !take(&c, pt, 8) || !take(&c, &ts, 8) ||
	    !take(&c, &cpu, 8) || !take(&c, &nr, 8) || nr > c.left / 8)
		goto bad;
	ips = (const uint64_t *)c.p;
	take(&c, NULL, nr * 8);
	if (!take(&c, &abi, 8) || (abi && !take(&c, regs, nregs * 8)) ||
	    !take(&c, &stack_size, 8))
		goto bad;
	stack = c.p;
	if (!take(&c, NULL, stack_size) || (stack_size && !take(&c, &dyn, 8)))
		goto bad;
	fp = fp_count(ips, nr);
	if (!abi || ustack_unwind_uregs_from_perf(&uregs, USTACK_REGS_USER_X86_64, regs, nregs))
		uregs.mask = 0;
	in.tgid = pt[0];
	in.tid = pt[1];
	in.regs = &uregs;
	in.stack = stack;
	in.stack_addr = uregs.val[USTACK_REG_SP];
	in.stack_size = dyn < stack_size ? dyn : stack_size;
	in.map = history_map;
	in.map_ctx = st->h;
	t0 = cpu_ns();
	ustack_unwind(st->u, &in, frames, MAX_FRAMES, &res);
	st->unwind_ns += cpu_ns() - t0;

	st->samples++;
	st->frames += res.nr;
	st->fp_frames += fp;
	st->ends[res.err]++;
	if (res.err == USTACK_UNWIND_OK)
		st->complete++;
	if (st->fold) {
		printf("%d\t%d\t%s\t", res.nr, fp, end_text(&res, buf, sizeof(buf)));
		print_fold(st, frames, res.nr);
		putchar('\n');
	} else {
		printf("sample %lu: %d frames, perf fp %d, end: %s\n", st->samples, res.nr, fp,
		       end_text(&res, buf, sizeof(buf)));
		print_frames(st, frames, res.nr);
	}
	return;
bad:
	st->bad++;
}

static void sideband(const struct ustack_sb_rec *rec, void *ctx)
{
	struct state *st = ctx;

	ustack_map_history_add(st->h, rec);
	/* A new program: the files of the old one are no use. */
	if (rec->kind == USTACK_SB_COMM && rec->exec)
		ustack_unwinder_forget(st->u, rec->pid);
}

static void do_record(struct state *st, const char *rec, size_t size)
{
	const struct perf_event_header *hdr = (const void *)rec;

	if (hdr->type == PERF_RECORD_SAMPLE)
		do_sample(st, rec, size);
	else if (hdr->type == PERF_RECORD_LOST && size >= 24)
		st->lost += *(const uint64_t *)(rec + 16);
	else
		ustack_perf_sideband_parse(rec, size, sideband, st);
}

/*
 * Copy every complete record out of the ring and free it at once, then
 * unwind them: the program keeps running while we unwind, and a ring left
 * full drops its samples.
 */
static int drain(struct state *st, struct ring *r)
{
	struct perf_event_mmap_page *pg = r->base;
	const char *data = (const char *)r->base + sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	size_t len = tail < head ? head - tail : 0, off, pos, first;
	struct perf_event_header hdr;

	if (ustack_array_grow((void **)&r->rec, &r->rec_alloc, len, 1))
		return -1;
	off = tail % r->data_size;
	first = len < r->data_size - off ? len : r->data_size - off;
	memcpy(r->rec, data + off, first);
	memcpy(r->rec + first, data, len - first);
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	for (pos = 0; pos + sizeof(hdr) <= len; pos += hdr.size) {
		memcpy(&hdr, r->rec + pos, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || pos + hdr.size > len)
			break;
		do_record(st, r->rec + pos, hdr.size);
	}
	return 0;
}

static void print_stats(const struct state *st)
{
	double n = st->samples ? st->samples : 1;
	int i;

	fprintf(stderr, "samples %lu complete %lu avg_frames %.2f avg_perf_fp %.2f bad %lu lost %lu\n",
		st->samples, st->complete, st->frames / n, st->fp_frames / n, st->bad, st->lost);
	fprintf(stderr, "unwind cpu %.1f us per stack\n", st->unwind_ns / n / 1000);
	for (i = 0; i < USTACK_UNWIND_E_NR; i++)
		if (st->ends[i])
			fprintf(stderr, "end %s: %lu\n",
				ustack_unwind_strerror(i), st->ends[i]);
}

/* Fork PROG stopped on a pipe until its event is open; it runs at exec. */
static int start_child(char **argv, int *go)
{
	int p[2], pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "ustack-unwind-test: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

static int run(struct state *st, char **argv, const char *event, unsigned int stack_size)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ring r = { .data_size = RING_PAGES * page };
	int id = tracepoint_id(event), go, status = 0, done = 0;
	struct pollfd pfd;

	if (id < 0) {
		fprintf(stderr, "ustack-unwind-test: %s: no such tracepoint in tracefs\n", event);
		return 1;
	}
	st->pid = start_child(argv, &go);
	if (st->pid < 0) {
		perror("ustack-unwind-test: fork");
		return 1;
	}
	r.fd = open_event(st->pid, id, stack_size);
	if (r.fd >= 0)
		r.base = mmap(NULL, (RING_PAGES + 1) * page, PROT_READ | PROT_WRITE,
			      MAP_SHARED, r.fd, 0);
	if (r.fd < 0 || r.base == MAP_FAILED) {
		fprintf(stderr, "ustack-unwind-test: perf_event_open %s: %s\n", event,
			strerror(errno));
		kill(st->pid, SIGKILL);
		waitpid(st->pid, NULL, 0);
		return 1;
	}
	if (write(go, "g", 1) != 1)
		return 1;
	close(go);
	pfd.fd = r.fd;
	pfd.events = POLLIN;
	while (!done) {
		poll(&pfd, 1, 100);
		if (waitpid(st->pid, &status, WNOHANG) == st->pid)
			done = 1;
		if (drain(st, &r))
			return 1;
	}
	munmap(r.base, (RING_PAGES + 1) * page);
	close(r.fd);
	free(r.rec);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "ustack-unwind-test: %s did not exit with 0\n", argv[0]);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event",	required_argument,	NULL, 'e' },
		{ "stack-size",	required_argument,	NULL, 's' },
		{ "fold",	no_argument,		NULL, 'f' },
		{ "stats",	no_argument,		NULL, 'S' },
		{ "symfs",	required_argument,	NULL, 'y' },
		{ "debuginfod",	no_argument,		NULL, 'd' },
		{ "debug-dir",	required_argument,	NULL, 'D' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *debug_dirs[MAX_DEBUG_DIRS + 1] = { NULL };
	struct ustack_resolver_opts opts = { .live = true };
	int nr_dirs = 0;
	const char *event = "syscalls:sys_enter_getppid";
	unsigned long stack_size = 8192;
	struct state st = { 0 };
	char *end;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			event = optarg;
			break;
		case 's':
			stack_size = strtoul(optarg, &end, 0);
			/* perf wants a multiple of 8 below 64 KiB */
			if (*end || !stack_size || stack_size % 8 || stack_size >= 65536) {
				fprintf(stderr, "ustack-unwind-test: --stack-size %s: want a multiple of 8 in 8..65528\n",
					optarg);
				return 1;
			}
			break;
		case 'f':
			st.fold = true;
			break;
		case 'S':
			st.stats = true;
			break;
		case 'y':
			opts.symfs = optarg;
			break;
		case 'd':
			opts.debuginfod = true;
			break;
		case 'D':
			if (nr_dirs == MAX_DEBUG_DIRS) {
				fprintf(stderr, "ustack-unwind-test: at most %d --debug-dir\n",
					MAX_DEBUG_DIRS);
				return 1;
			}
			debug_dirs[nr_dirs++] = optarg;
			opts.debug_dirs = debug_dirs;
			break;
		case 'h':
			usage(0);
		default:
			usage(1);
		}
	}
	if (optind >= argc)
		usage(1);
	st.r = ustack_resolver_new(&opts);
	st.h = ustack_map_history_new();
	st.u = st.r ? ustack_unwinder_new(st.r) : NULL;
	if (!st.r || !st.h || !st.u) {
		fprintf(stderr, "ustack-unwind-test: out of memory\n");
		return 1;
	}
	ret = run(&st, argv + optind, event, stack_size);
	fflush(stdout);
	if (st.stats)
		print_stats(&st);
	ustack_unwinder_free(st.u);
	ustack_map_history_free(st.h);
	ustack_resolver_free(st.r);
	return ret;
}
