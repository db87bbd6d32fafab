// SPDX-License-Identifier: LGPL-2.1
/*
 * The text printer: a consumer of the render stage (ustack-render.h) that
 * prints each sample's frames in one of three modes (trace-cmd report
 * style stacks, folded stacks, perf-script text); and the summary. Every
 * string of the trace (task names, event lines, symbols, paths) is
 * written escaped for a terminal (ustack-text.h); folded lines are
 * escaped by lib/ustack-fold.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "ustack-events.h"
#include "ustack-output.h"
#include "ustack-perf-source.h"
#include "ustack-render.h"
#include "ustack-render-int.h"
#include "ustack-syscalls.h"
#include "ustack-fold.h"
#include "ustack-array.h"
#include "ustack-hash.h"
#include "ustack-text.h"
#include "ustack-unwind.h"

struct ustack_output {
	struct tep_handle		*tep;
	struct ustack_output_opts	opts;
	FILE				*fp;
	struct ustack_fold		*fold;
	struct trace_seq		seq;
	const struct rframe		*rf;		/* of the sample printed */
	size_t				nr_rf;
	char				pathbuf[4096];
	struct ustack_htable		lines;		/* struct fold_memo */
	struct ustack_fold_line		*fold_line;	/* of the last sample */
	bool				memo_ok;	/* its key is built */
	uint64_t			memo_hash;
	uint64_t			*key;		/* the sample's, being built */
	size_t				key_len;
	size_t				key_alloc;
};

/*
 * Folded mode: a stack met before is only counted again, not rendered.
 * The same frames (mapping and offset), kernel frames, root and note
 * make the same line. Mappings live as long as the session (their owners
 * free them only with it), so their addresses name them. Only stacks
 * whose frames all resolved, none through a JIT map (which may grow while
 * live), are remembered: the summary's counts come out the same.
 */
struct fold_memo {
	struct ustack_hnode	node;
	struct ustack_fold_line	*line;
	unsigned int		frames;		/* user frames it shows */
	size_t			len;
	uint64_t		key[];
};

/**
 * ustack_output_new - create a printer
 * @tep:	handle of the trace (event lines of stacks mode)
 * @opts:	what to print, NULL for defaults (stacks mode)
 * @fp:		where to print
 *
 * It prints what the render stage gives it once attached there
 * (ustack_output_consumer()). Returns NULL on allocation failure.
 */
struct ustack_output *ustack_output_new(struct tep_handle *tep,
					const struct ustack_output_opts *opts,
					FILE *fp)
{
	struct ustack_output *o;

	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->tep = tep;
	o->fp = fp;
	if (opts)
		o->opts = *opts;
	if (o->opts.mode == USTACK_OUTPUT_FOLDED) {
		o->fold = ustack_fold_new();
		if (!o->fold) {
			free(o);
			return NULL;
		}
	}
	trace_seq_init(&o->seq);
	return o;
}

static void memo_free(struct ustack_output *o)
{
	struct ustack_hnode *pos, *tmp;
	size_t i;

	ustack_hash_table_for_each_safe(&o->lines, i, pos, tmp)
		free(ustack_hash_table_entry(pos, struct fold_memo, node));
	ustack_hash_table_release(&o->lines);
	free(o->key);
}

/**
 * ustack_output_free - free a printer (after ustack_render_finish())
 * @o: the printer (may be NULL)
 */
void ustack_output_free(struct ustack_output *o)
{
	if (!o)
		return;
	memo_free(o);
	ustack_fold_free(o->fold);
	trace_seq_destroy(&o->seq);
	free(o);
}

/* ------------------------------------------------------------------ */
/* Stacks mode                                                        */
/* ------------------------------------------------------------------ */

/* A string of the trace, escaped */
static void put(struct ustack_output *o, const char *s)
{
	ustack_text_fput(o->fp, s, USTACK_TEXT_TERM);
}

/*
 * The event's part of its line: CPU, time, name and fields; a system call
 * shown by its name (ustack-syscalls.h) keeps raw_syscalls:sys_enter's
 * fields (NR and arguments)
 */
