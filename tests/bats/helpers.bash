# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers of the trace-cmd ustack bats tests.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
USTACK="$ROOT/tracecmd/trace-cmd-ustack"
PROGS="$ROOT/tests/progs"
DATA="$ROOT/tests/data"
TRACEFS="${TRACEFS:-/sys/kernel/tracing}"

# USTACK_SOURCE=perf|userstacktrace|tracefs-deferred runs the tests against
# that stack source: the tool is called through a wrapper that adds
# --stack-source (exec: signals and $! reach the tool itself), except to
# report, which refuses it (its file holds the stacks).
if [ -n "${USTACK_SOURCE:-}" ] && [ -n "${BATS_RUN_TMPDIR:-}" ]; then
	printf '#!/bin/sh\nfor a; do [ "$a" = -- ] && break; [ "$a" = report ] && exec "%s" "$@"; done\nexec "%s" --stack-source=%s "$@"\n' \
		"$USTACK" "$USTACK" "$USTACK_SOURCE" >"$BATS_RUN_TMPDIR/trace-cmd-ustack"
	chmod +x "$BATS_RUN_TMPDIR/trace-cmd-ustack"
	USTACK="$BATS_RUN_TMPDIR/trace-cmd-ustack"
fi

# Capture tests need root and a tracefs; report tests need neither.
require_capture() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	[ -d "$TRACEFS/instances" ] || mount -t tracefs nodev "$TRACEFS" 2>/dev/null || true
	[ -d "$TRACEFS/instances" ] || skip "no tracefs at $TRACEFS"
}

has_deferred() {
	[ -e "$TRACEFS/options/userstacktrace_delay" ]
}

# VM tests: the deferred path exists only on the patched kernel.
require_deferred() {
	require_capture
	has_deferred || skip "needs the patched kernel (options/userstacktrace_delay): run tests/run-tests --vm"
}

# A unique instance name per test: -B with a new name is created and
# removed by the tool, so the test can check that nothing stays behind.
instance_name() {
	echo "ustack-bats-$$-${BATS_TEST_NUMBER:-0}"
}

assert_no_instance() {
	local name="$1"

	if [ -e "$TRACEFS/instances/$name" ]; then
		rmdir "$TRACEFS/instances/$name" 2>/dev/null || true
		echo "instance $name was left behind" >&2
		return 1
	fi
}

# The setup of a perf stack source test on the host (perf-dwarf.bats,
# perfsrc.bats): the stock kernel, whose perf path it is, perf itself,
# an instance name and $TMP
perf_host_setup() {
	require_capture
	has_deferred && skip "the patched kernel: its tests are in tests/bats/vm/"
	command -v perf >/dev/null || skip "no perf"
	NAME=$(instance_name)
	TMP="$(mktemp -d)"
}

# deferred_setup DIR PROG...: the setup of a VM test of the deferred
# path (tests/bats/vm/): the patched kernel, the programs (built on the
# host, the VM has no compiler), an instance name and $TMP
deferred_setup() {
	local dir="$1" p

	shift
	require_deferred
	for p in "$@"; do
		[ -x "$dir/$p" ] || skip "run make on the host first ($dir/$p missing)"
	done
	NAME=$(instance_name)
	TMP="$(mktemp -d)"
}

# The setup of a capture test: root and a tracefs, an instance name
# (checked by instance_teardown) and a $TMP of its own
capture_setup() {
	require_capture
	NAME=$(instance_name)
	TMP="$(mktemp -d)"
}

# The setup of a test that needs no tracefs: a $TMP of its own; NAME,
# once the test sets it (instance_name), is checked by instance_teardown
tmp_setup() {
	TMP="$(mktemp -d)"
	NAME=
}

# The teardown of every test: no instance left behind, $TMP removed
instance_teardown() {
	local rc=0

	[ -z "${NAME:-}" ] || assert_no_instance "$NAME" || rc=1
	remove_test_instances || rc=1
	rm -rf "${TMP:-/nonexistent}"
	return $rc
}

