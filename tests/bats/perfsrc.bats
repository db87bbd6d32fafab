#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The perf stack source on this machine's kernel (lib/ustack-perf-source.c):
# for the bundled programs every event has the stack `perf record -g`
# gets for the same event, frame for frame, and the counts are exact;
# the choice of source and its notice. Every run uses its own -B
# instance and checks it is gone afterwards.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	perf_host_setup
}

teardown() {
	instance_teardown
}

# perf-script text -> one line per event (comm, then its frames' symbols
# leaf first, offsets and files left out), counted
per_event() {
	awk '/^[^\t]/ && NF { if (s != "") print s; s = $1; next }
	     /^\t/ { sub(/^[ \t]*[0-9a-f]+ /, ""); sub(/\+0x[0-9a-f]+/, "");
		     sub(/ \(.*\)$/, ""); s = s ";" $0; next }
	     END { if (s != "") print s }' | sort | uniq -c
}

# compare PROG ARGS...: ours (perf source) against perf record -g
compare() {
	# -B -N: this host's perf 6.1 may abort in its build-id pass, which
	# adds nothing to the stacks compared
	perf record -B -N -q -g -o "$TMP/perf.data" -e syscalls:sys_enter_getppid -- "$@" \
		>/dev/null 2>"$TMP/perf.err" || { cat "$TMP/perf.err"; return 1; }
	perf script -i "$TMP/perf.data" 2>/dev/null | per_event >"$TMP/want"
	"$USTACK" -B "$NAME" -q --stack-source=perf --perf-script \
		-e syscalls:sys_enter_getppid -- "$@" >"$TMP/ours.txt"
	per_event <"$TMP/ours.txt" >"$TMP/got"
	[ -s "$TMP/want" ]
	diff -u "$TMP/want" "$TMP/got"
}

@test "perf source: the 22-deep chain is whole, as perf record -g has it" {
	compare "$PROGS/deep" 3
	grep -q 'chain_01;main;__libc_start_call_main$' "$TMP/got"
}

@test "perf source: each thread's stack as perf record -g has it" {
	compare "$PROGS/threads" 2
}

@test "perf source: a dlopen'ed library's frames as perf record -g has them" {
	compare "$PROGS/sideband/sb-dlopen" 5
}

@test "perf source: stacks before and after an exec as perf record -g has them" {
	compare "$PROGS/sideband/sb-exec" 4 3
	grep -q '^ *4 sb-exec;before_exec;main' "$TMP/got"
}

@test "perf source: a process too short for /proc as perf record -g has it" {
	compare "$PROGS/sideband/sb-short"
}

@test "perf source: a chain cut at the frame limit ends in [truncated], counted" {
	# deep's chain is 22 frames: --max-stack 10 cuts it
	run --separate-stderr "$USTACK" -B "$NAME" --stack-source=perf --max-stack 10 --folded \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 2
	[ "$status" -eq 0 ]
	[ "$output" = "deep;[truncated];$(deep_chain 10 | tac | paste -sd';') 2" ]
	[[ "$stderr" == *"at most 10 frames (--max-stack)"* ]]
	[[ "$stderr" == *"truncated stacks:     2"* ]]
	# 22 frames under a limit of 23: not cut, not marked (exactly 22 would be:
	# the kernel says nothing when it stops)
	run --separate-stderr "$USTACK" -B "$NAME" --stack-source=perf --max-stack 23 --folded \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 1
	[[ "$output" != *"[truncated]"* ]]
	[[ "$stderr" == *"truncated stacks:     0"* ]]
}

@test "perf source: -f filters in the kernel (PERF_EVENT_IOC_SET_FILTER), a bad one is an error" {
	run --separate-stderr "$USTACK" -B "$NAME" -q --stack-source=perf --folded \
		-e syscalls:sys_enter_getppid -f 'common_pid == 1' -- "$PROGS/deep" 2
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run --separate-stderr "$USTACK" -B "$NAME" -q --stack-source=perf --folded \
		-e syscalls:sys_enter_getppid -f 'no_such_field == 1' -- "$PROGS/deep" 2
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"filter"* ]]
}

