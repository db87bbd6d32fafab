// SPDX-License-Identifier: LGPL-2.1
/*
 * Side-band records as text (see ustack-sideband.h): formatted for a
 * trace.dat and parsed back, a repeated sample written short. The records
 * for what existed before the perf events were opened are
 * ustack-sideband-scan.c's.
 *
 * Text of a record, one ftrace:print buffer each:
 *
 *	ustack-sb mmap pid=P tid=T start=0x.. len=0x.. pgoff=0x.. prot=N flags=0x..
 *		(build_id=HEX | dev=MAJ:MIN ino=N) path=PATH
 *	ustack-sb comm pid=P tid=T exec=0|1 comm=NAME
 *	ustack-sb fork pid=P ppid=P tid=T ptid=T	(and exit)
 *	ustack-sb lost pid=P n=N
 *	ustack-sb throttle id=N			(and unthrottle: N the perf
 *						event's stream id)
 *	ustack-sb sample pid=P tid=T cpu=C [cut=1] raw=HEX chain=E,E,...
 *		[regs=MASK:V,V,... stack=SIZE:W,W,...] [umax=N]
 *
 * key=value pairs separated by one blank; path= and comm= come last and
 * take the rest of the text (names may hold blanks).
 *
 * A trace.dat stores the samples without registers as ustack:sample
 * records, bytes not text (ustack-sample-event.h, decoded by
 * ustack_sideband_decode_prev() below); the text of a sample is that of
 * the others and of every sample in earlier recordings.
 *
 * A sample (the perf stack source) keeps the tracepoint's payload in hex
 * and its callchain short: "u" and "k" for the user and kernel context
 * markers, "x" and the value for another marker, and each address as
 * the hex difference from the address before it ("-" when lower): the
 * frames of one program lie close together, so most take a few digits.
 * cut=1: the kernel stopped at its frame limit.
 *
 * A sample whose thread's last sample had the same payload, callchain
 * and cut (and no stack copy) is written "sample pid=P tid=T cpu=C
 * same=1": a traced event in a loop repeats its stack, and the whole text
 * of each was most of what the recorder wrote and compressed. Writer and
 * reader keep the last sample of each thread alike (struct ustack_sb_prev,
 * a thread's slot taken by tid): both see every sample in file order.
 *
 * With --call-graph=dwarf, regs= has the user registers (perf's
 * sample_regs_user MASK, then a value per bit) and stack= the copy of
 * SIZE bytes from the stack pointer up, but only the 8-byte words the
 * recorder's unwind read (a few a frame, where perf keeps all): "~N"
 * skips N words, a value stands for the next word. A value is hex, or
 * "s" and its hex distance above the stack pointer (saved frame
 * pointers, addresses on the stack). A copy that does not fit in one
 * print record keeps the words that fit and says its SIZE ends there:
 * report then tells the walk ran out of copy, as it did. umax=N: the
 * recorder's unwind stopped at its frame limit N, and so must report's
 * (the words of the frames after it were not kept).
 */
#include <stdbool.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "ustack-array.h"
#include "ustack-sideband.h"
#include "ustack-sample-event.h"
#include "ustack-unwind.h"
#include "ustack-word-map.h"

static const char *const kind_names[] = {
	[USTACK_SB_MMAP]	= "mmap",
	[USTACK_SB_COMM]	= "comm",
	[USTACK_SB_FORK]	= "fork",
	[USTACK_SB_EXIT]	= "exit",
	[USTACK_SB_LOST]	= "lost",
	[USTACK_SB_SAMPLE]	= "sample",
	[USTACK_SB_DEFERRED]	= "deferred",
	/* any reader counts it malformed, one that knows no such kind too */
	[USTACK_SB_UNPARSED]	= "malformed",
	[USTACK_SB_THROTTLE]	= "throttle",
	[USTACK_SB_UNTHROTTLE]	= "unthrottle",
};

/* Room for what one print buffer can hold (a page) */
#define SAMPLE_RAW_MAX		4096
#define SAMPLE_CHAIN_MAX	2048

#define SAMPLE_REGS_MAX		64
#define SAMPLE_STACK_MAX	65536

/* Where a parsed sample's payload and chain are (see ustack_sideband_parse()) */
static __thread unsigned char sample_raw[SAMPLE_RAW_MAX];
static __thread uint64_t sample_chain[SAMPLE_CHAIN_MAX];
static __thread uint64_t sample_regs[SAMPLE_REGS_MAX];
static __thread uint64_t sample_stack[SAMPLE_STACK_MAX / 8];
static __thread uint8_t sample_valid[SAMPLE_STACK_MAX / 64];

static int format_mmap(const struct ustack_sb_rec *r, char *buf, size_t size)
{
	int n, i;

	n = snprintf(buf, size, USTACK_SB_MARKER "mmap pid=%d tid=%d start=%#" PRIx64
		     " len=%#" PRIx64 " pgoff=%#" PRIx64 " prot=%u flags=%#x ",
		     r->pid, r->tid, r->start, r->len, r->pgoff, r->prot, r->flags);
	if (n < 0 || (size_t)n >= size)
		return n;
	if (r->build_id_len) {
		n += snprintf(buf + n, size - n, "build_id=");
		for (i = 0; i < (int)r->build_id_len && (size_t)n < size; i++)
			n += snprintf(buf + n, size - n, "%02x", r->build_id[i]);
		if ((size_t)n < size)
			n += snprintf(buf + n, size - n, " ");
	} else {
		n += snprintf(buf + n, size - n, "dev=%u:%u ino=%" PRIu64 " ",
			      r->maj, r->min, r->ino);
	}
	if ((size_t)n < size)
		n += snprintf(buf + n, size - n, "path=%s", r->name ? r->name : "");
	return n;
}

