// SPDX-License-Identifier: GPL-2.0
/*
 * kchain32: a 32-bit task (COMPAT) with a known call chain, built without
 * libc so that no 32-bit C library is needed:
 * _start -> c32_outer -> c32_middle -> c32_leaf, which calls getppid(2)
 * through int $0x80 three times, then exits.
 *
 * Built with -DKC_VDSO (kchain32v), c32_leaf makes the call through the
 * vDSO's __kernel_vsyscall, as a 32-bit libc does, so that the leaf frame
 * is in [vdso]; first it writes its vDSO image to /tmp/kchain32-vdso.so
 * for the test to read the symbols and build id from.
 */
#define NOINLINE __attribute__((noinline))

#define NR32_EXIT	1
#define NR32_GETPPID	64

#ifdef KC_VDSO
#define NR32_READ	3
#define NR32_WRITE	4
#define NR32_OPEN	5
#define NR32_CLOSE	6
#define NR32_CREAT	8
#define AT_SYSINFO	32
#define AT_SYSINFO_EHDR	33

static unsigned long vsyscall;

static long sys3(long nr, long a, long b, long c)
{
	long ret;

	asm volatile("int $0x80" : "=a"(ret) : "0"(nr), "b"(a), "c"(b), "d"(c)
		     : "memory");
	return ret;
}

/* AT_SYSINFO (the vsyscall entry) and AT_SYSINFO_EHDR (the image) */
static unsigned long read_auxv(unsigned long *image)
{
	unsigned int auxv[128];
	unsigned long entry = 0;
	long fd, n, i;

	fd = sys3(NR32_OPEN, (long)"/proc/self/auxv", 0, 0);
	if (fd < 0)
		return 0;
	n = sys3(NR32_READ, fd, (long)auxv, sizeof(auxv));
	sys3(NR32_CLOSE, fd, 0, 0);
	for (i = 0; i + 1 < n / 4; i += 2) {
		if (auxv[i] == AT_SYSINFO)
			entry = auxv[i + 1];
		if (auxv[i] == AT_SYSINFO_EHDR)
			*image = auxv[i + 1];
	}
	return entry;
}

/* The image up to the end of its section headers: the whole vDSO file */
static void dump_vdso(unsigned long image)
{
	const unsigned char *e = (const unsigned char *)image;
	unsigned long shoff = *(const unsigned int *)(e + 0x20);
	unsigned long size = shoff + *(const unsigned short *)(e + 0x30) *
			     (unsigned long)*(const unsigned short *)(e + 0x2e);
	long fd;

	fd = sys3(NR32_CREAT, (long)"/tmp/kchain32-vdso.so", 0644, 0);
	if (fd < 0)
		return;
	sys3(NR32_WRITE, fd, image, size);
	sys3(NR32_CLOSE, fd, 0, 0);
}

NOINLINE void c32_leaf(void);
NOINLINE void c32_leaf(void)
{
	long ret;

	asm volatile("call *%1" : "=a"(ret) : "r"(vsyscall), "0"(NR32_GETPPID)
		     : "memory");
}
#else
NOINLINE void c32_leaf(void);
NOINLINE void c32_leaf(void)
{
	long ret;

	asm volatile("int $0x80" : "=a"(ret) : "0"(NR32_GETPPID) : "memory");
}
#endif

NOINLINE void c32_middle(void);
NOINLINE void c32_middle(void)
{
	c32_leaf();
	asm volatile("" ::: "memory");
}

NOINLINE void c32_outer(void);
NOINLINE void c32_outer(void)
{
	int i;

	for (i = 0; i < 3; i++)
		c32_middle();
}

void _start(void);
void _start(void)
{
#ifdef KC_VDSO
	unsigned long image = 0;

	vsyscall = read_auxv(&image);
	if (!vsyscall || !image)
		asm volatile("int $0x80" : : "a"(NR32_EXIT), "b"(2));
	dump_vdso(image);
#endif
	c32_outer();
	asm volatile("int $0x80" : : "a"(NR32_EXIT), "b"(0));
	for (;;)
		;
}
