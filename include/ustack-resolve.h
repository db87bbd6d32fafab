/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Symbolization of (file, file offset) frames.
 */
#ifndef _USTACK_RESOLVE_H
#define _USTACK_RESOLVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

struct ustack_resolver;
struct ustack_dso;

/**
 * struct ustack_resolver_opts - how frames are symbolized
 * @symfs:	directory prepended to every path (analysis on another host)
 * @lines:	add file:line (reads DWARF, its line tables among it)
 * @inlines:	expand inlined calls into frames of their own (reads DWARF;
 *		without @lines, no line table: the frames have no file:line)
 * @demangle:	demangle C++ and Rust names
 * @debuginfod:	ask debuginfod (when DEBUGINFOD_URLS is set)
 * @live:	the trace comes from this boot: /proc/<tgid>/root and the
 *		running kernel's vdso may be used
 * @debug_dirs:	NULL-terminated list of directories searched for debug files
 *		(.build-id/xx/rest.debug and .gnu_debuglink names) before
 *		/usr/lib/debug, as gdb's debug-file-directory; not under symfs
 */
struct ustack_resolver_opts {
	const char	*symfs;
	const char * const *debug_dirs;
	bool		lines;
	bool		inlines;
	bool		demangle;
	bool		debuginfod;
	bool		live;
};

/**
 * enum ustack_origin - the table a frame's name was found in
 * @USTACK_ORIGIN_NONE:		no name (or a special mapping's)
 * @USTACK_ORIGIN_SYMTAB:	.symtab of the file itself
 * @USTACK_ORIGIN_DEBUG_SYMTAB:	.symtab of a separate debug file
 * @USTACK_ORIGIN_MINIDEBUG:	.symtab inside .gnu_debugdata (MiniDebugInfo)
 * @USTACK_ORIGIN_DYNSYM:	.dynsym
 * @USTACK_ORIGIN_PLT:		a PLT stub, named after its relocation
 * @USTACK_ORIGIN_DWARF:	DWARF (inlined frames, or no symbol there)
 * @USTACK_ORIGIN_JIT:		a perf map of JIT code
 */
enum ustack_origin {
	USTACK_ORIGIN_NONE,
	USTACK_ORIGIN_SYMTAB,
	USTACK_ORIGIN_DEBUG_SYMTAB,
	USTACK_ORIGIN_MINIDEBUG,
	USTACK_ORIGIN_DYNSYM,
	USTACK_ORIGIN_PLT,
	USTACK_ORIGIN_DWARF,
	USTACK_ORIGIN_JIT,
	USTACK_ORIGIN_NR,
};

const char *ustack_resolve_origin_str(enum ustack_origin origin);

/**
 * struct ustack_sym - one symbolized frame
 * @name:	function name, NULL when unresolved (owned by the resolver)
 * @sym_off:	offset of the address from the start of @name
 * @file:	source file or NULL: the path an editor opens (joined with
 *		the compile and include directories, as llvm-symbolizer
 *		prints it); its last component is the short form
 * @line:	source line or 0
 * @start_line:	line where @name's function starts (DWARF's declaration
 *		line; with lines or inlines asked), 0 when not known
 * @inlined:	this frame was inlined into the next one
 * @origin:	enum ustack_origin of @name
 */
struct ustack_sym {
	const char	*name;
	uint64_t	sym_off;
	const char	*file;
	int		line;
	int		start_line;
	bool		inlined;
	bool		no_lines;	/* lines asked for, its DWARF unreadable */
	uint8_t		origin;
};

/**
 * enum ustack_unresolved - why a frame has no name
 * @USTACK_UNRES_NO_FILE:	no readable file, for another reason than
 *				those below (not a regular file, no access)
 * @USTACK_UNRES_OUTSIDE:	the offset lies outside every executable
 *				segment of the file
 * @USTACK_UNRES_STRIPPED:	the file has no symbol table but the dynamic
 *				one and no debug info names the address
 * @USTACK_UNRES_NO_SYMBOL:	the symbol table has no function there
 * @USTACK_UNRES_SYMFS:		the path leads outside --symfs (a symlink or
 *				"..") and names nothing inside it
 * @USTACK_UNRES_CAPPED:	the file, or the one with its symbols, went
 *				over a size cap (lying headers, huge tables)
 * @USTACK_UNRES_ANON:		anonymous memory no JIT map names
 * @USTACK_UNRES_NO_MAPPING:	the address lies in no mapping
 * @USTACK_UNRES_UNANNOUNCED:	a file id whose file was never announced
 * @USTACK_UNRES_MISSING:	the file is not there (any more)
 * @USTACK_UNRES_BAD_ELF:	not ELF, truncated, or no executable segment
 * @USTACK_UNRES_OTHER_BUILD:	the file there is another build
 * @USTACK_UNRES_NO_PATH:	the kernel could not name the file
 * @USTACK_UNRES_UNTRUSTED:	the file that would name it (a perf map, a
 *				debug file) was found by convention and is
 *				owned by another user than root or the one
 *				running (or is a symbolic link of one)
 * @USTACK_UNRES_RESOURCES:	the file could not be opened or read for
 *				want of file descriptors or memory (EMFILE,
 *				ENFILE, ENOMEM): not a property of the file
 * @USTACK_UNRES_VDSO32:	[vdso] of a 32-bit (i386, x32) task: the kernel
 *				maps it another image than the one this
 *				64-bit tool has, and there is no file of it
 *
 * ustack_resolve_dso_lookup() returns these negated. The reasons from
 * USTACK_UNRES_ANON to USTACK_UNRES_NO_PATH say why there was no file in
 * more detail: the summary counts them under USTACK_UNRES_NO_FILE
 * (ustack_resolve_unresolved_group()).
 */
