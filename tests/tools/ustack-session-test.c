// SPDX-License-Identifier: GPL-2.0
/*
 * Unit driver for the session and the output layer: builds a real tep
 * from format files, turns a small text script into binary records and
 * feeds them to a session, printing what comes out.
 *
 * usage: ustack-session-test [options] SCRIPT
 *
 *   --dump          one machine-friendly line per sample (default)
 *   --stacks        stacks output (report line + frames)
 *   --folded        folded output
 *   --perf-script   perf-script output
 *   --raw --kernel --lines --why --skip-empty --fold-pid --fold-event
 *   --pid N         filter (repeatable)     --comm NAME  filter (repeatable)
 *   --ordered       session hands samples out in event order
 *   --live          the session as a live capture runs it (opts.live: an
 *                   event's wait for its cookie ends by the feed's time;
 *                   tasks are learned from /proc)
 *   --hold NS       session hold time      --max-pending N
 *   --stats         print "stats: key=value ..." at the end
 *   --summary       print the human summary at the end
 *   --procmaps      print the PROCMAPS payloads at the end, sorted by pid
 *   --resolver      symbolize with the real resolver (else `sym` lines)
 *
 * Script lines ('#' starts a comment):
 *   format SYSTEM FILE          parse an event format file
 *   comm PID NAME               register a task name
 *   tgid PID TGID               tell the session the thread group
 *   follow TGID                 ustack_session_follow()
 *   helpers exec,newtask,rename events the capture enabled for itself
 *   ksym ADDR NAME              kernel symbol (for --kernel)
 *   sym PATH START SIZE NAME[,OUTER...]
 *                               fake symbol: NAME inlined into OUTER...
 *   maps TGID TS                /proc/<tgid>/maps snapshot, lines up to "end"
 *   marker                      one trace_marker text, lines up to "end", read
 *                               as report reads them (ustack_map_procmaps_reader)
 *   lost CPU N                  ustack_session_add_lost()
 *   advance TS                  ustack_session_advance()
 *   flush                       ustack_session_flush() (also done at the end)
 *   CPU TS PID EVENT [FIELD=VALUE ...] [missed=N]
 *                               one record; VALUE: number, list a,b,c for
 *                               arrays, text for char[] ("\s" is a blank),
 *                               hex for u8[]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack-events.h"
#include "ustack-session.h"
#include "ustack-output.h"
#include "ustack-map-procmaps.h"
#include "ustack-render.h"
#include "ustack-resolve.h"

static const char *status_names[] = {
	[USTACK_SAMPLE_OK]		= "OK",
	[USTACK_SAMPLE_NO_STACK]	= "NO_STACK",
	[USTACK_SAMPLE_LOST]		= "LOST",
	[USTACK_SAMPLE_NO_COOKIE]	= "NO_COOKIE",
	[USTACK_SAMPLE_SYNC]		= "SYNC",
};

struct fake_sym {
	char		*path;
	uint64_t	start;
	uint64_t	size;
	char		*names[8];
	int		nr_names;
};

struct driver {
	struct tep_handle	*tep;
	struct ustack_events	*events;
	struct ustack_session	*session;
	struct ustack_session_opts sopts;
	struct ustack_render	*render;
	struct ustack_output	*out;
	struct ustack_output_opts oopts;
	struct ustack_resolver	*resolver;
	struct ustack_map_procmaps_reader *maps;
	bool			dump;
	bool			stats;
	bool			summary;
	bool			procmaps;
	bool			use_resolver;
	struct fake_sym		*syms;
	int			nr_syms;
	int			pids[64];
	const char		*comms[64];
	int			line;
	const char		*script;
};

static void die(struct driver *d, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", d->script, d->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static uint64_t num(struct driver *d, const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		die(d, "bad number '%s'", s);
	return v;
}

/* ------------------------------------------------------------------ */
/* Fake symbolizer                                                    */
/* ------------------------------------------------------------------ */

