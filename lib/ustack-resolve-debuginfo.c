// SPDX-License-Identifier: LGPL-2.1
/*
 * Where symbols and DWARF come from when the mapped file lacks them.
 *
 * Order (each under symfs but the --debug-dir directories): the file
 * itself, then
 *   DIR/.build-id/xx/rest.debug for each debug directory DIR, then
 *     DIR/.build-id/xx/rest/{debug,elf} and DIR/.build-id/xx/rest
 *     (perf's build-id cache: ~/.debug), then /usr/lib/debug,
 *   .gnu_debuglink in the file's directory, its .debug/, DIR/<dir>/,
 *     DIR/ and /usr/lib/debug/<dir>/ (CRC32 checked),
 *   .gnu_debugdata (MiniDebugInfo, symbols only),
 *   debuginfod (opt-in, needs DEBUGINFOD_URLS; ustack-resolve-debuginfod.c).
 * A candidate whose build id differs from the file's is never used, nor
 * one another user may have put there (ustack_resolve_open_trusted()).
 */
#include <errno.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "ustack-resolve-int.h"
#include "ustack-warn.h"

#define DEBUG_DIR	"/usr/lib/debug"

static bool ids_equal(const struct uelf *a, const unsigned char *id, size_t len)
{
	return a->build_id_len == len && !memcmp(a->build_id, id, len);
}

/* The build id the file that ran had: its own, else the trace's. */
static const unsigned char *dso_id(const struct ustack_dso *dso, size_t *len)
{
	if (dso->file && dso->file->build_id_len) {
		*len = dso->file->build_id_len;
		return dso->file->build_id;
	}
	*len = dso->build_id_len;
	return dso->build_id;
}

static bool has_wanted(const struct uelf *e, bool want_dwarf)
{
	return want_dwarf ? e->has_dwarf : e->has_symtab;
}

/* Frames a file refused as @err would have named say why. */
static void note_refused(struct ustack_dso *dso, int err)
{
	if (err == USTACK_ERR_CAPPED)
		dso->capped = true;
	else if (err == USTACK_ERR_UNTRUSTED)
		dso->untrusted = true;
}

/*
 * Open a candidate; keep it only if it has what we want and belongs to
 * the same build (when both sides carry an id).
 */
static struct uelf *try_open(struct ustack_dso *dso, const char *path,
			     bool want_dwarf)
{
	const unsigned char *id;
	struct uelf *e;
	size_t len;

	if (!path)
		return NULL;
	note_refused(dso, uelf_open_trusted(dso->r, path, &e));
	if (!e)
		return NULL;
	id = dso_id(dso, &len);
	if ((len && e->build_id_len && !ids_equal(e, id, len)) ||
	    !has_wanted(e, want_dwarf)) {
		uelf_close(e);
		return NULL;
	}
	return e;
}

/* try_open() on a path made from @fmt, then freed. */
static struct uelf *try_path(struct ustack_dso *dso, bool want_dwarf,
			     const char *fmt, const char *a, const char *b,
			     const char *c)
{
	char *p = ustack_resolve_util_xasprintf(fmt, a, b, c);
	struct uelf *e = try_open(dso, p, want_dwarf);

	free(p);
	return e;
}

/*
 * A --debug-dir: gdb's layout (rest.debug), then perf's build-id cache,
 * where .build-id/xx/rest is a directory holding "debug" and "elf" (or,
 * in older perf, the binary itself).
 */
static struct uelf *try_user_build_id(struct ustack_dso *dso, const char *dir,
				      const char *hex, bool want_dwarf)
{
	static const char * const layouts[] = {
		"%s/.build-id/%.2s/%s.debug",
		"%s/.build-id/%.2s/%s/debug",
		"%s/.build-id/%.2s/%s/elf",
		"%s/.build-id/%.2s/%s",
	};
	struct uelf *e = NULL;
	size_t i;

	for (i = 0; !e && i < sizeof(layouts) / sizeof(layouts[0]); i++)
		e = try_path(dso, want_dwarf, layouts[i], dir, hex, hex + 2);
	return e;
}

static struct uelf *try_build_id_dir(struct ustack_dso *dso, bool want_dwarf)
{
	char hex[2 * USTACK_BUILD_ID_MAX + 1], *rel, *p;
	char * const *dir = dso->r->debug_dirs;
	const unsigned char *id;
	struct uelf *e = NULL;
	size_t len;

