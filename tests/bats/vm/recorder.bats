#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The deferred path's recorder (lib/ustack-recorder.c) on the patched
# kernel: what `trace-cmd ustack record` keeps of a burst of getppid calls
# (tests/progs/burst, 13-frame chain). Losses are read from the instance's
# per_cpu stats, never inferred from timing: each test either sizes the
# buffer so that no reader can lose anything, or checks what was lost
# against what the file and the summary say.

bats_require_minimum_version 1.5.0
load ../helpers

BURST="$PROGS/burst/burst"

setup() {
	require_deferred
	[ -x "$BURST" ] || skip "run make on the host first ($BURST missing)"
	NAME=$(instance_name)
	TMP="$(mktemp -d)"
	# Made here so that its per_cpu stats outlive the run (-B keeps it).
	mkdir "$TRACEFS/instances/$NAME"
}

teardown() {
	# a run a failed test left in the background (perhaps stopped):
	# stopped the way ^C does
	[ -z "${BG_PID:-}" ] || kill -CONT "$BG_PID" 2>/dev/null || true
	if [ -n "${BG_PID:-}" ] && kill -INT "$BG_PID" 2>/dev/null; then
		wait "$BG_PID" || true
	fi
	if mountpoint -q "$TMP/small" 2>/dev/null; then
		umount "$TMP/small"
	fi
	[ -z "${NAME:-}" ] || rmdir "$TRACEFS/instances/$NAME" 2>/dev/null || true
	instance_teardown
}

# overrun + dropped events of every CPU of the instance
instance_lost() {
	cat "$TRACEFS/instances/$NAME"/per_cpu/cpu*/stats |
		awk '/^overrun:/ || /^dropped events:/ { n += $NF } END { print n + 0 }'
}

folded_total() {
	"$USTACK" report -q -i "$1" --folded | awk '{ n += $NF } END { print n + 0 }'
}

# --call-graph=fp: auto would take stack copies for a program without
# frame pointers (sh), whose mappings come from a perf side-band, and the
# run would then go through the stream's reader, not this recorder
record() {
	"$USTACK" record -B "$NAME" -o "$TMP/t.dat" -e syscalls:sys_enter_getppid \
		--call-graph=fp "$@"
}

@test "recorder: a buffer that holds the burst loses nothing: 20000 calls, 20000 stacks" {
	# 20000 events of ~300 bytes (event, cookie, 14-frame stack): ~6 MB
	run --separate-stderr record -b 16384 -- "$BURST" 1 20000 0
	[ "$status" -eq 0 ]
	[ "$(instance_lost)" -eq 0 ]
	[[ "$stderr" == *"ring-buffer losses:   0"* ]]
	# pairing is report's: it answers every cookie, and the stacks of our
	# own marker's and the exec's cookies are not stray
	run --separate-stderr "$USTACK" report -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"events:               20000"* ]]
	[[ "$stderr" == *"stacks lost:          0"* ]]
	[[ "$stderr" != *"unmatched stacks"* ]]
	[ "$(folded_total "$TMP/t.dat")" -eq 20000 ]
	# one stack, the whole chain
	"$USTACK" report -q -i "$TMP/t.dat" --folded >"$TMP/folded"
	[ "$(wc -l <"$TMP/folded")" -eq 1 ]
	grep -q "^burst;.*main;bu_level;.*bu_level;bu_loop 20000\$" "$TMP/folded"
}

# Files that refuse splice() (EINVAL) get the pipe's bytes copied through
# one sub-buffer at a time: no file system of the VM's kernel refuses it,
# so nosplice.so makes splice() into a regular file fail that way.
@test "recorder: an output file that refuses splice gets the data copied: 20000 calls, 20000 stacks" {
	[ -e "$PROGS/burst/nosplice.so" ] || skip "run make on the host first (nosplice.so missing)"
	run --separate-stderr env LD_PRELOAD="$PROGS/burst/nosplice.so" \
		"$USTACK" record -B "$NAME" -o "$TMP/t.dat" -e syscalls:sys_enter_getppid \
		-b 16384 -- "$BURST" 1 20000 0
	[ "$status" -eq 0 ]
	[ "$(instance_lost)" -eq 0 ]
	[[ "$stderr" == *"ring-buffer losses:   0"* ]]
	[ "$(folded_total "$TMP/t.dat")" -eq 20000 ]
	"$USTACK" report -q -i "$TMP/t.dat" --folded >"$TMP/folded"
	[ "$(wc -l <"$TMP/folded")" -eq 1 ]
	grep -q "^burst;.*main;bu_level;.*bu_level;bu_loop 20000\$" "$TMP/folded"
}