static int fake_lookup(void *ctx, const struct ustack_mapping *map, uint64_t offset,
		       bool return_address, struct ustack_sym *out, int max)
{
	struct driver *d = ctx;
	uint64_t addr = return_address && offset ? offset - 1 : offset;
	struct fake_sym *fs;
	int i, j;

	for (i = 0; i < d->nr_syms; i++) {
		fs = &d->syms[i];
		if (strcmp(fs->path, map->path) || addr < fs->start ||
		    addr >= fs->start + fs->size)
			continue;
		for (j = 0; j < fs->nr_names && j < max; j++) {
			memset(&out[j], 0, sizeof(out[j]));
			out[j].name = fs->names[j];
			out[j].sym_off = offset - fs->start;
			out[j].inlined = j < fs->nr_names - 1;
			out[j].file = "fake.c";
			out[j].line = 10 + j;
		}
		return j;
	}
	return -USTACK_UNRES_NO_SYMBOL;
}

static const char *fake_dso_name(void *ctx, const struct ustack_mapping *map)
{
	const char *p = strrchr(map->path, '/');

	return p ? p + 1 : map->path;
}

static void add_sym(struct driver *d, char **tok, int n)
{
	struct fake_sym *fs;
	char *save = NULL, *name;

	if (n != 5)
		die(d, "sym PATH START SIZE NAME[,OUTER...]");
	d->syms = realloc(d->syms, (d->nr_syms + 1) * sizeof(*d->syms));
	fs = &d->syms[d->nr_syms++];
	memset(fs, 0, sizeof(*fs));
	fs->path = strdup(tok[1]);
	fs->start = num(d, tok[2]);
	fs->size = num(d, tok[3]);
	for (name = strtok_r(tok[4], ",", &save); name && fs->nr_names < 8;
	     name = strtok_r(NULL, ",", &save))
		fs->names[fs->nr_names++] = strdup(name);
}

static void free_syms(struct driver *d)
{
	int i, j;

	for (i = 0; i < d->nr_syms; i++) {
		free(d->syms[i].path);
		for (j = 0; j < d->syms[i].nr_names; j++)
			free(d->syms[i].names[j]);
	}
	free(d->syms);
}

/* ------------------------------------------------------------------ */
/* Output of samples                                                  */
/* ------------------------------------------------------------------ */

static void dump_frame(const struct ustack_frame *fr)
{
	/* ustack.h: a frame bound to a file carries that file's id, never 0 or 1 */
	if (fr->map && (fr->id != fr->map->id || fr->id == USTACK_ID_ANON ||
			fr->id == USTACK_ID_NOMAP))
		printf("BAD-ID(0x%" PRIx64 ")", fr->id);
	if (fr->map && fr->map->flags)
		printf("0x%" PRIx64 ":%s[flags=0x%x]", fr->offset, fr->map->path,
		       fr->map->flags);
	else if (fr->map)
		printf("0x%" PRIx64 ":%s", fr->offset, fr->map->path);
	else if (fr->id == USTACK_ID_ANON)
		printf("0x%" PRIx64 ":anon", fr->offset);
	else if (fr->id == USTACK_ID_NOMAP)
		printf("0x%" PRIx64 ":nomap", fr->offset);
	else
		printf("0x%" PRIx64 ":id=0x%" PRIx64, fr->offset, fr->id);
}

static void dump_sample(const struct ustack_sample *s)
{
	unsigned int i;

	printf("sample ts=%" PRIu64 " cpu=%d pid=%d tgid=%d comm=%s event=%s status=%s",
	       s->ts, s->cpu, s->pid, s->tgid, s->comm ? s->comm : "-",
	       s->event ? s->event->name : "-", status_names[s->status]);
	if (s->cookie)
		printf(" cookie=0x%" PRIx64, s->cookie);
	if (s->stack_flags)
		printf(" flags=0x%x", s->stack_flags);
	if (s->nr_kframes) {
		printf(" kframes=");
		for (i = 0; i < s->nr_kframes; i++)
			printf("%s0x%" PRIx64, i ? "," : "", s->kframes[i]);
	}
	printf(" frames=");
	for (i = 0; i < s->nr_frames; i++) {
		if (i)
			putchar(',');
		dump_frame(&s->frames[i]);
	}
	if (!s->nr_frames)
		putchar('-');
	/* the record handed out must be a usable copy of the event */
	if (!s->record || !s->record->data || s->record->size <= 0 ||
	    tep_data_pid(s->event->tep, s->record) != s->pid)
		printf(" BAD-RECORD");
	putchar('\n');
}

