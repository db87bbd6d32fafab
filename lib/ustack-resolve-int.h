/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private parts of the symbolizer (lib/ustack-resolve*.c, and the unwinder
 * that finds its files the same way: lib/ustack-unwind.c).
 */
#ifndef _USTACK_RESOLVE_INT_H
#define _USTACK_RESOLVE_INT_H

#include <gelf.h>
#include <sys/types.h>
#include <elfutils/libdw.h>

#include "ustack.h"
#include "ustack-err.h"
#include "ustack-hash.h"
#include "ustack-resolve.h"

/* One opened ELF image: a file on disk or a buffer in memory. */
struct uelf {
	char		*path;		/* where it was found (for messages) */
	int		fd;
	Elf		*elf;
	void		*mem;		/* owned buffer behind @elf, or NULL */
	size_t		size;
	int		class;		/* ELFCLASS32 / ELFCLASS64 */
	GElf_Half	type;		/* ET_EXEC, ET_DYN ... */
	size_t		build_id_len;
	unsigned char	build_id[USTACK_BUILD_ID_MAX];
	bool		has_symtab;	/* a real (not NOBITS) .symtab */
	bool		has_dwarf;	/* a real .debug_info */
	bool		has_debug_frame; /* a real .debug_frame */
	bool		minidebug;	/* the .gnu_debugdata of another file */
	bool		capped;		/* went over a cap: not to be used */
	uint64_t	dwarf_bytes;	/* .debug_* sections, decompressed */
	bool		dwarf_warned;	/* said its DWARF is over the cap */
};

/*
 * Caps on what the files a trace names may make us allocate or read: a
 * header can claim any count or size, a sparse file any length. Counts
 * and sizes must first fit inside the file (relative); then:
 *
 * USTACK_FILE_MAX		bytes of one file (mmapped, CRC'd)
 * USTACK_ELF_MAX_SECTIONS	section headers (libelf keeps a struct each)
 * USTACK_ELF_MAX_PHDRS		program headers
 * USTACK_ELF_MAX_SYMS		entries of one .symtab or .dynsym
 * USTACK_INFLATE_MAX		bytes one compressed section or
 *				.gnu_debugdata may decompress to, and at most
 * USTACK_INFLATE_RATIO		times its compressed size (deflate's best is
 *				1032: more is a decompression bomb, not DWARF)
 * USTACK_XZ_MEMLIMIT		the xz decoder's own memory (its dictionary)
 * USTACK_DWARF_MAX		bytes of all .debug_* sections of one file
 *				(decompressed) handed to libdw
 *
 * A file over one is not used (one warning names it and the cap); its
 * frames are unresolved "over a size cap". A file over the DWARF cap
 * alone keeps its symbols and loses its lines and inlines: libdw
 * allocates in proportion to the DWARF it reads (units, abbreviations,
 * line rows), with nothing of its own to bound it.
 */
#define USTACK_FILE_MAX		(16ULL << 30)
#define USTACK_ELF_MAX_SECTIONS	(1U << 16)
#define USTACK_ELF_MAX_PHDRS	(1U << 16)
#define USTACK_ELF_MAX_SYMS	(1U << 24)
#define USTACK_INFLATE_MAX	(1ULL << 30)
#define USTACK_INFLATE_RATIO	1032
#define USTACK_XZ_MEMLIMIT	(128U << 20)
#define USTACK_DWARF_MAX	(1ULL << 30)

/* Failures are negative codes: -errno or enum ustack_err (ustack-err.h). */
int ustack_resolve_open_file(const struct ustack_resolver *r, const char *path);
/* No owner but root and the user running (ustack_resolve_open_trusted()) */
#define USTACK_UID_NONE	((uid_t)-1)
int ustack_resolve_open_trusted(struct ustack_resolver *r, const char *path, uid_t also);
void ustack_resolve_open_forget(struct ustack_resolver *r);
void ustack_resolve_open_symfs(struct ustack_resolver *r);

/* ustack-resolve-elf.c: ELF files opened within the caps, their segments */
bool uelf_inflate_ok(uint64_t in, uint64_t out);
int uelf_open(const struct ustack_resolver *r, const char *path, struct uelf **out);
int uelf_open_trusted(struct ustack_resolver *r, const char *path, struct uelf **out);
int uelf_memory(const char *name, void *buf, size_t size, bool owned,
		struct uelf **out);
