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
# kchain wild: kw_wild saved a wild frame pointer for its caller, wild()
WILD="raw_getppid,kw_3,kw_2,kw_1,kw_wild,wild"
# kchain signal: the same chain, called from send_signals()
SIGCHAIN="${CHAIN%,main},send_signals,main"

setup() {
	require_deferred
	[ -x "$KCHAIN" ] || skip "tests/progs/kernel/kchain not built (make)"
	KI="$TRACEFS/instances/kbats-$$-$BATS_TEST_NUMBER"
	KT="$BATS_TEST_TMPDIR/trace"
}

teardown() {
	[ -n "${HOLDER:-}" ] && kill "$HOLDER" 2>/dev/null
	[ -n "${HOLDER:-}" ] && wait "$HOLDER" 2>/dev/null
	[ -n "${KI:-}" ] && [ -d "$KI" ] && rmdir "$KI"
	# a test that took CPU 1 offline and failed before bringing it back
	if [ "$(cat "$CPU1" 2>/dev/null)" = 0 ]; then
		echo 1 > "$CPU1"
	fi
	true
}

CPU1=/sys/devices/system/cpu/cpu1/online

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

@test "kernel: a wild saved frame pointer (kernel address, free page, backwards) ends the stack at its frame" {
	local kind pids=()

	kinstance syscalls/sys_enter_getppid
	for kind in kernel unmapped backwards none; do
		krun "$KCHAIN" wild $kind
		pids+=("$KPID")
	done
	ksave
	for i in 0 1 2; do
		run "$KTRACE" exact "$KT" "${pids[$i]}" "$KCHAIN" "$WILD"
		echo "$output"
		[ "$status" -eq 0 ]
	done
	# Left alone, the same chain goes on below main: the stops above are the wild pointer's
	run "$KTRACE" chain "$KT" "${pids[3]}" "$KCHAIN" "$WILD"
	echo "$output"
	[ "$status" -eq 0 ]
	run "$KTRACE" exact "$KT" "${pids[3]}" "$KCHAIN" "$WILD"
	echo "$output"
	[ "$status" -ne 0 ]
}

@test "kernel: a saved return address of ~0 (the last byte of the address space) is written as a frame outside every mapping" {
	# v3 before this fix dereferenced NULL writing that stack: the frame
	# was recorded as [ip, ip + 1), whose end wraps to 0, and not found again
	kinstance syscalls/sys_enter_getppid
	krun "$KCHAIN" wild ra
	ksave
	run "$KTRACE" chain "$KT" $KPID "$KCHAIN" "$WILD"
	echo "$output"
	[ "$status" -eq 0 ]
	# and, once, the frame ~0 with the no-mapping id (1) (its place after
	# wild() is checked through the tool, cli-deferred.bats)
	run grep -c -x ' => ffffffffffffffff \[1\]' "$KT"
	echo "$output"
	[ "$output" -eq 1 ]
}

# Ids are per in-memory inode: a file no task maps any more may lose its
# inode (9p does that here) and come back with a new id, announced as new.
# So the checks are on ids: none is announced twice without a reset, and
# after a reset a known one (libc, mapped by every shell) is announced again.
# hold_files: a kchain process that keeps kchain, libc and ld.so mapped
# while it runs, its pid in $HOLDER
hold_files() {
	"$KCHAIN" spin 60000 > /dev/null &
	HOLDER=$!
	poll_until 10 grep -q libc "/proc/$HOLDER/maps"
}