static void on_sample(const struct ustack_sample *s, void *ctx)
{
	struct driver *d = ctx;

	if (d->dump)
		dump_sample(s);
	else
		ustack_render_sample(d->render, s);
}

static void print_stats(const struct ustack_stats *st)
{
	printf("stats: events=%" PRIu64 " cookies=%" PRIu64 " stacks=%" PRIu64
	       " matched=%" PRIu64 " lost=%" PRIu64 " no_stack=%" PRIu64
	       " pending=%" PRIu64 " truncated=%" PRIu64 " mappings=%" PRIu64
	       " frames=%" PRIu64 " unresolved=%" PRIu64 " rb_lost=%" PRIu64
	       " rb_lost_unknown=%" PRIu64 " no_cookie=%" PRIu64 " sync=%" PRIu64
	       " unmatched=%" PRIu64 " orphans=%" PRIu64 " evicted=%" PRIu64
	       " sideband=%" PRIu64 " sideband_lost=%" PRIu64 " copies_capped=%" PRIu64 "\n",
	       st->events, st->cookies, st->stacks, st->matched, st->lost,
	       st->no_stack, st->pending, st->truncated, st->mappings, st->frames,
	       st->unresolved, st->rb_lost, st->rb_lost_unknown, st->no_cookie,
	       st->sync, st->unmatched, st->orphans, st->evicted, st->sideband,
	       st->sideband_lost, st->copies_capped);
}

/* ------------------------------------------------------------------ */
/* Building records                                                   */
/* ------------------------------------------------------------------ */

struct rbuf {
	unsigned char	*data;
	size_t		fixed;		/* end of the fixed part */
	size_t		len;		/* fixed part + dynamic data */
	size_t		alloc;
};

static void rbuf_reserve(struct rbuf *b, size_t len)
{
	if (len <= b->alloc)
		return;
	b->data = realloc(b->data, len + 64);
	memset(b->data + b->alloc, 0, len + 64 - b->alloc);
	b->alloc = len + 64;
}

static void put_num(struct rbuf *b, size_t off, int size, uint64_t v)
{
	rbuf_reserve(b, off + size);
	/* little-endian host and file */
	memcpy(b->data + off, &v, size);
	if (off + size > b->len)
		b->len = off + size;
}

static size_t fixed_size(struct tep_event *ev)
{
	struct tep_format_field *f;
	size_t end = 0;

	for (f = ev->format.common_fields; f; f = f->next)
		if ((size_t)(f->offset + f->size) > end)
			end = f->offset + f->size;
	for (f = ev->format.fields; f; f = f->next)
		if ((size_t)(f->offset + f->size) > end)
			end = f->offset + f->size;
	return end;
}

/* Parse "a,b,c" into @v; returns the count. */
static int parse_list(struct driver *d, char *s, uint64_t *v, int max)
{
	char *save = NULL, *t;
	int n = 0;

	if (!*s)
		return 0;
	for (t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == max)
			die(d, "too many elements");
		v[n++] = num(d, t);
	}
	return n;
}

static int elem_size(const struct tep_format_field *f)
{
	if (f->elementsize)
		return f->elementsize;
	return 8;
}

static void put_dynamic(struct driver *d, struct rbuf *b, struct tep_format_field *f,
			char *val)
{
	size_t start = b->len;
	uint64_t v[512];
	size_t len = 0;
	int n, i, es;

	if (strstr(f->type, "char")) {
		len = strlen(val) + 1;
		rbuf_reserve(b, start + len);
		memcpy(b->data + start, val, len);
	} else if (strstr(f->type, "u8")) {
		len = strlen(val) / 2;
		rbuf_reserve(b, start + len);
		for (i = 0; i < (int)len; i++) {
			unsigned int byte;

			if (sscanf(val + 2 * i, "%2x", &byte) != 1)
				die(d, "bad hex '%s'", val);
			b->data[start + i] = byte;
		}
	} else {
		n = parse_list(d, val, v, 512);
		es = elem_size(f);
		if (es > 8 || es < 1)
			es = 8;
		for (i = 0; i < n; i++)
			put_num(b, start + (size_t)i * es, es, v[i]);
		len = (size_t)n * es;
	}
	b->len = start + len;
	put_num(b, f->offset, 4, (uint64_t)(len << 16) | start);
	if (b->len < start + len)
		b->len = start + len;
}

