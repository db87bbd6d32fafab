// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-mapset-test: the side-band history's mapping sets
 * (lib/ustack-map-history.c) fed directly, checked against a plain model,
 * with the work they cost (ustack_map_history_work()).
 *
 * usage: ustack-mapset-test [SCRIPT]	(standard input without SCRIPT)
 *
 * Script lines ('#' starts a comment):
 *   model              keep a reference model of every record from here
 *                      on (a sorted array per process, cut and sorted
 *                      again at each mapping, copied at each fork): what
 *                      `check` compares the history with
 *   sb TS TEXT         one side-band record, TEXT as a trace.dat holds it
 *                      without its "ustack-sb " ("mmap pid=1 tid=1 ...")
 *   map TGID VA        print "map TGID VA -> OFF PATH", "anon" or "nomap"
 *   many TGID N START STEP LEN
 *                      N mappings of /lib/many.so, the i-th at START +
 *                      i * STEP, LEN bytes, file offset i * LEN
 *   check-many TGID N START STEP LEN
 *                      the first and last byte of each of those mappings
 *                      map to their file offsets: "check-many ok N deepest
 *                      D", D the most work a first look-up took (the depth
 *                      it walked down)
 *   splits TGID N BASE one mapping of /lib/big.so over 2N pages at BASE,
 *                      then /lib/small.so over each odd page in a shuffled
 *                      order (2N ranges), then every page checked:
 *                      "splits ok 2N"
 *   forks PARENT FIRST N [VA]
 *                      N fork records, children FIRST .. FIRST + N - 1 of
 *                      PARENT; with VA, each child then maps /lib/child.so
 *                      over the page at VA, file offset its index * 4096
 *   check-forks PARENT FIRST N VA
 *                      each of those children sees its own page at VA and
 *                      its parent's mappings elsewhere (at VA + 4096)
 *   check              every mapping set is a balanced tree of ranges
 *                      (ustack_map_history_check()); with the model, for each
 *                      of its processes: each boundary of each of its
 *                      ranges (first, last, one before, one past) maps as
 *                      the model says, and its PROCMAPS lines are the
 *                      model's: "check ok PROCESSES RANGES"
 *   random SEED OPS    OPS random mappings over each other, forks, execs
 *                      and threads among 6 processes, `check` after each
 *                      (turns the model on): "random ok OPS"
 *   procmaps           print the PROCMAPS payloads of the processes a
 *                      stack was mapped through (ustack_map_history_procmaps())
 *   work               print "work N" (ustack_map_history_work())
 *
 * A failed check prints "FAIL ..." and the driver exits 1 at the end; a
 * bad script line exits 2.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack.h"
#include "ustack-sideband.h"
#include "../../lib/ustack-map-history.h"

#define PAGE		4096ULL
#define MAX_PIDS	4096
#define RANDOM_PIDS	6

/* A range of the model; @owner and @path name the file, NULL: anonymous */
struct mrange {
	uint64_t	start;
	uint64_t	end;
	uint64_t	pgoff;
	int		owner;
	const char	*path;
};

struct mspace {
	int		pid;
	struct mrange	*r;
	size_t		nr;
};

struct driver {
	struct ustack_map_history	*h;
	bool			model;
	struct mspace		spaces[MAX_PIDS];
	size_t			nr_spaces;
	uint64_t		ts;
	uint64_t		rnd;
	int			failed;
	int			line;
};

static void die(struct driver *d, const char *msg)
{
	fprintf(stderr, "ustack-mapset-test: line %d: %s\n", d->line, msg);
	exit(2);
}

static void *xcalloc(size_t nr, size_t size)
{
	void *p = calloc(nr ? nr : 1, size);

	if (!p) {
		fprintf(stderr, "ustack-mapset-test: out of memory\n");
		exit(2);
	}
	return p;
}

/* ------------------------------------------------------------------ */
/* The model: what the history did before its mapping sets            */
/* ------------------------------------------------------------------ */

