#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The kernel side of deferred user stacks (kernel-patches/), on the real
# patched kernel: run inside tests/vm. Each test drives tracefs directly
# and checks the kernel's own text output with tests/vm/ktrace.py, so the
# tool (trace-cmd ustack) plays no part in these results.

load ../helpers

KCHAIN="$ROOT/tests/progs/kernel/kchain"
KTRACE="$ROOT/tests/vm/ktrace.py"
CHAIN="kf_22,kf_21,kf_20,kf_19,kf_18,kf_17,kf_16,kf_15,kf_14,kf_13,kf_12,kf_11,kf_10,kf_09,kf_08,kf_07,kf_06,kf_05,kf_04,kf_03,kf_02,kf_01,main"

setup() {
	require_deferred
	[ -x "$KCHAIN" ] || skip "tests/progs/kernel/kchain not built (make)"
	KI="$TRACEFS/instances/kbats-$$-$BATS_TEST_NUMBER"
	KT="$BATS_TEST_TMPDIR/trace"
}

teardown() {
	[ -n "${KI:-}" ] && [ -d "$KI" ] && rmdir "$KI"
	true
}

# kinstance [--sync] EVENT...: a fresh instance with deferred stacks and
# inode_cache on (or, with --sync, the old userstacktrace only)
kinstance() {
	mkdir "$KI"
	if [ "$1" = --sync ]; then
		shift
		echo 1 > "$KI/options/userstacktrace"
	else
		echo 1 > "$KI/options/userstacktrace_delay"
		echo 1 > "$KI/events/inode_cache/inode_cache/enable"
	fi
	for e in "$@"; do
		echo 1 > "$KI/events/$e/enable"
	done
}

# krun CMD...: run CMD, leave its pid in $KPID
krun() {
	"$@" > "$BATS_TEST_TMPDIR/out" &
	KPID=$!
	wait $KPID
}

ksave() {
	echo 0 > "$KI/tracing_on"
	cat "$KI/trace" > "$KT"
}

@test "kernel: each traced syscall of a user task is followed by a cookie answered by a stack" {
	kinstance syscalls/sys_enter_getppid
	krun "$KCHAIN" asm 3
	ksave
	run "$KTRACE" cookies "$KT" $KPID sys_getppid
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: a 23-frame chain is unwound exactly, each offset inside its function, binary named with its build id" {
	kinstance syscalls/sys_enter_getppid
	krun "$KCHAIN" asm 3
	ksave
	run "$KTRACE" chain "$KT" $KPID "$KCHAIN" "$CHAIN"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: a frame in libc is named by the libc file inode_cache announced" {
	kinstance syscalls/sys_enter_getppid
	krun "$KCHAIN" libc 2
	ksave
	run "$KTRACE" leaf-in "$KT" $KPID libc.so
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: sys_enter and sys_exit of one syscall share a cookie and one stack" {
	kinstance syscalls/sys_enter_getppid syscalls/sys_exit_getppid
	krun "$KCHAIN" asm 3
	ksave
	run "$KTRACE" shared "$KT" $KPID "sys_getppid()" "sys_getppid ->"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: a task that moves CPU in a syscall gets its stack on the other CPU" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	kinstance syscalls/sys_enter_sched_setaffinity
	krun "$KCHAIN" migrate 0 1
	[ "$(cat "$BATS_TEST_TMPDIR/out")" = "0 1" ]
	ksave
	run "$KTRACE" crosscpu "$KT" $KPID 0 1
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: kernel threads and the idle task get no cookie" {
	kinstance sched/sched_switch sched/sched_wakeup syscalls/sys_enter_getppid
	krun "$KCHAIN" asm 3
	sleep 0.3
	ksave
	run "$KTRACE" nokthread "$KT"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: userstacktrace alone still records synchronous stacks and no cookie" {
	kinstance --sync syscalls/sys_enter_getppid
	krun "$KCHAIN" asm 2
	ksave
	grep -q '<user stack trace>' "$KT"
	! grep -q '<user unwind cookie>' "$KT"
	! grep -q '<user stack unwind>' "$KT"
}

@test "kernel: recursion deeper than an event holds gives TRUNCATED and the leaf-most frames" {
	kinstance syscalls/sys_enter_getppid
	krun "$KCHAIN" recurse 600
	ksave
	run "$KTRACE" truncated "$KT" $KPID "$KCHAIN" raw_getppid kr_recurse
	echo "$output"
	[ "$status" -eq 0 ]
}