@test "the tool picks the perf source on a stock kernel and says so once, with its limit" {
	run --separate-stderr "$USTACK" -B "$NAME" -e syscalls:sys_enter_getppid -- "$PROGS/deep" 1
	[ "$status" -eq 0 ]
	[ "$(grep -c 'stack' <<< "${stderr_lines[0]}")" -eq 1 ]
	[[ "${stderr_lines[0]}" == *"stacks from perf events, synchronous, at most $(cat /proc/sys/kernel/perf_event_max_stack) frames (kernel.perf_event_max_stack)"* ]]
	[ "$(grep -c '^trace-cmd ustack: no deferred' <<< "$stderr")" -eq 1 ]
}

@test "--stack-source=userstacktrace is taken as asked, and the notice says so" {
	run --separate-stderr "$USTACK" -B "$NAME" --stack-source=userstacktrace \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 1
	[ "$status" -eq 0 ]
	[[ "${stderr_lines[0]}" == *"at most 8 frames"*"(--stack-source=userstacktrace); --call-graph=auto: "* ]]
	[[ "$output" == *"  [truncated]"* ]]
}

@test "--stack-source=tracefs-deferred on a stock kernel is a one-line error" {
	run --separate-stderr "$USTACK" -B "$NAME" --stack-source=tracefs-deferred \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 1
	[ "$status" -ne 0 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"userstacktrace_delay"* ]]
	run --separate-stderr "$USTACK" --stack-source=bogus -- true
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"unknown stack source 'bogus'"* ]]
}

@test "perf source: record then report gives live's stacks, cut marks too; stock trace-cmd report opens the file" {
	"$USTACK" -B "$NAME" -q --stack-source=perf --folded -e syscalls:sys_enter_getppid \
		-- "$PROGS/deep" 3 >"$TMP/live"
	"$USTACK" record -B "$NAME" -q --stack-source=perf -o "$TMP/t.dat" \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 3
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$TMP/live")" ]
	[[ "$output" == "deep;"*"main;$(deep_chain 20 | tac | paste -sd';') 3" ]]
	# the frame limit of the recording run is in the file
	"$USTACK" record -B "$NAME" -q --stack-source=perf --max-stack 10 -o "$TMP/c.dat" \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 2
	run --separate-stderr "$USTACK" report -i "$TMP/c.dat" --folded
	[ "$output" = "deep;[truncated];$(deep_chain 10 | tac | paste -sd';') 2" ]
	[[ "$stderr" == *"truncated stacks:     2"* ]]
	run trace-cmd report -i "$TMP/t.dat"
	[ "$status" -eq 0 ]
	[ "$(grep -Ec ' sample: +pid=[0-9]+ tid=' <<< "$output")" -eq 3 ]
}

@test "perf source: record writes the samples unread; its summary counts them, cut ones too; PROCMAPS names the sampled process" {
	# deep 3 under --max-stack 10: three samples, each cut at 10 frames;
	# the recorder counts them as written (perf record's way), report
	# maps and counts the same three
	run --separate-stderr "$USTACK" record -B "$NAME" --stack-source=perf --max-stack 10 \
		-o "$TMP/t.dat" -e syscalls:sys_enter_getppid -- "$PROGS/deep" 3
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"ustack summary (as recorded):"$'\n'"  samples:              3 (events with their stacks)"$'\n'* ]]
	[[ "$stderr" == *$'\n'"  truncated stacks:     3"$'\n'* ]]
	[[ "$stderr" == *$'\n'"  ring-buffer losses:   0"$'\n'* ]]
	[[ "$stderr" == *"trace-cmd ustack report -i $TMP/t.dat"* ]]
	# nothing was paired or mapped while recording
	[[ "$stderr" != *"frames unresolved"* ]]
	run --separate-stderr "$USTACK" report -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	[ "$output" = "deep;[truncated];$(deep_chain 10 | tac | paste -sd';') 3" ]
	[[ "$stderr" == *$'\n'"  events:               3"$'\n'* ]]
	[[ "$stderr" == *$'\n'"  truncated stacks:     3"$'\n'* ]]
	# the process whose samples were written, with its program
	run trace-cmd dump --options -i "$TMP/t.dat"
	[ "$status" -eq 0 ]
	awk '/Option PROCMAPS/ { on = 1; next } on && /^$/ { exit } on' <<< "$output" > "$TMP/maps"
	cat "$TMP/maps"
	grep -q "^[0-9a-f]* [0-9]* deep$" "$TMP/maps"
	grep -q " $PROGS/deep$" "$TMP/maps"
}

