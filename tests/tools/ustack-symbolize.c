// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-symbolize: symbolize (file, file offset) frames with libustack.
 *
 * Input, one frame per line (stdin or FILE):
 *	PATH OFFSET [BUILDID|-] [FLAGS]
 * separated by blanks, or by tabs only when the line has a tab.
 * OFFSET is hex (0x optional), BUILDID hex, FLAGS the USTACK_MAP_* bits
 * (decimal or 0x hex). PATH "[jit]" looks OFFSET up as an address in
 * /tmp/perf-<pid>.map (--pid); other PATHs starting with '[' are special
 * mappings such as [vdso]. Blank lines and lines starting with '#' are
 * skipped.
 *
 * Output, per frame, innermost first:
 *	func+0xoff (dso)[ file:line]
 *	[unknown] (dso)
 * With --inlines, inlined frames come first, each ending in " [inlined]";
 * the line without that mark ends the group of one input frame.
 * This is also the benchmark entry point (bench/symbolize).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack.h"
#include "ustack-resolve.h"

#define MAX_FRAMES	64

struct state {
	struct ustack_resolver	*r;
	bool			leaf;
	bool			lines;
	int			pid;
	/* The last file named: traces repeat files a lot. */
	char			*last_path;
	unsigned char		last_id[USTACK_BUILD_ID_MAX];
	size_t			last_id_len;
	uint32_t		last_flags;
	struct ustack_dso	*last_dso;
	struct ustack_dso	**seen;		/* files whose error was shown */
	size_t			nr_seen;
	unsigned long		frames;
	unsigned long		unresolved;
};

static void usage(int code)
{
	fprintf(code ? stderr : stdout,
		"usage: ustack-symbolize [options] [FILE]\n"
		"  --lines          add file:line (DWARF)\n"
		"  --inlines        expand inlined calls (DWARF)\n"
		"  --leaf           offsets are leaf frames (no return-address - 1)\n"
		"  --symfs DIR      look files up under DIR\n"
		"  --no-debuginfod  never ask debuginfod\n"
		"  --demangle       demangle C++ and Rust names\n"
		"  --live           allow /proc/<pid>/root and this kernel's vdso\n"
		"  --pid N          tgid for --live and [jit] lines\n"
		"  --stats          print frame counts on stderr\n"
		"input lines: PATH OFFSET [BUILDID|-] [FLAGS] (tab-separated if PATH has blanks)\n");
	exit(code);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static bool parse_hex(const char *s, uint64_t *v)
{
	int d;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s)
		return false;
	for (*v = 0; *s; s++) {
		d = hexval((unsigned char)*s);
		if (d < 0)
			return false;
		*v = *v << 4 | d;
	}
	return true;
}

static size_t parse_build_id(const char *s, unsigned char *id)
{
	size_t n = 0;

	if (!strcmp(s, "-"))
		return 0;
	while (s[0] && s[1] && n < USTACK_BUILD_ID_MAX) {
		int hi = hexval((unsigned char)s[0]), lo = hexval((unsigned char)s[1]);

		if (hi < 0 || lo < 0)
			break;
		id[n++] = hi << 4 | lo;
		s += 2;
	}
	return n;
}

/* Fields split on tabs when the line has one (paths with spaces), else on blanks. */
static int split(char *line, char **tok, int max)
{
	const char *sep = strchr(line, '\t') ? "\t\r\n" : " \t\r\n";
	int n = 0;

	while (n < max) {
		line += strspn(line, sep);
		if (!*line)
			break;
		tok[n++] = line;
		line += strcspn(line, sep);
		if (*line)
			*line++ = '\0';
	}
	return n;
}

/* Say once per file why its frames stay unresolved. */
static void report_error(struct state *st, struct ustack_dso *dso)
{
	struct ustack_dso **n;
	size_t i;

	if (!ustack_dso_error(dso))
		return;
	for (i = 0; i < st->nr_seen; i++)
		if (st->seen[i] == dso)
			return;
	n = realloc(st->seen, (st->nr_seen + 1) * sizeof(*n));
	if (!n)
		return;
	st->seen = n;
	st->seen[st->nr_seen++] = dso;
	fprintf(stderr, "ustack-symbolize: %s\n", ustack_dso_error(dso));
}

static struct ustack_dso *get_dso(struct state *st, const char *path,
				  const unsigned char *id, size_t id_len,
				  uint32_t flags)
{
	if (st->last_dso && st->last_id_len == id_len && st->last_flags == flags &&
	    !strcmp(st->last_path, path) && !memcmp(st->last_id, id, id_len))
		return st->last_dso;
	free(st->last_path);
	st->last_path = strdup(path);
	memcpy(st->last_id, id, id_len);
	st->last_id_len = id_len;
	st->last_flags = flags;
	st->last_dso = ustack_resolver_dso(st->r, path, id, id_len, st->pid, flags);
	report_error(st, st->last_dso);
	return st->last_dso;
}