/*
 * A sample is written for every traced event while recording: hex by
 * hand, snprintf() per byte cost more than the rest of the recorder.
 * Each helper writes at *@p while it fits before @end; *@p always
 * advances by the length, so that the caller learns what was needed.
 */
static const char hex_digits[] = "0123456789abcdef";

static void put_char(char **p, char *end, char c)
{
	if (*p < end)
		**p = c;
	(*p)++;
}

static void put_str(char **p, char *end, const char *s)
{
	size_t n = strlen(s);

	if (end - *p >= (ptrdiff_t)n) {
		memcpy(*p, s, n);
		*p += n;
		return;
	}
	while (*s)
		put_char(p, end, *s++);
}

/* Digits written from the last one back: their number is known first */
static void put_hex(char **p, char *end, uint64_t v)
{
	int n = v ? (67 - __builtin_clzll(v)) / 4 : 1;
	bool fits = end - *p >= n;
	char tmp[16], *w = fits ? *p + n : tmp + n;
	int i;

	do {
		*--w = hex_digits[v & 15];
		v >>= 4;
	} while (v);
	if (fits) {
		*p += n;
		return;
	}
	for (i = 0; i < n; i++)
		put_char(p, end, tmp[i]);
}

/* Two digits a byte; byte by byte only where the room ends */
static void put_bytes(char **p, char *end, const unsigned char *b, size_t n)
{
	char *q = *p;
	size_t i;

	if (end - q < (ptrdiff_t)(2 * n)) {
		for (i = 0; i < n; i++) {
			put_char(p, end, hex_digits[b[i] >> 4]);
			put_char(p, end, hex_digits[b[i] & 15]);
		}
		return;
	}
	for (i = 0; i < n; i++) {
		q[2 * i] = hex_digits[b[i] >> 4];
		q[2 * i + 1] = hex_digits[b[i] & 15];
	}
	*p = q + 2 * n;
}

static void put_dec(char **p, char *end, int v)
{
	char tmp[12];
	unsigned int u = v < 0 ? -(unsigned int)v : (unsigned int)v;
	int n = 0;

	if (v < 0)
		put_char(p, end, '-');
	do {
		tmp[n++] = '0' + u % 10;
		u /= 10;
	} while (u);
	while (n)
		put_char(p, end, tmp[--n]);
}

static void put_entry(char **p, char *end, uint64_t e, uint64_t *prev)
{
	if (e == PERF_CONTEXT_USER) {
		put_char(p, end, 'u');
	} else if (e == PERF_CONTEXT_KERNEL) {
		put_char(p, end, 'k');
	} else if (e >= (uint64_t)PERF_CONTEXT_MAX) {
		put_char(p, end, 'x');
		put_hex(p, end, e);
	} else if (e < *prev) {
		put_char(p, end, '-');
		put_hex(p, end, *prev - e);
		*prev = e;
	} else {
		put_hex(p, end, e - *prev);
		*prev = e;
	}
}

/* The stack pointer of a sample with registers, 0 without */
static uint64_t sample_sp(const struct ustack_sb_rec *r)
{
	uint64_t below = r->regs_mask & ((1ULL << USTACK_REG_SP) - 1);

	if (!r->regs || !(r->regs_mask & (1ULL << USTACK_REG_SP)))
		return 0;
	return r->regs[__builtin_popcountll(below)];
}

/* A register or stack word: near the stack pointer, as its distance */
static void put_word(char **p, char *end, uint64_t v, uint64_t sp)
{
	if (sp && v >= sp && v - sp < SAMPLE_STACK_MAX) {
		put_char(p, end, 's');
		v -= sp;
	}
	put_hex(p, end, v);
}

static void put_regs(const struct ustack_sb_rec *r, char **p, char *end, uint64_t sp)
{
	int i, nr = __builtin_popcountll(r->regs_mask);

	put_str(p, end, " regs=");
	put_hex(p, end, r->regs_mask);
	put_char(p, end, ':');
	for (i = 0; i < nr; i++) {
		if (i)
			put_char(p, end, ',');
		/* the stack pointer itself: plain, the others are relative to it */
		put_word(p, end, r->regs[i], sp == r->regs[i] ? 0 : sp);
	}
}

/* Is word @i of @r's copy kept (stack_valid: the words the unwind read)? */
static bool word_kept(const struct ustack_sb_rec *r, uint32_t i)
{
	return !r->stack_valid || ustack_word_map_test(r->stack_valid, i);
}

/* The kept words among the first @nw of the copy */
static void put_stack(const struct ustack_sb_rec *r, char **p, char *end, uint64_t sp,
		      uint32_t nw)
{
	const unsigned char *stack = r->stack;
	uint32_t i, skip = 0, size = r->stack_size & ~7U;
	bool first = true;
	uint64_t v;

	/* cut short: the copy ends after the last word written */
	if (nw < size / 8)
		size = nw * 8;
	put_str(p, end, " stack=");
	put_hex(p, end, size);
	put_char(p, end, ':');
	for (i = 0; i < nw; i++) {
		if (!word_kept(r, i)) {
			skip++;
			continue;
		}
		if (!first)
			put_char(p, end, ',');
		first = false;
		if (skip) {
			put_char(p, end, '~');
			put_hex(p, end, skip);
			put_char(p, end, ',');
			skip = 0;
		}
		memcpy(&v, stack + i * 8, 8);
		put_word(p, end, v, sp);
	}
}

