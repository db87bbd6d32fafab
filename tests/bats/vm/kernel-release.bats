#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# What deferred user stacks hold on to, and which entries get a cookie
# (kernel-patches/, Documentation/kernel-abi.md version 3). The kernel's
# own allocator events (kmem:kmem_cache_alloc/free, kmem:kmalloc) are
# recorded in a second instance and show, by pointer and call site, what
# the unwinder allocates and lets go: nothing here is timed or counted
# from /proc, which other activity would move. Run inside tests/vm.

load ../helpers

KALT="$ROOT/tests/progs/kernel/kalt"

setup() {
	require_deferred
	[ -x "$KALT" ] || skip "tests/progs/kernel/kalt not built (make)"
	KI="$TRACEFS/instances/krel-$$-$BATS_TEST_NUMBER"
	KW="$TRACEFS/instances/krelw-$$-$BATS_TEST_NUMBER"
}

CPU1=/sys/devices/system/cpu/cpu1/online

teardown() {
	# a test that took CPU 1 offline and failed before bringing it back
	if [ "$(cat "$CPU1" 2>/dev/null)" = 0 ]; then
		echo 1 > "$CPU1"
	fi
	for d in "${KI:-}" "${KW:-}"; do
		if [ -n "$d" ] && [ -d "$d" ]; then
			echo nop > "$d/current_tracer" 2>/dev/null
			rmdir "$d"
		fi
	done
	true
}

# kwatch EVENT FILTER: record kmem:EVENT, filtered, in the watcher instance
kwatch() {
	[ -d "$KW" ] || mkdir "$KW"
	echo "$2" > "$KW/events/kmem/$1/filter"
	echo 1 > "$KW/events/kmem/$1/enable"
}

# A traced run of kalt in $KI, its events only, on the CPUs of
# $KCPUS (default all); its pid in $KPID
kalt_traced() {
	echo $$ > "$KI/set_event_pid"
	taskset -c "${KCPUS:-0-1}" "$KALT" "$KI/set_event_pid" 20 &
	KPID=$!
	wait $KPID
}

# kstacks: $KPID's events got their deferred stacks in $KI
kstacks() {
	grep -q -- "-$KPID .*<user stack unwind> cookie=" "$KI/trace"
}

# The hashed pointer of the mm_struct $KPID's last execve (taskset's,
# then kalt's) allocated
exec_mm() {
	sed -n "s/^.*-$KPID \+\[.*kmem_cache_alloc: call_site=mm_alloc+.* ptr=\([0-9a-f]*\) .*/\1/p" \
		"$KW/trace" | tail -1
}

# mm_freed PTR: the watcher saw the mm_struct at PTR freed after $KPID's
# execve allocated it (the address may have been used before)
mm_freed() {
	# An idle CPU may still borrow the dead mm (lazy TLB) until a
	# task with an mm runs there
	taskset -c 0 true 2>/dev/null
	taskset -c 1 true 2>/dev/null
	awk -v me="-$KPID " -v ptr="ptr=$1 " '
		index($0, me) && /kmem_cache_alloc: call_site=mm_alloc+/ && index($0, ptr) { ours = 1; found = 0; next }
		ours && /kmem_cache_free: / && index($0, ptr) { found = 1 }
		END { exit !found }' "$KW/trace"
}

# The announcement tables made: large allocations of the unwinder's code
tables() {
	grep -c 'kmalloc: call_site=[a-z_]*unwind[a-z_]*+' "$KW/trace" || true
}

# keep_mm_then CMD...: a traced kalt leaves its mm in a CPU's mapping
# cache; after it exits, CMD must let that mm go
keep_mm_then() {
	kwatch kmem_cache_alloc 'name == "mm_struct"'
	kwatch kmem_cache_free 'name == "mm_struct"'
	mkdir "$KI"
	echo 1 > "$KI/options/userstacktrace_delay"
	echo 1 > "$KI/events/syscalls/sys_enter_getppid/enable"
	kalt_traced
	poll_until 30 kstacks
	mm=$(exec_mm)
	[ -n "$mm" ] || { echo "no mm_struct allocation of kalt ($KPID) seen" >&2; return 1; }
	# Held by the cache, and only by it, until then: else this proves nothing
	if mm_freed "$mm"; then
		echo "the mm of kalt ($mm) was not kept by a mapping cache" >&2
		cat "$KW/trace" "$KI/trace" >&2
		return 1
	fi
	"$@"
	if ! poll_until 20 mm_freed "$mm"; then
		echo "the mm of kalt ($mm) is still held after: $*" >&2
		grep -- "ptr=$mm" "$KW/trace" >&2
		return 1
	fi
}

