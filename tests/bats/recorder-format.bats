#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# What a recording holds (issue 47): kernel symbols only when something
# in it names kernel addresses; a short recording no larger than perf
# record's.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	tmp_setup
}

teardown() {
	instance_teardown
}

record() {
	require_capture
	NAME=$(instance_name)
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" "$@" 2>"$TMP/record.err"
}

# kallsyms_bytes FILE: the size of FILE's kallsyms section, as trace-cmd says
kallsyms_bytes() {
	trace-cmd dump --summary -i "$1" 2>&1 | sed -n 's/.*\[Kallsyms, \([0-9]*\) bytes\]/\1/p'
}

@test "a recording without --kernel carries no kernel symbols, and reads" {
	command -v trace-cmd >/dev/null || skip "no trace-cmd"
	record -e syscalls:sys_enter_getppid -- "$PROGS/deep" 2
	[ "$(kallsyms_bytes "$TMP/t.dat")" = 0 ]
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	[[ "$output" == *"chain_20 2" ]]
	run trace-cmd report -i "$TMP/t.dat"
	[ "$status" -eq 0 ]
}

@test "--kernel and events that print kernel symbols keep the kernel symbols" {
	command -v trace-cmd >/dev/null || skip "no trace-cmd"
	record --kernel -e syscalls:sys_enter_getppid -- /bin/true
	[ "$(kallsyms_bytes "$TMP/t.dat")" -gt 0 ]
	[ -e "$TRACEFS/events/kmem/kmalloc" ] || skip "no kmem:kmalloc"
	# its call_site is printed with %pS
	record -e kmem:kmalloc -- /bin/true
	[ "$(kallsyms_bytes "$TMP/t.dat")" -gt 0 ]
}

@test "a recording of /bin/true is no larger than perf record -g's" {
	command -v perf >/dev/null || skip "no perf"
	record -e syscalls:sys_enter_getppid -- /bin/true
	perf record -q -g -o "$TMP/perf.data" -e syscalls:sys_enter_getppid -- /bin/true 2>/dev/null
	ours=$(stat -c %s "$TMP/t.dat")
	theirs=$(stat -c %s "$TMP/perf.data")
	echo "ours $ours perf $theirs"
	[ "$ours" -le "$theirs" ]
}
