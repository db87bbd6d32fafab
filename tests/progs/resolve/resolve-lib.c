/* Shared library for tests/bats/resolve.bats. */
__attribute__((noinline)) int lib_helper(int x)
{
	return x ^ 0x55;
}

__attribute__((noinline)) int lib_square(int x)
{
	return lib_helper(x) * x;
}
