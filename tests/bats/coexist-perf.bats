#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The tool beside perf on this machine's stock kernel. Kernels from 5.12
# until perf_event_mmap_output() kept misc per output mark every later
# event's mmap2 record of a mapping as carrying a build id once one event
# asked for build ids (attr.build_id): the side-band asks for none there
# (lib/ustack-perf-buildid.c), so that perf record beside it reads its
# own records right, and reads its own right when another tracer asks.

bats_require_minimum_version 1.5.0
load helpers

SB="$ROOT/tests/progs/sideband"

setup_file() {
	build_progs
}

setup() {
	perf_host_setup
	TOOL_PID=
	PERF_PID=
}

teardown() {
	# never leave a run behind: while it runs, perf may be broken for all
	[ -z "$TOOL_PID" ] || { kill -INT "$TOOL_PID" 2>/dev/null; wait "$TOOL_PID" 2>/dev/null; }
	[ -z "$PERF_PID" ] || { kill -INT "$PERF_PID" 2>/dev/null; wait "$PERF_PID" 2>/dev/null; }
	[ -z "$NAME" ] || assert_no_instance "$NAME"
	rm -rf "$TMP"
}

# stop_tool: end the background run with SIGINT, as a user would
stop_tool() {
	kill -INT "$TOOL_PID"
	wait "$TOOL_PID" || return 1
	TOOL_PID=
	! pgrep -f -- "-B $NAME( |\$)" > /dev/null
	assert_no_instance "$NAME"
}

# leaked_without_us: perf record alone already gets records it cannot read:
# another tracer on this machine (another test run from an older tree,
# perf record --buildid-mmap) asks for build ids now. What is checked
# below is only ours to answer for when this is false before and after.
leaked_without_us() {
	perf record -q -o "$TMP/alone.data" -- /bin/true > /dev/null 2>&1 || return 0
	perf report -D -i "$TMP/alone.data" 2>/dev/null | grep 'PERF_RECORD_MMAP2' |
		grep -qE '<[0-9a-f]*>\]'
}

@test "coexist: perf record beside a system-wide run exits 0, its mmap2 records of true carry device and inode" {
	! leaked_without_us || skip "another tracer here asks for build ids: perf fails without us"
	"$USTACK" -B "$NAME" -q -e sched:sched_process_exec > "$TMP/out" 2> "$TMP/err" &
	TOOL_PID=$!
	wait_tracing "$NAME" sched/sched_process_exec
	run --separate-stderr perf record -o "$TMP/perf.data" -- /bin/true
	echo "$stderr"
	stop_tool
	if [ "$status" -ne 0 ] && leaked_without_us; then
		skip "another tracer here began asking for build ids during the test"
	fi
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"assertion failed"* ]]
	run --separate-stderr perf report -D -i "$TMP/perf.data"
	[ "$status" -eq 0 ]
	grep 'PERF_RECORD_MMAP2' <<< "$output" | grep -E '/bin/true$'
	# a build id is printed <HEX>; device and inode as MAJ:MIN INO GEN
	[ "$(grep 'PERF_RECORD_MMAP2' <<< "$output" | grep -E '/bin/true$' |
		grep -cE '@ 0x[0-9a-f]+ [0-9a-f]+:[0-9a-f]+ [0-9]+ [0-9]+\]: r-xp ')" -ge 1 ]
	[ "$(grep 'PERF_RECORD_MMAP2' <<< "$output" | grep -cE '<[0-9a-f]*>\]')" -eq 0 ]
	run perf script -i "$TMP/perf.data"
	[ "$status" -eq 0 ]
}

# The records of the side-band as a recording keeps them (stock report):
# ustack-sb mmap ... (build_id=HEX | dev=MAJ:MIN ino=N) path=PATH
sb_mmaps() {
	trace-cmd report -i "$1" | grep -E 'print: .*ustack-sb mmap '
}