# Ids are per in-memory inode: a file no task maps any more may lose its
# inode (9p does that here) and come back with a new id, announced as new.
# So the checks are on ids: none is announced twice without a reset, and
# after a reset a known one (libc, mapped by every shell) is announced again.
@test "kernel: files are announced once, and again after tracing_on is written" {
	kinstance syscalls/sys_enter_getppid
	krun "$KCHAIN" asm 1
	first=$KPID
	krun "$KCHAIN" asm 1
	second=$KPID
	echo 0 > "$KI/tracing_on"
	echo 1 > "$KI/tracing_on"
	krun "$KCHAIN" asm 1
	third=$KPID
	ksave
	"$KTRACE" ids "$KT" $first > "$BATS_TEST_TMPDIR/a"
	"$KTRACE" ids "$KT" $second > "$BATS_TEST_TMPDIR/b"
	"$KTRACE" ids "$KT" $third > "$BATS_TEST_TMPDIR/c"
	echo "first: $(cat "$BATS_TEST_TMPDIR/a" | xargs) second: $(cat "$BATS_TEST_TMPDIR/b" | xargs) third: $(cat "$BATS_TEST_TMPDIR/c" | xargs)"
	[ -s "$BATS_TEST_TMPDIR/a" ]
	# nothing the first run announced is announced again by the second
	[ -z "$(comm -12 "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b")" ]
	# ... and the second run's stacks still name their files
	run "$KTRACE" resolvable "$KT" $second
	echo "$output"
	[ "$status" -eq 0 ]
	# after tracing_on was written, known ids are announced again
	[ -n "$(comm -12 <(sort -u "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b") "$BATS_TEST_TMPDIR/c")" ]
	run "$KTRACE" chain "$KT" $third "$KCHAIN" "$CHAIN"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: a new instance starts with userstacktrace_delay off and removal cancels it" {
	mkdir "$KI"
	[ "$(cat "$KI/options/userstacktrace_delay")" = 0 ]
	echo 1 > "$KI/options/userstacktrace_delay"
	rmdir "$KI"
	mkdir "$KI"
	[ "$(cat "$KI/options/userstacktrace_delay")" = 0 ]
	echo 1 > "$KI/options/userstacktrace_delay"
}

@test "kernel: the series' own ftracetest selftests pass" {
	ft=$(ls -d "${USTACK_CACHE:-/var/cache/trace-cmd-ustack}"/src/linux-*/tools/testing/selftests/ftrace 2>/dev/null | head -1)
	[ -n "$ft" ] && [ -d "$ft/test.d/user-unwind" ] || skip "no patched kernel tree (tests/vm/build-kernel)"
	run "$ft/ftracetest" -l "$BATS_TEST_TMPDIR/ftlogs" "$ft/test.d/user-unwind/"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"# of passed:  3"* ]]
	[[ "$output" == *"# of failed:  0"* ]]
}

