// SPDX-License-Identifier: GPL-2.0
/*
 * bench/perfsrc/chain3.c: chain3 CALLS RATE makes CALLS getppid(2) calls
 * at the bottom of a 3-deep frame-pointer chain (main, c3_outer,
 * c3_loop), RATE a second in chunks of 100 (0: as fast as it can). The
 * burst of issue 47: 100,000 calls in well under a second.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static void add_ns(struct timespec *t, long long ns)
{
	ns += t->tv_nsec;
	t->tv_sec += ns / 1000000000LL;
	t->tv_nsec = ns % 1000000000LL;
}

NOINLINE void c3_loop(long calls, long rate);
NOINLINE void c3_loop(long calls, long rate)
{
	struct timespec due;
	long i;

	clock_gettime(CLOCK_MONOTONIC, &due);
	for (i = 0; i < calls; i++) {
		if (rate && i % 100 == 0) {
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL);
			add_ns(&due, 100 * 1000000000LL / rate);
		}
		syscall(SYS_getppid);
	}
}

NOINLINE void c3_outer(long calls, long rate);
NOINLINE void c3_outer(long calls, long rate)
{
	c3_loop(calls, rate);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	c3_outer(atol(argv[1]), atol(argv[2]));
	return 0;
}
