#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# --why: every unresolved user frame of the stacks output says why it has
# no name, with the finer reason the frame carries (file missing, bad ELF,
# outside --symfs ...), while the summary keeps counting them by group.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	TMP="$(mktemp -d)"
	cp -a "$DATA/symfs" "$TMP/symfs"
	DEEP="$TMP/symfs/tmp/ustack-fixtures/deep"
}

teardown() {
	instance_teardown
}

# report DEEP-deferred.dat in stacks mode under $TMP/symfs, extra options after
report_deep() {
	run --separate-stderr "$USTACK" report -i "$DATA/deep-deferred.dat" \
		--symfs "$TMP/symfs" --no-debuginfod "$@"
	[ "$status" -eq 0 ]
}

@test "--why: frames of a traced binary that is gone say 'file missing'" {
	rm "$DEEP"
	report_deep --why
	grep -q '^  \[unknown\] (deep+0x[0-9a-f]*) # file missing$' <<< "$output"
	# the summary counts them as it always did
	[[ "$stderr" == *"frames unresolved:    66 of 66 (no file 66)"* ]]
}

@test "--why: frames of a binary that is not ELF any more say 'bad ELF'" {
	printf 'not an ELF file\n' > "$DEEP"
	report_deep --why
	grep -q '^  \[unknown\] (deep+0x[0-9a-f]*) # bad ELF$' <<< "$output"
	! grep -q '(deep+0x[0-9a-f]*) # file missing' <<< "$output"
}

@test "--why: a binary that is a symlink out of --symfs says 'outside --symfs'" {
	mv "$DEEP" "$TMP/deep"
	ln -s "$TMP/deep" "$DEEP"
	report_deep --why
	grep -q '^  \[unknown\] (deep+0x[0-9a-f]*) # outside --symfs$' <<< "$output"
}

@test "--why: resolved frames carry no reason, and without --why no frame does" {
	report_deep --why
	grep -q '^  [a-z_][a-z_0-9]*+0x[0-9a-f]* (deep)$' <<< "$output"
	! grep '^  [a-z_].*(deep) #' <<< "$output"
	rm "$DEEP"
	report_deep
	grep -q '^  \[unknown\] (deep+0x[0-9a-f]*)$' <<< "$output"
	! grep -q ' # ' <<< "$output"
}

@test "--why --lines: a binary whose DWARF is zstd-compressed (libelf 0.188): each frame says why it has no line, the summary counts the file" {
	objcopy --compress-debug-sections=zstd "$DEEP" "$TMP/deepz"
	mv "$TMP/deepz" "$DEEP"
	report_deep --lines --why
	if ! grep -q 'compressed with zstd, which this libelf cannot decompress' <<< "$stderr"; then
		# a libelf that reads zstd gives the lines instead
		grep -q '^  chain_20+0x[0-9a-f]* (deep) .*deep\.c:[0-9]*$' <<< "$output"
		return 0
	fi
	[ "$(grep -c 'compressed with zstd' <<< "$stderr")" -eq 1 ]
	grep -q '^  chain_20+0x[0-9a-f]* (deep) # no line: its DWARF is compressed in a way this libelf cannot read$' <<< "$output"
	! grep -q '^  chain_[0-9]*+0x[0-9a-f]* (deep)$' <<< "$output" || false
	[[ "$stderr" == *"files without lines:  1 (DWARF this libelf cannot decompress, named above)"* ]]
	# without --why the frames end at the file's name, as before
	report_deep --lines
	grep -q '^  chain_20+0x[0-9a-f]* (deep)$' <<< "$output"
}
