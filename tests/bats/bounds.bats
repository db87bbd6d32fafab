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
# samples carry umax=5), its samples written as text (the text parser's
# bounds are the ones checked here), uncompressed by stock trace-cmd
# convert so that a sample's text can be changed in place, at the same
# length.
dwarf_recording() {
	perf_host_setup
	USTACK_TEXT_SAMPLES=1 \
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

# A perf source recording of 20,000 events from one chain whose mapping
# records are renamed to a kind report does not know: its samples wait
# for mappings that never come (the issue's file with no mapping records)
unmapped_recording() {
	perf_host_setup
	"$USTACK" record -B "$NAME" -q -o "$TMP/b.dat" -e syscalls:sys_enter_getppid \
		-- "$PROGS/burst/burst" 1 20000 0 >/dev/null
	trace-cmd convert -i "$TMP/b.dat" -o "$TMP/bp.dat" --compression none >/dev/null 2>&1
	python3 - "$TMP/bp.dat" "$TMP/bn.dat" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
assert d.count(b'ustack-sb mmap') > 0
open(sys.argv[2], 'wb').write(d.replace(b'ustack-sb mmap', b'ustack-sb mmaq'))
PY
}

@test "bounds: samples held past USTACK_MEMORY_BUDGET_MB end report in one line naming file and budget, exit 1, nothing partial" {
	unmapped_recording
	USTACK_MEMORY_BUDGET_MB=1 run --separate-stderr "$USTACK" report -i "$TMP/bn.dat" --folded \
		--flamegraph "$TMP/f.svg"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"bn.dat: events waiting for their stacks or mappings hold more than the memory budget of 1 MiB (USTACK_MEMORY_BUDGET_MB)"* ]]
	# no summary and no profile of a report that did not read everything
	[[ "$stderr" != *"ustack summary"* ]]
	[ ! -e "$TMP/f.svg" ]
	[ -z "$output" ]
}

@test "bounds: the same recording within the default budget reads to its end" {
	unmapped_recording
	run --separate-stderr "$USTACK" report -i "$TMP/bn.dat" --folded
	[ "$status" -eq 0 ]
	# what the rings kept of the 20,000 (a loaded host may lose some)
	[[ "$stderr" =~ events:\ +([0-9]+) ]]
	[ "${BASH_REMATCH[1]}" -gt 1000 ]
	[[ "$stderr" != *"memory budget"* ]]
}

@test "bounds: a USTACK_MEMORY_BUDGET_MB that is not a number is said, and the default used" {
	unmapped_recording
	USTACK_MEMORY_BUDGET_MB=lots run --separate-stderr "$USTACK" report -q -i "$TMP/bn.dat" --folded
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"USTACK_MEMORY_BUDGET_MB='lots' is not a number of MiB: 256 used"* ]]
}

@test "bounds: a stack copy of 0 bytes (stack=0:) unwinds to nothing, without a null pointer to memset (UBSan)" {
	dwarf_recording
	python3 - "$TMP/plain.dat" "$TMP/zs.dat" <<'PY'
import re, sys
d = open(sys.argv[1], 'rb').read()
z = lambda m: b'stack=' + b'0' * (len(m.group(0)) - 7) + b':'
d2 = re.sub(rb'stack=[0-9a-f]+:[0-9a-fs~,]+', z, d)
assert d2 != d and len(d2) == len(d)
open(sys.argv[2], 'wb').write(d2)
PY
	run --separate-stderr "$USTACK" report -i "$TMP/zs.dat" --folded
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"events:               3"* ]]
	[[ "$stderr" != *"runtime error"* ]]
}
