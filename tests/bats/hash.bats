#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The shared hash table (lib/ustack-hash.c) driven directly through
# tests/tools/ustack-hash-test with chosen 64-bit hashes: entries of one
# hash (the snapshots keep files of one path and thread group with other
# flags so), entries of other hashes in the same bucket, and a table
# cleared and used again (the resolver's cache, once full). The tables of
# the tool's real work are tested through session.bats; these cases are
# the ones no real input brings about on demand.

load helpers

TOOL="$ROOT/tests/tools/ustack-hash-test"

setup_file() {
	make -s -C "$ROOT" tests/tools/ustack-hash-test >&2
}

@test "hash table: a walk of one hash gives every entry of that hash, newest first, and none of another hash in its bucket" {
	# 16 buckets: 1, 17 and 0x101 share bucket 1
	run "$TOOL" add a 1 add b 17 add c 1 add d 0x101 add e 1 \
		find 1 find 17 find 0x101 find 2
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "e c a" ]
	[ "${lines[1]}" = "b" ]
	[ "${lines[2]}" = "d" ]
	[ "${lines[3]}" = "-" ]
}

@test "hash table: entries of one hash stay found newest first, apart from their bucket's others, after the table grows and one is deleted" {
	local args=() i

	# 40 entries of hash 5 between 40 of hash 5 + 2^32 (the same bucket
	# at every size up to 2^32): the table grows from 16 buckets to 128,
	# and each walk still gives the newest first
	for i in $(seq 1 40); do
		args+=(add "s$i" 5 add "o$i" 0x100000005)
	done
	run "$TOOL" "${args[@]}" del s20 find 5 find 0x100000005
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$(seq 40 -1 1 | grep -vx 20 | sed 's/^/s/' | xargs)" ]
	[ "${lines[1]}" = "$(seq 40 -1 1 | sed 's/^/o/' | xargs)" ]
}

@test "hash table: clear forgets every entry, and the table takes new ones" {
	run "$TOOL" add a 1 add b 2 add c 3 all clear find 1 find 2 find 3 all \
		add d 2 find 2 all
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "a b c (3)" ]
	[ "${lines[1]}" = "-" ]
	[ "${lines[2]}" = "-" ]
	[ "${lines[3]}" = "-" ]
	[ "${lines[4]}" = "(0)" ]
	[ "${lines[5]}" = "d" ]
	[ "${lines[6]}" = "d (1)" ]
}
