// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-profile-gen: a big synthetic profile through the real output
 * layer and writers, for the size and load-time tests of flame graphs.
 *
 *   ustack-profile-gen [-n STACKS] [-s SEED] [-w] [-r] [-f FILE.svg]
 *                      [-p FILE.pb.gz] [-j FILE.json] [-F FILE.folded]
 *
 * STACKS distinct user stacks (default 100000) of a program whose calls
 * branch like a real one: stack i takes the branches of the digits of i
 * in base 6 from main down (function 1 + 6 * depth + digit: stacks share
 * their outer frames and no two are alike), then 0 to 20 more frames of
 * a pool of 3000 other functions. Stack i is sampled 1 + 2000 / (i + 1) times, a Zipf-like
 * spread where a few stacks are hot and most are seen once. Frames are
 * named by a symbolizer of our own (file offset -> "fn_<n>"); every other
 * part is the code the command runs. -F also writes the folded stacks.
 *
 * -w makes the widest graph instead, the one with the most boxes that
 * merging keeps: stack i belongs to group i % 1000, each group a chain of
 * 30 functions of its own under main, then two frames that tell its
 * stacks apart; every stack is sampled once, so that every group has
 * exactly 0.1% of the samples and stays.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-output.h"
#include "ustack-profile.h"
#include "ustack-render.h"

#define POOL		3000
#define MAX_DEPTH	40	/* also more than GROUP_DEPTH + 3 */
#define FANOUT		6
#define FIRST_EXTRA	100	/* above every branch function */
#define GROUPS		1000	/* -w */
#define GROUP_DEPTH	30

static char names[POOL][16];
static bool wide;

/* -w: group g's chain, then two frames of the stack */
static char group_names[GROUPS * GROUP_DEPTH + 100][24];

static int sym_lookup(void *ctx, const struct ustack_mapping *map, uint64_t offset,
		      bool return_address, struct ustack_sym *out, int max)
{
	memset(out, 0, sizeof(*out));
	if (wide)
		out->name = group_names[offset / 16];
	else
		out->name = names[(offset / 16) % POOL];
	out->file = "gen.c";
	out->line = 1 + (offset / 16) % POOL;
	return 1;
}