# build_id_of FILE: its GNU build id as readelf prints it
build_id_of() {
	readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'
}

@test "coexist: a side-band without build ids (USTACK_TEST_NO_BUILD_ID=1) resolves every call, its mappings get their files' build ids" {
	command -v trace-cmd > /dev/null || skip "no trace-cmd"
	USTACK_TEST_NO_BUILD_ID=1 "$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" \
		-e syscalls:sys_enter_getppid -- "$SB/sb-reload" 100 2> "$TMP/err"
	assert_no_instance "$NAME"
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${#lines[@]}" -eq 3 ]
	[[ "$output" == *";run_lib;use_lib;one_entry;one_inner 100"* ]]
	[[ "$output" == *";run_lib;use_lib;two_entry;two_inner 100"* ]]
	[[ "$output" == *";main;early_call 1"* ]]
	# the kernel gave device and inode: they matched the file, read for its id
	run sb_mmaps "$TMP/t.dat"
	[ "$(grep -cE " build_id=$(build_id_of "$SB/libsb-two.so") .*path=.*/libsb-two\\.so\$" <<< "$output")" -eq 1 ]
}

@test "coexist: beside perf record -a --buildid-mmap, a side-band without build ids reads its records as device and inode (the file's build id follows)" {
	command -v trace-cmd > /dev/null || skip "no trace-cmd"
	# perf's per-CPU events are written before the run's per-task ones:
	# on a kernel that leaks the flag, ours get it over device and inode
	perf record -a --buildid-mmap -B -N -o "$TMP/perf.data" -- \
		sh -c "touch '$TMP/ready'; exec sleep 300" > /dev/null 2>&1 &
	PERF_PID=$!
	poll_until 30 test -e "$TMP/ready"
	USTACK_TEST_NO_BUILD_ID=1 "$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" \
		-e syscalls:sys_enter_getppid -- "$SB/sb-reload" 100 2> "$TMP/err"
	kill -INT "$PERF_PID"
	wait "$PERF_PID" || true
	PERF_PID=
	assert_no_instance "$NAME"
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	echo "$output"
	[[ "$output" == *";run_lib;use_lib;one_entry;one_inner 100"* ]]
	[[ "$output" == *";run_lib;use_lib;two_entry;two_inner 100"* ]]
	# the kernel gave device and inode: they matched the file, read for its id
	run sb_mmaps "$TMP/t.dat"
	[ "$(grep -cE " build_id=$(build_id_of "$SB/libsb-two.so") .*path=.*/libsb-two\\.so\$" <<< "$output")" -eq 1 ]
}

@test "coexist: without kernel build ids (USTACK_TEST_NO_BUILD_ID=1) a recording's mapping of the program has its file's build id, and report warns on the file replaced" {
	command -v trace-cmd > /dev/null || skip "no trace-cmd"
	local id

	cp "$PROGS/deep" "$TMP/prog"
	id=$(build_id_of "$TMP/prog")
	[ -n "$id" ]
	USTACK_TEST_NO_BUILD_ID=1 "$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" \
		-e syscalls:sys_enter_getppid -- "$TMP/prog" 1 2> "$TMP/err"
	assert_no_instance "$NAME"
	run sb_mmaps "$TMP/t.dat"
	echo "$output"
	grep -F " path=$TMP/prog" <<< "$output" | grep -qF " build_id=$id "
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	[[ "$output" == *";main;chain_01;chain_02;"* ]]
	# another build over it (cp keeps the inode): its frames stay unresolved
	cp "$PROGS/threads" "$TMP/prog"
	run --separate-stderr "$USTACK" report -i "$TMP/t.dat" --folded
	echo "$stderr"
	[ "$status" -eq 0 ]
	grep -qF "$TMP/prog: build id " <<< "$stderr"
	grep -qF "does not match the traced $id" <<< "$stderr"
	[[ "$output" != *chain_0* ]]
}