static void put_frame(const struct state *st, const struct ustack_sym *s,
		      const char *dso)
{
	char buf[32];

	fputs_unlocked(s->name, stdout);
	if (!s->inlined) {
		snprintf(buf, sizeof(buf), "+0x%llx", (unsigned long long)s->sym_off);
		fputs_unlocked(buf, stdout);
	}
	fputs_unlocked(" (", stdout);
	fputs_unlocked(dso, stdout);
	putc_unlocked(')', stdout);
	if (st->lines && s->file) {
		putc_unlocked(' ', stdout);
		fputs_unlocked(s->file, stdout);
		snprintf(buf, sizeof(buf), ":%d", s->line);
		fputs_unlocked(buf, stdout);
	}
	if (s->inlined)
		fputs_unlocked(" [inlined]", stdout);
	putc_unlocked('\n', stdout);
}

static void put_unknown(struct state *st, const char *dso)
{
	fputs_unlocked("[unknown] (", stdout);
	fputs_unlocked(dso, stdout);
	fputs_unlocked(")\n", stdout);
	st->unresolved++;
}

static void do_line(struct state *st, char *line)
{
	unsigned char id[USTACK_BUILD_ID_MAX];
	struct ustack_sym out[MAX_FRAMES];
	struct ustack_dso *dso;
	uint32_t flags = 0;
	size_t id_len = 0;
	uint64_t off;
	char *tok[4];
	int n, i;

	n = split(line, tok, 4);
	if (!n || tok[0][0] == '#')
		return;
	st->frames++;
	if (n < 2 || !parse_hex(tok[1], &off)) {
		fprintf(stderr, "ustack-symbolize: bad line: %s\n", tok[0]);
		put_unknown(st, "?");
		return;
	}
	if (n > 2)
		id_len = parse_build_id(tok[2], id);
	if (n > 3)
		flags = strtoul(tok[3], NULL, 0);
	if (!strcmp(tok[0], "[jit]")) {
		if (ustack_resolve_jit(st->r, st->pid, off, out))
			put_frame(st, out, "[jit]");
		else
			put_unknown(st, "[jit]");
		return;
	}
	if (tok[0][0] == '[')
		flags |= USTACK_MAP_SPECIAL;
	dso = get_dso(st, tok[0], id, id_len, flags);
	n = ustack_dso_lookup(dso, off, !st->leaf, out, MAX_FRAMES);
	if (!n) {
		put_unknown(st, ustack_dso_name(dso));
		return;
	}
	for (i = 0; i < n; i++)
		put_frame(st, &out[i], ustack_dso_name(dso));
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "lines", no_argument, NULL, 'l' },
		{ "inlines", no_argument, NULL, 'i' },
		{ "leaf", no_argument, NULL, 'L' },
		{ "symfs", required_argument, NULL, 's' },
		{ "no-debuginfod", no_argument, NULL, 'N' },
		{ "demangle", no_argument, NULL, 'C' },
		{ "live", no_argument, NULL, 'v' },
		{ "pid", required_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ustack_resolver_opts o = { .debuginfod = true };
	struct state st = { 0 };
	bool stats = false;
	size_t cap = 0;
	char *line = NULL;
	FILE *in = stdin;
	int c;

	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 'l': o.lines = st.lines = true; break;
		case 'i': o.inlines = true; break;
		case 'L': st.leaf = true; break;
		case 's': o.symfs = optarg; break;
		case 'N': o.debuginfod = false; break;
		case 'C': o.demangle = true; break;
		case 'v': o.live = true; break;
		case 'p': st.pid = atoi(optarg); break;
		case 'S': stats = true; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind + 1 < argc)
		usage(2);
	if (optind < argc && !(in = fopen(argv[optind], "r"))) {
		perror(argv[optind]);
		return 1;
	}
	st.r = ustack_resolver_new(&o);
	if (!st.r)
		return 1;
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	while (getline(&line, &cap, in) > 0)
		do_line(&st, line);
	fflush(stdout);
	if (stats)
		fprintf(stderr, "frames %lu unresolved %lu\n", st.frames, st.unresolved);
	ustack_resolver_free(st.r);
	free(line);
	free(st.last_path);
	free(st.seen);
	if (in != stdin)
		fclose(in);
	return 0;
}