void uelf_close(struct uelf *e);
size_t ustack_resolve_fd_build_id(int fd, size_t size, unsigned char *id);
Elf_Scn *uelf_section(struct uelf *e, const char *name, GElf_Shdr *shdr);
bool uelf_dwarf_readable(struct uelf *e);
bool uelf_dwarf_ok(struct uelf *e);

/* An executable PT_LOAD: file offsets [off, off + len) sit at vaddr. */
struct useg {
	uint64_t	off;
	uint64_t	len;
	uint64_t	vaddr;
};

int uelf_segments(struct uelf *e, struct useg **segs);

/* ustack-resolve-inflate.c: compressed DWARF inflated before libdw */
int uelf_dwarf_image(struct uelf *e, bool lines, char **out, size_t *size);
void uelf_dwarf_image_free(char *img, size_t size);

/* ustack-resolve-symtab.c: a file's function symbols, by address */

/* A function symbol; the table is sorted by @start. */
struct uelf_sym {
	uint64_t	start;
	const char	*name;
	uint32_t	size;		/* covers [start, start + size) */
	uint8_t		origin;		/* enum ustack_origin */
};

struct uelf_sym_tmp;

#define UELF_SYM_PAGE_SHIFT	12

struct uelf_symtab {
	struct uelf_sym	*syms;
	size_t		nr;
	/* page[i]: first symbol starting at or after base + (i << SHIFT) */
	uint32_t	*page;
	size_t		nr_pages;
	uint64_t	base;
	const char	**demangled;	/* lazily filled; owned when != name */
	struct uelf_sym_tmp	*tmp;		/* while being built */
	size_t		tmp_nr;
	size_t		tmp_alloc;
	char		**owned;	/* names made here ("f@plt") */
	size_t		nr_owned;
};

int uelf_symtab_add_elf(struct uelf_symtab *t, struct uelf *e, Elf64_Word type,
			enum ustack_origin origin);
int uelf_symtab_add_owned(struct uelf_symtab *t, uint64_t start, uint64_t size,
			  char *name, enum ustack_origin origin);
void uelf_symtab_finish(struct uelf_symtab *t);
const struct uelf_sym *uelf_symtab_find(const struct uelf_symtab *t, uint64_t addr);
void uelf_symtab_free(struct uelf_symtab *t);

/* ustack-resolve-plt.c: names for the PLT stubs, into a table being built */
int uplt_add_symbols(struct uelf_symtab *t, struct uelf *e);

/*
 * DWARF lookups cached per (address, return-address) key. At most
 * UCACHE_MAX before the cache is emptied and refilled: real traces repeat
 * a few thousand addresses, a stream of always new ones must not grow
 * memory. Entries come from fixed chunks, their frames from a pool.
 */
#define UCACHE_MAX	(1U << 16)
#define UCACHE_CHUNK	1024

struct ucache_ent {
	struct ustack_hnode	node;
	uint64_t		key;
	uint32_t		first;		/* into the pool; why, when nr is 0 */
	uint32_t		nr;
};

struct ucache {
	struct ustack_htable	table;
	struct ucache_ent	*chunks[UCACHE_MAX / UCACHE_CHUNK];
	size_t			used;
	struct ustack_sym	*pool;
	size_t			pool_nr;
	size_t			pool_alloc;
};

struct udwarf;

struct ustack_dso {
	struct ustack_resolver	*r;
	struct ustack_hnode	node;		/* the resolver's files */
	char			*path;		/* as announced */
	const char		*name;		/* points into @path or static */
	uint32_t		flags;
	int			tgid;
	size_t			build_id_len;
	unsigned char		build_id[USTACK_BUILD_ID_MAX];
	int			err;		/* 0, -errno or USTACK_ERR_* */
	char			*err_file;	/* the file @err is about */
	bool			capped;		/* a file of it went over a cap */
	bool			untrusted;	/* ustack_resolve_open_trusted() refused one */
	bool			dwarf_unreadable; /* uelf_dwarf_readable() said no */

