#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Defects of the v3 kernel series found in review (issue 49: N1, N2, N8),
# each forced here on the patched kernel, in the VM, from the kernel's own
# output (trace text, trace_pipe_raw), without the tool.

load ../helpers

KHANG="$ROOT/tests/progs/kernel/khang"
KCHAIN="$ROOT/tests/progs/kernel/kchain"
CFI="$ROOT/tests/progs/cfi"
KPAD="$ROOT/tests/vm/kpad.py"

setup() {
	require_deferred
	KI="$TRACEFS/instances/kfix-$$-$BATS_TEST_NUMBER"
	K2="$TRACEFS/instances/kfix2-$$-$BATS_TEST_NUMBER"
	KT="$BATS_TEST_TMPDIR/trace"
}

teardown() {
	# A held FUSE read fails once the server is gone
	[ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null
	[ -n "${SERVER:-}" ] && wait "$SERVER" 2>/dev/null
	[ -n "${CALLER:-}" ] && wait "$CALLER" 2>/dev/null
	[ -n "${MNT:-}" ] && umount -l "$MNT" 2>/dev/null
	for d in "${KI:-}" "${K2:-}"; do
		[ -n "$d" ] && [ -d "$d" ] && rmdir "$d"
	done
	true
}

# cookie_after PID TEXT: the cookie that follows PID's last line with TEXT
cookie_after() {
	awk -v pid="$1" -v ev="$2" '
		$0 !~ "-" pid " +\\[" { next }
		index($0, ev) { want = 1; next }
		want && /<user unwind cookie>/ {
			sub(/.*cookie=/, ""); last = $0; want = 0
		}
		END { print last }' "$KT"
}

@test "kernel fixes: a request that lands while execve's stack callback runs is answered before the new image, and sys_exit_execve gets a new cookie" {
	[ -x "$KCHAIN" ] || skip "tests/progs/kernel/kchain not built (make)"
	[ -d "$TRACEFS/events/kmem/kmalloc" ] || skip "no kmem:kmalloc event"
	mkdir "$KI"
	[ -e "$KI/user_stack_copy_size" ] || skip "no user_stack_copy_size (no perf events)"
	# $KI: the execve, each entry answered by a copy of 1000 bytes of
	# stack (less than any stack holds: the copy stops at its end), which
	# its callback allocates
	echo 1 > "$KI/options/userstacktrace_delay"
	echo 1000 > "$KI/user_stack_copy_size"
	echo 1 > "$KI/events/syscalls/sys_enter_execve/enable"
	echo 1 > "$KI/events/syscalls/sys_exit_execve/enable"
	# $K2: a second unwinder whose only request of the entry comes from
	# inside $KI's callback, that allocation (version 3 kernels could be
	# forced with a build id read from a held FUSE file; version 4 reads
	# no file in the callback)
	mkdir "$K2"
	echo 1 > "$K2/options/userstacktrace_delay"
	echo 'bytes_req == 1000' > "$K2/events/kmem/kmalloc/filter"
	echo 1 > "$K2/events/kmem/kmalloc/enable"
	"$KCHAIN" exec /bin/true &
	pid=$!
	wait "$pid"
	echo 0 > "$K2/tracing_on"
	echo 0 > "$KI/tracing_on"
	cat "$KI/trace" > "$KT"
	enter=$(cookie_after "$pid" "sys_execve(")
	leave=$(cookie_after "$pid" "sys_execve ->")
	echo "pid $pid: execve cookie $enter, its exit's $leave"
	grep -E -- "-$pid +\[" "$KT"
	grep -E -- "-$pid +\[" "$K2/trace" || true
	[ -n "$enter" ] && [ -n "$leave" ]
	[ "$enter" != "$leave" ]
	# and each is answered by a copy of its own
	[ "$(grep -cE -- "-$pid +\[.*<user stack copy> cookie=($enter|$leave) " "$KT")" -eq 2 ]
	# the request did land in the callback of the execve's entry
	grep -qE -- "-$pid +\[.*<user unwind cookie> cookie=$enter\$" "$K2/trace"
}

@test "kernel fixes: under setarch -R, where the stack ends at the top of user space, the stack copy holds the stack, not 0 bytes" {
	[ -x "$CFI/cfi-deep" ] || skip "tests/progs/cfi/cfi-deep not built (make)"
	mkdir "$KI"
	[ -f "$KI/user_stack_copy_size" ] || skip "no user_stack_copy_size"
	echo 64 > "$KI/buffer_subbuf_size_kb" 2>/dev/null || skip "no 64 KiB sub-buffers"
	[ "$(cat "$KI/buffer_subbuf_size_kb")" -ge 64 ] || skip "no 64 KiB sub-buffers"
	echo 1 > "$KI/options/userstacktrace_delay"
	echo 1 > "$KI/events/syscalls/sys_enter_getppid/enable"
	# more than there is between the stack pointer and the top
	echo 65528 > "$KI/user_stack_copy_size"
	setarch -R "$CFI/cfi-deep" 2 &
	pid=$!
	wait "$pid"
	echo 0 > "$KI/tracing_on"
	cat "$KI/trace" > "$KT"
	grep -E -- "-$pid +\[.*<user stack (copy|unwind)>" "$KT"
	# each getppid answered by a copy of at least its 12 frames' stack
	[ "$(grep -cE -- "-$pid +\[.*<user stack copy>" "$KT")" -eq 2 ]
	run awk '{ sub(/.* stack=/, ""); if ($1 + 0 < 256) bad++ } END { exit bad }' \
		<<< "$(grep -E -- "-$pid +\[.*<user stack copy>" "$KT")"
	[ "$status" -eq 0 ]
}

@test "kernel fixes: the padding of stack, inode_cache and copy entries reaches user space as 0, not as an earlier event's bytes" {
	[ -x "$KCHAIN" ] || skip "tests/progs/kernel/kchain not built (make)"
	mkdir "$KI"
	echo 64 > "$KI/buffer_size_kb"
	# Fill every CPU's pages with non-zero bytes, then start over on them
	for cpu in 0 1; do
		taskset -c $cpu sh -c "
			exec 3> '$KI/trace_marker'
			i=0
			while [ \$i -lt 400 ]; do
				printf '%0300d\n' 0 | tr 0 Z >&3
				i=\$((i + 1))
			done"
	done
	echo > "$KI/trace"
	echo 1 > "$KI/options/userstacktrace_delay"
	echo 1 > "$KI/events/inode_cache/inode_cache/enable"
	echo 1 > "$KI/events/syscalls/sys_enter_getppid/enable"
	"$KCHAIN" asm 3 > /dev/null
	if [ -f "$KI/user_stack_copy_size" ]; then
		echo 100 > "$KI/user_stack_copy_size"
		"$KCHAIN" asm 3 > /dev/null
	fi
	echo 0 > "$KI/tracing_on"
	run "$KPAD" "$KI"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *inode_cache* ]]
}
