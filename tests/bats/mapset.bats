#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The side-band history's mapping sets (lib/ustack-map-history.c, issue 44
# findings 5 and 6): a process's mappings as its records built them (a
# mapping over others cuts or splits them, an exec empties the set, a
# fork starts from the parent's), checked against a plain model through
# tests/tools/ustack-mapset-test, and what they cost: the driver's
# "work" is ustack_map_history_work(), the mappings and tree nodes the sets
# touched, so that a bound on it says a record costs O(log n), not
# O(n), whatever the machine's speed.

bats_require_minimum_version 1.5.0
load helpers

DRV="$ROOT/tests/tools/ustack-mapset-test"

setup_file() {
	make -s -C "$ROOT" tests/tools/ustack-mapset-test >&2
}

setup() {
	TMP="$(mktemp -d)"
}

teardown() {
	instance_teardown
}

# drv SCRIPT-LINES...: run the driver on these lines; it must succeed
drv() {
	printf '%s\n' "$@" > "$TMP/script"
	run "$DRV" "$TMP/script"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *FAIL* ]]
}

# work_of LINE-NUMBER: the Nth "work" line's count (1 = first)
work_of() {
	grep '^work ' <<< "$output" | sed -n "$1s/^work //p"
}

@test "mapping sets: random mappings over each other, forks, execs and threads map as the model says after every record" {
	local seed

	for seed in 1 7 1234567; do
		drv "random $seed 1500"
		[[ "$output" == "random ok 1500" ]]
	done
}

@test "mapping sets: after a fork, a change in the child is not seen by the parent and one in the parent not by the child" {
	drv model \
	    "sb 1 mmap pid=100 tid=100 start=0x1000 len=0x2000 pgoff=0 prot=5 flags=0x2 dev=8:1 ino=1 path=/bin/a" \
	    "sb 2 mmap pid=100 tid=100 start=0x5000 len=0x1000 pgoff=0x3000 prot=5 flags=0x2 dev=8:1 ino=2 path=/lib/b.so" \
	    "sb 3 fork pid=200 ppid=100 tid=200 ptid=100" \
	    "sb 4 fork pid=300 ppid=100 tid=300 ptid=100" \
	    check \
	    "sb 5 mmap pid=200 tid=200 start=0x2000 len=0x3800 pgoff=0 prot=5 flags=0x2 dev=8:1 ino=3 path=/lib/c.so" \
	    "sb 6 mmap pid=100 tid=100 start=0x7000 len=0x1000 pgoff=0 prot=5 flags=0x2 dev=8:1 ino=4 path=/lib/d.so" \
	    check \
	    "map 100 0x2800" "map 200 0x2800" "map 300 0x2800" \
	    "map 100 0x5800" "map 200 0x5800" "map 300 0x5800" \
	    "map 100 0x7800" "map 200 0x7800" "map 300 0x7800" \
	    "sb 7 comm pid=200 tid=200 exec=1 comm=other" \
	    "sb 8 fork pid=100 ppid=300 tid=100 ptid=300" \
	    check \
	    "map 100 0x1000" "map 100 0x7800" "map 200 0x1000" "map 300 0x1800"
	[ "$(grep -c '^check ok ' <<< "$output")" -eq 3 ]
	# the child's mapping over both of the parent's cuts them in its set only
	grep -qx 'map 100 0x2800 -> 0x1800 /bin/a' <<< "$output"
	grep -qx 'map 200 0x2800 -> 0x800 /lib/c.so' <<< "$output"
	grep -qx 'map 300 0x2800 -> 0x1800 /bin/a' <<< "$output"
	grep -qx 'map 100 0x5800 -> 0x3800 /lib/b.so' <<< "$output"
	grep -qx 'map 200 0x5800 -> 0x3800 /lib/b.so' <<< "$output"
	grep -qx 'map 300 0x5800 -> 0x3800 /lib/b.so' <<< "$output"
	# the parent's new mapping is its own
	grep -qx 'map 100 0x7800 -> 0x800 /lib/d.so' <<< "$output"
	grep -qx 'map 200 0x7800 -> nomap' <<< "$output"
	grep -qx 'map 300 0x7800 -> nomap' <<< "$output"
	# the child's exec empties its set alone; a fork over a process
	# replaces its set with its parent's
	grep -qx 'map 100 0x1000 -> 0 /bin/a' <<< "$output"
	grep -qx 'map 100 0x7800 -> nomap' <<< "$output"
	grep -qx 'map 200 0x1000 -> nomap' <<< "$output"
	grep -qx 'map 300 0x1800 -> 0x800 /bin/a' <<< "$output"
}

