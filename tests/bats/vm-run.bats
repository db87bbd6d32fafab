#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# tests/vm/run's handling of kernel reports: which report is the known
# boot-time false positive (tests/vm/kernel-reports, tests/vm/README.md
# "Boot-time reports"), and that run boots again on it before the
# command runs, and on nothing else.
#
# The log is a real console of the debug kernel that logged the false
# positive (tests/data/vm/boot-kasan-la57.log); the variants change one
# thing in it each.  The boot tests run the tiny kernel, which has no
# KASAN: the report is written into its kernel log through /dev/kmsg
# (USTACK_VM_INJECT_BOOT_REPORT), where guest-init reads it as it would
# read the kernel's own, since the real one comes in about one boot in
# four only.

bats_require_minimum_version 1.5.0
load helpers

REPORTS="$ROOT/tests/vm/kernel-reports"
LOG="$DATA/vm/boot-kasan-la57.log"

# known VARIANT-FILE: the status of known-boot on it
known() {
	run "$REPORTS" known-boot "$1"
	echo "known-boot: $status"
}

# vary SED-SCRIPT: the log with one change, in $BATS_TEST_TMPDIR/log
vary() {
	sed "$1" "$LOG" > "$BATS_TEST_TMPDIR/log"
	if cmp -s "$LOG" "$BATS_TEST_TMPDIR/log"; then echo "sed '$1' changed nothing"; return 1; fi
}

# The KASAN report alone, as the lines to write into a kernel log
report_block() {
	tr -d '\r' < "$LOG" | sed -n '/^BUG: KASAN:/,/^=====/p' | grep -v '^$'
}

@test "vm-run: the debug kernel's identify_cpu KASAN report at boot is the known false positive" {
	known "$LOG"
	[ "$status" -eq 0 ]
}

@test "vm-run: known-boot reads dmesg's [seconds] prefixes too" {
	tr -d '\r' < "$LOG" | sed 's/^/[    1.234567] /' > "$BATS_TEST_TMPDIR/log"
	known "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 0 ]
}

@test "vm-run: an address with shadow under 4-level paging too is not the false positive" {
	vary 's/at addr ff110000001710a8/at addr ffff8880001710a8/'
	known "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 1 ]
}

@test "vm-run: a report outside identify_cpu is not the false positive" {
	vary 's/identify_cpu+/setup_arch+/g'
	known "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 1 ]
}

@test "vm-run: identify_cpu as an unreliable '?' frame only is not the false positive" {
	vary 's/^\( \)\(identify_cpu+\)/\1? \2/; s/^RIP: 0010:cpuid_family/RIP: 0010:vprintk/'
	grep -q '^ ? identify_cpu+' "$BATS_TEST_TMPDIR/log"
	known "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 1 ]
}

@test "vm-run: a report by a task other than the boot task is not the false positive" {
	vary 's/by task swapper\/0\/0/by task bash\/71/'
	known "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 1 ]
}

@test "vm-run: a KASAN report of another kind is not the false positive" {
	vary 's/KASAN: wild-memory-access in/KASAN: slab-use-after-free in/'
	known "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 1 ]
}

@test "vm-run: the false positive with any other report beside it is not known" {
	cp "$LOG" "$BATS_TEST_TMPDIR/log"
	echo "WARNING: CPU: 1 PID: 80 at kernel/trace/trace_user_unwind.c:100 f+0x1/0x2" >> "$BATS_TEST_TMPDIR/log"
	known "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 1 ]
}

@test "vm-run: a report cut short before its closing line is not known" {
	# up to the report's closing line (the second line of '=')
	tr -d '\r' < "$LOG" | awk '/^=====/ { n++ } n < 2' > "$BATS_TEST_TMPDIR/log"
	grep -q '^BUG: KASAN' "$BATS_TEST_TMPDIR/log"
	known "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 1 ]
}

@test "vm-run: a log without reports is neither known nor other, and lines finds nothing" {
	tr -d '\r' < "$LOG" | sed '/^=====/,/^=====/d' > "$BATS_TEST_TMPDIR/log"
	[ "$(grep -c KASAN "$BATS_TEST_TMPDIR/log")" -eq 0 ]
	known "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 2 ]
	run "$REPORTS" lines "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
}

@test "vm-run: lines prints the report's lines of the log" {
	run "$REPORTS" lines "$LOG"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "BUG: KASAN: wild-memory-access in do_raw_spin_lock+"* ]]
}

@test "vm-run: a bad mode or file is an error, not a verdict" {
	run "$REPORTS" known-boot /nonexistent/log
	[ "$status" -eq 3 ]
	[[ "$output" == *"cannot read /nonexistent/log"* ]]
	run "$REPORTS" verdict "$LOG"
	[ "$status" -eq 3 ]
}

# --- boots (tiny kernel) ----------------------------------------------------