	struct uelf		*file;		/* what ran (or a stand-in) */
	struct useg		*segs;
	int			nr_segs;
	bool			is_vdso_special;	/* [vdso] not resolvable */

	bool			syms_done;
	struct uelf_symtab		symtab;
	struct uelf		*symfile;	/* extra ELF giving .symtab */

	bool			debug_done;	/* its DWARF was opened (or not found) */
	bool			debug_found;	/* @debug was looked for */
	struct uelf		*debug;		/* separate debug file */
	struct udwarf		*dw;

	struct ucache		cache;
};

struct ustack_resolver {
	struct ustack_resolver_opts	opts;
	char				*symfs;		/* no trailing '/' */
	int				symfs_fd;	/* O_PATH, or -1 */
	int				symfs_err;	/* why symfs_fd is -1 */
	char				*symfs_real;	/* realpath(), for old kernels */
	bool				no_openat2;
	char				**debug_dirs;	/* NULL-terminated copy */
	struct ustack_htable		dsos;		/* struct ustack_dso */
	struct ujit			*jits;
	struct ustack_htable		refused;	/* files said not used */
	uint64_t			jit_probes;	/* steps of JIT look-ups (tests) */
	void				*dbgd;		/* debuginfod_client */
	bool				dbgd_tried;
	bool				dbgd_progress;	/* a progress line is open */
	bool				dbgd_tty;	/* progress lines are shown */
	bool				dbgd_cut;	/* the cap ended look-ups */
	bool				dbgd_said_cap;
	bool				said_resources;	/* EMFILE/ENOMEM said */
	const char			*dbgd_what;	/* what is being fetched */
	uint64_t			dbgd_cap;	/* ns all look-ups may take */
	uint64_t			dbgd_spent;	/* ns they took */
	uint64_t			dbgd_start;	/* of the one under way */
	uint64_t			dwarf_unreadable; /* files, uelf_dwarf_readable() */
};

/* ustack-resolve.c, also for the unwinder (ustack-unwind.c) */
bool ustack_resolve_dso_vaddr(const struct ustack_dso *dso, uint64_t off, uint64_t *vaddr);
struct uelf *ustack_resolve_dso_debug_file(struct ustack_dso *dso);
void ustack_resolve_dso_load_dwarf(struct ustack_dso *dso);

/* ustack-resolve-util.c */
char *ustack_resolve_util_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *ustack_resolve_util_build_id_hex(const unsigned char *id, size_t len, char *buf);
char *ustack_resolve_util_symfs_path(const struct ustack_resolver *r, const char *path);

/* ustack-resolve-debuginfo.c */
struct uelf *ustack_resolve_debuginfo_find(struct ustack_dso *dso, bool want_dwarf);
struct uelf *ustack_resolve_debuginfo_by_build_id(struct ustack_dso *dso, bool executable);
struct uelf *ustack_resolve_debuginfo_mini(struct uelf *e);
struct uelf *ustack_resolve_debuginfo_alt(struct ustack_resolver *r, const struct uelf *e,
				  const char *name, const unsigned char *id, size_t len);

/* ustack-resolve-dwarf.c */
struct udwarf *udwarf_open(struct ustack_resolver *r, struct uelf *e);
void udwarf_free(struct udwarf *dw);
int udwarf_lookup(struct udwarf *dw, uint64_t addr, bool inlines,
		  struct ustack_sym *out, int max);
const char *udwarf_function(struct udwarf *dw, uint64_t addr, uint64_t *start);

/* ustack-resolve-jit.c */
void ustack_resolve_jit_free(struct ustack_resolver *r);

/* ustack-resolve-debuginfod.c (stubs in a build without libdebuginfod) */
void ustack_resolve_debuginfod_end(struct ustack_resolver *r);
int ustack_resolve_debuginfod_fetch(struct ustack_resolver *r, const char *path,
			    const unsigned char *id, size_t len, bool executable,
			    struct uelf **out);

/* ustack-resolve-demangle.c */
const char *ustack_resolve_demangle(struct ustack_resolver *r, const char *name, char **owned);

#endif /* _USTACK_RESOLVE_INT_H */
