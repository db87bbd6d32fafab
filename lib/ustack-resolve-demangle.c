// SPDX-License-Identifier: LGPL-2.1
/*
 * C++ and Rust demangling through GNU libiberty, the demangler of c++filt
 * (Debian's libiberty-dev, linked statically): C++ (Itanium ABI), Rust
 * legacy and Rust v0 names, punycode identifiers included. Names come out
 * as c++filt -i prints them: with parameters, without implementation
 * details, Rust hashes or disambiguators.
 *
 * Symbol tables are input we do not control, and libiberty's work grows
 * with what it prints: a Rust v0 name whose backrefs double a tuple 64
 * times expands to 2^64 types, and c++filt never finishes it. So we use
 * the callback entry points, which hand us the output piece by piece, and
 * give up on a name that passes DEMANGLE_MAX bytes by jumping out of the
 * callback. Neither demangler holds heap memory across a callback (the
 * C++ one keeps its state on the stack), except the few bytes of a Rust
 * punycode identifier being printed, which such a name then leaks.
 */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "ustack-array.h"
#include "ustack-resolve-int.h"

/* Longest real names are about 25 KB (LLVM's C++ templates). */
#define DEMANGLE_MAX	(1 << 20)

/* What c++filt -i asks for: parameters and qualifiers, no details. */
#define DEMANGLE_OPTS	(DMGL_PARAMS | DMGL_ANSI)

struct demangle_buf {
	char		*s;
	size_t		len;
	size_t		cap;
	jmp_buf		give_up;
};

static void demangle_append(const char *s, size_t n, void *opaque)
{
	struct demangle_buf *b = opaque;

	/* Empty pieces come with a NULL pointer (Rust's empty identifiers). */
	if (!n)
		return;
	if (n >= DEMANGLE_MAX - b->len)
		longjmp(b->give_up, 1);
	/* Room for the final NUL, which ustack_resolve_demangle() writes. */
	if (ustack_array_grow((void **)&b->s, &b->cap, b->len + n + 1, 1))
		longjmp(b->give_up, 1);
	memcpy(b->s + b->len, s, n);
	b->len += n;
}

/*
 * Rust first: legacy Rust names are valid Itanium C++ names too, which
 * only the Rust demangler turns into paths without the hash (the order
 * of cplus_demangle() with DMGL_AUTO, as in c++filt). A legacy name ends
 * with the hash element "17h<16 hex digits>E"; without "17h" anywhere it
 * cannot be one, and strstr() says so faster than the Rust demangler's
 * own check of every character (a tenth of the time on C++ names).
 */
static bool demangle_into(const char *name, struct demangle_buf *b)
{
	if ((name[1] == 'R' || strstr(name, "17h")) &&
	    rust_demangle_callback(name, DEMANGLE_OPTS, demangle_append, b))
		return true;
	b->len = 0;
	return name[1] == 'Z' &&
	       cplus_demangle_v3_callback(name, DEMANGLE_OPTS, demangle_append, b);
}

/*
 * The setjmp() lives here, apart from the buffer: a longjmp() leaves the
 * locals of the function that called setjmp() undefined if they changed,
 * and this one has none that change.
 */
static bool demangle_bounded(const char *name, struct demangle_buf *b)
{
	if (setjmp(b->give_up))
		return false;
	return demangle_into(name, b);
}

/**
 * ustack_resolve_demangle - readable form of a symbol name
 * @r: resolver (unused: libiberty keeps no state between names)
 * @name: mangled or plain name
 * @owned: set to a malloc'd string the caller owns, when one was made
 *
 * Demangles C++ ("_Z") and Rust legacy ("_ZN...17h<hash>E") and v0
 * ("_R", also "__R") names as c++filt -i does.
 *
 * Returns the demangled name, or @name when it is not mangled, is
 * malformed, or demangles to more than DEMANGLE_MAX bytes.
 */
const char *ustack_resolve_demangle(struct ustack_resolver *r, const char *name, char **owned)
{
	struct demangle_buf b = { 0 };
	const char *mangled = name;
	char *fit;

	*owned = NULL;
	/* Some platforms prefix v0 names with one more underscore. */
	if (mangled[0] == '_' && mangled[1] == '_' && mangled[2] == 'R')
		mangled++;
	if (mangled[0] != '_' || (mangled[1] != 'Z' && mangled[1] != 'R'))
		return name;
	if (!demangle_bounded(mangled, &b) || !b.len) {
		free(b.s);
		return name;
	}
	b.s[b.len] = '\0';
	/* Names stay cached for the whole run: give back the spare room. */
	fit = realloc(b.s, b.len + 1);
	*owned = fit ? fit : b.s;
	return *owned;
}
