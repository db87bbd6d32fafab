#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Edges of the trace.dat reader and its structure check no other test
# reached (issue 50): uncompressed data of many pages per CPU, options
# that change the timestamps (left to libtracecmd), a sub-buffer's commit
# at the exact edge of its page for either long size.

bats_require_minimum_version 1.5.0
load helpers

DUMP="$ROOT/tests/tools/ustack-tracedat-dump"
GEN="$ROOT/tests/tools/ustack-tracedat-gen"

setup_file() {
	make -s -C "$ROOT" tests/tools/ustack-tracedat-dump tests/tools/ustack-tracedat-gen >&2
}

setup() {
	tmp_setup
	command -v trace-cmd >/dev/null || skip "no trace-cmd"
}

teardown() {
	instance_teardown
}

# uncompressed FILE OUT: OUT is FILE written again without compression
uncompressed() {
	trace-cmd convert -i "$1" -o "$2" --compression none >/dev/null 2>&1 ||
		skip "trace-cmd convert cannot write an uncompressed file"
}

# dump FILE NAME: both readers' records of FILE, in $TMP/NAME.own and .lib
dump() {
	# a reader that loops fails the test rather than hang it
	timeout 120 "$DUMP" "$1" > "$TMP/$2.own"
	USTACK_TRACEDAT_READER=library "$DUMP" "$1" > "$TMP/$2.lib"
	[ "$(head -n 1 "$TMP/$2.lib")" = "reader library" ]
}

@test "reader: uncompressed data of many pages per CPU (groups of 16 pages and a part one): every record libtracecmd's, field for field" {
	local pages

	"$GEN" -i "$DATA/threads-deferred.dat" -o "$TMP/gen.dat" -n 300 >/dev/null
	uncompressed "$TMP/gen.dat" "$TMP/none.dat"
	# pages of each CPU's data: more than one read of 16, not a multiple
	pages=$(trace-cmd dump --flyrecord -i "$TMP/none.dat" 2>/dev/null |
		awk '/\[id, data offset and size\]/ { print $3 / 4096 }' | sort -n | paste -sd' ')
	echo "pages per CPU: $pages"
	[ "$(awk '{ print ($1 > 16 && $NF > 16 && $1 % 16) }' <<< "$pages")" = 1 ]
	dump "$TMP/none.dat" none
	[ "$(head -n 1 "$TMP/none.own")" = "reader own" ]
	diff <(tail -n +2 "$TMP/none.lib") <(tail -n +2 "$TMP/none.own")
	[ "$(grep -c '^sel ' "$TMP/none.own")" -eq 11700 ]
	[ "$(tail -n 1 "$TMP/none.own")" = "corrupt 0 bad pages 0" ]
}

@test "reader: a file with an option that changes its timestamps (offset, date, TSC conversion) is read by libtracecmd, its times changed" {
	local kind

	uncompressed "$DATA/deep-deferred.dat" "$TMP/none.dat"
	dump "$TMP/none.dat" plain
	for kind in offset date tsc2nsec; do
		"$ROOT/tests/bats/tracedat-tsopt.py" "$TMP/none.dat" "$TMP/$kind.dat" "$kind"
		dump "$TMP/$kind.dat" "$kind"
		echo "$kind: $(sed -n 2p "$TMP/$kind.own")"
		[ "$(head -n 1 "$TMP/$kind.own")" = "reader library" ]
		diff "$TMP/$kind.lib" "$TMP/$kind.own"
		# the option did change them (else the test proves nothing)
		! diff -q "$TMP/plain.lib" "$TMP/$kind.lib" >/dev/null
		# and report's stacks are the same, only later or earlier
		run --separate-stderr "$USTACK" report -q -i "$TMP/$kind.dat" --folded
		[ "$status" -eq 0 ]
		[ -n "$output" ]
	done
}

