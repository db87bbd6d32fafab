// SPDX-License-Identifier: LGPL-2.1
/*
 * Whether a file's code keeps frame pointers (ustack-fpcode.h).
 *
 * The functions come from .eh_frame_hdr's search table, which every
 * x86-64 binary of a current toolchain has (the unwinders of C++ and of
 * glibc need it), stripped or not: one (start, FDE) pair per function.
 * At each start, after an endbr64, code built with frame pointers has
 * push %rbp; mov %rsp,%rbp. Reading the CFI itself would say the same
 * (a CFA defined from %rbp) but only after interpreting each FDE's
 * instructions; the prologue bytes are what those rules describe.
 *
 * The table is untrusted as any file a run reads: every offset is
 * checked against the section and the file, and at most MAX_LOOKS
 * functions are looked at, spread over the table.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-fpcode.h"
#include "ustack-resolve-int.h"

/* Functions looked at, at most: enough for a ratio, bounded on huge files */
#define MAX_LOOKS	8192

/* DW_EH_PE_* of the table's encodings (the LSB standard's .eh_frame_hdr) */
#define PE_OMIT		0xff
#define PE_FORMAT(e)	((e) & 0x0f)
#define PE_APP(e)	((e) & 0x70)
#define PE_PCREL	0x10
#define PE_DATAREL	0x30

/* A cached answer, by build id */
struct fp_cached {
	struct fp_cached	*next;
	size_t			len;
	unsigned char		id[USTACK_BUILD_ID_MAX];
	struct ustack_fpcode	code;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fp_cached *cache;

/* The .eh_frame_hdr as read: its bytes and where it is mapped */
struct hdr {
	const unsigned char	*p;
	size_t			len;
	uint64_t		vaddr;
};

/* Bytes of each DW_EH_PE format, 0 for one not used here */
static size_t format_size(unsigned char enc)
{
	switch (PE_FORMAT(enc)) {
	case 0x02: case 0x0a:
		return 2;
	case 0x03: case 0x0b:
		return 4;
	case 0x00: case 0x04: case 0x0c:
		return 8;
	default:
		return 0;
	}
}

/* One encoded value at *@pos (moved past it); false when it does not fit */
static bool read_enc(const struct hdr *h, size_t *pos, unsigned char enc, uint64_t *out)
{
	size_t n = format_size(enc);
	uint64_t v = 0, base = 0;
	int64_t s;

	if (enc == PE_OMIT || !n || *pos > h->len || h->len - *pos < n)
		return false;
	memcpy(&v, h->p + *pos, n);
	/* sign-extend the signed formats (0x08 set) */
	if ((enc & 0x08) && n < 8) {
		s = (int64_t)(v << (64 - 8 * n)) >> (64 - 8 * n);
		v = (uint64_t)s;
	}
	if (PE_APP(enc) == PE_PCREL)
		base = h->vaddr + *pos;
	else if (PE_APP(enc) == PE_DATAREL)
		base = h->vaddr;
	else if (PE_APP(enc))
		return false;
	*pos += n;
	*out = base + v;
	return true;
}

/* The file bytes at virtual address @va, in an executable segment */
static const unsigned char *code_at(const unsigned char *file, size_t size,
				    const struct useg *segs, int nr, uint64_t va, size_t want)
{
	uint64_t off;
	int i;

	for (i = 0; i < nr; i++) {
		if (va < segs[i].vaddr || va - segs[i].vaddr >= segs[i].len)
			continue;
		off = segs[i].off + (va - segs[i].vaddr);
		if (off > size || size - off < want)
			return NULL;
		return file + off;
	}
	return NULL;
}

/* push %rbp; mov %rsp,%rbp (either encoding of the mov), after an endbr64 */
static bool sets_up_rbp(const unsigned char *p)
{
	static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };

	if (!memcmp(p, endbr64, sizeof(endbr64)))
		p += sizeof(endbr64);
	return p[0] == 0x55 && p[1] == 0x48 &&
	       ((p[2] == 0x89 && p[3] == 0xe5) || (p[2] == 0x8b && p[3] == 0xec));
}

