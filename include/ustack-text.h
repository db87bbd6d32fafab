/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Text that comes from a trace or a traced program (task names, paths,
 * symbol and JIT names, event fields) is untrusted: it may hold terminal
 * escape sequences, bytes that are not UTF-8, or a character the kernel
 * cut in two. Every output writes it through these functions, at the
 * moment it is written, in the form its format needs (one rule, coded
 * once in lib/ustack-text.c):
 *
 * USTACK_TEXT_TERM (terminal and text outputs, messages on stderr):
 *	printable UTF-8 as it is; every byte of a control character (C0
 *	U+0000..U+001F, DEL U+007F, C1 U+0080..U+009F, so its UTF-8 form
 *	0xc2 0x80..0x9f too) and every byte that is not part of well-formed
 *	UTF-8 as "\xNN"; a backslash as "\\" (as strace and C do), so that
 *	the text reads back unambiguously.
 * USTACK_TEXT_UTF8 (pprof; what the SVG shows): well-formed UTF-8 with
 *	no control character: each ill-formed sequence (its maximal subpart,
 *	as Unicode recommends), each control character, and U+FFFE and
 *	U+FFFF (not XML 1.0 characters) become U+FFFD.
 * USTACK_TEXT_XML (SVG character data and attributes): USTACK_TEXT_UTF8,
 *	and & < > " as entities.
 * USTACK_TEXT_JSON (speedscope): ill-formed UTF-8 as U+FFFD, a control
 *	character as \u00XX, " and \ escaped.
 * USTACK_TEXT_JS (JSON inside the SVG's CDATA script): the characters
 *	USTACK_TEXT_XML shows, as a JSON string that cannot end the CDATA
 *	section or the script (< > & as \u003c \u003e \u0026, U+2028 and
 *	U+2029 escaped too).
 *
 * A text cut to a length is cut between characters, never inside one or
 * inside an escape.
 */
#ifndef _USTACK_TEXT_H
#define _USTACK_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum ustack_text_as {
	USTACK_TEXT_TERM,
	USTACK_TEXT_UTF8,
	USTACK_TEXT_XML,
	USTACK_TEXT_JSON,
	USTACK_TEXT_JS,
};

int ustack_text_utf8_decode(const char *s, size_t len, uint32_t *cp);
bool ustack_text_is_control(uint32_t cp);

size_t ustack_text_escape(char *dst, size_t size, const char *s, size_t len,
			  enum ustack_text_as as);
char *ustack_text_dup(const char *s, enum ustack_text_as as);
int ustack_text_fput(FILE *fp, const char *s, enum ustack_text_as as);
int ustack_text_fput_len(FILE *fp, const char *s, size_t len, enum ustack_text_as as);
size_t ustack_text_fput_chars(FILE *fp, const char *s, size_t max, enum ustack_text_as as);
size_t ustack_text_width(const char *s, enum ustack_text_as as);
bool ustack_text_plain(const char *s, enum ustack_text_as as);

size_t ustack_text_cut(const char *s, size_t len);
size_t ustack_text_comm_len(const char *comm);

#endif /* _USTACK_TEXT_H */