@test "mapping sets: a thread shares its process's set: created after a stack was mapped, the set and its PROCMAPS stay" {
	drv "sb 1 mmap pid=100 tid=100 start=0x1000 len=0x2000 pgoff=0 prot=5 flags=0x2 dev=8:1 ino=1 path=/bin/a" \
	    "map 100 0x1010" \
	    "sb 2 fork pid=100 ppid=100 tid=101 ptid=100" \
	    procmaps "map 100 0x2010" \
	    "sb 3 mmap pid=100 tid=101 start=0x2000 len=0x1000 pgoff=0 prot=5 flags=0x2 dev=8:1 ino=2 path=/lib/b.so" \
	    "map 100 0x2010"
	[ "$(sed -n '2,3p' <<< "$output")" = "$(printf '64 1 <...>\n1000 3000 /bin/a')" ]
	grep -qx 'map 100 0x2010 -> 0x1010 /bin/a' <<< "$output"
	grep -qx 'map 100 0x2010 -> 0x10 /lib/b.so' <<< "$output"
}

@test "mapping sets: 50 forks, each child mapping over its parent's page, see their own page and share the rest" {
	drv model "many 1 300 0x10000 0x2000 0x1000" \
	    "forks 1 1000 50 0x12000" check-forks\ 1\ 1000\ 50\ 0x12000 \
	    check "check-many 1 300 0x10000 0x2000 0x1000"
	grep -qx 'check-forks ok 50' <<< "$output"
	grep -q '^check-many ok 300 ' <<< "$output"
	grep -q '^check ok 51 ' <<< "$output"
}

# log2 N: floor(log2(N)), at least 1
log2() {
	local n=$1 b=0

	while ((n > 1)); do
		((n >>= 1, b++))
	done
	echo $((b ? b : 1))
}

# avl_height N: the most levels an AVL tree of N nodes has, 1.44 log2(N + 2)
avl_height() {
	echo $((144 * ($(log2 $(($1 + 2))) + 1) / 100))
}

# deepest: the deepest look-up of the last check-many
deepest() {
	grep '^check-many ok ' <<< "$output" | tail -1 | sed 's/.* deepest //'
}

@test "mapping sets: 10k, 20k and 40k mappings of one process: a record and a look-up cost O(log n) work, not O(n)" {
	local n rec look prev=0 lg

	for n in 10000 20000 40000; do
		drv work "many 1 $n 0x10000 0x2000 0x1000" work \
		    "check-many 1 $n 0x10000 0x2000 0x1000" work
		grep -q "^check-many ok $n " <<< "$output"
		lg=$(log2 $n)
		[ "$(deepest)" -le "$(avl_height $n)" ]
		rec=$(($(work_of 2) - $(work_of 1)))
		look=$(($(work_of 3) - $(work_of 2)))
		echo "n=$n: $rec for the records, $look for $((2 * n)) look-ups"
		# a few walks down a tree of height 1.44 log2(n) each
		[ "$rec" -le $((n * 4 * (lg + 1))) ]
		[ "$look" -le $((2 * n * 2 * (lg + 1))) ]
		# twice the mappings, about twice the work (four times if O(n))
		[ "$prev" -eq 0 ] || [ "$rec" -le $((prev * 5 / 2)) ]
		prev=$rec
	done
}

@test "mapping sets: 20k mappings each over one of 20k, then one over 10k of them: removals cost O(log n) and keep the tree's height" {
	local n=20000 work

	drv "many 1 $n 0x10000 0x2000 0x1000" work \
	    "many 1 $n 0x10000 0x2000 0x2000" work \
	    "check-many 1 $n 0x10000 0x2000 0x2000" \
	    "sb 1 mmap pid=1 tid=1 start=0x10000 len=$((n / 2 * 0x2000)) pgoff=0 prot=5 flags=0x2 dev=8:1 ino=1 path=/lib/big.so" \
	    "map 1 0x10000" "map 1 $((0x10000 + n / 2 * 0x2000))" \
	    "many 1 $n 0x7f0000000000 0x2000 0x1000" work \
	    "check-many 1 $n 0x7f0000000000 0x2000 0x1000" check
	[ "$(grep -c '^check-many ok ' <<< "$output")" -eq 2 ]
	grep -qx 'check ok 0 0' <<< "$output"
	grep -qx 'map 1 0x10000 -> 0 /lib/big.so' <<< "$output"
	grep -qx "map 1 $(printf '%#x' $((0x10000 + n / 2 * 0x2000))) -> $(printf '%#x' $((n / 2 * 0x2000))) /lib/many.so" <<< "$output"
	work=$(($(work_of 2) - $(work_of 1)))
	echo "work of $n records over one each: $work"
	[ "$work" -le $((n * 8 * ($(log2 $n) + 1))) ]
	work=$(($(work_of 3) - $(work_of 2)))
	echo "work of one record over $((n / 2)), then $n more: $work"
	[ "$work" -le $((n * 8 * ($(log2 $n) + 1))) ]
	# 10000 + 1 + 20000 ranges left
	[ "$(deepest)" -le "$(avl_height $((n / 2 * 3 + 1)))" ]
}

