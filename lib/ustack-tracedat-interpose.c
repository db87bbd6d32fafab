// SPDX-License-Identifier: LGPL-2.1
/*
 * The library functions trace-cmd ustack defines in place of libtracecmd's
 * and libtraceevent's, in this one file. libtracecmd calls each of them
 * through its PLT, so the definition in the executable is found first;
 * where ours only sometimes does the work, the real function is looked up
 * behind it (dlsym(RTLD_NEXT)). Neither library has a public way to do
 * what these do (there is no flag to skip kallsyms, nor to open a buffer
 * without decompressing its CPUs' first chunks), and each one was
 * measured or found necessary (the comments say where):
 *
 *	tep_parse_kallsyms()		skipped when no kernel symbol is shown
 *	tracecmd_uncompress_block()	kallsyms' block not decompressed then
 *	tep_parse_saved_cmdlines()	the same parse without a sscanf() a line
 *	tracecmd_uncompress_chunk()	first chunks left to our reader
 *
 * Only tep_parse_saved_cmdlines() replaces the library's work for good:
 * tests/bats/interpose.bats runs it and the library's own on the same
 * texts (real saved_cmdlines and their edges) and fails when they
 * register different comms or return differently. The others hand every
 * call they do not skip to the real function; tdread.bats compares the
 * records read through them with libtracecmd's.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "tracecmd-private-decls.h"
#include "ustack-tracedat-interpose.h"

/*
 * libtracecmd parses the file's copy of /proc/kallsyms while it opens the
 * file: a sscanf() and two allocations a line, most of the time it takes
 * to report a small recording (bench/pipeline/NOTES.md), and it has no
 * flag to skip it. Kernel symbols only name kernel stack frames and the
 * %ps fields of printed events; a report that shows neither opens the
 * file with skip_kallsyms set. libtracecmd calls tep_parse_kallsyms()
 * through its PLT, so it finds this definition in the executable first;
 * the real one is looked up behind it when symbols are wanted.
 */
static bool skip_kallsyms;

int tep_parse_kallsyms(struct tep_handle *tep, const char *kallsyms)
{
	static int (*real)(struct tep_handle *tep, const char *kallsyms);

	if (skip_kallsyms)
		return 0;
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "tep_parse_kallsyms");
	return real ? real(tep, kallsyms) : -1;
}

/*
 * Before it parses kallsyms, libtracecmd decompresses the section's block
 * (5 MB, a fifth of a small report's CPU) into the buffer its reader then
 * reads the section from. The block of a file opened with skip_kallsyms
 * (found by the structure check, at @kallsyms_block of @skip_fd, the
 * descriptor libtracecmd reads) is not decompressed: the buffer is given
 * what an empty section holds, a size of 0, which the library takes as
 * "no kallsyms". Reached through libtracecmd's PLT as tep_parse_kallsyms()
 * is; every other block goes to the real function.
 */
static int skip_fd = -1;
static uint64_t skip_block;

int tracecmd_uncompress_block(struct tracecmd_compression *handle)
{
	static int (*real)(struct tracecmd_compression *handle);
	static const char no_kallsyms[4];

	if (skip_kallsyms && skip_block && skip_fd >= 0 &&
	    lseek(skip_fd, 0, SEEK_CUR) == (off_t)skip_block) {
		tracecmd_compress_reset(handle);
		if (tracecmd_compress_buffer_write(handle, no_kallsyms, sizeof(no_kallsyms)) < 0 ||
		    tracecmd_compress_lseek(handle, 0, SEEK_SET) < 0)
			return -1;
		return 0;
	}
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "tracecmd_uncompress_block");
	return real ? real(handle) : -1;
}

/*
 * The file's saved_cmdlines (the whole system's: thousands of lines where
 * saved_cmdlines_size was raised) are parsed by libtraceevent with a
 * sscanf() a line, a tenth of a small report's CPU. libtracecmd calls
 * tep_parse_saved_cmdlines() through its PLT, and finds this one, which
 * reads the same lines the same way ("%d %m[^\n]": a pid, blanks, the
 * rest of the line is the comm; the first line that is not stops the
 * parse, -1) without scanf.
 */
static bool cmdline_parse(char *line, int *pid, char **comm)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(line, &end, 10);
	if (end == line || errno)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (!*end)
		return false;
	*pid = (int)v;
	*comm = end;
	return true;
}

int tep_parse_saved_cmdlines(struct tep_handle *tep, const char *buf)
{
	char *copy = strdup(buf), *line, *nl, *comm;
	int pid, ret = 0;

	if (!copy)
		return -1;
	for (line = copy; *line; line = nl) {
		nl = strchrnul(line, '\n');
		if (*nl)
			*nl++ = '\0';
		if (!*line)
			continue;
		if (!cmdline_parse(line, &pid, &comm)) {
			ret = -1;
			break;
		}
		tep_register_comm(tep, comm, pid);
	}
	free(copy);
	return ret;
}

/*
 * Opening a buffer, libtracecmd decompresses the first chunk of each of
 * its CPUs for the first timestamp (init_cpu()), and 3.1.6 keeps it
 * (ustack-tracedat-cpu.c). A buffer that ustack-tracedat-cpu.c reads never has its
 * CPU data read by libtracecmd: while libtracecmd opens the file for it,
 * with @lazy_chunks set, a chunk is not decompressed but given an empty
 * sub-buffer (timestamp and commit 0, libtracecmd then reads nothing
 * from it), so that each chunk is decompressed once, by our reader. The
 * structure check has made each chunk at least one page. libtracecmd
 * calls tracecmd_uncompress_chunk() through its PLT, as
 * tep_parse_kallsyms(); if our reader cannot be opened after all, the
 * file is opened again without it (open_inputs()).
 */
static bool lazy_chunks;

int tracecmd_uncompress_chunk(struct tracecmd_compression *handle,
			      struct tracecmd_compress_chunk *chunk, char *data)
{
	static int (*real)(struct tracecmd_compression *handle,
			   struct tracecmd_compress_chunk *chunk, char *data);

	if (lazy_chunks) {
		memset(data, 0, 32);
		return 0;
	}
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "tracecmd_uncompress_chunk");
	return real ? real(handle, chunk, data) : -1;
}

/**
 * ustack_tracedat_interpose_skip_kallsyms - open the next file without kallsyms
 * @skip:	true while libtracecmd opens a file whose kernel symbols no
 *		output shows
 * @fd:		the descriptor libtracecmd reads the file through (-1: none)
 * @block:	the offset of the file's compressed kallsyms block (0: none)
 */
void ustack_tracedat_interpose_skip_kallsyms(bool skip, int fd, uint64_t block)
{
	skip_kallsyms = skip;
	skip_fd = fd;
	skip_block = block;
}

/**
 * ustack_tracedat_interpose_lazy_chunks - leave the CPUs' first chunks undecompressed
 * @lazy: true while libtracecmd opens a buffer that ustack-tracedat-cpu.c reads
 */
void ustack_tracedat_interpose_lazy_chunks(bool lazy)
{
	lazy_chunks = lazy;
}
