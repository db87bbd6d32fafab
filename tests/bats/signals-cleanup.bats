#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# A second signal while the first one's stop is under way (issue 44,
# finding 12): the instance still goes when the code the handler cut
# short holds one of its files open, and a trace.dat the summary has
# named stays. The moments are forced, never timed: strace injects the
# second signal as a given system call is made (attached with -p once
# the run traces, or from the start), and USTACK_TEST_STOP_AT=summary
# makes the tool stop itself (SIGSTOP) once its summary is printed, so
# that a signal sent before SIGCONT arrives exactly then.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	require_capture
	TMP="$(mktemp -d)"
	mkdir "$TMP/out"
	OUT="$TMP/out/out.dat"
	TAG="signals-cleanup-bats-$$-$BATS_TEST_NUMBER-x"
	TOOL=
	STRACE_PID=
	INSTANCE=
}

teardown() {
	local pid

	for pid in ${TOOL:-} ${STRACE_PID:-}; do
		kill -CONT "$pid" 2>/dev/null || true
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	pkill -KILL -f -- "$TAG" || true
	[ -z "$INSTANCE" ] || [ ! -d "$TRACEFS/instances/$INSTANCE" ] ||
		rmdir "$TRACEFS/instances/$INSTANCE"
	rm -rf "$TMP"
}

require_strace() {
	command -v strace >/dev/null || skip "strace not installed (scripts/install-deps)"
}

# record_deep ARGS...: `record` of getppid in a long deep into $OUT in
# the background, the tool's pid in TOOL and its instance in INSTANCE
# (its own ustack-<pid>); waits until it traces. ARGS go before the
# tool (env settings, strace).
record_deep() {
	"$@" "$USTACK" record -o "$OUT" -e syscalls:sys_enter_getppid -- \
		"$PROGS/deep" 1000000 "$TAG" > /dev/null 2> "$TMP/err" 3>&- &
	TOOL=$!
	INSTANCE=ustack-$TOOL
	wait_tracing "$INSTANCE" syscalls/sys_enter_getppid
}

# traced PID: a tracer (strace -p) is attached to PID
traced() {
	awk '/^TracerPid:/ { exit $2 == 0 }' "/proc/$1/status"
}

# stopped PID: PID is in a stop (SIGSTOP)
stopped() {
	[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = T ]
}

# command_gone: the run's deep ends (it got SIGTERM, or the run ended it)
command_gone() {
	poll_until 10 no_command && return 0
	echo "its command still runs" >&2
	return 1
}

no_command() {
	! pgrep -f -- "$TAG" > /dev/null
}

# nothing_left: no instance, no command, nothing in the output
# directory but an out.dat
nothing_left() {
	local left

	cat "$TMP/err"
	assert_no_instance "$INSTANCE"
	command_gone
	left=$(ls -A "$TMP/out" | grep -vx out.dat || true)
	echo "left: $left"
	[ -z "$left" ]
}

@test "record: SIGHUP, then SIGINT as the stop writes tracing_on (a file of the instance open): the instance ustack-<pid> is removed, exit 130" {
	require_strace
	record_deep
	# the second signal comes as the stop writes tracing_on 0, before
	# that file is closed: the first write after the attach
	strace -o "$TMP/strace" -p "$TOOL" -P "$TRACEFS/instances/$INSTANCE/tracing_on" \
		-e trace=openat,write,close -e inject=write:signal=SIGINT:when=1 2> /dev/null 3>&- &
	STRACE_PID=$!
	poll_until 30 traced "$TOOL"
	kill -HUP "$TOOL"
	wait "$TOOL" && status=0 || status=$?
	TOOL=
	wait "$STRACE_PID" || true
	STRACE_PID=
	cat "$TMP/strace"
	# the moment was the one meant: SIGHUP, tracing_on 0 written, SIGINT
	# with the file still open (its close after the signal)
	grep -A3 -- '--- SIGHUP' "$TMP/strace" | grep -A1 'write([0-9]*, "0", 1)' |
		grep -q -- '--- SIGINT .*SI_KERNEL'
	nothing_left
	[ "$status" -eq 130 ]
	[ ! -e "$OUT" ]
}

