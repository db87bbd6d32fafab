// SPDX-License-Identifier: LGPL-2.1
/*
 * The render stage: a sample becomes resolved frames once, and every
 * consumer attached gets them (ustack-render.h). The frames are named
 * here, the reasons of the unnamed ones kept here, and the summary's
 * counts of them made here; how frames are printed or aggregated is the
 * consumers' business.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack-render.h"
#include "ustack-render-int.h"
#include "ustack-array.h"
#include "ustack-err.h"
#include "ustack-text.h"
#include "ustack-syscalls.h"
#include "ustack-unwind.h"

#define MAX_INLINE	16
#define MAX_CONSUMERS	4

struct ustack_render {
	struct tep_handle		*tep;
	struct ustack_resolver		*resolver;
	struct ustack_symbolizer	sym;
	bool				have_sym;
	struct ustack_render_opts	opts;
	struct ustack_consumer		consumers[MAX_CONSUMERS];
	int				nr_consumers;
	struct rframe			*rf;
	size_t				nr_rf;
	size_t				alloc_rf;
	bool				stable;		/* of the sample being rendered */
	uint8_t				next_origin;	/* see mark_origin() */
	struct ustack_render_counts	counts;
	const struct ustack_mapping	*memo_map;	/* see res_dso() */
	struct ustack_dso		*memo_dso;
	uint32_t			dso_abi;	/* of the sample's task */
};

/* ------------------------------------------------------------------ */
/* Default symbolizer: the resolver                                   */
/* ------------------------------------------------------------------ */

/*
 * The file of a mapping. Frames of one stack mostly share a mapping, and
 * finding its file hashes the path and build id: the last answer is kept
 * for the rest of the sample, while the mappings it points to are alive
 * (a later sample may bring another mapping at the same address). A
 * 32-bit task's [vdso] is another file than a 64-bit one's.
 */
static struct ustack_dso *res_dso(struct ustack_render *r, const struct ustack_mapping *map)
{
	if (map != r->memo_map) {
		r->memo_dso = ustack_resolver_dso(r->resolver, map->path, map->build_id,
						  map->build_id_len, map->tgid,
						  map->flags | r->dso_abi);
		r->memo_map = map;
	}
	return r->memo_dso;
}

static int res_lookup(void *ctx, const struct ustack_mapping *map, uint64_t offset,
		      bool return_address, struct ustack_sym *out, int max)
{
	struct ustack_dso *dso = res_dso(ctx, map);

	return dso ? ustack_resolve_dso_lookup(dso, offset, return_address, out, max) : 0;
}

static const char *res_dso_name(void *ctx, const struct ustack_mapping *map)
{
	struct ustack_dso *dso = res_dso(ctx, map);

	return dso ? ustack_resolve_dso_name(dso) : NULL;
}

static int res_jit(void *ctx, int tgid, uint64_t addr, struct ustack_sym *out)
{
	struct ustack_render *r = ctx;

	return ustack_resolve_jit_resolve(r->resolver, tgid, addr, out);
}

/* ------------------------------------------------------------------ */
/* Setup                                                              */
/* ------------------------------------------------------------------ */

/**
 * ustack_render_new - create the render stage
 * @tep:	handle of the trace (kernel symbols)
 * @resolver:	symbolizer of user frames; NULL leaves them unresolved
 * @opts:	what frames are made of, NULL for defaults
 *
 * Returns NULL on allocation failure.
 */
struct ustack_render *ustack_render_new(struct tep_handle *tep,
					struct ustack_resolver *resolver,
					const struct ustack_render_opts *opts)
{
	struct ustack_render *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->tep = tep;
	r->resolver = resolver;
	if (opts)
		r->opts = *opts;
	if (resolver && !r->opts.raw) {
		r->sym.lookup = res_lookup;
		r->sym.dso_name = res_dso_name;
		r->sym.jit = res_jit;
		r->sym.ctx = r;
		r->have_sym = true;
	}
	r->counts.by_reason = r->have_sym;
	return r;
}