# A splice that did not fill the pipe took every full sub-buffer there was
# (move_full()): splicing again at once chased the next ones one by one.
# Each recorder thread's system calls (strace -ff, a file per thread):
# after a short splice from the ring buffer, the next one waits for a poll().
@test "recorder: a splice that did not fill the pipe ends the drain: the thread polls before the next one" {
	command -v strace >/dev/null || skip "strace not installed (scripts/install-deps)"
	run --separate-stderr strace -ff -qq -e trace=poll,splice -o "$TMP/st" \
		"$USTACK" record -B "$NAME" -o "$TMP/t.dat" -e syscalls:sys_enter_getppid \
		-q -b 16384 -- "$BURST" 1 3000 0
	[ "$status" -eq 0 ]
	[ "$(folded_total "$TMP/t.dat")" -eq 3000 ]
	python3 - "$TMP"/st.* <<-'PY'
	import re, sys
	ring = re.compile(r"^splice\(.*, (\d+), SPLICE_F_MOVE\|SPLICE_F_NONBLOCK\) = (-?\d+)")
	shorts = 0
	for name in sys.argv[1:]:
	    short = False
	    for line in open(name):
	        if line.startswith("poll("):
	            short = False
	        m = ring.match(line)
	        if not m:
	            continue
	        if short:
	            sys.exit("%s: splice again without a poll: %s" % (name, line.strip()))
	        n, size = int(m.group(2)), int(m.group(1))
	        short = 0 < n < size
	        shorts += short
	if not shorts:
	    sys.exit("no short splice from a ring buffer was seen")
	PY
}

# A wakeup whose drain moved nothing though the buffer had data (no full
# sub-buffer yet) naps on the stop pipe alone; one that moved data polls
# the buffer again. With a one-page pipe every splice fills it, so each
# drain ends on an empty ring (EAGAIN) after moving data: never a nap
# then. A small buffer wakes the thread by its watermark (POLLIN); the
# tick is 10 s (-s), so that no drain comes by the tick first however
# slowly the kernel writes (a debug kernel under TCG took 100 ms for less
# than the watermark's 100 KiB); what the burst overruns does not matter.
@test "recorder: a drain that moved data is followed by a poll of the buffer, one that moved nothing from a readable buffer by a nap" {
	command -v strace >/dev/null || skip "strace not installed (scripts/install-deps)"
	old=$(cat /proc/sys/fs/pipe-max-size)
	echo 4096 >/proc/sys/fs/pipe-max-size
	run --separate-stderr strace -ff -qq -e trace=poll,splice -o "$TMP/st" \
		"$USTACK" record -B "$NAME" -o "$TMP/t.dat" -e syscalls:sys_enter_getppid \
		-q -b 1024 -s 10000000 -- "$BURST" 1 20000 0
	echo "$old" >/proc/sys/fs/pipe-max-size
	[ "$status" -eq 0 ]
	python3 - "$TMP"/st.* <<-'PY'
	import re, sys
	ring = re.compile(r"^splice\(.*, (\d+), SPLICE_F_MOVE\|SPLICE_F_NONBLOCK\) = (-?\d+)")
	woken = 0
	for name in sys.argv[1:]:
	    moved = readable = False
	    for line in open(name):
	        m = ring.match(line)
	        if m:
	            moved = moved or int(m.group(2)) > 0
	        elif line.startswith("poll(["):
	            nap = re.match(r"poll\(\[[^]]*\], 1, ", line)
	            if moved and nap:
	                sys.exit("%s: a nap after a drain that moved data: %s" % (name, line.strip()))
	            if readable and not moved and not nap:
	                sys.exit("%s: the buffer polled again at once after a drain that moved nothing: %s" % (name, line.strip()))
	            woken += moved and readable
	            moved = False
	            # the buffer (the first fd) readable, not the stop pipe
	            fd = re.match(r"poll\(\[\{fd=(\d+),[^]]*\], 2, .*\) = ", line)
	            readable = bool(fd) and ("{fd=%s, revents=POLLIN" % fd.group(1)) in line
	if not woken:
	    sys.exit("no drain after a watermark wakeup moved data")
	PY
}

