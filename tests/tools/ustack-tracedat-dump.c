// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-tracedat-dump: every record ustack_tracedat_iterate_lost() hands
 * out, one line each, to compare its two readers of the CPU data (ours,
 * in bounded memory, and libtracecmd's, chosen with
 * USTACK_TRACEDAT_READER=library) on the same file.
 *
 *   ustack-tracedat-dump [-B BUFFER] FILE
 *
 * First line: "reader own" or "reader library". Then per record: the
 * buffer (sel or top), CPU, timestamp, sizes, offset in its page, lost
 * events and a hash of the data; "lost CPU N" lines as told; last, the
 * counts of corrupt records and bad pages.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack-tracedat.h"

struct dump {
	struct ustack_tracedat	*td;
	int			page;
};

/* FNV-1a: equal data, equal hash; what differs shows */
static uint64_t hash(const void *p, int n)
{
	const unsigned char *c = p;
	uint64_t h = 1469598103934665603ULL;

	while (n-- > 0)
		h = (h ^ *c++) * 1099511628211ULL;
	return h;
}

static void one(const char *which, struct tep_record *rec, struct dump *d)
{
	printf("%s cpu %d ts %llu size %d rsize %d at %llu missed %lld data %016llx\n", which,
	       rec->cpu, rec->ts, rec->size, rec->record_size, rec->offset % d->page,
	       rec->missed_events, (unsigned long long)hash(rec->data, rec->size));
}

static void sel(struct tep_record *rec, void *ctx)
{
	one("sel", rec, ctx);
}

static void top(struct tep_record *rec, void *ctx)
{
	one("top", rec, ctx);
}

static void lost(int cpu, long long n, void *ctx)
{
	(void)ctx;
	printf("lost cpu %d %lld\n", cpu, n);
}

int main(int argc, char **argv)
{
	const char *buffer = NULL, *file;
	char msg[768];
	struct dump d;

	if (argc == 4 && !strcmp(argv[1], "-B"))
		buffer = argv[2];
	else if (argc != 2) {
		fprintf(stderr, "usage: ustack-tracedat-dump [-B BUFFER] FILE\n");
		return 2;
	}
	file = argv[argc - 1];
	if (ustack_tracedat_open(file, buffer, false, &d.td) < 0) {
		fprintf(stderr, "ustack-tracedat-dump: %s\n",
			ustack_tracedat_strerror(d.td, msg, sizeof(msg)));
		ustack_tracedat_close(d.td);
		return 1;
	}
	d.page = tep_get_sub_buffer_size(ustack_tracedat_tep(d.td));
	if (d.page <= 0)
		d.page = tep_get_page_size(ustack_tracedat_tep(d.td));
	if (d.page <= 0)
		d.page = 1;
	printf("reader %s\n", ustack_tracedat_own_reader(d.td) ? "own" : "library");
	if (ustack_tracedat_iterate_lost(d.td, sel, top, lost, &d))
		return 1;
	printf("corrupt %lu bad pages %lu\n", ustack_tracedat_corrupt(d.td),
	       ustack_tracedat_bad_pages(d.td));
	ustack_tracedat_close(d.td);
	return 0;
}
