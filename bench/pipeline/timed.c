// SPDX-License-Identifier: GPL-2.0
/*
 * bench/pipeline/timed.c: timed [-a] OUT CMD... runs CMD and writes
 * "wall user sys maxrss_kb" to OUT, as `/usr/bin/time -f '%e %U %S %M'`
 * does, but the times to the microsecond: time(1) prints hundredths, too
 * coarse for reports of a few tens of ms. Small, like time(1), so that its
 * own memory, which the child has until it execs CMD, does not raise the
 * peak. The exit status is CMD's (128 + signal when killed).
 *
 * With -a it also samples, every millisecond, the anonymous RSS (RssAnon)
 * of CMD and its descendants, and appends the largest seen (kB): the
 * tool's own memory, which maxrss mixes with the input file's mapped
 * pages. The sampling costs CPU beside CMD: such a run's times are not
 * for comparison.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

static double secs(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

static long anon_kb(long pid)
{
	char path[64], line[256];
	long kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* The largest RssAnon of @pid and its descendants (their main threads' children) */
static long tree_anon_kb(long pid, int depth)
{
	long max = anon_kb(pid), kb, child;
	char path[64];
	FILE *f;

	if (depth > 4)
		return max;
	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", pid, pid);
	f = fopen(path, "r");
	if (!f)
		return max;
	while (fscanf(f, "%ld", &child) == 1) {
		kb = tree_anon_kb(child, depth + 1);
		if (kb > max)
			max = kb;
	}
	fclose(f);
	return max;
}

/* Until @pid ends: its rusage and status, and the anonymous peak if asked */
static int wait_sampling(pid_t pid, int *status, struct rusage *ru, long *anon)
{
	struct timespec ms = { 0, 1000000 };
	pid_t r;
	long kb;

	if (!anon)
		return wait4(pid, status, 0, ru) < 0 ? -1 : 0;
	while (!(r = wait4(pid, status, WNOHANG, ru))) {
		kb = tree_anon_kb(pid, 0);
		if (kb > *anon)
			*anon = kb;
		nanosleep(&ms, NULL);
	}
	return r < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct timespec start, end;
	long anon = 0, *sample = NULL;
	struct rusage ru;
	int status, arg = 1;
	pid_t pid;
	FILE *out;

	if (argc > 1 && !strcmp(argv[1], "-a")) {
		sample = &anon;
		arg++;
	}
	if (argc < arg + 2) {
		fprintf(stderr, "usage: timed [-a] OUT CMD [ARG...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	pid = fork();
	if (pid < 0) {
		perror("timed: fork");
		return 2;
	}
	if (!pid) {
		execvp(argv[arg + 1], argv + arg + 1);
		perror(argv[arg + 1]);
		_exit(127);
	}
	if (wait_sampling(pid, &status, &ru, sample) < 0) {
		perror("timed: wait4");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	out = fopen(argv[arg], "w");
	if (!out) {
		perror(argv[arg]);
		return 2;
	}
	fprintf(out, "%.6f %.6f %.6f %ld",
		(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9,
		secs(ru.ru_utime), secs(ru.ru_stime), ru.ru_maxrss);
	if (sample)
		fprintf(out, " %ld", anon);
	fprintf(out, "\n");
	fclose(out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