/* " chain=" and the first @nr entries of @chain */
static void put_chain(char **p, char *end, const uint64_t *chain, uint32_t nr)
{
	uint64_t prev = 0;
	uint32_t i;

	put_str(p, end, " chain=");
	for (i = 0; i < nr; i++) {
		if (i)
			put_char(p, end, ',');
		put_entry(p, end, chain[i], &prev);
	}
}

/* NUL-terminated when it fits, as snprintf(); the length it needed */
static size_t put_end(char *p, char *end, char *buf, size_t size)
{
	if (p < end)
		*p = '\0';
	else if (size)
		end[-1] = '\0';
	return p - buf;
}

/* A sample record's start, whose task and CPU every sample names */
static void put_sample_head(char **p, char *end, const struct ustack_sb_rec *r)
{
	put_str(p, end, USTACK_SB_MARKER "sample pid=");
	put_dec(p, end, r->pid);
	put_str(p, end, " tid=");
	put_dec(p, end, r->tid);
	put_str(p, end, " cpu=");
	put_dec(p, end, r->cpu);
}

/*
 * The text of @r with the first @nr entries of its chain and the first
 * @nw words of its stack copy
 */
static size_t put_sample(const struct ustack_sb_rec *r, char *buf, size_t size, uint32_t nr,
			 uint32_t nw, bool cut)
{
	char *p = buf, *end = buf + size;

	put_sample_head(&p, end, r);
	put_str(&p, end, cut ? " cut=1 raw=" : " raw=");
	put_bytes(&p, end, r->raw, r->raw_size);
	put_chain(&p, end, r->chain, nr);
	if (r->regs_mask && r->regs) {
		put_regs(r, &p, end, sample_sp(r));
		if (r->stack)
			put_stack(r, &p, end, sample_sp(r), nw);
		if (r->unwind_max) {
			put_str(&p, end, " umax=");
			put_dec(&p, end, r->unwind_max);
		}
	}
	return put_end(p, end, buf, size);
}

/* A deferred user chain: no payload, the cookie of the samples it answers */
static size_t put_deferred(const struct ustack_sb_rec *r, char *buf, size_t size, uint32_t nr,
			   bool cut)
{
	char *p = buf, *end = buf + size;

	put_str(&p, end, USTACK_SB_MARKER "deferred pid=");
	put_dec(&p, end, r->pid);
	put_str(&p, end, " tid=");
	put_dec(&p, end, r->tid);
	put_str(&p, end, " cpu=");
	put_dec(&p, end, r->cpu);
	put_str(&p, end, cut ? " cut=1 cookie=" : " cookie=");
	put_hex(&p, end, r->cookie);
	put_chain(&p, end, r->chain, nr);
	return put_end(p, end, buf, size);
}

/*
 * A chain too long for one print record loses its outer end and says it
 * is cut there, rather than end in half an address.
 */
static int format_sample(const struct ustack_sb_rec *r, char *buf, size_t size)
{
	uint32_t nr = r->nr_chain, nw = r->regs ? r->stack_size / 8 : 0;
	size_t len = put_sample(r, buf, size, nr, nw, r->cut);

	/* a stack copy too big loses its outer words first, halving what is over */
	while (len >= size && nw) {
		nw = nw > 16 ? nw - (nw + 15) / 16 : nw - 1;
		len = put_sample(r, buf, size, nr, nw, r->cut);
	}
	while (len >= size && nr) {
		nr--;
		len = put_sample(r, buf, size, nr, nw, true);
	}
	return len;
}

static int format_deferred(const struct ustack_sb_rec *r, char *buf, size_t size)
{
	uint32_t nr = r->nr_chain;
	size_t len = put_deferred(r, buf, size, nr, r->cut);

	while (len >= size && nr) {
		nr--;
		len = put_deferred(r, buf, size, nr, true);
	}
	return len;
}

/* The value of hex digit @c, or -1 */
static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * @len hex digits into @out (at most @max bytes); returns the bytes, or
 * -1. By hand, not sscanf(): every sample's payload goes through here.
 */
