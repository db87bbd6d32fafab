#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# record -> trace.dat -> report: the same stacks as live, a file stock
# trace-cmd reads, SIGINT leaves a readable file and no instance; report
# from the fixture files in tests/data (recorded in the VM) when present.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	tmp_setup
}

teardown() {
	# a test that failed with its background record still running
	[ -z "${BGPID:-}" ] || { kill -9 "$BGPID" 2>/dev/null; wait "$BGPID" 2>/dev/null; } || true
	# and the command it held stopped
	[ -z "${CHILD:-}" ] || kill -9 "$CHILD" 2>/dev/null || true
	release_held
	instance_teardown
}

record() {
	require_capture
	NAME=$(instance_name)
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" -e syscalls:sys_enter_getppid "$@" 2>"$TMP/record.err"
}

@test "record then report gives the same folded stacks as live" {
	record -- "$PROGS/shlib" 4
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	report="$output"
	run --separate-stderr "$USTACK" -B "$NAME" -q --folded -e syscalls:sys_enter_getppid -- "$PROGS/shlib" 4
	[ "$output" = "$report" ]
	[[ "$report" == *"main;app_call;lib_outer;lib_middle;lib_inner 4" ]]
}

# summary_events FILE: the "events:" count of the summary in FILE
summary_events() {
	sed -n 's/^  events: *\([0-9]*\)$/\1/p' "$1"
}

# summary_samples FILE: the "samples:" count of a recording's summary
summary_samples() {
	sed -n 's/^  samples: *\([0-9]*\) (events with their stacks)$/\1/p' "$1"
}

workers_ready() {
	[ -f "$TMP/w/pids" ] && [ "$(wc -l < "$TMP/w/pids")" = 4 ]
}

# record_workers ARGS...: record tests/progs/workers (2 processes of 2
# threads, 20000 getppid + getuid calls each) behind sh -c, to $TMP/w.dat;
# the summary in $TMP/rec.err
record_workers() {
	local pid

	rm -rf "$TMP/w" && mkdir "$TMP/w"
	# the perf source's samples written unread: without stack copies,
	# which auto would take for sh
	"$USTACK" record -o "$TMP/w.dat" --call-graph=fp "$@" -e syscalls:sys_enter_getppid \
		-e syscalls:sys_enter_getuid -- sh -c "$PROGS/workers $TMP/w 0 2 20000" \
		2> "$TMP/rec.err" &
	pid=$!
	poll_until 60 workers_ready
	touch "$TMP/w/go"
	wait "$pid"
}

@test "record's summary counts what report counts: a command that forks 2 processes of 2 threads, without -c, with -c, with ring-buffer losses" {
	require_capture
	local a rec rep

	for a in "" "-c" "-b 8"; do
		# shellcheck disable=SC2086
		record_workers $a
		rec=$(summary_events "$TMP/rec.err")
		"$USTACK" report -i "$TMP/w.dat" --folded > /dev/null 2> "$TMP/rep.err"
		rep=$(summary_events "$TMP/rep.err")
		echo "record $a: $rec events, report: $rep" >&3
		cat "$TMP/rec.err" "$TMP/rep.err"
		[ -n "$rep" ]
		# the deferred source's recorder splices pages unparsed: its
		# summary counts records, and only report counts events; the
		# perf source's (no stack copies) writes its samples unread and
		# counts them: the events report shows
		case $(stack_source) in
		tracefs-deferred)
			rec=$rep
			grep -q '^  records: *[0-9]' "$TMP/rec.err"
			;;
		perf)
			rec=$(summary_samples "$TMP/rec.err")
			[ -n "$rec" ]
			[ "$rec" = "$rep" ]
			;;
		*)
			[ -n "$rec" ]
			[ "$rec" = "$rep" ]
			;;
		esac
		# without losses, every call of the 4 threads (and the shell's own)
		if grep -q '^  ring-buffer losses:   0$' "$TMP/rec.err"; then
			[ "$rec" -ge 160000 ]
			[ "$rec" -le 160010 ]
		fi
	done
}

@test "record then report: the recorded command is shown from its exec, not the tracer's execve" {
	record -e syscalls:sys_enter_execve -- "$PROGS/shlib" 1
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	echo "$output"
	[ "$status" -eq 0 ]
	! grep -E 'ustack_child_fork|execve' <<< "$output" || false
	[[ "$output" == *"main;app_call;lib_outer;lib_middle;lib_inner 1" ]]
}

