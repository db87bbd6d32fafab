#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The recorder's naps (lib/ustack-recorder.c, next_nap(); issue 50, item
# 10) on the patched kernel: a CPU's thread woken by a buffer that reads
# as readable but holds no full sub-buffer to move waits on its stop pipe
# alone, 1 ms first, twice its last nap each time in a row, and never
# longer than the tick `-s` gives.
#
# The naps are read from the threads' system calls (strace -ff, a file a
# thread): a nap is poll() of the stop pipe alone, `poll([{fd=N, ...}],
# 1, MS)`, and MS is the sleep the recorder asked for. The check is on
# that argument, not on how long the call took: the kernel may end a
# poll() later than asked (timer slack, 50 us for a normal thread, and
# the hrtimer's rounding), and the single-threaded TCG guest later still,
# by however long the other vCPU kept the host thread; a measurement of
# the time slept would have to allow those and could not tell a nap of
# tick + 1 ms from a late wakeup. The argument has no such noise.

bats_require_minimum_version 1.5.0
load ../helpers

BURST="$PROGS/burst/burst"

setup() {
	require_deferred
	[ -x "$BURST" ] || skip "run make on the host first ($BURST missing)"
	command -v strace >/dev/null || skip "strace not installed (scripts/install-deps)"
	NAME=$(instance_name)
	TMP="$(mktemp -d)"
	# the workload sets its buffer_percent, the tool restores it (-B)
	mkdir "$TRACEFS/instances/$NAME"
}

teardown() {
	[ -z "${NAME:-}" ] || rmdir "$TRACEFS/instances/$NAME" 2>/dev/null || true
	instance_teardown
}

# At buffer_percent 0 one event's partial sub-buffer keeps the buffer
# readable for the whole run, with nothing full to move: the thread of
# its CPU naps over and over, and its naps in a row grow to the tick.
# The tick is 15 ms (-s 15000), not a power of two: naps of 1, 2, 4, 8
# then 15, where a cap one off or ignored would give 16. The workload
# makes one traced call, then waits until the strace files show a
# recorder thread with three naps of the tick or more (a bad cap shows
# them as well: 16, 32, ...), or one that polled 2000 times (no nap at
# all), and ends: no fixed wait. --call-graph=fp: the recorder records
# only without a perf side-band, which auto's stack copies for sh (built
# without frame pointers) would open (the stream's reader then reads).
@test "recorder naps: after empty reads of a readable buffer the naps grow to the tick (-s) and never past it" {
	tick=15
	run --separate-stderr strace -ff -qq -e trace=poll,splice -o "$TMP/st" \
		"$USTACK" record -B "$NAME" -o "$TMP/t.dat" -e syscalls:sys_enter_getppid \
		-q -b 1024 -s $((tick * 1000)) --call-graph=fp -- sh -c '
		echo 0 >"$1/buffer_percent" || exit 1
		"$2" 1 1 0 || exit 1
		exec python3 - "$3" "$4" <<-"PY"
		import glob, re, sys, time
		tmp, tick = sys.argv[1], int(sys.argv[2])
		# not a wait for success: a bound on a run that went wrong
		give_up = time.monotonic() + 300
		nap = re.compile(r"^poll\(\[\{fd=\d+, events=POLLIN\}\], 1, (\d+)\)")
		while True:
		    for name in glob.glob(tmp + "/st.*"):
		        text = open(name).read()
		        if "SPLICE_F_MOVE|SPLICE_F_NONBLOCK" not in text:
		            continue
		        long = len([l for l in text.splitlines()
		                    if nap.match(l) and int(nap.match(l).group(1)) >= tick])
		        if long >= 3 or text.count("\npoll(") >= 2000:
		            sys.exit(0)
		    if time.monotonic() > give_up:
		        sys.exit("no recorder thread napped at the tick in 300 s")
		    time.sleep(0.05)
		PY
		' sh "$TRACEFS/instances/$NAME" "$BURST" "$TMP" "$tick"
	[ "$status" -eq 0 ]
	# the call's stack is in the file
	"$USTACK" report -q -i "$TMP/t.dat" --folded | grep -q 'bu_loop 1$'
	python3 - "$tick" "$TMP"/st.* <<-'PY'
	import re, sys
	tick = int(sys.argv[1])
	# poll(FDS, NFDS, TIMEOUT): a nap (the stop pipe alone) or the tick's
	# poll of the buffer and the stop pipe
	call = re.compile(r"^poll\(\[(.*)\], (\d+), (-?\d+)\)")
	threads = naps = at_tick = 0
	for name in sys.argv[2:]:
	    lines = open(name).read().splitlines()
	    # a recorder thread: it splices from its CPU's ring buffer
	    if not any("SPLICE_F_MOVE|SPLICE_F_NONBLOCK" in l for l in lines):
	        continue
	    threads += 1
	    for line in lines:
	        m = call.match(line)
	        if not m:
	            continue
	        nfds, ms = int(m.group(2)), int(m.group(3))
	        if ms < 0 or ms > tick:
	            sys.exit("%s: a sleep of %d ms, past the tick of %d ms: %s"
	                     % (name, ms, tick, line.strip()))
	        if nfds == 1:
	            naps += 1
	            at_tick += ms == tick
	print("recorder threads: %d, naps: %d, of the tick: %d" % (threads, naps, at_tick))
	if not threads:
	    sys.exit("no recorder thread in the strace files")
	# the naps in a row reached the cap, so it was put to the test
	if at_tick < 3:
	    sys.exit("fewer than three naps of the tick (%d ms): the streak never reached it" % tick)
	PY
}