/**
 * ustack_render_set_symbolizer - name user frames some other way
 * @r:		the render stage
 * @sym:	callbacks (copied); NULL leaves user frames unresolved
 */
void ustack_render_set_symbolizer(struct ustack_render *r,
				  const struct ustack_symbolizer *sym)
{
	r->have_sym = sym && sym->lookup;
	if (sym)
		r->sym = *sym;
	else
		memset(&r->sym, 0, sizeof(r->sym));
	r->counts.by_reason = r->have_sym && !r->opts.raw;
}

/**
 * ustack_render_attach - give every rendered sample to @c too
 * @r:	the render stage
 * @c:	the consumer (copied); its context is not owned
 *
 * Returns 0, or -1 when there are too many.
 */
int ustack_render_attach(struct ustack_render *r, const struct ustack_consumer *c)
{
	if (r->nr_consumers == MAX_CONSUMERS)
		return -1;
	r->consumers[r->nr_consumers++] = *c;
	return 0;
}

/**
 * ustack_render_free - free the render stage (not its consumers)
 * @r: the render stage (may be NULL)
 */
void ustack_render_free(struct ustack_render *r)
{
	if (!r)
		return;
	free(r->rf);
	free(r);
}

/**
 * ustack_render_counts - the user frames rendered so far, for the summary
 * @r: the render stage
 */
const struct ustack_render_counts *ustack_render_counts(const struct ustack_render *r)
{
	return &r->counts;
}

/**
 * ustack_render_dwarf_unreadable - files named without lines: unreadable DWARF
 * @r: the render stage (may be NULL)
 */
uint64_t ustack_render_dwarf_unreadable(const struct ustack_render *r)
{
	return r ? ustack_resolver_dwarf_unreadable(r->resolver) : 0;
}

/* ------------------------------------------------------------------ */
/* Rendering frames                                                   */
/* ------------------------------------------------------------------ */

static struct rframe *rf_add(struct ustack_render *r, enum rf_kind kind)
{
	struct rframe *rf;

	if (ustack_array_grow((void **)&r->rf, &r->alloc_rf, r->nr_rf + 1, sizeof(*rf)))
		return NULL;
	rf = &r->rf[r->nr_rf++];
	memset(rf, 0, sizeof(*rf));
	rf->kind = kind;
	rf->origin = r->next_origin;
	return rf;
}

/*
 * A user frame shown [unknown] keeps its reason, and the summary counts
 * it under the reason's group, when we symbolize.
 */
static void set_unresolved(struct ustack_render *r, struct rframe *rf, int why)
{
	if (why <= 0 || why >= USTACK_UNRES_NR)
		why = USTACK_UNRES_NO_FILE;
	if (rf)
		rf->why = why;
	if (!r->counts.by_reason)
		return;
	r->counts.unresolved[ustack_resolve_unresolved_group(why)]++;
	r->stable = false;
}

static const char *base_name(const char *path)
{
	const char *p = strrchr(path, '/');

	return p && p[1] ? p + 1 : path;
}

static void render_kernel(struct ustack_render *r, const struct ustack_sample *s)
{
	unsigned long long start;
	struct rframe *rf;
	unsigned int i;

	for (i = 0; i < s->nr_kframes; i++) {
		rf = rf_add(r, RF_KERNEL);
		if (!rf)
			return;
		rf->addr = s->kframes[i];
		rf->dso = "[kernel]";
		rf->path = "[kernel.kallsyms]";
		if (r->opts.raw)
			continue;
		rf->name = tep_find_function(r->tep, rf->addr);
		if (rf->name) {
			start = tep_find_function_address(r->tep, rf->addr);
			rf->sym_off = rf->addr - start;
		}
	}
}

