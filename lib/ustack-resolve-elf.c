// SPDX-License-Identifier: LGPL-2.1
/*
 * ELF side of the symbolizer: opening files defensively (caps checked
 * before libelf sizes anything), build ids and executable segments. The
 * function-symbol table read from these files is ustack-resolve-symtab.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ustack-resolve-int.h"
#include "ustack-warn.h"

static void uelf_scan_sections(struct uelf *e)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(e->elf, &shstrndx) < 0)
		return;
	while ((scn = elf_nextscn(e->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		if (sh.sh_type == SHT_SYMTAB && sh.sh_size)
			e->has_symtab = true;
		name = elf_strptr(e->elf, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, ".debug_info") ||
			     !strcmp(name, ".zdebug_info")))
			e->has_dwarf = true;
		if (name && (!strcmp(name, ".debug_frame") ||
			     !strcmp(name, ".zdebug_frame")))
			e->has_debug_frame = true;
	}
}

/* Look for NT_GNU_BUILD_ID in one note buffer. */
static bool note_build_id(struct uelf *e, Elf_Data *data)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (data && off < data->d_size &&
	       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *nm = (const char *)data->d_buf + name_off;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp(nm, "GNU", 4) || !nh.n_descsz)
			continue;
		e->build_id_len = nh.n_descsz > USTACK_BUILD_ID_MAX ?
				  USTACK_BUILD_ID_MAX : nh.n_descsz;
		memcpy(e->build_id, (const char *)data->d_buf + desc_off,
		       e->build_id_len);
		return true;
	}
	return false;
}

/* The build id of the PT_NOTE segments, as the kernel reads it */
static bool uelf_read_note_segments(struct uelf *e)
{
	size_t i, nr;

	if (elf_getphdrnum(e->elf, &nr) < 0)
		return false;
	for (i = 0; i < nr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e->elf, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		if (ph.p_offset >= e->size || ph.p_filesz > e->size - ph.p_offset)
			continue;
		if (note_build_id(e, elf_getdata_rawchunk(e->elf, ph.p_offset,
							   ph.p_filesz, ELF_T_NHDR)))
			return true;
	}
	return false;
}

/* Sections first (debug files keep them), then PT_NOTE (no sections). */
static void uelf_read_build_id(struct uelf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		if (note_build_id(e, elf_getdata(scn, NULL)))
			return;
	}
	uelf_read_note_segments(e);
}

/**
 * ustack_resolve_fd_build_id - the GNU build id in a file's PT_NOTE segments
 * @fd:		an open regular file
 * @size:	its size
 * @id:		set to the build id (USTACK_BUILD_ID_MAX bytes)
 *
 * Only the program headers and the notes they point to are read, as the
 * kernel does for its build ids of mappings: a file mapped for execution
 * has them; its section headers are never looked at.
 * Returns the build id's length, 0 when the file has none or is no ELF.
 */
size_t ustack_resolve_fd_build_id(int fd, size_t size, unsigned char *id)
{
	struct uelf e = { .fd = fd, .size = size };
	size_t nr;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	/*
	 * Read, not mapped: the file is whoever's the trace named, and one
	 * cut short while we look would be a SIGBUS through a mapping
	 */
	e.elf = elf_begin(fd, ELF_C_READ, NULL);
	if (e.elf && elf_kind(e.elf) == ELF_K_ELF && !elf_getphdrnum(e.elf, &nr) &&
	    nr <= USTACK_ELF_MAX_PHDRS && uelf_read_note_segments(&e))
		memcpy(id, e.build_id, e.build_id_len);
	else
		e.build_id_len = 0;
	elf_end(e.elf);
	return e.build_id_len;
}

