// SPDX-License-Identifier: GPL-2.0
/*
 * A traced program that writes to the tracer's terminal if it can: it
 * names itself argv[1] (prctl(PR_SET_NAME), escape sequences welcome),
 * then calls getppid(2) argv[2] times (default 3) from a function whose
 * symbol name the Makefile rewrites to hold control bytes, C1 bytes,
 * a backslash and an 'ñ' (evil_ plus the bytes of EVIL_BYTES).
 * Expected user stack, leaf first: that function, then main.
 */
#include <sys/prctl.h>

#include "../ustack-progs.h"

/* 12 bytes the Makefile replaces in the built file */
__attribute__((noinline)) void evil_QQQQQQQQQQQQ(void);
__attribute__((noinline)) void evil_QQQQQQQQQQQQ(void)
{
	USTACK_SYSCALL_GETPPID();
}

int main(int argc, char **argv)
{
	int i, n = argc > 2 ? atoi(argv[2]) : 3;

	if (argc > 1 && prctl(PR_SET_NAME, argv[1], 0, 0, 0))
		return 1;
	for (i = 0; i < n; i++) {
		evil_QQQQQQQQQQQQ();
		progs_pause();
	}
	progs_hold();
	return 0;
}
