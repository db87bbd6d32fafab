// SPDX-License-Identifier: GPL-2.0
/*
 * One library closed and another loaded at the same address, in one
 * burst after a pause:
 *   main -> early_call -> getppid(2)                          once
 *   main -> use_lib -> one_entry -> one_inner -> getppid(2)   N times
 *   dlclose(libsb-one.so), dlopen(libsb-two.so)
 *   main -> use_lib -> two_entry -> two_inner -> getppid(2)   N times
 * Prints "one at 0x..., two at 0x..." (the load addresses) on stderr;
 * exits 2 when the loader put them at different addresses.
 */
#include <dlfcn.h>
#include <link.h>

#include "sb-progs.h"

__attribute__((noinline)) static void early_call(void)
{
	USTACK_SYSCALL_GETPPID();
}

__attribute__((noinline)) static void use_lib(void (*fn)(void))
{
	fn();
	asm volatile("" ::: "memory");
}

/* Load lib@name, call its @entry @n times; returns the load address. */
static unsigned long run_lib(const char *name, const char *entry, int n, void **handle)
{
	struct link_map *map = NULL;
	char path[PATH_MAX];
	void (*fn)(void);
	int i;

	sb_beside(path, sizeof(path), name);
	*handle = dlopen(path, RTLD_NOW);
	fn = *handle ? (void (*)(void))dlsym(*handle, entry) : NULL;
	if (!fn || dlinfo(*handle, RTLD_DI_LINKMAP, &map)) {
		fprintf(stderr, "sb-reload: %s\n", dlerror());
		exit(1);
	}
	for (i = 0; i < n; i++)
		use_lib(fn);
	return map->l_addr;
}

int main(int argc, char **argv)
{
	int n = progs_iterations(argc, argv, 200);
	unsigned long one, two;
	void *h;

	early_call();
	sb_sleep_ms(300);
	one = run_lib("libsb-one.so", "one_entry", n, &h);
	dlclose(h);
	two = run_lib("libsb-two.so", "two_entry", n, &h);
	fprintf(stderr, "one at %#lx, two at %#lx\n", one, two);
	return one == two ? 0 : 2;
}