	id = dso_id(dso, &len);
	if (len < 2)
		return NULL;
	ustack_resolve_util_build_id_hex(id, len, hex);
	for (; !e && dir && *dir; dir++)
		e = try_user_build_id(dso, *dir, hex, want_dwarf);
	if (e)
		return e;
	rel = ustack_resolve_util_xasprintf(DEBUG_DIR "/.build-id/%.2s/%s.debug", hex, hex + 2);
	if (!rel)
		return NULL;
	p = ustack_resolve_util_symfs_path(dso->r, rel);
	free(rel);
	e = try_open(dso, p, want_dwarf);
	free(p);
	return e;
}

/* .gnu_debuglink: file name, NUL, padding to 4, CRC32 in file byte order. */
static const char *read_debuglink(struct uelf *f, uint32_t *crc)
{
	Elf_Data *d, conv, raw;
	GElf_Shdr sh;
	Elf_Scn *scn;
	size_t nlen;

	scn = uelf_section(f, ".gnu_debuglink", &sh);
	d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!d || d->d_size < 8)
		return NULL;
	nlen = strnlen(d->d_buf, d->d_size);
	if (!nlen || ((nlen + 4) & ~3UL) + 4 > d->d_size)
		return NULL;
	/* A file name: one with a '/' would be looked up elsewhere, ".." out. */
	if (memchr(d->d_buf, '/', nlen) || !strcmp(d->d_buf, "..") ||
	    !strcmp(d->d_buf, "."))
		return NULL;
	raw.d_buf = (char *)d->d_buf + ((nlen + 4) & ~3UL);
	raw.d_size = 4;
	raw.d_type = ELF_T_WORD;
	raw.d_version = EV_CURRENT;
	conv = raw;
	conv.d_buf = crc;
	if (!gelf_xlatetom(f->elf, &conv, &raw,
			   elf_getident(f->elf, NULL)[EI_DATA]))
		return NULL;
	return d->d_buf;
}

/*
 * Read in chunks, not through the mapping: a file of gigabytes (up to
 * USTACK_FILE_MAX) must not become resident in this process.
 */
static bool crc_matches(struct uelf *e, uint32_t want)
{
	unsigned char buf[64 * 1024];
	uLong crc = crc32(0, NULL, 0);
	size_t size, off = 0;
	const char *img;
	ssize_t n;

	if (e->fd < 0) {
		img = elf_rawfile(e->elf, &size);
		return img && (uint32_t)crc32(0, (const Bytef *)img, size) == want;
	}
	for (; off < e->size; off += n) {
		n = pread(e->fd, buf, sizeof(buf), off);
		if (n <= 0)
			return false;
		crc = crc32(crc, buf, n);
	}
	return (uint32_t)crc == want;
}

static struct uelf *try_link(struct ustack_dso *dso, const char *path,
			     uint32_t crc, bool want_dwarf)
{
	struct uelf *e;

	/* A link to the file itself (same name, same dir) is no help. */
	if (!path || !strcmp(path, dso->file->path))
		return NULL;
	e = try_open(dso, path, want_dwarf);
	if (e && !crc_matches(e, crc)) {
		uelf_close(e);
		return NULL;
	}
	return e;
}

static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');

	if (!s)
		return strdup(".");
	return strndup(path, s - path);
}

/*
 * A ".." component: the traced path would climb out of the debug
 * directory it is joined to (d_path() never gives one).
 */
static bool has_dotdot(const char *path)
{
	const char *p = path;

	while ((p = strstr(p, ".."))) {
		if ((p == path || p[-1] == '/') && (!p[2] || p[2] == '/'))
			return true;
		p += 2;
	}
	return false;
}

/* Each --debug-dir DIR: DIR/<the file's directory>/<link>, DIR/<link>. */
static struct uelf *try_user_links(struct ustack_dso *dso, const char *odir,
				   const char *link, uint32_t crc, bool want_dwarf)
{
	char * const *dir = dso->r->debug_dirs;
	struct uelf *e = NULL;
	char *p;

	for (; !e && dir && *dir; dir++) {
		if (odir[0] == '/' && !has_dotdot(odir)) {
			p = ustack_resolve_util_xasprintf("%s%s/%s", *dir, odir, link);
			e = try_link(dso, p, crc, want_dwarf);
			free(p);
			if (e)
				break;
		}
		p = ustack_resolve_util_xasprintf("%s/%s", *dir, link);
		e = try_link(dso, p, crc, want_dwarf);
		free(p);
	}
	return e;
}