# ring_sizes PID: the KiB of each perf ring PID maps (page of header
# included), one line each, sorted
ring_sizes() {
	local r rest

	grep 'perf_event' "/proc/$1/maps" | while read -r r rest; do
		echo $(((0x${r#*-} - 0x${r%-*}) / 1024))
	done | sort -n
}

# rings_mapped PID: PID has mapped its last ring (one a CPU, mapped one
# at a time: the first alone is not all of them)
rings_mapped() {
	[ "$(ring_sizes "$1" | wc -l)" -ge "$(getconf _NPROCESSORS_CONF)" ]
}

@test "perf source: a recording's rings are perf record's 512 KiB, a live run's 4 MiB (it reads every sample)" {
	local mode size

	for mode in record live; do
		if [ "$mode" = record ]; then
			"$USTACK" record -B "$NAME" -q --stack-source=perf -o "$TMP/t.dat" \
				-e syscalls:sys_enter_getppid -- "$PROGS/deep" 1000000 2>/dev/null &
			size=516
		else
			"$USTACK" -B "$NAME" -q --stack-source=perf -e syscalls:sys_enter_getppid \
				-- "$PROGS/deep" 1000000 >/dev/null 2>&1 &
			size=4100
		fi
		pid=$!
		poll_until 30 rings_mapped "$pid"
		ring_sizes "$pid" > "$TMP/sizes"
		kill -INT "$pid"
		# the run ended the command with SIGTERM: its status, 143
		wait "$pid" && status=0 || status=$?
		[ "$status" -eq 143 ]
		echo "$mode: $(paste -sd' ' "$TMP/sizes")"
		# one ring a CPU, each the size for the mode
		[ "$(wc -l < "$TMP/sizes")" -eq "$(getconf _NPROCESSORS_CONF)" ]
		[ -z "$(grep -vx "$size" "$TMP/sizes")" ]
	done
}

@test "perf source: a thread's repeated stack is stored short (flag same) and report gives each whole" {
	"$USTACK" record -B "$NAME" -q --stack-source=perf -o "$TMP/t.dat" \
		-e syscalls:sys_enter_getppid -- "$PROGS/burst/burst" 2 300 0 >/dev/null
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	local levels
	levels=$(printf 'bu_level;%.0s' $(seq 11))
	[ "$(grep -c . <<< "$output")" -eq 2 ]
	grep -qx "burst;__libc_start_call_main;main;${levels}bu_loop 300" <<< "$output"
	grep -qx "burst;start_thread;thread;${levels}bu_loop 300" <<< "$output"
	run trace-cmd report -i "$TMP/t.dat"
	[ "$status" -eq 0 ]
	[ "$(grep -Ec ' sample: +pid=[0-9]+ tid=' <<< "$output")" -eq 600 ]
	# the payload and chain of most are their thread's last one's (ustack:sample's SAME)
	[ "$(grep -Ec ' sample: +pid=.* flags=0x2 chain= raw=$' <<< "$output")" -gt 500 ]
}

@test "perf source: report needs nothing of the recording machine but the files (--symfs)" {
	"$USTACK" record -B "$NAME" -q --stack-source=perf -o "$TMP/t.dat" \
		-e syscalls:sys_enter_getppid -- "$PROGS/shlib" 2
	mkdir -p "$TMP/symfs$PROGS"
	cp "$PROGS/shlib" "$PROGS/libustack-chain.so" "$TMP/symfs$PROGS/"
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded --symfs "$TMP/symfs"
	[ "$status" -eq 0 ]
	[[ "$output" == *"main;app_call;lib_outer;lib_middle;lib_inner 2" ]]
}
