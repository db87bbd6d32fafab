// SPDX-License-Identifier: GPL-2.0
/*
 * cfi-reload [N]: libustack-cfi-reload1.so loaded, its entry called N
 * times (default 20), closed; then libustack-cfi-reload2.so loaded, at
 * the same address as a rule, its entry called N times. Both are built
 * -O2 without frame pointers: only their own CFI finds their callers.
 * Prints "one at 0x..., two at 0x..." on stderr; exits 2 when the loader
 * put them at different addresses.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../ustack-progs.h"

__attribute__((noinline)) static void call_lib(void (*fn)(void))
{
	fn();
	asm volatile("" ::: "memory");
}

static unsigned long run_lib(const char *name, const char *entry, int n)
{
	struct link_map *map = NULL;
	/* static: the stack copy (8 KiB) must reach main */
	static char self[PATH_MAX], path[PATH_MAX + 64];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	void (*fn)(void);
	unsigned long at;
	void *h;
	int i;

	self[len > 0 ? len : 0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dirname(self), name);
	h = dlopen(path, RTLD_NOW);
	fn = h ? (void (*)(void))dlsym(h, entry) : NULL;
	if (!fn || dlinfo(h, RTLD_DI_LINKMAP, &map)) {
		fprintf(stderr, "cfi-reload: %s\n", dlerror());
		exit(1);
	}
	for (i = 0; i < n; i++)
		call_lib(fn);
	at = map->l_addr;
	dlclose(h);
	return at;
}

int main(int argc, char **argv)
{
	int n = progs_iterations(argc, argv, 20);
	unsigned long one, two;

	one = run_lib("libustack-cfi-reload1.so", "reload1_entry", n);
	two = run_lib("libustack-cfi-reload2.so", "reload2_entry", n);
	fprintf(stderr, "one at %#lx, two at %#lx\n", one, two);
	return one == two ? 0 : 2;
}
