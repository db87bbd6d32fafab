#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The library functions lib/ustack-tracedat-interpose.c defines in place
# of the libraries' own (issue 45): tep_parse_saved_cmdlines(), which
# replaces libtraceevent's parse for good, must register what the
# library's registers and return what it returns, on this machine's
# saved_cmdlines and on the edges of the format
# (tests/tools/ustack-interpose-test runs both). The other three hand
# every call they do not skip to the real function (tdread.bats compares
# the records read through them with libtracecmd's); they must stay
# defined in the command, where libtracecmd's PLT finds them first.

bats_require_minimum_version 1.5.0
load helpers

TOOL="$ROOT/tests/tools/ustack-interpose-test"

setup() {
	tmp_setup
}

teardown() {
	instance_teardown
}

# same TEXT: both parsers agree on TEXT (printf format)
same() {
	printf -- "$1" >"$TMP/in"
	run "$TOOL" "$TMP/in"
	echo "$1: $output"
	[ "$status" -eq 0 ]
	[[ "$output" == same* ]]
}

@test "interpose: our saved_cmdlines parse registers what libtraceevent's does on this machine's saved_cmdlines" {
	[ -r "$TRACEFS/saved_cmdlines" ] || skip "no $TRACEFS/saved_cmdlines"
	cp "$TRACEFS/saved_cmdlines" "$TMP/in"
	run "$TOOL" "$TMP/in"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^same\ 0\ ([0-9]+)$ ]]
	[ "${BASH_REMATCH[1]}" -gt 0 ]
}

@test "interpose: ... and on the format's edges (blanks in names, tabs, empty lines, a line that is not one, signs, a pid twice)" {
	same ''
	same '\n\n'
	same '123 comm with spaces\n'
	same '123\tname\n'
	same '-5 neg\n'
	same 'abc\n'
	same '1 a\nxyz\n2 b\n'
	same '12 \n34 x\n'
	same '12\n'
	same '7 x\n7 y\n'
	same '0 swapper\n'
	same '+8 plus\n'
	same '  9 lead\n'
	same '10 trail  \n'
	same '11 last line without a newline'
}

@test "interpose: the four functions are defined in the command itself, so that libtracecmd's calls reach them" {
	run nm -D "$USTACK"
	[ "$status" -eq 0 ]
	for f in tep_parse_kallsyms tep_parse_saved_cmdlines tracecmd_uncompress_block \
		 tracecmd_uncompress_chunk; do
		grep -Eq "^[0-9a-f]+ T $f\$" <<<"$output" || { echo "$f not defined"; false; }
	done
}
