// SPDX-License-Identifier: LGPL-2.1
/*
 * JIT code in anonymous memory: /tmp/perf-<tgid>.map, the text format JITs
 * (JVM agents, V8, CPython -X perf, ...) write for perf. One line per
 * region: "START SIZE name", START and SIZE in hex.
 *
 * Anyone can write into /tmp: the map is opened as perf opens it
 * (ustack_resolve_open_trusted()), owned by root, the user running or, live, the
 * traced process's owner. A map that is refused leaves its frames
 * unresolved, saying why, never guessed.
 *
 * Regions get reused: JITs free code and write a new line for what they
 * put at the same place, so regions overlap. Of those covering an
 * address, the one written last (the later line) names it. Once read, the
 * map is turned into disjoint ranges, each naming its winner, so that a
 * look-up is one binary search, whatever the overlaps (a region covering
 * all others made the old backward scan from the nearest start linear).
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
 * one): lines longer than USTACK_JIT_MAX_LINE are skipped, names longer
 * than USTACK_JIT_MAX_NAME bytes cut (on a character boundary), and
 * reading stops, with one warning, after USTACK_JIT_MAX_SYMS regions or
 * USTACK_JIT_MAX_NAMES bytes of names.
 */
#define USTACK_JIT_MAX_LINE	(64 * 1024)
#define USTACK_JIT_MAX_NAME	1024
#define USTACK_JIT_MAX_SYMS	(1U << 22)
#define USTACK_JIT_MAX_NAMES	(128U << 20)

#define UJIT_NONE		UINT32_MAX

struct ujit_sym {
	uint64_t	start;
	uint64_t	end;		/* start + size, UINT64_MAX at most */
	uint32_t	seq;		/* line number: later lines win */
	uint32_t	name;		/* offset in ujit.names */
};

/*
 * The index: range i is [starts[i], starts[i + 1]), named by syms[who[i]]
 * (UJIT_NONE: no region); the last range, from the end of the last
 * region on, names nothing.
 */
struct ujit {
	struct ujit	*next;
	int		tgid;
	int		why;		/* USTACK_UNRES_* when the map was not used */
	struct ujit_sym	*syms;
	size_t		nr;
	char		*names;
	size_t		names_len;
	uint64_t	*starts;
	uint32_t	*who;
	size_t		nr_ranges;
};

