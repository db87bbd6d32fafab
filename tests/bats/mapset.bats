#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The side-band history's mapping sets (lib/ustack-history.c, issue 44
# findings 5 and 6): a process's mappings as its records built them (a
# mapping over others cuts or splits them, an exec empties the set, a
# fork starts from the parent's), checked against a plain model through
# tests/tools/ustack-mapset-test, and what they cost: the driver's
# "work" is ustack_history_work(), the mappings and tree nodes the sets
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
	rm -rf "$TMP"
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

@test "mapping sets: 50 forks, each child mapping over its parent's page, see their own page and share the rest" {
	drv model "many 1 300 0x10000 0x2000 0x1000" \
	    "forks 1 1000 50 0x12000" check-forks\ 1\ 1000\ 50\ 0x12000 \
	    check "check-many 1 300 0x10000 0x2000 0x1000"
	grep -qx 'check-forks ok 50' <<< "$output"
	grep -qx 'check-many ok 300' <<< "$output"
	grep -q '^check ok 51 ' <<< "$output"
}
