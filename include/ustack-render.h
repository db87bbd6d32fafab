/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The render stage: every sample the session hands out becomes a list of
 * resolved frames (kernel frames first when asked, then user frames leaf
 * first, inlined calls expanded, each unnamed one with its reason), which
 * goes to every consumer attached: the text printer (ustack-output.h) and
 * the profile (ustack-profile.h) are peers, neither feeds the other.
 */
#ifndef _USTACK_RENDER_H
#define _USTACK_RENDER_H

#include <stdbool.h>
#include <stdint.h>

#include "ustack.h"
#include "ustack-resolve.h"

struct ustack_render;
struct ustack_rendered;
struct tep_handle;

/**
 * struct ustack_render_opts - what the frames of a sample are made of
 * @raw:	no symbols: file offsets and paths only (no resolver needed)
 * @kernel:	kernel stack frames too (ftrace:kernel_stack)
 * @skip_empty:	samples without a user stack go to no consumer (lost, no
 *		stack, no cookie)
 */
struct ustack_render_opts {
	bool	raw;
	bool	kernel;
	bool	skip_empty;
};

/**
 * struct ustack_symbolizer - how the render stage names user frames
 * @lookup:	symbolize @offset in the file of @map (see ustack_resolve_dso_lookup:
 *		a count of frames, or -USTACK_UNRES_* when none)
 * @dso_name:	short display name of the file of @map
 * @jit:	symbolize an address in anonymous memory, may be NULL (as
 *		ustack_resolve_jit_resolve: 1 when named, 0 when not, -USTACK_UNRES_*
 *		for why not)
 * @ctx:	passed back to the callbacks
 *
 * ustack_render_new() builds one from a struct ustack_resolver; tests may
 * install their own with ustack_render_set_symbolizer().
 */
struct ustack_symbolizer {
	int		(*lookup)(void *ctx, const struct ustack_mapping *map,
				  uint64_t offset, bool return_address,
				  struct ustack_sym *out, int max);
	const char	*(*dso_name)(void *ctx, const struct ustack_mapping *map);
	int		(*jit)(void *ctx, int tgid, uint64_t addr,
			       struct ustack_sym *out);
	void		*ctx;
};

/**
 * struct ustack_consumer - one user of the rendered samples
 * @sample:	gets every sample with its frames; < 0 on a write error
 * @again:	optional: count @s on what this consumer made of the same
 *		stack before, without its frames; true when it did (then
 *		*@frames is the user frames it had). Asked only when it is
 *		the only consumer and the frames come from the resolver.
 * @finish:	optional: the end of the samples; < 0 on a write error
 * @ctx:	passed back to the callbacks
 */
struct ustack_consumer {
	int	(*sample)(void *ctx, const struct ustack_rendered *r);
	bool	(*again)(void *ctx, const struct ustack_sample *s, unsigned int *frames);
	int	(*finish)(void *ctx);
	void	*ctx;
};

struct ustack_render *ustack_render_new(struct tep_handle *tep,
					struct ustack_resolver *resolver,
					const struct ustack_render_opts *opts);
void ustack_render_free(struct ustack_render *r);
void ustack_render_set_symbolizer(struct ustack_render *r,
				  const struct ustack_symbolizer *sym);
int ustack_render_attach(struct ustack_render *r, const struct ustack_consumer *c);

int ustack_render_sample(struct ustack_render *r, const struct ustack_sample *s);
int ustack_render_finish(struct ustack_render *r);

/**
 * struct ustack_render_counts - the user frames rendered, for the summary
 * @frames:	user frames shown
 * @unresolved:	of them without a name, by ustack_resolve_unresolved_group()
 * @by_reason:	frames were symbolized: @unresolved says why
 */
struct ustack_render_counts {
	uint64_t	frames;
	uint64_t	unresolved[USTACK_UNRES_NR];
	bool		by_reason;
};

const struct ustack_render_counts *ustack_render_counts(const struct ustack_render *r);
uint64_t ustack_render_dwarf_unreadable(const struct ustack_render *r);

#endif /* _USTACK_RENDER_H */