@test "mapping sets: 20k mappings over every other page of one split it into 40k ranges at O(log n) a record, each page where it was mapped" {
	local n=20000 work

	drv work "splits 1 $n 0x7f0000000000" work check
	grep -qx "splits ok $((2 * n))" <<< "$output"
	grep -qx 'check ok 0 0' <<< "$output"
	work=$(($(work_of 2) - $(work_of 1)))
	echo "work $work"
	# 20001 records and 80000 look-ups
	[ "$work" -le $(((n + 4 * n) * 4 * ($(log2 $((2 * n))) + 1))) ]
}

@test "mapping sets: 2000 forks of a process with 5000 mappings copy none of them; a change in each child copies O(log n); peak RSS under 64 MB" {
	local fork change

	command -v /usr/bin/time >/dev/null || skip "no /usr/bin/time"
	printf '%s\n' "many 1 5000 0x10000 0x2000 0x1000" work "forks 1 100 2000" work \
	    "forks 1 3000 2000 0x12000" work "check-forks 1 3000 2000 0x12000" \
	    "check-many 1 5000 0x10000 0x2000 0x1000" check > "$TMP/script"
	run /usr/bin/time -f 'rss %M' -o "$TMP/rss" "$DRV" "$TMP/script"
	echo "$output"
	cat "$TMP/rss"
	[ "$status" -eq 0 ]
	grep -qx 'check-forks ok 2000' <<< "$output"
	grep -q '^check-many ok 5000 ' <<< "$output"
	grep -qx 'check ok 0 0' <<< "$output"
	fork=$(($(work_of 2) - $(work_of 1)))
	change=$(($(work_of 3) - $(work_of 2)))
	[ "$fork" -le 2000 ]
	# each child: one mapping over one of its parent's (5000 nodes)
	[ "$change" -le $((2000 * 8 * ($(log2 5000) + 1))) ]
	# a copy of 5000 mappings a fork would be 2000 * 160 KB
	[ "$(sed -n 's/^rss //p' "$TMP/rss")" -le $((64 * 1024)) ]
}

@test "mapping sets: record and report of a process with 5000 mappings forking 1000 children: each child's stack resolved, peak RSS of each under 96 MB" {
	local name

	require_capture
	has_deferred && skip "the fallback path: this kernel has deferred stacks"
	command -v /usr/bin/time >/dev/null || skip "no /usr/bin/time"
	make -s -C "$PROGS" >&2
	name=$(instance_name)
	run /usr/bin/time -f 'rss %M' -o "$TMP/rss-record" \
	    "$USTACK" record -B "$name" -q -o "$TMP/out.dat" -e syscalls:sys_enter_getppid \
	    -- "$PROGS/mapset/mapset-many" 5000 1000
	echo "$output"
	assert_no_instance "$name"
	[ "$status" -eq 0 ]
	run --separate-stderr /usr/bin/time -f 'rss %M' -o "$TMP/rss-report" \
	    "$USTACK" report -i "$TMP/out.dat" --folded
	echo "$stderr"
	cat "$TMP/rss-record" "$TMP/rss-report"
	[ "$status" -eq 0 ]
	# the parent's stack after its mappings, then each child's
	[ "$(grep -c 'main;many_after_maps ' <<< "$output")" -eq 1 ]
	[ "$(grep -o 'fork_children;many_child [0-9]*$' <<< "$output" | awk '{ n += $2 } END { print n }')" -eq 1000 ]
	[ "$(sed -n 's/^rss //p' "$TMP/rss-record")" -le $((96 * 1024)) ]
	[ "$(sed -n 's/^rss //p' "$TMP/rss-report")" -le $((96 * 1024)) ]
}
