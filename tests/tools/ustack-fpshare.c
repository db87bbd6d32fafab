// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-fpshare: what --call-graph=auto reads of a file, and what the
 * side-band's build-id probe costs (bench/callgraph-auto,
 * tests/bats/bench-auto-share.bats).
 *
 * usage: ustack-fpshare FILE...
 *        ustack-fpshare --probe
 *
 * For each FILE, one line "FILE FP FUNCTIONS PERCENT VERDICT": of the
 * functions lib/ustack-fpcode.c looked at, those that set %rbp up, their
 * share, and "keeps" or "none" (the fifth that decides), or "i386"; a
 * file it cannot read is said on stderr, exit 1 at the end.
 *
 * --probe runs ustack_perf_sideband_build_ids() once (once a process:
 * run the program again for another sample) and prints
 * "WALL_US CPU_US ASKS REASON": its wall and CPU time (this thread's, the
 * kernel's work for it included) in microseconds, whether the side-band
 * would ask for build ids (1/0) and why.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ustack-err.h"
#include "ustack-fpcode.h"
#include "ustack-sideband.h"

static int share(const char *path)
{
	struct ustack_fpcode c;
	int ret = ustack_fpcode_check(path, &c);

	if (ret < 0) {
		fprintf(stderr, "ustack-fpshare: %s: %s\n", path, ustack_err_strerror(ret));
		return 1;
	}
	printf("%s %u %u %.1f %s\n", path, c.fp, c.functions,
	       c.functions ? 100.0 * c.fp / c.functions : 0.0,
	       c.i386 ? "i386" : c.keeps_fp ? "keeps" : "none");
	return 0;
}

static double us(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e6 + (b->tv_nsec - a->tv_nsec) / 1e3;
}

static int probe(void)
{
	struct timespec w0, w1, c0, c1;
	const char *why;
	bool asks;

	clock_gettime(CLOCK_MONOTONIC, &w0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	asks = ustack_perf_sideband_build_ids(&why);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	clock_gettime(CLOCK_MONOTONIC, &w1);
	printf("%.1f %.1f %d %s\n", us(&w0, &w1), us(&c0, &c1), asks, why);
	return 0;
}

int main(int argc, char **argv)
{
	int i, err = 0;

	if (argc == 2 && !strcmp(argv[1], "--probe"))
		return probe();
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: ustack-fpshare FILE... | ustack-fpshare --probe\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		err |= share(argv[i]);
	return err;
}
