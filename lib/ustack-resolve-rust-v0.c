// SPDX-License-Identifier: LGPL-2.1
/*
 * Rust v0 symbol demangling (RFC 2603, rustc's "v0 Symbol Format").
 *
 * Written from the grammar in the specification. The output follows the
 * short form of binutils' c++filt --no-verbose: no crate disambiguators,
 * no type suffix on constants, closures as {closure#N}.
 *
 * Symbols come from files we do not trust, so every read is bounds
 * checked, backreferences must point strictly backwards, and recursion
 * depth, work and output size are all capped. Anything unexpected makes
 * the whole symbol "not demangled" rather than half printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-resolve-int.h"

#define V0_MAX_DEPTH	128		/* nested paths and types */
#define V0_MAX_STEPS	100000		/* parse calls, bounds backref fan-out */
#define V0_MAX_OUT	65536		/* bytes of demangled text */

struct v0 {
	const char	*s;		/* symbol after the "_R" prefix */
	size_t		len;
	size_t		pos;
	char		*out;
	size_t		out_len;
	size_t		out_cap;
	unsigned int	depth;
	unsigned long	steps;
	unsigned long	bound;		/* lifetimes bound by enclosing binders */
	bool		skip;		/* parse without printing */
};

struct v0_ident {
	const char	*p;
	size_t		len;
};

static bool v0_type(struct v0 *d);
static bool v0_path(struct v0 *d, bool in_value);
static bool v0_const(struct v0 *d);

static int v0_peek(struct v0 *d)
{
	return d->pos < d->len ? (unsigned char)d->s[d->pos] : 0;
}

static bool v0_eat(struct v0 *d, char c)
{
	if (v0_peek(d) != c)
		return false;
	d->pos++;
	return true;
}

static bool v0_put(struct v0 *d, const char *p, size_t n)
{
	char *o;

	if (d->skip)
		return true;
	if (d->out_len + n + 1 > V0_MAX_OUT)
		return false;
	if (d->out_len + n + 1 > d->out_cap) {
		size_t cap = d->out_cap ? d->out_cap * 2 : 128;

		while (cap < d->out_len + n + 1)
			cap *= 2;
		o = realloc(d->out, cap);
		if (!o)
			return false;
		d->out = o;
		d->out_cap = cap;
	}
	memcpy(d->out + d->out_len, p, n);
	d->out_len += n;
	d->out[d->out_len] = '\0';
	return true;
}

static bool v0_puts(struct v0 *d, const char *p)
{
	return v0_put(d, p, strlen(p));
}

static bool v0_putu(struct v0 *d, unsigned long long v)
{
	char buf[24];

	return v0_put(d, buf, snprintf(buf, sizeof(buf), "%llu", v));
}

/* Entry of every recursive production: caps depth and total work. */
static bool v0_enter(struct v0 *d)
{
	if (++d->depth > V0_MAX_DEPTH || ++d->steps > V0_MAX_STEPS)
		return false;
	return true;
}

static bool v0_leave(struct v0 *d, bool ok)
{
	d->depth--;
	return ok;
}

/* base-62-number: "_" is 0, otherwise digits [0-9a-zA-Z] then "_" mean value + 1. */
static bool v0_base62(struct v0 *d, unsigned long long *val)
{
	unsigned long long v = 0;
	int c, digit;

	if (v0_eat(d, '_')) {
		*val = 0;
		return true;
	}
	while ((c = v0_peek(d)) != '_') {
		if (c >= '0' && c <= '9')
			digit = c - '0';
		else if (c >= 'a' && c <= 'z')
			digit = c - 'a' + 10;
		else if (c >= 'A' && c <= 'Z')
			digit = c - 'A' + 36;
		else
			return false;
		if (v > (~0ULL - digit) / 62)
			return false;
		v = v * 62 + digit;
		d->pos++;
	}
	d->pos++;
	if (v == ~0ULL)
		return false;
	*val = v + 1;
	return true;
}