static const char *sym_dso_name(void *ctx, const struct ustack_mapping *map)
{
	return "gen";
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* -w: main, 30 functions of group i % 1000, two of the rest of i */
static int make_wide_stack(uint64_t i, const struct ustack_mapping *map,
			   struct ustack_frame *fr)
{
	uint64_t path[GROUP_DEPTH + 3], g = i % GROUPS, rest = i / GROUPS;
	int n = 0, k;

	path[n++] = GROUPS * GROUP_DEPTH + 99;		/* main */
	for (k = 0; k < GROUP_DEPTH; k++)
		path[n++] = g * GROUP_DEPTH + k;
	path[n++] = GROUPS * GROUP_DEPTH + rest / 10;
	path[n++] = GROUPS * GROUP_DEPTH + 10 + rest % 10;
	for (k = 0; k < n; k++) {
		fr[k].offset = path[n - 1 - k] * 16 + 4;
		fr[k].id = 2;
		fr[k].map = map;
	}
	return n;
}

/* Frames of stack @i, leaf first; returns how many */
static int make_stack(uint64_t i, uint64_t seed, const struct ustack_mapping *map,
		      struct ustack_frame *fr)
{
	uint64_t path[MAX_DEPTH], r = seed ^ (i * 0x9e3779b97f4a7c15ULL), v = i;
	int n = 0, extra, k;

	path[n++] = 0;				/* main */
	do {
		path[n] = 1 + FANOUT * n + v % FANOUT;
		n++;
		v /= FANOUT;
	} while (v && n < MAX_DEPTH);
	extra = rnd(&r) % 21;
	while (extra-- > 0 && n < MAX_DEPTH)
		path[n++] = FIRST_EXTRA + rnd(&r) % (POOL - FIRST_EXTRA);
	for (k = 0; k < n; k++) {
		fr[k].offset = path[n - 1 - k] * 16 + 4;
		fr[k].id = 2;
		fr[k].map = map;
	}
	return n;
}

static void usage(void)
{
	fprintf(stderr, "usage: ustack-profile-gen [-n STACKS] [-s SEED] [-r] [-f SVG] "
		"[-p PPROF] [-j JSON] [-F FOLDED]\n");
	exit(2);
}

static FILE *create(const char *path)
{
	FILE *fp = fopen(path, "w");

	if (!fp) {
		perror(path);
		exit(1);
	}
	return fp;
}

int main(int argc, char **argv)
{
	struct ustack_symbolizer sym = { sym_lookup, sym_dso_name, NULL, NULL };
	struct ustack_output_opts oo = { .mode = USTACK_OUTPUT_NONE };
	struct ustack_flamegraph_opts fo = { 0 };
	struct ustack_mapping map = { .id = 2, .path = "/usr/bin/gen" };
	const char *svg = NULL, *pb = NULL, *json = NULL, *folded = NULL;
	struct ustack_frame frames[MAX_DEPTH];
	struct ustack_sample s = { 0 };
	uint64_t nr = 100000, seed = 1, i, c;
	struct ustack_profile *prof;
	struct ustack_render *render;
	struct ustack_consumer cons;
	struct ustack_output *out;
	FILE *fp;
	int opt;

	while ((opt = getopt(argc, argv, "n:s:wrf:p:j:F:")) != -1) {
		switch (opt) {
		case 'n':
			nr = strtoull(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0) | 1;
			break;
		case 'w':
			wide = true;
			break;
		case 'r':
			fo.reverse = true;
			break;
		case 'f':
			svg = optarg;
			break;
		case 'p':
			pb = optarg;
			break;
		case 'j':
			json = optarg;
			break;
		case 'F':
			folded = optarg;
			break;
		default:
			usage();
		}
	}
	for (i = 0; i < POOL; i++)
		snprintf(names[i], sizeof(names[i]), i ? "fn_%04" PRIu64 : "main", i);
	for (i = 0; i < GROUPS * GROUP_DEPTH; i++)
		snprintf(group_names[i], sizeof(group_names[i]), "group%03" PRIu64 "_fn%02" PRIu64,
			 i / GROUP_DEPTH, i % GROUP_DEPTH);
	for (i = 0; i < 20; i++)
		snprintf(group_names[GROUPS * GROUP_DEPTH + i], sizeof(group_names[0]),
			 "%s_%" PRIu64, i < 10 ? "tens" : "ones", i % 10);
	snprintf(group_names[GROUPS * GROUP_DEPTH + 99], sizeof(group_names[0]), "main");
	if (folded)
		oo.mode = USTACK_OUTPUT_FOLDED;
	fp = folded ? create(folded) : stdout;
	prof = ustack_profile_new(json != NULL);
	out = ustack_output_new(NULL, &oo, fp);
	render = ustack_render_new(NULL, NULL, NULL);
	if (!prof || !out || !render)
		return 1;
	ustack_render_set_symbolizer(render, &sym);
	if (folded) {
		ustack_output_consumer(out, &cons);
		ustack_render_attach(render, &cons);
	}
	ustack_profile_consumer(prof, &cons);
	ustack_render_attach(render, &cons);
	s.comm = "gen";
	s.pid = s.tgid = 1000;
	s.status = USTACK_SAMPLE_OK;
	s.frames = frames;
	for (i = 0; i < nr; i++) {
		s.nr_frames = wide ? make_wide_stack(i, &map, frames) :
				     make_stack(i, seed, &map, frames);
		for (c = wide ? 1 : 1 + 2000 / (i + 1); c > 0; c--) {
			s.ts += 1000;
			ustack_render_sample(render, &s);
		}
	}
	ustack_render_finish(render);
	ustack_profile_set_command(prof, "ustack-profile-gen (synthetic)");
	if (svg) {
		fp = create(svg);
		if (ustack_flamegraph_write(prof, &fo, fp) || fclose(fp))
			return 1;
	}
	if (pb && ustack_pprof_write(prof, pb))
		return 1;
	if (json) {
		fp = create(json);
		if (ustack_speedscope_write(prof, fp) || fclose(fp))
			return 1;
	}
	ustack_render_free(render);
	ustack_output_free(out);
	ustack_profile_free(prof);
	return 0;
}
