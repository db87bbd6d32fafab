#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Compressed trace.dat files made to hurt the reader (issue 44, findings
# 6, 7, 9 and 10): chunks that inflate past any real one, chunks shorter
# than they claim, a bad sub-buffer header inside a chunk, malformed chunk
# tables, no file descriptor left. tracedat-hostile.py writes them from
# two copies of one generated recording, compressed and not.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

GEN="$ROOT/tests/tools/ustack-tracedat-gen"
DUMP="$ROOT/tests/tools/ustack-tracedat-dump"
HOSTILE="$ROOT/tests/bats/tracedat-hostile.py"

setup() {
	TMP="$(mktemp -d)"
	"$GEN" -i "$DATA/deep-deferred.dat" -o "$TMP/c.dat" -n 40 -F inode_cache >/dev/null
	"$GEN" -i "$DATA/deep-deferred.dat" -o "$TMP/u.dat" -n 40 -F inode_cache -C none >/dev/null
}

teardown() {
	instance_teardown
}

# $1: kind of tracedat-hostile.py; writes $TMP/$1.dat
hostile() {
	"$HOSTILE" "$1" "$TMP/c.dat" "$TMP/u.dat" "$TMP/$1.dat"
}

# Exactly one line on stderr, non-zero exit, the line being $1
assert_only_error() {
	printf '%s\n' "${stderr_lines[@]}"
	[ "$status" -ne 0 ]
	[ "$status" -ne 70 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "${stderr_lines[0]}" = "trace-cmd ustack: $1" ]
}

# As assert_only_error, $1 a glob pattern
assert_only_error_like() {
	printf '%s\n' "${stderr_lines[@]}"
	[ "$status" -ne 0 ]
	[ "$status" -ne 70 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "${stderr_lines[0]}" == "trace-cmd ustack: "$1 ]]
}

# report --folded on $1, its peak RSS (KiB, the report's child included) in $rss
report_rss() {
	run --separate-stderr env ASAN_OPTIONS="${ASAN_OPTIONS:-}:handle_segv=0:handle_sigbus=0:handle_sigfpe=0" \
		/usr/bin/time -f '%M' -o "$TMP/rss" "$USTACK" report -q --folded -i "$1"
	rss=$(tail -n 1 "$TMP/rss")
	echo "exit $status, peak RSS $rss KiB"
}

@test "zip bomb: a chunk of each CPU claiming 1 GiB (a 430 KB file): refused before anything is decompressed, one line naming the chunk, exit 1, peak RSS under 300 MB" {
	[ -x /usr/bin/time ] || skip "no /usr/bin/time"
	hostile bomb
	report_rss "$TMP/bomb.dat"
	assert_only_error "$TMP/bomb.dat: corrupt trace.dat: CPU 0: chunk 0 at 364548 claims 1073741824 bytes in 32774: not 1 to 32 whole sub-buffers"
	[ "$rss" -lt 300000 ]
	[ -z "$output" ]
}

@test "inflation: 2 MB of chunks within the chunk size that decompress to more than 128 times the file (zeros; 8-byte events): refused in one line, exit 1, at once" {
	[ -x /usr/bin/time ] || skip "no /usr/bin/time"
	local k
	for k in many events; do
		hostile "$k"
		report_rss "$TMP/$k.dat"
		assert_only_error_like "$TMP/$k.dat: corrupt trace.dat: CPU 0: chunk [0-9]* at [0-9]*: the compressed parts of the file decompress to more than 128 times its $(stat -c %s "$TMP/$k.dat") bytes"
		[ "$rss" -lt 300000 ]
		[ -z "$output" ]
	done
}

@test "a chunk that decompresses to less than it claims: its CPU stops there, one line naming the chunk, exit 1, no record read twice" {
	hostile same
	hostile short
	# the control: chunks written by tracedat-hostile.py read as libtracecmd's did
	run --separate-stderr "$USTACK" report -q --folded -i "$TMP/same.dat"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	diff <("$DUMP" "$TMP/c.dat" | tail -n +2) <("$DUMP" "$TMP/same.dat" | tail -n +2)
	run --separate-stderr "$USTACK" report -q --folded -i "$TMP/short.dat"
	assert_only_error "$TMP/short.dat: CPU 0: chunk 1 decompresses to 4096 bytes, its header says 16384: the rest of the CPU is skipped"
	# the first chunk's sub-buffers are not replayed in place of the second's
	"$DUMP" "$TMP/short.dat" 2>/dev/null | tail -n +2 | grep -v '^corrupt' > "$TMP/short.txt"
	[ -z "$(sort "$TMP/short.txt" | uniq -d)" ]
	# read by libtracecmd: refused by the structure check before it
	run --separate-stderr env USTACK_TRACEDAT_READER=library "$USTACK" report -q --folded -i "$TMP/short.dat"
	assert_only_error "$TMP/short.dat: corrupt trace.dat: CPU 0: chunk 1 at 380010 decompresses to 4096 bytes, its header says 16384"
	[ -z "$output" ]
}