static void render_file(struct ustack_render *r, const struct ustack_frame *fr,
			bool return_address)
{
	struct ustack_sym syms[MAX_INLINE];
	const char *dso = NULL;
	struct rframe *rf;
	int n = 0, j;

	/* A nameless frame may still come back with its source line. */
	memset(syms, 0, sizeof(syms[0]));
	if (!r->opts.raw && r->have_sym) {
		if (r->sym.dso_name)
			dso = r->sym.dso_name(r->sym.ctx, fr->map);
		n = r->sym.lookup(r->sym.ctx, fr->map, fr->offset, return_address,
				  syms, MAX_INLINE);
	}
	if (!dso)
		dso = base_name(fr->map->path);
	if (n <= 0) {
		rf = rf_add(r, RF_FILE);
		set_unresolved(r, rf, -n);
		if (!rf)
			return;
		rf->dso = dso;
		rf->path = fr->map->path;
		rf->map = fr->map;
		rf->addr = fr->offset;
		rf->id = fr->id;
		rf->file = syms[0].file;
		rf->line = syms[0].line;
		return;
	}
	for (j = 0; j < n && j < MAX_INLINE; j++) {
		rf = rf_add(r, syms[j].name ? RF_SYM : RF_FILE);
		if (!rf)
			return;
		rf->name = syms[j].name;
		rf->sym_off = syms[j].sym_off;
		rf->inlined = syms[j].inlined;
		rf->file = syms[j].file;
		rf->line = syms[j].line;
		rf->start_line = syms[j].start_line;
		rf->no_lines = syms[j].no_lines;
		rf->dso = dso;
		rf->path = fr->map->path;
		rf->map = fr->map;
		rf->addr = fr->offset;
		rf->id = fr->id;
	}
}

static void render_anon(struct ustack_render *r, const struct ustack_sample *s,
			const struct ustack_frame *fr)
{
	int why = fr->id == USTACK_ID_ANON ? USTACK_UNRES_ANON : USTACK_UNRES_NO_MAPPING;
	struct ustack_sym sym = { 0 };
	struct rframe *rf;
	int n = 0;

	if (!r->opts.raw && r->have_sym && r->sym.jit && fr->id == USTACK_ID_ANON &&
	    s->tgid > 0)
		n = r->sym.jit(r->sym.ctx, s->tgid, fr->offset, &sym);
	/* The JIT map was not used (another user's): the frame says so. */
	if (n < 0)
		why = -n;
	if (n > 0 && sym.name) {
		rf = rf_add(r, RF_JIT);
		if (!rf)
			return;
		rf->name = sym.name;
		rf->sym_off = sym.sym_off;
		rf->addr = fr->offset;
		rf->dso = "[jit]";
		/* a JIT map may grow while live: not the same next time */
		r->stable = false;
		return;
	}
	rf = rf_add(r, RF_ADDR);
	set_unresolved(r, rf, why);
	if (rf) {
		rf->addr = fr->offset;
		rf->id = fr->id;
	}
}

/*
 * How an unwound frame was found, on the rframes it renders to (a frame
 * may render to several: its inlined calls): set on the next one added.
 */
static void mark_origin(struct ustack_render *r, const struct ustack_sample *s, unsigned int i)
{
	r->next_origin = s->frame_how ? 1 + s->frame_how[i] : 0;
}

static void render_user(struct ustack_render *r, const struct ustack_sample *s)
{
	const struct ustack_frame *fr;
	struct rframe *rf;
	unsigned int i;

	r->counts.frames += s->nr_frames;
	for (i = 0; i < s->nr_frames; i++) {
		fr = &s->frames[i];
		mark_origin(r, s, i);
		if (fr->map) {
			render_file(r, fr, i > 0);
		} else if (fr->id == USTACK_ID_ANON || fr->id == USTACK_ID_NOMAP) {
			render_anon(r, s, fr);
		} else {
			rf = rf_add(r, RF_UNANNOUNCED);
			set_unresolved(r, rf, USTACK_UNRES_UNANNOUNCED);
			if (rf) {
				rf->addr = fr->offset;
				rf->id = fr->id;
			}
		}
	}
	r->next_origin = 0;
}