/* Headers and loaded segments must lie inside the file. */
static bool uelf_truncated(struct uelf *e, const GElf_Ehdr *eh)
{
	size_t i, nr;

	if (eh->e_phoff + (uint64_t)eh->e_phnum * eh->e_phentsize > e->size)
		return true;
	if (eh->e_shoff &&
	    eh->e_shoff + (uint64_t)(eh->e_shnum ? eh->e_shnum : 1) *
			  eh->e_shentsize > e->size)
		return true;
	if (elf_getphdrnum(e->elf, &nr) < 0)
		return true;
	for (i = 0; i < nr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e->elf, i, &ph))
			return true;
		/*
		 * Segments without file bytes (debug files, MiniDebugInfo)
		 * may keep offsets past their end.
		 */
		if (ph.p_type == PT_LOAD && ph.p_filesz &&
		    ph.p_offset + ph.p_filesz > e->size)
			return true;
	}
	return false;
}

/* Where header bytes are read from before libelf: a file or an image. */
struct usrc {
	int			fd;
	const unsigned char	*mem;
	uint64_t		size;
};

static bool src_read(const struct usrc *s, uint64_t off, void *buf, size_t len)
{
	if (off > s->size || len > s->size - off)
		return false;
	if (s->mem) {
		memcpy(buf, s->mem + off, len);
		return true;
	}
	return pread(s->fd, buf, len, off) == (ssize_t)len;
}

/* An unsigned field of @len bytes in the file's byte order. */
static uint64_t get_uint(const unsigned char *p, int len, bool msb)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < len; i++)
		v = v << 8 | p[msb ? i : len - 1 - i];
	return v;
}

/**
 * uelf_inflate_ok - whether a decompressed size is within the caps
 * @in: compressed bytes (as stored in the file)
 * @out: bytes the data says it decompresses to
 */
bool uelf_inflate_ok(uint64_t in, uint64_t out)
{
	return out <= USTACK_INFLATE_MAX &&
	       (in >= USTACK_INFLATE_MAX / USTACK_INFLATE_RATIO ||
		out <= in * USTACK_INFLATE_RATIO);
}

/* The one warning for a file over a cap: "@path: @n @what, over the cap" */
static void cap_warn(const char *path, uint64_t n, const char *what, uint64_t cap)
{
	ustack_warning("%s: %" PRIu64 " %s, over the cap of %" PRIu64 ": file not used",
		       path, n, what, cap);
}

/* ELF header fields, by class: offset and size of each. */
struct ehdr_layout {
	int	phoff, shoff, word, phentsize, phnum, shentsize, shnum;
	int	sh_size, sh_info, shdr_size;
};

static const struct ehdr_layout ehdr32 = { 28, 32, 4, 42, 44, 46, 48, 20, 28, 40 };
static const struct ehdr_layout ehdr64 = { 32, 40, 8, 54, 56, 58, 60, 32, 44, 64 };

/*
 * The counts the header claims, checked before libelf sizes anything by
 * them (it allocates a structure per section header when it opens a
 * file, extended counts in section 0 included). They must fit in the
 * file, then under the caps. Returns 0, or why the file is refused (a
 * negative code); not ELF is left to libelf to say.
 */
static int uelf_precheck(const struct usrc *s, const char *path)
{
	const struct ehdr_layout *l;
	unsigned char h[64], sh0[64];
	uint64_t phoff, shoff, phnum, shnum, phent, shent;
	bool msb;

	/*
	 * Not ELF: nothing past these bytes is read (libelf would map the
	 * file and read an archive's members). A trace.dat may name any
	 * file of the machine reading it (/etc/shadow).
	 */
	if (!src_read(s, 0, h, EI_NIDENT) || memcmp(h, ELFMAG, SELFMAG))
		return USTACK_ERR_NOT_ELF;
	l = h[EI_CLASS] == ELFCLASS64 ? &ehdr64 : &ehdr32;
	msb = h[EI_DATA] == ELFDATA2MSB;
	if (!src_read(s, 0, h, l->shnum + 2))
		return 0;
	phoff = get_uint(h + l->phoff, l->word, msb);
	shoff = get_uint(h + l->shoff, l->word, msb);
	phent = get_uint(h + l->phentsize, 2, msb);
	phnum = get_uint(h + l->phnum, 2, msb);
	shent = get_uint(h + l->shentsize, 2, msb);
	shnum = get_uint(h + l->shnum, 2, msb);
	/* Extended numbering: the real counts are in section header 0. */
	if (shoff && (!shnum || phnum == PN_XNUM)) {
		if (!src_read(s, shoff, sh0, l->shdr_size))
			return USTACK_ERR_TRUNCATED;
		if (!shnum)
			shnum = get_uint(sh0 + l->sh_size, l->word, msb);
		if (phnum == PN_XNUM)
			phnum = get_uint(sh0 + l->sh_info, 4, msb);
	}
	if (!shoff)
		shnum = 0;
	if ((shnum && (shoff > s->size ||
		       shnum > (s->size - shoff) / (shent ? shent : 1))) ||
	    (phnum && (phoff > s->size ||
		       phnum > (s->size - phoff) / (phent ? phent : 1))))
		return USTACK_ERR_TRUNCATED;
	if (shnum > USTACK_ELF_MAX_SECTIONS) {
		cap_warn(path, shnum, "section headers", USTACK_ELF_MAX_SECTIONS);
		return USTACK_ERR_CAPPED;
	}
	if (phnum > USTACK_ELF_MAX_PHDRS) {
		cap_warn(path, phnum, "program headers", USTACK_ELF_MAX_PHDRS);
		return USTACK_ERR_CAPPED;
	}
	return 0;
}