/* The search table of @h: each function's start looked at */
static int scan_table(const struct hdr *h, const unsigned char *file, size_t size,
		      const struct useg *segs, int nr, struct ustack_fpcode *out)
{
	unsigned char table_enc;
	uint64_t ptr, count, i, step, start, fde;
	const unsigned char *code;
	size_t pos = 4, each;

	if (h->len < 4 || h->p[0] != 1)
		return USTACK_ERR_TRUNCATED;
	table_enc = h->p[3];
	if (!read_enc(h, &pos, h->p[1], &ptr) || !read_enc(h, &pos, h->p[2], &count))
		return USTACK_ERR_TRUNCATED;
	each = 2 * format_size(table_enc);
	if (!each || count > (h->len - pos) / each)
		return USTACK_ERR_TRUNCATED;
	step = count / MAX_LOOKS + 1;
	for (i = 0; i < count; i += step) {
		size_t at = pos + i * each;

		if (!read_enc(h, &at, table_enc, &start) || !read_enc(h, &at, table_enc, &fde))
			return USTACK_ERR_TRUNCATED;
		/* 4 bytes of endbr64, 4 of the prologue */
		code = code_at(file, size, segs, nr, start, 8);
		if (!code)
			continue;
		out->functions++;
		out->fp += sets_up_rbp(code);
	}
	return 0;
}

/*
 * Enough of them: code built with frame pointers sets %rbp up in all but
 * its leaf functions (which GCC may leave without, and which do not
 * break a walk) and the C runtime's few: 43% of this tool's own, 60% of
 * Debian's perf. Code built without does it only where it realigns the
 * stack or calls alloca(): 0-2% of Debian's python3, bash, git, gzip, ls
 * and libc (bench/callgraph-auto/run measures them through
 * tests/tools/ustack-fpshare). A fifth lies well between the two.
 */
static bool keeps_fp(const struct ustack_fpcode *c)
{
	return c->functions && c->fp * 5 >= c->functions;
}

static int check_elf(struct uelf *e, struct ustack_fpcode *out)
{
	const unsigned char *file;
	struct useg *segs;
	struct hdr h;
	GElf_Shdr sh;
	size_t size;
	int nr, ret;

	if (!uelf_section(e, ".eh_frame_hdr", &sh))
		return USTACK_ERR_UW_NO_CFI;
	file = (const unsigned char *)elf_rawfile(e->elf, &size);
	if (!file || sh.sh_offset > size || size - sh.sh_offset < sh.sh_size)
		return USTACK_ERR_TRUNCATED;
	h.p = file + sh.sh_offset;
	h.len = sh.sh_size;
	h.vaddr = sh.sh_addr;
	nr = uelf_segments(e, &segs);
	ret = scan_table(&h, file, size, segs, nr, out);
	free(segs);
	out->keeps_fp = keeps_fp(out);
	out->fp_walk = out->keeps_fp;
	return ret;
}

static bool cache_find(const struct uelf *e, struct ustack_fpcode *out)
{
	struct fp_cached *c;
	bool found = false;

	pthread_mutex_lock(&cache_lock);
	for (c = cache; c && !found; c = c->next)
		if (c->len == e->build_id_len && !memcmp(c->id, e->build_id, c->len)) {
			*out = c->code;
			found = true;
		}
	pthread_mutex_unlock(&cache_lock);
	return found;
}

static void cache_add(const struct uelf *e, const struct ustack_fpcode *code)
{
	struct fp_cached *c = calloc(1, sizeof(*c));

	if (!c)
		return;
	c->len = e->build_id_len;
	memcpy(c->id, e->build_id, c->len);
	c->code = *code;
	pthread_mutex_lock(&cache_lock);
	c->next = cache;
	cache = c;
	pthread_mutex_unlock(&cache_lock);
}

/* A 32-bit x86 file: its prologues are another encoding, its stacks i386's */
static bool is_i386(struct uelf *e)
{
	GElf_Ehdr eh;

	return e->class == ELFCLASS32 && gelf_getehdr(e->elf, &eh) && eh.e_machine == EM_386;
}

/**
 * ustack_fpcode_check - does a program's code keep frame pointers?
 * @path:	the file (an executable, a library)
 * @out:	what its functions' starts say
 *
 * A file with a build id seen before is not read again; a 32-bit x86
 * one is only said to be (@out->i386). Returns 0, or a
 * negative code (lib/ustack-err.h): not ELF, unreadable, no .eh_frame_hdr
 * (USTACK_ERR_UW_NO_CFI), a table that does not fit its section.
 */
int ustack_fpcode_check(const char *path, struct ustack_fpcode *out)
{
	struct uelf *e;
	int ret;

	memset(out, 0, sizeof(*out));
	/* libelf refuses every file until told its version (once is enough) */
	elf_version(EV_CURRENT);
	ret = uelf_open(NULL, path, &e);
	if (ret < 0)
		return ret;
	if (is_i386(e)) {
		out->i386 = true;
		out->fp_walk = true;
		uelf_close(e);
		return 0;
	}
	if (e->build_id_len && cache_find(e, out)) {
		uelf_close(e);
		return 0;
	}
	ret = check_elf(e, out);
	if (!ret && e->build_id_len)
		cache_add(e, out);
	uelf_close(e);
	return ret;
}
