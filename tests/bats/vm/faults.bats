#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Reliability on the patched kernel (issue 12): ring-buffer overruns on
# both paths with every printed stack checked against its event, runs
# beside other runs and beside stock trace-cmd, and the instance of a
# SIGKILLed deferred run. The workload is tests/progs/workers: threads
# of several processes, each with a call chain of its own and two system
# calls, so that the stack of any event is known from its task and its
# system call (tests/bats/vm/workers-check.py checks them all).
#
# Nothing waits a fixed time: the workers wait for files the test
# creates and say where they are in files of their own; an overrun is
# made certain by stopping the reader (SIGSTOP) while the workers run.

bats_require_minimum_version 1.5.0
load ../helpers

WORKERS="$PROGS/workers"
CHECK="$ROOT/tests/bats/vm/workers-check.py"
EVENTS=(-e syscalls:sys_enter_getppid -e syscalls:sys_enter_getuid)

setup() {
	require_deferred
	for p in "$WORKERS" "$PROGS/deep" "$PROGS/burst/burst"; do
		[ -x "$p" ] || skip "run make on the host first ($p missing)"
	done
	TMP="$(mktemp -d)"
	BG_PIDS=()
	KEEP=
}

teardown() {
	local p

	# runs a failed test left behind: let them go on, then stop them
	# the way ^C does
	for p in "${BG_PIDS[@]}"; do
		kill -CONT "$p" 2>/dev/null || true
		kill -INT "$p" 2>/dev/null && wait "$p" || true
	done
	[ -z "${ORPHAN:-}" ] || kill -9 "$ORPHAN" 2>/dev/null || true
	[ -z "$KEEP" ] || rmdir "$TRACEFS/instances/$KEEP" 2>/dev/null || true
	rm -rf "${TMP:-/nonexistent}"
}

# wait_lines FILE N: wait (up to 10 min: the workload runs under TCG) until
# FILE has N lines
wait_lines() {
	local i

	for i in $(seq 1 6000); do
		[ "$(cat "$1" 2>/dev/null | wc -l)" -ge "$2" ] && return 0
		sleep 0.1
	done
	echo "$1 never got $2 lines" >&2
	return 1
}

wait_file() {
	local i

	for i in $(seq 1 6000); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	echo "$1 never appeared" >&2
	return 1
}

# overrun + dropped events of every CPU of instance $1
instance_lost() {
	cat "$TRACEFS/instances/$1"/per_cpu/cpu*/stats |
		awk '/^overrun:/ || /^dropped events:/ { n += $NF } END { print n + 0 }'
}

# summary_value TEXT LABEL: the number after "LABEL:" in a summary
summary_value() {
	sed -n "s/^  $2: *\([0-9]*\).*/\1/p" <<< "$1"
}

# overrun_run WORKDIR ARGS...: trace-cmd ustack ARGS with -b 4, following
# tests/progs/workers in WORKDIR (2 processes, 4 threads, $CALLS iterations
# twice). The first half runs with the reader running, the second with
# the reader stopped: the 4 KiB buffers overrun then whatever the speed
# of either side. Sets STOPPED_LOST (the instance's losses while the
# reader was stopped, from tracefs) and the run's status; stdout and
# stderr in WORKDIR/out and WORKDIR/err.
overrun_run() {
	local w="$1" pid
	shift

	mkdir -p "$w"
	"$USTACK" "$@" -c -b 4 "${EVENTS[@]}" -- "$WORKERS" "$w" 0 2 "$CALLS" hold \
		> "$w/out" 2> "$w/err" &
	pid=$!
	BG_PIDS=("$pid")
	# the command is held until tracing is on: its threads write pids after
	wait_lines "$w/pids" 4
	touch "$w/go"
	wait_lines "$w/half" 4
	kill -STOP "$pid"
	touch "$w/go2"
	wait_file "$w/done"
	STOPPED_LOST=$(instance_lost "ustack-$pid")
	kill -CONT "$pid"
	status=0
	wait "$pid" || status=$?
	BG_PIDS=()
	assert_no_instance "ustack-$pid"
}

# check_stacks WORKDIR STACKS SUMMARY: every stack of STACKS is its
# event's (workers-check.py), thousands of them, and the summary counts
# ring-buffer losses
check_stacks() {
	local w="$1" stacks="$2" summary="$3" checked

	run "$CHECK" "$w/pids" "$stacks"
	echo "$output"
	[ "$status" -eq 0 ]
	checked=$(sed -n 's/^checked //p' <<< "$output")
	[ "$checked" -ge 2000 ]
	echo "$summary"
	[ "$(summary_value "$summary" "ring-buffer losses")" -gt 0 ]
}

@test "overrun, deferred, live, -b 4: losses counted and reported, every printed stack is its event's" {
	CALLS=4000
	overrun_run "$TMP/w"
	[ "$status" -eq 0 ]
	echo "lost in tracefs while the reader was stopped: $STOPPED_LOST"
	[ "$STOPPED_LOST" -gt 0 ]
	[[ "$(cat "$TMP/w/err")" != *"no deferred user stacks"* ]]
	check_stacks "$TMP/w" "$TMP/w/out" "$(cat "$TMP/w/err")"
}

@test "overrun, deferred, record + report, -b 4: losses counted in the file, every stack is its event's" {
	CALLS=4000
	overrun_run "$TMP/w" record -o "$TMP/t.dat"
	[ "$status" -eq 0 ]
	echo "lost in tracefs while the reader was stopped: $STOPPED_LOST"
	[ "$STOPPED_LOST" -gt 0 ]
	cat "$TMP/w/err"
	[ "$(summary_value "$(cat "$TMP/w/err")" "ring-buffer losses")" -gt 0 ]
	"$USTACK" report -i "$TMP/t.dat" > "$TMP/stacks" 2> "$TMP/summary"
	check_stacks "$TMP/w" "$TMP/stacks" "$(cat "$TMP/summary")"
}

@test "overrun, --fallback, live, -b 4: losses counted and reported, every printed stack is its event's" {
	CALLS=4000
	overrun_run "$TMP/w" --fallback
	[ "$status" -eq 0 ]
	echo "lost in tracefs while the reader was stopped: $STOPPED_LOST"
	[ "$STOPPED_LOST" -gt 0 ]
	[[ "$(cat "$TMP/w/err")" == *"no deferred user stacks"* ]] ||
		[[ "$(cat "$TMP/w/err")" == *"fallback"* ]]
	check_stacks "$TMP/w" "$TMP/w/out" "$(cat "$TMP/w/err")"
}

@test "overrun, --fallback, record + report, -b 4: losses counted in the file, every stack is its event's" {
	CALLS=4000
	overrun_run "$TMP/w" record --fallback -o "$TMP/t.dat"
	[ "$status" -eq 0 ]
	echo "lost in tracefs while the reader was stopped: $STOPPED_LOST"
	[ "$STOPPED_LOST" -gt 0 ]
	cat "$TMP/w/err"
	[ "$(summary_value "$(cat "$TMP/w/err")" "ring-buffer losses")" -gt 0 ]
	"$USTACK" report -i "$TMP/t.dat" > "$TMP/stacks" 2> "$TMP/summary"
	check_stacks "$TMP/w" "$TMP/stacks" "$(cat "$TMP/summary")"
}