static int jit_cmp(const void *pa, const void *pb)
{
	const struct ujit_sym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* @len bytes of @s at most, not ending inside a UTF-8 sequence */
static size_t name_cut(const char *s, size_t len)
{
	size_t n = strnlen(s, len + 1);

	if (n <= len)
		return n;
	while (len && ((unsigned char)s[len] & 0xc0) == 0x80)
		len--;
	return len;
}

static int jit_add_name(struct ujit *j, const char *p, size_t *alloc)
{
	size_t n = name_cut(p, USTACK_JIT_MAX_NAME);

	if (ustack_array_grow((void **)&j->names, alloc, j->names_len + n + 1, 1))
		return -1;
	memcpy(j->names + j->names_len, p, n);
	j->names[j->names_len + n] = '\0';
	j->names_len += n + 1;
	return 0;
}

/* 0, or -1 when out of memory */
static int jit_parse_line(struct ujit *j, char *line, size_t *alloc,
			  size_t *names_alloc)
{
	struct ujit_sym s;
	uint64_t size;
	char *p = line, *end;

	s.start = strtoull(p, &end, 16);
	if (end == p)
		return 0;
	p = end;
	size = strtoull(p, &end, 16);
	if (end == p || !size)
		return 0;
	p = end + strspn(end, " \t");
	p[strcspn(p, "\n")] = '\0';
	if (!*p)
		return 0;
	if (ustack_array_grow((void **)&j->syms, alloc, j->nr + 1, sizeof(*j->syms)))
		return -1;
	s.end = s.start + size < s.start ? UINT64_MAX : s.start + size;
	s.seq = j->nr;
	s.name = j->names_len;
	if (jit_add_name(j, p, names_alloc))
		return -1;
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

	rel = ustack_resolve_util_xasprintf("/tmp/perf-%d.map", tgid);
	p = rel ? ustack_resolve_util_symfs_path(r, rel) : NULL;
	if (r->opts.live) {
		/* A live process writes its own map: its owner is trusted too. */
		char *proc = ustack_resolve_util_xasprintf("/proc/%d", tgid);

		if (proc && !stat(proc, &st))
			owner = st.st_uid;
		free(proc);
	}
	fd = p ? ustack_resolve_open_trusted(r, p, owner) : USTACK_ERR_NOMEM;
	free(p);
	if ((fd == -ENOENT || fd == -ENOTDIR) && !r->symfs && r->opts.live) {
		p = ustack_resolve_util_xasprintf("/proc/%d/root%s", tgid, rel);
		fd = p ? ustack_resolve_open_trusted(r, p, owner) : USTACK_ERR_NOMEM;
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

static void jit_read(struct ujit *j, FILE *f)
{
	char *line = malloc(USTACK_JIT_MAX_LINE);
	size_t alloc = 0, names_alloc = 0;

	while (line && jit_line(f, line, USTACK_JIT_MAX_LINE)) {
		if (j->nr >= USTACK_JIT_MAX_SYMS ||
		    j->names_len + USTACK_JIT_MAX_NAME >= USTACK_JIT_MAX_NAMES) {
			ustack_warning("/tmp/perf-%d.map: more than %u regions or %u MiB of names: the rest not read",
				       j->tgid, USTACK_JIT_MAX_SYMS, USTACK_JIT_MAX_NAMES >> 20);
			break;
		}
		if (jit_parse_line(j, line, &alloc, &names_alloc) < 0)
			break;
	}
	free(line);
}

/* A max-heap of indices into @syms, by seq: the latest region on top. */
struct jheap {
	uint32_t		*v;
	size_t			nr;
	const struct ujit_sym	*syms;
};

static bool heap_above(const struct jheap *h, size_t a, size_t b)
{
	return h->syms[h->v[a]].seq > h->syms[h->v[b]].seq;
}

static void heap_swap(struct jheap *h, size_t a, size_t b)
{
	uint32_t t = h->v[a];

	h->v[a] = h->v[b];
	h->v[b] = t;
}

static void heap_push(struct jheap *h, uint32_t i)
{
	size_t c = h->nr++;

	h->v[c] = i;
	for (; c && heap_above(h, c, (c - 1) / 2); c = (c - 1) / 2)
		heap_swap(h, c, (c - 1) / 2);
}

static void heap_pop(struct jheap *h)
{
	size_t c = 0, k;

	h->v[0] = h->v[--h->nr];
	for (;;) {
		k = 2 * c + 1;
		if (k >= h->nr)
			break;
		if (k + 1 < h->nr && heap_above(h, k + 1, k))
			k++;
		if (!heap_above(h, k, c))
			break;
		heap_swap(h, c, k);
		c = k;
	}
}

static int u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* Every start and end, sorted, each once; their number in *@nr */
static uint64_t *jit_bounds(const struct ujit *j, size_t *nr)
{
	uint64_t *b = malloc(2 * j->nr * sizeof(*b));
	size_t i, n = 0;

	if (!b)
		return NULL;
	for (i = 0; i < j->nr; i++) {
		b[n++] = j->syms[i].start;
		b[n++] = j->syms[i].end;
	}
	qsort(b, n, sizeof(*b), u64_cmp);
	for (*nr = 0, i = 0; i < n; i++)
		if (!*nr || b[*nr - 1] != b[i])
			b[(*nr)++] = b[i];
	return b;
}

/*
 * The index, by a sweep over every bound: the regions begun and not yet
 * ended are on a heap by line number, the latest on top, and it names
 * the range up to the next bound. O(n log n) once, for any overlap.
 */
static int jit_index(struct ujit *j)
{
	struct jheap h = { .syms = j->syms };
	size_t nb = 0, k, i = 0;
	uint64_t *b;
	uint32_t w;

	qsort(j->syms, j->nr, sizeof(*j->syms), jit_cmp);
	b = jit_bounds(j, &nb);
	h.v = malloc(j->nr * sizeof(*h.v));
	j->starts = malloc(nb * sizeof(*j->starts));
	j->who = malloc(nb * sizeof(*j->who));
	if (!b || !h.v || !j->starts || !j->who) {
		free(b);
		free(h.v);
		return -1;
	}
	for (k = 0; k < nb; k++) {
		while (i < j->nr && j->syms[i].start <= b[k])
			heap_push(&h, i++);
		/* Ended ones leave when they come on top: only the top counts. */
		while (h.nr && j->syms[h.v[0]].end <= b[k])
			heap_pop(&h);
		w = h.nr ? h.v[0] : UJIT_NONE;
		if (j->nr_ranges && j->who[j->nr_ranges - 1] == w)
			continue;
		j->starts[j->nr_ranges] = b[k];
		j->who[j->nr_ranges++] = w;
	}
	free(b);
	free(h.v);
	return 0;
}

static void jit_drop(struct ujit *j)
{
	free(j->syms);
	free(j->names);
	free(j->starts);
	free(j->who);
	j->syms = NULL;
	j->names = NULL;
	j->starts = NULL;
	j->who = NULL;
	j->nr = j->nr_ranges = 0;
}

static struct ujit *jit_load(struct ustack_resolver *r, int tgid)
{
	struct ujit *j = calloc(1, sizeof(*j));
	FILE *f;
	int err;

	if (!j)
		return NULL;
	j->tgid = tgid;
	f = jit_open(r, tgid, &err);
	if (f) {
		jit_read(j, f);
		fclose(f);
	} else if (err == USTACK_ERR_UNTRUSTED) {
		j->why = USTACK_UNRES_UNTRUSTED;
	} else if (err == USTACK_ERR_NOT_REGULAR) {
		j->why = USTACK_UNRES_NO_FILE;
	}
	if (j->nr && jit_index(j) < 0)
		jit_drop(j);
	j->next = r->jits;
	r->jits = j;
	return j;
}

/* The region naming @addr, or NULL: the last range starting at or before. */
static const struct ujit_sym *jit_find(struct ustack_resolver *r,
				       const struct ujit *j, uint64_t addr)
{
	size_t lo = 0, hi = j->nr_ranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		r->jit_probes++;
		if (j->starts[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || j->who[lo - 1] == UJIT_NONE)
		return NULL;
	return &j->syms[j->who[lo - 1]];
}

/**
 * ustack_resolve_jit_resolve - name an address in anonymous memory
 * @r: resolver
 * @tgid: process the address belongs to
 * @addr: virtual address
 * @out: filled when found (name owned by @r, inlined false)
 *
 * The map is read once per tgid. Returns 1 when found, 0 when not,
 * -USTACK_UNRES_* when the map was not used (said once in a warning).
 */
int ustack_resolve_jit_resolve(struct ustack_resolver *r, int tgid, uint64_t addr,
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
	s = jit_find(r, j, addr);
	if (!s)
		return 0;
	memset(out, 0, sizeof(*out));
	out->name = j->names + s->name;
	out->sym_off = addr - s->start;
	out->origin = USTACK_ORIGIN_JIT;
	return 1;
}

void ustack_resolve_jit_free(struct ustack_resolver *r)
{
	while (r->jits) {
		struct ujit *j = r->jits;

		r->jits = j->next;
		jit_drop(j);
		free(j);
	}
}
