#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Signals (issue 12): a second SIGINT/SIGTERM/SIGHUP ends a run at once,
# wherever it comes, and leaves neither temporaries nor the instance
# behind; the first one stops it in order. The moments are made exact
# without waiting: signals sent to a stopped process arrive together, and
# strace injects one when a given system call starts. Then ten rounds of
# tests/signal-stress (random moments, seed printed).

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	capture_setup
	mkdir "$TMP/out"
	TAG="signals-bats-$$-$BATS_TEST_NUMBER-x"
}

teardown() {
	if [ -n "${BG_PID:-}" ] && kill -0 "$BG_PID" 2>/dev/null; then
		kill -KILL "$BG_PID" 2>/dev/null
		wait "$BG_PID" || true
	fi
	pkill -KILL -f -- "$TAG" || true
	[ ! -d "$TRACEFS/instances/$NAME" ] || rmdir "$TRACEFS/instances/$NAME"
	remove_test_instances || true
	rm -rf "$TMP"
}

require_strace() {
	command -v strace >/dev/null || skip "strace not installed (scripts/install-deps)"
}

# start CMD...: run CMD in the background (stderr in $TMP/err), recording
# getppid of a long deep into $TMP/out/out.dat through instance $NAME; the
# tool's pid in TOOL (CMD may be strace, whose child it is). Temporaries
# with names (USTACK_TEMPFILES=named, the fallback where a file system
# has no O_TMPFILE): only those need the handler's unlink, and tmpfs has
# O_TMPFILE.
start() {
	USTACK_TEMPFILES=named "$@" record -q -B "$NAME" -o "$TMP/out/out.dat" -e syscalls:sys_enter_getppid -- \
		"$PROGS/deep" 1000000 "$TAG" > /dev/null 2> "$TMP/err" &
	BG_PID=$!
	TOOL=$BG_PID
	[ "$1" = "$USTACK" ] || TOOL=$(child_running "$BG_PID" "$USTACK")
	wait_tracing "$NAME" syscalls/sys_enter_getppid
}

# command_gone: the run's deep ends (up to 10 s: it got SIGTERM)
command_gone() {
	local i

	for i in $(seq 1 100); do
		pgrep -f -- "$TAG" > /dev/null || return 0
		sleep 0.1
	done
	echo "its command still runs" >&2
	return 1
}

# finish: wait for the run, then check what it left: no instance, no
# command, nothing in the output directory but an out.dat that stock
# trace-cmd report reads
finish() {
	local left

	wait "$BG_PID" || true
	BG_PID=
	cat "$TMP/err"
	assert_no_instance "$NAME"
	command_gone
	left=$(ls -A "$TMP/out" | grep -vx out.dat || true)
	echo "left: $left"
	[ -z "$left" ]
	[ ! -e "$TMP/out/out.dat" ] || trace-cmd report -i "$TMP/out/out.dat" > /dev/null
}

@test "record: a second signal while tracing removes the per-CPU and side-band temporaries, the instance and the command" {
	start "$USTACK"
	ls "$TMP/out" | grep -q '^out\.dat\.cpu0\.'
	# stopped, it takes both signals when continued: the second comes
	# before the main loop saw the first
	kill -STOP "$TOOL"
	kill -INT "$TOOL"
	kill -TERM "$TOOL"
	kill -CONT "$TOOL"
	wait "$BG_PID" && status=0 || status=$?
	[ "$status" -eq 143 ]
	finish
	[ ! -e "$TMP/out/out.dat" ]
}

@test "live: a second signal while tracing removes the instance and ends the command" {
	"$USTACK" -q -B "$NAME" -e syscalls:sys_enter_getppid -- "$PROGS/deep" 1000000 "$TAG" \
		> /dev/null 2> "$TMP/err" &
	BG_PID=$!
	wait_tracing "$NAME" syscalls/sys_enter_getppid
	kill -STOP "$BG_PID"
	kill -HUP "$BG_PID"
	kill -INT "$BG_PID"
	kill -CONT "$BG_PID"
	wait "$BG_PID" && status=0 || status=$?
	# SIGHUP (1) comes before SIGINT (2): the second is SIGINT
	[ "$status" -eq 130 ]
	finish
}

# second_at_stop SIGNAL: once strace's injected SIGSTOP has stopped the
# tool, SIGNAL, then SIGCONT: SIGNAL comes exactly there. The trace.dat
# is in place by then (the temporaries go after it): the run ends in
# order, SIGNAL stays pending (issue 44), exit 143: the status of the
# command, which the run ended with SIGTERM (issue 46).
second_at_stop() {
	poll_until 60 grep -q -- '--- stopped by SIGSTOP' "$TMP/strace"
	kill -"$1" "$TOOL"
	kill -CONT "$TOOL"
	wait "$BG_PID" && status=0 || status=$?
	finish
	cat "$TMP/strace"
	[ "$status" -eq 143 ]
	[ -s "$TMP/out/out.dat" ]
}

