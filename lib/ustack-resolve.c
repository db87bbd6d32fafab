// SPDX-License-Identifier: LGPL-2.1
/*
 * Symbolizer front end: (file, file offset) -> function [+ line, inlines].
 *
 * Files are cached per (path, build id). A frame's file offset is turned
 * into a virtual address through the executable PT_LOAD headers of the
 * file that ran, then looked up in a sorted symbol table and, when asked
 * for, in DWARF. Anything that cannot be matched for certain (wrong build
 * id, offset outside code) stays unresolved: a wrong name is worse than
 * none.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>

#include "ustack-array.h"
#include "ustack-resolve-int.h"
#include "ustack-warn.h"

#define DELETED_SUFFIX	" (deleted)"

/* The flags that make another file of one path: a special one, its ABI */
#define DSO_KEY_FLAGS	(USTACK_MAP_SPECIAL | USTACK_RESOLVE_ABI32)

static uint64_t dso_hash(const char *path, const unsigned char *id, size_t len,
			 uint32_t flags)
{
	return ustack_hash_mem(id, len, ustack_hash_str(path)) ^ (flags & DSO_KEY_FLAGS);
}

static void free_strv(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* A copy of a NULL-terminated string list; NULL when out of memory. */
static char **copy_strv(const char * const *v)
{
	size_t i, n = 0;
	char **c;

	while (v && v[n])
		n++;
	c = calloc(n + 1, sizeof(*c));
	for (i = 0; c && i < n; i++) {
		c[i] = strdup(v[i]);
		if (!c[i]) {
			free_strv(c);
			return NULL;
		}
	}
	return c;
}

/* The --symfs directory without trailing slashes ("/" when only those). */
static char *symfs_dir(const char *dir)
{
	char *d = strdup(dir);
	size_t n = d ? strlen(d) : 0;

	while (n > 1 && d[n - 1] == '/')
		d[--n] = '\0';
	if (d && !strcmp(d, "/")) {
		free(d);
		return NULL;
	}
	return d;
}

/**
 * ustack_resolver_new - create a symbolizer
 * @opts: options, copied; NULL for names only
 *
 * Returns NULL on allocation failure.
 */
struct ustack_resolver *ustack_resolver_new(const struct ustack_resolver_opts *opts)
{
	struct ustack_resolver *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	elf_version(EV_CURRENT);
	if (opts)
		r->opts = *opts;
	r->symfs_fd = -1;
	if (r->opts.symfs && *r->opts.symfs && strcmp(r->opts.symfs, "/"))
		r->symfs = symfs_dir(r->opts.symfs);
	r->opts.symfs = r->symfs;
	ustack_resolve_open_symfs(r);
	r->debug_dirs = copy_strv(r->opts.debug_dirs);
	r->opts.debug_dirs = (const char * const *)r->debug_dirs;
	if (ustack_hash_table_init(&r->dsos, 256) || !r->debug_dirs) {
		free_strv(r->debug_dirs);
		ustack_hash_table_release(&r->dsos);
		free(r->symfs);
		free(r);
		return NULL;
	}
	return r;
}

static void cache_free(struct ucache *c)
{
	size_t i;

	ustack_hash_table_release(&c->table);
	for (i = 0; i < UCACHE_MAX / UCACHE_CHUNK; i++)
		free(c->chunks[i]);
	free(c->pool);
	memset(c, 0, sizeof(*c));
}

static void dso_free(struct ustack_dso *dso)
{
	cache_free(&dso->cache);
	udwarf_free(dso->dw);
	uelf_symtab_free(&dso->symtab);
	if (dso->debug != dso->file)
		uelf_close(dso->debug);
	if (dso->symfile != dso->file && dso->symfile != dso->debug)
		uelf_close(dso->symfile);
	uelf_close(dso->file);
	free(dso->segs);
	free(dso->err_file);
	free(dso->path);
	free(dso);
}

void ustack_resolver_free(struct ustack_resolver *r)
{
	struct ustack_hnode *pos, *tmp;
	size_t i;

	if (!r)
		return;
	ustack_hash_table_for_each_safe(&r->dsos, i, pos, tmp)
		dso_free(ustack_hash_table_entry(pos, struct ustack_dso, node));
	ustack_resolve_jit_free(r);
	ustack_resolve_open_forget(r);
	ustack_resolve_debuginfod_end(r);
	free_strv(r->debug_dirs);
	ustack_hash_table_release(&r->dsos);
	if (r->symfs_fd >= 0)
		close(r->symfs_fd);
	free(r->symfs_real);
	free(r->symfs);
	free(r);
}

/*
 * Keep why the file cannot be used: the code, and the file it is about
 * (NULL: the message names none). Text is made only when printed.
 */
static void dso_set_error(struct ustack_dso *dso, int err, const char *file)
{
	free(dso->err_file);
	dso->err_file = file ? strdup(file) : NULL;
	dso->err = err;
}

/* The path on disk: d_path() marks unlinked files with a suffix. */
static char *disk_path(const struct ustack_dso *dso)
{
	size_t pl = strlen(dso->path), sl = strlen(DELETED_SUFFIX);
	char *p = strdup(dso->path);

	if (p && pl > sl && !strcmp(p + pl - sl, DELETED_SUFFIX))
		p[pl - sl] = '\0';
	return p;
}

/*
 * Open what the trace names: symfs first, then the task's own root.
 * Returns 0 or the code of the first attempt.
 */
static int open_mapped(struct ustack_dso *dso, struct uelf **e)
{
	struct ustack_resolver *r = dso->r;
	char *path = disk_path(dso), *p;
	int err = USTACK_ERR_NOMEM;

	*e = NULL;
	if (!path)
		return err;
	p = ustack_resolve_util_symfs_path(r, path);
	if (p)
		err = uelf_open(r, p, e);
	free(p);
	/* With --symfs nothing is opened outside it. */
	if (!*e && !r->symfs && r->opts.live && dso->tgid > 0 && path[0] == '/') {
		/* Containers: the path belongs to the task's mount namespace. */
		p = ustack_resolve_util_xasprintf("/proc/%d/root%s", dso->tgid, path);
		if (p && !uelf_open(r, p, e))
			err = 0;
		free(p);
	}
	free(path);
	return err;
}

static bool build_id_differs(const struct ustack_dso *dso, const struct uelf *e)
{
	if (!dso->build_id_len || !e->build_id_len)
		return false;
	return dso->build_id_len != e->build_id_len ||
	       memcmp(dso->build_id, e->build_id, e->build_id_len);
}

static void warn_mismatch(const struct ustack_dso *dso, const struct uelf *e)
{
	char a[2 * USTACK_BUILD_ID_MAX + 1], b[2 * USTACK_BUILD_ID_MAX + 1];

	ustack_warning("%s: build id %s does not match the traced %s; its frames stay unresolved",
		       e->path, ustack_resolve_util_build_id_hex(e->build_id, e->build_id_len, a),
		       ustack_resolve_util_build_id_hex(dso->build_id, dso->build_id_len, b));
}

/*
 * The vdso has no file; the running kernel maps the same image into us,
 * so ours is the traced one (checked by build id when the trace has it).
 */
static void dso_open_vdso(struct ustack_dso *dso)
{
	const unsigned char *img = (const void *)getauxval(AT_SYSINFO_EHDR);
	int err = USTACK_ERR_NO_VDSO;
	GElf_Ehdr eh;
	size_t size;
	Elf *tmp;
	void *copy;

	if (!img)
		goto fail;
	/* Its size: the section header table is at the end of the image. */
	tmp = elf_memory((char *)img, 64 * 1024);
	if (!tmp || !gelf_getehdr(tmp, &eh)) {
		if (tmp)
			elf_end(tmp);
		goto fail;
	}
	elf_end(tmp);
	size = eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
	if (size < eh.e_ehsize || size > 64 * 1024)
		goto fail;
	copy = malloc(size);
	if (!copy)
		goto fail;
	memcpy(copy, img, size);
	err = uelf_memory("[vdso]", copy, size, true, &dso->file);
	if (err)
		goto fail;
	if (build_id_differs(dso, dso->file)) {
		warn_mismatch(dso, dso->file);
		uelf_close(dso->file);
		dso->file = NULL;
		dso_set_error(dso, USTACK_ERR_VDSO_DIFFERS, NULL);
		dso->is_vdso_special = true;
	}
	return;
fail:
	dso_set_error(dso, err, "vdso");
}

/*
 * A 32-bit task's [vdso] is the kernel's 32-bit image, which has no file
 * and is not the one mapped into this 64-bit tool: no name is better
 * than one of ours, live or not.
 */
static void dso_open_special(struct ustack_dso *dso)
{
	bool vdso = !strcmp(dso->path, "[vdso]");

	if (vdso && (dso->flags & USTACK_RESOLVE_ABI32))
		dso_set_error(dso, USTACK_ERR_VDSO32, NULL);
	else if (vdso && dso->r->opts.live)
		dso_open_vdso(dso);
	else
		dso->is_vdso_special = true;
}

/* The file on disk is not the one that ran: try one by build id. */
static void dso_open_replacement(struct ustack_dso *dso)
{
	struct uelf *e = ustack_resolve_debuginfo_by_build_id(dso, true);

	/* The one found was another user's: the frames say so. */
	if (!e && dso->untrusted)
		dso_set_error(dso, USTACK_ERR_UNTRUSTED, NULL);
	if (!e)
		return;
	uelf_close(dso->file);
	dso->file = e;
	dso_set_error(dso, 0, NULL);
}

static void dso_open(struct ustack_dso *dso)
{
	int err = USTACK_ERR_NO_PATH;

	if (dso->flags & USTACK_MAP_SPECIAL) {
		dso_open_special(dso);
		goto segs;
	}
	if (!(dso->flags & USTACK_MAP_PATH_ERR))
		err = open_mapped(dso, &dso->file);
	if (dso->file && build_id_differs(dso, dso->file)) {
		warn_mismatch(dso, dso->file);
		dso_set_error(dso, USTACK_ERR_BUILD_ID, dso->file->path);
		uelf_close(dso->file);
		dso->file = NULL;
	} else if (!dso->file) {
		dso_set_error(dso, err, dso->path);
	}
	if (!dso->file && dso->build_id_len)
		dso_open_replacement(dso);
segs:
	if (!dso->file)
		return;
	dso->nr_segs = uelf_segments(dso->file, &dso->segs);
	if (!dso->nr_segs)
		dso_set_error(dso, USTACK_ERR_NO_SEGMENT, dso->file->path);
}

static const char *dso_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

static struct ustack_dso *dso_new(struct ustack_resolver *r, const char *path,
				  const unsigned char *id, size_t len, int tgid,
				  uint32_t flags)
{
	struct ustack_dso *dso = calloc(1, sizeof(*dso));
	size_t pl = strlen(path), sl = strlen(DELETED_SUFFIX);

	if (!dso)
		return NULL;
	dso->r = r;
	dso->tgid = tgid;
	dso->flags = flags;
	dso->path = strdup(path);
	if (!dso->path) {
		free(dso);
		return NULL;
	}
	if (pl > sl && !strcmp(path + pl - sl, DELETED_SUFFIX))
		dso->flags |= USTACK_MAP_DELETED;
	dso->name = (flags & USTACK_MAP_SPECIAL) ? dso->path :
		    dso_basename(dso->path);
	dso->build_id_len = len;
	if (len)
		memcpy(dso->build_id, id, len);
	dso_open(dso);
	return dso;
}

/* The process ran out of something: the file itself may be fine */
static bool short_of_resources(int err)
{
	return err == -EMFILE || err == -ENFILE || err == -ENOMEM || err == USTACK_ERR_NOMEM;
}

/**
 * ustack_resolver_dso - the file an announcement names
 * @r: resolver
 * @path: path as seen by @tgid (may end in " (deleted)")
 * @build_id: GNU build id from the trace, or NULL
 * @build_id_len: its length (0 = none)
 * @tgid: process that mapped it (for /proc/<tgid>/root when live)
 * @flags: USTACK_MAP_* of the announcement; USTACK_RESOLVE_ABI32 when a
 *	32-bit task asks (its [vdso] is then never named by this tool's own)
 *
 * Opened once per (path, build id, and for a special mapping the ABI).
 * Returns NULL only when out of memory.
 */
struct ustack_dso *ustack_resolver_dso(struct ustack_resolver *r, const char *path,
				       const unsigned char *build_id, size_t build_id_len,
				       int tgid, uint32_t flags)
{
	struct ustack_hnode *pos;
	struct ustack_dso *d;
	uint64_t h;

	if (!path)
		path = "";
	if (!build_id)
		build_id_len = 0;
	if (build_id_len > USTACK_BUILD_ID_MAX)
		build_id_len = USTACK_BUILD_ID_MAX;
	/* Only a special mapping is another image for a 32-bit task */
	if (!(flags & USTACK_MAP_SPECIAL))
		flags &= ~USTACK_RESOLVE_ABI32;
	h = dso_hash(path, build_id, build_id_len, flags);
	ustack_hash_table_for_each_hash(&r->dsos, pos, h) {
		d = ustack_hash_table_entry(pos, struct ustack_dso, node);
		if (d->build_id_len == build_id_len &&
		    (d->flags & DSO_KEY_FLAGS) == (flags & DSO_KEY_FLAGS) &&
		    !memcmp(d->build_id, build_id, build_id_len) &&
		    !strcmp(d->path, path))
			return d;
	}
	d = dso_new(r, path, build_id, build_id_len, tgid, flags);
	if (!d)
		return NULL;
	/* once a run: every later file would fail the same way */
	if (short_of_resources(d->err) && !r->said_resources) {
		r->said_resources = true;
		ustack_warning("%s: %s: its frames and those of files after it may stay unresolved "
			       "(raise ulimit -n, or free memory)",
			       d->err_file ? d->err_file : path, ustack_err_strerror(d->err));
	}
	if (ustack_hash_table_add(&r->dsos, &d->node, h)) {
		dso_free(d);
		return NULL;
	}
	return d;
}

const char *ustack_resolve_dso_name(const struct ustack_dso *dso)
{
	if (!dso)
		return "[unknown]";
	return dso->name;
}

static const char * const unresolved_str[USTACK_UNRES_NR] = {
	[USTACK_UNRES_NO_FILE]		= "no file",
	[USTACK_UNRES_OUTSIDE]		= "outside any segment",
	[USTACK_UNRES_STRIPPED]		= "stripped",
	[USTACK_UNRES_NO_SYMBOL]	= "no symbol",
	[USTACK_UNRES_SYMFS]		= "outside --symfs",
	[USTACK_UNRES_CAPPED]		= "over a size cap",
	[USTACK_UNRES_ANON]		= "anonymous memory",
	[USTACK_UNRES_NO_MAPPING]	= "no mapping",
	[USTACK_UNRES_UNANNOUNCED]	= "file not announced",
	[USTACK_UNRES_MISSING]		= "file missing",
	[USTACK_UNRES_BAD_ELF]		= "bad ELF",
	[USTACK_UNRES_OTHER_BUILD]	= "another build",
	[USTACK_UNRES_NO_PATH]		= "file not named",
	[USTACK_UNRES_UNTRUSTED]	= "file not trusted",
	[USTACK_UNRES_RESOURCES]	= "out of file descriptors or memory",
	[USTACK_UNRES_VDSO32]		= "32-bit vdso: no image",
};

/**
 * ustack_resolve_unresolved_group - the summary's reason for a frame's reason
 * @why: a USTACK_UNRES_* value (not negated)
 *
 * The finer reasons for a frame without a readable file count as
 * USTACK_UNRES_NO_FILE; the others (USTACK_UNRES_UNTRUSTED among them)
 * are their own group.
 */
enum ustack_unresolved ustack_resolve_unresolved_group(enum ustack_unresolved why)
{
	/*
	 * Another user's file, a run short of descriptors or memory, a 32-bit
	 * task's vdso: said on their own, as none is "no file"
	 */
	if (why == USTACK_UNRES_UNTRUSTED || why == USTACK_UNRES_RESOURCES ||
	    why == USTACK_UNRES_VDSO32)
		return why;
	if (why <= 0 || why >= USTACK_UNRES_NR || why >= USTACK_UNRES_ANON)
		return USTACK_UNRES_NO_FILE;
	return why;
}

/**
 * ustack_resolve_unresolved_str - short text for a reason a frame has no name
 * @why: a USTACK_UNRES_* value (not negated)
 */
const char *ustack_resolve_unresolved_str(enum ustack_unresolved why)
{
	if (why <= 0 || why >= USTACK_UNRES_NR)
		return "unknown reason";
	return unresolved_str[why];
}

static const char * const origin_str[USTACK_ORIGIN_NR] = {
	[USTACK_ORIGIN_NONE]		= "none",
	[USTACK_ORIGIN_SYMTAB]		= ".symtab",
	[USTACK_ORIGIN_DEBUG_SYMTAB]	= "debug file .symtab",
	[USTACK_ORIGIN_MINIDEBUG]	= ".gnu_debugdata .symtab",
	[USTACK_ORIGIN_DYNSYM]		= ".dynsym",
	[USTACK_ORIGIN_PLT]		= "PLT relocation",
	[USTACK_ORIGIN_DWARF]		= "DWARF",
	[USTACK_ORIGIN_JIT]		= "perf map",
};

/**
 * ustack_resolve_origin_str - the table a name came from, for verbose output
 * @origin: a USTACK_ORIGIN_* value
 */
const char *ustack_resolve_origin_str(enum ustack_origin origin)
{
	if (origin >= USTACK_ORIGIN_NR)
		return "?";
	return origin_str[origin];
}

/**
 * ustack_resolve_dso_errno - why the file's frames cannot be resolved
 * @dso: a file from ustack_resolver_dso(), or NULL
 *
 * Returns 0 when they can, else a negative code that
 * ustack_resolve_dso_strerror() turns into text (-errno, or the library's own).
 */
int ustack_resolve_dso_errno(const struct ustack_dso *dso)
{
	return dso ? dso->err : USTACK_ERR_NOMEM;
}

/**
 * ustack_resolve_dso_strerror - the one-line message of ustack_resolve_dso_errno()
 * @dso: the file, or NULL
 * @buf: where the message goes ("path: reason")
 * @size: size of @buf
 *
 * Returns ustack_resolve_dso_errno(@dso); @buf is empty when it is 0.
 */
int ustack_resolve_dso_strerror(const struct ustack_dso *dso, char *buf, size_t size)
{
	int err = ustack_resolve_dso_errno(dso);

	if (!size)
		return err;
	if (!err)
		buf[0] = '\0';
	else if (dso && dso->err_file)
		snprintf(buf, size, "%s: %s", dso->err_file, ustack_err_strerror(err));
	else
		snprintf(buf, size, "%s", ustack_err_strerror(err));
	return err;
}

/* The reason a frame of a file that could not be used has no name. */
static enum ustack_unresolved dso_why(const struct ustack_dso *dso)
{
	int err = dso->err;

	if (err == USTACK_ERR_SYMFS)
		return USTACK_UNRES_SYMFS;
	if (err == USTACK_ERR_CAPPED)
		return USTACK_UNRES_CAPPED;
	if (err == -ENOENT || err == -ENOTDIR)
		return USTACK_UNRES_MISSING;
	if (ustack_err_bad_elf(err))
		return USTACK_UNRES_BAD_ELF;
	if (err == USTACK_ERR_BUILD_ID)
		return USTACK_UNRES_OTHER_BUILD;
	if (err == USTACK_ERR_NO_PATH)
		return USTACK_UNRES_NO_PATH;
	if (err == USTACK_ERR_UNTRUSTED)
		return USTACK_UNRES_UNTRUSTED;
	if (err == USTACK_ERR_VDSO32)
		return USTACK_UNRES_VDSO32;
	if (short_of_resources(err))
		return USTACK_UNRES_RESOURCES;
	return USTACK_UNRES_NO_FILE;
}

/*
 * Symbols: the file's own .symtab, else one found elsewhere; plus
 * .dynsym (MiniDebugInfo leaves out what .dynsym has) and the PLT stubs.
 */
static void dso_load_syms(struct ustack_dso *dso)
{
	struct uelf *f = dso->file, *sf;

	dso->syms_done = true;
	if (f->has_symtab) {
		uelf_symtab_add_elf(&dso->symtab, f, SHT_SYMTAB, USTACK_ORIGIN_SYMTAB);
	} else {
		sf = dso->symfile = ustack_resolve_debuginfo_find(dso, false);
		if (sf && sf->has_symtab)
			uelf_symtab_add_elf(&dso->symtab, sf, SHT_SYMTAB,
					    sf->minidebug ? USTACK_ORIGIN_MINIDEBUG :
							    USTACK_ORIGIN_DEBUG_SYMTAB);
	}
	uelf_symtab_add_elf(&dso->symtab, f, SHT_DYNSYM, USTACK_ORIGIN_DYNSYM);
	uplt_add_symbols(&dso->symtab, f);
	uelf_symtab_finish(&dso->symtab);
}

/*
 * ustack_resolve_dso_vaddr - the link-time address of file offset @off, when an
 * executable segment holds it (also the unwinder's load-bias source)
 */
bool ustack_resolve_dso_vaddr(const struct ustack_dso *dso, uint64_t off, uint64_t *vaddr)
{
	int i;

	for (i = 0; i < dso->nr_segs; i++) {
		const struct useg *s = &dso->segs[i];

		if (off >= s->off && off - s->off < s->len) {
			*vaddr = off - s->off + s->vaddr;
			return true;
		}
	}
	return false;
}

/* "f@plt" demangles as f, then gets its suffix back (as perf does). */
static char *demangle_plt(struct ustack_resolver *r, const char *name)
{
	size_t len = strlen(name) - strlen("@plt");
	char *base = strndup(name, len), *owned = NULL, *res = NULL;
	const char *d;

	if (!base)
		return NULL;
	d = ustack_resolve_demangle(r, base, &owned);
	if (owned)
		res = ustack_resolve_util_xasprintf("%s@plt", d);
	free(owned);
	free(base);
	return res;
}

static const char *sym_name(struct ustack_dso *dso, const struct uelf_sym *s)
{
	struct uelf_symtab *t = &dso->symtab;
	size_t i = s - t->syms;
	char *owned = NULL;

	if (!dso->r->opts.demangle)
		return s->name;
	if (!t->demangled) {
		t->demangled = calloc(t->nr, sizeof(*t->demangled));
		if (!t->demangled)
			return s->name;
	}
	/* Cached either way: the demangled copy, or the name itself. */
	if (!t->demangled[i]) {
		if (s->origin == USTACK_ORIGIN_PLT)
			owned = demangle_plt(dso->r, s->name);
		else
			ustack_resolve_demangle(dso->r, s->name, &owned);
		t->demangled[i] = owned ? owned : s->name;
	}
	return t->demangled[i];
}

/*
 * The debug file of @dso (DWARF), looked for once; its DWARF is not read:
 * the unwinder only wants to know whether it has a .debug_frame.
 */
struct uelf *ustack_resolve_dso_debug_file(struct ustack_dso *dso)
{
	if (!dso->debug_found) {
		dso->debug_found = true;
		dso->debug = ustack_resolve_debuginfo_find(dso, true);
	}
	return dso->debug;
}

/* The DWARF of @dso's debug file, opened once: lines and inlines. */
void ustack_resolve_dso_load_dwarf(struct ustack_dso *dso)
{
	dso->debug_done = true;
	if (!ustack_resolve_dso_debug_file(dso))
		return;
	/* Frames only its DWARF would have named say why they have none */
	if (!uelf_dwarf_ok(dso->debug))
		dso->capped = true;
	else if (uelf_dwarf_readable(dso->debug))
		dso->dw = udwarf_open(dso->r, dso->debug);
	else {
		dso->dwarf_unreadable = true;
		dso->r->dwarf_unreadable++;
	}
}

/**
 * ustack_resolver_dwarf_unreadable - files whose DWARF libelf could not read
 * @r: the resolver
 *
 * Compressed .debug_* sections this libelf cannot decompress (zstd before
 * elfutils 0.189): their frames have names but no lines or inlines. Each
 * was named once in a warning; the summary counts them.
 */
uint64_t ustack_resolver_dwarf_unreadable(const struct ustack_resolver *r)
{
	return r ? r->dwarf_unreadable : 0;
}

/* Why an address in code has no name: what was there to search. */
static int dso_no_name(const struct ustack_dso *dso)
{
	bool full = dso->file->has_symtab || dso->dw ||
		    (dso->symfile && dso->symfile->has_symtab);

	/* A debug file that would have named it was refused by a cap. */
	if (dso->capped && !full)
		return -USTACK_UNRES_CAPPED;
	/* ... or for its owner (ustack_resolve_open_trusted()) */
	if (dso->untrusted && !full)
		return -USTACK_UNRES_UNTRUSTED;
	return -(full ? USTACK_UNRES_NO_SYMBOL : USTACK_UNRES_STRIPPED);
}

/* Names (and lines/inlines when asked) for one address, uncached. */
static int dso_resolve(struct ustack_dso *dso, uint64_t vaddr, uint64_t orig,
		       struct ustack_sym *out, int max)
{
	const struct ustack_resolver_opts *o = &dso->r->opts;
	struct ustack_sym *outer;
	const struct uelf_sym *s;
	uint64_t start;
	int n = 0;

	if (!dso->syms_done)
		dso_load_syms(dso);
	s = uelf_symtab_find(&dso->symtab, vaddr);
	if ((o->lines || o->inlines) && !dso->debug_done)
		ustack_resolve_dso_load_dwarf(dso);
	/* Its .gnu_debugdata went over a cap: the file is not used. */
	if (dso->file->capped) {
		memset(out, 0, sizeof(*out));
		return -USTACK_UNRES_CAPPED;
	}
	if (dso->dw)
		n = udwarf_lookup(dso->dw, vaddr, o->inlines, out, max);
	if (!n) {
		memset(out, 0, sizeof(*out));
		n = 1;
	}
	/* The real (outermost) function is named by the symbol table. */
	outer = &out[n - 1];
	if (s) {
		outer->name = sym_name(dso, s);
		outer->sym_off = orig - s->start;
		outer->origin = s->origin;
	} else if (dso->dw) {
		outer->name = udwarf_function(dso->dw, vaddr, &start);
		outer->sym_off = orig - start;
		outer->origin = USTACK_ORIGIN_DWARF;
	}
	if (outer->name)
		return n;
	/* Padding between functions: no name, but maybe a line. */
	outer->origin = USTACK_ORIGIN_NONE;
	return dso_no_name(dso);
}

static struct ucache_ent *cache_find(const struct ucache *c, uint64_t key)
{
	struct ustack_hnode *pos;
	struct ucache_ent *e;

	ustack_hash_table_for_each_hash(&c->table, pos, ustack_hash_u64(key)) {
		e = ustack_hash_table_entry(pos, struct ucache_ent, node);
		if (e->key == key)
			return e;
	}
	return NULL;
}

/* The next free entry: chunks are kept when the cache is emptied. */
static struct ucache_ent *cache_ent(struct ucache *c)
{
	struct ucache_ent **chunk = &c->chunks[c->used / UCACHE_CHUNK];

	if (!*chunk)
		*chunk = malloc(UCACHE_CHUNK * sizeof(**chunk));
	if (!*chunk)
		return NULL;
	return &(*chunk)[c->used % UCACHE_CHUNK];
}

static int pool_reserve(struct ucache *c, size_t nr)
{
	return ustack_array_grow((void **)&c->pool, &c->pool_alloc, c->pool_nr + nr,
				 sizeof(*c->pool));
}

static void cache_put(struct ucache *c, uint64_t key, const struct ustack_sym *f,
		      int nr)
{
	struct ucache_ent *e;

	/* Bounded: a uniform stream of new addresses must not grow forever. */
	if (c->used >= UCACHE_MAX) {
		ustack_hash_table_clear(&c->table);
		c->used = 0;
		c->pool_nr = 0;
	}
	if (nr > 0 && pool_reserve(c, nr))
		return;
	e = cache_ent(c);
	if (!e)
		return;
	e->key = key;
	if (nr <= 0) {
		/* No frames: the entry keeps why instead */
		e->first = -nr;
		e->nr = 0;
	} else {
		e->first = c->pool_nr;
		e->nr = nr;
		memcpy(c->pool + c->pool_nr, f, nr * sizeof(*f));
	}
	if (ustack_hash_table_add(&c->table, &e->node, ustack_hash_u64(key)))
		return;
	c->used++;
	c->pool_nr += e->nr;
}

/**
 * ustack_resolve_dso_lookup - symbolize one frame
 * @dso: file from ustack_resolver_dso()
 * @file_offset: offset of the instruction in the file
 * @return_address: true for every frame but the leaf: the lookup then uses
 *	@file_offset - 1 so that a call ending a function names that function
 * @out: frames, innermost (possibly inlined) first
 * @max: room in @out
 *
 * sym_off is measured from the undecremented address. Inlined frames have
 * sym_off 0. Returns the number of frames, or -USTACK_UNRES_* when the
 * frame has no name.
 */
int ustack_resolve_dso_lookup(struct ustack_dso *dso, uint64_t file_offset, bool return_address,
		      struct ustack_sym *out, int max)
{
	const struct ustack_resolver_opts *o;
	struct ustack_sym tmp[64];
	struct ucache_ent *hit;
	uint64_t vaddr, key;
	int n;

	if (!dso)
		return -USTACK_UNRES_NO_FILE;
	if (max <= 0)
		return 0;
	memset(out, 0, sizeof(*out));
	if (dso->is_vdso_special) {
		/* No image to read: name the frame after the mapping. */
		out->name = dso->path;
		out->sym_off = file_offset;
		return 1;
	}
	if (!dso->file)
		return -dso_why(dso);
	if (return_address && file_offset)
		file_offset--;
	else
		return_address = false;
	if (!ustack_resolve_dso_vaddr(dso, file_offset, &vaddr))
		return -USTACK_UNRES_OUTSIDE;
	o = &dso->r->opts;
	if (!o->lines && !o->inlines)
		return dso_resolve(dso, vaddr, vaddr + return_address, out, 1);
	if (!dso->debug_done)
		ustack_resolve_dso_load_dwarf(dso);
	/* Without DWARF a lookup is one binary search: nothing to cache. */
	if (!dso->dw) {
		n = dso_resolve(dso, vaddr, vaddr + return_address, out, max);
		if (n > 0 && dso->dwarf_unreadable)
			out->no_lines = true;
		return n;
	}

	key = ((vaddr << 1) | return_address) + 1;
	hit = cache_find(&dso->cache, key);
	if (hit) {
		if (!hit->nr)
			return -(int)hit->first;
		n = hit->nr < (uint32_t)max ? (int)hit->nr : max;
		memcpy(out, dso->cache.pool + hit->first, n * sizeof(*out));
		/* A nameless frame kept for its source line. */
		return out->name ? n : dso_no_name(dso);
	}
	n = dso_resolve(dso, vaddr, vaddr + return_address, tmp, 64);
	cache_put(&dso->cache, key, tmp, n < 0 && tmp->file ? 1 : n);
	if (n <= 0) {
		*out = *tmp;
		return n;
	}
	if (n > max)
		n = max;
	memcpy(out, tmp, n * sizeof(*out));
	return n;
}