enum ustack_unresolved {
	USTACK_UNRES_NO_FILE = 1,
	USTACK_UNRES_OUTSIDE,
	USTACK_UNRES_STRIPPED,
	USTACK_UNRES_NO_SYMBOL,
	USTACK_UNRES_SYMFS,
	USTACK_UNRES_CAPPED,
	USTACK_UNRES_ANON,
	USTACK_UNRES_NO_MAPPING,
	USTACK_UNRES_UNANNOUNCED,
	USTACK_UNRES_MISSING,
	USTACK_UNRES_BAD_ELF,
	USTACK_UNRES_OTHER_BUILD,
	USTACK_UNRES_NO_PATH,
	USTACK_UNRES_UNTRUSTED,
	USTACK_UNRES_RESOURCES,
	USTACK_UNRES_VDSO32,
	USTACK_UNRES_NR,
};

enum ustack_unresolved ustack_resolve_unresolved_group(enum ustack_unresolved why);
const char *ustack_resolve_unresolved_str(enum ustack_unresolved why);

struct ustack_resolver *ustack_resolver_new(const struct ustack_resolver_opts *opts);
bool ustack_resolve_debuginfod_available(void);
void ustack_resolver_free(struct ustack_resolver *r);
uint64_t ustack_resolver_dwarf_unreadable(const struct ustack_resolver *r);

/*
 * Asked for by a 32-bit task (i386, x32), as its files or registers say:
 * or'ed into the flags of ustack_resolver_dso(). Its [vdso] is not the
 * image this tool maps: that one never names its frames.
 */
#define USTACK_RESOLVE_ABI32	(1U << 31)

/*
 * Find (or open and cache) the file a mapping names. Never NULL: a file that
 * cannot be used is returned too and says why through ustack_resolve_dso_strerror().
 * @flags are USTACK_MAP_* of the announcement, and USTACK_RESOLVE_ABI32.
 */
struct ustack_dso *ustack_resolver_dso(struct ustack_resolver *r, const char *path,
				       const unsigned char *build_id, size_t build_id_len,
				       int tgid, uint32_t flags);

/*
 * Symbolize @file_offset. @return_address is true for every frame but the
 * leaf (the lookup then uses offset - 1). Fills up to @max entries, the
 * innermost (possibly inlined) first; returns how many, or when there is
 * no name -USTACK_UNRES_* saying why. Without a name, out[0] still has
 * name NULL and the source line when the line table covers the address
 * (padding between functions), file NULL when not.
 *
 * sym_off is measured from the address itself (not offset - 1); inlined
 * frames have sym_off 0. A special mapping that cannot be read (e.g.
 * [vdso] when not live) gives one frame named after the mapping, with
 * sym_off = @file_offset. Strings stay valid until ustack_resolver_free().
 */
int ustack_resolve_dso_lookup(struct ustack_dso *dso, uint64_t file_offset, bool return_address,
		      struct ustack_sym *out, int max);

/* Short name for display: basename of the path, or "[vdso]". */
const char *ustack_resolve_dso_name(const struct ustack_dso *dso);

int ustack_resolve_dso_errno(const struct ustack_dso *dso);
int ustack_resolve_dso_strerror(const struct ustack_dso *dso, char *buf, size_t size);

/*
 * Anonymous memory (JIT): look @addr up in /tmp/perf-<tgid>.map (under
 * symfs). Returns 1 and fills @out when found, 0 when the map names no
 * region there or there is no map, -USTACK_UNRES_* when the map was not
 * used (not a regular file, another user's).
 */
int ustack_resolve_jit_resolve(struct ustack_resolver *r, int tgid, uint64_t addr,
		       struct ustack_sym *out);

#endif /* _USTACK_RESOLVE_H */
