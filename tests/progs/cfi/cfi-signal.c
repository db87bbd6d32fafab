// SPDX-License-Identifier: GPL-2.0
/*
 * A signal handler's stack, -O2 without frame pointers: main ->
 * sig_chain_1 -> sig_chain_2 -> raise(SIGUSR1), and on the signal
 * handler -> handler_leaf -> getppid(2). Expected user stack, leaf
 * first: handler_leaf, handler, (the kernel's signal frame: glibc's
 * __restore_rt), raise's insides, sig_chain_2, sig_chain_1, main.
 * Only CFI crosses the signal frame.
 */
#include <signal.h>

#include "../ustack-progs.h"

__attribute__((noinline)) void handler_leaf(void);
__attribute__((noinline)) void handler_leaf(void)
{
	USTACK_SYSCALL_GETPPID();
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) static void handler(int sig)
{
	(void)sig;
	handler_leaf();
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void sig_chain_2(void);
__attribute__((noinline)) void sig_chain_2(void)
{
	raise(SIGUSR1);
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void sig_chain_1(void);
__attribute__((noinline)) void sig_chain_1(void)
{
	sig_chain_2();
	asm volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int i, n = progs_iterations(argc, argv, 20);

	signal(SIGUSR1, handler);
	for (i = 0; i < n; i++) {
		sig_chain_1();
		progs_pause();
	}
	return 0;
}
