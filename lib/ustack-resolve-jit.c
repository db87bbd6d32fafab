// SPDX-License-Identifier: LGPL-2.1
/*
 * JIT code in anonymous memory: /tmp/perf-<tgid>.map, the text format JITs
 * (JVM agents, V8, CPython -X perf, ...) write for perf. One line per
 * region: "START SIZE name", START and SIZE in hex.
 *
 * Anyone can write into /tmp: the map is opened as perf opens it
 * (ustack_open_trusted()), owned by root, the user running or, live, the
 * traced process's owner. A map that is refused leaves its frames
 * unresolved, saying why, never guessed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "ustack-array.h"
#include "ustack-resolve-int.h"
#include "ustack-warn.h"

/*
 * Caps on a perf map (it may be any file in a --symfs, or a huge sparse
 * one): lines longer than USTACK_JIT_MAX_LINE are skipped, and reading
 * stops after USTACK_JIT_MAX_SYMS regions, with one warning.
 */
#define USTACK_JIT_MAX_LINE	(64 * 1024)
#define USTACK_JIT_MAX_SYMS	(1U << 22)

struct ujit_sym {
	uint64_t	start;
	uint64_t	size;
	uint32_t	seq;		/* line number: later lines win */
	char		*name;
};

struct ujit {
	struct ujit	*next;
	int		tgid;
	int		why;		/* USTACK_UNRES_* when the map was not used */
	struct ujit_sym	*syms;
	size_t		nr;
	uint64_t	max_size;
};

static int jit_cmp(const void *pa, const void *pb)
{
	const struct ujit_sym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int jit_parse_line(struct ujit *j, char *line, size_t *alloc)
{
	struct ujit_sym s;
	char *p = line, *end;

	s.start = strtoull(p, &end, 16);
	if (end == p)
		return 0;
	p = end;
	s.size = strtoull(p, &end, 16);
	if (end == p || !s.size)
		return 0;
	p = end + strspn(end, " \t");
	p[strcspn(p, "\n")] = '\0';
	if (!*p)
		return 0;
	if (ustack_array_grow((void **)&j->syms, alloc, j->nr + 1, sizeof(*j->syms)))
		return -1;
	s.seq = j->nr;
	s.name = strdup(p);
	if (!s.name)
		return -1;
	if (s.size > j->max_size)
		j->max_size = s.size;
	j->syms[j->nr++] = s;
	return 0;
}

/*
 * /tmp/perf-<tgid>.map (inside --symfs), else, live, in the task's own
 * /tmp (another mount namespace). NULL with *@err the code when there is
 * none or it was refused.
 */
static FILE *jit_open(struct ustack_resolver *r, int tgid, int *err)
{
	uid_t owner = USTACK_UID_NONE;
	char *rel, *p;
	struct stat st;
	FILE *f;
	int fd;

	rel = ustack_xasprintf("/tmp/perf-%d.map", tgid);
	p = rel ? ustack_symfs_path(r, rel) : NULL;
	if (r->opts.live) {
		/* A live process writes its own map: its owner is trusted too. */
		char *proc = ustack_xasprintf("/proc/%d", tgid);

		if (proc && !stat(proc, &st))
			owner = st.st_uid;
		free(proc);
	}
	fd = p ? ustack_open_trusted(r, p, owner) : USTACK_ERR_NOMEM;
	free(p);
	if ((fd == -ENOENT || fd == -ENOTDIR) && !r->symfs && r->opts.live) {
		p = ustack_xasprintf("/proc/%d/root%s", tgid, rel);
		fd = p ? ustack_open_trusted(r, p, owner) : USTACK_ERR_NOMEM;
		free(p);
	}
	free(rel);
	*err = fd < 0 ? fd : 0;
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f) {
		*err = -errno;
		close(fd);
	}
	return f;
}

/* The next line, at most @len - 1 bytes; longer ones are skipped whole. */
static bool jit_line(FILE *f, char *buf, size_t len)
{
	int c;

	while (fgets(buf, len, f)) {
		if (strchr(buf, '\n') || feof(f))
			return true;
		while ((c = getc(f)) != EOF && c != '\n')
			;
	}
	return false;
}

static struct ujit *jit_load(struct ustack_resolver *r, int tgid)
{
	struct ujit *j = calloc(1, sizeof(*j));
	char *line = malloc(USTACK_JIT_MAX_LINE);
	size_t alloc = 0;
	FILE *f;
	int err;

	if (!j || !line) {
		free(j);
		free(line);
		return NULL;
	}
	j->tgid = tgid;
	f = jit_open(r, tgid, &err);
	if (err == USTACK_ERR_UNTRUSTED)
		j->why = USTACK_UNRES_UNTRUSTED;
	else if (err == USTACK_ERR_NOT_REGULAR)
		j->why = USTACK_UNRES_NO_FILE;
	while (f && jit_line(f, line, USTACK_JIT_MAX_LINE)) {
		if (j->nr >= USTACK_JIT_MAX_SYMS) {
			ustack_warning("/tmp/perf-%d.map: more than %u regions: the rest not read",
				       tgid, USTACK_JIT_MAX_SYMS);
			break;
		}
		if (jit_parse_line(j, line, &alloc) < 0)
			break;
	}
	free(line);
	if (f)
		fclose(f);
	if (j->nr)
		qsort(j->syms, j->nr, sizeof(*j->syms), jit_cmp);
	j->next = r->jits;
	r->jits = j;
	return j;
}

static const struct ujit_sym *jit_find(const struct ujit *j, uint64_t addr)
{
	const struct ujit_sym *best = NULL;
	size_t lo = 0, hi = j->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (j->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Regions get reused: of those covering @addr the last written wins. */
	while (lo-- > 0 && addr - j->syms[lo].start < j->max_size) {
		const struct ujit_sym *s = &j->syms[lo];

		if (addr - s->start < s->size && (!best || s->seq > best->seq))
			best = s;
	}
	return best;
}

/**
 * ustack_jit_resolve - name an address in anonymous memory
 * @r: resolver
 * @tgid: process the address belongs to
 * @addr: virtual address
 * @out: filled when found (name owned by @r, inlined false)
 *
 * The map is read once per tgid. Returns 1 when found, 0 when not,
 * -USTACK_UNRES_* when the map was not used (said once in a warning).
 */
int ustack_jit_resolve(struct ustack_resolver *r, int tgid, uint64_t addr,
		       struct ustack_sym *out)
{
	const struct ujit_sym *s;
	struct ujit *j;

	for (j = r->jits; j; j = j->next)
		if (j->tgid == tgid)
			break;
	if (!j)
		j = jit_load(r, tgid);
	if (!j)
		return 0;
	if (j->why)
		return -j->why;
	s = jit_find(j, addr);
	if (!s)
		return 0;
	memset(out, 0, sizeof(*out));
	out->name = s->name;
	out->sym_off = addr - s->start;
	out->origin = USTACK_ORIGIN_JIT;
	return 1;
}

void ustack_jit_free(struct ustack_resolver *r)
{
	while (r->jits) {
		struct ujit *j = r->jits;
		size_t i;

		r->jits = j->next;
		for (i = 0; i < j->nr; i++)
			free(j->syms[i].name);
		free(j->syms);
		free(j);
	}
}
