// SPDX-License-Identifier: LGPL-2.1
/*
 * A debug file's zlib-compressed sections inflated before libdw sees them.
 *
 * libdw (0.188) inflates every compressed .debug_* section of a file as
 * it opens it, through libelf and zlib, into memory it allocates a page
 * fault at a time, location lists included; for a distribution's libc
 * debug file (10 MB of DWARF) that was half of a report's CPU. Here the
 * file's sections are laid out again in one memory image, populated at
 * once, those sections inflated by zlib in one call each (whole buffers,
 * no checksum: inflate_section()), the location lists nothing reads (and
 * the line tables when no line is asked for) left out, their headers
 * saying so, for elf_memory(): libdw then finds nothing left to inflate.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <zlib.h>

#include "ustack-resolve-int.h"
#include "ustack-warn.h"

/* Where section @i's bytes go in the image, and how many */
struct img_sec {
	Elf64_Shdr	sh;		/* the image's header of it */
	const char	*src;		/* the bytes in the file */
	size_t		src_size;
	bool		inflate;
};

static bool zlib_section(const Elf64_Shdr *sh, const char *raw, size_t fsize,
			 Elf64_Chdr *ch)
{
	if (!(sh->sh_flags & SHF_COMPRESSED) || sh->sh_size < sizeof(*ch))
		return false;
	memcpy(ch, raw + sh->sh_offset, sizeof(*ch));
	return ch->ch_type == ELFCOMPRESS_ZLIB;
}

/*
 * Variables' location lists: the symbolizer reads no variable, and they
 * are a seventh of libc's DWARF. The line tables (another seventh) when
 * no line is asked for: inlined calls are found in .debug_info alone.
 * Left empty, not inflated.
 */
static bool unread_section(const Elf64_Ehdr *eh, const char *raw, size_t fsize,
			   const Elf64_Shdr *sh, bool lines)
{
	/* the last is read when lines are */
	static const char *const names[] = { ".debug_loc", ".debug_loclists", ".debug_line" };
	size_t i, len, nr = sizeof(names) / sizeof(names[0]) - lines;
	Elf64_Shdr str;

	memcpy(&str, raw + eh->e_shoff + eh->e_shstrndx * sizeof(str), sizeof(str));
	if (str.sh_offset > fsize || fsize - str.sh_offset < str.sh_size ||
	    sh->sh_name >= str.sh_size)
		return false;
	len = strnlen(raw + str.sh_offset + sh->sh_name, str.sh_size - sh->sh_name);
	for (i = 0; i < nr; i++)
		if (len == strlen(names[i]) &&
		    !memcmp(raw + str.sh_offset + sh->sh_name, names[i], len))
			return true;
	return false;
}

static size_t align_up(size_t off, uint64_t align)
{
	if (align < 2 || align > 4096 || (align & (align - 1)))
		align = 8;
	return (off + align - 1) & ~(size_t)(align - 1);
}

/*
 * The image's layout of @eh's sections into @secs; the image's size, or
 * 0 when a header points out of the file, a size is over the caps, or
 * no section is zlib-compressed (nothing to gain).
 */
static size_t img_layout(const Elf64_Ehdr *eh, const char *raw, size_t fsize,
			 struct img_sec *secs, bool lines)
{
	size_t off = sizeof(*eh), i;
	bool any = false;
	Elf64_Chdr ch;

	for (i = 0; i < eh->e_shnum; i++) {
		struct img_sec *s = &secs[i];

		memcpy(&s->sh, raw + eh->e_shoff + i * sizeof(s->sh), sizeof(s->sh));
		if (s->sh.sh_type == SHT_NOBITS || s->sh.sh_type == SHT_NULL)
			continue;
		if (s->sh.sh_offset > fsize || fsize - s->sh.sh_offset < s->sh.sh_size)
			return 0;
		if (unread_section(eh, raw, fsize, &s->sh, lines)) {
			s->sh.sh_flags &= ~(uint64_t)SHF_COMPRESSED;
			s->sh.sh_size = 0;
			continue;
		}
		s->src = raw + s->sh.sh_offset;
		s->src_size = s->sh.sh_size;
		if (zlib_section(&s->sh, raw, fsize, &ch)) {
			if (!uelf_inflate_ok(s->sh.sh_size, ch.ch_size))
				return 0;
			s->inflate = true;
			s->sh.sh_flags &= ~(uint64_t)SHF_COMPRESSED;
			s->sh.sh_size = ch.ch_size;
			s->sh.sh_addralign = ch.ch_addralign;
			any = true;
		}
		off = align_up(off, s->sh.sh_addralign);
		s->sh.sh_offset = off;
		off += s->sh.sh_size;
	}
	return any ? align_up(off, 8) + eh->e_shnum * sizeof(Elf64_Shdr) : 0;
}