# The nap keeps the recorder off the CPU while its buffer reads as
# readable with no full sub-buffer to move. At the tool's buffer_percent
# (10) the kernel says readable only once a sub-buffer is finished
# (rb_watermark_hit(): never while the writer is on the reader page), so
# that state lasts one wakeup; at buffer_percent 0 any data is readable,
# and one event's partial sub-buffer keeps it so for the whole run. The
# workload sets 0 on the run's own instance (after the tool set 10) to
# get there, makes its one call, then sleeps 3 s: a thread that polled
# the buffer again at once (no nap, or a nap of 0 ms) would spin. The
# tool's CPU time (utime + stime of /proc/PID/stat: all its threads) over
# that sleep must stay under half of it. Not a speed test: a spinning
# thread takes ~100% of the wall time (both CPUs' threads of the VM,
# ~190% together). Naps of 1 ms took ~16% on the tiny kernel under TCG
# and 111% on the debug kernel (each nap is a timer, two polls and a
# splice, slow there): the naps in a row now double up to the tick, so
# that a slow kernel makes the recorder wake less, not spin.
@test "recorder: a buffer readable with no full sub-buffer: the recorder naps, its CPU time under half the wall time" {
	run --separate-stderr record -q -b 1024 -- sh -c '
		echo 0 >"$1/buffer_percent" || exit 1
		"$2" 1 1 0 || exit 1
		cat /proc/uptime /proc/$PPID/stat >"$3/before"
		sleep 3
		cat /proc/uptime /proc/$PPID/stat >"$3/after"' \
		sh "$TRACEFS/instances/$NAME" "$BURST" "$TMP"
	[ "$status" -eq 0 ]
	# the call's stack is in the file (sh's $PPID is a getppid too)
	"$USTACK" report -q -i "$TMP/t.dat" --folded | grep -q 'bu_loop 1$'
	python3 - "$TMP/before" "$TMP/after" "$(getconf CLK_TCK)" <<-'PY'
	import sys
	def sample(name):
	    up, stat = open(name).read().splitlines()
	    comm, rest = stat[stat.index("(") + 1:].split(")", 1)
	    f = rest.split()
	    # fields 14 and 15 (utime, stime); rest starts at field 3
	    return float(up.split()[0]), int(f[11]) + int(f[12]), comm
	t0, c0, comm = sample(sys.argv[1])
	t1, c1, _ = sample(sys.argv[2])
	if not comm.startswith("trace-cmd"):
	    sys.exit("the workload's parent is %s, not the tool" % comm)
	wall, cpu = t1 - t0, (c1 - c0) / int(sys.argv[3])
	print("recorder: %.2f s of CPU in %.2f s" % (cpu, wall))
	if cpu > wall / 2:
	    sys.exit("the recorder used %.2f s of CPU in %.2f s: it spins" % (cpu, wall))
	PY
}

# record's summary is the kernel's count of what it took (per_cpu stats,
# as trace-cmd record prints them): no record is read back (issue 13: no
# more CPU than trace-cmd record). The count is checked against stock
# trace-cmd report's reading of the same file, record by record.
@test "recorder: the summary counts the records the file holds, as trace-cmd report reads them" {
	run --separate-stderr record -b 16384 -- "$BURST" 2 3000 0
	[ "$status" -eq 0 ]
	echo "$stderr"
	[[ "$stderr" == *"ustack summary (as recorded):"* ]]
	[[ "$stderr" == *"stacks and symbols:   trace-cmd ustack report -i $TMP/t.dat"* ]]
	[[ "$stderr" == *"ring-buffer losses:   0"* ]]
	[[ "$stderr" != *"not read"* ]]
	records=$(sed -n 's/^  records: *\([0-9]*\).*/\1/p' <<<"$stderr")
	trace-cmd report -i "$TMP/t.dat" >"$TMP/report"
	[ "$records" -eq "$(grep -c ' \[[0-9]*\] ' "$TMP/report")" ]
	# 6000 events, each with its cookie and a stack, and the announcements
	[ "$records" -gt 18000 ]
}

@test "recorder: with -q nothing is printed and the file holds the same, from 4 threads" {
	run --separate-stderr record -q -b 16384 -- "$BURST" 4 5000 0
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(instance_lost)" -eq 0 ]
	[ "$(folded_total "$TMP/t.dat")" -eq 20000 ]
}

