// SPDX-License-Identifier: LGPL-2.1
/*
 * System calls by name (include/ustack-syscalls.h). One tracepoint,
 * raw_syscalls:sys_enter, sees every system call: as a perf event it is
 * one per CPU where the per-call syscalls:sys_enter_* events are some 360,
 * each opened and closed on every CPU. Its samples are shown under the
 * per-call name, so that the default set reads as it did with the
 * per-call events: each call number gets a copy of the raw event's
 * format named syscalls:sys_enter_NAME, made the first time it is seen
 * and kept for the session (the outputs and the filter key on it).
 */
#include <elf.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "ustack-hash.h"
#include "ustack-resolve-int.h"
#include "ustack-syscalls.h"
#include "ustack-syscalls-table.h"

#define NR_TABLE	(sizeof(ustack_syscalls_native) / sizeof(ustack_syscalls_native[0]))
#ifdef USTACK_SYSCALLS_HAVE_I386
#define NR_TABLE32	(sizeof(ustack_syscalls_i386) / sizeof(ustack_syscalls_i386[0]))
#else
#define NR_TABLE32	1
static const char *const ustack_syscalls_i386[NR_TABLE32];
#endif
/* numbers past the tables (a newer kernel's): a few named events */
#define MAX_OTHERS	64
/* x86-64's x32 ABI: its numbers are the 64-bit ones with this bit set */
#define X32_SYSCALL_BIT	0x40000000L
/* the x32 numbers of their own start there (x32's own rt_sigaction...) */
#define X32_OWN_FIRST	512

struct other {
	enum ustack_syscall_abi	abi;
	long			nr;
	struct tep_event	*ev;
};

/* An event by its name: one per name, whatever the ABIs that share it */
struct named {
	struct ustack_hnode	node;
	struct tep_event	*ev;
};

/* An executable's ABI, by its path: read once */
struct file_abi {
	struct ustack_hnode	node;
	enum ustack_syscall_abi	abi;
	char			path[];
};

/*
 * by_nr, by_nr32 and others point into names, which owns the events:
 * i386's write and x86-64's are one syscalls:sys_enter_write.
 */
struct ustack_syscalls {
	struct tep_event	*by_nr[NR_TABLE];
	struct tep_event	*by_nr32[NR_TABLE32];
	struct other		others[MAX_OTHERS];
	size_t			nr_others;
	struct ustack_htable	names;
	struct ustack_htable	files;
};

static char syscalls_system[] = USTACK_SYSCALLS_SYSTEM;

/**
 * ustack_syscalls_new - a cache of named system call events
 *
 * Returns it, or NULL when out of memory.
 */
struct ustack_syscalls *ustack_syscalls_new(void)
{
	struct ustack_syscalls *sc = calloc(1, sizeof(struct ustack_syscalls));

	if (!sc)
		return NULL;
	if (ustack_hash_table_init(&sc->names, 64) || ustack_hash_table_init(&sc->files, 16)) {
		ustack_syscalls_free(sc);
		return NULL;
	}
	return sc;
}

/**
 * ustack_syscalls_free - free the cache and its named events
 * @sc: the cache (may be NULL)
 *
 * The events it handed out are gone with it.
 */
void ustack_syscalls_free(struct ustack_syscalls *sc)
{
	struct ustack_hnode *pos, *tmp;
	struct named *n;
	size_t i;

	if (!sc)
		return;
	ustack_hash_table_for_each_safe(&sc->names, i, pos, tmp) {
		n = ustack_hash_table_entry(pos, struct named, node);
		free(n->ev->name);
		free(n->ev);
		free(n);
	}
	ustack_hash_table_release(&sc->names);
	ustack_hash_table_for_each_safe(&sc->files, i, pos, tmp)
		free(ustack_hash_table_entry(pos, struct file_abi, node));
	ustack_hash_table_release(&sc->files);
	free(sc);
}

/* The table of @abi and its length */
static const char *const *table_of(enum ustack_syscall_abi abi, size_t *len)
{
	if (abi == USTACK_SYSCALL_ABI_I386) {
		*len = NR_TABLE32;
		return ustack_syscalls_i386;
	}
	*len = NR_TABLE;
	return ustack_syscalls_native;
}

