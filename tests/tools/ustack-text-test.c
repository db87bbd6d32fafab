// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-text-test: the escaping of untrusted text (lib/ustack-text.c),
 * alone and through every output (tests/bats/escape.bats). "\xHH" in an
 * argument is that byte.
 *
 *   ustack-text-test escape AS TEXT        the text as AS writes it
 *   ustack-text-test escape-n AS SIZE TEXT the same into SIZE bytes; then
 *                                          a line with the full length
 *   ustack-text-test fit AS MAX TEXT       at most MAX characters of it
 *   ustack-text-test width AS TEXT         the characters it shows
 *   ustack-text-test cut N TEXT            where TEXT cut at N bytes ends
 *   ustack-text-test decode TEXT           each character or bad sequence
 *   ustack-text-test outputs DIR MODE COMM EVENT STACK...
 *       samples through the render stage into the text printer (MODE:
 *       stacks, folded, perf, raw, why; on stdout) and the profile
 *       writers (DIR/f.svg, DIR/s.json, DIR/p.pb.gz). EVENT is
 *       "system:name"; each STACK is "COUNT:ROOT,...,LEAF", frames named
 *       by a symbolizer of our own in a file at path "/lib/" + the name,
 *       a name "-" left unresolved, a name "jit:NAME" a JIT frame in
 *       anonymous memory named NAME.
 *
 * AS: term, utf8, xml, json, js.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack-output.h"
#include "ustack-profile.h"
#include "ustack-render.h"
#include "ustack-text.h"

#define MAX_NAMES	64
#define MAX_FRAMES	32

static char *names[MAX_NAMES];
static int nr_names;
/* the paths of the mappings, freed at the end */
static char *paths[MAX_NAMES * MAX_FRAMES];
static int nr_paths;