@test "record: a second signal as the first temporary is removed: the others go too, the trace.dat is whole" {
	require_strace
	start strace -o "$TMP/strace" -e trace=unlink -e inject=unlink:signal=SIGSTOP:when=1 "$USTACK"
	kill -INT "$TOOL"
	second_at_stop INT
	grep -A1 '^unlink(' "$TMP/strace" | grep -q -- '--- SIGSTOP .*SI_KERNEL'
}

@test "record: a second signal as the trace.dat is renamed: the file is whole, no temporary" {
	require_strace
	start strace -o "$TMP/strace" -e trace=rename -e inject=rename:signal=SIGSTOP:when=1 "$USTACK"
	kill -HUP "$TOOL"
	second_at_stop TERM
	grep -A1 '^rename(.*out\.dat")' "$TMP/strace" | grep -q -- '--- SIGSTOP .*SI_KERNEL'
}

@test "record: a second signal while the instance is removed (rmdir busy) does not cut the removal short" {
	require_strace
	# the first rmdir of the instance fails EBUSY, as while a reader
	# still holds a file, and a signal comes with it
	start strace -o "$TMP/strace" -P "$TRACEFS/instances/$NAME" -e trace=rmdir \
		-e inject=rmdir:error=EBUSY:signal=SIGINT:when=1 "$USTACK"
	kill -INT "$TOOL"
	finish
	cat "$TMP/strace"
	grep -q 'EBUSY.*INJECTED' "$TMP/strace"
	[ -s "$TMP/out/out.dat" ]
}

@test "signals at random moments of live and record runs (10 rounds, tests/signal-stress): nothing left, files readable" {
	run "$ROOT/tests/signal-stress" 10
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "10 passed, 0 failed" ]
}

# used_cpu PID SECONDS: the process has used SECONDS of user + system time
used_cpu() {
	[ "$(awk '{ print int(($14 + $15) / 100) }' "/proc/$1/stat" 2>/dev/null || echo 0)" -ge "$2" ]
}

gone() {
	! kill -0 "$1" 2>/dev/null
}

# flood_then_term ARGS...: the tool with ARGS (no command) beside four
# threads calling getppid as fast as they can, more events than it can
# parse; once it has used 2 s of CPU on them, one SIGTERM. The run must
# end in order by itself (a hang check, not a timing: before the fix it
# worked through an ever longer queue for minutes), the instance go, and
# what it read but did not hand out be said, never dropped silently.
flood_then_term() {
	# named with the tag, so that teardown ends it whatever happens
	(exec -a "burst-$TAG" "$PROGS/burst/burst" 4 1000000000 0) > /dev/null 2>&1 &
	FLOOD=$!
	"$USTACK" "$@" -B "$NAME" -b 4096 -e syscalls:sys_enter_getppid \
		> "$TMP/stdout" 2> "$TMP/err" &
	BG_PID=$!
	wait_tracing "$NAME" syscalls/sys_enter_getppid
	poll_until 60 used_cpu "$BG_PID" 2
	kill -TERM "$BG_PID"
	poll_until 30 gone "$BG_PID" || {
		echo "still running 30 s after SIGTERM" >&2
		kill -KILL "$FLOOD"
		return 1
	}
	kill -KILL "$FLOOD"
	wait "$FLOOD" || true
	wait "$BG_PID" && status=0 || status=$?
	BG_PID=
	tr '\r' '\n' < "$TMP/err" | grep -v '^events ' || true
	[ "$status" -eq 0 ]
	assert_no_instance "$NAME"
	# the summary: the session's, or what the perf source's recorder
	# wrote unread (samples)
	grep -qE '^  (events|samples): ' "$TMP/err"
	# read but not handed out: said in one line with its size
	if grep -q 'stopped by a signal' "$TMP/err"; then
		grep -qE '^trace-cmd ustack: stopped by a signal with [0-9.]+ MB of trace data read but not yet handed out' "$TMP/err"
	fi
}

@test "live, no command, more events than it can parse: one SIGTERM ends it in order, the unread data said" {
	flood_then_term --folded
	[ -s "$TMP/stdout" ]
}

@test "record, no command, more events than it can parse: one SIGTERM ends it, the file readable" {
	flood_then_term record -o "$TMP/out/out.dat"
	trace-cmd report -i "$TMP/out/out.dat" > /dev/null
	"$USTACK" report -q -i "$TMP/out/out.dat" --folded > /dev/null
}