/* The ABI a number says by itself: x32's carry their bit */
static enum ustack_syscall_abi abi_of_nr(long nr, enum ustack_syscall_abi abi)
{
#ifdef USTACK_SYSCALLS_HAVE_I386
	if (nr >= 0 && (nr & X32_SYSCALL_BIT))
		return USTACK_SYSCALL_ABI_X32;
#endif
	return abi == USTACK_SYSCALL_ABI_X32 ? USTACK_SYSCALL_ABI_NATIVE : abi;
}

/**
 * ustack_syscalls_name_abi - the event name of a system call number
 * @abi:	the calling task's ABI (USTACK_SYSCALL_ABI_UNKNOWN: native)
 * @nr:		the number (raw_syscalls:sys_enter's id)
 * @buf:	where to write "sys_enter_NAME", or "sys_enter_NR" for a
 *		number the build's headers do not name ("sys_enter_i386_NR"
 *		for a 32-bit task's)
 * @size:	room in @buf
 *
 * An x32 number (bit 30 set) is named from the 64-bit table below x32's
 * own calls, whatever @abi says. Returns the length, as snprintf().
 */
int ustack_syscalls_name_abi(enum ustack_syscall_abi abi, long nr, char *buf, size_t size)
{
	const char *const *t;
	size_t len;

	abi = abi_of_nr(nr, abi);
	if (abi == USTACK_SYSCALL_ABI_X32 && (nr & ~X32_SYSCALL_BIT) < X32_OWN_FIRST) {
		abi = USTACK_SYSCALL_ABI_NATIVE;
		nr &= ~X32_SYSCALL_BIT;
	}
	if (abi == USTACK_SYSCALL_ABI_X32)
		abi = USTACK_SYSCALL_ABI_NATIVE;	/* x32's own: its number */
	t = table_of(abi, &len);
	if (nr >= 0 && (size_t)nr < len && t[nr])
		return snprintf(buf, size, "sys_enter_%s", t[nr]);
	if (abi == USTACK_SYSCALL_ABI_I386)
		return snprintf(buf, size, "sys_enter_i386_%ld", nr);
	return snprintf(buf, size, "sys_enter_%ld", nr);
}

/**
 * ustack_syscalls_name - the event name of a 64-bit (native) call number
 * @nr:		the number
 * @buf:	where to write it
 * @size:	room in @buf
 *
 * As ustack_syscalls_name_abi() for the native ABI.
 */
int ustack_syscalls_name(long nr, char *buf, size_t size)
{
	return ustack_syscalls_name_abi(USTACK_SYSCALL_ABI_NATIVE, nr, buf, size);
}

static bool is_raw(const struct tep_event *ev)
{
	return ev->system && ev->name && !strcmp(ev->name, USTACK_SYSCALLS_RAW_EVENT) &&
	       !strcmp(ev->system, USTACK_SYSCALLS_RAW_SYSTEM);
}

/* The record's call number; false when its format or size has none */
static bool read_nr(const struct tep_event *ev, const struct tep_record *rec, long *nr)
{
	struct tep_format_field *f = tep_find_field((struct tep_event *)ev, "id");
	unsigned long long val;

	if (!f || !rec->data || (f->size != 4 && f->size != 8) || f->offset < 0 ||
	    rec->size < 0 || f->offset + f->size > rec->size)
		return false;
	val = tep_read_number(ev->tep, (char *)rec->data + f->offset, f->size);
	*nr = f->size == 4 ? (long)(int)val : (long)val;
	return true;
}

/* The one event named @name, made from @raw the first time */
static struct tep_event *named_get(struct ustack_syscalls *sc, const struct tep_event *raw,
				   const char *name)
{
	uint64_t h = ustack_hash_str(name);
	struct ustack_hnode *pos;
	struct named *n;
	struct tep_event *ev;

	ustack_hash_table_for_each_hash(&sc->names, pos, h) {
		n = ustack_hash_table_entry(pos, struct named, node);
		if (!strcmp(n->ev->name, name))
			return n->ev;
	}
	n = malloc(sizeof(*n));
	ev = malloc(sizeof(*ev));
	if (!n || !ev)
		goto fail;
	/* the format, id and print format stay the raw event's */
	*ev = *raw;
	ev->name = strdup(name);
	ev->system = syscalls_system;
	if (!ev->name)
		goto fail;
	n->ev = ev;
	if (ustack_hash_table_add(&sc->names, &n->node, h)) {
		free(ev->name);
		goto fail;
	}
	return ev;
fail:
	free(ev);
	free(n);
	return NULL;
}

