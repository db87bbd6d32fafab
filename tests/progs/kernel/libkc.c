// SPDX-License-Identifier: GPL-2.0
/* libkc.so: one link of kmany's chain, calling back into the program */

int kc_chain(int i);
int kc_call(int next);

__attribute__((noinline)) int kc_call(int next)
{
	int ret = kc_chain(next);

	asm volatile("" ::: "memory");
	return ret + 1;
}
