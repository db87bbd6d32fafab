// SPDX-License-Identifier: LGPL-2.1
/*
 * Build ids of mappings the kernel told without one. The side-band asks
 * for none where the kernel leaks the flag into other tracers' records
 * (ustack-perf-buildid.c), kernels before 5.12 give none, and the /proc
 * scan of what existed before the events never has one. Without a build
 * id, report cannot tell that the file at a mapping's path was replaced
 * since: it would resolve the frames against the wrong file.
 *
 * So, as perf record does for the files it records, the build id is read
 * from the file when the run first learns of the mapping: the file at
 * the path is the one mapped when its device and inode are the record's
 * (checked on the open descriptor). Each (device, inode, path) is read
 * once a run, whatever the answer; a file that cannot be opened, is no
 * ELF or is another file keeps its mapping without build id, as before.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ustack-hash.h"
#include "ustack-open.h"
#include "ustack-resolve-int.h"
#include "ustack-sideband.h"

/*
 * Distinct files remembered at most: beyond, each is read on its own
 * (a run that maps that many files pays a read a mapping, never a wrong
 * or missing build id).
 */
#define BID_CACHE_MAX	16384

struct bid_file {
	struct ustack_hnode	node;
	uint32_t		maj;
	uint32_t		min;
	uint64_t		ino;
	uint32_t		len;		/* 0: none to be had */
	unsigned char		id[USTACK_BUILD_ID_MAX];
	char			path[];
};

static pthread_mutex_t bid_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ustack_htable bid_files;

static uint64_t bid_hash(const struct ustack_sb_rec *r)
{
	uint64_t h = ustack_hash_u64(r->ino ^ ((uint64_t)r->maj << 32 | r->min));

	return ustack_hash_mem(r->name, strlen(r->name), h);
}

/* A file-backed mapping whose file the record names by device and inode */
static bool wants_build_id(const struct ustack_sb_rec *r)
{
	return r->kind == USTACK_SB_MMAP && !r->build_id_len && r->ino &&
	       r->name && r->name[0] == '/' && (r->maj || r->min);
}

/* Read @r's file's build id into @f, if the file at its path is it */
static void read_build_id(const struct ustack_sb_rec *r, struct bid_file *f)
{
	struct stat st;
	int fd;

	f->len = 0;
	fd = ustack_resolve_open_regular(r->name);
	if (fd < 0)
		return;
	if (!fstat(fd, &st) && st.st_ino == r->ino &&
	    major(st.st_dev) == r->maj && minor(st.st_dev) == r->min)
		f->len = ustack_resolve_fd_build_id(fd, st.st_size, f->id);
	close(fd);
}

static struct bid_file *bid_find(const struct ustack_sb_rec *r, uint64_t hash)
{
	struct ustack_hnode *pos;
	struct bid_file *f;

	ustack_hash_table_for_each_hash(&bid_files, pos, hash) {
		f = ustack_hash_table_entry(pos, struct bid_file, node);
		if (f->ino == r->ino && f->maj == r->maj && f->min == r->min &&
		    !strcmp(f->path, r->name))
			return f;
	}
	return NULL;
}

/* A new entry for @r, read; NULL when none can be kept */
static struct bid_file *bid_add(const struct ustack_sb_rec *r, uint64_t hash)
{
	size_t n = strlen(r->name) + 1;
	struct bid_file *f;

	if (bid_files.nr >= BID_CACHE_MAX ||
	    (!bid_files.buckets && ustack_hash_table_init(&bid_files, 256)))
		return NULL;
	f = malloc(sizeof(*f) + n);
	if (!f)
		return NULL;
	f->maj = r->maj;
	f->min = r->min;
	f->ino = r->ino;
	memcpy(f->path, r->name, n);
	read_build_id(r, f);
	if (ustack_hash_table_add(&bid_files, &f->node, hash)) {
		free(f);
		return NULL;
	}
	return f;
}

/**
 * ustack_sideband_fill_build_id - give a mapping without build id its file's
 * @rec:	a side-band record as the run learns it (not one read back
 *		from a trace: the file now may be another)
 *
 * An MMAP record with device and inode and no build id gets the build id
 * of the file at its path when that file has the record's device and
 * inode; other records are left as they are. Each file is read once a
 * run. Safe from any thread.
 */
void ustack_sideband_fill_build_id(struct ustack_sb_rec *rec)
{
	struct bid_file *f, one;
	uint64_t hash;

	if (!wants_build_id(rec))
		return;
	hash = bid_hash(rec);
	pthread_mutex_lock(&bid_lock);
	f = bid_find(rec, hash);
	if (!f)
		f = bid_add(rec, hash);
	if (!f) {
		f = &one;
		read_build_id(rec, f);
	}
	if (f->len) {
		memcpy(rec->build_id, f->id, f->len);
		rec->build_id_len = f->len;
	}
	pthread_mutex_unlock(&bid_lock);
}
