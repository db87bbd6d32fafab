/*
 * Test program for tests/bats/resolve.bats: functions at known places.
 * Built with frame pointers and -falign-functions=1 so that a function
 * ending in a call is followed directly by the next function.
 */
#include <stdio.h>
#include <stdlib.h>

int lib_square(int x);

__attribute__((noinline, noreturn)) void rp_die(int code)
{
	fprintf(stderr, "dying %d\n", code);
	exit(code);
}

/* Its last instruction is the call: the return address is its end. */
__attribute__((noinline, noreturn)) void rp_ends_with_call(int code)
{
	rp_die(code + 1);
}

/* Placed right after rp_ends_with_call (same section, no padding). */
__attribute__((noinline)) int rp_after(int x)
{
	return x * 7 + 3;
}

__attribute__((noinline)) int rp_leaf(int x)
{
	return lib_square(x) + rp_after(x);
}

__attribute__((noinline)) int rp_middle(int x)
{
	return rp_leaf(x + 1) * 2;
}

/* A function symbol without a size, like hand-written assembly. */
__asm__(".text\n"
	".globl rp_nosize\n"
	".type rp_nosize, @function\n"
	"rp_nosize:\n"
	"	nop\n	nop\n	nop\n	nop\n	ret\n");

/* Names as a C++ compiler and rustc (legacy mangling) emit them. */
int rp_cxx(int x) __asm__("_ZN2rp3cxx6squareEi");
int rp_cxx(int x)
{
	return x * x;
}

int rp_rust(int x) __asm__("_ZN60_$LT$alloc..string..String$u20$as$u20$core..fmt..Display$GT$3fmt17h0123456789abcdefE");
int rp_rust(int x)
{
	return x + 11;
}

int main(int argc, char **argv)
{
	if (argc > 6)
		return rp_cxx(argc) + rp_rust(argc);
	if (argc > 5)
		rp_ends_with_call(argc);
	printf("%d\n", rp_middle(argc));
	return 0;
}