/*
 * @s's zlib stream inflated into @dst in one call over whole buffers; true
 * when it is whole and of the size its header says. Its adler32 checksum
 * is not computed (a seventh of the inflating): the deflate stream's own
 * structure and the size still catch a damaged section, and a debug file's
 * uncompressed sections (its .symtab, which names most frames, among
 * them) carry no checksum at all.
 */
static bool inflate_section(const struct img_sec *s, char *dst)
{
	z_stream z = { 0 };
	bool ok;

	z.next_in = (Bytef *)s->src + sizeof(Elf64_Chdr);
	z.avail_in = s->src_size - sizeof(Elf64_Chdr);
	z.next_out = (Bytef *)dst;
	z.avail_out = s->sh.sh_size;
	if (inflateInit(&z) != Z_OK)
		return false;
	ok = inflateValidate(&z, 0) == Z_OK && inflate(&z, Z_FINISH) == Z_STREAM_END &&
	     z.total_out == s->sh.sh_size;
	inflateEnd(&z);
	return ok;
}

/* Section @s's bytes into the image at @dst; false: bad zlib data */
static bool img_fill(const struct img_sec *s, char *dst)
{
	if (!s->inflate) {
		memcpy(dst, s->src, s->src_size);
		return true;
	}
	return inflate_section(s, dst);
}

static int img_build(const Elf64_Ehdr *eh, const char *raw, struct img_sec *secs,
		     char *img, size_t size)
{
	size_t shoff = size - eh->e_shnum * sizeof(Elf64_Shdr), i;
	Elf64_Ehdr *neh = (Elf64_Ehdr *)img;

	memcpy(neh, eh, sizeof(*eh));
	/* Sections only: libdw reads no segment */
	neh->e_phoff = 0;
	neh->e_phnum = 0;
	neh->e_shoff = shoff;
	for (i = 0; i < eh->e_shnum; i++) {
		if (secs[i].src && !img_fill(&secs[i], img + secs[i].sh.sh_offset))
			return -1;
		if (!secs[i].src)
			secs[i].sh.sh_offset = 0;
		memcpy(img + shoff + i * sizeof(secs[i].sh), &secs[i].sh, sizeof(secs[i].sh));
	}
	return 0;
}

/*
 * Megabytes written once: mapped in huge pages where the kernel has them,
 * and populated in one call, not a page fault each 4 KiB (a quarter of
 * the inflating's time).
 */
static char *img_alloc(size_t size)
{
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, size, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
	madvise(p, size, MADV_POPULATE_WRITE);
#endif
	return p;
}

/**
 * uelf_dwarf_image_free - free what uelf_dwarf_image() returned
 * @img: the image, or NULL
 * @size: its size
 */
void uelf_dwarf_image_free(char *img, size_t size)
{
	if (img)
		munmap(img, size);
}

/* A 64-bit little-endian file whose section headers are where it says */
static const Elf64_Ehdr *img_ehdr(struct uelf *e, const char *raw, size_t fsize)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)raw;

	if (!raw || e->class != ELFCLASS64 || fsize < sizeof(*eh) ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_type == ET_REL ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || !eh->e_shnum ||
	    eh->e_shnum >= SHN_LORESERVE || eh->e_shstrndx >= eh->e_shnum ||
	    eh->e_shoff > fsize || (fsize - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
		return NULL;
	return eh;
}

/**
 * uelf_dwarf_image - @e with its zlib-compressed sections inflated
 * @e:		a file within uelf_dwarf_ok()
 * @lines:	its line tables are read (else left out of the image)
 * @out:	set to the image (for elf_memory(), freed with
 *		uelf_dwarf_image_free()), or NULL when
 *		@e is to be read as it is: nothing zlib-compressed, or a
 *		layout not handled here (32-bit, big-endian, relocatable)
 * @size:	set to the image's size
 *
 * Returns 0, or -1 after one warning when a section's zlib data is bad
 * (libelf could not inflate it either: no lines or inlines from @e).
 */
int uelf_dwarf_image(struct uelf *e, bool lines, char **out, size_t *size)
{
	const Elf64_Ehdr *eh;
	struct img_sec *secs;
	size_t fsize = 0;
	char *raw, *img;
	int err;

	*out = NULL;
	raw = e->mem ? e->mem : elf_rawfile(e->elf, &fsize);
	if (e->mem)
		fsize = e->size;
	eh = img_ehdr(e, raw, fsize);
	if (!eh)
		return 0;
	secs = calloc(eh->e_shnum, sizeof(*secs));
	if (!secs)
		return 0;
	*size = img_layout(eh, raw, fsize, secs, lines);
	img = *size ? img_alloc(*size) : NULL;
	err = img ? img_build(eh, raw, secs, img, *size) : 0;
	free(secs);
	if (err < 0) {
		uelf_dwarf_image_free(img, *size);
		if (!e->dwarf_warned)
			ustack_warning("%s: bad zlib data in a compressed section: "
				       "no lines or inlines from it", e->path);
		e->dwarf_warned = true;
		return -1;
	}
	*out = img;
	return 0;
}
