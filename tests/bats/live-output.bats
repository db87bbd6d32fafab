#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# What a live or record run gives back apart from its stacks (issue 46,
# items 3 to 5): live -o keeps what is printed apart from the traced
# command's own output; every output path (-o, --flamegraph, --pprof,
# --speedscope, record's trace.dat) is made or checked before the command
# starts, a bad one refused in one line with the command not run; the
# exit status is the command's (128 + N for signal N) unless the tool
# itself failed.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	capture_setup
}

teardown() {
	[ -z "${MNT:-}" ] || umount "$MNT" 2>/dev/null || true
	instance_teardown
}

ustack() {
	"$USTACK" -B "$NAME" -q -e syscalls:sys_enter_getppid "$@"
}

# assert_refused LINE: exit 1, exactly one line on stderr, that line
assert_refused() {
	echo "status $status, stderr: $stderr"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "${stderr_lines[0]}" = "trace-cmd ustack: $1" ]
}

@test "live -o: gzip -c's compressed data on stdout stays whole (gzip -t), the folded stacks go to the file" {
	seq 1 200000 > "$TMP/big"
	run --separate-stderr bash -c '"$1" -B "$2" -q --folded -e syscalls:sys_enter_write \
		-o "$3/big.folded" -- gzip -9 -c "$3/big" > "$3/big.gz"' \
		_ "$USTACK" "$NAME" "$TMP"
	echo "$stderr"
	[ "$status" -eq 0 ]
	gzip -t "$TMP/big.gz"
	[ "$(gzip -dc "$TMP/big.gz" | cmp - "$TMP/big" && echo same)" = same ]
	grep -q '^gzip;.* [0-9]*$' "$TMP/big.folded"
}

@test "live -o in every printed mode (stacks, --perf-script, --folded, --top, --tree): the file has the output, stdout only the command's" {
	local mode

	for mode in "" --perf-script --folded --top --tree; do
		run --separate-stderr ustack -c $mode -o "$TMP/out" \
			-- sh -c '"$1" 2; echo from-the-command' sh "$PROGS/deep"
		echo "$mode: $status: $stderr"
		[ "$status" -eq 0 ]
		[ "$output" = from-the-command ]
		! grep -q from-the-command "$TMP/out" || false
		grep -q chain_20 "$TMP/out"
	done
	# the stacks themselves: deep's 2 calls, each through chain_20
	ustack --folded -o "$TMP/out" -- "$PROGS/deep" 2
	grep -q '^deep;.*chain_20 2$' "$TMP/out"
}

@test "live -o with only a profile file is refused (nothing would be printed to it), exit 64" {
	run --separate-stderr ustack --flamegraph "$TMP/f.svg" -o "$TMP/out" -- touch "$TMP/marker"
	[ "$status" -eq 64 ]
	[[ "${stderr_lines[0]}" == *"-o is for what is printed"* ]]
	[ ! -e "$TMP/marker" ] && [ ! -e "$TMP/out" ]
}

@test "a bad path for -o, --flamegraph, --pprof, --speedscope or record's trace.dat: refused in one line naming it, exit 1, the command never run" {
	local opt

	for opt in -o --flamegraph --pprof --speedscope; do
		run --separate-stderr ustack $opt "$TMP/none/x" -- touch "$TMP/marker"
		case $opt in
		-o) assert_refused "cannot write $TMP/none/x: No such file or directory" ;;
		*) assert_refused "cannot write $TMP/none/x: directory $TMP/none: No such file or directory" ;;
		esac
		[ ! -e "$TMP/marker" ]
		assert_no_instance "$NAME"
	done
	run --separate-stderr "$USTACK" record -B "$NAME" -q -o "$TMP/none/x" -- touch "$TMP/marker"
	assert_refused "cannot write $TMP/none/x: directory $TMP/none: No such file or directory"
	[ ! -e "$TMP/marker" ]
}

