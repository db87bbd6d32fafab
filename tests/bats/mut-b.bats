#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Issue 50, mutation survivors (part B). The side-band file
# (lib/ustack-tracedat-sbfile.c) written by tests/tools/ustack-sbfile-test
# and read back with libtraceevent's kbuffer, not with our reader: page
# headers, time deltas and extends, lengths, padding, the text's NUL, the
# ustack:sample fields. Output lines: "close RET", "page TS COMMIT" per
# page, "TS text TEXT" / "TS sample pid P tid T cpu C flags F chain N" per
# record, "size BYTES".

bats_require_minimum_version 1.5.0
load helpers

SBFILE="$ROOT/tests/tools/ustack-sbfile-test"

setup() {
	[ -x "$SBFILE" ] || skip "run make first ($SBFILE missing)"
}

# the stream tests' instance, removed whether they pass or fail
teardown() {
	[ -z "${NAME:-}" ] || instance_teardown
}

# sbfile SCRIPT: write the records and read them back, what it printed in
# $output. A writer gone wrong is cut by the time and size limits.
sbfile() {
	printf '%s\n' "$1" >"$BATS_TEST_TMPDIR/script"
	run bash -c 'ulimit -f 200000; timeout 60 "$0" "$1/sb" <"$1/script" >"$1/out"' \
		"$SBFILE" "$BATS_TEST_TMPDIR"
	[ "$status" -eq 0 ]
	output=$(cat "$BATS_TEST_TMPDIR/out")
}

# the record lines only
records() {
	grep -v '^\(page\|size\|close\) ' <<<"$output"
}

@test "side-band file: 5000 records over more pages than one write holds read back whole, in order, each text with its NUL" {
	sbfile "many 5000 1000 1000"
	[ "$(head -1 <<<"$output")" = "close 0" ]
	diff <(records) <(awk 'BEGIN { for (i = 0; i < 5000; i++)
		printf "%d text ustack-sb comm pid=%d tid=%d exec=0 comm=t%d\n", 1000 + i * 1000, 1000 + i, 1000 + i, i }')
	# whole pages, more than the 64 the writer keeps before a write,
	# each commit the bytes of its events
	pages=$(grep -c '^page ' <<<"$output")
	[ "$pages" -gt 64 ]
	[ "$(tail -1 <<<"$output")" = "size $((pages * 4096))" ]
	awk '$1 == "page" && ($3 <= 0 || $3 > 4080 || $3 % 4) { exit 1 }' <<<"$output"
	# each page's time is its first record's
	awk '$1 == "page" { want = $2; next } want != "" { if ($1 != want) exit 1; want = "" }' <<<"$output"
}

@test "side-band file: records of every size up to a page's end never run past it (room for the length and a time extend kept)" {
	sbfile "grow 3000 1000 1000"
	[ "$(head -1 <<<"$output")" = "close 0" ]
	diff <(records) <(awk 'BEGIN { x = 1; for (i = 0; i < 3000; i++) {
		x = (75 * x + 74) % 65537
		name = sprintf("%*s", 1 + x % 61, ""); gsub(/ /, "x", name)
		printf "%d text ustack-sb comm pid=%d tid=%d exec=0 comm=%s\n", 1000 + i * 1000, 1000 + i, 1000 + i, name } }')
	awk '$1 == "page" && ($3 <= 0 || $3 > 4080 || $3 % 4) { exit 1 }' <<<"$output"
}

# A file size limit (SIGXFSZ ignored, as a shell's ulimit -f gives) lets
# the first write of 64 pages through and cuts the last one short.
@test "side-band file: a write cut short is an error of the close, not a file that silently lacks its end" {
	printf '%s\n' "many 5000 1000 1000" >"$BATS_TEST_TMPDIR/script"
	run bash -c 'trap "" XFSZ; ulimit -f 300; "$0" "$1/sb" <"$1/script"' \
		"$SBFILE" "$BATS_TEST_TMPDIR"
	[ "$(head -1 <<<"$output")" = "close -1" ]
}

@test "side-band file: gaps past 27 bits of nanoseconds (time extends) and a record that came late keep their times" {
	# 2^27 + 5 ns, then 5 s (past 32 bits), then one 40 ns late
	sbfile "$(printf 'comm 1000 10 a\ncomm 134218733 11 b\ncomm 5134218733 12 c\ncomm 5134218693 13 d\ncomm 5134218800 14 e\n')"
	[ "$(records)" = "$(printf '%s\n' '1000 text ustack-sb comm pid=10 tid=10 exec=0 comm=a' \
		'134218733 text ustack-sb comm pid=11 tid=11 exec=0 comm=b' \
		'5134218733 text ustack-sb comm pid=12 tid=12 exec=0 comm=c' \
		'5134218733 text ustack-sb comm pid=13 tid=13 exec=0 comm=d' \
		'5134218800 text ustack-sb comm pid=14 tid=14 exec=0 comm=e')" ]
}