# tep_parse_event() wrapped by a preloaded library that logs each call's
# system, then runs the real one: a measuring tool, not a mock
build_parse_log() {
	cat > "$TMP/parselog.c" <<-'EOF'
	#define _GNU_SOURCE
	#include <dlfcn.h>
	#include <stdio.h>
	#include <stdlib.h>
	struct tep_handle;
	int tep_parse_event(struct tep_handle *tep, const char *buf, unsigned long size,
			    const char *sys)
	{
		int (*real)(struct tep_handle *, const char *, unsigned long, const char *);
		FILE *f = fopen(getenv("PARSE_LOG"), "a");

		if (f) {
			fprintf(f, "%s\n", sys);
			fclose(f);
		}
		*(void **)&real = dlsym(RTLD_NEXT, "tep_parse_event");
		return real(tep, buf, size, sys);
	}
	EOF
	cc -shared -fPIC -o "$TMP/parselog.so" "$TMP/parselog.c" -ldl
}

# -s takes microseconds, poll() milliseconds: a tick under one would be
# poll(.., 0), every CPU's thread spinning for the whole run.
@test "recorder: -s under a millisecond: each CPU's thread still sleeps 1 ms in poll(), never 0" {
	command -v strace >/dev/null || skip "strace not installed (scripts/install-deps)"
	run --separate-stderr strace -f -qq -e trace=poll -o "$TMP/st" \
		"$USTACK" record -B "$NAME" -o "$TMP/t.dat" -e syscalls:sys_enter_getppid \
		-q -s 1 -b 16384 -- "$BURST" 1 100 0
	[ "$status" -eq 0 ]
	[ "$(folded_total "$TMP/t.dat")" -eq 100 ]
	# the threads' tick: poll() of the CPU's buffer and the stop pipe
	grep -qE 'poll\(\[.*\], 2, 1[) ]' "$TMP/st"
	[ -z "$(grep -E 'poll\(\[.*\], [0-9]+, 0[) ]' "$TMP/st")" ]
}

@test "recorder: parses no event format (it decodes no record); live, which does, parses them" {
	command -v cc > /dev/null || skip "needs cc"
	build_parse_log
	run env LD_PRELOAD="$TMP/parselog.so" PARSE_LOG="$TMP/record.log" "$USTACK" record -q \
		-B "$NAME" -b 4096 -o "$TMP/t.dat" -e syscalls:sys_enter_getppid -- "$BURST" 1 100 0
	[ "$status" -eq 0 ]
	[ ! -s "$TMP/record.log" ]
	# the file still holds what report needs: formats, mappings, stacks
	[ "$(folded_total "$TMP/t.dat")" -eq 100 ]
	# the wrapper works: live parses our formats and the traced event's
	run env LD_PRELOAD="$TMP/parselog.so" PARSE_LOG="$TMP/live.log" "$USTACK" -q \
		-B "$NAME" --folded -e syscalls:sys_enter_getppid -- "$BURST" 1 100 0
	[ "$status" -eq 0 ]
	grep -qx syscalls "$TMP/live.log"
	grep -qx ftrace "$TMP/live.log"
}

@test "recorder: a buffer too small for the burst: losses are counted, every stack kept is whole" {
	run --separate-stderr record -b 64 -- "$BURST" 1 50000 0
	[ "$status" -eq 0 ]
	lost=$(instance_lost)
	total=$(folded_total "$TMP/t.dat")
	if [ "$lost" -eq 0 ]; then
		# The reader kept up after all: then nothing may be missing.
		[ "$total" -eq 50000 ]
	else
		[[ "$stderr" != *"ring-buffer losses:   0"* ]]
		[ "$total" -lt 50000 ]
	fi
	# A stack cut by a loss would end elsewhere than in the chain's leaf;
	# a cookie whose stack was overwritten is said to be lost.
	"$USTACK" report -q -i "$TMP/t.dat" --folded >"$TMP/folded"
	! grep -v -e "bu_level;bu_loop [0-9]*\$" -e "^burst;\[stack lost\] [0-9]*\$" "$TMP/folded"
}

# held_child PID: the command the run PID launched stopped itself before
# its burst (CHILD)
held_child() {
	CHILD=$(pgrep -P "$1" -x sh)
	[ -n "$CHILD" ] && [ "$(awk '{ print $3 }' "/proc/$CHILD/stat" 2>/dev/null)" = T ]
}

