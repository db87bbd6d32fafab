#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Errors of the run itself said as themselves (issue 44, finding 9):
# a write error on the standard output (a full disk, an I/O error) once,
# with exit 1, while a closed pipe (| head) ends the run quietly, as it
# ends cat or perf report; a resolver out of file descriptors names
# EMFILE, not "no file".

bats_require_minimum_version 1.5.0
load helpers

setup() {
	perf_host_setup
	"$USTACK" record -B "$NAME" -q -o "$TMP/r.dat" -e syscalls:sys_enter_getppid \
		-- "$PROGS/burst/burst" 1 3000 0 >/dev/null
}

teardown() {
	instance_teardown
}

@test "output errors: report to a full device says 'No space left on device' in one line, exit 1 (it said nothing)" {
	run --separate-stderr "$USTACK" report -q -i "$TMP/r.dat" --folded
	[ "$status" -eq 0 ] && [ -n "$output" ]
	run bash -c '"$1" report -q -i "$2" >/dev/full' _ "$USTACK" "$TMP/r.dat"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "trace-cmd ustack: cannot write the standard output: No space left on device" ]
}

@test "output errors: live stacks to a full device are said the same way" {
	run bash -c '"$1" -B "$2" -q -e syscalls:sys_enter_getppid -- "$3" 5 >/dev/full' \
		_ "$USTACK" "$NAME" "$PROGS/deep"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"trace-cmd ustack: cannot write the standard output: No space left on device"* ]]
}

@test "output errors: a closed pipe ends report quietly (nothing on stderr), exit 1" {
	# thousands of stacks of 14 frames: far more than a pipe holds, so the write fails
	run bash -c 'set -o pipefail; "$1" report -q -i "$2" 2>"$3" | head -1 >/dev/null' \
		_ "$USTACK" "$TMP/r.dat" "$TMP/err"
	[ "$status" -eq 1 ]
	[ ! -s "$TMP/err" ]
}

@test "output errors: out of file descriptors, frames say so (not 'no file') and one warning names EMFILE" {
	local n seen=0

	# the descriptors the libraries need first vary: every limit from
	# the least that opens the file up to plenty is tried
	for n in $(seq 6 40); do
		run --separate-stderr bash -c 'ulimit -n $3; exec "$1" report -i "$2" --why' \
			_ "$USTACK" "$TMP/r.dat" "$n"
		[ "$status" -eq 0 ] || continue
		# never a frame that blames the file for the process's limit
		[[ "$output" != *"# no file"* ]]
		[[ "$output" == *"# out of file descriptors or memory"* ]] || continue
		[ "$(grep -c 'Too many open files' <<<"$stderr")" -eq 1 ]
		[[ "$stderr" == *"(out of file descriptors or memory "* ]]
		seen=$((seen + 1))
	done
	[ "$seen" -gt 0 ]
}