/* The size a compressed section says it decompresses to; 0 when unknown. */
static uint64_t inflated_size(const struct usrc *s, const GElf_Shdr *sh,
			      const char *name, int class, bool msb)
{
	unsigned char c[24];

	if (sh->sh_flags & SHF_COMPRESSED) {
		if (!src_read(s, sh->sh_offset, c, class == ELFCLASS64 ? 24 : 12))
			return 0;
		return class == ELFCLASS64 ? get_uint(c + 8, 8, msb) :
					     get_uint(c + 4, 4, msb);
	}
	/* GNU .zdebug_*: "ZLIB" and the size, big-endian */
	if (name && !strncmp(name, ".zdebug", 7) && src_read(s, sh->sh_offset, c, 12) &&
	    !memcmp(c, "ZLIB", 4))
		return get_uint(c + 4, 8, true);
	return 0;
}

/*
 * Section sizes that would size an allocation or a scan: symbol tables
 * (entries) and compressed sections (what they decompress to). Returns
 * 0 or USTACK_ERR_CAPPED, after one warning.
 */
static int uelf_check_sections(struct uelf *e, const struct usrc *s)
{
	bool msb = elf_getident(e->elf, NULL)[EI_DATA] == ELFDATA2MSB;
	Elf_Scn *scn = NULL;
	size_t shstrndx = 0;
	uint64_t n, cap, esz;
	GElf_Shdr sh;
	char what[96];

	elf_getshdrstrndx(e->elf, &shstrndx);
	while ((scn = elf_nextscn(e->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(e->elf, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
			/* As many entries as the file holds from there, and the cap */
			esz = gelf_fsize(e->elf, ELF_T_SYM, 1, EV_CURRENT);
			n = sh.sh_size / esz;
			cap = sh.sh_offset < s->size ? (s->size - sh.sh_offset) / esz : 0;
			if (cap > USTACK_ELF_MAX_SYMS)
				cap = USTACK_ELF_MAX_SYMS;
			if (n > cap) {
				snprintf(what, sizeof(what), "entries in %s", name ? name : "?");
				cap_warn(e->path, n, what, cap);
				return USTACK_ERR_CAPPED;
			}
		}
		n = inflated_size(s, &sh, name, e->class, msb);
		if (name && (!strncmp(name, ".debug_", 7) || !strncmp(name, ".zdebug_", 8)))
			e->dwarf_bytes += n ? n : sh.sh_size;
		if (n && !uelf_inflate_ok(sh.sh_size, n)) {
			snprintf(what, sizeof(what), "bytes decompressed from %" PRIu64 " in %s",
				 (uint64_t)sh.sh_size, name ? name : "?");
			cap_warn(e->path, n, what, sh.sh_size < USTACK_INFLATE_MAX /
				 USTACK_INFLATE_RATIO ? sh.sh_size * USTACK_INFLATE_RATIO :
				 USTACK_INFLATE_MAX);
			return USTACK_ERR_CAPPED;
		}
	}
	return 0;
}

/**
 * uelf_dwarf_ok - whether @e's DWARF may be handed to libdw
 * @e: a file with .debug_info
 *
 * Within USTACK_DWARF_MAX, or false after one warning per file (read
 * before dwarf_begin_elf(), which maps or inflates the sections).
 */
bool uelf_dwarf_ok(struct uelf *e)
{
	if (e->dwarf_bytes <= USTACK_DWARF_MAX)
		return true;
	if (!e->dwarf_warned)
		ustack_warning("%s: %" PRIu64 " bytes of DWARF, over the cap of %llu: "
			       "no lines or inlines from it", e->path, e->dwarf_bytes,
			       USTACK_DWARF_MAX);
	e->dwarf_warned = true;
	return false;
}

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD	2
#endif

/* "zstd" for ELFCOMPRESS_ZSTD, the number for a type without a name here */
static const char *compression_name(GElf_Word type, char *buf, size_t size)
{
	if (type == ELFCOMPRESS_ZLIB)
		return "zlib";
	if (type == ELFCOMPRESS_ZSTD)
		return "zstd";
	snprintf(buf, size, "type %u", (unsigned int)type);
	return buf;
}

/**
 * uelf_dwarf_readable - whether libelf can decompress @e's DWARF
 * @e: a file with .debug_info, within uelf_dwarf_ok()
 *
 * A compressed .debug_* section that libelf cannot inflate (zstd, which
 * elfutils reads from 0.189 on, built with it) is to libdw a missing
 * one: lines and inlines would go without a word. Says so once per file,
 * with the reason, and returns false. libdw inflates the sections it
 * reads the same way (elf_compress), so trying first costs nothing more;
 * zlib's, inflated by uelf_dwarf_image() before libdw, are not tried.
 */
bool uelf_dwarf_readable(struct uelf *e)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *name;
	GElf_Chdr ch;
	GElf_Shdr sh;
	char buf[32];

	if (elf_getshdrstrndx(e->elf, &shstrndx) < 0)
		return true;
	while ((scn = elf_nextscn(e->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED))
			continue;
		name = elf_strptr(e->elf, shstrndx, sh.sh_name);
		if (!name || strncmp(name, ".debug_", 7))
			continue;
		/* zlib's are inflated by uelf_dwarf_image() */
		if (!gelf_getchdr(scn, &ch) || ch.ch_type == ELFCOMPRESS_ZLIB ||
		    elf_compress(scn, 0, 0) >= 0)
			continue;
		if (!e->dwarf_warned)
			ustack_warning("%s: %s is compressed with %s, which this libelf cannot "
				       "decompress (%s): no lines or inlines from it", e->path,
				       name, compression_name(ch.ch_type, buf, sizeof(buf)),
				       elf_errmsg(-1));
		e->dwarf_warned = true;
		return false;
	}
	return true;
}

/* Common checks once @e->elf exists: 0 or a negative code. */
static int uelf_setup(struct uelf *e, const struct usrc *s)
{
	GElf_Ehdr eh;
	int err;

	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF)
		return USTACK_ERR_NOT_ELF;
	if (!gelf_getehdr(e->elf, &eh))
		return USTACK_ERR_BAD_EHDR;
	if (uelf_truncated(e, &eh))
		return USTACK_ERR_TRUNCATED;
	e->class = gelf_getclass(e->elf);
	e->type = eh.e_type;
	err = uelf_check_sections(e, s);
	if (err)
		return err;
	uelf_scan_sections(e);
	uelf_read_build_id(e);
	return 0;
}