/* Text into a char array of the fixed part (print's buf[], comm[16]) */
static void put_text(struct rbuf *b, struct tep_format_field *f, const char *val)
{
	size_t off = f->offset, i;

	for (i = 0; val[i]; i++) {
		rbuf_reserve(b, off + 1);
		if (val[i] == '\\' && val[i + 1] == 's') {
			b->data[off++] = ' ';
			i++;
		} else {
			b->data[off++] = val[i];
		}
	}
	rbuf_reserve(b, off + 1);
	b->data[off++] = '\0';
	if (off > b->len)
		b->len = off;
}

static void put_field(struct driver *d, struct rbuf *b, struct tep_format_field *f,
		      char *val)
{
	uint64_t v[512];
	int n, i, es;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		put_dynamic(d, b, f, val);
		return;
	}
	if ((f->flags & TEP_FIELD_IS_ARRAY) && strstr(f->type, "char")) {
		put_text(b, f, val);
		return;
	}
	if (f->flags & TEP_FIELD_IS_ARRAY) {
		/* like kernel_stack, allow more elements than declared */
		n = parse_list(d, val, v, 512);
		es = elem_size(f);
		for (i = 0; i < n; i++)
			put_num(b, f->offset + (size_t)i * es, es, v[i]);
		return;
	}
	put_num(b, f->offset, f->size, num(d, val));
}

static struct tep_event *find_event(struct driver *d, const char *spec)
{
	char *copy = strdup(spec), *colon = strchr(copy, ':');
	struct tep_event *ev;

	if (colon) {
		*colon = '\0';
		ev = tep_find_event_by_name(d->tep, copy, colon + 1);
	} else {
		ev = tep_find_event_by_name(d->tep, NULL, copy);
	}
	free(copy);
	if (!ev)
		die(d, "unknown event '%s'", spec);
	return ev;
}

static void feed_record(struct driver *d, char **tok, int n)
{
	struct tep_format_field *f;
	struct rbuf b = { 0 };
	struct tep_record rec;
	struct tep_event *ev;
	long long missed = 0;
	char *eq;
	int i;

	if (n < 4)
		die(d, "record: CPU TS PID EVENT [FIELD=VALUE ...]");
	ev = find_event(d, tok[3]);
	b.fixed = fixed_size(ev);
	rbuf_reserve(&b, b.fixed);
	b.len = b.fixed;
	put_num(&b, tep_find_common_field(ev, "common_type")->offset, 2, ev->id);
	put_num(&b, tep_find_common_field(ev, "common_pid")->offset, 4, num(d, tok[2]));
	/* empty dynamic fields still need a valid location */
	for (f = ev->format.fields; f; f = f->next)
		if (f->flags & TEP_FIELD_IS_DYNAMIC)
			put_num(&b, f->offset, 4, b.fixed);
	for (i = 4; i < n; i++) {
		eq = strchr(tok[i], '=');
		if (!eq)
			die(d, "expected FIELD=VALUE, got '%s'", tok[i]);
		*eq = '\0';
		if (!strcmp(tok[i], "missed")) {
			missed = strtoll(eq + 1, NULL, 0);
			continue;
		}
		f = tep_find_field(ev, tok[i]);
		if (!f)
			die(d, "event %s has no field '%s'", ev->name, tok[i]);
		put_field(d, &b, f, eq + 1);
	}
	memset(&rec, 0, sizeof(rec));
	rec.cpu = num(d, tok[0]);
	rec.ts = num(d, tok[1]);
	rec.missed_events = missed;
	rec.size = (b.len + 3) & ~3UL;
	rbuf_reserve(&b, rec.size);
	rec.record_size = rec.size + 4;
	rec.ref_count = 1;
	rec.data = b.data;
	if (ustack_session_feed(d->session, &rec))
		die(d, "feed failed");
	/* the session may not keep pointers into the record */
	memset(b.data, 0xa5, b.alloc);
	free(b.data);
}

/* ------------------------------------------------------------------ */
/* Script                                                             */
/* ------------------------------------------------------------------ */

