/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to the profile writers (lib/ustack-profile.c, -flamegraph.c,
 * -pprof.c, -speedscope.c): the aggregated samples they all read.
 *
 * Samples are kept as distinct stacks of locations. A location is one
 * address (a file offset in one file, a kernel or anonymous address) with
 * its source lines, innermost inlined call first, as pprof wants them; a
 * line names a frame, the function-level unit flame graphs draw and
 * speedscope lists. Strings are interned: every name is an index into
 * the profile's string table, 0 being "".
 */
#ifndef _USTACK_PROFILE_INT_H
#define _USTACK_PROFILE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ustack.h"
#include "ustack-hash.h"
#include "ustack-profile.h"

/* What a frame is: each has its colour in the flame graph */
enum pf_class {
	PF_USER,		/* named user function */
	PF_INLINED,		/* inlined call */
	PF_JIT,			/* named by a perf map */
	PF_KERNEL,		/* named kernel function */
	PF_UNRESOLVED,		/* no name: FILE+0xOFFSET, [unknown], raw offsets */
	PF_COMM,		/* the task name at the root */
	PF_NOTE,		/* [truncated], [stack lost], [no user stack] */
	PF_CLASS_NR,
};

/**
 * struct pframe - a function-level frame
 * @id:	index in the profile's frames
 * @cls:	enum pf_class
 * @name:	display name (function, "FILE+0xOFFSET", ...)
 * @suffix:	folded annotation ("_[k]", "_[i]", "_[j]") or 0
 * @dso:	path of the binary (0 for the kernel, notes, anonymous memory)
 * @file:	source file or 0
 * @line_min:	lowest source line seen, 0 if none
 * @line_max:	highest
 * @start_line:	the line where the function starts, 0 if not known
 */
struct pframe {
	struct ustack_hnode	node;
	uint32_t		id;
	uint8_t			cls;
	uint32_t		name;
	uint32_t		suffix;
	uint32_t		dso;
	uint32_t		file;
	int			line_min;
	int			line_max;
	int			start_line;
};

struct pline {
	uint32_t		frame;
	int			line;
};

/**
 * struct pmap - a file frames were found in
 * @path:	its path (string id)
 * @build_id:	GNU build id, @build_id_len bytes
 * @max_off:	highest file offset of a frame in it
 * @named:	some frame of it has a name
 * @unnamed:	some frame of it has none
 * @inlines:	some location of it has inlined calls
 * @lines:	some frame of it has a source line
 */
struct pmap {
	struct ustack_hnode	node;
	uint32_t		id;
	uint32_t		path;
	uint32_t		build_id_len;
	unsigned char		build_id[USTACK_BUILD_ID_MAX];
	uint64_t		max_off;
	bool			named;
	bool			unnamed;
	bool			inlines;
	bool			lines;
	bool			program;	/* a program, not a library */
};

/* Kinds of locations beyond enum rf_kind */
#define PLOC_PSEUDO	100	/* a note or the comm: a line, no address */

/**
 * struct ploc - a location
 * @map:	index in the profile's maps, -1 for none
 * @kind:	enum rf_kind of its frames, or PLOC_PSEUDO
 * @ret:	a return address (not the leaf): looked up at @addr - 1
 * @addr:	file offset (with @map), kernel or anonymous address
 * @nr_lines:	lines, innermost first, from @first_line in the lines array
 * @name:	PLOC_PSEUDO: its text (string id); others: what tells equal
 *		addresses apart (the file id of an unannounced file, the
 *		process of an anonymous one)
 */
struct ploc {
	struct ustack_hnode	node;
	uint32_t		id;
	int32_t			map;
	uint8_t			kind;
	bool			ret;
	uint64_t		addr;
	uint32_t		nr_lines;
	uint32_t		first_line;
	uint32_t		name;
};

/**
 * struct pstack - a distinct stack of one event and task name
 * @event:	index in the profile's events
 * @comm:	task name (string id)
 * @nr_locs:	locations, leaf first, from @first_loc in the stack_locs
 *		array; the outermost end has the notes ([truncated] last),
 *		then with event_root the event's name (a PLOC_PSEUDO
 *		location of class PF_COMM, above the task name in the
 *		writers that draw it)
 * @count:	samples
 */
struct pstack {
	struct ustack_hnode	node;
	uint32_t		id;
	uint32_t		event;
	uint32_t		comm;
	uint32_t		nr_locs;
	uint32_t		first_loc;
	uint64_t		count;
};

struct pevent {
	const void		*key;	/* the struct tep_event */
	uint32_t		name;	/* "system:name" */
	uint32_t		short_name;
	uint64_t		count;
};

/* Time order (speedscope): a run of @weight samples of one stack */
struct porder {
	uint32_t		stack;
	uint32_t		weight;
};

struct ustack_profile {
	/* strings */
	char			**str;
	size_t			nr_str, alloc_str;
	struct ustack_htable	str_hash;
	/* tables; each entry allocated on its own (hash nodes stay put) */
	struct pframe		**frames;
	size_t			nr_frames, alloc_frames;
	struct ustack_htable	frames_hash;
	struct pmap		**maps;
	size_t			nr_maps, alloc_maps;
	struct ustack_htable	maps_hash;
	struct ploc		**locs;
	size_t			nr_locs, alloc_locs;
	struct ustack_htable	locs_hash;
	struct pline		*lines;
	size_t			nr_lines, alloc_lines;
	struct pstack		**stacks;
	size_t			nr_stacks, alloc_stacks;
	struct ustack_htable	stacks_hash;
	uint32_t		*stack_locs;
	size_t			nr_stack_locs, alloc_stack_locs;
	struct pevent		*events;
	size_t			nr_events, alloc_events;
	struct porder		*order;
	size_t			nr_order, alloc_order;
	bool			keep_order;
	bool			event_root;	/* the event as the root frame */
	/* the sample being added */
	uint32_t		*cur;
	size_t			nr_cur, alloc_cur;
	/* stacks met before, by their samples' frames (profile_again()) */
	struct ustack_htable	memo;
	uint64_t		*key;
	size_t			key_len, alloc_key;
	uint64_t		memo_hash;
	bool			memo_ok;
	/* what the writers say about the run */
	uint64_t		samples;
	uint64_t		first_ts, last_ts;
	char			*command;
	/* the command's executable: path and build id (no frames, no id) */
	struct pmap		*program;
	struct ustack_stats	stats;
	bool			have_stats;
	bool			failed;
};

/*
 * The frame has a name that tells it apart: a function, or an offset in
 * a file without its symbol ("FILE+0xOFFSET", ustack_render_file_name()),
 * not "[unknown]" (no file) nor a raw kernel address.
 */
static inline bool pframe_identified(const struct pframe *f)
{
	return f->cls != PF_UNRESOLVED || f->dso;
}

static inline const char *pstr(const struct ustack_profile *p, uint32_t id)
{
	return p->str[id];
}

const char *ustack_profile_class_str(enum pf_class cls);
int ustack_profile_main_map(const struct ustack_profile *p);

/* Helpers of the writers */
void ustack_profile_span(const struct ustack_profile *p, char *buf, size_t size);
const char *ustack_profile_dso(const struct ustack_profile *p, const struct pframe *f);
size_t ustack_profile_put_text(FILE *fp, const char *s, size_t max);
const char *ustack_profile_sync_note(const struct ustack_stats *st);
void ustack_profile_put_events(const struct ustack_profile *p, FILE *fp);

#endif /* _USTACK_PROFILE_INT_H */