static struct mspace *mspace(struct driver *d, int pid, bool create)
{
	size_t i;

	for (i = 0; i < d->nr_spaces; i++)
		if (d->spaces[i].pid == pid)
			return &d->spaces[i];
	if (!create)
		return NULL;
	if (d->nr_spaces == MAX_PIDS)
		die(d, "too many processes for the model");
	d->spaces[d->nr_spaces].pid = pid;
	return &d->spaces[d->nr_spaces++];
}

static int mrange_cmp(const void *a, const void *b)
{
	const struct mrange *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void model_mmap(struct driver *d, const struct ustack_sb_rec *r, bool anon)
{
	struct mspace *sp = mspace(d, r->pid, true);
	struct mrange nv = { r->start, r->start + r->len, r->pgoff, r->pid,
			     anon ? NULL : r->name };
	struct mrange *out = xcalloc(sp->nr + 2, sizeof(*out)), *o;
	size_t i, n = 0;

	if (nv.end <= nv.start) {
		free(out);
		return;
	}
	for (i = 0; i < sp->nr; i++) {
		o = &sp->r[i];
		if (o->end <= nv.start || o->start >= nv.end) {
			out[n++] = *o;
			continue;
		}
		if (o->start < nv.start) {
			out[n] = *o;
			out[n++].end = nv.start;
		}
		if (o->end > nv.end) {
			out[n] = *o;
			out[n].start = nv.end;
			out[n++].pgoff = o->pgoff + (nv.end - o->start);
		}
	}
	out[n++] = nv;
	qsort(out, n, sizeof(*out), mrange_cmp);
	free(sp->r);
	sp->r = out;
	sp->nr = n;
}

static void model_fork(struct driver *d, int parent, int child)
{
	struct mspace *ps, *cs;

	if (parent == child)
		return;
	cs = mspace(d, child, true);
	ps = mspace(d, parent, false);
	free(cs->r);
	cs->nr = ps ? ps->nr : 0;
	cs->r = xcalloc(cs->nr, sizeof(*cs->r));
	if (cs->nr)
		memcpy(cs->r, ps->r, cs->nr * sizeof(*cs->r));
}

static void model_exec(struct driver *d, int pid)
{
	struct mspace *sp = mspace(d, pid, false);

	if (sp)
		sp->nr = 0;
}

/* Names in the model live as long as the driver: a few distinct ones */
static const char *model_name(const char *name)
{
	static const char *names[64];
	static int nr;
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], name))
			return names[i];
	if (nr == 64) {
		fprintf(stderr, "ustack-mapset-test: too many paths for the model\n");
		exit(2);
	}
	names[nr] = strdup(name);
	return names[nr++];
}

/* ------------------------------------------------------------------ */
/* Feeding                                                            */
/* ------------------------------------------------------------------ */

static void feed(struct driver *d, const struct ustack_sb_rec *r)
{
	if (ustack_map_history_add(d->h, r))
		die(d, "ustack_map_history_add() failed");
	if (!d->model)
		return;
	switch (r->kind) {
	case USTACK_SB_MMAP:
		model_mmap(d, r, !strcmp(r->name, "//anon"));
		break;
	case USTACK_SB_FORK:
		model_fork(d, r->ppid, r->pid);
		break;
	case USTACK_SB_COMM:
		if (r->exec)
			model_exec(d, r->pid);
		break;
	default:
		break;
	}
}

static void feed_mmap(struct driver *d, int pid, uint64_t start, uint64_t len,
		      uint64_t pgoff, const char *path)
{
	struct ustack_sb_rec r = {
		.kind = USTACK_SB_MMAP, .ts = ++d->ts, .pid = pid, .tid = pid,
		.start = start, .len = len, .pgoff = pgoff, .prot = 5, .flags = 2,
		.maj = 8, .min = 1, .ino = 1,
		.name = d->model ? model_name(path) : path,
	};

	feed(d, &r);
}

