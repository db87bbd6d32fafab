#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Reading a trace.dat's CPU data in bounded memory (issue 31, item 8):
# lib/ustack-tracedat-cpu.c reads the chunks of a compressed file one at a time
# where libtracecmd 1.3.1 keeps every one it decompressed. Its records
# must be libtracecmd's, one for one; USTACK_TRACEDAT_READER=library
# makes the report read with libtracecmd alone, as it did before.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

DUMP="$ROOT/tests/tools/ustack-tracedat-dump"
GEN="$ROOT/tests/tools/ustack-tracedat-gen"

setup() {
	tmp_setup
}

teardown() {
	instance_teardown
}

# Exactly one line on stderr, non-zero exit, the line being $1
assert_only_error() {
	[ "$status" -ne 0 ]
	printf '%s\n' "${stderr_lines[@]}"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "${stderr_lines[0]}" = "trace-cmd ustack: $1" ]
}

# $1: a trace.dat our reader must read exactly as libtracecmd does; $2:
# the counts line expected last (default: nothing corrupt)
assert_same_records() {
	"$DUMP" "$1" > "$TMP/own.txt"
	USTACK_TRACEDAT_READER=library "$DUMP" "$1" > "$TMP/lib.txt"
	echo "$1: $(head -n 1 "$TMP/own.txt"), $(wc -l < "$TMP/own.txt") lines"
	[ "$(head -n 1 "$TMP/own.txt")" = "reader own" ]
	[ "$(head -n 1 "$TMP/lib.txt")" = "reader library" ]
	diff <(tail -n +2 "$TMP/lib.txt") <(tail -n +2 "$TMP/own.txt")
	[ "$(tail -n 1 "$TMP/own.txt")" = "${2:-corrupt 0 bad pages 0}" ]
	[ "$(wc -l < "$TMP/own.txt")" -gt 3 ]
}

@test "reader: every record of the test recordings (compressed or not, many chunks) is libtracecmd's, field for field" {
	local f

	for f in "$DATA"/*.dat; do
		assert_same_records "$f"
		trace-cmd convert -i "$f" -o "$TMP/none.dat" --compression none >/dev/null 2>&1 ||
			skip "trace-cmd convert cannot write an uncompressed file"
		assert_same_records "$TMP/none.dat"
	done
	# many chunks, the records of both CPUs merged
	"$GEN" -i "$DATA/threads-deferred.dat" -o "$TMP/gen.dat" -n 300 >/dev/null
	assert_same_records "$TMP/gen.dat"
}

@test "reader: a recording with ring-buffer losses: each record's count of lost events is libtracecmd's" {
	require_capture
	# a tiny buffer that overflows: records after a lost stretch say how
	# many. The tool takes its instance out of overwrite mode; the command
	# puts it back, so that the kernel overwrites and counts in the data.
	NAME=$(instance_name)
	"$USTACK" record -B "$NAME" -q --stack-source=userstacktrace -b 8 -o "$TMP/lost.dat" \
		-e syscalls:sys_enter_getppid -- sh -c 'echo 1 > "$1"; exec "$0" 4 20000 0' \
		"$PROGS/burst/burst" "$TRACEFS/instances/$NAME/options/overwrite" 2> "$TMP/rec.err"
	assert_no_instance "$NAME"
	USTACK_TRACEDAT_READER=library "$DUMP" "$TMP/lost.dat" > "$TMP/lost.txt"
	# some record follows lost ones (else the test proves nothing)
	grep -q '^lost cpu [0-9]* [1-9]' "$TMP/lost.txt"
	assert_same_records "$TMP/lost.dat"
}

# Out of overwrite mode (the tool's), a full buffer's drops are told by
# sub-buffers with no record (lib/ustack-dropped.c), which libtracecmd
# skips: the records are still its, and our reader alone tells the drops,
# as many as record counted
@test "reader: a recording with drops: the records are libtracecmd's, and the drops its markers tell are record's count" {
	require_capture
	NAME=$(instance_name)
	"$USTACK" record -B "$NAME" --stack-source=userstacktrace -b 8 -o "$TMP/drop.dat" \
		-e syscalls:sys_enter_getppid -- "$PROGS/burst/burst" 4 20000 0 2> "$TMP/rec.err"
	assert_no_instance "$NAME"
	cat "$TMP/rec.err"
	lost=$(sed -n 's/^  ring-buffer losses: *\([0-9]*\).*/\1/p' "$TMP/rec.err")
	[ "$lost" -gt 0 ]
	"$DUMP" "$TMP/drop.dat" > "$TMP/own.txt"
	USTACK_TRACEDAT_READER=library "$DUMP" "$TMP/drop.dat" > "$TMP/lib.txt"
	diff <(grep -v '^lost ' "$TMP/lib.txt" | tail -n +2) <(grep -v '^lost ' "$TMP/own.txt" | tail -n +2)
	! grep -q '^lost ' "$TMP/lib.txt"
	[ "$(awk '$1 == "lost" && $4 > 0 { n += $4 } END { print n + 0 }' "$TMP/own.txt")" -eq "$lost" ]
}

@test "reader: a recording with side-band (the top buffer's records, merged in) reads as with libtracecmd" {
	require_capture
	"$USTACK" record -q -o "$TMP/sb.dat" -- "$PROGS/deep" 1
	assert_same_records "$TMP/sb.dat"
	grep -q '^top ' "$TMP/own.txt"
}

