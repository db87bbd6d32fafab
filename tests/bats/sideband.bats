#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The fallback path with the perf side-band, on this machine's stock
# kernel: what changes while a process runs (a library loaded late, one
# closed and another at its place, exec, a rename, JIT code) and
# processes too short for /proc. Each program of tests/progs/sideband
# does it in a burst quicker than a reader tick, so that /proc snapshots
# (taken when a process is first seen, then once a tick) cannot stand
# for it: every stack must be resolved as the process was at its event,
# and named as the task was then. Counts are exact.

bats_require_minimum_version 1.5.0
load helpers

SB="$ROOT/tests/progs/sideband"

setup_file() {
	build_progs
}

setup() {
	capture_setup
	! has_deferred || skip "the fallback path: this kernel has deferred stacks"
}

teardown() {
	local f p

	release_held
	instance_teardown
	# the JIT maps sb-jit left (it keeps them for the tracer)
	for f in /tmp/perf-*.map; do
		p=${f#/tmp/perf-}
		p=${p%.map}
		[ -d "/proc/$p" ] || ! grep -qx '[0-9a-f]* d jit_getppid' "$f" 2>/dev/null ||
			rm -f "$f"
	done
}

ustack() {
	"$USTACK" -B "$NAME" -q -e syscalls:sys_enter_getppid "$@"
}

# lines_like PATTERN: how many lines of $output match the regular expression
lines_like() {
	grep -cE "$1" <<< "$output" || true
}

@test "side-band: said in the fallback notice, with no /proc snapshots" {
	run --separate-stderr "$USTACK" -B "$NAME" -e syscalls:sys_enter_getppid -- "$SB/sb-short" 1
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"mappings perf reports (side-band)"* ]]
	[[ "$stderr" != *"snapshots"* ]]
	# the instance ran on the clock of the perf records
	[[ "$stderr" == *"side-band records:"* ]]
}

@test "side-band: a library dlopen'ed 300 ms after start resolves in all 1000 calls" {
	run --separate-stderr ustack --folded -- "$SB/sb-dlopen" 1000
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${#lines[@]}" -eq 2 ]
	[ "$(lines_like '^sb-dlopen;.*;main;call_late;late_entry;late_inner 1000$')" -eq 1 ]
	[ "$(lines_like '^sb-dlopen;.*;main;early_call 1$')" -eq 1 ]
}

@test "side-band: dlclose, then another library at the same address: each call in its own" {
	run --separate-stderr ustack --folded -- "$SB/sb-reload" 200
	echo "$stderr"
	echo "$output"
	# status 2: the loader put the second library elsewhere (no test then)
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "$(lines_like '^sb-reload;.*;main;run_lib;use_lib;one_entry;one_inner 200$')" -eq 1 ]
	[ "$(lines_like '^sb-reload;.*;main;run_lib;use_lib;two_entry;two_inner 200$')" -eq 1 ]
	[ "$(lines_like '^sb-reload;.*;main;early_call 1$')" -eq 1 ]
}