@test "kernel: files are recorded once per mapping, not per stack, and again on a user_unwind_maps write" {
	kinstance syscalls/sys_enter_getppid
	krun "$KCHAIN" asm 3
	first=$KPID
	hold_files
	echo 1 > "$KI/user_unwind_maps"
	ksave
	"$KTRACE" ids "$KT" $first > "$BATS_TEST_TMPDIR/a"
	"$KTRACE" ids "$KT" $HOLDER > "$BATS_TEST_TMPDIR/b"
	echo "first: $(xargs < "$BATS_TEST_TMPDIR/a") holder: $(xargs < "$BATS_TEST_TMPDIR/b")"
	[ -s "$BATS_TEST_TMPDIR/a" ]
	# three stacks, one record of each file: those of its mappings
	run "$KTRACE" maxannounce "$KT" $first
	echo "most records of one id: $output"
	[ "$output" = 1 ]
	run "$KTRACE" chain "$KT" $first "$KCHAIN" "$CHAIN"
	echo "$output"
	[ "$status" -eq 0 ]
	# the running process's files are recorded by the write, with the
	# same ids: one id per file in every process
	[ -n "$(comm -12 "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b")" ]
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
	# the copy build-kernel keeps with the kernel that runs; a kernel
	# cached before it kept one: the cache's source tree, which another
	# build may be resetting
	ft=${USTACK_VM_KERNEL:+$(dirname "$USTACK_VM_KERNEL")/selftests-ftrace}
	[ -n "$ft" ] && [ -d "$ft" ] ||
		ft=$(ls -d "${USTACK_CACHE:-/var/cache/trace-cmd-ustack}"/src/linux-*/tools/testing/selftests/ftrace 2>/dev/null | head -1)
	[ -n "$ft" ] && [ -d "$ft/test.d/user-unwind" ] || skip "no patched kernel tree (tests/vm/build-kernel)"
	run "$ft/ftracetest" -l "$BATS_TEST_TMPDIR/ftlogs" "$ft/test.d/user-unwind/"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"# of failed:  0"* ]]
	# irq-enable.tc needs preemptirq:irq_enable (CONFIG_TRACE_IRQFLAGS),
	# which the tiny kernel has not: there it is unsupported
	if [ -d "$TRACEFS/events/preemptirq/irq_enable" ]; then
		[[ "$output" == *"# of passed:  7"* ]]
	else
		[[ "$output" == *"# of passed:  6"* ]]
		[[ "$output" == *"# of unsupported:  1"* ]]
	fi
}

@test "kernel: once the buffer overran past a process's records, the next process's stack is named by its own records" {
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
	# the first process's records on CPU 0 are gone from the buffer (its
	# taskset's, written before it moved to CPU 0, may be left on CPU 1)
	[ "$(grep -cE -- "-$first +\[000\] .*inode_cache: " "$KT")" -eq 0 ]
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

@test "kernel: a deleted executable still running is recorded with DELETED and its path on a user_unwind_maps write" {
	cp "$KCHAIN" "$BATS_TEST_TMPDIR/kc"
	kinstance syscalls/sys_enter_getppid
	"$BATS_TEST_TMPDIR/kc" unlink 5000 > /dev/null &
	KPID=$!
	poll_until 10 eval '[ ! -e "$BATS_TEST_TMPDIR/kc" ]'
	echo 1 > "$KI/user_unwind_maps"
	wait $KPID
	ksave
	run "$KTRACE" deleted "$KT" $KPID "$(readlink -f "$BATS_TEST_TMPDIR")/kc"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: a 32-bit task's stack is flagged COMPAT and unwound with 4-byte frames" {
	# no skip: a missing 32-bit program must not hide the compat path
	[ -x "$ROOT/tests/progs/kernel/kchain32" ]
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

@test "kernel: signal_deliver alone gets the stack where the task was, not the handler's" {
	kinstance signal/signal_deliver
	krun "$KCHAIN" signal 50
	[ "$(cat "$BATS_TEST_TMPDIR/out")" = 50 ]
	ksave
	run "$KTRACE" answered "$KT" $KPID "signal_deliver: sig=10 " "$KCHAIN" "$SIGCHAIN"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "50 signal_deliver: sig=10  events answered"* ]]
}