@test "a bad sub-buffer header inside a compressed chunk: one line naming CPU and sub-buffer, exit 1, never the library's crash (exit 70); read by libtracecmd: refused by the structure check" {
	# issue 44's finding 10: 4 bytes inside the zstd frame of CPU 0's chunk
	python3 -c '
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<I", b, 356385, 0x7fffffff)
open(sys.argv[2], "wb").write(b)' "$DATA/deep-deferred.dat" "$TMP/page.dat"
	hostile badpage
	local f
	for f in page badpage; do
		run --separate-stderr env ASAN_OPTIONS="${ASAN_OPTIONS:-}:handle_segv=0:handle_sigbus=0:handle_sigfpe=0" \
			"$USTACK" report -q --folded -i "$TMP/$f.dat"
		assert_only_error "$TMP/$f.dat: CPU 0: sub-buffer 0 runs past its page: the rest of the CPU is skipped"
	done
	run --separate-stderr env USTACK_TRACEDAT_READER=library \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:handle_segv=0:handle_sigbus=0:handle_sigfpe=0" \
		"$USTACK" report -q --folded -i "$TMP/page.dat"
	assert_only_error "$TMP/page.dat: corrupt trace.dat: CPU 0: chunk 0 at 356356: sub-buffer 0 claims 134152832 bytes of 4080"
	[ -z "$output" ]
	run --separate-stderr env USTACK_TRACEDAT_READER=library \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:handle_segv=0:handle_sigbus=0:handle_sigfpe=0" \
		"$USTACK" report -q --folded -i "$TMP/badpage.dat"
	assert_only_error "$TMP/badpage.dat: corrupt trace.dat: CPU 0: chunk 0 at 364548: sub-buffer 0 claims 134152192 bytes of 4080"
}

@test "malformed chunk tables (a count that cannot fit, a chunk past the CPU's data, a size not in whole sub-buffers): one line naming CPU, chunk table or chunk, exit 1" {
	local k
	for k in count past pages; do
		hostile "$k"
	done
	run --separate-stderr "$USTACK" report -q --folded -i "$TMP/count.dat"
	assert_only_error "$TMP/count.dat: corrupt trace.dat: CPU 0: chunk table at 364544: 100000 chunks cannot fit in its 52387 bytes"
	run --separate-stderr "$USTACK" report -q --folded -i "$TMP/past.dat"
	assert_only_error "$TMP/past.dat: corrupt trace.dat: CPU 0: chunk 1 at 380010 claims 16384 bytes in 52391: the compressed bytes run past the CPU's data"
	run --separate-stderr "$USTACK" report -q --folded -i "$TMP/pages.dat"
	assert_only_error "$TMP/pages.dat: corrupt trace.dat: CPU 0: chunk 0 at 364548 claims 4097 bytes in 15454: not 1 to 32 whole sub-buffers"
}

@test "memory budget: a file libtracecmd reads (keeping every chunk) over USTACK_MEMORY_BUDGET_MB is refused naming the budget; under the default or none it reads" {
	"$GEN" -i "$DATA/deep-deferred.dat" -o "$TMP/big.dat" -n 2000 -F inode_cache >/dev/null
	run --separate-stderr env USTACK_TRACEDAT_READER=library USTACK_MEMORY_BUDGET_MB=1 \
		"$USTACK" report -q --folded -i "$TMP/big.dat"
	assert_only_error "$TMP/big.dat: read by libtracecmd, which keeps all of its 3 MiB of decompressed CPU data, over the memory budget of 1 MiB (USTACK_MEMORY_BUDGET_MB)"
	[ -z "$output" ]
	run --separate-stderr env USTACK_TRACEDAT_READER=library "$USTACK" report -q --folded -i "$TMP/big.dat"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# 0: no budget
	run --separate-stderr env USTACK_TRACEDAT_READER=library USTACK_MEMORY_BUDGET_MB=0 \
		"$USTACK" report -q --folded -i "$TMP/big.dat"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# our reader holds a chunk a CPU: far less
	run --separate-stderr env USTACK_MEMORY_BUDGET_MB=1 "$USTACK" report -q --folded -i "$TMP/big.dat"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "no file descriptor left for libtracecmd's open or its copy for the buffer: said as 'Too many open files', never 'cannot read this trace.dat file'" {
	local n msgs=""
	for n in $(seq 3 12); do
		msgs+=$(ulimit -n "$n"; "$USTACK" report -q --folded -i "$TMP/c.dat" 2>&1 >/dev/null || true)$'\n'
	done
	echo "$msgs"
	! grep -q 'cannot read this trace.dat file\|cannot read buffer' <<< "$msgs"
	# libtracecmd's open and its dup() of the buffer: two limits that fail
	[ "$(grep -c "^trace-cmd ustack: cannot open $TMP/c.dat: Too many open files$" <<< "$msgs")" -ge 2 ]
}
