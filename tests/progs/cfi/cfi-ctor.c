// SPDX-License-Identifier: GPL-2.0
/*
 * Linked with libustack-cfi-ctor.so, whose constructor makes the system
 * calls; the program itself makes none.
 */
void ctor_chain(void);

int main(int argc, char **argv)
{
	(void)argv;
	/* a reference, so that the library stays needed */
	if (argc < 0)
		ctor_chain();
	return 0;
}
