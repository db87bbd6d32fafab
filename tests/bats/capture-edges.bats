#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Edges of a capture on this kernel no other test reached (issue 50): the
# permissions record -o gives its file, the perf source's own threads
# left out of a system-wide trace.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	capture_setup
}

teardown() {
	[ -z "${PID:-}" ] || kill -INT "$PID" 2>/dev/null || true
	release_held
	instance_teardown
}

@test "record -o creates its file as a shell redirection would: 0666 less the umask" {
	local mask

	for mask in 022 027 077 000; do
		rm -f "$TMP/t.dat" "$TMP/shell"
		(umask "$mask" && : > "$TMP/shell" &&
			"$USTACK" record -q -B "$NAME" -o "$TMP/t.dat" \
				-e syscalls:sys_enter_getppid -- "$PROGS/deep" 1)
		echo "umask $mask: $(stat -c %a "$TMP/t.dat"), the shell's $(stat -c %a "$TMP/shell")"
		[ "$(stat -c %a "$TMP/t.dat")" = "$(stat -c %a "$TMP/shell")" ]
	done
	assert_no_instance "$NAME"
}

@test "record -o a dangling symlink: refused in one line before tracing, the link kept, nothing made where it points" {
	ln -s "$TMP/target.dat" "$TMP/link.dat"
	run --separate-stderr "$USTACK" record -q -B "$NAME" -o "$TMP/link.dat" \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 1
	echo "$status: $stderr"
	[ "$status" -eq 1 ]
	[ "$stderr" = "trace-cmd ustack: cannot write $TMP/link.dat: No such file or directory" ]
	[ -L "$TMP/link.dat" ]
	[ "$(readlink "$TMP/link.dat")" = "$TMP/target.dat" ]
	[ ! -e "$TMP/target.dat" ]
	assert_no_instance "$NAME"
}

# io_calls TID: the read and write system calls thread TID of the tool made
io_calls() {
	awk '/^sysc[rw]:/ { n += $2 } END { print n + 0 }' "/proc/$PID/task/$1/io" 2>/dev/null
}

# threads_called: every thread of the tool but its main one made a read or
# write system call since they were counted (BEFORE)
threads_called() {
	local tid

	for tid in "${!BEFORE[@]}"; do
		[ "$(io_calls "$tid")" -gt "${BEFORE[$tid]}" ] || return 1
	done
}

# is_stopped PID: PID is in state T (stopped by a signal)
is_stopped() {
	[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = T ]
}

@test "perf source, system-wide: the tool's own threads are left out, whichever makes the calls" {
	local tid tool deep
	declare -A BEFORE

	local mark=$BATS_TEST_TMPDIR/held own='comm == "trace-cmd-ustac"'

	[ -e /proc/self/io ] || skip "no /proc/PID/io (CONFIG_TASK_IO_ACCOUNTING)"
	# another process's calls: its pid is known before the record starts
	# (a shell that stops itself, then execs it), held alive until the
	# run has ended
	USTACK_PROGS_HOLD="$mark" sh -c 'kill -STOP $$; exec "$0" 2' \
		"$PROGS/deep" > /dev/null &
	deep=$!
	HELD=$deep
	poll_until 30 is_stopped "$deep"
	# kernel filters keep the rings for that process and for processes
	# named as the tool (its threads keep its name): other test runs'
	# floods of these calls beside this one cannot overflow them; the
	# tool's own threads still reach the rings, and it must drop them
	"$USTACK" record -q -B "$NAME" --stack-source=perf --call-graph=fp \
		-o "$TMP/sw.dat" \
		-e syscalls:sys_enter_getppid -f "common_pid == $deep" \
		-e syscalls:sys_enter_read -f "$own" \
		-e syscalls:sys_enter_write -f "$own" \
		-e syscalls:sys_enter_splice -f "$own" \
		-e syscalls:sys_enter_poll -f "$own" 2>"$TMP/err" &
	PID=$!
	wait_tracing "$NAME" syscalls/sys_enter_getppid
	# the tool's reader threads, each until it has made a call traced
	for tid in $(ls "/proc/$PID/task"); do
		[ "$tid" = "$PID" ] || BEFORE[$tid]=$(io_calls "$tid")
	done
	[ "${#BEFORE[@]}" -gt 0 ]
	poll_until 30 threads_called
	kill -CONT "$deep"
	poll_until 30 test -e "$mark"
	kill -INT "$PID"
	wait "$PID"
	tool=$PID
	PID=
	release_held
	run --separate-stderr "$USTACK" report -q -i "$TMP/sw.dat" --folded -P "$tool"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# the trace holds the other process's calls
	run --separate-stderr "$USTACK" report -q -i "$TMP/sw.dat" --folded -P "$deep"
	echo "$output"
	grep -q '^deep;.*chain_20 2$' <<< "$output"
}