static void print_event(struct ustack_output *o, const struct ustack_sample *s)
{
	if (!ustack_syscalls_origin(s->event)) {
		tep_print_event(o->tep, &o->seq, s->record, "[%03d] %6.1000d: %s: %s",
				TEP_PRINT_CPU, TEP_PRINT_TIME, TEP_PRINT_NAME, TEP_PRINT_INFO);
		return;
	}
	tep_print_event(o->tep, &o->seq, s->record, "[%03d] %6.1000d: ",
			TEP_PRINT_CPU, TEP_PRINT_TIME);
	trace_seq_printf(&o->seq, "%s: ", s->event->name);
	tep_print_event(o->tep, &o->seq, s->record, "%s", TEP_PRINT_INFO);
}

/*
 * The event line: task name, event and its fields (of the trace, all of
 * it) escaped as a whole.
 */
static void print_header(struct ustack_output *o, const struct ustack_sample *s)
{
	const char *comm = s->comm ? s->comm : "<...>";
	int len = ustack_text_comm_len(comm);

	trace_seq_reset(&o->seq);
	/* a record shorter than its format: its fields are not read */
	if (s->record && ustack_events_record_fits(o->tep, s->event, s->record)) {
		/* the name the task had at the event, not the pid's last one */
		trace_seq_printf(&o->seq, "%16.*s-%-7d ", len, comm, s->pid);
		print_event(o, s);
	} else {
		trace_seq_printf(&o->seq, "%16.*s-%-7d [%03d] %llu.%06llu: %s:",
				 len, comm, s->pid, s->cpu,
				 (unsigned long long)s->ts / 1000000000ULL,
				 (unsigned long long)(s->ts % 1000000000ULL) / 1000,
				 s->event ? s->event->name : "?");
	}
	trace_seq_terminate(&o->seq);
	ustack_text_fput_len(o->fp, o->seq.buffer, o->seq.len, USTACK_TEXT_TERM);
	fputc('\n', o->fp);
}

static void print_rframe_raw(struct ustack_output *o, const struct rframe *rf)
{
	switch (rf->kind) {
	case RF_KERNEL:
		fprintf(o->fp, "  0x%" PRIx64 " ([kernel])\n", rf->addr);
		break;
	case RF_SYM:
	case RF_FILE:
		fprintf(o->fp, "  0x%" PRIx64 " (", rf->addr);
		put(o, rf->path);
		fputs(")\n", o->fp);
		break;
	case RF_UNANNOUNCED:
		fprintf(o->fp, "  0x%" PRIx64 " [id 0x%" PRIx64 "]\n", rf->addr, rf->id);
		break;
	case RF_ADDR:
	case RF_JIT:
		fprintf(o->fp, "  0x%" PRIx64 "\n", rf->addr);
		break;
	}
}

/* The frame's line ends, with its reason when it has one and --why. */
static void end_rframe(struct ustack_output *o, const struct rframe *rf)
{
	const char *origin = o->opts.why ? ustack_render_origin(rf) : NULL;

	if (o->opts.why && rf->why)
		fprintf(o->fp, " # %s", ustack_resolve_unresolved_str(rf->why));
	else if (o->opts.why && rf->no_lines)
		fputs(" # no line: its DWARF is compressed in a way this libelf cannot read",
		      o->fp);
	/* unwound from a stack copy: by the caller's CFI, or its frame pointer */
	if (origin)
		fprintf(o->fp, "%s%s", rf->why || rf->no_lines ? ", " : " # ", origin);
	fputc('\n', o->fp);
}

/* " FILE:LINE" with --lines */
static void print_line(struct ustack_output *o, const struct rframe *rf)
{
	if (!o->opts.lines || !rf->file)
		return;
	fputc(' ', o->fp);
	put(o, rf->file);
	fprintf(o->fp, ":%d", rf->line);
}