static char *read_file(const char *path, size_t *size)
{
	FILE *fp = fopen(path, "r");
	char *buf = NULL;
	size_t alloc = 0, len = 0, n;

	if (!fp)
		return NULL;
	do {
		if (len + 4096 > alloc) {
			alloc = alloc ? alloc * 2 : 8192;
			buf = realloc(buf, alloc);
		}
		n = fread(buf + len, 1, alloc - len - 1, fp);
		len += n;
	} while (n > 0);
	fclose(fp);
	buf[len] = '\0';
	*size = len;
	return buf;
}

static void load_format(struct driver *d, const char *sys, const char *path)
{
	struct tep_event *ev = NULL;
	size_t size;
	char *buf = read_file(path, &size);

	if (!buf)
		die(d, "cannot read %s", path);
	if (tep_parse_format(d->tep, &ev, buf, size, sys))
		die(d, "cannot parse %s", path);
	free(buf);
}

static void start_session(struct driver *d)
{
	if (d->session)
		return;
	d->events = ustack_events_new(d->tep);
	if (!d->events)
		die(d, "cannot find our events");
	d->session = ustack_session_new(d->events, &d->sopts, on_sample, d);
	if (!d->session)
		die(d, "cannot create session");
}

static int split(char *line, char **tok, int max)
{
	char *save = NULL, *t;
	int n = 0;

	for (t = strtok_r(line, " \t\n", &save); t && n < max;
	     t = strtok_r(NULL, " \t\n", &save))
		tok[n++] = t;
	return n;
}

/* The script's lines up to "end", joined (NULL when there are none). */
static char *read_block(struct driver *d, FILE *fp)
{
	char line[1024], *text = NULL;
	size_t len = 0, l;

	while (fgets(line, sizeof(line), fp)) {
		d->line++;
		if (!strncmp(line, "end", 3))
			break;
		l = strlen(line);
		text = realloc(text, len + l + 1);
		if (!text)
			die(d, "out of memory");
		memcpy(text + len, line, l + 1);
		len += l;
	}
	return text;
}

static void read_maps_block(struct driver *d, FILE *fp, int tgid, uint64_t ts)
{
	char *text = read_block(d, fp);

	start_session(d);
	if (ustack_session_add_maps(d->session, tgid, ts, text ? text : ""))
		die(d, "add_maps failed");
	free(text);
}

static void add_marker_maps(int tgid, uint64_t ts, const char *text, void *data)
{
	struct driver *d = data;

	if (ustack_session_add_maps(d->session, tgid, ts, text))
		die(d, "add_maps failed");
}

/* A marker text goes through the reader report uses on a trace.dat. */
static void read_marker_block(struct driver *d, FILE *fp)
{
	char *text = read_block(d, fp);

	start_session(d);
	if (!d->maps)
		d->maps = ustack_map_procmaps_reader_new(add_marker_maps, d);
	if (!d->maps)
		die(d, "out of memory");
	ustack_map_procmaps_reader_feed(d->maps, text ? text : "");
	free(text);
}

static void run_line(struct driver *d, FILE *fp, char *line)
{
	char *tok[64], *hash = strchr(line, '#');
	int n;

	if (hash)
		*hash = '\0';
	n = split(line, tok, 64);
	if (!n)
		return;
	if (!strcmp(tok[0], "format")) {
		if (n != 3)
			die(d, "format SYSTEM FILE");
		load_format(d, tok[1], tok[2]);
		return;
	}
	if (!strcmp(tok[0], "comm") && n == 3) {
		tep_register_comm(d->tep, tok[2], num(d, tok[1]));
		return;
	}
	if (!strcmp(tok[0], "ksym") && n == 3) {
		tep_register_function(d->tep, tok[2], num(d, tok[1]), NULL);
		return;
	}
	if (!strcmp(tok[0], "sym")) {
		add_sym(d, tok, n);
		return;
	}
	start_session(d);
	if (!strcmp(tok[0], "tgid") && n == 3)
		ustack_session_set_tgid(d->session, num(d, tok[1]), num(d, tok[2]));
	else if (!strcmp(tok[0], "follow") && n == 2)
		ustack_session_follow(d->session, num(d, tok[1]));
	else if (!strcmp(tok[0], "helpers") && n == 2)
		ustack_events_set_helpers(d->events,
					  (strstr(tok[1], "exec") ? USTACK_HELPER_EXEC : 0) |
					  (strstr(tok[1], "newtask") ? USTACK_HELPER_NEWTASK : 0) |
					  (strstr(tok[1], "rename") ? USTACK_HELPER_RENAME : 0));
	else if (!strcmp(tok[0], "maps") && n == 3)
		read_maps_block(d, fp, num(d, tok[1]), num(d, tok[2]));
	else if (!strcmp(tok[0], "marker") && n == 1)
		read_marker_block(d, fp);
	else if (!strcmp(tok[0], "lost") && n == 3)
		ustack_session_add_lost(d->session, num(d, tok[1]), num(d, tok[2]));
	else if (!strcmp(tok[0], "advance") && n == 2)
		ustack_session_advance(d->session, num(d, tok[1]));
	else if (!strcmp(tok[0], "flush") && n == 1)
		ustack_session_flush(d->session);
	else
		feed_record(d, tok, n);
}