static struct uelf *try_debuglink(struct ustack_dso *dso, bool want_dwarf)
{
	char *fdir = NULL, *odir = NULL, *p = NULL, *rel;
	struct uelf *e = NULL;
	const char *link;
	uint32_t crc;

	link = read_debuglink(dso->file, &crc);
	if (!link)
		return NULL;
	/* dso->file->path already carries symfs; the announced path does not. */
	fdir = dir_of(dso->file->path);
	odir = dir_of(dso->path[0] == '/' ? dso->path : dso->file->path);
	if (!fdir || !odir)
		goto out;
	p = ustack_resolve_util_xasprintf("%s/%s", fdir, link);
	e = try_link(dso, p, crc, want_dwarf);
	free(p);
	if (e)
		goto out;
	p = ustack_resolve_util_xasprintf("%s/.debug/%s", fdir, link);
	e = try_link(dso, p, crc, want_dwarf);
	free(p);
	if (e)
		goto out;
	e = try_user_links(dso, odir, link, crc, want_dwarf);
	if (e || has_dotdot(odir))
		goto out;
	rel = ustack_resolve_util_xasprintf(DEBUG_DIR "%s/%s", odir, link);
	p = rel ? ustack_resolve_util_symfs_path(dso->r, rel) : NULL;
	free(rel);
	e = try_link(dso, p, crc, want_dwarf);
	free(p);
out:
	free(fdir);
	free(odir);
	return e;
}

/*
 * xz stream of unknown decompressed size into a growing buffer, within
 * the caps: the decoder's memory (the stream names its dictionary size)
 * and the output (USTACK_INFLATE_*). *@capped says when one hit.
 */
static void *xz_decode(const uint8_t *in, size_t in_len, size_t *out_len,
		       bool *capped)
{
	lzma_stream s = LZMA_STREAM_INIT;
	size_t alloc = in_len * 4 + 4096;
	uint8_t *out = NULL;
	lzma_ret ret;

	*capped = false;
	if (lzma_stream_decoder(&s, USTACK_XZ_MEMLIMIT, 0) != LZMA_OK)
		return NULL;
	s.next_in = in;
	s.avail_in = in_len;
	do {
		uint8_t *n;

		if (!uelf_inflate_ok(in_len, alloc)) {
			alloc = in_len < USTACK_INFLATE_MAX / USTACK_INFLATE_RATIO ?
				in_len * USTACK_INFLATE_RATIO : USTACK_INFLATE_MAX;
			if (alloc <= s.total_out) {
				*capped = true;
				goto fail;
			}
		}
		n = realloc(out, alloc);
		if (!n)
			goto fail;
		out = n;
		s.next_out = out + s.total_out;
		s.avail_out = alloc - s.total_out;
		ret = lzma_code(&s, LZMA_FINISH);
		alloc *= 2;
	} while (ret == LZMA_OK || (ret == LZMA_BUF_ERROR && !s.avail_out));
	if (ret == LZMA_MEMLIMIT_ERROR)
		*capped = true;
	if (ret != LZMA_STREAM_END)
		goto fail;
	*out_len = s.total_out;
	lzma_end(&s);
	return out;
fail:
	lzma_end(&s);
	free(out);
	return NULL;
}

/**
 * ustack_resolve_debuginfo_mini - the .gnu_debugdata ELF (MiniDebugInfo) of @e
 * @e: a file that may carry one
 *
 * It holds a .symtab with the functions .dynsym lacks. Returns NULL when
 * absent or broken.
 */
struct uelf *ustack_resolve_debuginfo_mini(struct uelf *e)
{
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;
	bool capped;
	char *name;
	void *buf;
	size_t len;
	struct uelf *m;

	scn = uelf_section(e, ".gnu_debugdata", &sh);
	d = scn ? elf_rawdata(scn, NULL) : NULL;
	if (!d || !d->d_size)
		return NULL;
	buf = xz_decode(d->d_buf, d->d_size, &len, &capped);
	if (capped) {
		/* The file is not used: its frames say why. */
		ustack_warning("%s: .gnu_debugdata decompresses past the caps (%llu bytes and %u times its %zu, decoder memory %u MiB): file not used",
			       e->path, USTACK_INFLATE_MAX, USTACK_INFLATE_RATIO,
			       (size_t)d->d_size, USTACK_XZ_MEMLIMIT >> 20);
		e->capped = true;
	}
	if (!buf)
		return NULL;
	name = ustack_resolve_util_xasprintf("%s[.gnu_debugdata]", e->path);
	if (uelf_memory(name ? name : ".gnu_debugdata", buf, len, true, &m) ==
	    USTACK_ERR_CAPPED)
		e->capped = true;	/* the image inside went over one */
	free(name);
	if (m)
		m->minidebug = true;
	return m;
}

