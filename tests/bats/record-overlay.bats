#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The tracing directory record makes for libtracecmd's writer (the real
# one as links, our sample format, lib/ustack-tracedat-overlay.c):
# libtracecmd reads a file twice (its size, then its bytes) and writes a
# section no reader opens when they differ, so the files that change
# under it (saved_cmdlines with every new task of any tracer, beside
# another test run; printk_formats) are copies read once; and a second
# stop signal while it exists removes it with the other temporaries.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	capture_setup
	command -v strace > /dev/null || skip "no strace"
	# the directory is made in $TMPDIR: one of the test's own
	mkdir "$TMP/tmpdir"
}

teardown() {
	instance_teardown
}

# record_under_strace SOURCE STRACE-ARGS...: a record of deep with SOURCE
record_under_strace() {
	local source=$1

	shift
	TMPDIR="$TMP/tmpdir" strace -qq -f -o "$TMP/strace" "$@" \
		"$USTACK" record -B "$NAME" -q --stack-source="$source" \
		-o "$TMP/t.dat" -e syscalls:sys_enter_getppid -- "$PROGS/deep" 3
}

@test "record: libtracecmd reads saved_cmdlines and printk_formats from copies read once, not from tracefs (each source)" {
	local source through live

	for source in perf userstacktrace; do
		run record_under_strace "$source" -y -e trace=openat
		[ "$status" -eq 0 ]
		# every open through the writer's directory is of a copy there
		through=$(grep -E 'ustack-formats-[^/"]*/(saved_cmdlines|printk_formats)", O_RDONLY\)' \
			"$TMP/strace" || true)
		echo "$source: $through"
		[ "$(grep -c . <<< "$through")" -ge 4 ]
		live=$(grep -c '</sys/kernel/tracing/\(saved_cmdlines\|printk_formats\)>$' <<< "$through" || true)
		[ "$live" -eq 0 ]
		# and the recording still names the tasks
		run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded
		[[ "$output" == "deep;"*"chain_20 3" ]]
		[ -z "$(ls -A "$TMP/tmpdir")" ]
	done
}

@test "record: a second stop signal while the writer's directory is made removes all of it, and the instance" {
	# SIGINT at its first link, SIGTERM at the mkdir of its events/
	# (the run's third: the instance's, the directory's, events/):
	# strace delivers them, the second ends the run at once
	run record_under_strace perf -e trace=symlink,mkdir \
		-e inject=symlink:signal=SIGINT:when=1 \
		-e inject=mkdir:signal=SIGTERM:when=3
	echo "status $status"
	cat "$TMP/strace"
	[ "$status" -eq 143 ]
	grep -q 'ustack-formats-[^/]*/events", 0700' "$TMP/strace"
	ls -A "$TMP/tmpdir"
	[ -z "$(ls -A "$TMP/tmpdir")" ]
	assert_no_instance "$NAME"
}