/* An optional TAG <base-62-number>: 0 when absent, else the number + 1. */
static bool v0_opt_base62(struct v0 *d, char tag, unsigned long long *val)
{
	*val = 0;
	if (!v0_eat(d, tag))
		return true;
	if (!v0_base62(d, val) || *val == ~0ULL)
		return false;
	(*val)++;
	return true;
}

/* decimal-number: "0" or a non-zero digit followed by digits. */
static bool v0_decimal(struct v0 *d, size_t *val)
{
	size_t v = 0;
	int c = v0_peek(d);

	if (c < '0' || c > '9')
		return false;
	d->pos++;
	if (c == '0') {
		*val = 0;
		return true;
	}
	v = c - '0';
	while ((c = v0_peek(d)) >= '0' && c <= '9') {
		if (v > (V0_MAX_OUT * 16))
			return false;
		v = v * 10 + (c - '0');
		d->pos++;
	}
	*val = v;
	return true;
}

/*
 * undisambiguated-identifier: ["u"] <decimal-number> ["_"] <bytes>.
 * Punycode ("u") is not decoded: such symbols are left mangled.
 */
static bool v0_ident(struct v0 *d, struct v0_ident *id)
{
	size_t n;

	if (v0_eat(d, 'u'))
		return false;
	if (!v0_decimal(d, &n))
		return false;
	/* The "_" separates the length from bytes starting with a digit or "_". */
	v0_eat(d, '_');
	if (n > d->len - d->pos)
		return false;
	id->p = d->s + d->pos;
	id->len = n;
	d->pos += n;
	return true;
}

/*
 * Follow "B <base-62-number>" (the B already eaten at @at) with @fn, then
 * come back. The target must lie before the B, so chains always end.
 */
static bool v0_backref(struct v0 *d, size_t at, bool (*fn)(struct v0 *, bool),
		       bool arg)
{
	unsigned long long i;
	size_t save;
	bool ok;

	if (!v0_base62(d, &i) || i >= at)
		return false;
	if (d->skip)
		return true;
	save = d->pos;
	d->pos = i;
	ok = fn(d, arg);
	d->pos = save;
	return ok;
}

static bool v0_lifetime(struct v0 *d, unsigned long long idx)
{
	unsigned long long depth;

	if (!idx)
		return v0_puts(d, "'_");
	if (idx > d->bound)
		return false;
	depth = d->bound - idx;
	if (depth < 26) {
		char buf[2] = { '\'', (char)('a' + depth) };

		return v0_put(d, buf, 2);
	}
	return v0_puts(d, "'_") && v0_putu(d, depth);
}

/* binder: "G" <base-62-number> binds number + 1 lifetimes, shown as for<...>. */
static bool v0_binder(struct v0 *d, unsigned long long *added)
{
	unsigned long long n, i;

	if (!v0_opt_base62(d, 'G', &n))
		return false;
	*added = n;
	if (!n)
		return true;
	if (n > 1024 || d->bound + n < d->bound)
		return false;
	if (!v0_puts(d, "for<"))
		return false;
	for (i = 0; i < n; i++) {
		d->bound++;
		if ((i && !v0_puts(d, ", ")) || !v0_lifetime(d, 1))
			return false;
	}
	return v0_puts(d, "> ");
}

static bool v0_generic_arg(struct v0 *d)
{
	unsigned long long lt;

	if (v0_eat(d, 'L'))
		return v0_base62(d, &lt) && v0_lifetime(d, lt);
	if (v0_eat(d, 'K'))
		return v0_const(d);
	return v0_type(d);
}

/* {<generic-arg>} "E", comma separated, after the opening "<" is printed. */
static bool v0_generic_args(struct v0 *d)
{
	bool first = true;

	while (!v0_eat(d, 'E')) {
		if (!first && !v0_puts(d, ", "))
			return false;
		if (!v0_generic_arg(d))
			return false;
		first = false;
	}
	return true;
}

