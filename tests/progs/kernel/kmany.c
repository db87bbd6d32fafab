// SPDX-License-Identifier: GPL-2.0
/*
 * kmany: a user stack through many files, for the kernel's table of
 * announced files.
 *
 *   kmany N LIB... calls getppid(2) N times from the bottom of a chain
 *                  that goes through every LIB in turn: main -> kc_call
 *                  (LIB 1) -> kc_chain -> kc_call (LIB 2) -> ...
 *
 * Every LIB may be a copy of libkc.so under its own name: each is its own
 * file, so its own id, and the first stack names them all.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

#define NOINLINE __attribute__((noinline))

typedef int (*kc_call_fn)(int next);

static kc_call_fn *calls;
static int nr_calls;

/* Called back by every library with the index of the next one */
NOINLINE int kc_chain(int i);
NOINLINE int kc_chain(int i)
{
	long ret;

	if (i < nr_calls)
		return calls[i](i + 1) + 1;
	asm volatile("syscall" : "=a"(ret) : "0"((long)SYS_getppid)
		     : "rcx", "r11", "memory");
	return (int)ret;
}

int main(int argc, char **argv)
{
	int i, n;

	if (argc < 3) {
		fprintf(stderr, "usage: kmany N LIB...\n");
		return 2;
	}
	n = atoi(argv[1]);
	nr_calls = argc - 2;
	calls = calloc(nr_calls, sizeof(*calls));
	if (!calls)
		return 1;
	for (i = 0; i < nr_calls; i++) {
		void *h = dlopen(argv[i + 2], RTLD_NOW | RTLD_LOCAL);

		if (!h || !(calls[i] = (kc_call_fn)dlsym(h, "kc_call"))) {
			fprintf(stderr, "kmany: %s: %s\n", argv[i + 2], dlerror());
			return 1;
		}
	}
	for (i = 0; i < n; i++)
		kc_chain(0);
	return 0;
}