static void print_rframe(struct ustack_output *o, const struct rframe *rf)
{
	FILE *fp = o->fp;
	char buf[512];

	if (o->opts.raw) {
		print_rframe_raw(o, rf);
		return;
	}
	switch (rf->kind) {
	case RF_KERNEL:
		/* kallsyms: the trace.dat's own, when it is read */
		if (rf->name) {
			fputs("  ", fp);
			put(o, rf->name);
			fprintf(fp, "+0x%" PRIx64 " ([kernel])\n", rf->sym_off);
		} else {
			fprintf(fp, "  [unknown] 0x%" PRIx64 " ([kernel])\n", rf->addr);
		}
		return;
	case RF_SYM:
		fputs("  ", fp);
		put(o, rf->name);
		if (rf->inlined)
			fputs(" (", fp);
		else
			fprintf(fp, "+0x%" PRIx64 " (", rf->sym_off);
		put(o, rf->dso);
		fputs(rf->inlined ? ") (inlined)" : ")", fp);
		print_line(o, rf);
		end_rframe(o, rf);
		return;
	case RF_JIT:
		fputs("  ", fp);
		put(o, rf->name);
		fprintf(fp, "+0x%" PRIx64 " (", rf->sym_off);
		put(o, rf->dso);
		fputs(")\n", fp);
		return;
	case RF_FILE:
		fputs("  [unknown] (", fp);
		put(o, ustack_render_file_name(rf, buf, sizeof(buf)));
		fputc(')', fp);
		print_line(o, rf);
		end_rframe(o, rf);
		return;
	case RF_UNANNOUNCED:
		fprintf(fp, "  [unknown] [id 0x%" PRIx64 "]+0x%" PRIx64, rf->id, rf->addr);
		end_rframe(o, rf);
		return;
	case RF_ADDR:
		fprintf(fp, "  [unknown] 0x%" PRIx64, rf->addr);
		end_rframe(o, rf);
		return;
	}
}

static void print_stacks(struct ustack_output *o, const struct ustack_sample *s)
{
	const char *note = ustack_render_note(s);
	size_t i;

	print_header(o, s);
	for (i = 0; i < o->nr_rf; i++)
		print_rframe(o, &o->rf[i]);
	if (note)
		fprintf(o->fp, "  %s\n", note);
	if (ustack_render_truncated(s))
		fprintf(o->fp, "  [truncated]\n");
	if (ustack_render_unwind_end(s))
		fprintf(o->fp, "  %s\n", ustack_render_unwind_end(s));
}

/* ------------------------------------------------------------------ */
/* Folded mode                                                        */
/* ------------------------------------------------------------------ */

static void fold_frame(struct ustack_output *o, const struct rframe *rf)
{
	const char *name, *suffix;
	char buf[512];

	name = ustack_render_fold_name(rf, o->opts.raw, buf, sizeof(buf), &suffix);
	ustack_fold_push(o->fold, name, suffix);
}

static void fold_root(struct ustack_output *o, const struct ustack_sample *s)
{
	const char *comm = s->comm ? s->comm : "<...>";
	size_t len = ustack_text_comm_len(comm);
	char buf[16], pid[16];

	if (o->opts.fold_event && s->event)
		ustack_fold_push(o->fold, s->event->name, NULL);
	/* a name the kernel cut inside a character: up to the character */
	if (comm[len]) {
		memcpy(buf, comm, len);
		buf[len] = '\0';
		comm = buf;
	}
	snprintf(pid, sizeof(pid), "-%d", s->pid);
	ustack_fold_push(o->fold, comm, o->opts.fold_pid ? pid : NULL);
}

/* Everything print_folded() makes the line of @s from; -1: no memory */
static int build_key(struct ustack_output *o, const struct ustack_sample *s)
{
	const char *comm = s->comm ? s->comm : "";
	size_t n = strlen(comm), nr = ustack_render_has_stack(s) ? s->nr_frames : 0;
	size_t nr_k = o->opts.kernel ? s->nr_kframes : 0, i;
	uint64_t *k;

	o->key_len = 4 + 3 * nr + nr_k + n / 8 + 1;
	if (ustack_array_grow((void **)&o->key, &o->key_alloc, o->key_len, sizeof(*o->key)))
		return -1;
	k = o->key;
	*k++ = (uint64_t)s->status << 32 | (uint64_t)(uint16_t)s->unwind_end << 1 |
	       ustack_render_truncated(s);
	*k++ = o->opts.fold_pid ? (uint64_t)(unsigned int)s->pid : 0;
	*k++ = o->opts.fold_event ? (uint64_t)(uintptr_t)s->event : 0;
	*k++ = (uint64_t)nr << 32 | nr_k;
	for (i = 0; i < nr; i++) {
		*k++ = (uint64_t)(uintptr_t)s->frames[i].map;
		*k++ = s->frames[i].offset;
		*k++ = s->frames[i].id;
	}
	for (i = 0; i < nr_k; i++)
		*k++ = s->kframes[i];
	/* the comm and its NUL, zero-padded to whole words */
	memset(k, 0, (n / 8 + 1) * sizeof(*k));
	memcpy(k, comm, n);
	return 0;
}

static struct fold_memo *memo_find(struct ustack_output *o, uint64_t hash)
{
	struct ustack_hnode *pos;
	struct fold_memo *m;

