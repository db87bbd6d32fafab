#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's throttling of the perf source's events, counted and said:
# a sampling event whose hits come faster than
# kernel.perf_event_max_sample_rate allows a tick is throttled until a
# later tick, and its hits in between are neither sampled nor counted in
# any LOST record; the kernel writes THROTTLE and UNTHROTTLE records into
# its ring. Live, record (as recorded) and report say how many times and
# for how long ("throttled by kernel:"), and say nothing when it did not
# happen.
#
# How it is made to happen for real: not with the global sysctl. The
# perf source's tracepoint events (sample_period 1, PERF_SAMPLE_PERIOD)
# are never throttled: a hit is one overflow, and the kernel checks the
# rate only from a hit's second overflow on (perf_swevent_overflow(),
# kernel/events/core.c); on 6.18, 500,000 getppid calls in 0.3 s with
# kernel.perf_event_max_sample_rate lowered to 1000 gave every sample and
# no THROTTLE record. So the test leaves that sysctl alone (it is global:
# every other perf user on the machine would be throttled with it), and a
# preloaded shim (freq.so, built below) makes the tool's tracepoint
# events sample by frequency instead (freq, sample_freq 100): the kernel
# starts such an event with a period of 1, and sched_stat_runtime's first
# hit adds its runtime in nanoseconds, that many overflows at once, so the
# kernel samples the first max_samples_per_tick of them and throttles the
# event. Real THROTTLE and UNTHROTTLE records in the tool's own rings, of
# its own task's events only. The parts the kernel does not decide (the
# pairing of the records by event, the time of a span still open at the
# end) are checked exactly through tests/tools/ustack-session-test.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
	cat > "$BATS_FILE_TMPDIR/freq.c" <<'SHIM'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

/* The tool's tracepoint events sampled by frequency, not every hit */
long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	struct perf_event_attr *attr;
	va_list ap;
	long a[6];
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	attr = (struct perf_event_attr *)a[0];
	if (nr == SYS_perf_event_open && attr->type == PERF_TYPE_TRACEPOINT &&
	    !attr->freq && attr->sample_period == 1) {
		attr->freq = 1;
		attr->sample_freq = 100;
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
SHIM
	${CC:-cc} -shared -fPIC -o "$BATS_FILE_TMPDIR/freq.so" "$BATS_FILE_TMPDIR/freq.c" -ldl
}

teardown() {
	instance_teardown
}

# the summary line, and its count of times
LINE_RE='^  throttled by kernel:  ([0-9]+) times?, [0-9]+\.[0-9] ms \(hits in those spans were neither sampled nor counted; kernel\.perf_event_max_sample_rate\)$'

# throttle_setup: a capture test on the perf source's host kernel
throttle_setup() {
	capture_setup
	has_deferred && skip "the patched kernel: its tests are in tests/bats/vm/"
	[ -e "$TRACEFS/events/sched/sched_stat_runtime/id" ] ||
		skip "no sched:sched_stat_runtime on this kernel"
	# an ASan build wants its runtime first; the shim only adds a symbol
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
}

# throttled: the tool with its events sampled by frequency (freq.so)
throttled() {
	LD_PRELOAD="$BATS_FILE_TMPDIR/freq.so" "$@"
}

# a shell busy for some hundreds of ms: sched_stat_runtime at each tick
WORKLOAD=(sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done')

# throttle_count TEXT: the count of the summary's line, which must be there once
throttle_count() {
	local line

	[ "$(grep -c 'throttled by kernel:' <<<"$1")" -eq 1 ]
	line=$(grep 'throttled by kernel:' <<<"$1")
	[[ "$line" =~ $LINE_RE ]]
	echo "${BASH_REMATCH[1]}"
}

@test "perf throttle: a live run whose event the kernel throttles says how many times and how long; one not throttled says nothing" {
	throttle_setup
	run --separate-stderr throttled "$USTACK" -B "$NAME" --stack-source=perf --folded \
		-e sched:sched_stat_runtime -- "${WORKLOAD[@]}"
	echo "$stderr"
	[ "$status" -eq 0 ]
	n=$(throttle_count "$stderr")
	[ "$n" -gt 0 ]
	# the same run, every hit one sample: never throttled
	run --separate-stderr "$USTACK" -B "$NAME" --stack-source=perf --folded \
		-e sched:sched_stat_runtime -- "${WORKLOAD[@]}"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"ustack summary:"* ]]
	[[ "$stderr" != *"throttled"* ]]
}

@test "perf throttle: record says the throttling as recorded, report of the file the same line; stock trace-cmd report reads the file; unthrottled, neither says it" {
	throttle_setup
	run --separate-stderr throttled "$USTACK" record -B "$NAME" --stack-source=perf \
		-o "$TMP/t.dat" -e sched:sched_stat_runtime -- "${WORKLOAD[@]}"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"ustack summary (as recorded):"* ]]
	n=$(throttle_count "$stderr")
	[ "$n" -gt 0 ]
	recorded=$(grep 'throttled by kernel:' <<<"$stderr")
	run --separate-stderr "$USTACK" report -i "$TMP/t.dat" --folded
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(grep 'throttled by kernel:' <<<"$stderr")" = "$recorded" ]
	# kept as print records: the stock reader shows them as text
	if command -v trace-cmd >/dev/null; then
		run trace-cmd report "$TMP/t.dat"
		[ "$status" -eq 0 ]
		[ "$(grep -c 'ustack-sb throttle id=[0-9]*$' <<<"$output")" -eq "$n" ]
	fi
	run --separate-stderr "$USTACK" record -B "$NAME" --stack-source=perf \
		-o "$TMP/u.dat" -e sched:sched_stat_runtime -- "${WORKLOAD[@]}"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"ustack summary (as recorded):"* ]]
	[[ "$stderr" != *"throttled"* ]]
	run --separate-stderr "$USTACK" report -i "$TMP/u.dat" --folded
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"ustack summary:"* ]]
	[[ "$stderr" != *"throttled"* ]]
}

# As a trace.dat holds them: spans paired by event id, interleaved; one
# without its UNTHROTTLE lasts to the last record (a sample here); an
# UNTHROTTLE whose THROTTLE came before the run is no time counted
@test "perf throttle: spans paired by event id, one never resumed lasting to the last record, an unthrottle alone not counted" {
	session_script --summary <<'EOF'
1 1000000 100 print buf=ustack-sb\sunthrottle\sid=9
1 2000000 100 print buf=ustack-sb\sthrottle\sid=5
1 3000000 100 print buf=ustack-sb\sthrottle\sid=6
1 4000000 100 print buf=ustack-sb\sunthrottle\sid=5
1 5000000 100 print buf=ustack-sb\scomm\spid=100\stid=100\sexec=0\scomm=prog
1 9000000 100 print buf=ustack-sb\slost\spid=100\sn=1
EOF
	[ "$status" -eq 0 ]
	# id 5: 2 ms; id 6: from 3 ms to the last record, 9 ms: 6 ms
	grep -qx '  throttled by kernel:  2 times, 8.0 ms (hits in those spans were neither sampled nor counted; kernel.perf_event_max_sample_rate)' \
		<<<"$output"
}
