#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Smoke test of the test VM itself; run it with
#   tests/vm/run -- bats tests/vm/selftest.bats

setup() {
	[ "${USTACK_VM:-}" = 1 ] || skip "not inside tests/vm/run"
}

@test "running as PID 1's child in the VM, as root" {
	[ "$(id -u)" = 0 ]
	[ "$(cat /proc/1/comm)" = guest-init ]
}

@test "root filesystem is read-only 9p" {
	run awk '$2 == "/" { print $3, $4 }' /proc/mounts
	[[ "$output" == 9p\ ro* ]]
	! touch /ustack-vm-probe 2>/dev/null
}

@test "scratch directories are writable tmpfs" {
	for d in /tmp /run /var/tmp /root /dev/shm; do
		[ "$(stat -f -c %T "$d")" = tmpfs ]
		echo ok > "$d/probe"
	done
}

@test "tracefs is mounted with syscall events" {
	[ "$(stat -f -c %T /sys/kernel/tracing)" = tracefs ]
	[ -r /sys/kernel/tracing/events/syscalls/sys_enter_openat/format ]
}

@test "kernel has the deferred user unwinder" {
	# CONFIG_UNWIND_USER (kernel/unwind/deferred.c) is built in.
	grep -qw unwind_deferred_request /proc/kallsyms
}

@test "per-run host share is writable" {
	[ -d "$USTACK_HOSTIO" ]
	echo ok > "$USTACK_HOSTIO/selftest-probe"
	[ "$(cat "$USTACK_HOSTIO/selftest-probe")" = ok ]
}

@test "a private tracefs instance can be created and removed" {
	inst=/sys/kernel/tracing/instances/vm-selftest-$$
	mkdir "$inst"
	echo 1 > "$inst/events/syscalls/sys_enter_getpid/enable"
	echo 1 > "$inst/tracing_on"
	perl -e 'syscall(39)' 2>/dev/null || bash -c 'true'
	echo 0 > "$inst/tracing_on"
	rmdir "$inst"
}
