// SPDX-License-Identifier: GPL-2.0
/*
 * kbench: the workload of bench/kernel/run.
 *
 *   kbench [-c CPU] DEPTH CALLS REPS
 *   kbench -r FILE
 *
 * Runs REPS times: CALLS getppid(2) system calls, each made with an
 * inline `syscall` instruction from the bottom of a DEPTH-frame
 * frame-pointer chain (main -> kb_level x (DEPTH - 2) -> kb_loop, which
 * makes the calls), timed with clock_gettime(CLOCK_MONOTONIC) around the
 * loop.  The first call of each run is also timed on its own, after 100
 * getpid(2) calls from the same place (not traced by the benchmark) have
 * warmed up the path.  The other calls go in 20 chunks, each timed: the
 * median chunk's ns per call leaves out the chunks in which the host
 * preempted the emulator.  Prints one line per run:
 *
 *   run R depth D calls N ns_per_call X first_call_ns Y median_chunk_ns Z
 *
 * -c CPU pins the process to that CPU first.
 *
 * -r FILE is the benchmark's reader instead: it reads FILE (a
 * per_cpu/cpuN/trace_pipe_raw) and throws the data away until it is
 * killed.  Not cat: trace_pipe_raw returns 0 (end of file, for cat) when
 * the writer wins a race for the page being read while the buffer
 * overwrites; this reader reads again.  On SIGTERM it prints
 * "reader FILE bytes B empty_reads Z" and exits.  Built with frame pointers,
 * -O0, no inlining (bench/kernel/run builds it): the kernel's deferred
 * unwinder and perf walk frame pointers.  Below main, the unwinders find
 * what libc's start code leaves (usually one more frame, in libc).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define WARM_CALLS 100
#define CHUNKS 20

static long calls;

/*
 * A system call without libc, so that no frame-pointer-less code is on
 * top, and inline (a macro: -O0 -fno-inline would make a function of it),
 * so that kb_loop is the leaf frame
 */
#define raw_syscall0(nr) ({						\
	long __ret;							\
	asm volatile("syscall" : "=a"(__ret) : "0"((long)(nr))		\
		     : "rcx", "r11", "memory");				\
	__ret;								\
})

static long long ns(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* The leaf frame: every system call is made from here */
NOINLINE void kb_loop(int rep, int depth);
NOINLINE void kb_loop(int rep, int depth)
{
	struct timespec t0, t1, tc[CHUNKS + 1];
	long long chunk[CHUNKS];
	long i, end;
	int c, nc = 0;

	/*
	 * Warm up the path (page faults, and code the emulator has not
	 * translated yet) with a system call nobody traces, so that the
	 * first timed call shows what tracing adds to it
	 */
	for (i = 0; i < WARM_CALLS; i++)
		raw_syscall0(SYS_getpid);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	raw_syscall0(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* The other calls in CHUNKS chunks, each timed too */
	tc[0] = t1;
	for (c = 0, i = 1; c < CHUNKS; c++) {
		end = 1 + (calls - 1) * (c + 1) / CHUNKS;
		for (; i < end; i++)
			raw_syscall0(SYS_getppid);
		clock_gettime(CLOCK_MONOTONIC, &tc[c + 1]);
	}
	for (c = 0; c < CHUNKS; c++) {
		long n = (calls - 1) * (c + 1) / CHUNKS - (calls - 1) * c / CHUNKS;

		if (n > 0)
			chunk[nc++] = ns(&tc[c], &tc[c + 1]) * 10 / n;
	}
	qsort(chunk, nc, sizeof(chunk[0]), cmp_ll);
	printf("run %d depth %d calls %ld ns_per_call %.1f first_call_ns %lld "
	       "median_chunk_ns %.1f\n",
	       rep, depth, calls, (double)ns(&t0, &tc[CHUNKS]) / calls,
	       ns(&t0, &t1), nc ? chunk[nc / 2] / 10.0 : 0.0);
	fflush(stdout);
}

/* One frame of the chain per call */
NOINLINE void kb_level(int left, int rep, int depth);
NOINLINE void kb_level(int left, int rep, int depth)
{
	if (left > 0)
		kb_level(left - 1, rep, depth);
	else
		kb_loop(rep, depth);
	asm volatile("" ::: "memory");
}

static volatile sig_atomic_t stop;

static void on_term(int sig __attribute__((unused)))
{
	stop = 1;
}

/*
 * Drain a trace_pipe_raw until SIGTERM, then print what was read:
 * "reader FILE bytes B empty_reads Z"
 */
static int reader(const char *path)
{
	static char buf[65536];
	struct sigaction sa = { .sa_handler = on_term };	/* no SA_RESTART */
	long long bytes = 0, empty = 0;
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		perror(path);
		return 1;
	}
	/* Out of the profile's workload samples (perf report --comm kbench) */
	prctl(PR_SET_NAME, "kbench-reader");
	sigaction(SIGTERM, &sa, NULL);
	while (!stop) {
		n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			bytes += n;
		} else if (n == 0) {
			/* lost a race with the writer: not the end */
			empty++;
			usleep(1000);
		} else if (errno != EINTR) {
			perror(path);
			return 1;
		}
	}
	printf("reader %s bytes %lld empty_reads %lld\n", path, bytes, empty);
	return 0;
}

int main(int argc, char **argv)
{
	int depth, reps, r, argi = 1;

	if (argc == 3 && argv[1][0] == '-' && argv[1][1] == 'r')
		return reader(argv[2]);

	if (argc > 2 && argv[1][0] == '-' && argv[1][1] == 'c') {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(argv[2]), &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			perror("kbench: sched_setaffinity");
			return 1;
		}
		argi = 3;
	}
	if (argc - argi != 3) {
		fprintf(stderr, "usage: kbench [-c CPU] DEPTH CALLS REPS | -r FILE\n");
		return 2;
	}
	depth = atoi(argv[argi]);
	calls = atol(argv[argi + 1]);
	reps = atoi(argv[argi + 2]);
	if (depth < 3 || calls < 1 || reps < 1) {
		fprintf(stderr, "kbench: DEPTH >= 3, CALLS >= 1, REPS >= 1\n");
		return 2;
	}
	/* main + (depth - 2) kb_level frames + kb_loop = depth frames */
	for (r = 1; r <= reps; r++)
		kb_level(depth - 3, r, depth);
	return 0;
}
