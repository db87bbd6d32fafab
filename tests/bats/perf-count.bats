#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Tracepoints that count more than one a hit (issue 47's leftover): a
# tracepoint whose TP_PROTO has a __perf_count(x) argument (7.3:
# sched_stat_runtime and the sched_stat_template events) adds x to its perf
# event's count, and with sample_period 1 alone perf writes one sample per
# unit of x, then throttles the event. The perf source asks for
# PERF_SAMPLE_PERIOD (lib/ustack-perf-source.c): one sample a hit, its x
# as the period, whatever the source or unwinding. Each run's
# sched_stat_runtime stacks are counted against the hits a tracefs
# instance of the test's own sees in the same run, in the context of the
# test's own process only: other processes may trace and run beside it.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	capture_setup
	[ -e "$TRACEFS/events/sched/sched_stat_runtime/id" ] ||
		skip "no sched:sched_stat_runtime on this kernel"
	COUNTER="$TRACEFS/instances/$(instance_name)-count"
}

teardown() {
	[ ! -d "$COUNTER" ] || rmdir "$COUNTER"
	instance_teardown
}

# counter_start: the test's own instance, which records every
# sched_stat_runtime hit of every task (a tracefs record a hit)
counter_start() {
	mkdir "$COUNTER"
	echo 4096 >"$COUNTER/buffer_size_kb"
	echo 1 >"$COUNTER/events/sched/sched_stat_runtime/enable"
}

# counter_stop: tracing off, and nothing the counter saw was overwritten
counter_stop() {
	echo 0 >"$COUNTER/tracing_on"
	! grep -h '^overrun: *[1-9]' "$COUNTER"/per_cpu/cpu*/stats
}

# stat_runtime_of PID <TEXT: sched_stat_runtime records of task PID's
# context (the line's header, "comm-PID [cpu]", in both outputs)
stat_runtime_of() {
	grep -c -E -- "-$1 +\[[0-9]+\].* sched_stat_runtime: " || true
}

# workload: a shell busy for some hundreds of ms (sched_stat_runtime at
# each tick and switch), then deep's 5 getppid calls: its pid in $TMP/pid
WORKLOAD=(sh -c 'echo $$ >"$1"; i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done
	exec "$2" 5' sh)

# one_per_hit OUTPUT: the tool's sched_stat_runtime records of the
# workload against the counter's: as many, but for the few of its fork
# before its exec, which the tool skips (ratio at least 0.8); with one
# sample per unit of runtime they were ten times as many
one_per_hit() {
	local pid want got

	pid=$(cat "$TMP/pid")
	want=$(stat_runtime_of "$pid" <"$COUNTER/trace")
	got=$(stat_runtime_of "$pid" <"$1")
	echo "sched_stat_runtime of $pid: tool $got, tracefs instance $want"
	[ "$want" -ge 20 ]
	[ "$got" -le "$want" ]
	[ $((got * 10)) -ge $((want * 8)) ]
}

# deep_whole OUTPUT: deep's 5 getppid events (dash makes one of its own
# as it starts), each with its whole chain
deep_whole() {
	[ "$(grep -c -E '^ *deep-[0-9]+ .* sys_enter_getppid:' "$1")" -eq 5 ]
	[ "$(grep -c '^  chain_20+' "$1")" -eq 5 ]
	[ "$(grep -c '^  chain_01+' "$1")" -eq 5 ]
}

# live_counted OPTION...: a live run with OPTIONs and the events after
# them, of the workload, counted against the test's own instance; each
# of its sched_stat_runtime hits one stack, and deep's chains whole
live_counted() {
	counter_start
	"$USTACK" -B "$NAME" -o "$TMP/out" "$@" -e syscalls:sys_enter_getppid \
		-- "${WORKLOAD[@]}" "$TMP/pid" "$PROGS/deep" 2>"$TMP/err" ||
		{ cat "$TMP/err"; return 1; }
	counter_stop
	cat "$TMP/err"
	one_per_hit "$TMP/out"
	deep_whole "$TMP/out"
}

@test "default source: sched_stat_runtime one stack per hit, as tracefs counts them, beside getppid" {
	live_counted -e sched:sched_stat_runtime
}

@test "--stack-source=perf with a sched_stat_* glob: one stack per hit, no refusal" {
	live_counted --stack-source=perf -e 'sched:sched_stat_*'
}

@test "--stack-source=perf --call-graph=dwarf: sched_stat_runtime one stack copy per hit" {
	live_counted --stack-source=perf --call-graph=dwarf -e sched:sched_stat_runtime
}

@test "record and report: sched_stat_runtime one stack per hit in the recording" {
	counter_start
	"$USTACK" record -B "$NAME" -o "$TMP/t.dat" -e sched:sched_stat_runtime \
		-e syscalls:sys_enter_getppid -- "${WORKLOAD[@]}" "$TMP/pid" "$PROGS/deep" \
		>"$TMP/rec.out" 2>&1 || { cat "$TMP/rec.out"; return 1; }
	counter_stop
	"$USTACK" report -i "$TMP/t.dat" >"$TMP/out" 2>"$TMP/err" ||
		{ cat "$TMP/err"; return 1; }
	one_per_hit "$TMP/out"
	deep_whole "$TMP/out"
}