@test "side-band: 500 stacks before an exec keep the old name and image" {
	run --separate-stderr ustack --folded -- "$SB/sb-exec" 500 300
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${#lines[@]}" -eq 2 ]
	[ "$(lines_like '^sb-exec;.*;main;before_exec 500$')" -eq 1 ]
	[ "$(lines_like '^sb-exec-after;.*;main;after_exec 300$')" -eq 1 ]
}

@test "side-band: 20 short-lived processes traced system-wide are named and resolved" {
	# a copy under a name of this run: only its processes are counted,
	# whatever else runs beside the test (another test run, sb-short)
	own="sbs-$$"
	cp "$SB/sb-short" "$TMP/$own"
	"$USTACK" -B "$NAME" -q -e syscalls:sys_enter_getppid --comm "$own" \
		> "$TMP/out" 2> "$TMP/err" &
	pid=$!
	wait_tracing "$NAME" syscalls/sys_enter_getppid
	for i in $(seq 1 20); do
		"$TMP/$own" 5
	done
	# no wait for empty buffers: other processes traced system-wide may
	# keep them busy; the final drain at SIGINT takes what they hold
	kill -INT "$pid"
	wait "$pid"
	output=$(cat "$TMP/out")
	# 100 events of 20 processes, each stack short_call then main
	[ "$(lines_like "^ *$own-[0-9]+ +\[[0-9]+\] .*sys_enter_getppid:")" -eq 100 ]
	[ "$(grep -oE "^ *$own-[0-9]+ " "$TMP/out" | sort -u | wc -l)" -eq 20 ]
	[ "$(grep -A1 -E "^  short_call\+0x[0-9a-f]+ \($own\)$" "$TMP/out" |
		grep -cE "^  main\+0x[0-9a-f]+ \($own\)$")" -eq 100 ]
	[ "$(lines_like 'unknown')" -eq 0 ]
}

@test "side-band: a thread renamed mid-run: 300 stacks under the old name, 200 under the new" {
	run --separate-stderr ustack --folded -- "$SB/sb-rename" 300 200
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${#lines[@]}" -eq 2 ]
	[ "$(lines_like '^sb-rename;.*;worker;before_rename 300$')" -eq 1 ]
	[ "$(lines_like '^sb-renamed;.*;worker;after_rename 200$')" -eq 1 ]
}

@test "side-band: JIT code named in /tmp/perf-PID.map after start resolves in all 1000 calls" {
	run --separate-stderr ustack -- "$SB/sb-jit" 1000
	[ "$status" -eq 0 ]
	[ "$(lines_like 'sys_enter_getppid:')" -eq 1001 ]
	[ "$(grep -A1 -E '^  jit_getppid\+0x[0-9a-f]+ \(\[jit\]\)$' <<< "$output" |
		grep -cE '^  call_jit\+0x[0-9a-f]+ \(sb-jit\)$')" -eq 1000 ]
}

@test "side-band: record keeps it in the trace.dat: report resolves as live did, stock report reads it" {
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" -e syscalls:sys_enter_getppid \
		-- "$SB/sb-reload" 100 2> "$TMP/err"
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	report="$output"
	echo "$report"
	[ "${#lines[@]}" -eq 3 ]
	[[ "$report" == *";one_entry;one_inner 100"* ]]
	[[ "$report" == *";two_entry;two_inner 100"* ]]
	run --separate-stderr ustack --folded -- "$SB/sb-reload" 100
	[ "$output" = "$report" ]
	command -v trace-cmd >/dev/null || return 0
	run trace-cmd report -i "$TMP/t.dat"
	[ "$status" -eq 0 ]
	# the perf source's samples are ustack:sample records of the top buffer
	if [ "$(stack_source)" = perf ]; then
		[ "$(lines_like ' sample: +pid=[0-9]+ tid=')" -eq 201 ]
	else
		[ "$(lines_like 'sys_enter_getppid:')" -eq 201 ]
	fi
	[ "$(lines_like 'print: .*ustack-sb mmap .*path=.*/libsb-two\.so$')" -eq 1 ]
	[ "$(lines_like 'print: .*ustack-sb comm .* exec=1 comm=sb-reload$')" -eq 1 ]
}

@test "side-band refused (no CAP_PERFMON, system-wide): said once, /proc snapshots as before" {
	command -v setpriv >/dev/null || skip "no setpriv"
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ] ||
		skip "perf_event_paranoid < 1: system-wide perf needs no capability here"
	# a copy of deep under a name of this run: only its stacks are counted
	own="deep-$$"
	cp "$PROGS/deep" "$TMP/$own"
	setpriv --bounding-set=-perfmon,-sys_admin -- "$USTACK" -B "$NAME" --folded \
		-e syscalls:sys_enter_getppid --comm "$own" > "$TMP/out" 2> "$TMP/err" &
	pid=$!
	wait_tracing "$NAME" syscalls/sys_enter_getppid
	# snapshots are read while the process lives: it outlives the run
	start_held "$TMP/$own" 25
	# the final drain at SIGTERM takes what the buffers hold (others'
	# events may keep them from ever being empty)
	kill -TERM "$pid"
	wait "$pid"
	release_held
	cat "$TMP/err"
	[ "$(grep -c 'no perf side-band: perf_event_open refused' "$TMP/err")" -eq 1 ]
	[ "$(grep -c 'snapshots' "$TMP/err")" -eq 1 ]
	[[ "$(cat "$TMP/out")" == "$own;"*"chain_19;chain_20 25" ]]
}

@test "side-band: -C local has no perf clock: said, and /proc snapshots as before" {
	# not -q: the notice says it, and -q silences the notice
	run --separate-stderr "$USTACK" -B "$NAME" -e syscalls:sys_enter_getppid -C local \
		--folded -- "$PROGS/deep" 3
	[ "$status" -eq 0 ]
	[ "$(grep -c 'no perf side-band: perf has no clock like the trace clock local' <<< "$stderr")" -eq 1 ]
	[[ "$output" == "deep;"*"chain_19;chain_20 3" ]]
}

@test "side-band: -C boot is one perf has: the records are ordered with the events" {
	run --separate-stderr ustack -C boot --folded -- "$SB/sb-exec" 50 30
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"no perf side-band"* ]]
	[ "$(lines_like '^sb-exec;.*;main;before_exec 50$')" -eq 1 ]
	[ "$(lines_like '^sb-exec-after;.*;main;after_exec 30$')" -eq 1 ]
}

