#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The default event set (issue 46, item 2): every system call through one
# tracepoint, raw_syscalls:sys_enter, each event named by its call
# (syscalls:sys_enter_getppid) in every output, live and recorded; and
# --kernel with syscalls:* events on the perf source says why they have
# no kernel frames (item 7). Runs on any stack source (USTACK_SOURCE);
# the perf events counted need the perf source. Every run uses its own
# -B instance and checks it is gone afterwards.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	capture_setup
}

teardown() {
	instance_teardown
}

# perf_events_opened ARGS...: successful perf_event_open calls of a live
# run of /bin/true with ARGS (strace -f counts them: the tool's and its
# child's)
perf_events_opened() {
	strace -f -qq -e trace=perf_event_open -o "$TMP/strace" \
		"$USTACK" -B "$NAME" -q "$@" -- /bin/true > /dev/null 2>&1
	grep 'perf_event_open(' "$TMP/strace" | grep -vc '= -1 '
}

@test "default set on the perf source: no more perf events opened than -e raw_syscalls:sys_enter" {
	[ "$(stack_source)" = perf ] || skip "counts perf events: the perf source's"
	command -v strace > /dev/null || skip "no strace"
	one=$(perf_events_opened -e raw_syscalls:sys_enter)
	default=$(perf_events_opened)
	echo "one event: $one, default: $default"
	[ "$one" -gt 0 ]
	# before: one per syscalls:sys_enter_* event and CPU, some 720 here
	[ "$default" -le $((one * 3)) ]
}

@test "default set on a tracefs source: the instance enables raw_syscalls:sys_enter, no syscalls:* event" {
	# the perf source samples the events itself (the test above)
	[ "$(stack_source)" != perf ] || skip "the instance's events: a tracefs source's"
	# the traced command itself lists what the instance has enabled
	run --separate-stderr "$USTACK" -B "$NAME" -q --folded -- sh -c \
		"cd '$TRACEFS/instances/$NAME/events' && grep -l 1 */*/enable > '$TMP/enabled'"
	[ "$status" -eq 0 ]
	cat "$TMP/enabled"
	! grep -q '^syscalls/' "$TMP/enabled" || false
	grep -qx 'raw_syscalls/sys_enter/enable' "$TMP/enabled"
}

@test "default set live: each event named by its call in stacks, folded and perf-script" {
	run --separate-stderr "$USTACK" -B "$NAME" -q -- "$PROGS/deep" 3
	[ "$status" -eq 0 ]
	# the raw event's fields, under the call's name
	[ "$(grep -cE '^ *deep-[0-9]+ +\[[0-9]+\] +[0-9.]+: sys_enter_getppid: NR [0-9]+ ' \
		<<< "$output")" -eq 3 ]
	! grep -q ' sys_enter: ' <<< "$output" || false
	run --separate-stderr "$USTACK" -B "$NAME" -q --folded --event-root -- "$PROGS/deep" 3
	[ "$status" -eq 0 ]
	grep -q '^sys_enter_getppid;deep;.*chain_20 3$' <<< "$output"
	run --separate-stderr "$USTACK" -B "$NAME" -q --perf-script -- "$PROGS/deep" 3
	[ "$status" -eq 0 ]
	[ "$(grep -c ': 1 syscalls:sys_enter_getppid:$' <<< "$output")" -eq 3 ]
	! grep -q 'raw_syscalls' <<< "$output" || false
}

@test "default set recorded: the file holds raw_syscalls:sys_enter, report names each call" {
	"$USTACK" record -B "$NAME" -q -o "$TMP/d.dat" -- "$PROGS/deep" 3 2> "$TMP/err"
	# the file's formats: the one raw event, no per-call one
	trace-cmd dump --events -i "$TMP/d.dat" 2>/dev/null | grep '^name: sys_' > "$TMP/formats"
	[ "$(cat "$TMP/formats")" = "name: sys_enter" ]
	# getppid's number, as the headers say
	nr=$(printf '#include <sys/syscall.h>\nSYS_getppid\n' | cc -E - | tail -1)
	run --separate-stderr "$USTACK" report -i "$TMP/d.dat"
	[ "$status" -eq 0 ]
	[ "$(grep -c ": sys_enter_getppid: NR $nr " <<< "$output")" -eq 3 ]
	run --separate-stderr "$USTACK" report -i "$TMP/d.dat" --perf-script
	[ "$(grep -c ': 1 syscalls:sys_enter_getppid:$' <<< "$output")" -eq 3 ]
	run --separate-stderr "$USTACK" report -i "$TMP/d.dat" --folded --event-root
	grep -q '^sys_enter_getppid;deep;.*chain_20 3$' <<< "$output"
}