static void run_script(struct driver *d)
{
	FILE *fp = fopen(d->script, "r");
	char line[8192];

	if (!fp) {
		perror(d->script);
		exit(2);
	}
	while (fgets(line, sizeof(line), fp)) {
		d->line++;
		run_line(d, fp, line);
	}
	fclose(fp);
	start_session(d);
	ustack_session_flush(d->session);
}

/* ------------------------------------------------------------------ */
/* main                                                               */
/* ------------------------------------------------------------------ */

enum {
	OPT_DUMP = 256, OPT_STACKS, OPT_FOLDED, OPT_PERF, OPT_RAW, OPT_KERNEL,
	OPT_LINES, OPT_WHY, OPT_SKIP_EMPTY, OPT_FOLD_PID, OPT_FOLD_EVENT, OPT_PID,
	OPT_COMM, OPT_ORDERED, OPT_LIVE, OPT_HOLD, OPT_MAX_PENDING, OPT_STATS,
	OPT_SUMMARY, OPT_RESOLVER, OPT_PROCMAPS,
};

static int cmp_payload(const void *a, const void *b)
{
	int x = strtol(*(char * const *)a, NULL, 16), y = strtol(*(char * const *)b, NULL, 16);

	return (x > y) - (x < y);
}

/* What record writes as trace-cmd's PROCMAPS options, in pid order. */
static void print_procmaps(struct driver *d)
{
	char **opts = ustack_session_procmaps(d->session);
	size_t i, n = 0;

	if (!opts)
		die(d, "procmaps failed");
	while (opts[n])
		n++;
	qsort(opts, n, sizeof(*opts), cmp_payload);
	for (i = 0; i < n; i++) {
		printf("procmaps %s", opts[i]);
		free(opts[i]);
	}
	free(opts);
}

static const struct option long_opts[] = {
	{ "dump",	 no_argument,	    NULL, OPT_DUMP },
	{ "stacks",	 no_argument,	    NULL, OPT_STACKS },
	{ "folded",	 no_argument,	    NULL, OPT_FOLDED },
	{ "perf-script", no_argument,	    NULL, OPT_PERF },
	{ "raw",	 no_argument,	    NULL, OPT_RAW },
	{ "kernel",	 no_argument,	    NULL, OPT_KERNEL },
	{ "lines",	 no_argument,	    NULL, OPT_LINES },
	{ "skip-empty",	 no_argument,	    NULL, OPT_SKIP_EMPTY },
	{ "why",	 no_argument,	    NULL, OPT_WHY },
	{ "fold-pid",	 no_argument,	    NULL, OPT_FOLD_PID },
	{ "fold-event",	 no_argument,	    NULL, OPT_FOLD_EVENT },
	{ "pid",	 required_argument, NULL, OPT_PID },
	{ "comm",	 required_argument, NULL, OPT_COMM },
	{ "ordered",	 no_argument,	    NULL, OPT_ORDERED },
	{ "live",	 no_argument,	    NULL, OPT_LIVE },
	{ "hold",	 required_argument, NULL, OPT_HOLD },
	{ "max-pending", required_argument, NULL, OPT_MAX_PENDING },
	{ "stats",	 no_argument,	    NULL, OPT_STATS },
	{ "summary",	 no_argument,	    NULL, OPT_SUMMARY },
	{ "procmaps",	 no_argument,	    NULL, OPT_PROCMAPS },
	{ "resolver",	 no_argument,	    NULL, OPT_RESOLVER },
	{ NULL, 0, NULL, 0 }
};

