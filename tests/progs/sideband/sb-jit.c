// SPDX-License-Identifier: GPL-2.0
/*
 * JIT code made 300 ms after start, named in /tmp/perf-<pid>.map as JITs
 * do for perf, then called in a burst:
 *   main -> early_call -> getppid(2)                once
 *   main -> call_jit -> jit_getppid -> getppid(2)   N times (1000)
 * jit_getppid is machine code written into anonymous memory (x86-64:
 * a frame pointer, the system call, return). The map file stays: the
 * tracer reads it when it prints, perhaps after we exited; the test
 * removes it.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "sb-progs.h"

__attribute__((noinline)) static void early_call(void)
{
	USTACK_SYSCALL_GETPPID();
}

__attribute__((noinline)) static void call_jit(void (*fn)(void))
{
	fn();
	asm volatile("" ::: "memory");
}

/* push %rbp; mov %rsp,%rbp; mov $SYS_getppid,%eax; syscall; pop %rbp; ret */
static const unsigned char code[] = {
	0x55, 0x48, 0x89, 0xe5, 0xb8, SYS_getppid, 0x00, 0x00, 0x00,
	0x0f, 0x05, 0x5d, 0xc3,
};

static void *make_jit(void)
{
	char path[64];
	void *mem;
	FILE *f;

	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return NULL;
	memcpy(mem, code, sizeof(code));
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC))
		return NULL;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fprintf(f, "%lx %zx jit_getppid\n", (unsigned long)(uintptr_t)mem, sizeof(code));
	fclose(f);
	return mem;
}

int main(int argc, char **argv)
{
	int i, n = progs_iterations(argc, argv, 1000);
	void (*fn)(void);

#if !defined(__x86_64__)
	fprintf(stderr, "sb-jit: x86-64 only\n");
	return 1;
#endif
	early_call();
	sb_sleep_ms(300);
	fn = (void (*)(void))make_jit();
	if (!fn) {
		perror("sb-jit");
		return 1;
	}
	for (i = 0; i < n; i++)
		call_jit(fn);
	return 0;
}
