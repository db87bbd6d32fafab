#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The programs of tests/bats/sideband.bats on the deferred path (patched
# kernel, in the VM): frames come from the kernel's file ids there, names
# from the task events of our instance (task_newtask, task_rename), which
# are ordered with the events: every stack must be resolved as the
# process was at its event and named as the task was then. Counts are
# exact.

bats_require_minimum_version 1.5.0
load ../helpers

SB="$ROOT/tests/progs/sideband"

setup() {
	deferred_setup "$SB" sb-dlopen sb-reload sb-exec sb-exec-after sb-short sb-rename sb-jit
}

teardown() {
	instance_teardown
}

ustack() {
	"$USTACK" -B "$NAME" -q -e syscalls:sys_enter_getppid "$@"
}

lines_like() {
	grep -cE "$1" <<< "$output" || true
}

@test "deferred: a library dlopen'ed 300 ms after start resolves in all 1000 calls" {
	run --separate-stderr ustack --folded -- "$SB/sb-dlopen" 1000
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${#lines[@]}" -eq 2 ]
	[ "$(lines_like '^sb-dlopen;.*;main;call_late;late_entry;late_inner 1000$')" -eq 1 ]
	[ "$(lines_like '^sb-dlopen;.*;main;early_call 1$')" -eq 1 ]
}

@test "deferred: dlclose, then another library at the same address: each call in its own" {
	run --separate-stderr ustack --folded -- "$SB/sb-reload" 200
	echo "$stderr"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "$(lines_like '^sb-reload;.*;main;run_lib;use_lib;one_entry;one_inner 200$')" -eq 1 ]
	[ "$(lines_like '^sb-reload;.*;main;run_lib;use_lib;two_entry;two_inner 200$')" -eq 1 ]
}

@test "deferred: 500 stacks before an exec keep the old name and image" {
	run --separate-stderr ustack --folded -- "$SB/sb-exec" 500 300
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${#lines[@]}" -eq 2 ]
	[ "$(lines_like '^sb-exec;.*;main;before_exec 500$')" -eq 1 ]
	[ "$(lines_like '^sb-exec-after;.*;main;after_exec 300$')" -eq 1 ]
}

@test "deferred: 20 short-lived processes traced system-wide are named and resolved" {
	"$USTACK" -B "$NAME" -q -e syscalls:sys_enter_getppid --comm sb-short \
		> "$TMP/out" 2> "$TMP/err" &
	pid=$!
	wait_tracing "$NAME" syscalls/sys_enter_getppid
	for i in $(seq 1 20); do
		"$SB/sb-short" 5
	done
	# the processes have ended; the final drain at SIGTERM takes what
	# the buffers hold (each poll's own fork keeps them from being empty)
	kill -TERM "$pid"
	wait "$pid"
	output=$(cat "$TMP/out")
	[ "$(lines_like '^ *sb-short-[0-9]+ +\[[0-9]+\] .*sys_enter_getppid:')" -eq 100 ]
	[ "$(grep -oE '^ *sb-short-[0-9]+ ' "$TMP/out" | sort -u | wc -l)" -eq 20 ]
	[ "$(grep -A1 -E '^  short_call\+0x[0-9a-f]+ \(sb-short\)$' "$TMP/out" |
		grep -cE '^  main\+0x[0-9a-f]+ \(sb-short\)$')" -eq 100 ]
	[ "$(lines_like 'unknown|<\.\.\.>')" -eq 0 ]
}

@test "deferred: a thread renamed mid-run: 300 stacks under the old name, 200 under the new" {
	run --separate-stderr ustack --folded -- "$SB/sb-rename" 300 200
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${#lines[@]}" -eq 2 ]
	[ "$(lines_like '^sb-rename;.*;worker;before_rename 300$')" -eq 1 ]
	[ "$(lines_like '^sb-renamed;.*;worker;after_rename 200$')" -eq 1 ]
}

@test "deferred: JIT code named in /tmp/perf-PID.map after start resolves in all 1000 calls" {
	run --separate-stderr ustack -- "$SB/sb-jit" 1000
	jit_pid=$(grep -oE '^ *sb-jit-[0-9]+ ' <<< "$output" | head -1 | sed 's/.*-//')
	[ -n "$jit_pid" ] && rm -f "/tmp/perf-$jit_pid.map"
	[ "$status" -eq 0 ]
	[ "$(lines_like 'sys_enter_getppid:')" -eq 1001 ]
	[ "$(grep -A1 -E '^  jit_getppid\+0x[0-9a-f]+ \(\[jit\]\)$' <<< "$output" |
		grep -cE '^  call_jit\+0x[0-9a-f]+ \(sb-jit\)$')" -eq 1000 ]
}

@test "deferred: record then report names the stacks from the file's task events" {
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" -e syscalls:sys_enter_getppid \
		-- "$SB/sb-exec" 50 30 2> "$TMP/err"
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${#lines[@]}" -eq 2 ]
	[ "$(lines_like '^sb-exec;.*;main;before_exec 50$')" -eq 1 ]
	[ "$(lines_like '^sb-exec-after;.*;main;after_exec 30$')" -eq 1 ]
}

@test "--fallback in the VM: the perf side-band of the tiny kernel names and maps every stack" {
	# not -q: the notice says it, and -q silences the notice (issue 12)
	run --separate-stderr "$USTACK" -B "$NAME" -e syscalls:sys_enter_getppid --fallback \
		--folded -- "$SB/sb-exec" 50 30
	[ "$status" -eq 0 ]
	echo "$stderr"
	echo "$output"
	[[ "$stderr" == *"mappings perf reports (side-band)"* ]]
	[ "${#lines[@]}" -eq 2 ]
	[ "$(lines_like '^sb-exec;.*;main;before_exec 50$')" -eq 1 ]
	[ "$(lines_like '^sb-exec-after;.*;main;after_exec 30$')" -eq 1 ]
}
