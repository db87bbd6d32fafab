// SPDX-License-Identifier: LGPL-2.1
/*
 * The side-band records that stand for what existed before the perf
 * events were opened (see ustack-sideband.h): each thread's name and each
 * executable mapping of the processes asked for, read from /proc as perf
 * would have told them.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ustack-proc.h"
#include "ustack-sideband.h"

static uint32_t perms_prot(const char *perms)
{
	return (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
	       (perms[2] == 'x' ? PROT_EXEC : 0);
}

/* An executable line of /proc/<pid>/maps as perf would have told it. */
static void scan_maps_line(char *line, struct ustack_sb_rec *r, ustack_sb_fn fn, void *ctx)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	char perms[8];
	char *path;
	int n = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu%n", &start, &end, perms, &pgoff,
		   &maj, &min, &ino, &n) < 7 || !n || strlen(perms) < 4 || perms[2] != 'x')
		return;
	path = line + n;
	path += strspn(path, " \t");
	r->kind = USTACK_SB_MMAP;
	r->start = start;
	r->len = end - start;
	r->pgoff = pgoff;
	r->prot = perms_prot(perms);
	r->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	r->maj = maj;
	r->min = min;
	r->ino = ino;
	/* perf's name for anonymous memory */
	r->name = *path ? path : "//anon";
	ustack_sideband_fill_build_id(r);
	fn(r, ctx);
}

static void scan_maps(int pid, uint64_t ts, ustack_sb_fn fn, void *ctx)
{
	char *maps = ustack_proc_read(pid, "maps", NULL);
	char *line, *save = NULL;
	struct ustack_sb_rec r;

	for (line = maps ? strtok_r(maps, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		memset(&r, 0, sizeof(r));
		r.ts = ts;
		r.pid = r.tid = pid;
		scan_maps_line(line, &r, fn, ctx);
	}
	free(maps);
}

static void scan_comm(int pid, int tid, uint64_t ts, ustack_sb_fn fn, void *ctx)
{
	struct ustack_sb_rec r = { .kind = USTACK_SB_COMM, .ts = ts, .pid = pid, .tid = tid };
	char what[64], *comm;

	snprintf(what, sizeof(what), "task/%d/comm", tid);
	comm = ustack_proc_read(pid, what, NULL);
	if (!comm)
		return;
	comm[strcspn(comm, "\n")] = '\0';
	r.name = comm;
	fn(&r, ctx);
	free(comm);
}

/* A process: the name of each of its threads, then its mappings. */
static void scan_process(int pid, uint64_t ts, ustack_sb_fn fn, void *ctx)
{
	char path[64];
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir)))
		if (isdigit((unsigned char)de->d_name[0]))
			scan_comm(pid, atoi(de->d_name), ts, fn, ctx);
	closedir(dir);
	scan_maps(pid, ts, fn, ctx);
}

/**
 * ustack_sideband_scan - records for the processes that exist now
 * @pids:	the processes (thread group ids), or NULL for every process
 * @nr_pids:	entries in @pids
 * @ts:		the time the records get: when the perf events were opened,
 *		so that what they report next sorts after this picture
 * @fn:		called per record (COMM of each thread, MMAP of each
 *		executable mapping)
 * @ctx:	passed to @fn
 *
 * Processes gone meanwhile are skipped. Returns 0, or -1 when /proc cannot
 * be read.
 */
int ustack_sideband_scan(const int *pids, size_t nr_pids, uint64_t ts, ustack_sb_fn fn, void *ctx)
{
	struct dirent *de;
	size_t i;
	DIR *dir;

	if (pids) {
		for (i = 0; i < nr_pids; i++)
			scan_process(pids[i], ts, fn, ctx);
		return 0;
	}
	dir = opendir("/proc");
	if (!dir)
		return -1;
	while ((de = readdir(dir)))
		if (isdigit((unsigned char)de->d_name[0]))
			scan_process(atoi(de->d_name), ts, fn, ctx);
	closedir(dir);
	return 0;
}