/* A dwz file candidate: the build id .gnu_debugaltlink gives, and DWARF. */
static struct uelf *try_alt(struct ustack_resolver *r, char *path,
			    const unsigned char *id, size_t len)
{
	struct uelf *e = NULL;

	if (path)
		uelf_open_trusted(r, path, &e);
	free(path);
	if (e && (!ids_equal(e, id, len) || !e->has_dwarf)) {
		uelf_close(e);
		e = NULL;
	}
	return e;
}

/**
 * ustack_resolve_debuginfo_alt - the dwz file a debug file's .gnu_debugaltlink names
 * @r: resolver (--symfs, --debug-dir)
 * @e: the debug file
 * @name: the path it names: absolute, or relative to its directory
 * @id: the build id it names
 * @len: its length
 *
 * Looked up as libdw would (the name, then by build id), but under
 * --symfs and through ustack_resolve_open_trusted(). NULL when not found.
 */
struct uelf *ustack_resolve_debuginfo_alt(struct ustack_resolver *r, const struct uelf *e,
				  const char *name, const unsigned char *id, size_t len)
{
	char hex[2 * USTACK_BUILD_ID_MAX + 1], *dir, *rel;
	char * const *d;
	struct uelf *a;

	if (len < 2 || len > USTACK_BUILD_ID_MAX)
		return NULL;
	if (name[0] == '/') {
		a = try_alt(r, ustack_resolve_util_symfs_path(r, name), id, len);
	} else {
		dir = dir_of(e->path);
		a = try_alt(r, dir ? ustack_resolve_util_xasprintf("%s/%s", dir, name) : NULL, id, len);
		free(dir);
	}
	ustack_resolve_util_build_id_hex(id, len, hex);
	for (d = r->debug_dirs; !a && d && *d; d++)
		a = try_alt(r, ustack_resolve_util_xasprintf("%s/.build-id/%.2s/%s.debug", *d, hex, hex + 2),
			    id, len);
	if (a)
		return a;
	rel = ustack_resolve_util_xasprintf(DEBUG_DIR "/.build-id/%.2s/%s.debug", hex, hex + 2);
	a = try_alt(r, rel ? ustack_resolve_util_symfs_path(r, rel) : NULL, id, len);
	free(rel);
	return a;
}

/* A debuginfod server's copy, if it is of the same build. */
static struct uelf *try_debuginfod(struct ustack_dso *dso, bool executable,
				   bool want_dwarf)
{
	const unsigned char *id;
	struct uelf *e;
	size_t len;

	id = dso_id(dso, &len);
	if (!len)
		return NULL;
	note_refused(dso, ustack_resolve_debuginfod_fetch(dso->r, dso->path, id, len,
						  executable, &e));
	if (e && (!ids_equal(e, id, len) ||
		  (!executable && !has_wanted(e, want_dwarf)))) {
		uelf_close(e);
		e = NULL;
	}
	return e;
}

/**
 * ustack_resolve_debuginfo_find - a file with symbols or DWARF for @dso
 * @dso: a file that opened
 * @want_dwarf: need .debug_info (else a .symtab)
 *
 * Returns @dso->file itself, an already found file, or a new one the
 * caller keeps (freed with the dso). NULL when nothing was found.
 */
struct uelf *ustack_resolve_debuginfo_find(struct ustack_dso *dso, bool want_dwarf)
{
	struct uelf *e;

	if (has_wanted(dso->file, want_dwarf))
		return dso->file;
	if (dso->symfile && has_wanted(dso->symfile, want_dwarf))
		return dso->symfile;
	e = try_build_id_dir(dso, want_dwarf);
	if (!e)
		e = try_debuglink(dso, want_dwarf);
	if (!e && !want_dwarf)
		e = ustack_resolve_debuginfo_mini(dso->file);
	if (!e)
		e = try_debuginfod(dso, false, want_dwarf);
	return e;
}

/**
 * ustack_resolve_debuginfo_by_build_id - the traced file, found by its build id
 * @dso: a file whose path is gone or holds another build
 * @executable: want the binary (for its program headers)
 *
 * Only debuginfod can return the original executable; debug files lose
 * the file offsets of their segments.
 */
struct uelf *ustack_resolve_debuginfo_by_build_id(struct ustack_dso *dso, bool executable)
{
	return try_debuginfod(dso, executable, false);
}