# exited: gone, or a zombie its stopped parent has not reaped
exited() {
	[ ! -e "/proc/$1" ] || [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ]
}

# A buffer certainly full: the recorder is stopped from before the
# burst's exec until it exited, so the burst's 100,000 calls meet a full
# 64 KiB buffer on its CPU whatever the speed of either side. The tool's
# instance is out of overwrite mode while it runs (lib/ustack-dropped.c):
# the first records stay (the exec's inode_cache records among them: in
# overwrite mode the burst's own stacks can overwrite them, the failure
# of the test above under load), the newest are dropped, and the
# recorder's markers count them where report reads them.
# full_scene MODE-ARGS...: trace-cmd ustack MODE-ARGS (record -o, or
# live --folded) of that burst, stopped from before its exec until it
# exited; the run's stderr in $TMP/err, stdout in $TMP/out; LOST the
# kernel's count of the records lost (overrun + dropped events)
full_scene() {
	# (not through record(): $! would be the function's subshell)
	"$USTACK" "$@" -B "$NAME" -e syscalls:sys_enter_getppid --call-graph=fp -b 64 \
		-- taskset -c 0 sh -c 'kill -STOP $$; exec "$0" 1 100000 0 > /dev/null' "$BURST" \
		> "$TMP/out" 2> "$TMP/err" &
	BG_PID=$!
	poll_until 60 held_child "$BG_PID"
	kill -STOP "$BG_PID"
	kill -CONT "$CHILD"
	poll_until 300 exited "$CHILD"
	[ "$(cat "$TRACEFS/instances/$NAME/options/overwrite")" = 0 ]
	kill -CONT "$BG_PID"
	wait "$BG_PID"
	BG_PID=
	cat "$TMP/err"
	LOST=$(instance_lost)
	echo "lost: $LOST"
	[ "$LOST" -gt 0 ]
}

# whole_or_lost FOLDED: the burst's first calls are kept, each with its
# whole chain; any other of its lines is a stack said to be lost (the
# shell before the exec has no frame pointers: its lines are left out)
whole_or_lost() {
	grep -q "^burst;.*bu_level;bu_loop [1-9][0-9]*\$" "$1"
	! grep -v -e "bu_level;bu_loop [0-9]*\$" -e "^burst;\[stack lost\] [0-9]*\$" \
		-e "^sh;" -e "^taskset;" "$1"
}

@test "recorder: a full buffer drops the newest records, out of overwrite mode: the stacks kept are whole, the drops counted as record and report say" {
	full_scene record -o "$TMP/t.dat"
	grep -qx "  ring-buffer losses:   $LOST" "$TMP/err"
	"$USTACK" report -i "$TMP/t.dat" --folded > "$TMP/folded" 2> "$TMP/rep.err"
	cat "$TMP/rep.err"
	grep -qx "  ring-buffer losses:   $LOST" "$TMP/rep.err"
	whole_or_lost "$TMP/folded"
}

@test "live: a full buffer drops the newest records: the stacks kept are whole, the drops counted as the kernel counts them" {
	full_scene --folded
	grep -qx "  ring-buffer losses:   $LOST" "$TMP/err"
	whole_or_lost "$TMP/out"
}

# The recorder writes the output like the reader does (issue 12): unique
# mkstemp() temporaries beside -o, the trace.dat renamed into place when
# complete, a failed write named in one line, no temporary left on any exit.
# Since issue 31 the temporaries have no name where the file system has
# O_TMPFILE (the guest's /tmp does): the tests of named ones ask for the
# fallback with USTACK_TEMPFILES=named.