/* The cache's slot of @nr in @abi's numbers, NULL when it is full */
static struct tep_event **slot(struct ustack_syscalls *sc, enum ustack_syscall_abi abi, long nr)
{
	size_t i;

	if (abi == USTACK_SYSCALL_ABI_NATIVE && nr >= 0 && (size_t)nr < NR_TABLE)
		return &sc->by_nr[nr];
	if (abi == USTACK_SYSCALL_ABI_I386 && nr >= 0 && (size_t)nr < NR_TABLE32)
		return &sc->by_nr32[nr];
	for (i = 0; i < sc->nr_others; i++)
		if (sc->others[i].nr == nr && sc->others[i].abi == abi)
			return &sc->others[i].ev;
	if (sc->nr_others == MAX_OTHERS)
		return NULL;
	sc->others[sc->nr_others].abi = abi;
	sc->others[sc->nr_others].nr = nr;
	return &sc->others[sc->nr_others++].ev;
}

/**
 * ustack_syscalls_event - the event a sample is shown as
 * @sc:		the cache (NULL: @ev)
 * @ev:		the record's event (may be NULL)
 * @rec:	the record
 * @abi:	the task's ABI (USTACK_SYSCALL_ABI_UNKNOWN: named as native)
 *
 * Returns, for a raw_syscalls:sys_enter record, its system call's named
 * event (syscalls:sys_enter_openat), valid until ustack_syscalls_free();
 * @ev for any other event, or when the record has no readable number or
 * memory ran out.
 */
struct tep_event *ustack_syscalls_event(struct ustack_syscalls *sc, struct tep_event *ev,
					const struct tep_record *rec,
					enum ustack_syscall_abi abi)
{
	struct tep_event **sl;
	char name[64];
	long nr;

	if (!sc || !ev || !rec || !is_raw(ev) || !read_nr(ev, rec, &nr))
		return ev;
	abi = abi_of_nr(nr, abi == USTACK_SYSCALL_ABI_UNKNOWN ? USTACK_SYSCALL_ABI_NATIVE : abi);
	/* x32's calls of the 64-bit table are those calls */
	if (abi == USTACK_SYSCALL_ABI_X32 && (nr & ~X32_SYSCALL_BIT) < X32_OWN_FIRST) {
		abi = USTACK_SYSCALL_ABI_NATIVE;
		nr &= ~X32_SYSCALL_BIT;
	}
	sl = slot(sc, abi, nr);
	if (!sl)
		return ev;
	if (!*sl) {
		ustack_syscalls_name_abi(abi, nr, name, sizeof(name));
		*sl = named_get(sc, ev, name);
	}
	return *sl ? *sl : ev;
}

/* The ABI of an ELF file's header: its class and machine */
static enum ustack_syscall_abi elf_abi(const char *path)
{
	unsigned char h[EI_NIDENT + 4];
	uint16_t machine;
	int fd = ustack_resolve_open_file(NULL, path);
	ssize_t n;

	if (fd < 0)
		return USTACK_SYSCALL_ABI_UNKNOWN;
	n = pread(fd, h, sizeof(h), 0);
	close(fd);
	/* x86 is little-endian: e_machine follows e_type */
	if (n != (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG) || h[EI_DATA] != ELFDATA2LSB)
		return USTACK_SYSCALL_ABI_UNKNOWN;
	machine = h[EI_NIDENT + 2] | h[EI_NIDENT + 3] << 8;
	if (h[EI_CLASS] == ELFCLASS32 && machine == EM_386)
		return USTACK_SYSCALL_ABI_I386;
	if (h[EI_CLASS] == ELFCLASS32 && machine == EM_X86_64)
		return USTACK_SYSCALL_ABI_X32;
	if (h[EI_CLASS] == ELFCLASS64 && machine == EM_X86_64)
		return USTACK_SYSCALL_ABI_NATIVE;
	return USTACK_SYSCALL_ABI_UNKNOWN;
}