@test "kernel-release: clearing userstacktrace_delay lets the mapping cache's mm go" {
	keep_mm_then eval 'echo 0 > "$KI/options/userstacktrace_delay"'
}

@test "kernel-release: removing the instance lets the mapping cache's mm go" {
	keep_mm_then rmdir "$KI"
}

@test "kernel-release: a CPU going offline lets its mapping cache's mm go" {
	[ -w "$CPU1" ] || skip "CPU 1 cannot go offline here"
	# kalt's stacks, and so its mm, on CPU 1's cache only
	KCPUS=1
	keep_mm_then eval 'echo 0 > "$CPU1"'
	echo 1 > "$CPU1"
}

@test "kernel-release: an instance makes no table of its own, with inode_cache or without (version 4 writes mapping records)" {
	kwatch kmalloc 'bytes_req > 32768'
	mkdir "$KI"
	echo 1 > "$KI/options/userstacktrace_delay"
	echo 1 > "$KI/events/syscalls/sys_enter_getppid/enable"
	kalt_traced
	poll_until 30 kstacks
	[ "$(tables)" = 0 ] || {
		grep kmalloc: "$KW/trace" >&2
		echo "a table was made without inode_cache" >&2
		return 1
	}
	# version 3 made its announcement table here, at the first stack
	echo 1 > "$KI/events/inode_cache/inode_cache/enable"
	kalt_traced
	poll_until 30 kstacks
	[ "$(tables)" = 0 ] || {
		grep kmalloc: "$KW/trace" >&2
		echo "a table was made with inode_cache" >&2
		return 1
	}
}

@test "kernel-release: mapping records stop when the option is cleared and come back when it is set again" {
	mkdir "$KI"
	echo 1 > "$KI/options/userstacktrace_delay"
	echo 1 > "$KI/events/inode_cache/inode_cache/enable"
	echo 0 > "$KI/options/userstacktrace_delay"
	/bin/true &
	off=$!
	wait $off
	echo 1 > "$KI/options/userstacktrace_delay"
	/bin/true &
	on=$!
	wait $on
	echo 0 > "$KI/tracing_on"
	cat "$KI/trace" > "$BATS_TEST_TMPDIR/trace"
	# nothing for the process mapped while the option was clear
	[ "$(grep -c "inode_cache: .*tgid=$off " "$BATS_TEST_TMPDIR/trace")" -eq 0 ]
	grep -q "inode_cache: .*tgid=$on .*path=.*libc" "$BATS_TEST_TMPDIR/trace"
}

# The reader of a FIFO at nice -20, woken by a shell at nice 0 writing
# to it: the wakeup tracer's entry of that wakeup is made by the writer.
# Both on CPU 0: a reader asleep on the other CPU is woken through an
# IPI, and the entry is then the idle task's (sched_ttwu_pending).
wake_a_reader() {
	local fifo=$BATS_TEST_TMPDIR/fifo

	rm -f "$fifo"
	mkfifo "$fifo"
	nice -n -20 taskset -c 0 head -c 1 "$fifo" > /dev/null &
	local reader=$!
	poll_until 30 grep -q '^State:.*S' "/proc/$reader/status"
	echo 0 > "$KI/tracing_max_latency"
	taskset -c 0 sh -c 'echo x > "$1"' sh "$fifo" &
	WRITER=$!
	wait $WRITER $reader
}

# woke_with_cookie: the latency trace has the writer's wakeup entry, and
# the cookie of the writer right behind it
woke_with_cookie() {
	wake_a_reader
	cat "$KI/trace" > "$BATS_TEST_TMPDIR/trace"
	awk -v me="-$WRITER " '
		index($0, me) && / \+ \[/ { woke = 1; next }
		woke { if (index($0, me) && /<user unwind cookie> cookie=/) found = 1; woke = 0 }
		END { exit !found }' "$BATS_TEST_TMPDIR/trace"
}

@test "kernel-release: the wakeup tracer's wakeup entry made by a user task gets its cookie" {
	grep -qw wakeup "$TRACEFS/available_tracers" ||
		skip "no wakeup tracer in this kernel (CONFIG_SCHED_TRACER: the debug kernel)"
	mkdir "$KI"
	echo 1 > "$KI/options/userstacktrace_delay"
	echo 0 > "$KI/options/function-trace" 2>/dev/null || true
	echo wakeup > "$KI/current_tracer"
	# Another task's wakeup may set a higher maximum meanwhile: a few tries
	local i
	for ((i = 0; i < 5; i++)); do
		woke_with_cookie && return 0
	done
	echo "no wakeup entry of the writer ($WRITER) followed by its cookie:" >&2
	cat "$BATS_TEST_TMPDIR/trace" >&2
	return 1
}
