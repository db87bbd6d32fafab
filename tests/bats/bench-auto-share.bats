#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The share of functions with a frame-pointer prologue that decides
# --call-graph=auto's "keeps frame pointers" (lib/ustack-fpcode.c: a
# fifth or more), read through tests/tools/ustack-fpshare as
# bench/callgraph-auto/run reads it: this build of the tool (built with
# -fno-omit-frame-pointer) and the frame-pointer test program above the
# fifth, Debian's binaries and libc below it. No time is measured here:
# bench/callgraph-auto/run does that.

load helpers

TOOL="$ROOT/tests/tools/ustack-fpshare"

setup_file() {
	make -s -C "$ROOT" tracecmd/trace-cmd-ustack tests/tools/ustack-fpshare >&2
	make -s -C "$ROOT" progs >&2
}

# verdict_ok LINE: the verdict of "FILE FP FUNCTIONS PERCENT VERDICT" is
# the fifth's (FP * 5 >= FUNCTIONS), over some functions
verdict_ok() {
	echo "$1" | awk '$3 > 0 && ($5 == "keeps") == ($2 * 5 >= $3) { ok = 1 } END { exit !ok }'
}

@test "fp share: this build of the tool and tests/progs/analysis/twopaths keep frame pointers, a fifth or more of their functions setting %rbp up" {
	local f

	for f in "$USTACK" "$ROOT/tests/progs/analysis/twopaths"; do
		run "$TOOL" "$f"
		echo "$output"
		[ "$status" -eq 0 ]
		verdict_ok "$output"
		[ "$(echo "$output" | awk '{ print $5 }')" = keeps ]
	done
}

@test "fp share: Debian's python3, bash, git, gzip, ls and libc have no frame pointers, under a fifth of their functions setting %rbp up" {
	local f libc

	libc=$(ldd /bin/true | awk '/libc\.so/ { print $3 }')
	for f in /usr/bin/python3 /bin/bash /usr/bin/git /bin/gzip /bin/ls "$libc"; do
		run "$TOOL" "$(readlink -f "$f")"
		echo "$output"
		[ "$status" -eq 0 ]
		verdict_ok "$output"
		[ "$(echo "$output" | awk '{ print $5 }')" = none ]
	done
}

@test "fp share: a file that is not ELF is said in one line naming it, exit 1, the others still counted" {
	echo 'not an ELF file' > "$BATS_TEST_TMPDIR/text"
	run "$TOOL" "$BATS_TEST_TMPDIR/text" /bin/gzip
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"ustack-fpshare: $BATS_TEST_TMPDIR/text: "* ]]
	[ "$(echo "$output" | grep -c .)" -eq 2 ]
	[[ "$output" == *"/bin/gzip "*" none"* ]]
}