static void feed_fork(struct driver *d, int parent, int child)
{
	struct ustack_sb_rec r = {
		.kind = USTACK_SB_FORK, .ts = ++d->ts, .pid = child, .tid = child,
		.ppid = parent, .ptid = parent,
	};

	feed(d, &r);
}

static void feed_exec(struct driver *d, int pid)
{
	struct ustack_sb_rec r = {
		.kind = USTACK_SB_COMM, .ts = ++d->ts, .pid = pid, .tid = pid,
		.exec = true, .name = "new",
	};

	feed(d, &r);
}

/* ------------------------------------------------------------------ */
/* Checks                                                             */
/* ------------------------------------------------------------------ */

static void fail(struct driver *d, const char *what, int pid, uint64_t va)
{
	printf("FAIL line %d: %s: pid %d va %#" PRIx64 "\n", d->line, what, pid, va);
	d->failed = 1;
}

/* @va of @pid maps to @path at @off (@path NULL: anonymous, "": none) */
static bool maps_to(struct driver *d, int pid, uint64_t va, const char *path, uint64_t off)
{
	struct ustack_frame fr;

	ustack_map_history_map(d->h, pid, va, &fr);
	if (!path)
		return fr.id == USTACK_ID_ANON && !fr.map && fr.offset == va;
	if (!*path)
		return fr.id == USTACK_ID_NOMAP && !fr.map && fr.offset == va;
	return fr.map && fr.id == fr.map->id && !strcmp(fr.map->path, path) &&
	       fr.offset == off;
}

static const struct mrange *model_find(const struct mspace *sp, uint64_t va)
{
	size_t i;

	for (i = 0; sp && i < sp->nr; i++)
		if (sp->r[i].start <= va && va < sp->r[i].end)
			return &sp->r[i];
	return NULL;
}

static void check_va(struct driver *d, const struct mspace *sp, uint64_t va)
{
	const struct mrange *m = model_find(sp, va);
	struct ustack_frame fr;

	ustack_map_history_map(d->h, sp->pid, va, &fr);
	if (!m) {
		if (fr.id != USTACK_ID_NOMAP || fr.map || fr.offset != va)
			fail(d, "mapped where the model has nothing", sp->pid, va);
	} else if (!m->path) {
		if (fr.id != USTACK_ID_ANON || fr.map || fr.offset != va)
			fail(d, "not anonymous as in the model", sp->pid, va);
	} else if (!fr.map || strcmp(fr.map->path, m->path) ||
		   (int)fr.map->tgid != m->owner || fr.offset != va - m->start + m->pgoff) {
		fail(d, "not the model's file and offset", sp->pid, va);
	}
}

/* The PROCMAPS lines of @sp as the model has them */
static char *model_procmaps(const struct mspace *sp, int *lines)
{
	size_t i, j, len = 0, alloc = 64 + sp->nr * 300;
	char *out = xcalloc(alloc, 1);

	*lines = 0;
	for (i = 0; i < sp->nr; i = j) {
		for (j = i + 1; j < sp->nr && sp->r[j].path == sp->r[i].path &&
		     sp->r[j].owner == sp->r[i].owner; j++)
			;
		if (!sp->r[i].path)
			continue;
		len += snprintf(out + len, alloc - len, "%" PRIx64 " %" PRIx64 " %s\n",
				sp->r[i].start, sp->r[j - 1].end, sp->r[i].path);
		(*lines)++;
	}
	return out;
}