@test "side-band file: a sample record keeps its cpu and its cut flag; its repeat is flagged and carries no chain" {
	sbfile "$(printf 'sample 1000 10 12 3 1 4\nsample 2000 10 12 3 1 4\nsample 3000 10 13 5 0 2\n')"
	[ "$(records)" = "$(printf '%s\n' '1000 sample pid 10 tid 12 cpu 3 flags 1 chain 32' \
		'2000 sample pid 10 tid 12 cpu 3 flags 3 chain 0' \
		'3000 sample pid 10 tid 13 cpu 5 flags 0 chain 16')" ]
}

# The live stream closed before its final batch (a stop by signal under
# a flood), through tests/tools/ustack-stream-unread-test on a new
# instance: "written W merged M handed H subbuf S unread U".
unread_run() {
	unread_scene "$1"
	read -r _ W _ M _ H _ S _ U <<<"$output"
}

@test "stream: closed with batches never consumed, their sub-buffers are all said unread" {
	unread_run queued
	[ "$M" -eq 0 ]
	# 1000 records of at least 16 bytes, in whole sub-buffers
	[ "$U" -ge 16000 ]
	[ $((U % S)) -eq 0 ]
}

@test "stream: closed with records the merge held back past a horizon, their sub-buffers are said unread" {
	unread_run held
	[ "$M" -eq "$W" ]
	[ "$H" -lt "$M" ]
	# the later batches were empty: exactly the sub-buffers of the held
	# records, at least one, at most one a record
	[ "$U" -ge "$S" ]
	[ "$U" -le $(( (M - H) * S )) ]
	[ $((U % S)) -eq 0 ]
}

@test "stream: a reader that runs out of memory ends with a final batch that releases every record held back" {
	unread_run oom
	[ "$M" -eq "$W" ]
	[ "$H" -eq "$M" ]
	[ "$U" -eq 0 ]
}

@test "session: a traced task_rename and task_newtask (not helpers) name the task for its later events" {
	session_script <<'EOF'
0 1000 100 sys_enter_test __syscall_nr=1
0 1100 100 task_rename pid=100 oldcomm=prog newcomm=renamed oom_score_adj=0
0 1200 100 sys_enter_test __syscall_nr=1
0 1300 100 task_newtask pid=101 comm=renamed clone_flags=0x10000 oom_score_adj=0
0 1400 101 sys_enter_test __syscall_nr=1
EOF
	grep -q '^sample ts=1000 cpu=0 pid=100 .*comm=prog ' <<<"$output"
	grep -q '^sample ts=1200 cpu=0 pid=100 .*comm=renamed ' <<<"$output"
	grep -q '^sample ts=1400 cpu=0 pid=101 .*comm=renamed ' <<<"$output"
	# the task events are traced events themselves
	[ "$(session_stat events)" = 5 ]
}

@test "session: a side-band LOST record adds its count to the side-band's losses, not to its records" {
	session_script <<'EOF'
1 1000 100 print buf=ustack-sb\scomm\spid=100\stid=100\sexec=0\scomm=prog
1 1100 100 print buf=ustack-sb\slost\spid=100\sn=7
1 1200 100 print buf=ustack-sb\slost\spid=100\sn=5
EOF
	[ "$(session_stat sideband)" = 1 ]
	[ "$(session_stat sideband_lost)" = 12 ]
}

@test "session: after perf samples, a side-band LOST record's count is also the rings' losses (they share the rings)" {
	# a perf sample of pid 100's sys_enter_test (nr 1), as session.bats's
	session_script <<'EOF'
1 1000 100 print buf=ustack-sb\ssample\spid=100\stid=100\scpu=1\sraw=580200006400000001000000000000000000000000000000\schain=u,55d000001010,10
1 1100 100 print buf=ustack-sb\slost\spid=100\sn=7
EOF
	[ "$(session_stat sideband_lost)" = 7 ]
	[ "$(session_stat rb_lost)" = 7 ]
}

@test "session: the side-band's records give a thread its process: its events carry the tgid and --pid takes them" {
	# thread 101 of process 100, named by a side-band comm record only
	session_script --pid 100 <<'EOF'
1 1000 100 print buf=ustack-sb\scomm\spid=100\stid=101\sexec=0\scomm=worker
0 2000 101 sys_enter_test __syscall_nr=1
0 2100 102 sys_enter_test __syscall_nr=1
EOF
	[ "$(grep -c '^sample ' <<<"$output")" -eq 1 ]
	grep -q '^sample ts=2000 cpu=0 pid=101 tgid=100 comm=worker ' <<<"$output"
}