static void render(struct ustack_render *r, const struct ustack_sample *s)
{
	r->nr_rf = 0;
	r->stable = true;
	if (r->opts.kernel)
		render_kernel(r, s);
	if (ustack_render_has_stack(s))
		render_user(r, s);
}

/*
 * A lone consumer may count a stack it met before without its frames
 * (folded output): only when the frames come from the resolver, whose
 * names for a mapping and offset do not change.
 */
static bool counted_again(struct ustack_render *r, const struct ustack_sample *s)
{
	const struct ustack_consumer *c = &r->consumers[0];
	unsigned int frames;

	if (r->nr_consumers != 1 || !c->again ||
	    (r->have_sym && r->sym.lookup != res_lookup))
		return false;
	if (!c->again(c->ctx, s, &frames))
		return false;
	r->counts.frames += frames;
	return true;
}

/**
 * ustack_render_sample - render one sample and hand it to every consumer
 * @r:	the render stage
 * @s:	the sample, as handed out by the session
 *
 * With opts.skip_empty, samples without a user stack are ignored.
 * Returns 0, or -1 when a consumer failed (a write error).
 */
int ustack_render_sample(struct ustack_render *r, const struct ustack_sample *s)
{
	struct ustack_rendered out;
	int i, ret = 0;

	if (r->opts.skip_empty && !ustack_render_has_stack(s))
		return 0;
	r->memo_map = NULL;
	r->dso_abi = ustack_syscall_abi_32bit(s->abi) ? USTACK_RESOLVE_ABI32 : 0;
	if (counted_again(r, s))
		return 0;
	render(r, s);
	out.sample = s;
	out.rf = r->rf;
	out.nr = r->nr_rf;
	out.raw = r->opts.raw;
	out.stable = r->stable;
	out.frames = ustack_render_has_stack(s) ? s->nr_frames : 0;
	for (i = 0; i < r->nr_consumers; i++)
		if (r->consumers[i].sample(r->consumers[i].ctx, &out) < 0)
			ret = -1;
	return ret;
}

/**
 * ustack_render_finish - the end of the samples, for every consumer
 * @r: the render stage
 *
 * Returns 0, or -1 when a consumer failed (a write error).
 */
int ustack_render_finish(struct ustack_render *r)
{
	int i, ret = 0;

	for (i = 0; i < r->nr_consumers; i++)
		if (r->consumers[i].finish && r->consumers[i].finish(r->consumers[i].ctx) < 0)
			ret = -1;
	return ret;
}

/* ------------------------------------------------------------------ */
/* What every consumer shares                                         */
/* ------------------------------------------------------------------ */

/**
 * ustack_render_has_stack - the sample has a user stack (deferred or not)
 * @s: the sample
 */
bool ustack_render_has_stack(const struct ustack_sample *s)
{
	return s->status == USTACK_SAMPLE_OK || s->status == USTACK_SAMPLE_SYNC;
}

/**
 * ustack_render_truncated - the user stack ends before its outermost frame
 * @s: the sample
 */
bool ustack_render_truncated(const struct ustack_sample *s)
{
	return ustack_render_has_stack(s) && (s->stack_flags & USTACK_STACK_TRUNCATED);
}

/**
 * ustack_render_unwind_end - the frame a stack its unwinder could not finish ends in
 * @s: the sample
 *
 * "[unwind: REASON]" (no CFI for a file, stack copy too small, unreadable
 * memory...), or NULL for a stack that is whole or was not unwound.
 */
const char *ustack_render_unwind_end(const struct ustack_sample *s)
{
	static char text[USTACK_ERR__END - USTACK_ERR__START][80];
	int code = s->unwind_end;
	char *t;

	if (!ustack_render_has_stack(s) || !code)
		return NULL;
	if (code < USTACK_ERR__START || code >= USTACK_ERR__END)
		code = USTACK_ERR_UW_LIBDW;
	t = text[code - USTACK_ERR__START];
	if (!t[0])
		snprintf(t, sizeof(text[0]), "[unwind: %s]", ustack_err_strerror(code));
	return t;
}

