/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: what the render stage (lib/ustack-render.c) hands its
 * consumers (the printer, the profile): a sample's resolved frames, and
 * the name each frame gets in folded stacks, which every aggregated
 * format shares.
 */
#ifndef _USTACK_RENDER_INT_H
#define _USTACK_RENDER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ustack.h"

enum rf_kind {
	RF_SYM,			/* symbolized user frame */
	RF_FILE,		/* file frame, no symbol (or raw mode) */
	RF_ADDR,		/* anonymous memory or no mapping: a VA */
	RF_UNANNOUNCED,		/* file id without inode_cache */
	RF_JIT,			/* anonymous memory named by perf-<pid>.map */
	RF_KERNEL,		/* kernel address, name may be NULL */
};

/**
 * struct rframe - one rendered frame
 * @kind:	what the frame is
 * @name:	function name, NULL when unresolved
 * @sym_off:	offset from the start of @name
 * @inlined:	inlined into the next frame
 * @file:	source file or NULL
 * @line:	source line or 0
 * @start_line:	first line of the function @name names, 0 when not known
 * @dso:	short name of the file
 * @path:	full path of the file
 * @map:	the mapping of a file frame (build id), NULL otherwise
 * @addr:	file offset, VA or kernel address
 * @id:		file id of the stack event
 * @why:	enum ustack_unresolved of a user frame without a name, else 0
 */
struct rframe {
	enum rf_kind	kind;
	const char	*name;
	uint64_t	sym_off;
	bool		inlined;
	const char	*file;
	int		line;
	int		start_line;
	const char	*dso;		/* short name */
	const char	*path;		/* full path */
	const struct ustack_mapping *map;
	uint64_t	addr;		/* file offset, VA or kernel address */
	uint64_t	id;
	uint8_t		why;
	bool		no_lines;	/* named, DWARF unreadable: no line */
	uint8_t		origin;		/* unwound: 1 + enum ustack_unwind_how */
};

/**
 * struct ustack_rendered - a sample as the consumers get it
 * @sample:	the sample, as the session handed it out
 * @rf:		its frames: kernel ones first (entry last), then user ones
 *		leaf first
 * @nr:		how many
 * @raw:	offsets, not names (--raw)
 * @stable:	every user frame was named by the resolver, none through a
 *		JIT map (which may grow while live): the same stack renders
 *		the same again, so a consumer may remember what it made of it
 * @frames:	user frames of the sample
 */
struct ustack_rendered {
	const struct ustack_sample	*sample;
	const struct rframe		*rf;
	size_t				nr;
	bool				raw;
	bool				stable;
	unsigned int			frames;
};

/*
 * The name of @rf in folded stacks (stackcollapse-perf's): the function,
 * "FILE+0xOFFSET" in a file without its symbol (ustack_render_file_name())
 * or "[unknown]", offsets in raw mode. @buf is used when the name
 * is built; *@suffix gets the annotation ("_[k]", "_[i]", "_[j]") or NULL.
 */
const char *ustack_render_file_name(const struct rframe *rf, char *buf, size_t size);
const char *ustack_render_fold_name(const struct rframe *rf, bool raw,
				    char *buf, size_t size, const char **suffix);

bool ustack_render_has_stack(const struct ustack_sample *s);
bool ustack_render_truncated(const struct ustack_sample *s);
const char *ustack_render_unwind_end(const struct ustack_sample *s);
const char *ustack_render_origin(const struct rframe *rf);
const char *ustack_render_note(const struct ustack_sample *s);
/* ustack-output.c: what the profiles' subtitles say of synchronous stacks */

#endif /* _USTACK_RENDER_INT_H */