@test "folded counts a repeated stack once rendered: the same counts and summary as stacks mode" {
	# shlib 6: six identical, fully resolved stacks; folded renders the
	# first and counts the other five on its line (lib/ustack-output.c)
	record -- "$PROGS/shlib" 6
	run --separate-stderr "$USTACK" report -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	[[ "$output" == *"main;app_call;lib_outer;lib_middle;lib_inner 6" ]]
	folded_summary="$stderr"
	run --separate-stderr "$USTACK" report -i "$TMP/t.dat"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^  lib_inner' <<<"$output")" -eq 6 ]
	# frames shown and unresolved, counted for every sample either way
	[[ "$folded_summary" == *"frames unresolved:    0 of "* ]]
	[ "$(grep 'frames unresolved' <<<"$folded_summary")" = "$(grep 'frames unresolved' <<<"$stderr")" ]
	[ "$(grep -c . <<<"$folded_summary")" -gt 5 ]
}

@test "folded keeps the same frames of two commands apart (shlib and a link to it)" {
	# one binary, two names: the lines differ only in their root
	ln -s "$PROGS/shlib" "$TMP/other"
	record -c -- sh -c "'$PROGS/shlib' 2; '$TMP/other' 3"
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	echo "$output"
	[ "$(grep -c '^shlib;.*;lib_inner 2$' <<<"$output")" -eq 1 ]
	[ "$(grep -c '^other;.*;lib_inner 3$' <<<"$output")" -eq 1 ]
}

@test "record then report gives the same stacks (stacks mode)" {
	record -- "$PROGS/deep" 3
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat"
	[ "$status" -eq 0 ]
	[ "$(grep -c sys_enter_getppid <<< "$output")" -eq 3 ]
	n=$(frames_max)
	[ "$n" -gt 21 ] && n=21
	[ "$(first_stack <<< "$output" | head -n "$n")" = "$( (deep_chain 20; echo main) | head -n "$n")" ]
}