# A recording of tests/progs/deep whose exit side-band record is made a
# LOST record of 7 (same length: the count's leading zeros take the room)
lost_recording() {
	"$USTACK" record -B "$NAME" -q -o "$TMP/r.dat" -e syscalls:sys_enter_getppid \
		-- "$PROGS/deep" 3 2>"$TMP/record.err"
	trace-cmd convert -i "$TMP/r.dat" -o "$TMP/plain.dat" --compression none >/dev/null 2>&1
	python3 - "$TMP/plain.dat" "$TMP/lost.dat" <<'PY'
import re, sys
d = open(sys.argv[1], 'rb').read()
m = re.search(rb'ustack-sb exit pid=(\d+) [^\0]*', d)
old = m.group(0)
new = b'ustack-sb lost pid=' + m.group(1) + b' n='
new += b'0' * (len(old) - len(new) - 1) + b'7'
assert len(new) == len(old)
open(sys.argv[2], 'wb').write(d.replace(old, new, 1))
PY
}

@test "side-band: a LOST record counts as losses, not as a side-band record, in report as in record" {
	lost_recording
	run --separate-stderr "$USTACK" report -i "$TMP/plain.dat" --folded
	[[ "$stderr" =~ side-band\ records:\ +([0-9]+) ]]
	before=${BASH_REMATCH[1]}
	[[ "$stderr" =~ ring-buffer\ losses:\ +([0-9]+) ]]
	lost_before=${BASH_REMATCH[1]}
	run --separate-stderr "$USTACK" report -i "$TMP/lost.dat" --folded
	echo "$stderr"
	[ "$status" -eq 0 ]
	grep -Eqx "  side-band records:    $((before - 1))( \(lost by the kernel: [0-9]+\))?" \
		<<<"$stderr"
	# the perf source's rings hold its samples too: its losses are the
	# ring-buffer's; with the synchronous option, the side-band's own
	if [[ "$stderr" == *"(lost by the kernel:"* ]]; then
		grep -qx "  side-band records:    $((before - 1)) (lost by the kernel: 7)" <<<"$stderr"
	else
		grep -qx "  ring-buffer losses:   $((lost_before + 7))" <<<"$stderr"
	fi
}

@test "side-band: a burst's ring-buffer losses and side-band records in report are record's, line for line" {
	# two threads at full speed: the kernel often drops records (LOST
	# records among the side-band; the test above makes sure of one)
	run --separate-stderr "$USTACK" record -B "$NAME" -b 8 -o "$TMP/l.dat" \
		-e syscalls:sys_enter_getppid -- "$PROGS/burst/burst" 2 20000 0
	[ "$status" -eq 0 ]
	rec=$(grep -E '^  (ring-buffer losses|side-band records):' <<<"$stderr")
	run --separate-stderr "$USTACK" report -i "$TMP/l.dat" --folded
	[ "$status" -eq 0 ]
	rep=$(grep -E '^  (ring-buffer losses|side-band records):' <<<"$stderr")
	echo "record: $rec"
	echo "report: $rep"
	[ "$(wc -l <<<"$rec")" -eq 2 ]
	[ "$rec" = "$rep" ]
}