static void parse_args(struct driver *d, int argc, char **argv)
{
	int c;

	d->dump = true;
	while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_DUMP:	d->dump = true; break;
		case OPT_STACKS: d->dump = false; d->oopts.mode = USTACK_OUTPUT_STACKS; break;
		case OPT_FOLDED: d->dump = false; d->oopts.mode = USTACK_OUTPUT_FOLDED; break;
		case OPT_PERF:	d->dump = false; d->oopts.mode = USTACK_OUTPUT_PERF_SCRIPT; break;
		case OPT_RAW:	d->oopts.raw = true; break;
		case OPT_KERNEL: d->oopts.kernel = true; d->sopts.want_kernel = true; break;
		case OPT_LINES:	d->oopts.lines = true; break;
		case OPT_SKIP_EMPTY: d->oopts.skip_empty = true; break;
		case OPT_WHY:	d->oopts.why = true; break;
		case OPT_FOLD_PID: d->oopts.fold_pid = true; break;
		case OPT_FOLD_EVENT: d->oopts.fold_event = true; break;
		case OPT_PID:
			if (d->sopts.nr_pids < 64)
				d->pids[d->sopts.nr_pids++] = atoi(optarg);
			break;
		case OPT_COMM:
			if (d->sopts.nr_comms < 64)
				d->comms[d->sopts.nr_comms++] = optarg;
			break;
		case OPT_ORDERED: d->sopts.ordered = true; break;
		case OPT_LIVE: d->sopts.live = true; break;
		case OPT_HOLD:	d->sopts.hold_ns = strtoull(optarg, NULL, 0); break;
		case OPT_MAX_PENDING: d->sopts.max_pending = strtoull(optarg, NULL, 0); break;
		case OPT_STATS:	d->stats = true; break;
		case OPT_SUMMARY: d->summary = true; break;
		case OPT_PROCMAPS: d->procmaps = true; break;
		case OPT_RESOLVER: d->use_resolver = true; break;
		default:
			fprintf(stderr, "usage: %s [options] SCRIPT\n", argv[0]);
			exit(2);
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: %s [options] SCRIPT\n", argv[0]);
		exit(2);
	}
	d->script = argv[optind];
	d->sopts.pids = d->pids;
	d->sopts.comms = d->comms;
}

int main(int argc, char **argv)
{
	struct ustack_resolver_opts ropts = { 0 };
	struct ustack_render_opts ropts_render = { 0 };
	struct ustack_consumer consumer;
	struct ustack_symbolizer fake = {
		.lookup = fake_lookup,
		.dso_name = fake_dso_name,
	};
	struct driver d = { 0 };

	parse_args(&d, argc, argv);
	d.tep = tep_alloc();
	if (!d.tep)
		return 2;
	tep_set_file_bigendian(d.tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(d.tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(d.tep, 8);
	tep_set_page_size(d.tep, 4096);

	if (d.use_resolver) {
		ropts.lines = d.oopts.lines;
		ropts.inlines = true;
		d.resolver = ustack_resolver_new(&ropts);
	}
	ropts_render.raw = d.oopts.raw;
	ropts_render.kernel = d.oopts.kernel;
	ropts_render.skip_empty = d.oopts.skip_empty;
	d.render = ustack_render_new(d.tep, d.resolver, &ropts_render);
	d.out = ustack_output_new(d.tep, &d.oopts, stdout);
	if (!d.out || !d.render)
		return 2;
	if (!d.use_resolver) {
		fake.ctx = &d;
		ustack_render_set_symbolizer(d.render, &fake);
	}
	ustack_output_consumer(d.out, &consumer);
	ustack_render_attach(d.render, &consumer);

	run_script(&d);
	if (!d.dump)
		ustack_render_finish(d.render);
	if (d.stats)
		print_stats(ustack_session_stats(d.session));
	if (d.summary)
		ustack_output_summary(d.dump ? NULL : d.render, stdout, ustack_session_stats(d.session));
	if (d.procmaps)
		print_procmaps(&d);

	free_syms(&d);
	ustack_map_procmaps_reader_free(d.maps);
	ustack_session_free(d.session);
	ustack_events_free(d.events);
	ustack_render_free(d.render);
	ustack_output_free(d.out);
	ustack_resolver_free(d.resolver);
	tep_free(d.tep);
	return 0;
}
