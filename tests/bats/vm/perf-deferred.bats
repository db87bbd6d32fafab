#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The perf stack source with deferred user callchains
# (perf_event_attr.defer_callchain, Linux 6.19; the VM's 7.3 has it),
# forced with --stack-source=perf on the patched kernel, run inside the
# VM (tests/vm/run -- bats tests/bats/vm/perf-deferred.bats): each sample
# names a cookie, its user stack comes in a PERF_RECORD_CALLCHAIN_DEFERRED
# record, and the session pairs them. On any other kernel every test is
# skipped with the reason.

bats_require_minimum_version 1.5.0
load ../helpers

setup() {
	deferred_setup "$PROGS" deep threads
}

teardown() {
	instance_teardown
}

ustack() {
	"$USTACK" -B "$NAME" -q --stack-source=perf -e syscalls:sys_enter_getppid "$@"
}

# The summary on stderr: N stacks paired by cookie, none synchronous
all_deferred() {
	[[ "$stderr" == *"user stacks matched:  $1"$'\n'* ]] || { echo "$stderr"; return 1; }
	[[ "$stderr" != *"fallback stacks:"* ]] || { echo "$stderr"; return 1; }
}

@test "perf deferred: the notice says deferred, every sample's cookie answered" {
	run --separate-stderr "$USTACK" -B "$NAME" --stack-source=perf \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 3
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"--stack-source=perf: stacks from perf events, deferred"* ]]
	[[ "$stderr" == *"events:               3"* ]]
	[[ "$stderr" == *"user stacks matched:  3"* ]]
	[[ "$stderr" == *"stacks lost:          0"* ]]
	[[ "$stderr" == *"truncated stacks:     0"* ]]
}

@test "perf deferred: the deep chain has all 20 frames then main, counted exactly" {
	run --separate-stderr "$USTACK" -B "$NAME" --stack-source=perf \
		-e syscalls:sys_enter_getppid --folded -- "$PROGS/deep" 3
	[ "$status" -eq 0 ]
	all_deferred 3
	want="$(deep_chain 20 | tac | paste -sd';')"
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "deep;"*"main;$want 3" ]]
}

@test "perf deferred: threads keep their own chains, counted exactly" {
	run --separate-stderr "$USTACK" -B "$NAME" --stack-source=perf \
		-e syscalls:sys_enter_getppid --folded -- "$PROGS/threads" 3
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"fallback stacks:"* ]]
	[[ "$stderr" == *"stacks lost:          0"* ]]
	for x in alpha beta gamma; do
		grep -q "${x}_thread;${x}_1;${x}_2;leaf_syscall 3\$" <<< "$output" ||
			{ echo "no $x chain"; return 1; }
	done
}

@test "perf deferred: record counts each deferred stack it writes unread, then report gives live's stacks" {
	ustack --folded -- "$PROGS/deep" 4 >"$TMP/live"
	run --separate-stderr "$USTACK" record -B "$NAME" --stack-source=perf -o "$TMP/t.dat" \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 4
	[ "$status" -eq 0 ]
	[[ "$stderr" == *$'\n'"  samples:              4 (events with their stacks)"$'\n'"  deferred stacks:      4"$'\n'* ]] ||
		{ echo "$stderr"; false; }
	run --separate-stderr "$USTACK" report -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	all_deferred 4
	[ -s "$TMP/live" ]
	diff -u "$TMP/live" <(printf '%s\n' "$output")
}