@test "kernel: with signal_generate, signal_deliver's cookie comes after its entry's stack and is answered by it" {
	kinstance signal/signal_generate signal/signal_deliver
	krun "$KCHAIN" signal 50
	ksave
	# SIGUSR1 (10) only: the SIGCHLD the task sends its parent as it
	# exits is generated by an exiting task, which gets no cookie
	run "$KTRACE" answered "$KT" $KPID "signal_generate: sig=10 " "$KCHAIN" "$SIGCHAIN"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "50 signal_generate: sig=10  events answered"* ]]
	run "$KTRACE" answered "$KT" $KPID "signal_deliver: sig=10 " "$KCHAIN" "$SIGCHAIN"
	echo "$output"
	[ "$status" -eq 0 ]
	# get_signal() ran the unwind before the delivery was traced
	[[ "$output" == "50 signal_deliver: sig=10  events answered, 50 by a stack written before their cookie" ]]
}

@test "kernel: under load, every sched_switch and syscall of a task is in order and answered" {
	command -v taskset >/dev/null || skip "taskset (util-linux) missing"
	kinstance sched/sched_switch syscalls/sys_enter_getppid syscalls/sys_enter_exit_group
	echo 1 > "$KI/options/stacktrace"
	# room for everything: an overwritten stack would look unanswered
	echo 8192 > "$KI/buffer_size_kb"
	# a competitor on the same CPU preempts the chain in and out of calls
	taskset -c 0 "$KCHAIN" spin 1500 &
	spinner=$!
	krun taskset -c 0 "$KCHAIN" asm 2000
	wait $spinner
	ksave
	for c in "$KI"/per_cpu/cpu*; do
		[ "$(sed -n 's/^overrun: //p' "$c/stats")" -eq 0 ]
	done
	run "$KTRACE" order "$KT" $KPID $spinner
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: an unwind still pending when the task exits is written" {
	kinstance syscalls/sys_enter_exit_group
	krun "$KCHAIN" exit
	ksave
	run "$KTRACE" answered "$KT" $KPID sys_exit_group "$KCHAIN" "$CHAIN"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: sys_enter_execve gets the stack that called execve, sys_exit_execve a new cookie and the new image" {
	kinstance syscalls/sys_enter_execve syscalls/sys_exit_execve
	# /bin/true makes no execve of its own: the only stacks are the exec's
	krun "$KCHAIN" exec /bin/true
	ksave
	# walked in the old image: kf_22 made the execve system call
	run "$KTRACE" execve "$KT" $KPID "$KCHAIN" "${CHAIN%,main}" ld-linux
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: a trace_marker write gets the cookie and stack of the task that wrote it" {
	kinstance
	(exec 3> "$KI/trace_marker" && echo annotation >&3) &
	wpid=$!
	wait $wpid
	ksave
	run "$KTRACE" answered "$KT" $wpid "annotation"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: after a snapshot swap, stacks in the live buffer and in the snapshot resolve" {
	[ -e "$TRACEFS/snapshot" ] || skip "no CONFIG_TRACER_SNAPSHOT"
	kinstance syscalls/sys_enter_getppid
	krun "$KCHAIN" asm 2
	before=$KPID
	echo 1 > "$KI/snapshot"
	krun "$KCHAIN" asm 2
	after=$KPID
	ksave
	cat "$KI/snapshot" > "$BATS_TEST_TMPDIR/snap"
	run "$KTRACE" chain "$KT" $after "$KCHAIN" "$CHAIN"
	echo "live: $output"
	[ "$status" -eq 0 ]
	run "$KTRACE" chain "$BATS_TEST_TMPDIR/snap" $before "$KCHAIN" "$CHAIN"
	echo "snapshot: $output"
	[ "$status" -eq 0 ]
}

