#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Reliability on the patched kernel (issue 12): ring-buffer losses on
# both paths with every printed stack checked against its event, runs
# beside other runs and beside stock trace-cmd, and the instance of a
# SIGKILLed deferred run. The workload is tests/progs/workers: threads
# of several processes, each with a call chain of its own and two system
# calls, so that the stack of any event is known from its task and its
# system call (tests/bats/vm/workers-check.py checks them all).
#
# Nothing waits a fixed time: the workers wait for files the test
# creates and say where they are in files of their own; a loss is
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
	# workers still waiting for a file
	cat "$TMP"/*/pids 2>/dev/null | while read -r tid chain; do
		kill -9 "$tid" 2>/dev/null || true
	done
	[ ! -d "$TRACEFS/instances/ustack-$$" ] || rmdir "$TRACEFS/instances/ustack-$$"
	[ -z "$KEEP" ] || rmdir "$TRACEFS/instances/$KEEP" 2>/dev/null || true
	rm -rf "${TMP:-/nonexistent}"
}

# wait_lines FILE N: wait (up to 10 min: the workload runs under TCG) until
# FILE has N lines
wait_lines() {
	poll_until 600 has_lines "$1" "$2" && return 0
	echo "$1 never got $2 lines" >&2
	return 1
}

has_lines() {
	[ "$(cat "$1" 2>/dev/null | wc -l)" -ge "$2" ]
}

wait_file() {
	poll_until 600 test -e "$1" && return 0
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

# stat_sum INSTANCE LABEL: LABEL ("read events", "overrun", ...) summed
# over the CPUs of INSTANCE
stat_sum() {
	cat "$TRACEFS/instances/$1"/per_cpu/cpu*/stats |
		awk -v l="$2:" 'index($0, l) == 1 { n += $NF } END { print n + 0 }'
}

# wait_stopped PID: every thread of PID is stopped (state T)
wait_stopped() {
	poll_until 30 all_stopped "$1" && return 0
	echo "$1 never stopped" >&2
	return 1
}

