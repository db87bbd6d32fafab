// SPDX-License-Identifier: LGPL-2.1
/*
 * The format texts of the ustack:sample and ustack:sample_copy events (see
 * ustack-sample-event.h), written as tracefs writes a format file.
 */
#include <stdio.h>

#include "ustack-sample-event.h"

/* The fields both events have, after the common ones */
#define SAMPLE_FIELDS								\
	"\tfield:int pid;\toffset:%d;\tsize:4;\tsigned:1;\n"			\
	"\tfield:int tid;\toffset:%d;\tsize:4;\tsigned:1;\n"			\
	"\tfield:unsigned int cpu;\toffset:%d;\tsize:4;\tsigned:0;\n"		\
	"\tfield:unsigned int flags;\toffset:%d;\tsize:4;\tsigned:0;\n"	\
	"\tfield:__data_loc u64[] chain;\toffset:%d;\tsize:4;\tsigned:0;\n"	\
	"\tfield:__data_loc unsigned char[] raw;\toffset:%d;\tsize:4;\tsigned:0;\n"
#define SAMPLE_PRINT	"pid=%%d tid=%%d cpu=%%u flags=0x%%x chain=%%s raw=%%s"
#define SAMPLE_ARGS								\
	"REC->pid, REC->tid, REC->cpu, REC->flags, "				\
	"__print_array(__get_dynamic_array(chain), __get_dynamic_array_len(chain) / 8, 8), " \
	"__print_hex(__get_dynamic_array(raw), __get_dynamic_array_len(raw))"

static int sample_format(char *buf, size_t size, const char *common)
{
	return snprintf(buf, size,
		"name: " USTACK_SAMPLE_NAME "\n"
		"ID: %d\n"
		"format:\n"
		"%s"
		"\n"
		SAMPLE_FIELDS
		"\n"
		"print fmt: \"" SAMPLE_PRINT "\", " SAMPLE_ARGS "\n",
		USTACK_SAMPLE_ID, common, USTACK_SAMPLE_OFF_PID, USTACK_SAMPLE_OFF_TID,
		USTACK_SAMPLE_OFF_CPU, USTACK_SAMPLE_OFF_FLAGS, USTACK_SAMPLE_OFF_CHAIN,
		USTACK_SAMPLE_OFF_RAW);
}

static int copy_format(char *buf, size_t size, const char *common)
{
	return snprintf(buf, size,
		"name: " USTACK_SAMPLE_COPY_NAME "\n"
		"ID: %d\n"
		"format:\n"
		"%s"
		"\n"
		SAMPLE_FIELDS
		"\tfield:u64 regs_mask;\toffset:%d;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned int stack_size;\toffset:%d;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned int umax;\toffset:%d;\tsize:4;\tsigned:0;\n"
		"\tfield:__data_loc u64[] regs;\toffset:%d;\tsize:4;\tsigned:0;\n"
		"\tfield:__data_loc u64[] stack;\toffset:%d;\tsize:4;\tsigned:0;\n"
		"\tfield:__data_loc unsigned char[] kept;\toffset:%d;\tsize:4;\tsigned:0;\n"
		"\n"
		"print fmt: \"" SAMPLE_PRINT " regs_mask=0x%%llx stack_size=%%u umax=%%u "
		"regs=%%s stack=%%s kept=%%s\", " SAMPLE_ARGS ", "
		"REC->regs_mask, REC->stack_size, REC->umax, "
		"__print_array(__get_dynamic_array(regs), __get_dynamic_array_len(regs) / 8, 8), "
		"__print_array(__get_dynamic_array(stack), __get_dynamic_array_len(stack) / 8, 8), "
		"__print_hex(__get_dynamic_array(kept), __get_dynamic_array_len(kept))\n",
		USTACK_SAMPLE_COPY_ID, common, USTACK_SAMPLE_OFF_PID, USTACK_SAMPLE_OFF_TID,
		USTACK_SAMPLE_OFF_CPU, USTACK_SAMPLE_OFF_FLAGS, USTACK_SAMPLE_OFF_CHAIN,
		USTACK_SAMPLE_OFF_RAW, USTACK_SAMPLE_OFF_REGS_MASK, USTACK_SAMPLE_OFF_STACK_SIZE,
		USTACK_SAMPLE_OFF_UMAX, USTACK_SAMPLE_OFF_REGS, USTACK_SAMPLE_OFF_STACK,
		USTACK_SAMPLE_OFF_KEPT);
}

/**
 * ustack_sample_event_format - the format file of ustack:sample or ustack:sample_copy
 * @buf:	where to
 * @size:	its room
 * @common:	the common fields' lines, as the kernel's ftrace:print format
 *		has them (each ending in a newline); the layout above needs
 *		them to end at byte 8
 * @copy:	ustack:sample_copy's (samples with a stack copy)
 *
 * Returns the length, as snprintf().
 */
int ustack_sample_event_format(char *buf, size_t size, const char *common, bool copy)
{
	return copy ? copy_format(buf, size, common) : sample_format(buf, size, common);
}