	ustack_hash_table_for_each_hash(&o->lines, pos, hash) {
		m = ustack_hash_table_entry(pos, struct fold_memo, node);
		if (m->len == o->key_len && !memcmp(m->key, o->key, o->key_len * sizeof(*o->key)))
			return m;
	}
	return NULL;
}

static void memo_add(struct ustack_output *o, uint64_t hash, struct ustack_fold_line *line,
		     unsigned int frames)
{
	struct fold_memo *m = malloc(sizeof(*m) + o->key_len * sizeof(*o->key));

	if (!m)
		return;
	m->line = line;
	m->frames = frames;
	m->len = o->key_len;
	memcpy(m->key, o->key, o->key_len * sizeof(*o->key));
	if (ustack_hash_table_add(&o->lines, &m->node, hash))
		free(m);
}

/*
 * Root first: comm, [truncated], user frames outermost to leaf (or the
 * note standing in for them), then kernel frames entry to leaf.
 */
static void print_folded(struct ustack_output *o, const struct ustack_sample *s)
{
	const char *note = ustack_render_note(s);
	size_t i, nr_k = 0;

	while (nr_k < o->nr_rf && o->rf[nr_k].kind == RF_KERNEL)
		nr_k++;
	fold_root(o, s);
	if (ustack_render_truncated(s))
		ustack_fold_push(o->fold, "[truncated]", NULL);
	if (ustack_render_unwind_end(s))
		ustack_fold_push(o->fold, ustack_render_unwind_end(s), NULL);
	if (note)
		ustack_fold_push(o->fold, note, NULL);
	for (i = o->nr_rf; i > nr_k; i--)
		fold_frame(o, &o->rf[i - 1]);
	for (i = nr_k; i > 0; i--)
		fold_frame(o, &o->rf[i - 1]);
	o->fold_line = ustack_fold_commit_line(o->fold, 1);
}

/*
 * Folded mode, before rendering (the render stage asks): count @s on the
 * line of the same stack met before. Returns false when it has to be
 * rendered.
 */
static bool fold_counted(void *ctx, const struct ustack_sample *s, unsigned int *frames)
{
	struct ustack_output *o = ctx;
	struct fold_memo *m;

	o->memo_ok = o->opts.mode == USTACK_OUTPUT_FOLDED && !build_key(o, s);
	if (!o->memo_ok)
		return false;
	o->memo_hash = ustack_hash_mem(o->key, o->key_len * sizeof(*o->key), 0);
	m = memo_find(o, o->memo_hash);
	if (!m)
		return false;
	*frames = m->frames;
	ustack_fold_count(m->line, 1);
	return true;
}

/* Folded mode, once rendered: fold @s, and remember its line if it may be */
static void fold_rendered(struct ustack_output *o, const struct ustack_rendered *r)
{
	print_folded(o, r->sample);
	if (o->memo_ok && o->fold_line && r->stable)
		memo_add(o, o->memo_hash, o->fold_line, r->frames);
	o->memo_ok = false;
}

/* ------------------------------------------------------------------ */
/* perf-script mode                                                   */
/* ------------------------------------------------------------------ */

/*
 * The importers read the dso as "(\S*)" at the end of the line: a path
 * with white space in it would make them drop the frame.
 */
static const char *perf_path(struct ustack_output *o, const char *path)
{
	size_t len = strlen(path), i;
	char *p;

	if (!strpbrk(path, " \t"))
		return path;
	if (len + 1 > sizeof(o->pathbuf))
		len = ustack_text_cut(path, sizeof(o->pathbuf) - 1);
	p = o->pathbuf;
	for (i = 0; i < len; i++)
		p[i] = (path[i] == ' ' || path[i] == '\t') ? '_' : path[i];
	p[len] = '\0';
	return p;
}

/*
 * "\tADDR NAME[+0xOFF] (PATH)\n", as fprintf() would print it: the frame
 * lines are most of a report's output, and fprintf() parsing its format
 * for each was a twentieth of a report's time. One thread writes @fp:
 * no lock a character.
 */