static ssize_t parse_hex(const char *hex, size_t len, unsigned char *out, size_t max)
{
	int hi, lo;
	size_t i;

	if (len % 2 || len / 2 > max)
		return -1;
	for (i = 0; i < len / 2; i++) {
		hi = hex_digit(hex[2 * i]);
		lo = hex_digit(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = hi << 4 | lo;
	}
	return len / 2;
}

static int parse_raw(const char *hex, size_t len, struct ustack_sb_rec *r)
{
	ssize_t n = parse_hex(hex, len, sample_raw, SAMPLE_RAW_MAX);

	/* an event's payload has its common fields at least: never empty */
	if (n <= 0)
		return -1;
	r->raw = sample_raw;
	r->raw_size = n;
	return 0;
}

/* One value of regs= or stack=: hex, or "s" and a distance (@rel) */
static int parse_word(const char **p, const char *end, uint64_t *v, bool *rel)
{
	const char *next;
	int d;

	*rel = **p == 's';
	if (*rel)
		(*p)++;
	/* By hand, not strtoull(): a few hundred words a sample come here */
	*v = 0;
	for (next = *p; next < end && (d = hex_digit(*next)) >= 0; next++) {
		if (*v >> 60)
			return -1;
		*v = *v << 4 | d;
	}
	if (next == *p || (next < end && *next != ','))
		return -1;
	*p = next + (next < end);
	return 0;
}

static int parse_regs(const char *p, size_t len, struct ustack_sb_rec *r)
{
	const char *end = p + len;
	uint64_t mask, rel_mask = 0;
	size_t i, nr, sp_at;
	char *next;
	bool rel;

	mask = strtoull(p, &next, 16);
	nr = __builtin_popcountll(mask);
	if (next >= end || *next != ':' || !nr || nr > SAMPLE_REGS_MAX ||
	    !(mask & (1ULL << USTACK_REG_SP)))
		return -1;
	p = next + 1;
	for (i = 0; i < nr; i++) {
		if (p >= end || parse_word(&p, end, &sample_regs[i], &rel))
			return -1;
		rel_mask |= (uint64_t)rel << i;
	}
	/* relative to the stack pointer, known once all are read */
	sp_at = __builtin_popcountll(mask & ((1ULL << USTACK_REG_SP) - 1));
	if (rel_mask & (1ULL << sp_at))
		return -1;
	for (i = 0; i < nr; i++)
		if (rel_mask & (1ULL << i))
			sample_regs[i] += sample_regs[sp_at];
	r->regs_mask = mask;
	r->regs = sample_regs;
	return p == end ? 0 : -1;
}

/* After regs= (the stack pointer): the kept words; the others are holes */
static int parse_stack(const char *p, size_t len, struct ustack_sb_rec *r)
{
	const char *end = p + len;
	uint64_t size, v, sp = sample_sp(r), i = 0;
	char *next;
	bool rel;

	size = strtoull(p, &next, 16);
	if (!r->regs || next >= end || *next != ':' || size > SAMPLE_STACK_MAX || size % 8)
		return -1;
	p = next + 1;
	memset(sample_valid, 0, sizeof(sample_valid));
	while (p < end) {
		if (*p == '~') {
			p++;
			if (parse_word(&p, end, &v, &rel) || rel || v > size / 8 - i)
				return -1;
			i += v;
			continue;
		}
		if (i >= size / 8 || parse_word(&p, end, &v, &rel))
			return -1;
		sample_stack[i] = v + (rel ? sp : 0);
		ustack_word_map_set(sample_valid, i);
		i++;
	}
	r->stack = sample_stack;
	r->stack_size = size;
	r->stack_valid = sample_valid;
	return 0;
}

static int parse_chain(const char *p, size_t len, struct ustack_sb_rec *r)
{
	const char *end = p + len;
	uint64_t prev = 0, v;
	uint32_t n = 0;
	char *next;

	while (p < end) {
		if (n == SAMPLE_CHAIN_MAX)
			return -1;
		if (*p == 'u' || *p == 'k') {
			sample_chain[n++] = *p == 'u' ? PERF_CONTEXT_USER : PERF_CONTEXT_KERNEL;
			next = (char *)p + 1;
		} else if (*p == 'x') {
			sample_chain[n++] = strtoull(p + 1, &next, 16);
		} else if (*p == '-') {
			v = strtoull(p + 1, &next, 16);
			prev -= v;
			sample_chain[n++] = prev;
		} else {
			v = strtoull(p, &next, 16);
			prev += v;
			sample_chain[n++] = prev;
		}
		if (next == p || next > end || (next < end && *next != ','))
			return -1;
		p = next + (next < end);
	}
	r->chain = sample_chain;
	r->nr_chain = n;
	return 0;
}

/**
 * ustack_sideband_format - the text a record is stored as
 * @rec:	the record
 * @buf:	where to
 * @size:	room in @buf
 *
 * Returns the length, as snprintf() (the text is cut when it does not fit).
 */
int ustack_sideband_format(const struct ustack_sb_rec *rec, char *buf, size_t size)
{
	switch (rec->kind) {
	case USTACK_SB_MMAP:
		return format_mmap(rec, buf, size);
	case USTACK_SB_COMM:
		return snprintf(buf, size, USTACK_SB_MARKER "comm pid=%d tid=%d exec=%d comm=%s",
				rec->pid, rec->tid, rec->exec, rec->name ? rec->name : "");
	case USTACK_SB_FORK:
	case USTACK_SB_EXIT:
		return snprintf(buf, size, USTACK_SB_MARKER "%s pid=%d ppid=%d tid=%d ptid=%d",
				kind_names[rec->kind], rec->pid, rec->ppid, rec->tid, rec->ptid);
	case USTACK_SB_LOST:
		return snprintf(buf, size, USTACK_SB_MARKER "lost pid=%d n=%" PRIu64,
				rec->pid, rec->lost);
	case USTACK_SB_SAMPLE:
		return format_sample(rec, buf, size);
	case USTACK_SB_DEFERRED:
		return format_deferred(rec, buf, size);
	case USTACK_SB_UNPARSED:
		return snprintf(buf, size, USTACK_SB_MARKER "malformed type=%" PRIu32 " size=%" PRIu32,
				rec->perf_type, rec->perf_size);
	case USTACK_SB_THROTTLE:
	case USTACK_SB_UNTHROTTLE:
		return snprintf(buf, size, USTACK_SB_MARKER "%s id=%" PRIu64,
				kind_names[rec->kind], rec->event_id);
	}
	return -1;
}

static int parse_build_id(const char *hex, size_t len, struct ustack_sb_rec *r)
{
	ssize_t n = parse_hex(hex, len, r->build_id, USTACK_BUILD_ID_MAX);

	if (n < 0)
		return -1;
	r->build_id_len = n;
	return 0;
}

/*
 * A decimal count of @len bytes at @val, within 0..@max: a file's numbers
 * are bounded before anything sizes or indexes with them.
 */
static int parse_bounded(const char *val, size_t len, unsigned long max, int *out)
{
	unsigned long v = 0;
	size_t i;

	if (!len || len > 10)
		return -1;
	for (i = 0; i < len; i++) {
		if (val[i] < '0' || val[i] > '9')
			return -1;
		v = v * 10 + (val[i] - '0');
	}
	if (v > max)
		return -1;
	*out = (int)v;
	return 0;
}

/* The recorder's frame limit: what --max-stack takes, never 0 */
static int parse_umax(const char *val, size_t len, struct ustack_sb_rec *r)
{
	int v;

	if (parse_bounded(val, len, USTACK_SB_UMAX_MAX, &v) || !v)
		return -1;
	r->unwind_max = v;
	return 0;
}

/* One key=value pair; @val has @len bytes (up to the next blank). */
static int parse_pair(const char *key, size_t klen, const char *val, size_t len,
		      struct ustack_sb_rec *r)
{
#define KEY(k)	(klen == strlen(k) && !strncmp(key, k, klen))
	if (KEY("pid"))
		r->pid = strtol(val, NULL, 10);
	else if (KEY("tid"))
		r->tid = strtol(val, NULL, 10);
	else if (KEY("ppid"))
		r->ppid = strtol(val, NULL, 10);
	else if (KEY("ptid"))
		r->ptid = strtol(val, NULL, 10);
	else if (KEY("exec"))
		r->exec = strtol(val, NULL, 10) != 0;
	else if (KEY("start"))
		r->start = strtoull(val, NULL, 0);
	else if (KEY("len"))
		r->len = strtoull(val, NULL, 0);
	else if (KEY("pgoff"))
		r->pgoff = strtoull(val, NULL, 0);
	else if (KEY("prot"))
		r->prot = strtoul(val, NULL, 0);
	else if (KEY("flags"))
		r->flags = strtoul(val, NULL, 0);
	else if (KEY("ino"))
		r->ino = strtoull(val, NULL, 10);
	else if (KEY("n"))
		r->lost = strtoull(val, NULL, 10);
	else if (KEY("dev"))
		return sscanf(val, "%u:%u", &r->maj, &r->min) == 2 ? 0 : -1;
	else if (KEY("build_id"))
		return parse_build_id(val, len, r);
	else if (KEY("cpu"))
		return parse_bounded(val, len, USTACK_SB_CPU_MAX - 1, &r->cpu);
	else if (KEY("cut"))
		r->cut = strtol(val, NULL, 10) != 0;
	else if (KEY("same"))
		r->same = strtol(val, NULL, 10) != 0;
	else if (KEY("umax"))
		return parse_umax(val, len, r);
	else if (KEY("cookie"))
		r->cookie = strtoull(val, NULL, 16);
	else if (KEY("id"))
		r->event_id = strtoull(val, NULL, 10);
	else if (KEY("raw"))
		return parse_raw(val, len, r);
	else if (KEY("chain"))
		return parse_chain(val, len, r);
	else if (KEY("regs"))
		return parse_regs(val, len, r);
	else if (KEY("stack"))
		return parse_stack(val, len, r);
	return 0;
#undef KEY
}

static int parse_kind(const char *word, size_t len, struct ustack_sb_rec *r)
{
	size_t k;

	for (k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]); k++) {
		if (strlen(kind_names[k]) == len && !strncmp(word, kind_names[k], len)) {
			r->kind = k;
			return 0;
		}
	}
	return -1;
}

