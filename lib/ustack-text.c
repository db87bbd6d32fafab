// SPDX-License-Identifier: LGPL-2.1
/*
 * Untrusted text made safe for each output (the rule: ustack-text.h).
 *
 * A text is read as pieces: a run of characters its format takes as they
 * are, written in one go, or one unit it cannot take (a control
 * character, a byte that is not UTF-8, a character the format escapes),
 * written as what the format shows instead. Cuts are made between pieces,
 * or between the characters of a run: never inside a character or an
 * escape.
 */
#include <stdlib.h>
#include <string.h>

#include "ustack-text.h"

/* The kernel keeps a task name in TASK_COMM_LEN (16) bytes with its NUL */
#define COMM_MAX	15

#define REPLACEMENT	"\xef\xbf\xbd"	/* U+FFFD */

struct piece {
	const char	*p;		/* what to write */
	size_t		len;
	size_t		chars;		/* characters it shows */
	size_t		used;		/* input bytes it stands for */
	bool		run;		/* input as it is, may be cut */
	char		buf[16];
};

/**
 * ustack_text_utf8_decode - read one UTF-8 character
 * @s:		the text
 * @len:	bytes in @s, at least 1
 * @cp:		set to the character's code point
 *
 * Only well-formed UTF-8 is a character (Unicode, table 3-7): no
 * overlong form, no surrogate, nothing past U+10FFFF, no sequence cut
 * short. Returns its length (1 to 4), or minus the length of the
 * ill-formed sequence's maximal subpart (1 to 3): the bytes that one
 * U+FFFD stands for.
 */