/**
 * ustack_render_origin - "cfi" or "fp" for a frame unwound from a stack copy
 * @rf: the frame
 *
 * Returns NULL for a frame that was not (or the leaf, from the registers).
 */
const char *ustack_render_origin(const struct rframe *rf)
{
	if (!rf->origin || rf->origin - 1 == USTACK_UNWIND_HOW_REGS)
		return NULL;
	return ustack_unwind_how_str(rf->origin - 1);
}

/**
 * ustack_render_note - what stands in for the user stack when there is none
 * @s: the sample
 *
 * Returns "[stack lost]", "[no user stack]" or NULL (the sample has one).
 */
const char *ustack_render_note(const struct ustack_sample *s)
{
	switch (s->status) {
	case USTACK_SAMPLE_LOST:
		return "[stack lost]";
	case USTACK_SAMPLE_NO_STACK:
	case USTACK_SAMPLE_NO_COOKIE:
		return "[no user stack]";
	default:
		return NULL;
	}
}

/* A name built in @buf that did not fit (@n bytes) ends at a character */
static const char *fit_cut(char *buf, size_t size, int n)
{
	if (n >= (int)size)
		buf[ustack_text_cut(buf, size - 1)] = '\0';
	return buf;
}

/**
 * ustack_render_file_name - the name of a frame in a file that has no symbol for it
 * @rf:		the frame (RF_FILE: stripped, or --raw)
 * @buf:	where the name is built
 * @size:	size of @buf
 *
 * "FILE+0xOFFSET", the file's short name and the frame's offset in it, as
 * the stacks output shows it: every output names such a frame this way,
 * so that frames at different offsets stay apart in aggregated formats
 * (one "[FILE]" box would merge every function of a stripped binary) and
 * the same offset of the same file is one frame. Returns @buf.
 */
const char *ustack_render_file_name(const struct rframe *rf, char *buf, size_t size)
{
	/* a name of the trace may be longer than @buf */
	return fit_cut(buf, size, snprintf(buf, size, "%s+0x%" PRIx64, rf->dso, rf->addr));
}

/**
 * ustack_render_fold_name - a frame's name as stackcollapse-perf writes it
 * @rf:		the frame
 * @raw:	offsets instead of names (--raw)
 * @buf:	room for a name that has to be built
 * @size:	size of @buf
 * @suffix:	set to the annotation ("_[k]", "_[i]", "_[j]") or NULL
 *
 * Returns the name (@rf's own string or @buf).
 */
const char *ustack_render_fold_name(const struct rframe *rf, bool raw,
				    char *buf, size_t size, const char **suffix)
{
	*suffix = NULL;
	switch (rf->kind) {
	case RF_KERNEL:
		*suffix = "_[k]";
		if (rf->name && !raw)
			return rf->name;
		if (raw)
			snprintf(buf, size, "0x%" PRIx64, rf->addr);
		else
			snprintf(buf, size, "[unknown]");
		return buf;
	case RF_SYM:
		*suffix = rf->inlined ? "_[i]" : NULL;
		return rf->name;
	case RF_JIT:
		*suffix = "_[j]";
		return rf->name;
	case RF_FILE:
		return ustack_render_file_name(rf, buf, size);
	case RF_UNANNOUNCED:
		if (raw)
			snprintf(buf, size, "[id 0x%" PRIx64 "]+0x%" PRIx64, rf->id, rf->addr);
		else
			snprintf(buf, size, "[unknown]");
		return buf;
	case RF_ADDR:
		if (raw)
			snprintf(buf, size, "0x%" PRIx64, rf->addr);
		else
			snprintf(buf, size, "[unknown]");
		return buf;
	}
	return "[unknown]";
}