/* The record @text says, a repeated sample without its payload and chain */
/* The kind and key=value pairs after the marker, checked as a whole */
static int parse_fields(const char *p, struct ustack_sb_rec *rec)
{
	const char *end, *eq;

	end = p + strcspn(p, " ");
	if (parse_kind(p, end - p, rec))
		return -1;
	for (p = end; *p == ' '; p = end) {
		p++;
		if (!strncmp(p, "path=", 5) || !strncmp(p, "comm=", 5)) {
			rec->name = p + 5;
			break;
		}
		end = p + strcspn(p, " ");
		eq = memchr(p, '=', end - p);
		if (!eq || parse_pair(p, eq - p, eq + 1, end - eq - 1, rec))
			return -1;
	}
	if ((rec->kind == USTACK_SB_MMAP || rec->kind == USTACK_SB_COMM) && !rec->name)
		return -1;
	/* a mapping that is empty or wraps the address space maps nothing */
	if (rec->kind == USTACK_SB_MMAP && (!rec->len || rec->start + rec->len < rec->start))
		return -1;
	if (rec->kind == USTACK_SB_DEFERRED && !rec->cookie)
		return -1;
	return 0;
}

/* The record @text says, a repeated sample without its payload and chain */
static int parse_text(const char *text, uint64_t ts, struct ustack_sb_rec *rec)
{
	size_t n = strlen(USTACK_SB_MARKER);

	if (strncmp(text, USTACK_SB_MARKER, n))
		return USTACK_SB_NOT_OURS;
	memset(rec, 0, sizeof(*rec));
	rec->ts = ts;
	if (parse_fields(text + n, rec))
		return USTACK_SB_MALFORMED;
	/* a perf record the recorder could not read: counted as it counted it */
	return rec->kind == USTACK_SB_UNPARSED ? USTACK_SB_MALFORMED : 0;
}