@test "kernel: once the buffer overran past an announcement, the next stack announces its files again" {
	command -v taskset >/dev/null || skip "taskset (util-linux) missing"
	kinstance syscalls/sys_enter_getppid
	# A small buffer, all on CPU 0: the flood overwrites the first
	# announcements on the CPU they were written to
	echo 16 > "$KI/buffer_size_kb"
	krun taskset -c 0 "$KCHAIN" asm 1
	first=$KPID
	krun taskset -c 0 "$KCHAIN" asm 3000
	krun taskset -c 0 "$KCHAIN" asm 1
	last=$KPID
	ksave
	overrun=$(sed -n 's/^overrun: //p' "$KI/per_cpu/cpu0/stats")
	echo "cpu0 overrun: $overrun"
	[ "$overrun" -gt 0 ]
	# the first announcements are gone from the buffer ...
	[ "$("$KTRACE" announced "$KT" $first)" -eq 0 ]
	# ... and the last process's stack still names its files
	run "$KTRACE" resolvable "$KT" $last
	echo "$output"
	[ "$status" -eq 0 ]
	run "$KTRACE" chain "$KT" $last "$KCHAIN" "$CHAIN"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: events raised in interrupt context get the cookie and stack of the interrupted user task" {
	kinstance timer/hrtimer_expire_entry
	krun "$KCHAIN" spin 400
	ksave
	run "$KTRACE" irq "$KT" $KPID hrtimer_expire_entry "$KCHAIN" "$CHAIN"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: a deleted executable is announced with DELETED and its path" {
	cp "$KCHAIN" "$BATS_TEST_TMPDIR/kc"
	kinstance syscalls/sys_enter_getppid
	krun "$BATS_TEST_TMPDIR/kc" unlink
	[ ! -e "$BATS_TEST_TMPDIR/kc" ]
	ksave
	run "$KTRACE" deleted "$KT" $KPID "$(readlink -f "$BATS_TEST_TMPDIR")/kc"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: a 32-bit task's stack is flagged COMPAT and unwound with 4-byte frames" {
	[ -x "$ROOT/tests/progs/kernel/kchain32" ] || skip "kchain32 not built (no 32-bit code generation)"
	# compat system calls have no syscalls:* events; raw_syscalls has them
	kinstance raw_syscalls/sys_enter
	krun "$ROOT/tests/progs/kernel/kchain32"
	ksave
	run "$KTRACE" compat "$KT" $KPID "$ROOT/tests/progs/kernel/kchain32" c32_leaf,c32_middle,c32_outer,_start
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: clearing, resizing, re-clocking the buffer and toggling the option all make files announced again" {
	kinstance syscalls/sys_enter_getppid
	reset_ops=("echo > $KI/trace" "echo 64 > $KI/buffer_size_kb" "echo mono > $KI/trace_clock"
		   "echo 0 > $KI/options/userstacktrace_delay; echo 1 > $KI/options/userstacktrace_delay")
	# Without a reset no id is announced twice (tested above), so a known
	# id announced again right after each operation is its doing
	: > "$BATS_TEST_TMPDIR/known"
	for op in "${reset_ops[@]}"; do
		krun "$KCHAIN" asm 1
		cat "$KI/trace" > "$KT"
		# every id the instance announced so far (the trace may be cleared)
		"$KTRACE" ids "$KT" | sort -u - "$BATS_TEST_TMPDIR/known" > "$BATS_TEST_TMPDIR/before"
		cp "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/known"
		eval "$op"
		krun "$KCHAIN" asm 1
		cat "$KI/trace" > "$KT"
		"$KTRACE" ids "$KT" $KPID > "$BATS_TEST_TMPDIR/after"
		echo "after '$op': $(xargs < "$BATS_TEST_TMPDIR/after")"
		[ -n "$(comm -12 "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after")" ]
	done
}

@test "kernel: the option fails with EBUSY once every unwinder slot of the system is taken, and works again after" {
	made=()
	err=
	for i in $(seq 1 70); do
		d="$TRACEFS/instances/kbusy-$$-$i"
		mkdir "$d"
		made+=("$d")
		if ! err=$(echo 1 2>&1 > "$d/options/userstacktrace_delay"); then
			break
		fi
		err=
	done
	echo "slots taken: $((${#made[@]} - 1)); error: $err"
	for d in "${made[@]}"; do rmdir "$d"; done
	[[ "$err" == *"Device or resource busy"* ]]
	[ ${#made[@]} -gt 2 ]
	# removing the instances gave the slots back
	kinstance syscalls/sys_enter_getppid
	[ "$(cat "$KI/options/userstacktrace_delay")" = 1 ]
}

@test "kernel: a path too long for one event is announced with PATH_ERR, not lost" {
	# about 4050 bytes: a valid path (< PATH_MAX), but no room for it in
	# an event of a 4 KiB sub-buffer (4072 bytes, less the fixed fields)
	long="$BATS_TEST_TMPDIR"
	while [ ${#long} -lt 3940 ]; do
		long="$long/$(printf 'd%.0s' $(seq 1 99))"
	done
	long="$long/$(printf 'e%.0s' $(seq 1 $((4050 - ${#long}))))"
	mkdir -p "$long"
	cp "$KCHAIN" "$long/kc"
	kinstance syscalls/sys_enter_getppid
	krun "$long/kc" asm 1
	ksave
	run "$KTRACE" patherr "$KT" $KPID
	echo "$output"
	[ "$status" -eq 0 ]
	run "$KTRACE" resolvable "$KT" $KPID
	echo "$output"
	[ "$status" -eq 0 ]
}
