// SPDX-License-Identifier: GPL-2.0
/*
 * Three threads with call chains of their own, all ending in getppid(2):
 *   alpha_thread -> alpha_1 -> alpha_2 -> leaf_syscall
 *   beta_thread  -> beta_1  -> beta_2  -> leaf_syscall
 *   gamma_thread -> gamma_1 -> gamma_2 -> leaf_syscall
 * Expected user stacks, leaf first: leaf_syscall, <x>_2, <x>_1,
 * <x>_thread; each thread's stacks carry its own names only.
 */
#include <pthread.h>

#include "ustack-progs.h"

static int iterations;

__attribute__((noinline)) static void leaf_syscall(void)
{
	USTACK_SYSCALL_GETPPID();
}

#define THREAD_CHAIN(x)							\
	__attribute__((noinline)) static void x##_2(void)		\
	{								\
		leaf_syscall();						\
		asm volatile("" ::: "memory");				\
	}								\
	__attribute__((noinline)) static void x##_1(void)		\
	{								\
		x##_2();						\
		asm volatile("" ::: "memory");				\
	}								\
	__attribute__((noinline)) static void *x##_thread(void *arg)	\
	{								\
		int i;							\
									\
		for (i = 0; i < iterations; i++) {			\
			x##_1();					\
			progs_pause();					\
		}							\
		return arg;						\
	}

THREAD_CHAIN(alpha)
THREAD_CHAIN(beta)
THREAD_CHAIN(gamma)

int main(int argc, char **argv)
{
	void *(*fns[])(void *) = { alpha_thread, beta_thread, gamma_thread };
	pthread_t t[3];
	int i;

	iterations = progs_iterations(argc, argv, 40);
	for (i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, fns[i], NULL))
			return 1;
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}