/**
 * ustack_sideband_parse - read a record back from its text
 * @text:	a ftrace:print buffer
 * @ts:		the time of the print record
 * @rec:	filled in; @rec->name points into @text, a sample's payload
 *		and chain into the parser's own room, valid until its next
 *		call in this thread
 *
 * A repeated sample ("same=1") needs the samples before it: see
 * ustack_sideband_parse_prev(). Returns 0, or -1 when @text is not a side-band
 * record (or is such a sample).
 */
int ustack_sideband_parse(const char *text, uint64_t ts, struct ustack_sb_rec *rec)
{
	int ret = parse_text(text, ts, rec);

	if (ret)
		return ret;
	return rec->kind == USTACK_SB_SAMPLE && !rec->raw ? USTACK_SB_UNSEEN_REPEAT : 0;
}

/* ------------------------------------------------------------------ */
/* The last sample of each thread: repeats written short              */
/* ------------------------------------------------------------------ */

/*
 * Slots taken by tid modulo their number: a thread whose slot another
 * took since its last sample writes its next one whole. Both sides
 * replace a slot at the same samples, so they always hold the same.
 */
#define PREV_SLOTS	1024

struct prev_slot {
	int		tid;		/* 0: empty */
	int		pid;
	bool		cut;
	uint32_t	nr_chain;
	uint32_t	raw_size;
	uint64_t	*data;		/* the chain, then the payload */
	size_t		alloc;
	/* writer: the text of its last repeat, and that repeat's CPU */
	char		same[64];
	size_t		same_len;
	int		same_cpu;
};

struct ustack_sb_prev {
	struct prev_slot	slots[PREV_SLOTS];
};

/**
 * ustack_sideband_prev_new - the last samples of no thread yet
 *
 * One for a writer, one for each reader of its file. Returns NULL when
 * out of memory.
 */
struct ustack_sb_prev *ustack_sideband_prev_new(void)
{
	return calloc(1, sizeof(struct ustack_sb_prev));
}

void ustack_sideband_prev_free(struct ustack_sb_prev *prev)
{
	size_t i;

	if (!prev)
		return;
	for (i = 0; i < PREV_SLOTS; i++)
		free(prev->slots[i].data);
	free(prev);
}

static struct prev_slot *prev_slot(struct ustack_sb_prev *prev, int tid)
{
	return &prev->slots[(unsigned int)tid % PREV_SLOTS];
}

/* Only a sample without a stack copy repeats (a copy always differs) */
static bool repeatable(const struct ustack_sb_rec *r)
{
	return r->kind == USTACK_SB_SAMPLE && !r->regs && !r->stack && r->tid > 0;
}

static bool repeats(const struct prev_slot *sl, const struct ustack_sb_rec *r)
{
	return sl->tid == r->tid && sl->pid == r->pid && sl->cut == r->cut &&
	       sl->nr_chain == r->nr_chain && sl->raw_size == r->raw_size &&
	       (!r->nr_chain || !memcmp(sl->data, r->chain, r->nr_chain * 8)) &&
	       (!r->raw_size || !memcmp(sl->data + r->nr_chain, r->raw, r->raw_size));
}

/* @r becomes its thread's last sample; when out of memory, no one's */
static void remember(struct prev_slot *sl, const struct ustack_sb_rec *r)
{
	size_t need = r->nr_chain + (r->raw_size + 7) / 8;

	sl->tid = 0;
	if (ustack_array_grow((void **)&sl->data, &sl->alloc, need, 8))
		return;
	/*
	 * A record read back without chain= has no pointer there, and a
	 * payload of 0 bytes (only a writer could be given one) with no
	 * chain leaves no room: memcpy() wants real pointers
	 */
	if (r->nr_chain)
		memcpy(sl->data, r->chain, r->nr_chain * 8);
	if (r->raw_size)
		memcpy(sl->data + r->nr_chain, r->raw, r->raw_size);
	sl->tid = r->tid;
	sl->pid = r->pid;
	sl->cut = r->cut;
	sl->same_len = 0;
	sl->nr_chain = r->nr_chain;
	sl->raw_size = r->raw_size;
}

/* A repeated sample takes the payload and chain its thread had last */
static void recall(const struct prev_slot *sl, struct ustack_sb_rec *rec)
{
	rec->chain = sl->data;
	rec->nr_chain = sl->nr_chain;
	rec->raw = sl->data + sl->nr_chain;
	rec->raw_size = sl->raw_size;
	rec->cut = sl->cut;
}

static size_t put_same(const struct ustack_sb_rec *r, char *buf, size_t size)
{
	char *p = buf, *end = buf + size;

	put_sample_head(&p, end, r);
	put_str(&p, end, " same=1");
	return put_end(p, end, buf, size);
}

/**
 * ustack_sideband_format_prev - ustack_sideband_format(), a repeated sample short
 * @prev:	the writer's last samples
 * @rec:	the record
 * @buf:	where to
 * @size:	room in @buf
 *
 * Every record of the file goes through here, in file order. Returns the
 * length, as ustack_sideband_format().
 */
