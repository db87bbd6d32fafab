#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Issue 47's leftovers: the perf side-band's losses and the records that
# do not parse are counted in the summary, never dropped without a word.
#
# Crafted, because the kernel cannot be made to produce them: a side-band
# whose only records are LOST ones (a run starts with the records of what
# exists, from /proc) and perf records too short for their type or of a
# type we do not know (the kernel writes whole records of the types
# asked for). Report of a real recording whose side-band records are
# made LOST ones; the session's summary through tests/tools/ustack-session-test
# (side-band records as a trace.dat holds them, print records), the live
# reader's parse and merge through tests/tools/ustack-stream-test (raw
# perf records, as a drain gives them), the recording's side-band file
# through tests/tools/ustack-sbfile-test.

bats_require_minimum_version 1.5.0
load helpers

STREAM="$ROOT/tests/tools/ustack-stream-test"
SBFILE="$ROOT/tests/tools/ustack-sbfile-test"

setup_file() {
	build_progs
}

teardown() {
	instance_teardown
}

# lost_only_recording OPTION...: a real recording of tests/progs/deep 3 with
# OPTIONs, uncompressed ($TMP/plain.dat), and the same file whose every
# side-band record is made a LOST record of 1, at the same length
# ($TMP/lost.dat; crafted: a run starts with the records of what exists,
# so no kernel gives a side-band of LOST records alone); $LOST_ONLY: how
# many
lost_only_recording() {
	capture_setup
	"$USTACK" record -B "$NAME" -q -o "$TMP/r.dat" -e syscalls:sys_enter_getppid "$@" \
		-- "$PROGS/deep" 3
	trace-cmd convert -i "$TMP/r.dat" -o "$TMP/plain.dat" --compression none >/dev/null 2>&1
	LOST_ONLY=$(python3 - "$TMP/plain.dat" "$TMP/lost.dat" <<'PY'
import re, sys
d = open(sys.argv[1], 'rb').read()
n = 0
def lost(m):
    global n
    old = m.group(0)
    new = b'ustack-sb lost pid=' + m.group(2) + b' n='
    new += b'0' * (len(old) - len(new) - 1) + b'1'
    assert len(new) == len(old)
    n += 1
    return new
d = re.sub(rb'ustack-sb (mmap|comm|fork|exit) pid=(\d+)[^\0]*', lost, d)
assert n > 0
open(sys.argv[2], 'wb').write(d)
print(n)
PY
)
}

@test "side-band counts: report of a recording (--fallback) whose side-band is LOST records alone says them on the side-band line" {
	lost_only_recording --fallback
	run --separate-stderr "$USTACK" report -i "$TMP/lost.dat" --folded
	echo "$stderr"
	[ "$status" -eq 0 ]
	grep -qx "  side-band records:    0 (lost by the kernel: $LOST_ONLY)" <<<"$stderr"
}

@test "side-band counts: report of a perf-source recording whose side-band is LOST records alone: ring-buffer losses, and 0 side-band records said" {
	lost_only_recording --stack-source=perf
	run --separate-stderr "$USTACK" report -i "$TMP/plain.dat" --folded
	[[ "$stderr" =~ ring-buffer\ losses:\ +([0-9]+) ]]
	lost_before=${BASH_REMATCH[1]}
	run --separate-stderr "$USTACK" report -i "$TMP/lost.dat" --folded
	echo "$stderr"
	[ "$status" -eq 0 ]
	grep -qx "  ring-buffer losses:   $((lost_before + LOST_ONLY))" <<<"$stderr"
	grep -qx '  side-band records:    0' <<<"$stderr"
}

# A perf sample of pid 100's sys_enter_test (nr 1), as silent-loss.bats's
SAMPLE='ustack-sb\ssample\spid=100\stid=100\scpu=1\sraw=580200006400000001000000000000000000000000000000\schain=u,55d000001010,10'

@test "side-band counts: LOST records alone are said in the summary, with their count, not lost silently" {
	session_script --summary <<'EOF'
1 1100 100 print buf=ustack-sb\slost\spid=100\sn=7
1 1200 100 print buf=ustack-sb\slost\spid=100\sn=5
EOF
	[ "$status" -eq 0 ]
	grep -qx '  side-band records:    0 (lost by the kernel: 12)' <<<"$output"
}

# The perf source's rings hold its samples: the losses are the rings'
# (ring-buffer losses), and the line says the side-band's records as
# record's summary does (ustack_output_recorded_samples()), 0 here.
@test "side-band counts: with perf samples, LOST records alone are ring-buffer losses and the side-band line says 0 records" {
	session_script --summary <<EOF
1 1100 100 print buf=ustack-sb\\slost\\spid=100\\sn=7
1 1200 100 print buf=$SAMPLE
EOF
	[ "$status" -eq 0 ]
	grep -qx '  ring-buffer losses:   7' <<<"$output"
	grep -qx '  side-band records:    0' <<<"$output"
}

# THROTTLE and UNTHROTTLE (5 and 6) need 56 bytes (time, id, stream_id,
# the trailer): handed out as such to be counted (perf-throttle.bats), a
# shorter one as one that did not parse
@test "side-band counts: perf records too short for their type or of an unknown type are handed out to be counted, in time order; THROTTLE ones too" {
	tmp_setup
	run timeout 30 "$STREAM" "$TMP" 1 <<'EOF'
r 0 100 1
sb 150 7 a
# a LOST record of 40 bytes (it needs 48), a type no kernel writes
sbraw 200 2 40
sbraw 210 5 48
sbraw 215 5 56
sbraw 220 6 56
sbraw 250 99 32
sb 300 8 b
r 0 400 2
EOF
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' '0 100 1' 'sb 150 7 a' 'sbbad 200 2 40' \
		'sbbad 210 5 48' 'sbthrottle 215 0' 'sbunthrottle 220 0' \
		'sbbad 250 99 32' 'sb 300 8 b' '0 400 2')" ]
}

@test "side-band counts: a record size that cannot be ends the drain's walk with one record counted, not the rest dropped silently" {
	tmp_setup
	run timeout 30 "$STREAM" "$TMP" 1 <<'EOF'
sb 150 7 a
sbraw 0 3 16
sb 300 8 b
r 0 400 2
EOF
	echo "$output"
	[ "$status" -eq 0 ]
	# the 16 bytes and the COMM after them (48), at the last time seen
	[ "$output" = "$(printf '%s\n' 'sb 150 7 a' 'sbbad 150 3 64' '0 400 2')" ]
}

# What record writes for such a record, and what report makes of it: the
# summary of each counts it once, on the same line
@test "side-band counts: a record that did not parse is kept in the recording, and report counts it malformed" {
	tmp_setup
	run timeout 30 "$SBFILE" "$TMP/sb.dat" <<'EOF'
comm 100 100 prog
unparsed 1100 99 32
EOF
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx '1100 text ustack-sb malformed type=99 size=32' <<<"$output"
	text=$(sed -n 's/^1100 text //p' <<<"$output")
	rm -rf "$TMP"
	session_script --summary <<EOF
1 1100 100 print buf=${text// /\\s}
EOF
	[ "$status" -eq 0 ]
	grep -qx '  side-band not read:   1 (malformed: 1, repeats of an unread sample: 0)' \
		<<<"$output"
	[ "$(grep -c 'side-band record not read: malformed' <<<"$output")" -eq 1 ]
}