@test "record: SIGHUP and SIGINT during the setup, between the open and the write of an instance file: the instance is removed, exit 130" {
	require_strace
	NAME=$(instance_name)
	INSTANCE=$NAME
	# buffer_percent: written once, by the setup of every source; the
	# first signal as it is opened, the second as it is written
	strace -o "$TMP/strace" -P "$TRACEFS/instances/$NAME/buffer_percent" \
		-e trace=openat,write,close \
		-e inject=openat:signal=SIGHUP:when=1 -e inject=write:signal=SIGINT:when=1 \
		"$USTACK" record -B "$NAME" -o "$OUT" -e syscalls:sys_enter_getppid -- \
		"$PROGS/deep" 1000000 "$TAG" > /dev/null 2> "$TMP/err" 3>&- &
	STRACE_PID=$!
	wait "$STRACE_PID" && status=0 || status=$?
	STRACE_PID=
	cat "$TMP/strace"
	grep -q -- '--- SIGHUP .*SI_KERNEL' "$TMP/strace"
	grep -A1 'write([0-9]*, "' "$TMP/strace" | grep -q -- '--- SIGINT .*SI_KERNEL'
	grep -q '+++ exited with 130 +++' "$TMP/strace"
	nothing_left
	[ "$status" -eq 130 ]
	[ ! -e "$OUT" ]
}

@test "record: a second SIGINT once the summary has named the trace.dat: the file stays and trace-cmd report reads it, exit 143 (the command's, ended by the first signal's stop)" {
	record_deep env USTACK_TEST_STOP_AT=summary
	kill -INT "$TOOL"
	# the tool stops itself once the summary is printed
	poll_until 60 stopped "$TOOL"
	cat "$TMP/err"
	grep -qF "report -i $OUT" "$TMP/err"
	kill -INT "$TOOL"
	kill -CONT "$TOOL"
	wait "$TOOL" && status=0 || status=$?
	TOOL=
	nothing_left
	# the run ended in order: the status of its command, which the stop
	# ended with SIGTERM (issue 46), not the second signal's 130
	[ "$status" -eq 143 ]
	[ -s "$OUT" ]
	trace-cmd report -i "$OUT" > /dev/null
	grep -qx "trace-cmd ustack: wrote $OUT" "$TMP/err"
}

@test "record: a second signal as the trace.dat (O_TMPFILE) is linked beside its name: no second name left, the file in place, exit 143 (the command's)" {
	require_strace
	NAME=$(instance_name)
	INSTANCE=$NAME
	# the unnamed trace.dat gets a name (linkat) and is renamed over
	# the output: the tool stops right after the link, and gets the
	# second signal there
	strace -o "$TMP/strace" -e trace=linkat,rename \
		-e inject=linkat:signal=SIGSTOP:when=1 \
		"$USTACK" record -B "$NAME" -o "$OUT" -e syscalls:sys_enter_getppid -- \
		"$PROGS/deep" 1000000 "$TAG" > /dev/null 2> "$TMP/err" 3>&- &
	STRACE_PID=$!
	TOOL=$(child_running "$STRACE_PID" "$USTACK")
	wait_tracing "$NAME" syscalls/sys_enter_getppid
	kill -INT "$TOOL"
	# stopped after the link, before the rename (what strace says once
	# the stop is made: any ptrace stop shows as one in /proc)
	poll_until 60 grep -q -- '--- stopped by SIGSTOP' "$TMP/strace"
	kill -TERM "$TOOL"
	kill -CONT "$TOOL"
	wait "$STRACE_PID" && status=0 || status=$?
	TOOL=
	STRACE_PID=
	cat "$TMP/strace"
	grep -A1 'linkat(.*"/proc/self/fd/' "$TMP/strace" | grep -q -- '--- SIGSTOP .*SI_KERNEL'
	nothing_left
	# the run ended in order: its command's status (SIGTERM, issue 46)
	[ "$status" -eq 143 ]
	trace-cmd report -i "$OUT" > /dev/null
}