@test "kernel: a wrapping buffer without a reader gets no record per stack, and user_unwind_maps names the files of the stacks left" {
	command -v taskset >/dev/null || skip "taskset (util-linux) missing"
	kinstance syscalls/sys_enter_getppid
	echo 64 > "$KI/buffer_size_kb"
	krun taskset -c 0 "$KCHAIN" asm 3000
	overrun=$(sed -n 's/^overrun: //p' "$KI/per_cpu/cpu0/stats")
	echo "cpu0 overrun: $overrun"
	[ "$overrun" -gt 0 ]
	# A flight recorder read after the fact: the first calls are gone,
	# and with them the records of the process's mappings, written when
	# it mapped its files. A process that maps the same files is
	# recorded again by a write to user_unwind_maps, with the same ids.
	hold_files
	echo 1 > "$KI/user_unwind_maps"
	ksave
	local calls stacks
	calls=$(grep -c -- "-$KPID .* sys_getppid" "$KT")
	stacks=$(grep -c -- "-$KPID .* <user stack unwind> " "$KT")
	echo "calls kept: $calls of 3000, stacks kept: $stacks"
	[ "$calls" -gt 0 ] && [ "$calls" -lt 3000 ]
	# no record per stack: at most those of its own mappings are left
	run "$KTRACE" maxannounce "$KT" $KPID
	echo "most records of one id: $output"
	[ "$output" -le 1 ]
	run "$KTRACE" resolvable "$KT" $KPID
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: a stack through 100 files announces each once; the next stack announces none" {
	libs=()
	for i in $(seq -w 1 100); do
		cp "$ROOT/tests/progs/kernel/libkc.so" "$BATS_TEST_TMPDIR/kc$i.so"
		libs+=("$BATS_TEST_TMPDIR/kc$i.so")
	done
	kinstance syscalls/sys_enter_getppid
	krun "$ROOT/tests/progs/kernel/kmany" 3 "${libs[@]}"
	ksave
	[ "$("$KTRACE" ids "$KT" $KPID | sort -u | wc -l)" -ge 101 ]
	run "$KTRACE" maxannounce "$KT" $KPID
	echo "most announcements of one id: $output"
	[ "$output" = 1 ]
	run "$KTRACE" resolvable "$KT" $KPID
	echo "$output"
	[ "$status" -eq 0 ]
}

