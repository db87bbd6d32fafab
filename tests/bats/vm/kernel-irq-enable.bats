#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# preemptirq:irq_enable fires in exit_to_user_mode(), after the last run
# of task work on the way to user space: a deferred unwind asked for
# there must still get the stack of that kernel entry (kernel-abi.md,
# rule 2), not share a cookie with the task's next entry. Run inside
# tests/vm; the event needs CONFIG_TRACE_IRQFLAGS, which the debug kernel
# has (PROVE_LOCKING): make check-debug runs this, the tiny kernel skips.

bats_require_minimum_version 1.5.0
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
	# Only this shell and its children (kalt, whose mapping records are
	# written as it execs) until kalt puts its own pid there
	echo $BASHPID > "$KI/set_event_pid"
	echo 1 > "$KI/options/event-fork"
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

# The cookie request itself disables and enables interrupts
# (unwind_deferred_request()'s irqsave): with preemptirq:irq_disable and
# irq_enable traced in the same instance, a syscall event is followed by
# that pair, each with its cookie, and then by its own cookie (event,
# irq_disable, cookie, irq_enable, cookie, cookie: kernel-abi.md, rule 1,
# cookies nest). All three cookies are the entry's. A reader that gave a
# cookie to the latest event before it would leave each syscall without
# one: the tool must give every syscall its own chain.
@test "kernel-irq-enable: with irq_disable and irq_enable traced too, trace-cmd ustack gives every syscall its own chain" {
	run --separate-stderr "$USTACK" record -o "$BATS_TEST_TMPDIR/t.dat" \
		-e syscalls:sys_enter_getppid -e syscalls:sys_enter_getpid \
		-e preemptirq:irq_disable -e preemptirq:irq_enable -- "$KALT" /dev/null 50
	echo "$stderr"
	[ "$status" -eq 0 ]
	"$USTACK" report -q -i "$BATS_TEST_TMPDIR/t.dat" --perf-script >"$BATS_TEST_TMPDIR/ps"
	# the pair the request fires is in the file (stock trace-cmd prints
	# the caller): the nested case is there to be read
	trace-cmd report -i "$BATS_TEST_TMPDIR/t.dat" 2>/dev/null |
		grep -q "irq_disable:.*caller=unwind_deferred_request"
	python3 - "$BATS_TEST_TMPDIR/ps" <<-'PY'
	import re, sys
	want = {"getppid": ["raw_syscall0", "ka_leaf", "ka_mid", "ka_top", "main"],
	        "getpid": ["raw_syscall0", "kb_leaf", "kb_mid", "kb_top", "main"]}
	got = {"getppid": 0, "getpid": 0}
	for block in open(sys.argv[1]).read().split("\n\n"):
	    lines = block.strip("\n").split("\n")
	    m = re.search(r"syscalls:sys_enter_(getppid|getpid):", lines[0])
	    if not m:
	        continue
	    funcs = [re.sub(r"\+0x[0-9a-f]+$", "", l.split()[1]) for l in lines[1:] if l.startswith("\t")]
	    if m.group(1) == "getpid" and funcs[:1] != ["raw_syscall0"]:
	        continue  # libc's getpid() before the calls
	    if funcs[:5] != want[m.group(1)]:
	        sys.exit("a %s event's stack is %s, not %s" % (m.group(1), funcs, want[m.group(1)]))
	    got[m.group(1)] += 1
	if got != {"getppid": 50, "getpid": 50}:
	    sys.exit("events with their chain: %s, not 50 each" % got)
	print("50 getppid and 50 getpid events, each with its chain")
	PY
}