require_vm() {
	command -v qemu-system-x86_64 > /dev/null || skip "no qemu-system-x86_64 (tests/vm/install-deps)"
	[ -r /usr/src/linux-source-7.3.tar.xz ] || skip "linux-source-7.3 not installed (tests/vm/install-deps)"
	mkdir -p "$BATS_TEST_TMPDIR/rw"
}

# vm_run ARGS...: tests/vm/run with a command that counts its runs in
# $BATS_TEST_TMPDIR/rw/ran; stderr apart
# --timeout: up to three boots under TCG; beside another test run (load
# 20 and more on 2 CPUs) three took more than the default 600 s
vm_run() {
	run --separate-stderr "$ROOT/tests/vm/run" --timeout 1800 --rw "$BATS_TEST_TMPDIR/rw" "$@" -- \
		sh -c 'echo ran >> "$1"; echo command-output' sh "$BATS_TEST_TMPDIR/rw/ran"
	echo "status $status"
	echo "$output"
	echo "$stderr"
	kept=$(sed -n 's/^run: console log and output kept in //p' <<< "$stderr")
}

teardown() {
	[ -z "${kept:-}" ] || rm -rf "$kept"
}

@test "vm-run: the known false positive before init: booted again, the command runs once, in the second boot" {
	require_vm
	report_block > "$BATS_TEST_TMPDIR/report"
	USTACK_VM_INJECT_BOOT_REPORT=$BATS_TEST_TMPDIR/report vm_run --fail-on-splat
	[ "$status" -eq 0 ]
	[ "$output" = command-output ]
	[ "$(cat "$BATS_TEST_TMPDIR/rw/ran")" = ran ]
	[ "$(grep -c 'booting again' <<< "$stderr")" -eq 1 ]
	[[ "$stderr" == *"run: boot 1: the kernel logged the known boot-time false positive"* ]]
	[[ "$stderr" == *"BUG: KASAN: wild-memory-access"* ]]
	# the first boot's console is kept, with the report; the second's clean
	[ -n "$kept" ]
	grep -q 'BUG: KASAN: wild-memory-access' "$kept/console.boot1.log"
	[ "$(grep -c 'BUG: KASAN' "$kept/console.log")" -eq 0 ]
}

@test "vm-run: the known false positive in every boot: the last boot runs the command and --fail-on-splat fails" {
	require_vm
	report_block > "$BATS_TEST_TMPDIR/report"
	USTACK_VM_INJECT_BOOT_REPORT=$BATS_TEST_TMPDIR/report USTACK_VM_INJECT_BOOTS=3 \
		vm_run --fail-on-splat
	[ "$status" -eq 126 ]
	[ "$(cat "$BATS_TEST_TMPDIR/rw/ran")" = ran ]
	[ "$(grep -c 'booting again' <<< "$stderr")" -eq 2 ]
	[[ "$stderr" == *"run: --fail-on-splat: failing the run"* ]]
	grep -q 'BUG: KASAN: wild-memory-access' "$kept/console.log"
}

@test "vm-run: any other report before init is not booted again: the command runs and --fail-on-splat fails" {
	require_vm
	report_block | sed 's/at addr ff110000001710a8/at addr ffff8880001710a8/' > "$BATS_TEST_TMPDIR/report"
	USTACK_VM_INJECT_BOOT_REPORT=$BATS_TEST_TMPDIR/report vm_run --fail-on-splat
	[ "$status" -eq 126 ]
	[ "$(cat "$BATS_TEST_TMPDIR/rw/ran")" = ran ]
	[[ "$stderr" != *"booting again"* ]]
	grep -q 'at addr ffff8880001710a8' "$kept/console.log"
}

@test "vm-run: the guest's command gets USTACK_CACHE, the cache its kernel came from, and USTACK_VM_KERNEL, the image it booted, with the series' selftests beside it" {
	require_vm
	run --separate-stderr "$ROOT/tests/vm/run" -- sh -c 'echo "cache=${USTACK_CACHE:-unset}"'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "cache=${USTACK_CACHE:-unset}" ]
	# kernel.bats runs the selftests kept with the kernel it runs on,
	# not the cache's source tree, which other builds reset
	image=$("$ROOT/tests/vm/build-kernel" --quiet | tail -n 1)
	run --separate-stderr "$ROOT/tests/vm/run" -- sh -c \
		'echo "$USTACK_VM_KERNEL"; ls "${USTACK_VM_KERNEL%/*}/selftests-ftrace/test.d/user-unwind"'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$image" ]
	[[ "$output" == *execve.tc* ]]
	# set or not here, with one named by the caller it is that one
	run --separate-stderr env USTACK_CACHE="${USTACK_CACHE:-/var/cache/trace-cmd-ustack}" \
		"$ROOT/tests/vm/run" -- sh -c 'echo "cache=${USTACK_CACHE:-unset}"'
	[ "$status" -eq 0 ]
	[ "$output" = "cache=${USTACK_CACHE:-/var/cache/trace-cmd-ustack}" ]
}