/* Namespaced nested name: lower case is plain "::name", upper case {kind...#N}. */
static bool v0_nested_name(struct v0 *d, int ns, const struct v0_ident *id,
			   unsigned long long dis)
{
	char kind[2] = { (char)ns, 0 };

	if (ns >= 'a' && ns <= 'z')
		return !id->len || (v0_puts(d, "::") && v0_put(d, id->p, id->len));
	if (!v0_puts(d, "::{") ||
	    !v0_puts(d, ns == 'C' ? "closure" : ns == 'S' ? "shim" : kind))
		return false;
	if (id->len && (!v0_puts(d, ":") || !v0_put(d, id->p, id->len)))
		return false;
	return v0_puts(d, "#") && v0_putu(d, dis) && v0_puts(d, "}");
}

static bool v0_path_nested(struct v0 *d, bool in_value)
{
	struct v0_ident id;
	unsigned long long dis;
	int ns = v0_peek(d);

	if (!((ns >= 'a' && ns <= 'z') || (ns >= 'A' && ns <= 'Z')))
		return false;
	d->pos++;
	if (!v0_path(d, in_value))
		return false;
	if (!v0_opt_base62(d, 's', &dis) || !v0_ident(d, &id))
		return false;
	return v0_nested_name(d, ns, &id, dis);
}

/* impl-path: [<disambiguator>] <path>, parsed but not shown. */
static bool v0_impl_path(struct v0 *d)
{
	unsigned long long dis;
	bool skip = d->skip, ok;

	if (!v0_opt_base62(d, 's', &dis))
		return false;
	d->skip = true;
	ok = v0_path(d, false);
	d->skip = skip;
	return ok;
}

/* M: <Type>, X: <Type as Trait> with an impl-path first, Y: <Type as Trait>. */
static bool v0_path_qualified(struct v0 *d, int tag)
{
	if (tag != 'Y' && !v0_impl_path(d))
		return false;
	if (!v0_puts(d, "<") || !v0_type(d))
		return false;
	if (tag != 'M' && (!v0_puts(d, " as ") || !v0_path(d, false)))
		return false;
	return v0_puts(d, ">");
}

static bool v0_path_1(struct v0 *d, bool in_value)
{
	struct v0_ident id;
	unsigned long long dis;
	size_t at = d->pos;
	int tag = v0_peek(d);

	if (!tag)
		return false;
	d->pos++;
	switch (tag) {
	case 'C':
		return v0_opt_base62(d, 's', &dis) && v0_ident(d, &id) &&
		       v0_put(d, id.p, id.len);
	case 'N':
		return v0_path_nested(d, in_value);
	case 'M':
	case 'X':
	case 'Y':
		return v0_path_qualified(d, tag);
	case 'I':
		return v0_path(d, in_value) &&
		       v0_puts(d, in_value ? "::<" : "<") &&
		       v0_generic_args(d) && v0_puts(d, ">");
	case 'B':
		return v0_backref(d, at, v0_path, in_value);
	}
	return false;
}

/*
 * path: a crate root, nested, impl, trait or generic path, or a backref.
 * @in_value: generic arguments print as "::<...>" (expressions) rather
 * than "<...>" (types).
 */
static bool v0_path(struct v0 *d, bool in_value)
{
	if (!v0_enter(d))
		return false;
	return v0_leave(d, v0_path_1(d, in_value));
}

static const char *const v0_basic[26] = {
	['a' - 'a'] = "i8",	['b' - 'a'] = "bool",	['c' - 'a'] = "char",
	['d' - 'a'] = "f64",	['e' - 'a'] = "str",	['f' - 'a'] = "f32",
	['h' - 'a'] = "u8",	['i' - 'a'] = "isize",	['j' - 'a'] = "usize",
	['l' - 'a'] = "i32",	['m' - 'a'] = "u32",	['n' - 'a'] = "i128",
	['o' - 'a'] = "u128",	['p' - 'a'] = "_",	['s' - 'a'] = "i16",
	['t' - 'a'] = "u16",	['u' - 'a'] = "()",	['v' - 'a'] = "...",
	['x' - 'a'] = "i64",	['y' - 'a'] = "u64",	['z' - 'a'] = "!",
};

