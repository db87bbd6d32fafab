#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Reading a trace.dat's CPU data in bounded memory (issue 31, item 8):
# lib/ustack-tdread.c reads the chunks of a compressed file one at a time
# where libtracecmd 1.3.1 keeps every one it decompressed. Its records
# must be libtracecmd's, one for one; USTACK_TRACEDAT_READER=library
# makes the report read with libtracecmd alone, as it did before.

bats_require_minimum_version 1.5.0
load helpers

DUMP="$ROOT/tests/tools/ustack-tracedat-dump"
GEN="$ROOT/tests/tools/ustack-tracedat-gen"

setup() {
	TMP="$(mktemp -d)"
}

teardown() {
	rm -rf "$TMP"
}

# $1: a trace.dat our reader must read exactly as libtracecmd does
assert_same_records() {
	"$DUMP" "$1" > "$TMP/own.txt"
	USTACK_TRACEDAT_READER=library "$DUMP" "$1" > "$TMP/lib.txt"
	echo "$1: $(head -n 1 "$TMP/own.txt"), $(wc -l < "$TMP/own.txt") lines"
	[ "$(head -n 1 "$TMP/own.txt")" = "reader own" ]
	[ "$(head -n 1 "$TMP/lib.txt")" = "reader library" ]
	diff <(tail -n +2 "$TMP/lib.txt") <(tail -n +2 "$TMP/own.txt")
	[ "$(tail -n 1 "$TMP/own.txt")" = "corrupt 0 bad pages 0" ]
	[ "$(wc -l < "$TMP/own.txt")" -gt 3 ]
}

@test "reader: every record of the test recordings (compressed, uncompressed, side-band) is libtracecmd's, field for field" {
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

@test "reader: a version 6 file is left to libtracecmd, and reads the same" {
	trace-cmd convert -i "$DATA/shlib-deferred.dat" -o "$TMP/v6.dat" --file-version 6 >/dev/null 2>&1 ||
		skip "trace-cmd convert cannot write file version 6"
	"$DUMP" "$TMP/v6.dat" > "$TMP/v6.txt"
	[ "$(head -n 1 "$TMP/v6.txt")" = "reader library" ]
	"$DUMP" "$DATA/shlib-deferred.dat" > "$TMP/v7.txt"
	diff <(tail -n +2 "$TMP/v6.txt") <(tail -n +2 "$TMP/v7.txt")
}

# Peak RSS in KiB of report --folded on $1 (the report's child included)
peak_rss() {
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