@test "a profile file on a file system with no inode left: its temporary cannot be made, refused before the command runs, the old file kept" {
	MNT="$TMP/fs"
	mkdir "$MNT"
	# the root directory and the old file take both inodes
	mount -t tmpfs -o nr_inodes=2,size=1m tmpfs "$MNT"
	echo old > "$MNT/f.svg"
	for opt in --flamegraph --pprof --speedscope; do
		run --separate-stderr ustack $opt "$MNT/f.svg" -- touch "$TMP/marker"
		assert_refused "cannot write $MNT/f.svg: No space left on device"
		[ ! -e "$TMP/marker" ]
		[ "$(cat "$MNT/f.svg")" = old ]
	done
	[ "$(ls -A "$MNT")" = f.svg ]
}

@test "profile files replace the old ones whole from a temporary (a hard link keeps the old file), no temporary left (named temporaries too)" {
	local t f

	for t in "" named; do
		rm -f "$TMP"/*
		for f in p.svg p.pb.gz p.json; do
			echo old > "$TMP/$f"
			ln "$TMP/$f" "$TMP/old-$f"
		done
		USTACK_TEMPFILES=$t run --separate-stderr ustack --flamegraph "$TMP/p.svg" \
			--pprof "$TMP/p.pb.gz" --speedscope "$TMP/p.json" -- "$PROGS/deep" 1
		[ "$status" -eq 0 ]
		grep -q '<svg' "$TMP/p.svg"
		gzip -t "$TMP/p.pb.gz"
		jq -e .profiles "$TMP/p.json" > /dev/null
		# written into a new file put in place, not into the old one
		for f in p.svg p.pb.gz p.json; do
			[ "$(cat "$TMP/old-$f")" = old ]
			rm "$TMP/old-$f"
		done
		[ "$(ls -A "$TMP" | sort | tr '\n' ' ')" = "p.json p.pb.gz p.svg " ]
	done
	# a run that fails after the check leaves neither file nor temporary
	USTACK_TEMPFILES=named run --separate-stderr "$USTACK" -B "$NAME" -q \
		-e no_such_system:no_such_event --flamegraph "$TMP/q.svg" -- true
	[ "$status" -eq 1 ]
	[ "$(ls -A "$TMP" | sort | tr '\n' ' ')" = "p.json p.pb.gz p.svg " ]
}

@test "exit status: the command's code comes back (3), live and record; without a command (-P) the tool's, 0" {
	run --separate-stderr ustack -c -- sh -c '"$1" 1; exit 3' sh "$PROGS/deep"
	[ "$status" -eq 3 ]
	[[ "$output" == *chain_20* ]]
	run --separate-stderr "$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" \
		-e syscalls:sys_enter_getppid -c -- sh -c '"$1" 1; exit 3' sh "$PROGS/deep"
	[ "$status" -eq 3 ]
	# the recording is whole all the same
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
	[ "$status" -eq 0 ]
	grep -q '^deep;.*;chain_20 1$' <<< "$output"
	run --separate-stderr ustack -d 0.2 -P $$
	[ "$status" -eq 0 ]
}

@test "exit status: 128 + N when signal N ended the command (SIGUSR1: 138), live and record" {
	run --separate-stderr ustack -- sh -c 'kill -USR1 $$'
	[ "$status" -eq 138 ]
	run --separate-stderr "$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" \
		-e syscalls:sys_enter_getppid -- sh -c 'kill -USR1 $$'
	[ "$status" -eq 138 ]
	[ -s "$TMP/t.dat" ]
}

@test "exit status: a command the run ends (-d) gets SIGTERM and gives 143, as perf record" {
	run --separate-stderr ustack -d 0.2 -- sleep 600
	[ "$status" -eq 143 ]
}

@test "exit status: the tool's failure wins (-o /dev/full: 1, the error said once) over the command's 0 and 3" {
	mknod "$TMP/full" c 1 7
	for code in 0 3; do
		run --separate-stderr ustack -c -o "$TMP/full" -- sh -c '"$1" 5; exit $2' sh "$PROGS/deep" "$code"
		echo "$code: $status: $stderr"
		[ "$status" -eq 1 ]
		[ "$stderr" = "trace-cmd ustack: cannot write $TMP/full: No space left on device" ]
	done
}