/* "T" {<type>} "E": (A, B), and (A,) for a one-element tuple. */
static bool v0_tuple(struct v0 *d)
{
	unsigned long n = 0;

	if (!v0_puts(d, "("))
		return false;
	while (!v0_eat(d, 'E')) {
		if ((n && !v0_puts(d, ", ")) || !v0_type(d))
			return false;
		n++;
	}
	return (n != 1 || v0_puts(d, ",")) && v0_puts(d, ")");
}

/* R / Q [<lifetime>] <type>: &T, &'a T, &mut T, &'a mut T. */
static bool v0_ref(struct v0 *d, bool mut)
{
	unsigned long long lt = 0;

	if (!v0_puts(d, "&"))
		return false;
	if (v0_eat(d, 'L')) {
		if (!v0_base62(d, &lt))
			return false;
		if (lt && (!v0_lifetime(d, lt) || !v0_puts(d, " ")))
			return false;
	}
	return (!mut || v0_puts(d, "mut ")) && v0_type(d);
}

/* abi: "C" or an identifier whose "_" stand for "-". */
static bool v0_abi(struct v0 *d)
{
	struct v0_ident id;
	size_t i;

	if (!v0_puts(d, "extern \""))
		return false;
	if (v0_eat(d, 'C')) {
		if (!v0_puts(d, "C"))
			return false;
	} else {
		if (!v0_ident(d, &id))
			return false;
		for (i = 0; i < id.len; i++)
			if (!v0_put(d, id.p[i] == '_' ? "-" : &id.p[i], 1))
				return false;
	}
	return v0_puts(d, "\" ");
}

/* fn-sig: [<binder>] ["U"] ["K" <abi>] {<type>} "E" <type>. */
static bool v0_fn_sig(struct v0 *d)
{
	unsigned long long added;
	unsigned long saved = d->bound;
	bool first = true, ok = false;

	if (!v0_binder(d, &added))
		goto out;
	if (v0_eat(d, 'U') && !v0_puts(d, "unsafe "))
		goto out;
	if (v0_eat(d, 'K') && !v0_abi(d))
		goto out;
	if (!v0_puts(d, "fn("))
		goto out;
	while (!v0_eat(d, 'E')) {
		if ((!first && !v0_puts(d, ", ")) || !v0_type(d))
			goto out;
		first = false;
	}
	if (!v0_puts(d, ")"))
		goto out;
	/* A unit return type is not shown. */
	if (v0_eat(d, 'u'))
		ok = true;
	else
		ok = v0_puts(d, " -> ") && v0_type(d);
out:
	d->bound = saved;
	return ok;
}

/*
 * The trait path of a dyn bound, leaving its "<" open when it has generic
 * arguments, so that associated type bindings can join the same list.
 */
static bool v0_dyn_trait_path(struct v0 *d, bool *open)
{
	size_t at = d->pos;
	unsigned long long i;
	size_t save;
	bool ok;

	if (!v0_enter(d))
		return false;
	if (v0_eat(d, 'I')) {
		ok = v0_path(d, false) && v0_puts(d, "<") && v0_generic_args(d);
		*open = true;
	} else if (v0_eat(d, 'B')) {
		ok = v0_base62(d, &i) && i < at;
		if (ok) {
			save = d->pos;
			d->pos = i;
			ok = v0_dyn_trait_path(d, open);
			d->pos = save;
		}
	} else {
		ok = v0_path(d, false);
		*open = false;
	}
	return v0_leave(d, ok);
}