all_stopped() {
	! grep -qv '^[0-9]* ([^)]*) [tT] ' /proc/"$1"/task/*/stat
}

# wait_read INSTANCE N: a reader took pages out of INSTANCE ("read
# events" above N)
wait_read() {
	poll_until 30 read_above "$1" "$2" && return 0
	echo "nothing was read from $1" >&2
	return 1
}

read_above() {
	[ "$(stat_sum "$1" "read events")" -gt "$2" ]
}

# loss_run WORKDIR ARGS...: trace-cmd ustack ARGS with -b 4, following
# tests/progs/workers in WORKDIR: 2 processes, 4 threads, $CALLS
# iterations (each a getppid and a getuid) with the reader running, then
# $ROUNDS rounds of $CALLS iterations with the reader stopped (SIGSTOP):
# each round fills the 4 KiB buffers whatever the speed of either side
# (the tool's instance is out of overwrite mode: the newest records are
# dropped), and the reader then takes the full sub-buffers left (it is
# waited for), which the loss comes right after. LOST_ROUNDS counts the
# rounds whose loss (overrun or dropped events) tracefs counted while the
# reader was stopped; the run's exit
# status is in $status, its stdout and stderr in WORKDIR/out and err.
loss_run() {
	local w="$1" pid r inst read lost
	shift

	mkdir -p "$w"
	"$USTACK" "$@" -c -b 4 "${EVENTS[@]}" -- "$WORKERS" "$w" 0 2 "$CALLS" "$ROUNDS" \
		> "$w/out" 2> "$w/err" 3>&- &
	pid=$!
	BG_PIDS=("$pid")
	inst="ustack-$pid"
	# the command is held until tracing is on: its threads write pids after
	wait_lines "$w/pids" 4
	touch "$w/go"
	LOST_ROUNDS=0
	for ((r = 1; r <= ROUNDS; r++)); do
		wait_lines "$w/rounds" $((4 * r))
		kill -STOP "$pid"
		wait_stopped "$pid"
		read=$(stat_sum "$inst" "read events")
		lost=$(instance_lost "$inst")
		touch "$w/go.$r"
		if ((r < ROUNDS)); then
			wait_lines "$w/rounds" $((4 * (r + 1)))
		else
			wait_file "$w/done"
		fi
		[ "$(instance_lost "$inst")" -gt "$lost" ] && LOST_ROUNDS=$((LOST_ROUNDS + 1))
		kill -CONT "$pid"
		((r == ROUNDS)) || wait_read "$inst" "$read"
	done
	status=0
	wait "$pid" || status=$?
	BG_PIDS=()
	assert_no_instance "$inst"
	echo "rounds with a loss while the reader was stopped: $LOST_ROUNDS of $ROUNDS"
	[ "$LOST_ROUNDS" -eq "$ROUNDS" ]
}

# check_stacks WORKDIR STACKS SUMMARY: every stack of STACKS is its
# event's (workers-check.py), and the summary counts ring-buffer losses.
# At least 10 per round are checked: each round leaves at least one full
# 4 KiB sub-buffer that the reader takes, and one holds more than 10
# events with their stacks (about 200 bytes each on the deferred path,
# 100 on the fallback)
check_stacks() {
	local w="$1" stacks="$2" summary="$3" checked

	run "$CHECK" "$w/pids" "$stacks"
	echo "$output"
	[ "$status" -eq 0 ]
	checked=$(sed -n 's/^checked //p' <<< "$output")
	[ "$checked" -ge $((10 * ROUNDS)) ]
	echo "$summary"
	[ "$(summary_value "$summary" "ring-buffer losses")" -gt 0 ]
}

@test "a full buffer, deferred, live, -b 4: losses counted and reported, every printed stack is its event's" {
	CALLS=300 ROUNDS=10
	loss_run "$TMP/w"
	[ "$status" -eq 0 ]
	[[ "$(cat "$TMP/w/err")" != *"no deferred user stacks"* ]]
	check_stacks "$TMP/w" "$TMP/w/out" "$(cat "$TMP/w/err")"
}

@test "a full buffer, deferred, record + report, -b 4: losses counted in the file, every stack is its event's" {
	CALLS=300 ROUNDS=10
	loss_run "$TMP/w" record -o "$TMP/t.dat"
	[ "$status" -eq 0 ]
	cat "$TMP/w/err"
	[ "$(summary_value "$(cat "$TMP/w/err")" "ring-buffer losses")" -gt 0 ]
	"$USTACK" report -i "$TMP/t.dat" > "$TMP/stacks" 2> "$TMP/summary"
	check_stacks "$TMP/w" "$TMP/stacks" "$(cat "$TMP/summary")"
}

@test "a full buffer, --fallback, live, -b 4: losses counted and reported, every printed stack is its event's" {
	CALLS=300 ROUNDS=10
	loss_run "$TMP/w" --fallback
	[ "$status" -eq 0 ]
	[[ "$(cat "$TMP/w/err")" == *"no deferred user stacks"* ]] ||
		[[ "$(cat "$TMP/w/err")" == *"fallback"* ]]
	check_stacks "$TMP/w" "$TMP/w/out" "$(cat "$TMP/w/err")"
}

@test "a full buffer, --fallback, record + report, -b 4: losses counted in the file, every stack is its event's" {
	CALLS=300 ROUNDS=10
	loss_run "$TMP/w" record --fallback -o "$TMP/t.dat"
	[ "$status" -eq 0 ]
	cat "$TMP/w/err"
	[ "$(summary_value "$(cat "$TMP/w/err")" "ring-buffer losses")" -gt 0 ]
	"$USTACK" report -i "$TMP/t.dat" > "$TMP/stacks" 2> "$TMP/summary"
	check_stacks "$TMP/w" "$TMP/stacks" "$(cat "$TMP/summary")"
}

# --- runs beside other runs ------------------------------------------------
# (Two runs with one -B name are reliability.bats's, on the host.)

# tracing_state DIR: the settings of an instance (or the top level) that a
# run could change, one "file:value" per line
tracing_state() {
	(cd "$1" && grep -r . options buffer_size_kb trace_clock tracing_on \
		set_event set_event_pid current_tracer 2>/dev/null | sort)
}

# check_counts CHECK-OUTPUT FIRST-CHAIN LAST-CHAIN CALLS: every chain of
# the range made CALLS getppid and CALLS getuid events, each with its own
# stack, and no other chain shows
check_counts() {
	local want c

	want=$(for ((c = $2; c <= $3; c++)); do echo "w$c ppid $4 uid $4"; done)
	grep '^w' <<< "$1"
	[ "$(grep '^w' <<< "$1")" = "$want" ]
	[ "$(sed -n 's/^checked //p' <<< "$1")" -eq $((($3 - $2 + 1) * 2 * $4)) ]
}

# check_recorded DIR DAT FIRST-CHAIN LAST-CHAIN: the record run whose
# stderr is DIR/err lost nothing, DAT reports no stack lost, every stack
# in it is its worker's (check_counts over the range, CALLS each), and
# stock trace-cmd reads DAT ($output is its report afterwards)
check_recorded() {
	cat "$1/err"
	[[ "$(cat "$1/err")" == *"ring-buffer losses:   0"* ]]
	"$USTACK" report -i "$2" > "$1/stacks" 2> "$1/summary"
	[[ "$(cat "$1/summary")" == *"stacks lost:          0"* ]]
	run "$CHECK" "$1/pids" "$1/stacks"
	[ "$status" -eq 0 ]
	check_counts "$output" "$3" "$4" "$CALLS"
	run trace-cmd report -i "$2"
	[ "$status" -eq 0 ]
}

# A pre-existing instance of the test's: its state must outlive the runs
make_keep() {
	KEEP="ustack-bats-keep-$$"
	mkdir "$TRACEFS/instances/$KEEP"
	echo 1 > "$TRACEFS/instances/$KEEP/events/syscalls/sys_enter_getppid/enable"
	echo 64 > "$TRACEFS/instances/$KEEP/buffer_size_kb"
	tracing_state "$TRACEFS/instances/$KEEP" > "$TMP/keep.before"
	tracing_state "$TRACEFS" > "$TMP/top.before"
}

check_keep() {
	tracing_state "$TRACEFS/instances/$KEEP" > "$TMP/keep.after"
	diff "$TMP/keep.before" "$TMP/keep.after"
	tracing_state "$TRACEFS" > "$TMP/top.after"
	diff "$TMP/top.before" "$TMP/top.after"
	rmdir "$TRACEFS/instances/$KEEP"
	KEEP=
}

@test "two runs at once (live and record) on two workloads: each sees all its events, in its own instance, nothing left" {
	CALLS=300
	make_keep
	mkdir "$TMP/a" "$TMP/b"
	"$USTACK" -c -b 1024 "${EVENTS[@]}" -- "$WORKERS" "$TMP/a" 0 2 "$CALLS" \
		> "$TMP/a/out" 2> "$TMP/a/err" 3>&- &
	a=$!
	"$USTACK" record -c -b 2048 -o "$TMP/b.dat" "${EVENTS[@]}" -- "$WORKERS" "$TMP/b" 2 2 "$CALLS" \
		> "$TMP/b/out" 2> "$TMP/b/err" 3>&- &
	b=$!
	BG_PIDS=("$a" "$b")
	# both are tracing (their commands start then), neither has begun
	wait_lines "$TMP/a/pids" 4
	wait_lines "$TMP/b/pids" 4
	ia="$TRACEFS/instances/ustack-$a"
	ib="$TRACEFS/instances/ustack-$b"
	[ "$(cat "$ia/options/userstacktrace_delay")" = 1 ]
	[ "$(cat "$ib/options/userstacktrace_delay")" = 1 ]
	# (rounded up to whole sub-buffers)
	[ "$(cat "$ia/buffer_size_kb")" -ge 1024 ]
	[ "$(cat "$ia/buffer_size_kb")" -lt 2048 ]
	[ "$(cat "$ib/buffer_size_kb")" -ge 2048 ]
	# each follows its own command only
	[ "$(cat "$ia/set_event_pid")" != "$(cat "$ib/set_event_pid")" ]
	touch "$TMP/a/go" "$TMP/b/go"
	wait "$a"
	wait "$b"
	BG_PIDS=()
	assert_no_instance "ustack-$a"
	assert_no_instance "ustack-$b"
	check_keep

	cat "$TMP/a/err"
	[[ "$(cat "$TMP/a/err")" == *"stacks lost:          0"* ]]
	[[ "$(cat "$TMP/a/err")" == *"ring-buffer losses:   0"* ]]
	run "$CHECK" "$TMP/a/pids" "$TMP/a/out"
	[ "$status" -eq 0 ]
	check_counts "$output" 0 3 "$CALLS"

	check_recorded "$TMP/b" "$TMP/b.dat" 4 7
	[ "$(grep -c 'sys_enter_get\(ppid\|uid\):' <<< "$output")" -eq $((4 * 2 * CALLS)) ]
}

@test "beside stock trace-cmd record -B: each sees all its events, settings stay in their instances, nothing left" {
	CALLS=300
	TC="ustack-bats-tc-$$"
	make_keep
	mkdir "$TMP/a" "$TMP/b" "$TMP/tc"
	"$USTACK" record -c -o "$TMP/a.dat" "${EVENTS[@]}" -- "$WORKERS" "$TMP/a" 0 2 "$CALLS" \
		> "$TMP/a/out" 2> "$TMP/a/err" 3>&- &
	a=$!
	# trace-cmd writes its per-CPU files in the current directory
	(cd "$TMP/tc" && exec trace-cmd record -B "$TC" -b 2048 -C global "${EVENTS[@]}" \
		-o "$TMP/t.dat" -- "$WORKERS" "$TMP/b" 2 2 "$CALLS") > "$TMP/tc.out" 2>&1 3>&- &
	t=$!
	BG_PIDS=("$a" "$t")
	wait_lines "$TMP/a/pids" 4
	wait_lines "$TMP/b/pids" 4
	ia="$TRACEFS/instances/ustack-$a"
	it="$TRACEFS/instances/$TC"
	# ours has the option, trace-cmd's has not; trace-cmd's clock and
	# size stay in its instance, our extra events (inode_cache) in ours
	[ "$(cat "$ia/options/userstacktrace_delay")" = 1 ]
	[ "$(cat "$it/options/userstacktrace_delay")" = 0 ]
	[ "$(cat "$it/options/userstacktrace")" = 0 ]
	[[ "$(cat "$it/trace_clock")" == *"[global]"* ]]
	[[ "$(cat "$ia/trace_clock")" != *"[global]"* ]]
	[ "$(cat "$it/buffer_size_kb")" -ge 2048 ]
	[ "$(cat "$ia/buffer_size_kb")" -lt 2048 ]
	[ "$(cat "$ia/events/inode_cache/inode_cache/enable")" = 1 ]
	[ "$(cat "$it/events/inode_cache/inode_cache/enable")" = 0 ]
	[ "$(sort "$it/set_event")" = "$(printf '%s\n' syscalls:sys_enter_getppid syscalls:sys_enter_getuid)" ]
	touch "$TMP/a/go" "$TMP/b/go"
	wait "$a"
	wait "$t"
	BG_PIDS=()
	assert_no_instance "ustack-$a"
	assert_no_instance "$TC"
	check_keep

	# ours: every event of its workers with its own stack, none lost
	check_recorded "$TMP/a" "$TMP/a.dat" 0 3

	# trace-cmd's (system-wide): every event of each of its workers
	run trace-cmd report -i "$TMP/t.dat"
	[ "$status" -eq 0 ]
	while read -r tid chain; do
		for sc in getppid getuid; do
			n=$(grep -c -- "-$tid *\[[0-9]*\] *[0-9.]*: sys_enter_$sc:" <<< "$output" || true)
			echo "w$chain $sc $n"
			[ "$n" -eq "$CALLS" ]
		done
	done < "$TMP/b/pids"
	# and trace-cmd's instance is not in our file: no stacks of its workers
	! grep -q 'w[4-7]_' "$TMP/a/stacks"
	[ -z "$(ls -A "$TMP/tc")" ]
}

# --- SIGKILL ----------------------------------------------------------------
# reliability.bats checks the instance cleanup on the host (fallback). On
# the deferred path the dead run's instance holds the option (an unwinder
# slot of the kernel) with unwinds of its still running command pending.

@test "SIGKILL, deferred: the next run removes the dead run's instance under load, keeps a live owner's, gets deferred stacks" {
	name="ustack-bats-$$-$BATS_TEST_NUMBER"
	# traced with -P, so that it outlives the killed run and goes on making
	# traced calls in the dead run's instance
	"$PROGS/burst/burst" 1 1000000000 0 > /dev/null 3>&- &
	ORPHAN=$!
	wait_exec "$ORPHAN" burst
	"$USTACK" -q -e syscalls:sys_enter_getppid -P "$ORPHAN" > /dev/null 2>&1 3>&- &
	pid=$!
	BG_PIDS=("$pid")
	wait_tracing "ustack-$pid" syscalls/sys_enter_getppid
	# an instance named as this shell's would be, with the option on: its
	# owner lives
	mkdir "$TRACEFS/instances/ustack-$$"
	echo 1 > "$TRACEFS/instances/ustack-$$/options/userstacktrace_delay"
	kill -9 "$pid"
	wait "$pid" || true
	BG_PIDS=()
	dead="$TRACEFS/instances/ustack-$pid"
	[ "$(cat "$dead/options/userstacktrace_delay")" = 1 ]
	# with no reader left, the dead instance's buffer fills (and, out of
	# overwrite mode as the run left it, drops what comes)
	poll_until 30 grep -qE '^(overrun|dropped events): [1-9]' "$dead"/per_cpu/cpu*/stats || true
	grep -E '^(overrun|dropped events):' "$dead"/per_cpu/cpu*/stats
	grep -qE '^(overrun|dropped events): [1-9]' "$dead"/per_cpu/cpu*/stats
	run --separate-stderr "$USTACK" -B "$name" -e syscalls:sys_enter_getppid --folded \
		-- "$PROGS/deep" 3
	live_left=no
	[ "$(cat "$TRACEFS/instances/ustack-$$/options/userstacktrace_delay" 2>/dev/null)" = 1 ] &&
		live_left=yes
	rmdir "$TRACEFS/instances/ustack-$$"
	# the dead run's command ran all along
	kill -0 "$ORPHAN"
	kill -9 "$ORPHAN"
	wait "$ORPHAN" || true
	ORPHAN=
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"trace-cmd ustack: removed instance ustack-$pid: its run was killed"* ]]
	[ ! -e "$dead" ]
	[ "$live_left" = yes ]
	[[ "$stderr" != *"no deferred user stacks"* ]]
	[[ "$stderr" == *"stacks lost:          0"* ]]
	[[ "$output" == "deep;"*"main;$(deep_chain 20 | tac | paste -sd';') 3" ]]
	assert_no_instance "$name"
}