@test "reader: a version 6 file is left to libtracecmd, and reads the same" {
	trace-cmd convert -i "$DATA/shlib-deferred.dat" -o "$TMP/v6.dat" --file-version 6 >/dev/null 2>&1 ||
		skip "trace-cmd convert cannot write file version 6"
	"$DUMP" "$TMP/v6.dat" > "$TMP/v6.txt"
	[ "$(head -n 1 "$TMP/v6.txt")" = "reader library" ]
	"$DUMP" "$DATA/shlib-deferred.dat" > "$TMP/v7.txt"
	diff <(tail -n +2 "$TMP/v6.txt") <(tail -n +2 "$TMP/v7.txt")
}

# Peak RSS in KiB of report --folded on $1 (the report's child included).
# Under ASan (tests/run-asan) freed blocks wait in a quarantine that grows
# with what was ever freed: none here, so RSS is what the tool holds.
peak_rss() {
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0" \
		/usr/bin/time -f '%M' -o "$TMP/rss" "$USTACK" report -q --folded -i "$1" > "$TMP/folded"
	cat "$TMP/rss"
}

@test "report memory: a compressed recording 8 times as long peaks within 4 MiB of the short one's RSS, same stacks" {
	[ -x /usr/bin/time ] || skip "no /usr/bin/time"
	# files are announced once, in the first copy: what grows is the CPU data
	"$GEN" -i "$DATA/deep-deferred.dat" -o "$TMP/1x.dat" -n 2500 -F inode_cache >/dev/null
	"$GEN" -i "$DATA/deep-deferred.dat" -o "$TMP/8x.dat" -n 20000 -F inode_cache >/dev/null
	local small big
	small=$(peak_rss "$TMP/1x.dat")
	[ "$(awk '{ n += $NF } END { print n }' "$TMP/folded")" -eq 7500 ]
	big=$(peak_rss "$TMP/8x.dat")
	[ "$(awk '{ n += $NF } END { print n }' "$TMP/folded")" -eq 60000 ]
	echo "peak RSS: 1x $small KiB, 8x $big KiB"
	[ "$big" -lt $((small + 4096)) ]
}

# A version 6 copy of a test recording, its records patchable in place
v6_copy() {
	trace-cmd convert -i "$DATA/$1" -o "$2" --file-version 6 >/dev/null 2>&1 ||
		skip "trace-cmd convert cannot write file version 6"
}

@test "reader: a decompressed sub-buffer whose commit runs past its page: one line naming CPU and sub-buffer, the records before it, exit 1, no crash" {
	v6_copy deep-deferred.dat "$TMP/v6.dat"
	# CPU 0's second sub-buffer claims 128 MiB and a stored lost count
	"$DATA/make-repro.py" "$TMP/v6.dat" "$TMP" >/dev/null
	# compressed again, the damage is inside a chunk: no check before the reader sees it
	trace-cmd convert -i "$TMP/kbuffer-lost.dat" -o "$TMP/lost.dat" >/dev/null 2>&1
	run --separate-stderr env ASAN_OPTIONS="${ASAN_OPTIONS:-}:handle_segv=0:handle_sigbus=0:handle_sigfpe=0" \
		"$USTACK" report -q --folded -i "$TMP/lost.dat"
	echo "$status: $stderr"
	[ "$status" -eq 1 ]
	assert_only_error "$TMP/lost.dat: CPU 0: sub-buffer 1 runs past its page: the rest of the CPU is skipped"
	[ "$(awk '{ n += $NF } END { print n }' <<< "$output")" -eq 1 ]
}

@test "reader: a record whose length runs past its sub-buffer, compressed or not: skipped and named as libtracecmd's reader does" {
	v6_copy deep-deferred.dat "$TMP/v6.dat"
	"$ROOT/tests/bats/tracedat-corrupt.py" "$TMP/v6.dat" "$TMP/huge6.dat"
	trace-cmd convert -i "$TMP/huge6.dat" -o "$TMP/huge.dat" >/dev/null 2>&1
	trace-cmd convert -i "$TMP/huge6.dat" -o "$TMP/hugen.dat" --compression none >/dev/null 2>&1
	local f
	for f in huge hugen; do
		[ "$(head -n 1 < <("$DUMP" "$TMP/$f.dat"))" = "reader own" ]
		run --separate-stderr "$USTACK" report -q -i "$TMP/$f.dat"
		[ "$status" -eq 1 ]
		assert_only_error "$TMP/$f.dat: 1 corrupt record (length past the sub-buffer) skipped"
		assert_same_records "$TMP/$f.dat" "corrupt 1 bad pages 0"
	done
}

@test "reader: a chunk past the first that does not decompress: one line naming the CPU and the chunk, exit 1 (libtracecmd cut the CPU short without a word)" {
	"$GEN" -i "$DATA/deep-deferred.dat" -o "$TMP/c.dat" -n 2000 -F inode_cache >/dev/null 2>&1
	# CPU 0 of the generated buffer: the third chunk's zstd magic broken
	local off
	off=$(trace-cmd dump --options -i "$TMP/c.dat" 2>/dev/null |
	      awk '/"ustack-gen" \[name\]/ { g = 1 } g && $1 == "0" && /data offset/ { print $2; exit }')
	[ -n "$off" ]
	python3 - "$TMP/c.dat" "$off" <<-'PY'
	import struct, sys
	b = bytearray(open(sys.argv[1], "rb").read())
	pos = int(sys.argv[2]) + 4
	for i in range(3):
	    z = struct.unpack_from("<I", b, pos)[0]
	    if i == 2:
	        b[pos + 8] ^= 0xff
	    pos += 8 + z
	open(sys.argv[1], "wb").write(b)
	PY
	run --separate-stderr "$USTACK" report -q --folded -i "$TMP/c.dat"
	echo "$status: $stderr"
	assert_only_error "$TMP/c.dat: CPU 0: chunk 2 (byte 81920 of its data) does not decompress: the rest of the CPU is skipped"
	[ "$status" -eq 1 ]
	[ -n "$output" ]
}