# kremap: N calls from a stub mapped from file A, then N from file B
# mapped at the same address after A was unmapped
@test "kernel: a file mapped where another was unmapped names the new file from its first stack" {
	kinstance syscalls/sys_enter_getppid
	krun "$ROOT/tests/progs/kernel/kremap" "$BATS_TEST_TMPDIR/stub-a" "$BATS_TEST_TMPDIR/stub-b" 50
	ksave
	run "$KTRACE" remap "$KT" $KPID "$BATS_TEST_TMPDIR/stub-a" "$BATS_TEST_TMPDIR/stub-b" 50
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: without inode_cache too, the file mapped in place of another gets its own id" {
	mkdir "$KI"
	echo 1 > "$KI/options/userstacktrace_delay"
	echo 1 > "$KI/events/syscalls/sys_enter_getppid/enable"
	krun "$ROOT/tests/progs/kernel/kremap" "$BATS_TEST_TMPDIR/stub-a" "$BATS_TEST_TMPDIR/stub-b" 50
	ksave
	run "$KTRACE" remap "$KT" $KPID - - 50
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: a 32-bit task's frames in its vDSO name [vdso] with the 32-bit image's build id" {
	[ -x "$ROOT/tests/progs/kernel/kchain32v" ]
	kinstance raw_syscalls/sys_enter
	rm -f /tmp/kchain32-vdso.so
	krun "$ROOT/tests/progs/kernel/kchain32v"
	ksave
	run "$KTRACE" vdso32 "$KT" $KPID /tmp/kchain32-vdso.so
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "kernel: a filtered inode_cache writes what matches, once, and nothing else" {
	kinstance syscalls/sys_enter_getppid
	echo 'path ~ "*libc*"' > "$KI/events/inode_cache/inode_cache/filter"
	krun "$KCHAIN" libc 3
	ksave
	libc=$(grep -c "inode_cache: .* tgid=$KPID .*path=.*libc" "$KT" || true)
	other=$(grep "inode_cache: .* tgid=$KPID " "$KT" | grep -vc "path=.*libc" || true)
	echo "libc announcements: $libc, others: $other"
	# the filter is evaluated before the commit: what passes is
	# remembered, and the next two stacks through libc announce nothing
	[ "$libc" -eq 1 ]
	[ "$other" -eq 0 ]
	run "$KTRACE" leaf-in "$KT" $KPID libc.so
	echo "$output"
	[ "$status" -eq 0 ]
}

# The CPU's mapping cache holds the mm of the last stack (mmgrab); it is
# let go when the option is cleared and when the CPU goes offline
# (kernel-release.bats sees the mm freed through the kmem events): this
# checks that stacks stay exact through those drops (and, on the debug
# kernel, that they touch no freed mm).
@test "kernel: stacks stay exact after the CPU mapping cache is dropped by CPU offline and option toggle" {
	[ -w "$CPU1" ] || skip "no CPU hotplug in this kernel"
	kinstance syscalls/sys_enter_getppid
	krun taskset -c 1 "$KCHAIN" asm 2
	first=$KPID
	echo 0 > "$CPU1"
	echo 1 > "$CPU1"
	krun taskset -c 1 "$KCHAIN" asm 2
	second=$KPID
	echo 0 > "$KI/options/userstacktrace_delay"
	echo 1 > "$KI/options/userstacktrace_delay"
	krun taskset -c 1 "$KCHAIN" asm 2
	third=$KPID
	ksave
	for pid in $first $second $third; do
		run "$KTRACE" chain "$KT" $pid "$KCHAIN" "$CHAIN"
		echo "$pid: $output"
		[ "$status" -eq 0 ]
	done
}

@test "kernel: two instances with the option at once each announce into their own buffer" {
	KI2="$KI-b"
	kinstance syscalls/sys_enter_getppid
	mkdir "$KI2"
	echo 1 > "$KI2/options/userstacktrace_delay"
	echo 1 > "$KI2/events/inode_cache/inode_cache/enable"
	echo 1 > "$KI2/events/syscalls/sys_enter_getppid/enable"
	krun "$KCHAIN" asm 2
	ksave
	echo 0 > "$KI2/tracing_on"
	cat "$KI2/trace" > "$BATS_TEST_TMPDIR/trace2"
	rmdir "$KI2"
	for t in "$KT" "$BATS_TEST_TMPDIR/trace2"; do
		run "$KTRACE" chain "$t" $KPID "$KCHAIN" "$CHAIN"
		echo "$t: $output"
		[ "$status" -eq 0 ]
	done
}

@test "kernel: 200 instances removed with unwinds pending or running leak no unwinder slot" {
	# interrupts of a busy task: unwinds pending at every removal
	"$KCHAIN" spin 600000 &
	busy=$!
	for i in $(seq 1 200); do
		d="$TRACEFS/instances/kcycle-$$"
		mkdir "$d"
		echo 1 > "$d/options/userstacktrace_delay"
		echo 1 > "$d/events/inode_cache/inode_cache/enable"
		echo 1 > "$d/events/raw_syscalls/sys_enter/enable"
		echo 1 > "$d/events/timer/hrtimer_expire_entry/enable"
		"$KCHAIN" asm 20 &
		rmdir "$d"
		wait $!
	done
	kill $busy 2>/dev/null || true
	wait $busy || true
	# more instances than the unwinder has slots: each one must get one
	made=()
	for i in $(seq 1 70); do
		d="$TRACEFS/instances/kafter-$$-$i"
		mkdir "$d"
		made+=("$d")
		echo 1 > "$d/options/userstacktrace_delay" || break
	done
	n=${#made[@]}
	for d in "${made[@]}"; do rmdir "$d"; done
	echo "slots available after the cycles: $((n - 1))"
	[ "$n" -gt 50 ]
	kinstance syscalls/sys_enter_getppid
	krun "$KCHAIN" asm 1
	ksave
	run "$KTRACE" cookies "$KT" $KPID sys_getppid
	echo "$output"
	[ "$status" -eq 0 ]
}