@test "report -e takes a call's name or raw_syscalls:sys_enter; a call never traced is refused" {
	"$USTACK" record -B "$NAME" -q -o "$TMP/d.dat" -- "$PROGS/deep" 3 2> "$TMP/err"
	run --separate-stderr "$USTACK" report -i "$TMP/d.dat" --folded -e syscalls:sys_enter_getppid
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == deep\;*chain_20\ 3 ]]
	[[ "$stderr" == *"(shown: 3)"* ]]
	run --separate-stderr "$USTACK" report -i "$TMP/d.dat" --folded -e 'syscalls:*getppid'
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"(shown: 3)"* ]]
	# the trace's own name takes them all
	run --separate-stderr "$USTACK" report -i "$TMP/d.dat" --folded -e raw_syscalls:sys_enter
	[ "$status" -eq 0 ]
	! [[ "$stderr" == *"left out by filters"* ]] || false
	run --separate-stderr "$USTACK" report -i "$TMP/d.dat" -e syscalls:sys_exit_getppid
	[ "$status" -eq 1 ]
	[ "$stderr" = "trace-cmd ustack: -e syscalls:sys_exit_getppid: $TMP/d.dat has no such event" ]
}

@test "raw_syscalls:sys_enter named by its call in the flame graph, pprof, speedscope, --top, --tree" {
	"$USTACK" record -B "$NAME" -q -o "$TMP/d.dat" -e raw_syscalls:sys_enter \
		-- "$PROGS/deep" 3 2> "$TMP/err"
	"$USTACK" report -q -i "$TMP/d.dat" -e syscalls:sys_enter_getppid --event-root \
		--flamegraph "$TMP/f.svg" --speedscope "$TMP/s.json" --pprof "$TMP/p.pb.gz" \
		> /dev/null
	grep -q 'syscalls:sys_enter_getppid' "$TMP/f.svg"
	grep -q '"sys_enter_getppid"' "$TMP/s.json"
	gzip -dc "$TMP/p.pb.gz" | grep -aq 'sys_enter_getppid'
	! grep -q 'raw_syscalls' "$TMP/f.svg" "$TMP/s.json" || false
	run --separate-stderr "$USTACK" report -i "$TMP/d.dat" --top=3 -e syscalls:sys_enter_getppid
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "# 3 events: syscalls:sys_enter_getppid 3" ]]
	run --separate-stderr "$USTACK" report -i "$TMP/d.dat" --tree --event-root \
		-e syscalls:sys_enter_getppid
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "# 3 events: syscalls:sys_enter_getppid 3" ]]
	grep -qE '^ +100\.00% +3  sys_enter_getppid$' <<< "$output"
}

@test "a call number the build's headers do not name is sys_enter_NUMBER" {
	command -v python3 > /dev/null || skip "no python3"
	run --separate-stderr "$USTACK" -B "$NAME" -q --folded --event-root -- \
		python3 -c 'import ctypes; ctypes.CDLL(None).syscall(999)'
	[ "$status" -eq 0 ]
	grep -q '^sys_enter_999;python3;.* 1$' <<< "$output"
}

@test "--kernel on the perf source: syscalls:* events say once why they have no kernel frames" {
	[ "$(stack_source)" = perf ] || skip "the perf source's syscall tracepoints"
	run --separate-stderr "$USTACK" -B "$NAME" --kernel --folded \
		-e syscalls:sys_enter_getppid -e syscalls:sys_enter_getpid -- "$PROGS/deep" 2
	[ "$status" -eq 0 ]
	echo "$stderr"
	[ "$(grep -c 'no kernel frames' <<< "$stderr")" -eq 1 ]
	grep -q "^trace-cmd ustack: --kernel: syscalls:sys_enter_[a-z]* and 1 other syscalls:\* event get no kernel frames from perf events: their tracepoints fire with the task's user registers (perf record -g gets none either); raw_syscalls:sys_enter has them$" <<< "$stderr"
	# no notice without --kernel, nor for the default set, which has them
	run --separate-stderr "$USTACK" -B "$NAME" --folded -e syscalls:sys_enter_getppid \
		-- "$PROGS/deep" 2
	! grep -q 'no kernel frames' <<< "$stderr" || false
	run --separate-stderr "$USTACK" -B "$NAME" --kernel --folded -- "$PROGS/deep" 2
	[ "$status" -eq 0 ]
	! grep -q 'no kernel frames' <<< "$stderr" || false
}

@test "--kernel with the default set: kernel frames above the user ones" {
	run --separate-stderr "$USTACK" -B "$NAME" -q --kernel --folded --event-root -- \
		"$PROGS/deep" 2
	[ "$status" -eq 0 ]
	echo "$output"
	# before: syscalls:* events, no kernel frames on the perf source
	grep -qE '^sys_enter_getppid;deep;.*chain_20;.*_\[k\] 2$' <<< "$output"
}