/* "\xHH" escapes: bytes a shell argument cannot hold easily */
static char *unescape(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	if (!out)
		exit(1);
	while (*s) {
		if (s[0] == '\\' && s[1] == 'x' && s[2] && s[3]) {
			char hex[3] = { s[2], s[3], 0 };

			*o++ = (char)strtol(hex, NULL, 16);
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

static enum ustack_text_as text_as(const char *s)
{
	static const char * const as[] = { "term", "utf8", "xml", "json", "js" };
	size_t i;

	for (i = 0; i < sizeof(as) / sizeof(as[0]); i++)
		if (!strcmp(s, as[i]))
			return i;
	fprintf(stderr, "unknown format %s\n", s);
	exit(2);
}

static int name_id(const char *name)
{
	int i;

	for (i = 0; i < nr_names; i++)
		if (!strcmp(names[i], name))
			return i;
	if (nr_names == MAX_NAMES)
		exit(2);
	names[nr_names] = strdup(name);
	return nr_names++;
}

static int sym_lookup(void *ctx, const struct ustack_mapping *map, uint64_t offset,
		      bool return_address, struct ustack_sym *out, int max)
{
	const char *name = names[offset / 16];

	memset(out, 0, sizeof(*out));
	if (!strcmp(name, "-"))
		return -USTACK_UNRES_NO_SYMBOL;
	out->name = name;
	out->file = name;
	out->line = 1;
	return 1;
}

static int sym_jit(void *ctx, int tgid, uint64_t addr, struct ustack_sym *out)
{
	memset(out, 0, sizeof(*out));
	out->name = names[addr / 16] + 4;	/* after "jit:" */
	return 1;
}

static const char *sym_dso_name(void *ctx, const struct ustack_mapping *map)
{
	return map->path + 5;		/* after "/lib/" */
}

static FILE *create(const char *dir, const char *name)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (!fp) {
		perror(path);
		exit(1);
	}
	return fp;
}

/* STACK "COUNT:ROOT,...,LEAF" into @fr (leaf first), @maps; returns the count */
static int parse_stack(char *spec, struct ustack_frame *fr, struct ustack_mapping *maps,
		       unsigned int *nr)
{
	char *names_at = strchr(spec, ':'), *tok, *save;
	char *path[MAX_FRAMES];
	int count, id[MAX_FRAMES], n = 0, i;

	if (!names_at)
		exit(2);
	*names_at++ = '\0';
	count = atoi(spec);
	for (tok = strtok_r(names_at, ",", &save); tok && n < MAX_FRAMES;
	     tok = strtok_r(NULL, ",", &save)) {
		char *name = unescape(tok);

		id[n] = name_id(name);
		free(name);
		if (nr_paths == MAX_NAMES * MAX_FRAMES ||
		    asprintf(&path[n], "/lib/%s", names[id[n]]) < 0)
			exit(1);
		paths[nr_paths++] = path[n];
		n++;
	}
	for (i = 0; i < n; i++) {
		memset(&maps[i], 0, sizeof(maps[i]));
		maps[i].id = 2 + i;
		maps[i].path = path[n - 1 - i];
		fr[i].map = &maps[i];
		fr[i].id = maps[i].id;
		fr[i].offset = id[n - 1 - i] * 16 + 4;
		if (!strncmp(names[id[n - 1 - i]], "jit:", 4)) {
			fr[i].map = NULL;
			fr[i].id = USTACK_ID_ANON;
		}
	}
	*nr = n;
	return count;
}

static int outputs(int argc, char **argv)
{
	struct ustack_symbolizer sym = { sym_lookup, sym_dso_name, sym_jit, NULL };
	struct ustack_render_opts ro = { 0 };
	struct ustack_output_opts oo = { .mode = USTACK_OUTPUT_STACKS };
	struct ustack_frame frames[MAX_FRAMES];
	struct ustack_mapping maps[MAX_FRAMES];
	struct ustack_sample s = { 0 };
	struct tep_event ev = { 0 };
	const char *dir = argv[0], *mode = argv[1];
	struct ustack_profile *prof;
	struct ustack_render *render;
	struct ustack_consumer cons;
	struct ustack_output *out;
	char *event = unescape(argv[3]), *colon = strchr(event, ':');
	FILE *fp;
	int i, c;

	if (!colon)
		return 2;
	*colon = '\0';
	ev.system = event;
	ev.name = colon + 1;
	if (!strcmp(mode, "folded"))
		oo.mode = USTACK_OUTPUT_FOLDED;
	else if (!strcmp(mode, "perf"))
		oo.mode = USTACK_OUTPUT_PERF_SCRIPT;
	else if (!strcmp(mode, "raw"))
		oo.raw = ro.raw = true;
	else if (!strcmp(mode, "why"))
		oo.why = oo.lines = true;
	prof = ustack_profile_new(true);
	out = ustack_output_new(NULL, &oo, stdout);
	render = ustack_render_new(NULL, NULL, &ro);
	if (!prof || !out || !render)
		return 1;
	if (!ro.raw)
		ustack_render_set_symbolizer(render, &sym);
	ustack_output_consumer(out, &cons);
	ustack_render_attach(render, &cons);
	ustack_profile_consumer(prof, &cons);
	ustack_render_attach(render, &cons);
	s.comm = unescape(argv[2]);
	s.pid = s.tgid = 1000;
	s.event = &ev;
	s.status = USTACK_SAMPLE_OK;
	s.frames = frames;
	for (i = 4; i < argc; i++) {
		for (c = parse_stack(argv[i], frames, maps, &s.nr_frames); c > 0; c--) {
			s.ts += 1000;
			ustack_render_sample(render, &s);
		}
	}
	ustack_render_finish(render);
	ustack_profile_set_command(prof, s.comm);
	fp = create(dir, "f.svg");
	if (ustack_flamegraph_write(prof, NULL, fp) || fclose(fp))
		return 1;
	fp = create(dir, "s.json");
	if (ustack_speedscope_write(prof, fp) || fclose(fp))
		return 1;
	{
		char path[4096];

		snprintf(path, sizeof(path), "%s/p.pb.gz", dir);
		if (ustack_pprof_write(prof, path))
			return 1;
	}
	ustack_render_free(render);
	ustack_output_free(out);
	ustack_profile_free(prof);
	for (i = 0; i < nr_names; i++)
		free(names[i]);
	for (i = 0; i < nr_paths; i++)
		free(paths[i]);
	free((char *)s.comm);
	free(event);
	return 0;
}

static void decode(const char *s)
{
	size_t len = strlen(s);
	uint32_t cp;
	int n;

	while (len) {
		n = ustack_text_utf8_decode(s, len, &cp);
		if (n > 0)
			printf("U+%04X\n", cp);
		else
			printf("bad %d\n", -n);
		n = n < 0 ? -n : n;
		s += n;
		len -= n;
	}
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	char *text = NULL, *buf = NULL;
	size_t n, size;
	int ret = 0;

	if (!strcmp(cmd, "escape") && argc == 4) {
		text = unescape(argv[3]);
		/* the stream and the buffer say the same */
		buf = ustack_text_dup(text, text_as(argv[2]));
		ustack_text_fput(stdout, text, text_as(argv[2]));
		putchar('\n');
		ret = !buf || strlen(buf) != ustack_text_escape(NULL, 0, text, strlen(text),
								 text_as(argv[2]));
	} else if (!strcmp(cmd, "escape-n") && argc == 5) {
		text = unescape(argv[4]);
		size = strtoul(argv[3], NULL, 0);
		buf = malloc(size + 1);
		n = ustack_text_escape(buf, size, text, strlen(text), text_as(argv[2]));
		printf("%s\n%zu\n", size ? buf : "", n);
	} else if (!strcmp(cmd, "fit") && argc == 5) {
		text = unescape(argv[4]);
		n = ustack_text_fput_chars(stdout, text, strtoul(argv[3], NULL, 0),
					   text_as(argv[2]));
		printf("\n%zu\n", n);
	} else if (!strcmp(cmd, "width") && argc == 4) {
		text = unescape(argv[3]);
		printf("%zu\n", ustack_text_width(text, text_as(argv[2])));
	} else if (!strcmp(cmd, "cut") && argc == 4) {
		text = unescape(argv[3]);
		n = strtoul(argv[2], NULL, 0);
		if (n > strlen(text))
			ret = 2;
		else
			printf("%zu\n", ustack_text_cut(text, n));
	} else if (!strcmp(cmd, "decode") && argc == 3) {
		text = unescape(argv[2]);
		decode(text);
	} else if (!strcmp(cmd, "outputs") && argc >= 6) {
		return outputs(argc - 2, argv + 2);
	} else {
		fprintf(stderr, "usage: see the head of %s.c\n", argv[0]);
		return 2;
	}
	free(text);
	free(buf);
	return ret;
}
