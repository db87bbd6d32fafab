#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# What the mutants of issue 50 (part A) showed no test checked, on this
# machine's stock kernel (perf source). The stack source's rule and its
# notice (lib/ustack-stack-source.c): which programs --call-graph=auto
# reads, --max-stack against kernel.perf_event_max_stack, the frame limit
# of stack copies, a refusal's line. Every run uses its own -B instance.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	perf_host_setup
	BG=()
}

teardown() {
	local pid

	for pid in "${BG[@]}"; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null || true
	done
	instance_teardown
}

# run_deep_bg: tests/progs/deep running until killed (a getppid every 20
# ms), its pid in DEEP
run_deep_bg() {
	"$PROGS/deep" 1000000 &
	DEEP=$!
	BG+=("$DEEP")
	wait_exec "$DEEP" deep
}

@test "stack source: -P with --comm names no program: auto takes stack copies, every process's code unknown, and says so" {
	run_deep_bg
	run --separate-stderr "$USTACK" -B "$NAME" --folded -e syscalls:sys_enter_getppid \
		-P "$DEEP" --comm deep -d 1
	[ "$status" -eq 0 ]
	echo "$stderr"
	[[ "${stderr_lines[0]}" == *"unwound with the files' CFI (--call-graph=dwarf)"*"; --call-graph=auto: every process is traced, whatever its code: stack copies unwound with the files' CFI" ]]
}

@test "stack source: -P of a program without frame pointers, then one with: copies, and the notice names the first" {
	local nofp

	nofp=$(readlink -f /usr/bin/sleep)
	sleep 600 &
	BG+=($!)
	poll_until 30 test "$(readlink /proc/$!/exe 2>/dev/null)" = "$nofp"
	run_deep_bg
	run --separate-stderr "$USTACK" -B "$NAME" --folded -e syscalls:sys_enter_getppid \
		-P "${BG[0]},$DEEP" -d 1
	[ "$status" -eq 0 ]
	echo "$stderr"
	[[ "${stderr_lines[0]}" == *"(--call-graph=dwarf)"*"; --call-graph=auto: $nofp has no frame pointers ("*"): stack copies unwound with the files' CFI" ]]
	[[ "${stderr_lines[0]}" != *"keeps frame pointers"* ]]
}

@test "stack source: --max-stack above kernel.perf_event_max_stack: perf keeps the sysctl's limit, and says it" {
	local max

	max=$(cat /proc/sys/kernel/perf_event_max_stack)
	[ "$max" -lt 65000 ] || skip "kernel.perf_event_max_stack is $max"
	run --separate-stderr "$USTACK" -B "$NAME" --stack-source=perf --max-stack $((max + 10)) \
		--folded -e syscalls:sys_enter_getppid -- "$PROGS/deep" 2
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "${stderr_lines[0]}" == *"stacks from perf events, synchronous, at most $max frames (kernel.perf_event_max_stack)"* ]]
	[ "$output" = "deep;__libc_start_call_main;main;$(deep_chain 20 | tac | paste -sd';') 2" ]
}

@test "stack source: --call-graph=dwarf --max-stack N: the notice says at most N frames" {
	run --separate-stderr "$USTACK" -B "$NAME" --call-graph=dwarf --max-stack 5 --folded \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 1
	[ "$status" -eq 0 ]
	echo "$stderr"
	[[ "${stderr_lines[0]}" == *"(--call-graph=dwarf), at most 5 frames, "* ]]
	[ "$output" = "deep;[truncated];chain_16;chain_17;chain_18;chain_19;chain_20 1" ]
}

@test "stack source: a refusal names the source asked for: --stack-source=tracefs-deferred on a stock kernel" {
	run --separate-stderr "$USTACK" -B "$NAME" --stack-source=tracefs-deferred \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 1
	[ "$status" -ne 0 ]
	[ "$stderr" = "trace-cmd ustack: --stack-source=tracefs-deferred: this kernel has no options/userstacktrace_delay (see THE FALLBACK in man trace-cmd-ustack)" ]
}

@test "stack source: record --call-graph=dwarf writes its samples unread, each copy trimmed by the worker: the summary counts them as recorded" {
	run --separate-stderr "$USTACK" record -B "$NAME" --call-graph=dwarf -o "$TMP/t.dat" \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 20
	[ "$status" -eq 0 ]
	echo "$stderr"
	[[ "$stderr" == *"ustack summary (as recorded):"* ]]
	[[ "$stderr" == *$'\n'"  samples:              20 (events with their stacks)"$'\n'* ]]
	[[ "$stderr" == *$'\n'"  stack copies:         20 trimmed to the words their unwind read, 0 whole"* ]]
	[[ "$stderr" != *"stacks unwound"* ]]
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	[ "$output" = "deep;_start;__libc_start_main;__libc_start_call_main;main;$(deep_chain 20 | tac | paste -sd';') 20" ]
}

# A recording's samples go to the file unread; the process each names is
# noted for PROCMAPS once a run of its samples (ustack-map-source.c), and
# again after any side-band record: a fork record of a pid used again
# starts a new process, whose samples must note it again. ns_last_pid
# makes the kernel give a second deep the first one's pid.
@test "map source: a pid used again in a recording: the new process's samples still name it in PROCMAPS" {
	[ -w /proc/sys/kernel/ns_last_pid ] || skip "no writable /proc/sys/kernel/ns_last_pid"
	cat > "$TMP/reuse.sh" <<-'SH'
	"$1" 2 & p=$!
	wait $p
	i=0
	while [ $i -lt 500 ]; do
		echo $((p - 1)) > /proc/sys/kernel/ns_last_pid
		sh -c '[ $$ = '$p' ] || exit 7; exec "$0" 3' "$1"
		[ $? = 7 ] || { echo "pid $p used again" >&2; exit 0; }
		i=$((i + 1))
	done
	echo "pid $p not used again" >&2
	exit 1
	SH
	run --separate-stderr "$USTACK" record -B "$NAME" -q --stack-source=perf --call-graph=fp -c \
		-o "$TMP/t.dat" -e syscalls:sys_enter_getppid -- sh "$TMP/reuse.sh" "$PROGS/deep"
	echo "$stderr"
	[[ "$stderr" != *"not used again"* ]] || skip "the pid was taken by another process each time"
	[ "$status" -eq 0 ]
	pid=$(sed -n 's/^pid \([0-9]*\) used again$/\1/p' <<< "$stderr")
	[ -n "$pid" ]
	# one PROCMAPS option a process, its header first: pid, files, name
	run trace-cmd dump --options -i "$TMP/t.dat"
	[ "$status" -eq 0 ]
	grep -A1 'Option PROCMAPS' <<< "$output" | grep -v 'Option PROCMAPS' > "$TMP/heads"
	cat "$TMP/heads"
	grep -q "^$(printf '%x' "$pid") [0-9a-f]* deep$" "$TMP/heads"
}