static void put_hex(FILE *fp, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char buf[16];
	int i = sizeof(buf);

	do {
		buf[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	fwrite_unlocked(buf + i, 1, sizeof(buf) - i, fp);
}

/* A string of the trace: as it is when it may be, else escaped */
static void put_perf_text(FILE *fp, const char *s)
{
	if (ustack_text_plain(s, USTACK_TEXT_TERM))
		fputs_unlocked(s, fp);
	else
		ustack_text_fput(fp, s, USTACK_TEXT_TERM);
}

static void put_perf_frame(FILE *fp, uint64_t addr, const char *name, const uint64_t *off,
			   const char *path)
{
	putc_unlocked('\t', fp);
	put_hex(fp, addr);
	putc_unlocked(' ', fp);
	put_perf_text(fp, name);
	if (off) {
		fputs_unlocked("+0x", fp);
		put_hex(fp, *off);
	}
	fputs_unlocked(" (", fp);
	put_perf_text(fp, path);
	fputs_unlocked(")\n", fp);
}

static void print_perf_frame(struct ustack_output *o, const struct rframe *rf)
{
	FILE *fp = o->fp;

	switch (rf->kind) {
	case RF_KERNEL:
		if (rf->name && !o->opts.raw)
			put_perf_frame(fp, rf->addr, rf->name, &rf->sym_off, rf->path);
		else
			put_perf_frame(fp, rf->addr, "[unknown]", NULL, rf->path);
		return;
	case RF_SYM:
		put_perf_frame(fp, rf->addr, rf->name, rf->inlined ? NULL : &rf->sym_off,
			       perf_path(o, rf->path));
		return;
	case RF_JIT:
		put_perf_frame(fp, rf->addr, rf->name, &rf->sym_off, "[jit]");
		return;
	case RF_FILE:
		put_perf_frame(fp, rf->addr, "[unknown]", NULL, perf_path(o, rf->path));
		return;
	case RF_UNANNOUNCED:
	case RF_ADDR:
		fprintf(fp, "\t%" PRIx64 " [unknown] ([unknown])\n", rf->addr);
		return;
	}
}

/*
 * `perf script` default layout: "comm pid/tid [cpu] sec.usec: period
 * event:" with the comm at column 0 (the importers' regexes want it), then
 * frames leaf first, then a blank line.
 */
static void print_perf(struct ustack_output *o, const struct ustack_sample *s)
{
	unsigned long long sec = s->ts / 1000000000ULL;
	unsigned long long usec = (s->ts % 1000000000ULL) / 1000;
	const char *comm = s->comm ? s->comm : "<...>";
	size_t i;

	ustack_text_fput_len(o->fp, comm, ustack_text_comm_len(comm), USTACK_TEXT_TERM);
	fprintf(o->fp, " %d/%d [%03d] %llu.%06llu: 1 ", s->tgid > 0 ? s->tgid : s->pid,
		s->pid, s->cpu, sec, usec);
	/* event names are the trace's formats' */
	if (s->event) {
		put(o, s->event->system);
		fputc(':', o->fp);
		put(o, s->event->name);
	} else {
		fputs("unknown", o->fp);
	}
	fputs(":\n", o->fp);
	for (i = 0; i < o->nr_rf; i++)
		print_perf_frame(o, &o->rf[i]);
	/*
	 * As an outermost frame of its own, so that the importers
	 * (stackcollapse-perf, speedscope) keep the mark in their trees
	 */
	if (ustack_render_truncated(s))
		fprintf(o->fp, "\t0 [truncated] ([unknown])\n");
	if (ustack_render_unwind_end(s))
		fprintf(o->fp, "\t0 %s ([unknown])\n", ustack_render_unwind_end(s));
	fputc('\n', o->fp);
}

/* ------------------------------------------------------------------ */
/* Entry points                                                       */
/* ------------------------------------------------------------------ */

/* The render stage's callback: print (or, folded, count) one sample. */
static int output_sample(void *ctx, const struct ustack_rendered *r)
{
	struct ustack_output *o = ctx;

	o->rf = r->rf;
	o->nr_rf = r->nr;
	o->opts.raw = r->raw;
	switch (o->opts.mode) {
	case USTACK_OUTPUT_STACKS:
		print_stacks(o, r->sample);
		break;
	case USTACK_OUTPUT_FOLDED:
		fold_rendered(o, r);
		break;
	case USTACK_OUTPUT_PERF_SCRIPT:
		print_perf(o, r->sample);
		break;
	case USTACK_OUTPUT_NONE:
		break;
	}
	return ferror(o->fp) ? -1 : 0;
}

/* The render stage's callback at the end: what was aggregated (folded). */
static int output_finish(void *ctx)
{
	struct ustack_output *o = ctx;

	if (o->fold && ustack_fold_print(o->fold, o->fp))
		return -1;
	return fflush(o->fp) ? -1 : 0;
}

/**
 * ustack_output_consumer - the printer as a consumer of the render stage
 * @o:	the printer
 * @c:	filled in, for ustack_render_attach()
 */
void ustack_output_consumer(struct ustack_output *o, struct ustack_consumer *c)
{
	c->sample = output_sample;
	c->again = fold_counted;
	c->finish = output_finish;
	c->ctx = o;
}

/* "N of M", and when we symbolized why: " (no file 2, stripped 1)" */
/* The sum of the counts of reasons @first up to @nr */
static uint64_t sum_reasons(const uint64_t *count, int first, int nr)
{
	uint64_t n = 0;
	int why;

	for (why = first; why < nr; why++)
		n += count[why];
	return n;
}

/* " (why N, why N)" of the reasons that have a count, and the line's end */
static void put_reasons(FILE *fp, const uint64_t *count, int first, int nr,
			const char *(*str)(int why))
{
	const char *sep = " (";
	int why;

	for (why = first; why < nr; why++) {
		if (!count[why])
			continue;
		fprintf(fp, "%s%s %" PRIu64, sep, str(why), count[why]);
		sep = ", ";
	}
	fputs(*sep == ',' ? ")\n" : "\n", fp);
}

static const char *unresolved_str(int why)
{
	return ustack_resolve_unresolved_str(why);
}

static const char *unwind_str(int why)
{
	return ustack_unwind_strerror(why);
}

/*
 * Unresolved frames are counted where they were symbolized (@r's frames,
 * with why); a run that symbolized nothing (record) has only its count of
 * the frames delivered: it says that, and report says how many it names.
 */
static void print_unresolved(const struct ustack_render *r, FILE *fp,
			     const struct ustack_stats *st)
{
	const struct ustack_render_counts *c = r ? ustack_render_counts(r) : NULL;

	if (!r) {
		fprintf(fp, "  user frames:          %" PRIu64 "\n", st->frames);
		return;
	}
	if (!c || !c->by_reason) {
		fprintf(fp, "  frames unresolved:    %" PRIu64 " of %" PRIu64 "\n",
			st->unresolved, st->frames);
		return;
	}
	fprintf(fp, "  frames unresolved:    %" PRIu64 " of %" PRIu64,
		sum_reasons(c->unresolved, USTACK_UNRES_NO_FILE, USTACK_UNRES_NR), c->frames);
	put_reasons(fp, c->unresolved, USTACK_UNRES_NO_FILE, USTACK_UNRES_NR, unresolved_str);
}

/*
 * Unwound stacks that stopped before their outermost frame, by why (each
 * ends in that "[unwind: ...]" frame); none: no line.
 */
static void print_unwind_stopped(FILE *fp, const struct ustack_stats *st)
{
	uint64_t n = sum_reasons(st->unwind_stopped, USTACK_UNWIND_OK + 1, USTACK_UNWIND_E_NR);

	if (!n)
		return;
	fprintf(fp, "  unwind stopped:       %" PRIu64, n);
	put_reasons(fp, st->unwind_stopped, USTACK_UNWIND_OK + 1, USTACK_UNWIND_E_NR, unwind_str);
}

/*
 * A frame-pointer run's processes that executed a program without frame
 * pointers: given stack copies of their own, or not (ustack-pair-fpexec.c)
 */
static void print_exec_copies(FILE *fp, const struct ustack_stats *st)
{
	if (!st->exec_copies && !st->exec_capped && !st->exec_failed)
		return;
	fprintf(fp, "  copies after exec:    %" PRIu64 " of %" PRIu64
		" processes without frame pointers (over the cap of %d: %" PRIu64
		", refused by perf: %" PRIu64 ")\n", st->exec_copies,
		st->exec_copies + st->exec_capped + st->exec_failed, USTACK_EXEC_SETS_MAX,
		st->exec_capped, st->exec_failed);
}

static void print_rb_lost(FILE *fp, uint64_t lost, uint64_t unknown)
{
	fprintf(fp, "  ring-buffer losses:   %" PRIu64 "%s\n", lost,
		unknown ? " (at least; some of unknown size)" : "");
}

/*
 * The kernel's throttling of the perf source's events, said when it
 * happened: a throttled event's hits are in no sample and no loss count,
 * so that the other lines cannot tell them (ustack-throttle.h)
 */
static void print_throttled(FILE *fp, uint64_t times, uint64_t ns)
{
	if (!times)
		return;
	fprintf(fp, "  throttled by kernel:  %" PRIu64 " time%s, %.1f ms (hits in those spans "
		"were neither sampled nor counted; kernel.perf_event_max_sample_rate)\n",
		times, times == 1 ? "" : "s", ns / 1e6);
}

/*
 * The side-band's records, said whenever it told anything: LOST records
 * alone are a loss to say too. The perf source's losses (@own_losses
 * false) are its samples' too, already counted as ring-buffer losses:
 * the line then says the records alone, 0 when LOST records were all
 * that came, so that record's line (ustack_output_recorded_samples())
 * and report's are one, word for word, under one rule.
 */
static void print_sideband(FILE *fp, uint64_t records, uint64_t lost, bool own_losses)
{
	if (!records && !lost)
		return;
	if (own_losses)
		fprintf(fp, "  side-band records:    %" PRIu64 " (lost by the kernel: %" PRIu64 ")\n",
			records, lost);
	else
		fprintf(fp, "  side-band records:    %" PRIu64 "\n", records);
}

/* Side-band records not read, by why: one line for record's and report's */
static void print_sb_unread(FILE *fp, uint64_t malformed, uint64_t unseen_repeat)
{
	if (!malformed && !unseen_repeat)
		return;
	fprintf(fp, "  side-band not read:   %" PRIu64 " (malformed: %" PRIu64
		", repeats of an unread sample: %" PRIu64 ")\n",
		malformed + unseen_repeat, malformed, unseen_repeat);
}

/**
 * ustack_output_stats_paired - whether the stacks counted came by cookie
 * @st:	the session's counters
 *
 * Deferred stacks (tracefs' on the patched kernel, perf's deferred
 * callchains) are paired with their events by cookie, and may be lost or
 * still pending; a synchronous source's come in the event. Told from the
 * counters, so that a run and a report of its recording agree.
 */
bool ustack_output_stats_paired(const struct ustack_stats *st)
{
	return st->matched || st->cookies || st->stacks || st->no_stack || st->pending ||
	       st->orphans || st->evicted;
}

/* Stacks paired by cookie: matched, lost, none (cookie 0), pending */
static void print_paired(FILE *fp, const struct ustack_stats *st)
{
	fprintf(fp, "  user stacks matched:  %" PRIu64 "\n", st->matched);
	if (st->sync)
		fprintf(fp, "  fallback stacks:      %" PRIu64 "\n", st->sync);
	fprintf(fp, "  stacks lost:          %" PRIu64 "\n", st->lost);
	fprintf(fp, "  no user stack:        %" PRIu64 " (cookie 0: %" PRIu64 ")\n",
		st->no_stack + st->no_cookie, st->no_stack);
	fprintf(fp, "  cookies pending:      %" PRIu64 "\n", st->pending);
}

/* Stacks taken in the event (perf, userstacktrace): no cookie to count */
static void print_sync(FILE *fp, const struct ustack_stats *st)
{
	fprintf(fp, "  user stacks:          %" PRIu64 "\n", st->sync);
	fprintf(fp, "  stacks lost:          %" PRIu64 "\n", st->lost);
	fprintf(fp, "  no user stack:        %" PRIu64 "\n", st->no_cookie);
}

/**
 * ustack_output_summary - print the counters for humans
 * @r:	the render stage, whose frames the unresolved ones are counted of
 *	(NULL when nothing was rendered: the session's count is used)
 * @fp:	where to (usually stderr)
 * @st:	the session's counters
 */
void ustack_output_summary(const struct ustack_render *r, FILE *fp,
			   const struct ustack_stats *st)
{
	fprintf(fp, "ustack summary:\n");
	fprintf(fp, "  events:               %" PRIu64 "\n", st->events);
	if (st->filtered)
		fprintf(fp, "  left out by filters:  %" PRIu64 " (shown: %" PRIu64 ")\n",
			st->filtered, st->events - st->filtered);
	if (ustack_output_stats_paired(st))
		print_paired(fp, st);
	else
		print_sync(fp, st);
	print_unresolved(r, fp, st);
	fprintf(fp, "  truncated stacks:     %" PRIu64 "\n", st->truncated);
	if (st->unwound)
		fprintf(fp, "  stacks unwound:       %" PRIu64 " (stack copies, CFI)\n",
			st->unwound);
	print_unwind_stopped(fp, st);
	print_exec_copies(fp, st);
	if (st->copies_capped)
		fprintf(fp, "  stack copies capped:  %" PRIu64
			" (cut to fit a sub-buffer: raise buffer_subbuf_size_kb)\n",
			st->copies_capped);
	print_rb_lost(fp, st->rb_lost, st->rb_lost_unknown);
	print_throttled(fp, st->throttled, st->throttled_ns);
	fprintf(fp, "  mappings:             %" PRIu64 "\n", st->mappings);
	if (ustack_render_dwarf_unreadable(r))
		fprintf(fp, "  files without lines:  %" PRIu64
			" (DWARF this libelf cannot decompress, named above)\n",
			ustack_render_dwarf_unreadable(r));
	print_sideband(fp, st->sideband, st->sideband_lost, !st->perf);
	print_sb_unread(fp, st->sb_malformed, st->sb_unseen_repeat);
	if (st->unmatched || st->orphans || st->evicted)
		fprintf(fp, "  unmatched stacks: %" PRIu64 ", orphan cookies: %" PRIu64
			", evicted cookies: %" PRIu64 "\n",
			st->unmatched, st->orphans, st->evicted);
}

/**
 * ustack_output_needs_kernel_symbols - whether @opts print kernel symbols
 * @opts: the output's options
 *
 * Kernel stack frames (--kernel) and the event lines of stacks mode
 * (%ps fields) name kernel addresses; folded, perf-script and profile
 * output name none.
 */
bool ustack_output_needs_kernel_symbols(const struct ustack_output_opts *opts)
{
	return opts->kernel || opts->mode == USTACK_OUTPUT_STACKS;
}

/**
 * ustack_output_recorded - print what a direct recording took, for humans
 * @fp:		where to (usually stderr)
 * @rb:		the ring buffer's own counters for the run
 *		(ustack_instance_rb_stats(), read once the recorder stopped)
 * @file:	the trace.dat, named in the command that pairs its stacks
 *
 * No record is read back: the kernel counted them (as trace-cmd record
 * prints them), so the summary costs nothing beside the recording.
 */
void ustack_output_recorded(FILE *fp, const struct ustack_rb_stats *rb, const char *file)
{
	fprintf(fp, "ustack summary (as recorded):\n");
	fprintf(fp, "  records:              %llu (events, cookies, stacks, file announcements)\n",
		rb->read);
	print_rb_lost(fp, rb->lost, 0);
	/* Tracing is off and the recorder drained every CPU: none is left */
	if (rb->entries)
		fprintf(fp, "  records not read:     %llu\n", rb->entries);
	fprintf(fp, "  stacks and symbols:   trace-cmd ustack report -i %s\n", file);
}

/**
 * ustack_output_recorded_samples - print what a recording of the perf
 *	source took without reading it, for humans
 * @fp:		where to (usually stderr)
 * @t:		the recorder's counts (ustack_map_source_tally())
 * @file:	the trace.dat, named in the command that maps its stacks
 *
 * Counted as written, as perf record counts its samples: report applies
 * the filters (-c, --comm, the launched command's exec) and counts the
 * events it shows.
 */
void ustack_output_recorded_samples(FILE *fp, const struct ustack_sample_tally *t,
				    const char *file)
{
	fprintf(fp, "ustack summary (as recorded):\n");
	fprintf(fp, "  samples:              %llu (events with their stacks)\n", t->samples);
	if (t->stacks)
		fprintf(fp, "  deferred stacks:      %llu\n", t->stacks);
	fprintf(fp, "  truncated stacks:     %llu\n", t->truncated);
	if (t->copies_trimmed || t->copies_whole) {
		fprintf(fp, "  stack copies:         %llu trimmed to the words their unwind read, "
			"%llu whole (the unwinding behind)\n", t->copies_trimmed, t->copies_whole);
		fprintf(fp, "  repeated copies:      %llu (trimmed as their thread's last one, "
			"not unwound again)\n", t->copies_repeated);
		fprintf(fp, "  unwinding CPU:        %.3f s (a worker's, off the reader's path)\n",
			t->worker_ns / 1e9);
	}
	print_rb_lost(fp, t->lost, 0);
	print_throttled(fp, t->throttled, t->throttled_ns);
	/* the perf source's: its losses are the line above */
	print_sideband(fp, t->sideband, t->lost, false);
	/* a recording has no sample it cannot read back: no repeats unread */
	print_sb_unread(fp, t->sb_malformed, 0);
	fprintf(fp, "  stacks and symbols:   trace-cmd ustack report -i %s\n", file);
}