/* dyn-trait: <path> {"p" <undisambiguated-identifier> <type>}. */
static bool v0_dyn_trait(struct v0 *d)
{
	struct v0_ident id;
	bool open = false;

	if (!v0_dyn_trait_path(d, &open))
		return false;
	while (v0_eat(d, 'p')) {
		if (!v0_puts(d, open ? ", " : "<"))
			return false;
		open = true;
		if (!v0_ident(d, &id) || !v0_put(d, id.p, id.len) ||
		    !v0_puts(d, " = ") || !v0_type(d))
			return false;
	}
	return !open || v0_puts(d, ">");
}

/* "D" <dyn-bounds> <lifetime>: dyn [for<...>] A + B [+ 'a]. */
static bool v0_dyn(struct v0 *d)
{
	unsigned long long added, lt;
	unsigned long saved = d->bound;
	bool first = true, ok = false;

	if (!v0_puts(d, "dyn ") || !v0_binder(d, &added))
		goto out;
	while (!v0_eat(d, 'E')) {
		if ((!first && !v0_puts(d, " + ")) || !v0_dyn_trait(d))
			goto out;
		first = false;
	}
	d->bound = saved;
	if (!v0_eat(d, 'L') || !v0_base62(d, &lt))
		goto out;
	ok = !lt || (v0_puts(d, " + ") && v0_lifetime(d, lt));
out:
	d->bound = saved;
	return ok;
}

static bool v0_type_path(struct v0 *d, bool unused)
{
	return v0_type(d);
}

static bool v0_type_1(struct v0 *d)
{
	size_t at = d->pos;
	int tag = v0_peek(d);

	if (tag >= 'a' && tag <= 'z' && v0_basic[tag - 'a']) {
		d->pos++;
		return v0_puts(d, v0_basic[tag - 'a']);
	}
	switch (tag) {
	case 'A':
		d->pos++;
		return v0_puts(d, "[") && v0_type(d) && v0_puts(d, "; ") &&
		       v0_const(d) && v0_puts(d, "]");
	case 'S':
		d->pos++;
		return v0_puts(d, "[") && v0_type(d) && v0_puts(d, "]");
	case 'T':
		d->pos++;
		return v0_tuple(d);
	case 'R':
	case 'Q':
		d->pos++;
		return v0_ref(d, tag == 'Q');
	case 'P':
		d->pos++;
		return v0_puts(d, "*const ") && v0_type(d);
	case 'O':
		d->pos++;
		return v0_puts(d, "*mut ") && v0_type(d);
	case 'F':
		d->pos++;
		return v0_fn_sig(d);
	case 'D':
		d->pos++;
		return v0_dyn(d);
	case 'B':
		d->pos++;
		return v0_backref(d, at, v0_type_path, false);
	}
	return v0_path(d, false);
}

static bool v0_type(struct v0 *d)
{
	if (!v0_enter(d))
		return false;
	return v0_leave(d, v0_type_1(d));
}

/* const-data: ["n"] {<hex-digit>} "_"; the digits are kept as text. */
static bool v0_const_data(struct v0 *d, bool *neg, const char **hex, size_t *n)
{
	int c;

	*neg = v0_eat(d, 'n');
	*hex = d->s + d->pos;
	while ((c = v0_peek(d)) != '_') {
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
		d->pos++;
	}
	*n = d->s + d->pos - *hex;
	d->pos++;
	return true;
}

/* Value of up to 16 hex digits; longer ones print as 0x... instead. */
static unsigned long long v0_hex(const char *hex, size_t n)
{
	unsigned long long v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v = v * 16 + (hex[i] <= '9' ? hex[i] - '0' : hex[i] - 'a' + 10);
	return v;
}

/* A char constant, quoted, with non-printable or non-ASCII as \u{...}. */
static bool v0_char(struct v0 *d, unsigned long long v)
{
	char buf[16];

	if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return false;
	switch (v) {
	case '\t':
		return v0_puts(d, "'\\t'");
	case '\n':
		return v0_puts(d, "'\\n'");
	case '\r':
		return v0_puts(d, "'\\r'");
	case '\\':
		return v0_puts(d, "'\\\\'");
	case '\'':
		return v0_puts(d, "'\\''");
	}
	if (v >= 0x20 && v < 0x7f)
		snprintf(buf, sizeof(buf), "'%c'", (char)v);
	else
		snprintf(buf, sizeof(buf), "'\\u{%llx}'", v);
	return v0_puts(d, buf);
}

