// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-hash-test: drive the shared hash table (lib/ustack-hash.c) with
 * entries of chosen 64-bit hashes (tests/bats/hash.bats).
 *
 *   ustack-hash-test CMD...
 *
 *   add NAME HASH   add an entry NAME with the hash HASH (strtoull, base 0)
 *   del NAME        remove the entry NAME
 *   clear           ustack_hash_table_clear()
 *   find HASH       print the entries ustack_hash_table_for_each_hash() walks
 *                   for HASH, in its order, on one line ("-" for none)
 *   all             print every entry ustack_hash_table_for_each_safe() walks,
 *                   sorted, on one line, and the table's count
 *
 * The hashes are given, not computed: entries of one hash and of one
 * bucket are what is tested. Exit 2 on a bad command.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-hash.h"

#define MAX_ENTRIES	1024

struct entry {
	struct ustack_hnode	node;
	const char		*name;
	bool			in;
};

static struct entry entries[MAX_ENTRIES];
static int nr_entries;

static struct entry *entry_named(const char *name)
{
	int i;

	for (i = 0; i < nr_entries; i++)
		if (entries[i].in && !strcmp(entries[i].name, name))
			return &entries[i];
	return NULL;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void print_all(struct ustack_htable *t)
{
	static const char *names[MAX_ENTRIES];
	struct ustack_hnode *pos, *tmp;
	size_t i, n = 0;

	ustack_hash_table_for_each_safe(t, i, pos, tmp) {
		if (n == MAX_ENTRIES)
			break;
		names[n++] = ustack_hash_table_entry(pos, struct entry, node)->name;
	}
	qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++)
		printf("%s ", names[i]);
	printf("(%zu)\n", t->nr);
}

static void print_hash(struct ustack_htable *t, uint64_t hash)
{
	struct ustack_hnode *pos;
	int n = 0;

	ustack_hash_table_for_each_hash(t, pos, hash) {
		printf("%s%s", n ? " " : "", ustack_hash_table_entry(pos, struct entry, node)->name);
		/* a walk that loops is a failure, not a hang */
		if (++n > nr_entries)
			break;
	}
	printf("%s\n", n ? "" : "-");
}

static int usage(void)
{
	fprintf(stderr, "usage: ustack-hash-test [add NAME HASH|del NAME|clear|find HASH|all]...\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct ustack_htable t = { 0 };
	struct entry *e;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "add") && i + 2 < argc && nr_entries < MAX_ENTRIES) {
			e = &entries[nr_entries++];
			e->name = argv[i + 1];
			e->in = true;
			if (ustack_hash_table_add(&t, &e->node, strtoull(argv[i + 2], NULL, 0))) {
				fprintf(stderr, "ustack-hash-test: out of memory\n");
				return 1;
			}
			i += 2;
		} else if (!strcmp(argv[i], "del") && i + 1 < argc) {
			e = entry_named(argv[++i]);
			if (!e) {
				fprintf(stderr, "ustack-hash-test: no entry %s\n", argv[i]);
				return 2;
			}
			ustack_hash_table_del(&t, &e->node);
			e->in = false;
		} else if (!strcmp(argv[i], "clear")) {
			ustack_hash_table_clear(&t);
			for (e = entries; e < entries + nr_entries; e++)
				e->in = false;
		} else if (!strcmp(argv[i], "find") && i + 1 < argc) {
			print_hash(&t, strtoull(argv[++i], NULL, 0));
		} else if (!strcmp(argv[i], "all")) {
			print_all(&t);
		} else {
			return usage();
		}
	}
	ustack_hash_table_release(&t);
	return 0;
}
