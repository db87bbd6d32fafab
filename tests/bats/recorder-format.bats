#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# What a recording holds (issue 47): the perf source's samples as
# ustack:sample records whose format the file carries (stock trace-cmd
# report shows their fields), recordings of samples as text still read;
# kernel symbols only when something in it names kernel addresses; a
# short recording no larger than perf record's.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
	make -s -C "$ROOT" tests/tools/ustack-sample-test >&2
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
	# perf's own failures (an abort in its build-id pass, seen on this
	# machine's perf 6.1) are not ours to report
	perf record -q -g -o "$TMP/perf.data" -e syscalls:sys_enter_getppid -- /bin/true 2>/dev/null ||
		skip "perf record failed on its own"
	ours=$(stat -c %s "$TMP/t.dat")
	theirs=$(stat -c %s "$TMP/perf.data")
	echo "ours $ours perf $theirs"
	[ "$ours" -le "$theirs" ]
}

# PERF_CONTEXT_USER, the marker before the user frames of a perf chain
CONTEXT_USER=18446744073709551104

@test "stock trace-cmd report shows the perf samples' fields: pid, tid, cpu, chain, payload; repeats flagged" {
	command -v trace-cmd >/dev/null || skip "no trace-cmd"
	record --stack-source=perf -e syscalls:sys_enter_getppid -- "$PROGS/deep" 3
	run trace-cmd report -i "$TMP/t.dat"
	[ "$status" -eq 0 ]
	# shown when it fails
	grep ' sample: ' <<< "$output" || true
	whole=$(grep -E ' sample: +pid=([0-9]+) tid=\1 cpu=[0-9]+ flags=0x0 chain=' <<< "$output")
	[ "$(grep -c . <<< "$whole")" -eq 1 ]
	# the chain: the user marker, then deep's 20 chain_ frames, main and libc's
	chain=$(sed 's/.* chain=\(.*\) raw=.*/\1/' <<< "$whole")
	[ "$(wc -w <<< "$chain")" -ge 23 ]
	[ "$(cut -d' ' -f1 <<< "$chain")" = "$CONTEXT_USER" ]
	# the payload: sys_enter_getppid's bytes, its common_type first
	[[ "$whole" =~ raw=([0-9a-f]{2}( |$)){16,} ]]
	# the other two repeat it: flag SAME, no arrays
	[ "$(grep -Ec ' sample: +pid=[0-9]+ tid=[0-9]+ cpu=[0-9]+ flags=0x2 chain= raw=$' <<< "$output")" -eq 2 ]
	[ "$(grep -c 'ustack-sb sample' <<< "$output")" -eq 0 ]
}

# USTACK_TEXT_SAMPLES=1 writes the samples as text print records, as
# every recording before issue 47 did
@test "samples recorded as text (older recordings) report the same stacks as ustack:sample records" {
	record --stack-source=perf -e syscalls:sys_enter_getppid -- "$PROGS/burst/burst" 2 200 0
	mv "$TMP/t.dat" "$TMP/bin.dat"
	USTACK_TEXT_SAMPLES=1 record --stack-source=perf -e syscalls:sys_enter_getppid -- \
		"$PROGS/burst/burst" 2 200 0
	run --separate-stderr "$USTACK" report -q -i "$TMP/bin.dat" --folded
	[ "$status" -eq 0 ]
	bin=$output
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	echo "binary: $bin"
	echo "text: $output"
	[ "$output" = "$bin" ]
	[ "$(awk '{ n += $NF } END { print n }' <<< "$bin")" -eq 400 ]
	command -v trace-cmd >/dev/null || return 0
	run trace-cmd report -i "$TMP/t.dat"
	[ "$(grep -c 'ustack-sb sample' <<< "$output")" -eq 400 ]
	run trace-cmd report -i "$TMP/bin.dat"
	[ "$(grep -c 'ustack-sb sample' <<< "$output")" -eq 0 ]
}

@test "ustack:sample records read from a file are bounded: arrays past the record, partial entries, bad cpu or tid refused" {
	run "$ROOT/tests/tools/ustack-sample-test"
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${lines[0]}" = "whole 0" ]
	[ "${lines[1]}" = "whole pid 10 tid 11 cpu 1 chain 3:fffffffffffffe00,401000,402000 raw 16 cut 1" ]
	# the repeat is its thread's last sample again, CUT included
	[ "${lines[2]}" = "same 0" ]
	[ "${lines[3]}" = "same pid 10 tid 11 cpu 1 chain 3:fffffffffffffe00,401000,402000 raw 16 cut 1" ]
	# USTACK_SB_UNSEEN_REPEAT, then USTACK_SB_MALFORMED for each damage
	[ "${lines[4]}" = "unseen -3" ]
	[ "$(printf '%s\n' "${lines[@]:5}")" = "$(printf '%s -2\n' short past below odd samefull cpu tid0)" ]
}
