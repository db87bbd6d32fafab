/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * What the stream tells its consumer (ustack-stream.h): on its own, so
 * that the stream's side-band queue (lib/ustack-stream-sideband.c), below
 * the stream, takes the callbacks without the stream's API.
 */
#ifndef _USTACK_STREAM_OPS_H
#define _USTACK_STREAM_OPS_H

#include "ustack.h"

struct tep_record;
struct ustack_sb_rec;

/**
 * struct ustack_stream_ops - what the consumer is told
 * @batch:	once per batch, before its records, with the raw records of
 *		the batch in any order: lets the consumer act on what is about
 *		to come (snapshot /proc/<pid>/maps of new processes); may be NULL
 * @record:	every record, in timestamp order across CPUs
 * @horizon:	after a batch: no record older than @ts will follow (idle
 *		CPUs included); may be NULL
 * @sideband:	every side-band record, merged by time with @record (a
 *		side-band record first on equal times); may be NULL
 * @lost:	records of @cpu were lost (@missed of them, or an unknown
 *		number when not positive) after its last record handed out,
 *		told as soon as the first record after the loss is read,
 *		before records of other CPUs that sort before it; that
 *		record then comes with missed_events 0. May be NULL (then
 *		the record carries the loss). @missed is USTACK_DROPS_BEGIN
 *		where a span begins in which the CPU's full buffer may have
 *		dropped records (told by a loss after the span,
 *		lib/ustack-dropped.c)
 */
struct ustack_stream_ops {
	void	(*batch)(struct tep_record **recs, int nr, void *ctx);
	void	(*record)(struct tep_record *rec, void *ctx);
	void	(*horizon)(unsigned long long ts, void *ctx);
	void	(*sideband)(const struct ustack_sb_rec *rec, void *ctx);
	void	(*lost)(int cpu, long long missed, void *ctx);
};

#endif /* _USTACK_STREAM_OPS_H */