/* The ELF file open as @fd (or the error that @fd is), taken over. */
static int uelf_open_fd(const char *path, int fd, struct uelf **out)
{
	struct usrc src = { .fd = -1 };
	struct uelf *e;
	struct stat st;
	int err;

	*out = NULL;
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	if ((uint64_t)st.st_size > USTACK_FILE_MAX) {
		cap_warn(path, st.st_size, "bytes in the file", USTACK_FILE_MAX);
		close(fd);
		return USTACK_ERR_CAPPED;
	}
	src.fd = fd;
	src.size = st.st_size;
	err = uelf_precheck(&src, path);
	e = err ? NULL : calloc(1, sizeof(*e));
	if (!e) {
		close(fd);
		return err ? err : USTACK_ERR_NOMEM;
	}
	e->fd = fd;
	e->size = st.st_size;
	e->path = strdup(path);
	e->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = uelf_setup(e, &src);
	if (err) {
		uelf_close(e);
		return err;
	}
	*out = e;
	return 0;
}

/**
 * uelf_open - open an ELF file read-only, mmapped
 * @r: resolver: a path under its --symfs is opened inside it
 * @path: file to open
 * @out: the file, NULL on failure
 *
 * Only regular files within the caps are used (ustack_resolve_open_file(),
 * uelf_precheck()). Returns 0 or a negative code (lib/ustack-err.h):
 * -errno of open(), USTACK_ERR_SYMFS, USTACK_ERR_CAPPED, bad ELF ...
 */
