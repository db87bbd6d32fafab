// SPDX-License-Identifier: GPL-2.0
/*
 * burst: the recorder workload of tests/bats/vm/recorder.bats and bench/pipeline.
 *
 *   burst THREADS CALLS RATE
 *
 * Starts THREADS threads; each makes CALLS getppid(2) system calls from
 * the bottom of a 13-frame frame-pointer chain (main or the thread's
 * start routine, 11 bu_level frames, bu_loop), RATE calls per second
 * (0: as fast as it can). The rate is kept in chunks of 100 calls, each
 * started at its due time (absolute CLOCK_MONOTONIC), so a late chunk is
 * not made up by a burst. Prints "burst threads T calls C rate R wall_s W".
 * Built with frame pointers, -O0, no inlining (tests/progs/burst/Makefile),
 * like bench/kernel/kbench.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#define DEPTH 13
#define CHUNK 100

static long calls, rate;

/* Inline, so that bu_loop is the leaf frame (see kbench.c) */
#define raw_syscall0(nr) ({						\
	long __ret;							\
	asm volatile("syscall" : "=a"(__ret) : "0"((long)(nr))		\
		     : "rcx", "r11", "memory");				\
	__ret;								\
})

static void add_ns(struct timespec *t, long long ns)
{
	ns += t->tv_nsec;
	t->tv_sec += ns / 1000000000LL;
	t->tv_nsec = ns % 1000000000LL;
}

NOINLINE void bu_loop(void);
NOINLINE void bu_loop(void)
{
	struct timespec due;
	long i;

	clock_gettime(CLOCK_MONOTONIC, &due);
	for (i = 0; i < calls; i++) {
		if (rate && i % CHUNK == 0) {
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL);
			add_ns(&due, CHUNK * 1000000000LL / rate);
		}
		raw_syscall0(SYS_getppid);
	}
}

NOINLINE void bu_level(int left);
NOINLINE void bu_level(int left)
{
	if (left > 0)
		bu_level(left - 1);
	else
		bu_loop();
	asm volatile("" ::: "memory");
}

/* the thread's start routine takes main's place in the chain */
static void *thread(void *arg)
{
	bu_level(DEPTH - 3);
	return arg;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	pthread_t *tids;
	int n, i;

	if (argc != 4) {
		fprintf(stderr, "usage: burst THREADS CALLS RATE\n");
		return 2;
	}
	n = atoi(argv[1]);
	calls = atol(argv[2]);
	rate = atol(argv[3]);
	if (n < 1 || calls < 1 || rate < 0) {
		fprintf(stderr, "burst: THREADS >= 1, CALLS >= 1, RATE >= 0\n");
		return 2;
	}
	tids = calloc(n, sizeof(*tids));
	if (!tids)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 1; i < n; i++)
		if (pthread_create(&tids[i], NULL, thread, NULL)) {
			fprintf(stderr, "burst: cannot start a thread\n");
			return 1;
		}
	bu_level(DEPTH - 3);
	for (i = 1; i < n; i++)
		pthread_join(tids[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("burst threads %d calls %ld rate %ld wall_s %.3f\n", n, calls, rate,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	free(tids);
	return 0;
}
