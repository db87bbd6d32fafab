#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The kernel series as a series: complete, signed off, style-clean, and
# building without CONFIG_UNWIND_USER. (Its behaviour is tested on the
# booted kernel by tests/bats/vm/kernel.bats.)

bats_require_minimum_version 1.5.0
load helpers

KP="$ROOT/kernel-patches"

@test "kernel-patches: series lists every patch file, in order, and nothing else" {
	diff <(ls "$KP" | grep '\.patch$') "$KP/series"
}

@test "kernel-patches: every patch is signed off and explains itself" {
	while read -r p; do
		grep -q '^Signed-off-by: .\+ <.\+@.\+>$' "$KP/$p" || { echo "$p: no Signed-off-by"; return 1; }
		# the message body (between the subject and the ---) has substance
		body=$(sed -n '/^Subject:/,/^---$/p' "$KP/$p" | wc -w)
		[ "$body" -ge 40 ] || { echo "$p: commit message too short ($body words)"; return 1; }
	done < "$KP/series"
}

# Findings are judged on stdout only: notes (what the check had to fetch
# first) go to stderr and depend on what the cache holds.
@test "kernel-patches: scripts/checkpatch.pl --strict reports nothing" {
	[ -r /usr/src/linux-source-7.3.tar.xz ] || skip "linux-source-7.3 not installed (tests/vm/install-deps)"
	run --separate-stderr "$KP/check"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq "$(grep -c . "$KP/series")" ]
	! echo "$output" | grep -v ': clean$'
}

# A fresh machine: nothing cached. The check takes only checkpatch from
# the kernel source (no tree is unpacked) and reports the same.
@test "kernel-patches: checkpatch on an empty cache is clean too, without unpacking a tree" {
	[ -r /usr/src/linux-source-7.3.tar.xz ] || skip "linux-source-7.3 not installed (tests/vm/install-deps)"
	cache=$(mktemp -d)
	USTACK_CACHE=$cache run --separate-stderr "$KP/check"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq "$(grep -c . "$KP/series")" ]
	! echo "$output" | grep -v ': clean$'
	[[ "$stderr" == *"no kernel tree in $cache"* ]]
	[ ! -e "$cache/src" ]
	rm -rf "$cache"
}

@test "kernel-patches: the patched tree builds and links for i386, without CONFIG_UNWIND_USER" {
	[ -r /usr/src/linux-source-7.3.tar.xz ] || skip "linux-source-7.3 not installed (tests/vm/install-deps)"
	run "$KP/build-nounwind"
	echo "$output"
	[ "$status" -eq 0 ]
}