static void check_procmaps(struct driver *d)
{
	char **opts, *want, *body;
	struct mspace *sp;
	size_t i, seen = 0;
	int pid, nr, lines;

	for (i = 0; i < d->nr_spaces; i++)
		ustack_map_history_use(d->h, d->spaces[i].pid);
	opts = ustack_map_history_procmaps(d->h);
	if (!opts)
		die(d, "ustack_map_history_procmaps() failed");
	for (i = 0; opts[i]; i++) {
		body = strchr(opts[i], '\n');
		if (sscanf(opts[i], "%x %x", &pid, &nr) != 2 || !body) {
			fail(d, "PROCMAPS without its header", 0, 0);
			continue;
		}
		sp = mspace(d, pid, false);
		if (!sp) {
			fail(d, "PROCMAPS of a process the model does not know", pid, 0);
			continue;
		}
		want = model_procmaps(sp, &lines);
		if (strcmp(body + 1, want) || nr != lines)
			fail(d, "PROCMAPS lines are not the model's", pid, 0);
		free(want);
		seen++;
	}
	/* one for each process with any range, file or not */
	for (i = 0; i < d->nr_spaces; i++)
		if (d->spaces[i].nr)
			seen--;
	if (seen)
		fail(d, "PROCMAPS has a process more or less than the model", 0, 0);
	for (i = 0; opts[i]; i++)
		free(opts[i]);
	free(opts);
}

static size_t check(struct driver *d)
{
	const struct mspace *sp;
	size_t i, j, ranges = 0;

	if (ustack_map_history_check(d->h))
		fail(d, "a mapping set is not a balanced tree of ranges", 0, 0);
	if (!d->model)
		return 0;
	for (i = 0; i < d->nr_spaces; i++) {
		sp = &d->spaces[i];
		ranges += sp->nr;
		for (j = 0; j < sp->nr; j++) {
			check_va(d, sp, sp->r[j].start - 1);
			check_va(d, sp, sp->r[j].start);
			check_va(d, sp, sp->r[j].end - 1);
			check_va(d, sp, sp->r[j].end);
		}
		/* a process the model has no range for has none at all */
		check_va(d, sp, 0);
	}
	check_procmaps(d);
	return ranges;
}

/* ------------------------------------------------------------------ */
/* Generators                                                         */
/* ------------------------------------------------------------------ */

static uint64_t rnd(struct driver *d)
{
	/* xorshift64: the same sequence from the same seed everywhere */
	d->rnd ^= d->rnd << 13;
	d->rnd ^= d->rnd >> 7;
	d->rnd ^= d->rnd << 17;
	return d->rnd;
}

static void many(struct driver *d, int pid, uint64_t n, uint64_t start, uint64_t step,
		 uint64_t len)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		feed_mmap(d, pid, start + i * step, len, i * len, "/lib/many.so");
}

static void check_many(struct driver *d, int pid, uint64_t n, uint64_t start,
		       uint64_t step, uint64_t len)
{
	uint64_t i, va, work, deepest = 0;

	for (i = 0; i < n; i++) {
		va = start + i * step;
		/* the first look-up of a mapping walks down from the root */
		work = ustack_map_history_work(d->h);
		if (!maps_to(d, pid, va, "/lib/many.so", i * len)) {
			fail(d, "check-many: not its mapping", pid, va);
			return;
		}
		work = ustack_map_history_work(d->h) - work;
		if (work > deepest)
			deepest = work;
		if (!maps_to(d, pid, va + len - 1, "/lib/many.so", i * len + len - 1)) {
			fail(d, "check-many: not its mapping", pid, va + len - 1);
			return;
		}
	}
	printf("check-many ok %" PRIu64 " deepest %" PRIu64 "\n", n, deepest);
}