# remove_test_instances: every instance named after this test
# (instance_name, alone or with a suffix) removed, passed or failed; a run
# of the tool still on one (a test that failed before stopping it) is
# stopped first as ^C does, killed if it does not end, since an instance
# in use cannot be removed. False, naming it, when there was one.
remove_test_instances() {
	local d pid rc=0

	for d in "$TRACEFS/instances/$(instance_name)" "$TRACEFS/instances/$(instance_name)"-*; do
		[ -d "$d" ] || continue
		for pid in $(pgrep -f -- "-B ${d##*/}( |\$)"); do
			kill -INT "$pid" 2>/dev/null
			poll_until 10 pid_ended "$pid" || kill -KILL "$pid" 2>/dev/null
			poll_until 10 pid_ended "$pid" || true
		done
		[ ! -d "$d" ] || rmdir "$d" 2>/dev/null || true
		echo "instance ${d##*/} was left behind" >&2
		rc=1
	done
	return $rc
}

# pid_ended PID: gone, or a zombie its parent has not reaped
pid_ended() {
	[ ! -e "/proc/$1" ] || [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ]
}

# The function names of the first stack printed in stacks mode, leaf first,
# one per line: frames are indented lines "  name+0xoff (dso)".
first_stack() {
	awk '/^  [^ ]/ { started = 1; sub(/^  /, ""); sub(/\+0x.*/, ""); print; next }
	     started { exit }'
}

# Folded lines of a given command name, count stripped.
folded_of() {
	grep "^$1;" | sed 's/ [0-9]*$//'
}

# Leaf-first list of n names: chain_20 chain_19 ...
deep_chain() {
	local n="$1" i

	for ((i = 20; i > 20 - n; i--)); do
		printf 'chain_%02d\n' "$i"
	done
}

# The stack source a capture uses: USTACK_SOURCE, else the tool's choice
# (deferred tracefs stacks on the patched kernel, else perf events).
stack_source() {
	if [ -n "${USTACK_SOURCE:-}" ]; then
		echo "$USTACK_SOURCE"
	elif has_deferred; then
		echo tracefs-deferred
	else
		echo perf
	fi
}

# Frames a stack can have: 8 with userstacktrace, perf's limit with perf.
frames_max() {
	case "$(stack_source)" in
	tracefs-deferred) echo 512 ;;
	userstacktrace) echo 8 ;;
	perf) cat /proc/sys/kernel/perf_event_max_stack ;;
	esac
}

build_progs() {
	make -s -C "$ROOT" progs >&2
	[ -x "$USTACK" ] || make -s -C "$ROOT" tracecmd/trace-cmd-ustack >&2
}