int ustack_sideband_format_prev(struct ustack_sb_prev *prev, const struct ustack_sb_rec *rec,
			  char *buf, size_t size)
{
	struct prev_slot *sl;
	size_t len;

	if (!repeatable(rec))
		return ustack_sideband_format(rec, buf, size);
	sl = prev_slot(prev, rec->tid);
	if (repeats(sl, rec)) {
		/* the same text as the last repeat: copied, not formatted */
		if (sl->same_len && sl->same_cpu == rec->cpu && sl->same_len < size) {
			memcpy(buf, sl->same, sl->same_len + 1);
			return sl->same_len;
		}
		len = put_same(rec, buf, size);
		if (len < size && len < sizeof(sl->same)) {
			memcpy(sl->same, buf, len + 1);
			sl->same_len = len;
			sl->same_cpu = rec->cpu;
		}
		if (len < size)
			return len;
	}
	len = put_sample(rec, buf, size, rec->nr_chain, 0, rec->cut);
	if (len < size) {
		remember(sl, rec);
		return len;
	}
	/* written cut short: what the reader gets is not @rec */
	sl->tid = 0;
	return format_sample(rec, buf, size);
}

/**
 * ustack_sideband_parse_prev - ustack_sideband_parse(), a repeated sample read back
 * @prev:	the reader's last samples
 * @text:	a ftrace:print buffer
 * @ts:		the time of the print record
 * @rec:	filled in, as ustack_sideband_parse(); a repeated sample's payload
 *		and chain point into @prev, valid until the next call
 *
 * Every side-band record of the file goes through here, in file order.
 * Returns 0, or a negative enum ustack_sb_err: @text is not a side-band
 * record, is a malformed one, or repeats a sample this reader has not
 * seen.
 */
int ustack_sideband_parse_prev(struct ustack_sb_prev *prev, const char *text, uint64_t ts,
			 struct ustack_sb_rec *rec)
{
	struct prev_slot *sl;
	int ret = parse_text(text, ts, rec);

	if (ret)
		return ret;
	if (rec->kind != USTACK_SB_SAMPLE)
		return 0;
	sl = rec->tid > 0 ? prev_slot(prev, rec->tid) : NULL;
	if (!rec->same) {
		if (!rec->raw)
			return USTACK_SB_MALFORMED;
		if (sl && repeatable(rec))
			remember(sl, rec);
		return 0;
	}
	if (rec->raw || rec->nr_chain)
		return USTACK_SB_MALFORMED;
	if (!sl || sl->tid != rec->tid || sl->pid != rec->pid)
		return USTACK_SB_UNSEEN_REPEAT;
	recall(sl, rec);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Samples as ustack:sample records (ustack-sample-event.h)            */
/* ------------------------------------------------------------------ */

/**
 * ustack_sideband_sample_binary - is @rec stored as a ustack:sample record?
 * @rec: the record
 *
 * Samples are, with their registers and stack copies; deferred chains and
 * the other records stay text.
 */
bool ustack_sideband_sample_binary(const struct ustack_sb_rec *rec)
{
	return rec->kind == USTACK_SB_SAMPLE && rec->tid > 0;
}

/**
 * ustack_sideband_prev_repeats - does @rec repeat its thread's last sample?
 * @prev:	the writer's last samples
 * @rec:	a sample of ustack_sideband_sample_binary(), about to be written
 *
 * When not, @rec becomes its thread's last sample: the writer then writes
 * it whole. The reader's ustack_sideband_decode_prev() keeps the same. A
 * sample with a stack copy never repeats, nor becomes the last one.
 */
bool ustack_sideband_prev_repeats(struct ustack_sb_prev *prev, const struct ustack_sb_rec *rec)
{
	struct prev_slot *sl = prev_slot(prev, rec->tid);

	if (!repeatable(rec))
		return false;
	if (repeats(sl, rec))
		return true;
	remember(sl, rec);
	return false;
}

static uint32_t get_u32(const unsigned char *data, size_t off)
{
	uint32_t v;

	memcpy(&v, data + off, 4);
	return v;
}

/* A __data_loc field's array within the record: its offset and length */
static int data_loc(const unsigned char *data, size_t size, size_t hdr, size_t field,
		    size_t *off, size_t *len)
{
	uint32_t loc = get_u32(data, field);

	*off = loc & 0xffff;
	*len = loc >> 16;
	return *off < hdr || *off + *len > size ? -1 : 0;
}

/* The kept words of a trimmed copy back where they were; the others holes */
static int unpack_copy(const unsigned char *words, size_t nr, const unsigned char *kept,
		       size_t kept_len, uint32_t size)
{
	uint32_t i, nw = size / 8, n = 0;

	if (kept_len > (nw + 7) / 8)
		return -1;
	memset(sample_valid, 0, (nw + 7) / 8);
	memcpy(sample_valid, kept, kept_len);
	for (i = 0; i < nw; i++) {
		if (!ustack_word_map_test(sample_valid, i)) {
			sample_stack[i] = 0;
			continue;
		}
		if (n == nr)
			return -1;
		memcpy(&sample_stack[i], words + n++ * 8, 8);
	}
	return n == nr ? 0 : -1;
}

/*
 * The registers and stack copy of a ustack:sample_copy record, into this
 * thread's arrays (as the text parser's): a trimmed copy with the words
 * its map names, a whole one with every word. Bounded like the text's
 * regs= and stack=.
 */
static int decode_copy(const unsigned char *d, size_t size, uint32_t flags,
		       struct ustack_sb_rec *rec)
{
	size_t regs_off, regs_len, stack_off, stack_len, kept_off, kept_len;
	uint64_t mask;
	uint32_t ssize, umax;