@test "recorder: the per-CPU temporaries have no name: the output directory stays empty while recording" {
	mkdir "$TMP/out"
	# fp: burst keeps frame pointers, sh (auto's choice) does not
	"$USTACK" record -q -B "$NAME" -o "$TMP/out/t.dat" -e syscalls:sys_enter_getppid \
		--call-graph=fp -- sh -c "while [ ! -e '$TMP/go' ]; do sleep 0.05; done; exec '$BURST' 1 300 0" \
		>/dev/null 2>"$TMP/a.err" &
	BG_PID=$!
	wait_tracing "$NAME" syscalls/sys_enter_getppid
	ls -A "$TMP/out"
	[ -z "$(ls -A "$TMP/out")" ]
	# the tool holds them open, unnamed, in the output's directory
	[ "$(ls -l /proc/$BG_PID/fd | grep -c "$TMP/out/#[0-9]* (deleted)")" -ge "$(getconf _NPROCESSORS_CONF)" ]
	touch "$TMP/go"
	wait "$BG_PID"
	BG_PID=
	[ ! -s "$TMP/a.err" ]
	"$USTACK" report -q -i "$TMP/out/t.dat" --folded >"$TMP/folded"
	cat "$TMP/folded"
	grep -q "^burst;.*main;bu_level;.*bu_level;bu_loop 300\$" "$TMP/folded"
	[ "$(ls -A "$TMP/out")" = t.dat ]
}

@test "recorder: two records to one -o at once: unique temporaries, both complete, none left" {
	mkdir "$TMP/out"
	# A holds its command until B has run from start to end
	USTACK_TEMPFILES=named "$USTACK" record -q -B "$NAME" -o "$TMP/out/t.dat" \
		-e syscalls:sys_enter_getppid --call-graph=fp -- \
		sh -c "while [ ! -e '$TMP/go' ]; do sleep 0.05; done; exec '$BURST' 1 300 0" \
		>/dev/null 2>"$TMP/a.err" &
	BG_PID=$!
	wait_tracing "$NAME" syscalls/sys_enter_getppid
	ls "$TMP/out" >"$TMP/a.files"
	run --separate-stderr env USTACK_TEMPFILES=named "$USTACK" record -q -o "$TMP/out/t.dat" \
		-e syscalls:sys_enter_getppid -- "$BURST" 1 200 0
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(folded_total "$TMP/out/t.dat")" -eq 200 ]
	touch "$TMP/go"
	wait "$BG_PID"
	BG_PID=
	[ ! -s "$TMP/a.err" ]
	# A's per-CPU files while it ran: t.dat.cpuN.XXXXXX, one per CPU
	cat "$TMP/a.files"
	[ "$(grep -c '^t\.dat\.cpu[0-9]*\.......$' "$TMP/a.files")" -eq "$(getconf _NPROCESSORS_CONF)" ]
	"$USTACK" report -q -i "$TMP/out/t.dat" --folded >"$TMP/folded"
	cat "$TMP/folded"
	grep -q "^burst;.*main;bu_level;.*bu_level;bu_loop 300\$" "$TMP/folded"
	[ "$(ls -A "$TMP/out")" = t.dat ]
}

@test "recorder: a full file system: one line naming the output, nothing left in the directory" {
	mkdir "$TMP/small"
	mount -t tmpfs -o size=64k tmpfs "$TMP/small"
	# ~6 MB of events against 64 kB: a per-CPU file fills while recording
	run --separate-stderr "$USTACK" record -q -B "$NAME" -b 16384 -o "$TMP/small/t.dat" \
		-e syscalls:sys_enter_getppid -- "$BURST" 1 20000 0
	[ "$status" -eq 1 ]
	printf '%s\n' "${stderr_lines[@]}"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "${stderr_lines[0]}" = "trace-cmd ustack: cannot write $TMP/small/t.dat: No space left on device" ]
	[ -z "$(ls -A "$TMP/small")" ]
}

@test "recorder: stopped by SIGINT or SIGTERM, or a command that cannot start: no temporaries left" {
	local sig

	mkdir "$TMP/out"
	for sig in INT TERM; do
		USTACK_TEMPFILES=named "$USTACK" record -q -B "$NAME" -o "$TMP/out/t.dat" \
			-e syscalls:sys_enter_getppid \
			-- sleep 600 2>"$TMP/err" &
		BG_PID=$!
		wait_tracing "$NAME" syscalls/sys_enter_getppid
		ls "$TMP/out"
		[ -n "$(ls "$TMP/out")" ]
		kill -$sig "$BG_PID"
		# the run ends its command with SIGTERM: the command's status
		wait "$BG_PID" || [ $? -eq 143 ]
		BG_PID=
		[ ! -s "$TMP/err" ]
		[ "$(ls -A "$TMP/out")" = t.dat ]
		[ -s "$TMP/out/t.dat" ]
		rm "$TMP/out/t.dat"
	done
	run --separate-stderr "$USTACK" record -q -B "$NAME" -o "$TMP/out/t.dat" \
		-e syscalls:sys_enter_getppid -- "$TMP/no-such-program"
	[ "$status" -ne 0 ]
	[ -z "$(ls -A "$TMP/out")" ]
}
