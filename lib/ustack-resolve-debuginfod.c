// SPDX-License-Identifier: LGPL-2.1
/*
 * Whether this build can ask debuginfod servers (libdebuginfod was found
 * by the Makefile, which then defines USTACK_HAVE_DEBUGINFOD).
 */
#include "ustack-resolve.h"

/**
 * ustack_resolver_has_debuginfod - whether debuginfod can be asked at all
 *
 * False in a build without libdebuginfod: the debuginfod option of
 * struct ustack_resolver_opts then does nothing.
 */
bool ustack_resolver_has_debuginfod(void)
{
#ifdef USTACK_HAVE_DEBUGINFOD
	return true;
#else
	return false;
#endif
}
