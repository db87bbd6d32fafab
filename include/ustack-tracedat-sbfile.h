/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The side-band of a recording, written as ring-buffer sub-buffers of
 * ftrace:print records (the layout trace_pipe_raw gives), one record per
 * side-band record with its time. The file becomes CPU 0 of the top
 * buffer of the trace.dat: stock `trace-cmd report` prints the records
 * like any print event, and `trace-cmd ustack report` feeds them to the
 * session in time order with the events, as live did.
 */
#ifndef _USTACK_TRACEDAT_SBFILE_H
#define _USTACK_TRACEDAT_SBFILE_H

struct tep_handle;
struct ustack_sb_rec;
struct ustack_tracedat_sbfile;

struct ustack_tracedat_sbfile *ustack_tracedat_sbfile_open(struct tep_handle *tep, int page_size,
					 const char *path);
int ustack_tracedat_sbfile_add(struct ustack_tracedat_sbfile *f, const struct ustack_sb_rec *rec);
int ustack_tracedat_sbfile_close(struct ustack_tracedat_sbfile *f);

#endif /* _USTACK_TRACEDAT_SBFILE_H */