/* <type> <const-data> for integer, bool and char types. */
static bool v0_const_value(struct v0 *d, int tag)
{
	bool neg;
	const char *hex;
	size_t n;
	unsigned long long v;

	if (!v0_const_data(d, &neg, &hex, &n))
		return false;
	if (n > 16 && (tag == 'b' || tag == 'c'))
		return false;
	v = v0_hex(hex, n > 16 ? 0 : n);
	switch (tag) {
	case 'b':
		if (neg || v > 1)
			return false;
		return v0_puts(d, v ? "true" : "false");
	case 'c':
		return !neg && v0_char(d, v);
	case 'a': case 's': case 'l': case 'x': case 'n': case 'i':
		if (neg && !v0_puts(d, "-"))
			return false;
		break;
	default:
		if (neg)
			return false;
	}
	if (n > 16)
		return v0_puts(d, "0x") && v0_put(d, hex, n);
	return v0_putu(d, v);
}

static bool v0_const_backref(struct v0 *d, bool unused)
{
	return v0_const(d);
}

static bool v0_const_1(struct v0 *d)
{
	size_t at = d->pos;
	int tag = v0_peek(d);

	if (!tag)
		return false;
	d->pos++;
	switch (tag) {
	case 'p':
		return v0_puts(d, "_");
	case 'B':
		return v0_backref(d, at, v0_const_backref, false);
	case 'a': case 's': case 'l': case 'x': case 'n': case 'i':
	case 'h': case 't': case 'm': case 'y': case 'o': case 'j':
	case 'b': case 'c':
		return v0_const_value(d, tag);
	}
	/* str, array, tuple and struct constants are not supported. */
	return false;
}

static bool v0_const(struct v0 *d)
{
	if (!v0_enter(d))
		return false;
	return v0_leave(d, v0_const_1(d));
}

/* Length of the "_R", "__R" or "R" prefix, or 0 when @name has none. */
static size_t v0_prefix(const char *name)
{
	if (name[0] == '_' && name[1] == 'R')
		return 2;
	if (name[0] == '_' && name[1] == '_' && name[2] == 'R')
		return 3;
	if (name[0] == 'R')
		return 1;
	return 0;
}

static bool v0_symbol(struct v0 *d)
{
	int c = v0_peek(d);

	/* A leading decimal number is a future encoding version. */
	if (c >= '0' && c <= '9')
		return false;
	if (!v0_path(d, true))
		return false;
	/* The instantiating crate is a path too; it is not shown. */
	c = v0_peek(d);
	if (c >= 'A' && c <= 'Z') {
		d->skip = true;
		if (!v0_path(d, false))
			return false;
		d->skip = false;
	}
	/* Vendor-specific suffixes (".llvm.123") are dropped. */
	c = v0_peek(d);
	return !c || c == '.' || c == '$';
}

/**
 * ustack_rust_v0_demangle - demangle a Rust v0 symbol
 * @name: symbol name, "_R", "__R" or "R" followed by the v0 encoding
 *
 * Returns a malloc'd string such as "<mycrate::Type as mycrate::Trait>::f"
 * (disambiguators left out), or NULL when @name is not a v0 symbol this
 * decoder fully understands.
 */
char *ustack_rust_v0_demangle(const char *name)
{
	size_t pre = v0_prefix(name);
	struct v0 d = { 0 };

	if (!pre)
		return NULL;
	d.s = name + pre;
	d.len = strlen(d.s);
	if (v0_symbol(&d) && d.out)
		return d.out;
	free(d.out);
	return NULL;
}
