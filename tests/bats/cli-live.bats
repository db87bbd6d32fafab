#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Live capture on this machine's kernel: the bundled programs of
# tests/progs have known call chains, and the stacks printed must be
# exactly those chains (on a stock kernel through the synchronous
# fallback: the 8 innermost frames). Every run uses its own -B instance
# and checks it is gone afterwards.

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

ustack() {
	"$USTACK" -B "$NAME" -q -e syscalls:sys_enter_getppid "$@"
}

@test "a launched command is shown from its exec: the tracer's own execve is not" {
	# sh's own exec comes from our child (ustack_child_fork;execve); the
	# exec of deep, by a child of sh, is the user's
	run --separate-stderr ustack -c -e syscalls:sys_enter_execve --folded -- \
		sh -c "'$PROGS/deep' 1; true"
	echo "$output"
	[ "$status" -eq 0 ]
	! grep -E 'ustack_child_fork|^trace-cmd-ust' <<< "$output" || false
	[ "$(grep -c 'execve' <<< "$output")" -eq 1 ]
	grep -q '^sh;.*execve 1$' <<< "$output"
	grep -q 'getppid\|deep_1\|main' <<< "$output"
}

@test "deep chain: stacks mode shows the innermost frames in order" {
	run --separate-stderr ustack -- "$PROGS/deep" 5
	[ "$status" -eq 0 ]
	n=$(frames_max)
	[ "$n" -gt 21 ] && n=21
	got=$(first_stack <<< "$output" | head -n "$n")
	want=$( (deep_chain 20; echo main) | head -n "$n")
	[ "$got" = "$want" ]
	[ "$(grep -c 'sys_enter_getppid' <<< "$output")" -eq 5 ]
}

@test "deep chain: folded mode gives one line with the count" {
	run --separate-stderr ustack --folded -- "$PROGS/deep" 6
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	n=$(frames_max)
	if [ "$n" -lt 22 ]; then
		[ "${lines[0]}" = "deep;[truncated];$(deep_chain "$n" | tac | paste -sd';') 6" ]
	else
		[[ "${lines[0]}" == "deep;"*"main;$(deep_chain 20 | tac | paste -sd';') 6" ]]
	fi
}

@test "an 8-frame userstacktrace cut ends in [truncated] in every output and is counted" {
	[ "$(stack_source)" = userstacktrace ] || skip "stack source $(stack_source)"
	run --separate-stderr "$USTACK" -B "$NAME" -e syscalls:sys_enter_getppid \
		--flamegraph "$TMP/f.svg" --pprof "$TMP/p.pb.gz" --speedscope "$TMP/s.json" \
		--folded -- "$PROGS/deep" 3
	[ "$status" -eq 0 ]
	[ "$output" = "deep;[truncated];$(deep_chain 8 | tac | paste -sd';') 3" ]
	[[ "$stderr" == *"truncated stacks:     3"* ]]
	grep -q '\[truncated\]' "$TMP/f.svg"
	grep -q '\[truncated\]' "$TMP/s.json"
	gzip -dc "$TMP/p.pb.gz" | grep -aq '\[truncated\]'
	run --separate-stderr ustack -- "$PROGS/deep" 1
	[ "$(sed -n 10p <<< "$output")" = "  [truncated]" ]
	run --separate-stderr ustack --perf-script -- "$PROGS/deep" 1
	[ "$(sed -n 10p <<< "$output")" = $'\t0 [truncated] ([unknown])' ]
}

@test "a stack shorter than the 8 userstacktrace slots is not marked truncated" {
	run --separate-stderr "$USTACK" -B "$NAME" -e syscalls:sys_enter_getppid --folded -- "$PROGS/shlib" 2
	[ "$status" -eq 0 ]
	[[ "$output" != *"[truncated]"* ]]
	[[ "$stderr" == *"truncated stacks:     0"* ]]
}

