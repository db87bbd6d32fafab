#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# preemptirq:irq_enable fires in exit_to_user_mode(), after the last run
# of task work on the way to user space: a deferred unwind asked for
# there must still get the stack of that kernel entry (kernel-abi.md,
# rule 2), not share a cookie with the task's next entry. Run inside
# tests/vm; the event needs CONFIG_TRACE_IRQFLAGS, which the debug kernel
# has (PROVE_LOCKING): make check-debug runs this, the tiny kernel skips.

load ../helpers

KALT="$ROOT/tests/progs/kernel/kalt"
KTRACE="$ROOT/tests/vm/ktrace.py"

setup() {
	require_deferred
	[ -x "$KALT" ] || skip "tests/progs/kernel/kalt not built (make)"
	[ -d "$TRACEFS/events/preemptirq/irq_enable" ] ||
		skip "no preemptirq:irq_enable in this kernel (CONFIG_TRACE_IRQFLAGS)"
	KI="$TRACEFS/instances/kirq-$$-$BATS_TEST_NUMBER"
	KT="$BATS_TEST_TMPDIR/trace"
}

teardown() {
	[ -n "${KI:-}" ] && [ -d "$KI" ] && rmdir "$KI"
	true
}

@test "kernel-irq-enable: each syscall and the irq_enable on its way out get the stack of that syscall's chain" {
	mkdir "$KI"
	# Only this shell until kalt puts its own pid there
	echo $$ > "$KI/set_event_pid"
	echo 4096 > "$KI/buffer_size_kb"
	echo 1 > "$KI/options/userstacktrace_delay"
	echo 1 > "$KI/events/inode_cache/inode_cache/enable"
	for e in sys_enter_getppid sys_exit_getppid sys_enter_getpid sys_exit_getpid; do
		echo 1 > "$KI/events/syscalls/$e/enable"
	done
	echo 1 > "$KI/events/preemptirq/irq_enable/enable"
	"$KALT" "$KI/set_event_pid" 100 &
	pid=$!
	wait $pid
	echo 0 > "$KI/tracing_on"
	cat "$KI/trace" > "$KT"
	run "$KTRACE" exits "$KT" $pid "$KALT" \
		getppid=raw_syscall0,ka_leaf,ka_mid,ka_top \
		getpid=raw_syscall0,kb_leaf,kb_mid,kb_top
	echo "$output"
	[ "$status" -eq 0 ]
}
