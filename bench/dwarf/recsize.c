// SPDX-License-Identifier: GPL-2.0
/*
 * bench/dwarf/recsize FILE: the records of a trace.dat, every buffer's,
 * counted and their bytes summed by event, one "buffer event count bytes"
 * line each. The bytes are the records as the ring buffer keeps them
 * (libtracecmd's record_size: event header, fields and dynamic data), the
 * size a stack copy takes, which no text output of the file gives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace-cmd.h>
#include <event-parse.h>

#define MAX_EVENTS 256

struct tally {
	const char *buffer;
	int id[MAX_EVENTS];
	const char *name[MAX_EVENTS];
	unsigned long count[MAX_EVENTS];
	unsigned long long bytes[MAX_EVENTS];
	int n;
};

static int add(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct tally *t = data;
	struct tep_handle *tep = tracecmd_get_tep(h);
	int id = tep_data_type(tep, rec);
	int i;

	(void)cpu;
	for (i = 0; i < t->n && t->id[i] != id; i++)
		;
	if (i == t->n) {
		struct tep_event *e = tep_find_event(tep, id);

		if (t->n == MAX_EVENTS)
			return 0;
		t->id[i] = id;
		t->name[i] = e ? e->name : "unknown";
		t->n++;
	}
	t->count[i]++;
	t->bytes[i] += rec->record_size;
	return 0;
}

static void tally(struct tracecmd_input *h, const char *buffer)
{
	static struct tally t;
	int i;

	memset(&t, 0, sizeof(t));
	t.buffer = buffer;
	tracecmd_iterate_events(h, NULL, 0, add, &t);
	for (i = 0; i < t.n; i++)
		printf("%s %s %lu %llu\n", buffer, t.name[i], t.count[i], t.bytes[i]);
}

int main(int argc, char **argv)
{
	struct tracecmd_input *h, *b;
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: recsize FILE\n");
		return 2;
	}
	h = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		fprintf(stderr, "recsize: cannot open %s\n", argv[1]);
		return 1;
	}
	tally(h, "top");
	for (i = 0; i < tracecmd_buffer_instances(h); i++) {
		b = tracecmd_buffer_instance_handle(h, i);
		if (!b)
			continue;
		tally(b, tracecmd_buffer_instance_name(h, i));
		tracecmd_close(b);
	}
	tracecmd_close(h);
	return 0;
}