# edge LSIZE EXTRA [missed|shift]: report on a copy whose first
# sub-buffer's commit is the room plus EXTRA, or whose first CPU's data
# starts EXTRA bytes later (tracedat-edge.py); sets OFF, ROOM and SIZE
edge() {
	read -r OFF ROOM SIZE < <("$ROOT/tests/bats/tracedat-edge.py" "$TMP/none.dat" "$TMP/edge.dat" "$@")
	run --separate-stderr "$USTACK" report -q -i "$TMP/edge.dat" --folded
	echo "long size $1, room $ROOM + $2 ${3:-}: $status: $stderr"
}

@test "structure check: a sub-buffer whose commit is a byte past its page is refused, one that fills it is not, for a long size of 8 and of 4, a stored loss count included" {
	local lsize claim

	uncompressed "$DATA/deep-deferred.dat" "$TMP/none.dat"
	for lsize in 8 4; do
		edge "$lsize" 0
		[[ "$stderr" != *"corrupt trace.dat"* ]]
		edge "$lsize" 0 missed
		[[ "$stderr" != *"corrupt trace.dat"* ]]
		for claim in 1 4; do
			edge "$lsize" "$claim"
			[ "$status" -eq 1 ]
			[ "$stderr" = "trace-cmd ustack: $TMP/edge.dat: corrupt trace.dat: CPU 0: sub-buffer at $OFF claims $((ROOM + claim)) bytes of $ROOM" ]
			edge "$lsize" "$claim" missed
			[ "$status" -eq 1 ]
			[ "$stderr" = "trace-cmd ustack: $TMP/edge.dat: corrupt trace.dat: CPU 0: sub-buffer at $OFF claims $((ROOM - lsize + claim)) bytes of $ROOM" ]
		done
	done
}

@test "structure check: CPU data that does not start on a page boundary is refused, naming it" {
	local shift

	uncompressed "$DATA/deep-deferred.dat" "$TMP/none.dat"
	for shift in 8 -8 2048; do
		edge 8 "$shift" shift
		[ "$status" -eq 1 ]
		[ "$stderr" = "trace-cmd ustack: $TMP/edge.dat: corrupt trace.dat: CPU 0 data at $OFF ($SIZE bytes) is not in whole pages" ]
	done
}

@test "structure check: a buffer option that claims more CPUs than its table holds is refused, naming it" {
	uncompressed "$DATA/deep-deferred.dat" "$TMP/none.dat"
	edge 8 3 cpus
	[ "$status" -eq 1 ]
	[ "$stderr" = "trace-cmd ustack: $TMP/edge.dat: corrupt trace.dat: buffer option at $OFF claims 3 CPUs" ]
}

# A compressed CPU of size 0 whose offset still points at its chunks
# (libtracecmd writes a chunk count even for an empty one: only a
# crafted file has it): the CPU is empty, as libtracecmd reads it
@test "reader: a compressed CPU whose size says 0 is empty, though its offset points at chunks: as libtracecmd reads it" {
	python3 - "$ROOT/tests/bats/tracedat-mutate.py" "$DATA/threads-deferred.dat" "$TMP/zero.dat" <<-'PY'
	import importlib.util, struct, sys
	spec = importlib.util.spec_from_file_location("mutate", sys.argv[1])
	m = importlib.util.module_from_spec(spec)
	spec.loader.exec_module(m)
	d = bytearray(open(sys.argv[2], "rb").read())
	_, _, sections, compressed = m.layout(d)
	assert compressed
	_, p = m.buffer_with_cpus(d, sections)
	entries = [p + 8 + 20 * i for i in range(struct.unpack_from("<I", d, p + 4)[0])]
	# the last CPU with data: its size 0, its offset kept
	last = [e for e in entries if struct.unpack_from("<Q", d, e + 12)[0]][-1]
	struct.pack_into("<Q", d, last + 12, 0)
	open(sys.argv[3], "wb").write(d)
	PY
	dump "$DATA/threads-deferred.dat" whole
	dump "$TMP/zero.dat" zero
	[ "$(head -n 1 "$TMP/zero.own")" = "reader own" ]
	diff <(tail -n +2 "$TMP/zero.lib") <(tail -n +2 "$TMP/zero.own")
	# the CPU's records are gone (else the test proves nothing)
	[ "$(grep -c '^sel ' "$TMP/zero.own")" -lt "$(grep -c '^sel ' "$TMP/whole.own")" ]
}