# poll_until SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds
# (0), or until SECONDS have passed (1). The tests wait for a condition
# with this, never for a fixed time. SECONDS is multiplied by
# USTACK_WAIT_SCALE (tests/run-asan sets 5: a sanitized tool on a loaded
# machine takes longer to start).
poll_until() {
	local i n=$(($1 * 10 * ${USTACK_WAIT_SCALE:-1}))

	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# start_held PROG ARGS...: run PROG (a test program) in the background with
# USTACK_PROGS_HOLD, and wait until it has made all its calls; it then
# stays alive, its pid in HELD, until release_held. A system-wide fallback
# run reads a process's maps while it lives: held, it lives until the run
# has ended, however late the reader gets to it.
start_held() {
	local mark

	mark=$(mktemp -u "${BATS_TEST_TMPDIR:-/tmp}/held.XXXXXX")
	USTACK_PROGS_HOLD="$mark" "$@" > /dev/null &
	HELD=$!
	poll_until 30 test -e "$mark"
}

# release_held: end the process start_held keeps (teardown calls it too)
release_held() {
	[ -n "${HELD:-}" ] || return 0
	kill "$HELD" 2>/dev/null
	wait "$HELD" 2>/dev/null || true
	HELD=
	return 0
}

# file_is FILE TEXT: FILE reads as TEXT (a missing FILE is not)
file_is() {
	[ "$(cat "$1" 2>/dev/null)" = "$2" ]
}

# child_of PID: print the pid of PID's first child once it has one
# (waits up to 30 s); fails if it never gets one.
child_of() {
	poll_until 30 first_child "$1"
}

first_child() {
	local c

	c=$(pgrep -P "$1" | head -1)
	[ -n "$c" ] && echo "$c"
}

# child_running PID FILE: print the pid of PID's child that runs FILE
# once there is one (waits up to 30 s); fails if none does. strace forks
# short-lived children of its own to probe ptrace before the one it
# traces, so its first child is not always the traced command.
child_running() {
	poll_until 30 child_with_exe "$1" "$(readlink -f "$2")"
}

child_with_exe() {
	local c

	for c in $(pgrep -P "$1"); do
		if [ "$(readlink "/proc/$c/exe" 2>/dev/null)" = "$2" ]; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

# wait_exec PID NAME: wait (up to 30 s) until process PID has exec'ed
# NAME; fails if it has not. A forked shell child keeps the shell's name
# until its exec, and -P on it would trace the wrong image.
wait_exec() {
	poll_until 30 file_is "/proc/$1/comm" "$2"
}

# wait_tracing NAME EVENT: wait (up to 30 s) until instance NAME records
# EVENT (system/event). A new instance starts with tracing_on 1; the
# command turns it off, enables its events, then turns it on: once EVENT
# is enabled, tracing_on 1 is the command's.
wait_tracing() {
	local dir="$TRACEFS/instances/$1"

	# The perf source enables nothing in the instance: its events are
	# perf events, opened after the command set tracing_on 0
	poll_until 30 tracing_ready "$1" "$2"
	poll_until 30 file_is "$dir/tracing_on" 1 && return 0
	echo "instance $1 never started tracing $2" >&2
	return 1
}

tracing_ready() {
	file_is "$TRACEFS/instances/$1/events/$2/enable" 1 || perf_opened "$1"
}

# perf_opened NAME: the command running on instance NAME (-B NAME, or its
# own ustack-PID) has its perf events
perf_opened() {
	local pid pids

	case $1 in
	ustack-[0-9]*) pids=${1#ustack-} ;;
	*) pids=$(pgrep -f -- "-B $1( |\$)") ;;
	esac
	for pid in $pids; do
		ls -l "/proc/$pid/fd" 2>/dev/null | grep -q 'perf_event' && return 0
	done
	return 1
}

# session_script [OPTION...]: the session through
# tests/tools/ustack-session-test (as session.bats), the script's records
# on standard input after the formats and "comm 100 prog"; the driver's
# sample lines and --stats counters in $output.
session_script() {
	tmp_setup
	S="$TMP/script"
	cat > "$S" <<EOF
format ftrace $ROOT/tests/data/formats/user_unwind_cookie.format
format ftrace $ROOT/tests/data/formats/user_unwind_stack.format
format ftrace $ROOT/tests/data/session/user_stack.format
format ftrace $ROOT/tests/data/session/print.format
format test $ROOT/tests/data/session/sys_enter_test.format
format task $ROOT/tests/data/session/task_newtask.format
format task $ROOT/tests/data/session/task_rename.format
comm 100 prog
EOF
	cat >> "$S"
	run "$ROOT/tests/tools/ustack-session-test" --stats "$@" "$S"
	echo "$output"
	[ "$status" -eq 0 ]
}

# session_stat NAME: the counter NAME of session_script's --stats line
session_stat() {
	sed -n "s/^stats:.* $1=\([0-9]*\).*/\1/p" <<<"$output"
}

# record_dwarf FILE ARGS...: a --call-graph=dwarf recording of getppid on
# instance $NAME into $TMP/FILE, its summary in $TMP/FILE.err
record_dwarf() {
	local file="$1"

	shift
	"$USTACK" record -B "$NAME" -o "$TMP/$file" --call-graph=dwarf \
		-e syscalls:sys_enter_getppid "$@" 2>"$TMP/$file.err"
}

# unread_scene MODE: tests/tools/ustack-stream-unread-test's scene MODE on
# a new instance $NAME, its output in $output. Exit 75 says the scene was
# not reached (a burst that ended before a batch's horizon: a matter of
# timing, seen in a CI run): no verdict, the scene again, up to five times.
unread_scene() {
	local try

	require_capture
	tmp_setup
	NAME=$(instance_name)
	for try in 1 2 3 4 5; do
		run timeout 120 "$ROOT/tests/tools/ustack-stream-unread-test" "$NAME" "$1"
		echo "$output"
		[ "$status" -eq 75 ] || break
	done
	[ "$status" -ne 77 ] || skip "built with a sanitizer: no calloc() hook"
	[ "$status" -eq 0 ]
}