int ustack_text_utf8_decode(const char *s, size_t len, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	uint32_t c = u[0];
	size_t n, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c < 0xc2 || c > 0xf4)
		return -1;
	if (c < 0xe0) {
		n = 2;
		c &= 0x1f;
	} else if (c < 0xf0) {
		n = 3;
		c &= 0x0f;
		if (u[0] == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (u[0] == 0xed)
			hi = 0x9f;	/* surrogates */
	} else {
		n = 4;
		c &= 0x07;
		if (u[0] == 0xf0)
			lo = 0x90;	/* overlong */
		else if (u[0] == 0xf4)
			hi = 0x8f;	/* past U+10FFFF */
	}
	for (i = 1; i < n; i++) {
		if (i >= len || u[i] < lo || u[i] > hi)
			return -(int)i;
		c = c << 6 | (u[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*cp = c;
	return n;
}

/**
 * ustack_text_is_control - a control character: C0, DEL or C1
 * @cp: a code point
 */
bool ustack_text_is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

#define AS(x)	(1 << USTACK_TEXT_##x)
#define ALL	(AS(TERM) | AS(UTF8) | AS(XML) | AS(JSON) | AS(JS))

/*
 * The formats (bit 1 << enum ustack_text_as) that take an ASCII character
 * as it is: printable ones but those their syntax escapes. A table: it is
 * looked up for every byte of every name printed.
 */
static const unsigned char ascii_ok[128] = {
	[0x20 ... 0x21]	= ALL,
	['"']		= AS(TERM) | AS(UTF8),
	[0x23 ... 0x25]	= ALL,
	['&']		= AS(TERM) | AS(UTF8) | AS(JSON),
	[0x27 ... 0x3b]	= ALL,
	['<']		= AS(TERM) | AS(UTF8) | AS(JSON),
	['=']		= ALL,
	['>']		= AS(TERM) | AS(UTF8) | AS(JSON),
	[0x3f ... 0x5b]	= ALL,
	['\\']		= AS(UTF8) | AS(XML),
	[0x5d ... 0x7e]	= ALL,
};

/* An ASCII character @as takes as it is */
static bool ascii_plain(unsigned char c, enum ustack_text_as as)
{
	return ascii_ok[c & 0x7f] & (1 << as);
}

/* A character past ASCII @as takes as it is */
static bool wide_plain(uint32_t cp, enum ustack_text_as as)
{
	if (ustack_text_is_control(cp))
		return false;
	if (as != USTACK_TEXT_TERM && as != USTACK_TEXT_JSON && (cp == 0xfffe || cp == 0xffff))
		return false;
	return as != USTACK_TEXT_JS || (cp != 0x2028 && cp != 0x2029);
}

static void piece_set(struct piece *pc, const char *text, size_t chars)
{
	size_t len = strlen(text);

	memcpy(pc->buf, text, len + 1);
	pc->p = pc->buf;
	pc->len = len;
	pc->chars = chars;
}

/* "\xNN" for each of @n bytes (TERM) */
static void piece_hex(struct piece *pc, const unsigned char *s, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		pc->buf[4 * i] = '\\';
		pc->buf[4 * i + 1] = 'x';
		pc->buf[4 * i + 2] = digits[s[i] >> 4];
		pc->buf[4 * i + 3] = digits[s[i] & 15];
	}
	pc->buf[4 * n] = '\0';
	pc->p = pc->buf;
	pc->len = 4 * n;
	pc->chars = 4 * n;
}

/* "\uXXXX" (JSON, JS) */
static void piece_u(struct piece *pc, uint32_t cp)
{
	static const char digits[] = "0123456789abcdef";
	char t[7] = { '\\', 'u', digits[cp >> 12 & 15], digits[cp >> 8 & 15],
		      digits[cp >> 4 & 15], digits[cp & 15], '\0' };

	piece_set(pc, t, 6);
}

/* An ASCII character @as does not take as it is */
static void piece_ascii(struct piece *pc, unsigned char c, enum ustack_text_as as)
{
	char t[3] = { '\\', (char)c, '\0' };

	switch (as) {
	case USTACK_TEXT_TERM:
		if (c == '\\')
			piece_set(pc, "\\\\", 2);
		else
			piece_hex(pc, &c, 1);
		return;
	case USTACK_TEXT_UTF8:
		piece_set(pc, REPLACEMENT, 1);
		return;
	case USTACK_TEXT_XML:
		if (c == '&')
			piece_set(pc, "&amp;", 1);
		else if (c == '<')
			piece_set(pc, "&lt;", 1);
		else if (c == '>')
			piece_set(pc, "&gt;", 1);
		else if (c == '"')
			piece_set(pc, "&quot;", 1);
		else
			piece_set(pc, REPLACEMENT, 1);
		return;
	case USTACK_TEXT_JSON:
	case USTACK_TEXT_JS:
		if (c == '"' || c == '\\')
			piece_set(pc, t, 2);
		else if (as == USTACK_TEXT_JS && c >= 0x20 && c != 0x7f)
			piece_u(pc, c);		/* < > & */
		else if (as == USTACK_TEXT_JS)
			piece_set(pc, REPLACEMENT, 1);
		else
			piece_u(pc, c);
		return;
	}
}

/* A character past ASCII (@n bytes) or an ill-formed sequence (@n < 0) */
static void piece_wide(struct piece *pc, const unsigned char *s, int n, uint32_t cp,
		       enum ustack_text_as as)
{
	size_t bytes = n < 0 ? -n : n;

	if (as == USTACK_TEXT_TERM)
		piece_hex(pc, s, bytes);
	else if (n > 0 && as == USTACK_TEXT_JSON)
		piece_u(pc, cp);			/* C1 */
	else if (n > 0 && as == USTACK_TEXT_JS && (cp == 0x2028 || cp == 0x2029))
		piece_u(pc, cp);
	else
		piece_set(pc, REPLACEMENT, 1);
}

/*
 * The piece @s starts with (@len > 0 bytes): a run of at most @max
 * characters (@max > 0) that @as takes, else one unit it does not.
 */
static void next_piece(const char *s, size_t len, size_t max, enum ustack_text_as as,
		       struct piece *pc)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, chars = 0;
	uint32_t cp = 0;
	int n;

	while (i < len && chars < max) {
		if (u[i] < 0x80) {
			if (!ascii_plain(u[i], as))
				break;
			i++;
		} else {
			n = ustack_text_utf8_decode(s + i, len - i, &cp);
			if (n < 0 || !wide_plain(cp, as))
				break;
			i += n;
		}
		chars++;
	}
	pc->run = i > 0;
	if (i) {
		pc->p = s;
		pc->len = pc->used = i;
		pc->chars = chars;
		return;
	}
	if (u[0] < 0x80) {
		piece_ascii(pc, u[0], as);
		pc->used = 1;
		return;
	}
	n = ustack_text_utf8_decode(s, len, &cp);
	piece_wide(pc, u, n, cp, as);
	pc->used = n < 0 ? -n : n;
}

/**
 * ustack_text_escape - write untrusted text in the form of a format
 * @dst:	where to, may be NULL when @size is 0
 * @size:	bytes at @dst, NUL included
 * @s:		the text
 * @len:	its length in bytes
 * @as:		the format
 *
 * As snprintf(): what does not fit is left out, cut between characters,
 * and @dst is terminated when @size is not 0. Returns the length of the
 * whole result, without its NUL.
 */
size_t ustack_text_escape(char *dst, size_t size, const char *s, size_t len,
			  enum ustack_text_as as)
{
	size_t total = 0, out = 0, n;
	bool full = !size;
	struct piece pc;

	while (len) {
		next_piece(s, len, SIZE_MAX, as, &pc);
		if (!full && out + pc.len < size) {
			memcpy(dst + out, pc.p, pc.len);
			out += pc.len;
		} else if (!full) {
			/* a run is valid UTF-8: cut it at a character */
			n = pc.run ? ustack_text_cut(pc.p, size - 1 - out) : 0;
			memcpy(dst + out, pc.p, n);
			out += n;
			full = true;
		}
		total += pc.len;
		s += pc.used;
		len -= pc.used;
	}
	if (size)
		dst[out] = '\0';
	return total;
}

/**
 * ustack_text_dup - untrusted text in the form of a format, allocated
 * @s:	the text
 * @as:	the format
 *
 * Returns a string to free(), or NULL when out of memory.
 */
char *ustack_text_dup(const char *s, enum ustack_text_as as)
{
	size_t len = strlen(s), n = ustack_text_escape(NULL, 0, s, len, as);
	char *d = malloc(n + 1);

	if (d)
		ustack_text_escape(d, n + 1, s, len, as);
	return d;
}

/**
 * ustack_text_fput_len - write untrusted text to a stream
 * @fp:		the stream
 * @s:		the text
 * @len:	its length in bytes
 * @as:		the format
 *
 * Returns 0, or EOF on a write error.
 */
int ustack_text_fput_len(FILE *fp, const char *s, size_t len, enum ustack_text_as as)
{
	struct piece pc;

	while (len) {
		next_piece(s, len, SIZE_MAX, as, &pc);
		if (fwrite(pc.p, 1, pc.len, fp) != pc.len)
			return EOF;
		s += pc.used;
		len -= pc.used;
	}
	return 0;
}

/**
 * ustack_text_fput - write an untrusted string to a stream
 * @fp:	the stream
 * @s:	the string
 * @as:	the format
 *
 * Returns 0, or EOF on a write error.
 */
int ustack_text_fput(FILE *fp, const char *s, enum ustack_text_as as)
{
	return ustack_text_fput_len(fp, s, strlen(s), as);
}

/**
 * ustack_text_fput_chars - write at most @max characters of untrusted text
 * @fp:		the stream
 * @s:		the string
 * @max:	characters shown at most (an escape shows several, an XML
 *		entity or U+FFFD one)
 * @as:		the format
 *
 * The text is cut between characters, never inside an escape. Returns
 * the characters written.
 */
size_t ustack_text_fput_chars(FILE *fp, const char *s, size_t max, enum ustack_text_as as)
{
	size_t len = strlen(s), done = 0;
	struct piece pc;

	while (len && done < max) {
		next_piece(s, len, max - done, as, &pc);
		if (done + pc.chars > max)
			break;
		fwrite(pc.p, 1, pc.len, fp);
		done += pc.chars;
		s += pc.used;
		len -= pc.used;
	}
	return done;
}

/**
 * ustack_text_width - the characters untrusted text shows in a format
 * @s:	the string
 * @as:	the format
 *
 * What ustack_text_fput_chars() counts: an escape is as wide as its
 * characters, an XML entity or U+FFFD one.
 */
size_t ustack_text_width(const char *s, enum ustack_text_as as)
{
	size_t len = strlen(s), chars = 0;
	struct piece pc;

	while (len) {
		next_piece(s, len, SIZE_MAX, as, &pc);
		chars += pc.chars;
		s += pc.used;
		len -= pc.used;
	}
	return chars;
}

/**
 * ustack_text_plain - whether a format takes a string as it is
 * @s:	the string
 * @as:	the format
 */
bool ustack_text_plain(const char *s, enum ustack_text_as as)
{
	size_t len = strlen(s);
	struct piece pc;

	if (!len)
		return true;
	next_piece(s, len, SIZE_MAX, as, &pc);
	return pc.run && pc.used == len;
}

/**
 * ustack_text_cut - where to cut a text so that no character is cut
 * @s:		the text, already cut at @len bytes
 * @len:	its length
 *
 * Returns @len less the bytes of a character it ends inside of (the
 * start of a well-formed sequence that needs more bytes than are left).
 * Ill-formed bytes are not a character: they stay.
 */
size_t ustack_text_cut(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t k, start;
	uint32_t cp;

	for (k = 1; k <= 3 && k <= len; k++) {
		start = len - k;
		if (u[start] < 0x80)
			return len;
		if (u[start] >= 0xc0) {
			/* a lead byte: cut when all that follows it matched */
			if (u[start] < 0xc2 || u[start] > 0xf4)
				return len;
			return ustack_text_utf8_decode(s + start, k, &cp) == -(int)k ? start : len;
		}
	}
	return len;
}

/**
 * ustack_text_comm_len - the bytes of a task name to show
 * @comm: the name, as the trace has it
 *
 * The kernel keeps 15 bytes of a name: one that long may end inside a
 * character the kernel cut, which is left out. Returns its length less
 * those bytes.
 */
size_t ustack_text_comm_len(const char *comm)
{
	size_t len = strlen(comm);

	return len == COMM_MAX ? ustack_text_cut(comm, len) : len;
}
