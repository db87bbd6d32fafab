// SPDX-License-Identifier: GPL-2.0
/*
 * A library loaded 300 ms after start, then called in a burst:
 *   main -> early_call -> getppid(2)                        once, at start
 *   main -> call_late -> late_entry -> late_inner -> getppid(2)  N times
 * (late_* in libsb-late.so, dlopen'ed after the pause). The burst is
 * quicker than a reader tick: a maps snapshot taken before the dlopen,
 * or after the burst, cannot stand for it.
 */
#include <dlfcn.h>

#include "sb-progs.h"

__attribute__((noinline)) static void early_call(void)
{
	USTACK_SYSCALL_GETPPID();
}

__attribute__((noinline)) static void call_late(void (*fn)(void))
{
	fn();
	asm volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int i, n = progs_iterations(argc, argv, 1000);
	char path[PATH_MAX];
	void (*fn)(void);
	void *lib;

	early_call();
	sb_sleep_ms(300);
	sb_beside(path, sizeof(path), "libsb-late.so");
	lib = dlopen(path, RTLD_NOW);
	fn = lib ? (void (*)(void))dlsym(lib, "late_entry") : NULL;
	if (!fn) {
		fprintf(stderr, "sb-dlopen: %s\n", dlerror());
		return 1;
	}
	for (i = 0; i < n; i++)
		call_late(fn);
	return 0;
}
