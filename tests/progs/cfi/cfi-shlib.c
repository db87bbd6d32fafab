// SPDX-License-Identifier: GPL-2.0
/*
 * -O2 without frame pointers, through a shared library:
 * main -> shlib_main_1 -> shlib_main_2 -> cfi_lib_1 .. cfi_lib_6 (in
 * libustack-cfi.so) -> getppid(2).
 * Expected user stack, leaf first: cfi_lib_6, ..., cfi_lib_1,
 * shlib_main_2, shlib_main_1, main.
 */
#include "../ustack-progs.h"
#include "libcfi.h"

__attribute__((noinline)) void shlib_main_2(void);
__attribute__((noinline)) void shlib_main_2(void)
{
	cfi_lib_1();
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void shlib_main_1(void);
__attribute__((noinline)) void shlib_main_1(void)
{
	shlib_main_2();
	asm volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int i, n = progs_iterations(argc, argv, 20);

	for (i = 0; i < n; i++) {
		shlib_main_1();
		progs_pause();
	}
	return 0;
}