# libtracecmd decompresses and parses a file's kallsyms while it opens
# it; report skips both (lib/ustack-tracedat.c) unless it names kernel
# addresses: kernel frames (--kernel) or the event lines of stacks mode.
# The parse calls tep_register_function() for every symbol: callgrind
# says if it ran (not in an ASan build, which valgrind cannot run: the
# output only). A section not decompressed reads as empty: libtracecmd
# then does not even call tep_parse_kallsyms().
@test "report decompresses and loads the file's kernel symbols only when it names kernel addresses" {
	# perf samples a syscall tracepoint with the user registers: no kernel chain
	src=()
	[ "$(stack_source)" = perf ] && src=(--stack-source=userstacktrace)
	record "${src[@]}" --kernel -- "$PROGS/shlib" 2
	# The dynamic linker binds a function called through the PLT at its
	# first call, and says so (LD_DEBUG=bindings): libtraceevent calls
	# tep_register_function() through its PLT for each kallsyms line,
	# libtracecmd tep_parse_kallsyms() (callgrind saw the same 10 times
	# slower, 90 s in the VM)
	report_parses() {
		rm -f "$TMP"/ld.*
		if [ -n "${USTACK_ASAN:-}" ]; then
			"$USTACK" report -q "$@" -i "$TMP/t.dat" >"$TMP/out"
			return 0
		fi
		env -u LD_BIND_NOW LD_DEBUG=bindings LD_DEBUG_OUTPUT="$TMP/ld" \
			"$USTACK" report -q "$@" -i "$TMP/t.dat" >"$TMP/out"
		cat "$TMP"/ld.* | grep -q "normal symbol \`tep_register_function'"
	}
	! report_parses --folded || [ -n "${USTACK_ASAN:-}" ]
	! grep -q "normal symbol \`tep_parse_kallsyms'" "$TMP"/ld.* || [ -n "${USTACK_ASAN:-}" ]
	grep -q ';lib_inner 2$' "$TMP/out"
	report_parses
	grep -q '^  lib_inner' "$TMP/out"
	report_parses --kernel --folded
	# shown when it fails
	cat "$TMP/out"
	# Both calls with their kernel frames, on one line or two: another
	# tracer's probe on sys_enter (a second test run) turns the kernel's
	# direct call of ours into __traceiter_sys_enter's, a frame more,
	# from the moment it is enabled to the moment it is disabled.
	[ "$(awk '/^shlib;.*;lib_inner;entry_SYSCALL_64[^;]*\[k\];do_syscall_64_\[k\]/ { n += $NF }
		  END { print n + 0 }' "$TMP/out")" -eq 2 ]
}

@test "stock trace-cmd report reads our file" {
	command -v trace-cmd >/dev/null || skip "no trace-cmd"
	record -- "$PROGS/deep" 2
	run trace-cmd report -i "$TMP/t.dat"
	[ "$status" -eq 0 ]
	if [ "$(stack_source)" = perf ]; then
		# the samples are ustack:sample records of the top buffer
		[ "$(grep -Ec ' sample: +pid=[0-9]+ tid=' <<< "$output")" -eq 2 ]
		return
	fi
	[ "$(grep -c 'sys_enter_getppid:' <<< "$output")" -eq 2 ]
	[[ "$output" == *"$NAME:"* ]]
	if has_deferred; then
		[[ "$output" == *"user_unwind_stack"* ]]
	else
		[[ "$output" == *"user_stack:"* ]]
	fi
}

@test "the file keeps the maps: PROCMAPS for trace-cmd, the side-band for report" {
	has_deferred && skip "fallback only"
	record -- "$PROGS/shlib" 2
	run trace-cmd dump --options -i "$TMP/t.dat"
	[[ "$output" == *"PROCMAPS"* ]]
	[[ "$output" == *"libustack-chain.so"* ]]
	# the program is gone: report resolves from the file alone
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[[ "$output" == *"lib_inner 2" ]]
}

# maps_files: "START END PATH" per file of /proc maps text on stdin, the
# start of its first line and the end of its last of a run of lines
maps_files() {
	awk '$6 == "" { next }
	     $6 != last { if (last != "") print start, end, last; split($1, a, "-"); start = a[1]; last = $6 }
	     { split($1, a, "-"); end = a[2] }
	     END { if (last != "") print start, end, last }' | sed 's/\b0*\([0-9a-f]\)/\1/g'
}

@test "PROCMAPS from /proc snapshots (no side-band) keeps every file the process maps" {
	has_deferred && skip "fallback only"
	require_capture
	NAME=$(instance_name)
	# -C local: perf has no such clock, so the maps come from /proc; the
	# command stays alive after its calls until the test has its maps
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" -C local -e syscalls:sys_enter_getppid \
		-- env USTACK_PROGS_HOLD="$TMP/held" "$PROGS/shlib" 2 2>"$TMP/record.err" &
	pid=$!
	poll_until 30 test -e "$TMP/held"
	child=$(child_of "$pid")
	# the files and special mappings, but the heap (it may come late)
	grep '[/[]' "/proc/$child/maps" | grep -v '\[heap\]' | maps_files > "$TMP/want"
	kill "$child"
	# the command's status: SIGTERM ended it
	wait "$pid" && status=0 || status=$?
	[ "$status" -eq 143 ]
	run trace-cmd dump --options -i "$TMP/t.dat"
	[ "$status" -eq 0 ]
	awk '/Option PROCMAPS/ { on = 1; next } on && /^$/ { exit } on' <<< "$output" > "$TMP/got"
	cat "$TMP/want" "$TMP/got"
	grep -q 'libustack-chain.so$' "$TMP/want"
	[ "$(tail -n +2 "$TMP/got" | grep -v '\[heap\]')" = "$(cat "$TMP/want")" ]
	# header: pid and number of files in hex, then the name
	[ "$(head -1 "$TMP/got" | awk '{ print $1, $2, $3 }')" = \
		"$(printf '%x %x shlib' "$child" "$(($(wc -l < "$TMP/got") - 1))")" ]
	# report maps the stacks through the snapshots' markers in the file
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	[[ "$output" == "shlib;"*";main;app_call;lib_outer;lib_middle;lib_inner 2" ]]
}

@test "report filters by pid and comm" {
	record -c -- sh -c "'$PROGS/shlib' 2; '$PROGS/deep' 2"
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded --comm shlib
	[ "$status" -eq 0 ]
	[[ "$output" == *"lib_inner 2"* ]]
	[[ "$output" != *"chain_20"* ]]
	pid=$("$USTACK" report -q -i "$TMP/t.dat" | awk '/ deep-[0-9]+ / { sub(/.*deep-/, ""); print $1; exit }')
	[ -n "$pid" ]
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded -P "$pid"
	[[ "$output" == *"chain_20 2"* ]]
	[[ "$output" != *"lib_inner"* ]]
}

@test "SIGINT in the middle of record: no instance left, a readable file" {
	require_capture
	NAME=$(instance_name)
	# deep's 3 calls are in the ring buffer once the shell execs sleep
	"$USTACK" record -B "$NAME" -q -c -o "$TMP/int.dat" -e syscalls:sys_enter_getppid \
		-- sh -c '"$1" 3; exec sleep 600' sh "$PROGS/deep" 2>/dev/null &
	pid=$!
	child=$(child_of "$pid")
	wait_exec "$child" sleep
	[ -d "$TRACEFS/instances/$NAME" ]
	kill -INT "$pid"
	# the run ended the command with SIGTERM: its status, 143
	wait "$pid" && status=0 || status=$?
	[ "$status" -eq 143 ]
	kill "$child" 2>/dev/null || true
	assert_no_instance "$NAME"
	run --separate-stderr "$USTACK" report -q -i "$TMP/int.dat" --folded
	[ "$status" -eq 0 ]
	grep -q '^deep;.*;chain_20 3$' <<< "$output"
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i "$TMP/int.dat" > /dev/null
	fi
}

@test "SIGTERM during a system-wide record also cleans up, and its final drain keeps our program's events" {
	require_capture
	local mark=$BATS_TEST_TMPDIR/held

	NAME=$(instance_name)
	# the program's pid is known before the record starts (a shell that
	# stops itself, then execs it), so the kernel filter keeps the rings
	# for its events alone: other test runs' bursts of getppid beside
	# this one (system-wide, with stack copies) cannot overflow them
	USTACK_PROGS_HOLD="$mark" sh -c 'kill -STOP $$; exec "$0" 25' \
		"$PROGS/deep" > /dev/null &
	deep=$!
	HELD=$deep
	poll_until 30 is_stopped "$deep"
	"$USTACK" record -B "$NAME" -q -o "$TMP/sw.dat" \
		-e syscalls:sys_enter_getppid -f "common_pid == $deep" 2> "$TMP/rec.err" &
	pid=$!
	BGPID=$pid
	wait_tracing "$NAME" syscalls/sys_enter_getppid
	# system-wide, maps are read while the process lives: it is held
	# alive until the record has ended, and SIGTERM's final drain takes
	# what the buffers still hold (waiting for empty buffers cannot end
	# on the deferred source: each poll's own fork is traced there)
	kill -CONT "$deep"
	poll_until 30 test -e "$mark"
	kill -TERM "$pid"
	# its stderr is shown on failure: a crash at its end was seen once
	# (tests/README.md, "Seen once")
	wait "$pid" || { cat "$TMP/rec.err"; false; }
	BGPID=
	release_held
	assert_no_instance "$NAME"
	run --separate-stderr "$USTACK" report -q -i "$TMP/sw.dat" --folded -P "$deep"
	echo "$output"
	[[ "$output" == "deep;"*"chain_20 25" ]]
}

# is_stopped PID: PID is in state T (stopped by a signal)
is_stopped() {
	[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = T ]
}

# held_child PID: the command the tool PID launched has stopped itself
# (state T) before its first call (CHILD)
held_child() {
	CHILD=$(pgrep -P "$1" -x sh)
	[ -n "$CHILD" ] && [ "$(awk '{ print $3 }' "/proc/$CHILD/stat" 2>/dev/null)" = T ]
}

# exited: gone, or a zombie its stopped parent has not reaped
exited() {
	[ ! -e "/proc/$1" ] || [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ]
}

@test "losses at the end of a run are told: a recorder stopped while its command overflows the buffers counts every event it did not get and shows those it got" {
	require_capture
	local ev lost

	NAME=$(instance_name)
	# the command stops itself before its burst, so that the recorder
	# is stopped before the first event on any machine, however fast;
	# 64 KiB per CPU cannot hold 100000 events; on one CPU the ring
	# buffer, out of overwrite mode, keeps only the first ones and drops
	# the rest (lib/ustack-dropped.c)
	"$USTACK" record -B "$NAME" -b 64 -o "$TMP/l.dat" -e syscalls:sys_enter_getppid \
		-- taskset -c 0 sh -c 'kill -STOP $$; exec "$0" 1 100000 0' \
		"$PROGS/burst/burst" 2> "$TMP/rec.err" &
	BGPID=$!
	poll_until 60 held_child "$BGPID"
	# nothing is read while the command runs, and nothing is written
	# after it: the kernel has no later record to tell the loss in
	kill -STOP "$BGPID"
	kill -CONT "$CHILD"
	poll_until 300 exited "$CHILD"
	CHILD=
	kill -CONT "$BGPID"
	wait "$BGPID"
	BGPID=
	"$USTACK" report -i "$TMP/l.dat" --folded > /dev/null 2> "$TMP/rep.err"
	cat "$TMP/rec.err" "$TMP/rep.err"
	ev=$(summary_events "$TMP/rep.err")
	lost=$(sed -n 's/^  ring-buffer losses: *\([0-9]*\).*/\1/p' "$TMP/rep.err")
	echo "events $ev, lost $lost"
	[ "$lost" -gt 0 ]
	[ $((ev + lost)) -ge 100000 ]
	# the events the buffer kept are shown
	[ "$ev" -gt 0 ]
}

@test "-B on an existing instance keeps it and restores what was changed" {
	require_capture
	NAME=$(instance_name)
	mkdir "$TRACEFS/instances/$NAME"
	echo 1 > "$TRACEFS/instances/$NAME/options/overwrite"
	before_opt=$(cat "$TRACEFS/instances/$NAME/options/userstacktrace")
	# the command says what the run made of the overwrite option
	"$USTACK" -B "$NAME" -q -e syscalls:sys_enter_getppid -- sh -c 'cat "$0" > "$1"; exec "$2" 1' \
		"$TRACEFS/instances/$NAME/options/overwrite" "$TMP/overwrite" "$PROGS/deep" \
		>/dev/null 2>&1
	[ -d "$TRACEFS/instances/$NAME" ]
	# out of overwrite mode while it ran (lib/ustack-dropped.c), back after
	[ "$(cat "$TMP/overwrite")" = 0 ]
	[ "$(cat "$TRACEFS/instances/$NAME/options/overwrite")" = 1 ]
	[ "$(cat "$TRACEFS/instances/$NAME/options/userstacktrace")" = "$before_opt" ]
	[ "$(cat "$TRACEFS/instances/$NAME/events/syscalls/sys_enter_getppid/enable")" = 0 ]
	[ -z "$(cat "$TRACEFS/instances/$NAME/set_event_pid")" ]
	rmdir "$TRACEFS/instances/$NAME"
}

@test "fixtures recorded in the VM report without the VM" {
	shopt -s nullglob
	files=("$DATA"/*.dat)
	[ ${#files[@]} -gt 0 ] || skip "no fixture trace.dat in tests/data yet (record them with tests/bats/vm)"
	for f in "${files[@]}"; do
		run --separate-stderr "$USTACK" report -q -i "$f" --symfs "$DATA/symfs" --folded
		[ "$status" -eq 0 ] || { echo "$f: $stderr"; return 1; }
		[ -n "$output" ] || { echo "$f: no stacks"; return 1; }
	done
}

@test "fixture: deep chain recorded on the patched kernel has all 20 frames" {
	[ -f "$DATA/deep-deferred.dat" ] || skip "no tests/data/deep-deferred.dat fixture yet"
	run --separate-stderr "$USTACK" report -q -i "$DATA/deep-deferred.dat" --symfs "$DATA/symfs" --folded
	[ "$status" -eq 0 ]
	want="$(deep_chain 20 | tac | paste -sd';')"
	[[ "$output" == *"main;$want "* ]]
}

@test "a corrupt trace.dat (truncated, or bytes flipped) gives a one-line error, never a crash" {
	[ -f "$DATA/deep-deferred.dat" ] || skip "no tests/data/deep-deferred.dat fixture"
	size=$(stat -c %s "$DATA/deep-deferred.dat")
	# (the last bytes of a file can be padding: cut well inside it)
	for cut in 64 4096 $((size / 2)) $((size - 1000)); do
		head -c "$cut" "$DATA/deep-deferred.dat" > "$TMP/bad.dat"
		run --separate-stderr "$USTACK" report -q -i "$TMP/bad.dat" --folded
		echo "cut at $cut: status $status: $stderr"
		[ "$status" -ne 0 ] && [ "$status" -lt 128 ]
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		[[ "$stderr" == *"$TMP/bad.dat"* ]]
	done
	for seed in 1 2 3 4 5; do
		python3 - "$DATA/deep-deferred.dat" "$TMP/bad.dat" "$seed" <<'PY'
import random, sys
d = bytearray(open(sys.argv[1], 'rb').read())
random.seed(int(sys.argv[3]))
for _ in range(64):
    d[random.randrange(len(d))] = random.randrange(256)
open(sys.argv[2], 'wb').write(d)
PY
		run --separate-stderr "$USTACK" report -q -i "$TMP/bad.dat" --folded
		echo "seed $seed: status $status: $stderr"
		[ "$status" -lt 128 ]
	done
}
