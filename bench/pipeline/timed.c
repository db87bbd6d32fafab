// SPDX-License-Identifier: GPL-2.0
/*
 * bench/pipeline/timed.c: timed OUT CMD... runs CMD and writes
 * "wall user sys maxrss_kb" to OUT, as `/usr/bin/time -f '%e %U %S %M'`
 * does, but the times to the microsecond: time(1) prints hundredths, too
 * coarse for reports of a few tens of ms. Small, like time(1), so that its
 * own memory, which the child has until it execs CMD, does not raise the
 * peak. The exit status is CMD's (128 + signal when killed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

static double secs(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct timespec start, end;
	struct rusage ru;
	int status;
	pid_t pid;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: timed OUT CMD [ARG...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	pid = fork();
	if (pid < 0) {
		perror("timed: fork");
		return 2;
	}
	if (!pid) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("timed: wait4");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	out = fopen(argv[1], "w");
	if (!out) {
		perror(argv[1]);
		return 2;
	}
	fprintf(out, "%.6f %.6f %.6f %ld\n",
		(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9,
		secs(ru.ru_utime), secs(ru.ru_stime), ru.ru_maxrss);
	fclose(out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
