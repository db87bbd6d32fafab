#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# A traced task stuck on a hung file system must not stop tracefs. On a
# version 3 kernel the unwind callback read the build id of a file of the
# stack, which can wait for good on a hung network or FUSE file system;
# a version 4 kernel reads no file for stacks or mapping records (the
# build id comes from the page cache only), so the task is held in a
# read of its own, a page fault on its mapping of the file. Here the file
# system is a real one, FUSE, served by tests/progs/kernel/khang, which
# never answers a read.
# Run inside tests/vm (the kernel needs CONFIG_FUSE_FS, see
# tests/vm/config/tiny.config).

load ../helpers

KHANG="$ROOT/tests/progs/kernel/khang"

setup() {
	require_deferred
	[ -x "$KHANG" ] || skip "tests/progs/kernel/khang not built (make)"
	grep -qw fuse /proc/filesystems || {
		echo "the kernel has no FUSE (CONFIG_FUSE_FS)" >&2
		return 1
	}
	KI="$TRACEFS/instances/khang-$$-$BATS_TEST_NUMBER"
	K2="$TRACEFS/instances/khang2-$$-$BATS_TEST_NUMBER"
	MNT="$BATS_TEST_TMPDIR/fuse"
	MARK="$BATS_TEST_TMPDIR/read-held"
	mkdir "$MNT"
}

teardown() {
	# The held read fails once the server is gone: everything goes on
	[ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null
	[ -n "${SERVER:-}" ] && wait "$SERVER" 2>/dev/null
	[ -n "${CALLER:-}" ] && wait "$CALLER" 2>/dev/null
	[ -n "${OPS:-}" ] && wait "$OPS" 2>/dev/null
	umount -l "$MNT" 2>/dev/null
	for d in "$KI" "$K2"; do
		[ -d "$d" ] && rmdir "$d"
	done
	true
}

gone() {
	! kill -0 "$1" 2>/dev/null
}

# A task of khang held reading $MNT/f: its getppid is traced with deferred
# stacks and inode_cache in $KI, and its stack has a frame in that file,
# which it maps executable (its mapping record) and then reads
hold_a_traced_task() {
	"$KHANG" serve "$MNT" "$MARK" &
	SERVER=$!
	poll_until 30 test -e "$MNT/f"
	mkdir "$KI"
	echo 1 > "$KI/options/userstacktrace_delay"
	echo 1 > "$KI/events/inode_cache/inode_cache/enable"
	echo 1 > "$KI/events/syscalls/sys_enter_getppid/enable"
	"$KHANG" fault "$MNT/f" &
	CALLER=$!
	# The task is reading the file and will not come back
	poll_until 60 test -e "$MARK"
}

@test "kernel-hang: an instance whose traced task is stuck reading a hung FUSE file is removed at once" {
	hold_a_traced_task
	rmdir "$KI" &
	OPS=$!
	if ! poll_until 60 gone $OPS; then
		echo "rmdir of the instance still waits for the stuck task" >&2
		return 1
	fi
	wait $OPS
	[ ! -d "$KI" ]
	# It was removed while the task was still stuck
	kill -0 "$CALLER"
}

@test "kernel-hang: tracefs goes on while a traced task is stuck reading a hung FUSE file" {
	hold_a_traced_task
	# The stuck task's mapping was recorded when it was made, unread
	grep "inode_cache: .*tgid=$CALLER " "$KI/trace" || true
	grep -q "inode_cache: .*tgid=$CALLER .*path=$(readlink -f "$MNT")/f\$" "$KI/trace"
	# Each of these takes event_mutex or trace_types_lock, or both; the
	# dump of user_unwind_maps takes the stuck task's mmap lock too
	(
		echo 1 > "$KI/user_unwind_maps" &&
		rmdir "$KI" &&
		mkdir "$K2" &&
		echo 1 > "$K2/options/userstacktrace_delay" &&
		echo 1 > "$K2/events/syscalls/sys_enter_getppid/enable" &&
		echo 0 > "$K2/options/userstacktrace_delay" &&
		echo 0 > "$K2/tracing_on" &&
		cat "$K2/trace" > /dev/null &&
		rmdir "$K2" &&
		cat "$TRACEFS/trace_options" > /dev/null
	) &
	OPS=$!
	if ! poll_until 60 gone $OPS; then
		echo "tracefs operations wait for the stuck task" >&2
		return 1
	fi
	wait $OPS
	[ ! -d "$KI" ] && [ ! -d "$K2" ]
	kill -0 "$CALLER"
}
