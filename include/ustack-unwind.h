/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * CFI unwinding of a copied user stack (as perf's --call-graph dwarf):
 * the user registers and the top of the user stack taken at an event are
 * unwound after the fact with the .eh_frame / .debug_frame of the files
 * mapped at each address, found by the symbolizer's own lookup (symfs,
 * build-id directories, debuginfod). A frame without CFI is stepped over
 * by its frame pointer.
 *
 * The caller (a perf or tracefs stack source, at report time or live)
 * owns the mapping lookup: the unwinder asks it for the file and file
 * offset of an address, as the process had them when the stack was taken.
 */
#ifndef _USTACK_UNWIND_H
#define _USTACK_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "ustack.h"
#include "ustack-unwind-types.h"

struct ustack_resolver;
struct ustack_unwinder;

/* enum ustack_unwind_err, why an unwind ended, is in ustack.h (the summary counts it) */
int ustack_unwind_uregs_from_perf(struct ustack_uregs *regs, uint64_t sample_mask,
			   const uint64_t *vals, size_t nr);
bool ustack_unwind_uregs_abi32(const struct ustack_uregs *regs);
const char *ustack_unwind_how_str(enum ustack_unwind_how how);
const char *ustack_unwind_strerror(enum ustack_unwind_err err);
int ustack_unwind_errcode(enum ustack_unwind_err err);

/* @r must outlive the unwinder (its files are read in place). */
struct ustack_unwinder *ustack_unwinder_new(struct ustack_resolver *r);
void ustack_unwinder_free(struct ustack_unwinder *u);
/* Forget the files of @tgid (it exec'ed or exited). */
void ustack_unwinder_forget(struct ustack_unwinder *u, int tgid);

int ustack_unwind_after_call(struct ustack_unwinder *u, const struct ustack_mapping *map,
			     uint64_t off, bool abi32);
int ustack_unwind_at_entry(struct ustack_unwinder *u, const struct ustack_mapping *map,
			   uint64_t off);
int ustack_unwind(struct ustack_unwinder *u, const struct ustack_unwind_input *in,
		  struct ustack_uframe *out, int max, struct ustack_unwind_result *res);

#endif /* _USTACK_UNWIND_H */
