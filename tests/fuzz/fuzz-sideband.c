// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the side-band records a fallback recording stores
 * in its trace.dat (ftrace:print records "ustack-sb KIND key=value ...",
 * lib/ustack-sideband.c) as report reads them: parsed, then added to the
 * history of mappings and names, which frames are mapped through.
 *
 * The input is lines. A line is a record without its marker ("mmap
 * pid=1 ..."; the harness puts "ustack-sb " in front), or
 *	? TGID VA	map VA of process TGID at the current time
 *	<		the next record's time goes back (records of two CPUs)
 * Each line is an allocation of exactly its length and a NUL: any read
 * past it is AddressSanitizer's to report.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack.h"
#include "ustack-map-history.h"
#include "ustack-sideband.h"

/* Touch what a printer would of a mapped frame */
static void query(struct ustack_map_history *h, const char *line)
{
	struct ustack_frame fr;
	unsigned long long va;
	volatile size_t sum = 0;
	int tgid;

	if (sscanf(line, "? %d %llx", &tgid, &va) != 2)
		return;
	memset(&fr, 0, sizeof(fr));
	ustack_map_history_map(h, tgid, va, &fr);
	sum += fr.offset + fr.id;
	if (fr.map)
		sum += fr.map->ino + fr.map->build_id_len + strlen(fr.map->path ?: "");
	sum += strlen(ustack_map_history_comm(h, tgid) ?: "");
	(void)sum;
}

static void feed(struct ustack_map_history *h, const char *line, uint64_t ts)
{
	size_t n = strlen(USTACK_SB_MARKER), len = strlen(line);
	struct ustack_sb_rec rec;
	char *text = malloc(n + len + 1);

	if (!text)
		return;
	memcpy(text, USTACK_SB_MARKER, n);
	memcpy(text + n, line, len + 1);
	if (!ustack_sideband_parse(text, ts, &rec))
		ustack_map_history_add(h, &rec);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ustack_map_history *h = ustack_map_history_new();
	const uint8_t *p = data, *end = data + size, *nl;
	uint64_t ts = 1000;
	char **maps, *line;
	size_t len;

	if (!h)
		return 0;
	while (p < end) {
		nl = memchr(p, '\n', end - p);
		len = (nl ? nl : end) - p;
		line = malloc(len + 1);
		if (!line)
			break;
		memcpy(line, p, len);
		line[len] = '\0';
		if (line[0] == '?')
			query(h, line);
		else if (line[0] == '<')
			ts -= ts > 500 ? 500 : 0;
		else
			feed(h, line, ts += 10);
		free(line);
		p += len + 1;
	}
	ustack_map_history_files(h);
	maps = ustack_map_history_procmaps(h);
	for (char **m = maps; m && *m; m++)
		free(*m);
	free(maps);
	ustack_map_history_free(h);
	return 0;
}
