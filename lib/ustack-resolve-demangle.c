// SPDX-License-Identifier: LGPL-2.1
/*
 * C++ and Rust demangling.
 *
 * C++ goes through __cxa_demangle, looked up at run time in libstdc++ so
 * that plain C programs linking libustack need no C++ runtime. Rust legacy
 * names are Itanium-mangled with a trailing hash and $-escapes, which we
 * strip and undo afterwards. Rust v0 names ("_R...") have their own
 * grammar, decoded in ustack-resolve-rust-v0.c.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-resolve-int.h"

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static cxa_demangle_fn find_cxa_demangle(void)
{
	void *h, *fn;

	fn = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (fn)
		return (cxa_demangle_fn)fn;
	h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return NULL;
	return (cxa_demangle_fn)dlsym(h, "__cxa_demangle");
}

/* "17h" + 16 hex digits + "E" at the end: a Rust legacy hash element. */
static bool rust_legacy(const char *s)
{
	size_t len = strlen(s), i;

	if (strncmp(s, "_ZN", 3) || len < 3 + 20 || memcmp(s + len - 20, "17h", 3) ||
	    s[len - 1] != 'E')
		return false;
	for (i = len - 17; i < len - 1; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

static const struct {
	const char	*from;
	char		to;
} rust_escapes[] = {
	{ "$SP$", '@' }, { "$BP$", '*' }, { "$RF$", '&' }, { "$LT$", '<' },
	{ "$GT$", '>' }, { "$LP$", '(' }, { "$RP$", ')' }, { "$C$", ',' },
	{ "$u7e$", '~' }, { "$u20$", ' ' }, { "$u27$", '\'' },
	{ "$u5b$", '[' }, { "$u5d$", ']' }, { "$u7b$", '{' },
	{ "$u7d$", '}' }, { "$u3b$", ';' }, { "$u2b$", '+' },
	{ "$u22$", '"' },
};

/* Undo Rust's $..$ escapes and ".." path separators, in place. */
static void rust_unescape(char *s)
{
	char *w = s;
	size_t i;

	while (*s) {
		if (*s == '$') {
			for (i = 0; i < sizeof(rust_escapes) / sizeof(rust_escapes[0]); i++) {
				size_t l = strlen(rust_escapes[i].from);

				if (!strncmp(s, rust_escapes[i].from, l)) {
					*w++ = rust_escapes[i].to;
					s += l;
					break;
				}
			}
			if (i < sizeof(rust_escapes) / sizeof(rust_escapes[0]))
				continue;
		} else if (s[0] == '.' && s[1] == '.') {
			*w++ = ':';
			*w++ = ':';
			s += 2;
			continue;
		}
		*w++ = *s++;
	}
	*w = '\0';
}

/*
 * _ZN <len><ident>... 17h<hash> E: join the identifiers with "::", drop
 * the hash, undo the escapes. Returns NULL when malformed.
 */
static char *rust_demangle(const char *s)
{
	size_t len = strlen(s);
	char *out = malloc(2 * len + 1), *w = out;
	const char *end = s + len - 20;		/* the hash element */

	if (!out)
		return NULL;
	for (s += 3; s < end;) {
		char *e;
		unsigned long n = strtoul(s, &e, 10);

		if (e == s || !n || n > (unsigned long)(end - e))
			goto bad;
		s = e;
		/* A leading "_$" stands for "$" (identifiers cannot start with it). */
		if (n > 1 && s[0] == '_' && s[1] == '$') {
			s++;
			n--;
		}
		if (w != out) {
			*w++ = ':';
			*w++ = ':';
		}
		memcpy(w, s, n);
		w += n;
		s += n;
	}
	if (w == out)
		goto bad;
	*w = '\0';
	rust_unescape(out);
	return out;
bad:
	free(out);
	return NULL;
}

/**
 * ustack_demangle - readable form of a symbol name
 * @r: resolver (caches the demangler)
 * @name: mangled or plain name
 * @owned: set to a malloc'd string the caller owns, when one was made
 *
 * Returns the demangled name, or @name when it is not mangled.
 */
const char *ustack_demangle(struct ustack_resolver *r, const char *name, char **owned)
{
	char *d;
	int status;

	*owned = ustack_rust_v0_demangle(name);
	if (*owned)
		return *owned;
	if (name[0] != '_' || name[1] != 'Z')
		return name;
	if (rust_legacy(name)) {
		*owned = rust_demangle(name);
		if (*owned)
			return *owned;
	}
	if (!r->demangle_tried) {
		r->demangle_tried = true;
		r->cxa_demangle = find_cxa_demangle();
	}
	if (!r->cxa_demangle)
		return name;
	d = r->cxa_demangle(name, NULL, NULL, &status);
	if (!d || status)
		return name;
	*owned = d;
	return d;
}
