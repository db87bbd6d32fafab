/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: whether a program's code keeps frame pointers, read
 * from the file (--call-graph=auto, ustack-stack-source.c). The functions
 * its .eh_frame_hdr lists are looked at where they start: code built
 * with frame pointers begins most of its non-leaf functions with push
 * %rbp; mov %rsp,%rbp, code built without them almost none. Answers are
 * kept by build id: a file seen again is not read again.
 */
#ifndef _USTACK_FPCODE_H
#define _USTACK_FPCODE_H

#include <stdbool.h>

/**
 * struct ustack_fpcode - what the start of a file's functions says
 * @functions:	functions looked at (those its .eh_frame_hdr lists whose
 *		start lies in an executable segment)
 * @fp:		of them, those that set up %rbp as their frame pointer
 * @keeps_fp:	@fp is a fifth of @functions or more: a walk by frame pointers goes
 *		through this file's frames
 * @i386:	a 32-bit x86 file (ELFCLASS32, EM_386): its code is not
 *		looked at (the counts stay 0); --call-graph=auto takes the
 *		kernel's frame-pointer walk for it
 * @fp_walk:	the kernel's frame-pointer walk is the unwinding for this
 *		file (@keeps_fp or @i386): the one rule auto and an exec
 *		under a frame-pointer run both follow
 */
struct ustack_fpcode {
	unsigned int	functions;
	unsigned int	fp;
	bool		keeps_fp;
	bool		i386;
	bool		fp_walk;
};

int ustack_fpcode_check(const char *path, struct ustack_fpcode *out);

#endif /* _USTACK_FPCODE_H */