	if (data_loc(d, size, USTACK_SAMPLE_COPY_HDR, USTACK_SAMPLE_OFF_REGS, &regs_off, &regs_len) ||
	    data_loc(d, size, USTACK_SAMPLE_COPY_HDR, USTACK_SAMPLE_OFF_STACK, &stack_off,
		     &stack_len) ||
	    data_loc(d, size, USTACK_SAMPLE_COPY_HDR, USTACK_SAMPLE_OFF_KEPT, &kept_off, &kept_len))
		return USTACK_SB_MALFORMED;
	memcpy(&mask, d + USTACK_SAMPLE_OFF_REGS_MASK, 8);
	ssize = get_u32(d, USTACK_SAMPLE_OFF_STACK_SIZE);
	umax = get_u32(d, USTACK_SAMPLE_OFF_UMAX);
	if (!mask || regs_len != (size_t)__builtin_popcountll(mask) * 8 || regs_len / 8 > SAMPLE_REGS_MAX ||
	    ssize % 8 || ssize > SAMPLE_STACK_MAX || stack_len % 8 || stack_len > ssize ||
	    umax > USTACK_SB_UMAX_MAX)
		return USTACK_SB_MALFORMED;
	memcpy(sample_regs, d + regs_off, regs_len);
	rec->regs_mask = mask;
	rec->regs = sample_regs;
	rec->unwind_max = umax;
	rec->stack = sample_stack;
	rec->stack_size = ssize;
	if (!(flags & USTACK_SAMPLE_TRIMMED)) {
		if (kept_len || stack_len != ssize)
			return USTACK_SB_MALFORMED;
		memcpy(sample_stack, d + stack_off, stack_len);
		return 0;
	}
	if (unpack_copy(d + stack_off, stack_len / 8, d + kept_off, kept_len, ssize))
		return USTACK_SB_MALFORMED;
	rec->stack_valid = sample_valid;
	return 0;
}

/**
 * ustack_sideband_decode_prev - a ustack:sample record as a side-band sample
 * @prev:	the reader's last samples
 * @data:	the record's data (common fields first)
 * @size:	its bytes
 * @ts:		its time
 * @copies:	a ustack:sample_copy record (with the registers and the stack
 *		copy, ustack-sample-event.h), else a ustack:sample one
 * @rec:	filled in, as ustack_sideband_parse_prev(): the payload and the
 *		chain point into @prev, the registers and the copy into this
 *		thread's arrays, valid until the next call
 *
 * Every sample of the file goes through here or through
 * ustack_sideband_parse_prev(), in file order. Returns 0, or
 * USTACK_SB_MALFORMED (a field out of its bounds) or
 * USTACK_SB_UNSEEN_REPEAT.
 */
int ustack_sideband_decode_prev(struct ustack_sb_prev *prev, const void *data, size_t size,
				uint64_t ts, bool copies, struct ustack_sb_rec *rec)
{
	const unsigned char *d = data;
	size_t hdr = copies ? USTACK_SAMPLE_COPY_HDR : USTACK_SAMPLE_HDR;
	size_t chain_off, chain_len, raw_off, raw_len;
	struct prev_slot *sl;
	uint32_t flags;
	int ret;

	if (size < hdr ||
	    data_loc(d, size, hdr, USTACK_SAMPLE_OFF_CHAIN, &chain_off, &chain_len) ||
	    data_loc(d, size, hdr, USTACK_SAMPLE_OFF_RAW, &raw_off, &raw_len))
		return USTACK_SB_MALFORMED;
	memset(rec, 0, sizeof(*rec));
	rec->kind = USTACK_SB_SAMPLE;
	rec->ts = ts;
	rec->pid = (int32_t)get_u32(d, USTACK_SAMPLE_OFF_PID);
	rec->tid = (int32_t)get_u32(d, USTACK_SAMPLE_OFF_TID);
	rec->cpu = (int)get_u32(d, USTACK_SAMPLE_OFF_CPU);
	flags = get_u32(d, USTACK_SAMPLE_OFF_FLAGS);
	if (rec->tid <= 0 || rec->pid <= 0 || rec->cpu < 0 || rec->cpu > USTACK_SB_CPU_MAX ||
	    chain_len % 8 || chain_len / 8 > SAMPLE_CHAIN_MAX || raw_len > SAMPLE_RAW_MAX)
		return USTACK_SB_MALFORMED;
	ret = copies ? decode_copy(d, size, flags, rec) : 0;
	if (ret)
		return ret;
	sl = prev_slot(prev, rec->tid);
	if (rec->regs) {
		/* a copy never repeats: its arrays are read where they are */
		if (flags & USTACK_SAMPLE_SAME)
			return USTACK_SB_MALFORMED;
		if (chain_len)
			memcpy(sample_chain, d + chain_off, chain_len);
		if (raw_len)
			memcpy(sample_raw, d + raw_off, raw_len);
		rec->cut = flags & USTACK_SAMPLE_CUT;
		rec->nr_chain = chain_len / 8;
		rec->chain = sample_chain;
		rec->raw_size = raw_len;
		rec->raw = sample_raw;
		return 0;
	}
	if (flags & USTACK_SAMPLE_SAME) {
		if (chain_len || raw_len)
			return USTACK_SB_MALFORMED;
		if (sl->tid != rec->tid || sl->pid != rec->pid)
			return USTACK_SB_UNSEEN_REPEAT;
		rec->same = true;
	} else {
		/* the arrays copied where they are aligned: the slot */
		rec->cut = flags & USTACK_SAMPLE_CUT;
		rec->nr_chain = chain_len / 8;
		rec->chain = (const uint64_t *)(d + chain_off);
		rec->raw_size = raw_len;
		rec->raw = d + raw_off;
		remember(sl, rec);
		if (sl->tid != rec->tid)
			return USTACK_SB_MALFORMED;
	}
	recall(sl, rec);
	return 0;
}