@test "shared library chain crosses into libustack-chain.so" {
	run --separate-stderr ustack -- "$PROGS/shlib" 3
	[ "$status" -eq 0 ]
	got=$(first_stack <<< "$output" | head -5)
	[ "$got" = "$(printf '%s\n' lib_inner lib_middle lib_outer app_call main)" ]
	[[ "$output" == *"lib_inner+0x"*"(libustack-chain.so)"* ]]
	[[ "$output" == *"app_call+0x"*"(shlib)"* ]]
	run --separate-stderr ustack --folded -- "$PROGS/shlib" 4
	[[ "$output" == *"main;app_call;lib_outer;lib_middle;lib_inner 4" ]]
}

@test "threads: each thread's stacks carry its own chain" {
	run --separate-stderr ustack --folded -- "$PROGS/threads" 4
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	for x in alpha beta gamma; do
		grep -q "${x}_thread;${x}_1;${x}_2;leaf_syscall 4\$" <<< "$output" ||
			{ echo "no $x chain"; return 1; }
	done
}

@test "perf-script output names the event and the frames" {
	run --separate-stderr ustack --perf-script -- "$PROGS/shlib" 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"syscalls:sys_enter_getppid"* ]]
	[[ "$output" == *"lib_inner+0x"*"(libustack-chain.so)"* ]] ||
		[[ "$output" == *"lib_inner"*"libustack-chain.so"* ]]
}

@test "the fallback says once what is lost, and the man page section that says where the patches are" {
	has_deferred && skip "kernel has deferred stacks"
	run --separate-stderr "$USTACK" -B "$NAME" -e syscalls:sys_enter_getppid -- "$PROGS/deep" 1
	[ "$status" -eq 0 ]
	[ "$(grep -c 'no deferred user stacks' <<< "$stderr")" -eq 1 ]
	[[ "$stderr" == *"at most $(frames_max) frames"* ]]
	if [ "$(stack_source)" = perf ]; then
		[[ "$stderr" == *"stacks from perf events"* ]]
	fi
	# an installed user has no kernel-patches/: the man page's section
	[[ "$stderr" != *"kernel-patches/"* ]]
	[[ "$stderr" == *"see THE FALLBACK in man trace-cmd-ustack"* ]]
	man="$ROOT/Documentation/trace-cmd-ustack.1.txt"
	sed -n '/^THE FALLBACK$/,/^[A-Z][A-Z ]*$/p' "$man" | grep -q 'share/doc/trace-cmd-ustack/kernel-patches'
}

@test "summary lists events, stacks, losses and unresolved frames" {
	run --separate-stderr "$USTACK" -B "$NAME" -e syscalls:sys_enter_getppid -- "$PROGS/deep" 2
	[ "$status" -eq 0 ]
	for k in "events:" "user stacks" "stacks lost:" "frames unresolved:" "ring-buffer losses:"; do
		[[ "$stderr" == *"$k"* ]] || { echo "no $k"; return 1; }
	done
	run --separate-stderr "$USTACK" -B "$NAME" -q -e syscalls:sys_enter_getppid -- "$PROGS/deep" 1
	[[ "$stderr" != *"events:"* ]]
}

@test "default events are the syscalls of the command" {
	run --separate-stderr "$USTACK" -B "$NAME" -q -- "$PROGS/deep" 2
	[ "$status" -eq 0 ]
	[[ "$output" == *"sys_enter_getppid"* ]]
	[[ "$output" == *"sys_enter_nanosleep"* || "$output" == *"sys_enter_clock_nanosleep"* ]]
	# only the command: one task, whatever runs beside the test (another
	# deep too), named deep (its execve is made under the name of the
	# launcher it still is then)
	tasks=$(grep -E '^ *[^ ].*-[0-9]+ +\[' <<< "$output")
	[ "$(sed -E 's/^ *.*-([0-9]+) +\[.*/\1/' <<< "$tasks" | sort -u | wc -l)" -eq 1 ]
	[ -z "$(grep -v '^ *deep-' <<< "$tasks" | grep -v '<...>-' |
		grep -v '^ *trace-cmd-ustac-[0-9]* .*sys_enter_execve:')" ]
}

