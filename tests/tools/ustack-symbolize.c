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
 *	func+0xoff (dso)[ file:line][ # table]	(the table with --verbose)
 *	[unknown] (dso)[ file:line][ # why]	(the reason with --why)
 * --stats prints counts on stderr: frames, unresolved ones, and the steps
 * all JIT look-ups took (the index's binary searches).
 * With --inlines, inlined frames come first, each ending in " [inlined]";
 * the line without that mark ends the group of one input frame.
 * This is also the benchmark entry point (bench/symbolize).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ustack.h"
#include "ustack-hash.h"
#include "ustack-resolve.h"
#include "../../lib/ustack-resolve-int.h"	/* jit_probes, for --stats */

#define MAX_FRAMES	64

/* Files already looked up, by the text naming them (path, id, flags). */
struct dso_slot {
	struct ustack_hnode	node;
	char			*key;
	size_t			key_len;
	struct ustack_dso	*dso;
	char			*suffix;	/* " (name)" */
	size_t			suffix_len;
};

struct state {
	struct ustack_resolver	*r;
	bool			leaf;
	bool			lines;
	bool			why;
	bool			verbose;
	int			pid;
	struct ustack_htable	slots;
	struct dso_slot		*last;		/* of the previous frame */
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
		"  --stats          print frame counts (and JIT look-up steps) on stderr\n"
		"  --why            say why a frame is [unknown]\n"
		"  --verbose        say which table each name comes from\n"
		"  --debug-dir DIR  look for debug files in DIR too (repeatable)\n"
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

/*
 * Fields split on tabs when the line has one (paths with spaces), else on
 * blanks. @lens gets each field's length.
 */
static int split(char *line, size_t len, char **tok, size_t *lens, int max)
{
	char sep = memchr(line, '\t', len) ? '\t' : ' ';
	char *p = line, *end = line + len, *e;
	int n = 0;

	while (end > p && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	while (n < max) {
		while (p < end && (*p == sep || *p == '\t'))
			p++;
		if (p == end)
			break;
		e = memchr(p, sep, end - p);
		if (!e)
			e = end;
		tok[n] = p;
		lens[n] = e - p;
		*e = '\0';
		n++;
		p = e + (e < end);
	}
	return n;
}

/* Say once per file why its frames stay unresolved. */
static void report_error(struct state *st, struct ustack_dso *dso)
{
	struct ustack_dso **n;
	char msg[4096];
	size_t i;

	if (!ustack_resolve_dso_strerror(dso, msg, sizeof(msg)))
		return;
	for (i = 0; i < st->nr_seen; i++)
		if (st->seen[i] == dso)
			return;
	n = realloc(st->seen, (st->nr_seen + 1) * sizeof(*n));
	if (!n)
		return;
	st->seen = n;
	st->seen[st->nr_seen++] = dso;
	fprintf(stderr, "ustack-symbolize: %s\n", msg);
}

/* @key is "path\0id\0flags" text; the resolver is asked once per key. */
static struct dso_slot *get_dso(struct state *st, const char *key, size_t key_len,
				const char *path, const unsigned char *id,
				size_t id_len, uint32_t flags)
{
	struct dso_slot *s = st->last;
	struct ustack_hnode *pos;
	uint64_t h;

	/* Neighbouring frames often share a file: skip the hash then. */
	if (s && s->key_len == key_len && !memcmp(s->key, key, key_len))
		return s;
	h = ustack_hash_mem(key, key_len, 0);
	ustack_hash_table_for_each_hash(&st->slots, pos, h) {
		s = ustack_hash_table_entry(pos, struct dso_slot, node);
		if (s->key_len == key_len && !memcmp(s->key, key, key_len))
			return st->last = s;
	}
	s = calloc(1, sizeof(*s));
	if (!s || ustack_hash_table_add(&st->slots, &s->node, h)) {
		perror("malloc");
		exit(1);
	}
	s->dso = ustack_resolver_dso(st->r, path, id, id_len, st->pid, flags);
	report_error(st, s->dso);
	s->suffix_len = asprintf(&s->suffix, " (%s)", ustack_resolve_dso_name(s->dso));
	s->key = malloc(key_len);
	if (!s->key) {
		perror("malloc");
		exit(1);
	}
	memcpy(s->key, key, key_len);
	s->key_len = key_len;
	return st->last = s;
}

static char *put_hex(char *p, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = hex[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static void put_line(const struct state *st, const struct ustack_sym *s)
{
	char buf[32];

	if (!st->lines || !s || !s->file)
		return;
	putc_unlocked(' ', stdout);
	fputs_unlocked(s->file, stdout);
	snprintf(buf, sizeof(buf), ":%d", s->line);
	fputs_unlocked(buf, stdout);
}

static void put_frame(const struct state *st, const struct ustack_sym *s,
		      const char *suffix, size_t suffix_len)
{
	char buf[64], *p = buf;

	fputs_unlocked(s->name, stdout);
	if (!s->inlined) {
		memcpy(p, "+0x", 3);
		p = put_hex(p + 3, s->sym_off);
		fwrite_unlocked(buf, 1, p - buf, stdout);
	}
	fwrite_unlocked(suffix, 1, suffix_len, stdout);
	put_line(st, s);
	if (s->inlined)
		fputs_unlocked(" [inlined]", stdout);
	if (st->verbose) {
		fputs_unlocked(" # ", stdout);
		fputs_unlocked(ustack_resolve_origin_str(s->origin), stdout);
	}
	putc_unlocked('\n', stdout);
}

/* @s: the nameless frame, which may still have a source line, or NULL */
static void put_unknown(struct state *st, const char *suffix, size_t suffix_len,
			const struct ustack_sym *s, int why)
{
	fputs_unlocked("[unknown]", stdout);
	fwrite_unlocked(suffix, 1, suffix_len, stdout);
	put_line(st, s);
	if (st->why && why) {
		fputs_unlocked(" # ", stdout);
		/* the summary's reason, as the report counts it */
		fputs_unlocked(ustack_resolve_unresolved_str(ustack_resolve_unresolved_group(why)), stdout);
	}
	putc_unlocked('\n', stdout);
	st->unresolved++;
}

static void do_line(struct state *st, char *line, size_t len)
{
	unsigned char id[USTACK_BUILD_ID_MAX];
	struct ustack_sym out[MAX_FRAMES];
	struct dso_slot *slot;
	uint32_t flags = 0;
	size_t id_len = 0, lens[4], key_len;
	uint64_t off;
	char *tok[4];
	int n, i;

	n = split(line, len, tok, lens, 4);
	if (!n || tok[0][0] == '#')
		return;
	st->frames++;
	if (n < 2 || !parse_hex(tok[1], &off)) {
		fprintf(stderr, "ustack-symbolize: bad line: %s\n", tok[0]);
		put_unknown(st, " (?)", 4, NULL, 0);
		return;
	}
	if (n > 2)
		id_len = parse_build_id(tok[2], id);
	if (n > 3)
		flags = strtoul(tok[3], NULL, 0);
	if (!strcmp(tok[0], "[jit]")) {
		n = ustack_resolve_jit_resolve(st->r, st->pid, off, out);
		if (n > 0)
			put_frame(st, out, " ([jit])", 8);
		else
			put_unknown(st, " ([jit])", 8, NULL, n < 0 ? -n : USTACK_UNRES_NO_FILE);
		return;
	}
	if (tok[0][0] == '[')
		flags |= USTACK_MAP_SPECIAL;
	/* The key: path, then id and flags text (the offset field moved out). */
	key_len = lens[0];
	if (n > 2) {
		memmove(tok[0] + key_len + 1, tok[2], lens[2]);
		key_len += 1 + lens[2];
		tok[0][lens[0]] = '\0';
	}
	if (n > 3) {
		tok[0][key_len] = '\0';
		memmove(tok[0] + key_len + 1, tok[3], lens[3]);
		key_len += 1 + lens[3];
	}
	slot = get_dso(st, tok[0], key_len, tok[0], id, id_len, flags);
	n = ustack_resolve_dso_lookup(slot->dso, off, !st->leaf, out, MAX_FRAMES);
	if (n <= 0) {
		put_unknown(st, slot->suffix, slot->suffix_len, out, -n);
		return;
	}
	for (i = 0; i < n; i++)
		put_frame(st, &out[i], slot->suffix, slot->suffix_len);
}

/* Input in big blocks: no per-line read calls, no big resident buffer. */
static void read_blocks(struct state *st, int fd)
{
	size_t size = 1 << 20, have = 0;
	char *buf = malloc(size + 1), *p, *nl;
	ssize_t got;

	if (!buf) {
		perror("malloc");
		exit(1);
	}
	for (;;) {
		got = read(fd, buf + have, size - have);
		if (got < 0) {
			perror("read");
			exit(1);
		}
		have += got;
		if (!got && have && buf[have - 1] != '\n')
			buf[have++] = '\n';	/* room: size + 1 */
		for (p = buf; (nl = memchr(p, '\n', buf + have - p)); p = nl + 1) {
			*nl = '\0';
			do_line(st, p, nl - p);
		}
		have -= p - buf;
		memmove(buf, p, have);
		if (!got)
			break;
		if (have == size) {
			/* One line fills the buffer: grow it. */
			char *n = realloc(buf, 2 * size + 1);

			if (!n) {
				perror("realloc");
				exit(1);
			}
			buf = n;
			size *= 2;
		}
	}
	free(buf);
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
		{ "why", no_argument, NULL, 'W' },
		{ "verbose", no_argument, NULL, 'V' },
		{ "debug-dir", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ustack_resolver_opts o = { .debuginfod = true };
	struct state st = { 0 };
	struct ustack_hnode *pos, *tmp;
	struct dso_slot *slot;
	size_t i;
	const char **dirs = NULL;
	size_t nr_dirs = 0;
	bool stats = false;
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
		case 'W': st.why = true; break;
		case 'V': st.verbose = true; break;
		case 'D':
			dirs = realloc(dirs, (nr_dirs + 2) * sizeof(*dirs));
			if (!dirs) {
				perror("realloc");
				return 1;
			}
			dirs[nr_dirs++] = optarg;
			dirs[nr_dirs] = NULL;
			o.debug_dirs = dirs;
			break;
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
	read_blocks(&st, fileno(in));
	fflush(stdout);
	if (stats) {
		fprintf(stderr, "frames %lu unresolved %lu\n", st.frames, st.unresolved);
		/* how many steps the JIT look-ups took, all together */
		fprintf(stderr, "jit probes %" PRIu64 "\n", st.r->jit_probes);
	}
	ustack_resolver_free(st.r);
	ustack_hash_table_for_each_safe(&st.slots, i, pos, tmp) {
		slot = ustack_hash_table_entry(pos, struct dso_slot, node);
		free(slot->key);
		free(slot->suffix);
		free(slot);
	}
	ustack_hash_table_release(&st.slots);
	free(st.seen);
	free(dirs);
	if (in != stdin)
		fclose(in);
	return 0;
}