static void splits(struct driver *d, int pid, uint64_t n, uint64_t base)
{
	uint64_t *order = xcalloc(n, sizeof(*order)), i, j, t, va;
	const char *path;
	uint64_t off;

	feed_mmap(d, pid, base, 2 * n * PAGE, 0, "/lib/big.so");
	for (i = 0; i < n; i++)
		order[i] = 2 * i + 1;
	d->rnd = 0x9e3779b97f4a7c15ULL;
	for (i = n; i > 1; i--) {
		j = rnd(d) % i;
		t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++)
		feed_mmap(d, pid, base + order[i] * PAGE, PAGE, order[i] * PAGE, "/lib/small.so");
	free(order);
	for (i = 0; i < 2 * n; i++) {
		va = base + i * PAGE;
		path = i % 2 ? "/lib/small.so" : "/lib/big.so";
		off = i * PAGE;
		if (!maps_to(d, pid, va, path, off) ||
		    !maps_to(d, pid, va + PAGE - 1, path, off + PAGE - 1)) {
			fail(d, "splits: a page not where it was mapped", pid, va);
			return;
		}
	}
	printf("splits ok %" PRIu64 "\n", 2 * n);
}

static void forks(struct driver *d, int parent, int first, int n, uint64_t va)
{
	int i;

	for (i = 0; i < n; i++) {
		feed_fork(d, parent, first + i);
		if (va)
			feed_mmap(d, first + i, va, PAGE, i * PAGE, "/lib/child.so");
	}
}

static void check_forks(struct driver *d, int parent, int first, int n, uint64_t va)
{
	struct ustack_frame want, got;
	int i;

	ustack_map_history_map(d->h, parent, va + PAGE, &want);
	for (i = 0; i < n; i++) {
		ustack_map_history_map(d->h, first + i, va + PAGE, &got);
		if (!maps_to(d, first + i, va, "/lib/child.so", i * PAGE) ||
		    got.map != want.map || got.offset != want.offset || got.id != want.id) {
			fail(d, "check-forks: a child's mappings are wrong", first + i, va);
			return;
		}
	}
	printf("check-forks ok %d\n", n);
}

static const char *const random_paths[] = {
	"/lib/a.so", "/lib/b.so", "/lib/c.so", "/usr/bin/d", "//anon",
};

static void random_op(struct driver *d)
{
	int pid = 1 + rnd(d) % RANDOM_PIDS, other = 1 + rnd(d) % RANDOM_PIDS;
	uint64_t r = rnd(d) % 100, pages;

	if (r < 70) {
		/* mostly small, now and then over many others */
		pages = rnd(d) % 20 ? 1 + rnd(d) % 12 : 1 + rnd(d) % 120;
		feed_mmap(d, pid, (rnd(d) % 200) * PAGE, pages * PAGE, (rnd(d) % 64) * PAGE,
			  random_paths[rnd(d) % 5]);
	} else if (r < 88) {
		/* a fork; to itself: a thread, which shares */
		feed_fork(d, pid, other);
	} else if (r < 94) {
		feed_exec(d, pid);
	}
	/* else only look */
}

static void random_run(struct driver *d, uint64_t seed, unsigned long ops)
{
	unsigned long i;

	d->model = true;
	d->rnd = seed ? seed : 1;
	for (i = 0; i < ops && !d->failed; i++) {
		random_op(d);
		check(d);
	}
	if (!d->failed)
		printf("random ok %lu\n", ops);
}

/* ------------------------------------------------------------------ */
/* The script                                                         */
/* ------------------------------------------------------------------ */

static uint64_t num(struct driver *d, const char *s)
{
	char *end;
	uint64_t v;

	if (!s)
		die(d, "missing number");
	v = strtoull(s, &end, 0);
	if (end == s || *end)
		die(d, "bad number");
	return v;
}

static void do_sb(struct driver *d, char *rest)
{
	struct ustack_sb_rec r;
	char *text, *sp;
	uint64_t ts;

	sp = strchr(rest, ' ');
	if (!sp)
		die(d, "sb TS TEXT");
	*sp = '\0';
	ts = num(d, rest);
	if (asprintf(&text, USTACK_SB_MARKER "%s", sp + 1) < 0)
		die(d, "out of memory");
	if (ustack_sideband_parse(text, ts, &r))
		die(d, "bad side-band record");
	if (r.kind == USTACK_SB_MMAP && d->model)
		r.name = model_name(r.name);
	feed(d, &r);
	free(text);
}