int uelf_open(const struct ustack_resolver *r, const char *path, struct uelf **out)
{
	return uelf_open_fd(path, ustack_resolve_open_file(r, path), out);
}

/**
 * uelf_open_trusted - open an ELF file found by convention
 * @r: resolver (--symfs, and the files it refused)
 * @path: a debug file, a dwz file, a debuginfod cache entry
 * @out: the file, NULL on failure
 *
 * As uelf_open(), but the file must also pass ustack_resolve_open_trusted():
 * owned by root or the user running, no symbolic link of anyone else.
 */
int uelf_open_trusted(struct ustack_resolver *r, const char *path, struct uelf **out)
{
	return uelf_open_fd(path, ustack_resolve_open_trusted(r, path, USTACK_UID_NONE), out);
}

/**
 * uelf_memory - wrap an ELF image that is already in memory
 * @name: used in messages
 * @buf: the image
 * @size: its size
 * @owned: free @buf with the uelf
 * @out: the image, NULL on failure
 *
 * Returns 0 or a negative code, as uelf_open().
 */
int uelf_memory(const char *name, void *buf, size_t size, bool owned,
		struct uelf **out)
{
	struct usrc src = { .fd = -1, .mem = buf, .size = size };
	struct uelf *e;
	int err;

	*out = NULL;
	err = uelf_precheck(&src, name);
	e = err ? NULL : calloc(1, sizeof(*e));
	if (!e) {
		if (owned)
			free(buf);
		return err ? err : USTACK_ERR_NOMEM;
	}
	e->fd = -1;
	e->path = strdup(name);
	e->mem = owned ? buf : NULL;
	e->size = size;
	e->elf = elf_memory(buf, size);
	err = uelf_setup(e, &src);
	if (err) {
		uelf_close(e);
		return err;
	}
	*out = e;
	return 0;
}

void uelf_close(struct uelf *e)
{
	if (!e)
		return;
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
	free(e->mem);
	free(e->path);
	free(e);
}

/* Find a section by name; NULL when absent or NOBITS. */
Elf_Scn *uelf_section(struct uelf *e, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e->elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(e->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, shdr) || shdr->sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(e->elf, shstrndx, shdr->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/**
 * uelf_segments - list the executable PT_LOAD segments
 * @e: the file that was mapped
 * @segs: set to a malloc'd array
 *
 * File offsets inside these segments map to virtual addresses; offsets
 * outside them cannot be code. Returns the count (0 when none).
 */
int uelf_segments(struct uelf *e, struct useg **segs)
{
	size_t i, nr;
	int n = 0;

	*segs = NULL;
	if (elf_getphdrnum(e->elf, &nr) < 0 || !nr)
		return 0;
	*segs = calloc(nr, sizeof(**segs));
	if (!*segs)
		return 0;
	for (i = 0; i < nr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e->elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X) || !ph.p_filesz)
			continue;
		(*segs)[n].off = ph.p_offset;
		(*segs)[n].len = ph.p_filesz;
		(*segs)[n].vaddr = ph.p_vaddr;
		n++;
	}
	return n;
}