@test "-P traces a running process, -d stops the run" {
	# runs until killed (one getppid every 20 ms), whatever the load
	"$PROGS/deep" 1000000 & pid=$!
	wait_exec "$pid" deep
	run --separate-stderr "$USTACK" -B "$NAME" -q --folded -e syscalls:sys_enter_getppid -P "$pid" -d 2
	kill "$pid"; wait "$pid" || true
	[ "$status" -eq 0 ]
	[[ "$output" == "deep;"*"chain_19;chain_20 "* ]]
}

# -s takes microseconds, poll() milliseconds: a sleep under one would
# be poll(.., 0), a reader spinning on a CPU for the whole run.
@test "-s under a millisecond: the reader still sleeps 1 ms in poll(), never 0 (no busy loop)" {
	command -v strace >/dev/null || skip "strace not installed (scripts/install-deps)"
	run --separate-stderr strace -f -qq -e trace=poll -o "$TMP/st" \
		"$USTACK" -B "$NAME" -q -s 1 -e syscalls:sys_enter_getppid -- "$PROGS/deep" 3
	[ "$status" -eq 0 ]
	[ "$(grep -c 'sys_enter_getppid' <<< "$output")" -eq 3 ]
	grep -qE 'poll\(\[.*\], [0-9]+, 1[) ]' "$TMP/st"
	[ -z "$(grep -E 'poll\(\[.*\], [0-9]+, 0[) ]' "$TMP/st")" ]
}

@test "-c follows children, and only with -c" {
	cat > "$TMP/parent.sh" <<EOT
#!/bin/sh
"$PROGS/shlib" 3
EOT
	chmod +x "$TMP/parent.sh"
	# the shell itself may call getppid(): only the child must be absent
	run --separate-stderr ustack --folded -- "$TMP/parent.sh"
	[ "$status" -eq 0 ]
	[[ "$output" != *"lib_inner"* ]]
	run --separate-stderr ustack --folded -c -- "$TMP/parent.sh"
	[[ "$output" == *"lib_inner 3" ]]
}

@test "--comm filters the output" {
	run --separate-stderr ustack --folded -c --comm nosuchcomm -- "$PROGS/shlib" 2
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "--kernel adds kernel frames before the user frames" {
	if [ "$(stack_source)" = perf ]; then
		# perf samples a syscall tracepoint with the user registers, so
		# it has no kernel chain there (nor has perf record -g)
		run --separate-stderr "$USTACK" -B "$NAME" -q --kernel \
			-e sched:sched_process_exit -- "$PROGS/deep" 1
		[ "$status" -eq 0 ]
		[ "$(sed -n 2p <<< "$output" | grep -c '(\[kernel\])')" -eq 1 ]
		grep -q 'do_exit+0x' <<< "$output"
		[[ "$output" == *"([kernel])"*"_exit+0x"*"(libc.so.6)"* ]]
		return
	fi
	run --separate-stderr ustack --kernel -- "$PROGS/deep" 1
	[ "$status" -eq 0 ]
	# a kernel syscall entry frame, then our chain
	grep -qiE 'do_syscall_64|entry_SYSCALL|x64_sys_call' <<< "$output"
	[[ "$output" == *"chain_20+0x"* ]]
}

@test "a short-lived command is still symbolized (side-band, or stopped at exit for its maps)" {
	run --separate-stderr ustack --folded -- "$PROGS/shlib" 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"lib_inner 1" ]]
}

@test "SIGINT stops a live run cleanly, with every stack traced before it" {
	# the shell execs sleep once deep has made its 3 calls: then they are
	# in the ring buffer, whatever the load, and the run is still going
	"$USTACK" -B "$NAME" -q -c -e syscalls:sys_enter_getppid \
		-- sh -c '"$1" 3; exec sleep 600' sh "$PROGS/deep" > "$TMP/out" 2> "$TMP/err" &
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
	[ "$(grep -c "^  chain_20+0x" "$TMP/out")" -eq 3 ]
}