static void do_map(struct driver *d, int pid, uint64_t va)
{
	struct ustack_frame fr;

	ustack_map_history_map(d->h, pid, va, &fr);
	printf("map %d %#" PRIx64 " -> ", pid, va);
	if (fr.map)
		printf("%#" PRIx64 " %s\n", fr.offset, fr.map->path);
	else
		printf("%s\n", fr.id == USTACK_ID_ANON ? "anon" : "nomap");
}

static void do_procmaps(struct driver *d)
{
	char **opts = ustack_map_history_procmaps(d->h);
	size_t i;

	if (!opts)
		die(d, "ustack_map_history_procmaps() failed");
	for (i = 0; opts[i]; i++) {
		printf("%s", opts[i]);
		free(opts[i]);
	}
	free(opts);
}

static void command(struct driver *d, char *line)
{
	char *w[8] = { 0 }, *save = NULL, *rest;
	int n = 0;

	if (!strncmp(line, "sb ", 3)) {
		do_sb(d, line + 3);
		return;
	}
	for (rest = strtok_r(line, " \t", &save); rest && n < 8; rest = strtok_r(NULL, " \t", &save))
		w[n++] = rest;
	if (!n)
		return;
	if (!strcmp(w[0], "model"))
		d->model = true;
	else if (!strcmp(w[0], "map"))
		do_map(d, num(d, w[1]), num(d, w[2]));
	else if (!strcmp(w[0], "many"))
		many(d, num(d, w[1]), num(d, w[2]), num(d, w[3]), num(d, w[4]), num(d, w[5]));
	else if (!strcmp(w[0], "check-many"))
		check_many(d, num(d, w[1]), num(d, w[2]), num(d, w[3]), num(d, w[4]),
			   num(d, w[5]));
	else if (!strcmp(w[0], "splits"))
		splits(d, num(d, w[1]), num(d, w[2]), num(d, w[3]));
	else if (!strcmp(w[0], "forks"))
		forks(d, num(d, w[1]), num(d, w[2]), num(d, w[3]), w[4] ? num(d, w[4]) : 0);
	else if (!strcmp(w[0], "check-forks"))
		check_forks(d, num(d, w[1]), num(d, w[2]), num(d, w[3]), num(d, w[4]));
	else if (!strcmp(w[0], "check")) {
		size_t ranges = check(d);

		if (!d->failed)
			printf("check ok %zu %zu\n", d->nr_spaces, ranges);
	} else if (!strcmp(w[0], "random"))
		random_run(d, num(d, w[1]), num(d, w[2]));
	else if (!strcmp(w[0], "procmaps"))
		do_procmaps(d);
	else if (!strcmp(w[0], "work"))
		printf("work %" PRIu64 "\n", ustack_map_history_work(d->h));
	else
		die(d, "unknown command");
}

int main(int argc, char **argv)
{
	static struct driver d;
	FILE *in = stdin;
	char *line = NULL, *c;
	size_t size = 0;
	size_t i;

	if (argc > 2) {
		fprintf(stderr, "usage: ustack-mapset-test [SCRIPT]\n");
		return 2;
	}
	if (argc == 2 && !(in = fopen(argv[1], "r"))) {
		perror(argv[1]);
		return 2;
	}
	d.h = ustack_map_history_new();
	if (!d.h)
		return 2;
	while (getline(&line, &size, in) >= 0) {
		d.line++;
		c = strchr(line, '#');
		if (c)
			*c = '\0';
		c = line + strlen(line);
		while (c > line && (c[-1] == '\n' || c[-1] == ' ' || c[-1] == '\t'))
			*--c = '\0';
		command(&d, line);
		fflush(stdout);
	}
	free(line);
	ustack_map_history_free(d.h);
	for (i = 0; i < d.nr_spaces; i++)
		free(d.spaces[i].r);
	if (in != stdin)
		fclose(in);
	return d.failed;
}
