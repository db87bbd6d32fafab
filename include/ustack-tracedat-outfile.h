/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The output of `record -o`: a regular file replaced when the recording
 * is complete, or a character device or FIFO written into. Nothing but a
 * regular file is ever renamed over.
 */
#ifndef _USTACK_TRACEDAT_OUTFILE_H
#define _USTACK_TRACEDAT_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>

enum ustack_tracedat_outfile_err {
	USTACK_TRACEDAT_OUTFILE_OK,
	USTACK_TRACEDAT_OUTFILE_NOMEM,
	USTACK_TRACEDAT_OUTFILE_OPEN,	/* the output cannot be opened or looked at */
	USTACK_TRACEDAT_OUTFILE_KIND,	/* a directory, block device, socket ... */
	USTACK_TRACEDAT_OUTFILE_DIR,	/* the temporaries' directory is not writable */
	USTACK_TRACEDAT_OUTFILE_WRITE,	/* writing or putting the recording in place */
};

/**
 * struct ustack_tracedat_outfile - where a recording goes
 * @name:	the output as given
 * @dest:	a regular output: the file renamed over (links followed)
 * @prefix:	temporaries are "<prefix>.<what>.XXXXXX"
 * @dir:	the directory they go to
 * @stream_fd:	a character device or FIFO, written into; else -1
 * @err:	why the last call failed
 * @sys_errno:	errno then
 * @kind:	with USTACK_TRACEDAT_OUTFILE_KIND, what the output is
 * @tmp:	the temporary ustack_tracedat_outfile_reserve() made, until
 *		written
 */
struct ustack_tracedat_outfile {
	char			*name;
	char			*dest;
	char			*prefix;
	char			*dir;
	int			stream_fd;
	enum ustack_tracedat_outfile_err	err;
	int			sys_errno;
	const char		*kind;
	char			*tmp;
};

int ustack_tracedat_outfile_open(struct ustack_tracedat_outfile *of, const char *name);
int ustack_tracedat_outfile_reserve(struct ustack_tracedat_outfile *of);
const char *ustack_tracedat_outfile_temp_prefix(const struct ustack_tracedat_outfile *of);
int ustack_tracedat_outfile_write(struct ustack_tracedat_outfile *of,
			 int (*write)(const char *file, void *data), void *data);
const char *ustack_tracedat_outfile_strerror(const struct ustack_tracedat_outfile *of, char *buf, size_t size);
void ustack_tracedat_outfile_close(struct ustack_tracedat_outfile *of);

#endif /* _USTACK_TRACEDAT_OUTFILE_H */