/**
 * ustack_syscalls_file_abi - the ABI of the code of an executable file
 * @sc:		the cache (the answer is kept by path)
 * @path:	the file, as a mapping names it
 *
 * Returns what its ELF header says: USTACK_SYSCALL_ABI_I386 for an i386
 * file, _X32 for an x32 one, _NATIVE for an x86-64 one (only on x86-64
 * builds: elsewhere, and for a file that does not open, is no ELF or of
 * another machine, USTACK_SYSCALL_ABI_UNKNOWN).
 */
enum ustack_syscall_abi ustack_syscalls_file_abi(struct ustack_syscalls *sc, const char *path)
{
	uint64_t h;
	struct ustack_hnode *pos;
	struct file_abi *f;
	size_t len;

	/* only x86-64 has more than one ABI here */
	if (!sc || !path || path[0] != '/' || NR_TABLE32 < 2)
		return USTACK_SYSCALL_ABI_UNKNOWN;
	h = ustack_hash_str(path);
	ustack_hash_table_for_each_hash(&sc->files, pos, h) {
		f = ustack_hash_table_entry(pos, struct file_abi, node);
		if (!strcmp(f->path, path))
			return f->abi;
	}
	len = strlen(path) + 1;
	f = malloc(sizeof(*f) + len);
	if (!f)
		return USTACK_SYSCALL_ABI_UNKNOWN;
	memcpy(f->path, path, len);
	f->abi = elf_abi(path);
	if (ustack_hash_table_add(&sc->files, &f->node, h)) {
		enum ustack_syscall_abi abi = f->abi;

		free(f);
		return abi;
	}
	return f->abi;
}

/**
 * ustack_syscalls_origin - the trace's own event of a named system call
 * @ev: an event a sample is shown as
 *
 * Returns raw_syscalls:sys_enter for an event ustack_syscalls_event()
 * named, NULL for an event of the trace.
 */
const struct tep_event *ustack_syscalls_origin(const struct tep_event *ev)
{
	struct tep_event *raw;

	if (!ev || !ev->tep || ev->system != syscalls_system)
		return NULL;
	raw = tep_find_event(ev->tep, ev->id);
	return raw != ev ? raw : NULL;
}

/* "sys_enter_" and digits: a number the tables do not name */
static bool is_number_name(const char *name)
{
	const char *p = name + strlen("sys_enter_");

	if (strncmp(name, "sys_enter_", strlen("sys_enter_")) || !*p)
		return false;
	if (!strncmp(p, "i386_", strlen("i386_")))
		p += strlen("i386_");
	if (*p == '-')
		p++;
	return *p && strspn(p, "0123456789") == strlen(p);
}

/* Whether @pattern matches a name of @abi's table */
static bool table_match(enum ustack_syscall_abi abi, const char *pattern)
{
	const char *const *t;
	char name[64];
	size_t i, len;

	t = table_of(abi, &len);
	for (i = 0; i < len; i++) {
		if (!t[i])
			continue;
		ustack_syscalls_name_abi(abi, i, name, sizeof(name));
		if (!fnmatch(pattern, name, 0))
			return true;
	}
	return false;
}

/**
 * ustack_syscalls_match - whether an event pattern can match a named call
 * @system:	shell pattern of the system
 * @pattern:	shell pattern of the event name, NULL for every event
 *
 * For report -e on a file whose system calls are raw_syscalls:sys_enter
 * events: true when the pattern names one of the calls they are shown as,
 * a 64-bit task's or (x86-64) a 32-bit one's.
 */
bool ustack_syscalls_match(const char *system, const char *pattern)
{
	if (fnmatch(system, USTACK_SYSCALLS_SYSTEM, 0))
		return false;
	if (!pattern || is_number_name(pattern))
		return true;
	return table_match(USTACK_SYSCALL_ABI_NATIVE, pattern) ||
	       table_match(USTACK_SYSCALL_ABI_I386, pattern);
}
