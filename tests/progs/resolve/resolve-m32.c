/*
 * 32-bit static program without libc (no multilib needed): the ELFCLASS32
 * case of compat tasks.
 */
__attribute__((noinline)) int m32_func(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int m32_other(int x)
{
	return m32_func(x) - 2;
}

void _start(void)
{
	volatile int r = m32_other(4);

	(void)r;
	for (;;)
		;
}
