#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Counts, sizes and limits read from a file are bounded before use
# (issue 44, finding 1 and deliver 1): a recording whose side-band
# sample says a frame limit past --max-stack's range, and the array
# growth helper asked for sizes no allocation can have.

bats_require_minimum_version 1.5.0
load helpers

ARRAY="$ROOT/tests/tools/ustack-array-test"

# A perf source recording (--call-graph=dwarf, cut at 5 frames: its
# samples carry umax=5), uncompressed by stock trace-cmd convert so that
# a sample's text can be changed in place, at the same length.
dwarf_recording() {
	perf_host_setup
	"$USTACK" record -B "$NAME" -q -o "$TMP/r.dat" --call-graph=dwarf --max-stack=5 \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 3
	trace-cmd convert -i "$TMP/r.dat" -o "$TMP/plain.dat" --compression none >/dev/null 2>&1
}

# set_umax VALUE: every sample's umax=5 becomes umax=VALUE; the register
# value ffffffffffffffda (rax, not used by the unwind) gives the room
set_umax() {
	python3 - "$TMP/plain.dat" "$TMP/bad.dat" "$1" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
v = sys.argv[3].encode()
grow = len(v) - 1
rax = b'ffffffffffffffda,'
n = d.count(b'umax=5')
assert n > 0 and d.count(rax) == n, (n, d.count(rax))
d = d.replace(rax, rax[grow:]).replace(b'umax=5', b'umax=' + v)
open(sys.argv[2], 'wb').write(d)
PY
}

teardown() {
	instance_teardown
}

@test "bounds: a sample's frame limit of 2^32-1 is refused as malformed, report ends and says so" {
	dwarf_recording
	set_umax 4294967295
	run --separate-stderr timeout 60 "$USTACK" report -i "$TMP/bad.dat"
	echo "$output" "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"side-band record not read: malformed"* ]]
	[[ "$stderr" == *"side-band not read:   3 (malformed: 3,"* ]]
	# said once, not once a record
	[ "$(grep -c 'side-band record not read' <<<"$stderr")" -eq 1 ]
}

@test "bounds: a frame limit within --max-stack's range (65535) is read, and the walk ends where the kept words end" {
	dwarf_recording
	set_umax 65535
	run --separate-stderr timeout 60 "$USTACK" report -q -i "$TMP/bad.dat" --folded
	echo "$output" "$stderr"
	[ "$status" -eq 0 ]
	# the five frames the recorder kept, then the walk ran out of copy
	[ "$(grep -c 'chain_16' <<<"$output")" -eq 1 ]
	[[ "$stderr" != *"not read"* ]]
}

@test "bounds: the array growth helper refuses SIZE_MAX elements at once (it looped for ever)" {
	run timeout 10 "$ARRAY" 18446744073709551615 16
	[ "$status" -eq 0 ]
	[ "$output" = "refused" ]
}

@test "bounds: the array growth helper refuses a count whose bytes wrap a size_t (it gave a tiny array)" {
	run timeout 10 "$ARRAY" 2305843009213693953 16
	[ "$status" -eq 0 ]
	[ "$output" = "refused" ]
}

@test "bounds: the array growth helper still doubles for ordinary counts" {
	run "$ARRAY" 10 8
	[ "$output" = "ok 16" ]
	run "$ARRAY" 1000 8 16
	[ "$output" = "ok 1024" ]
}
