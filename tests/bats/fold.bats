#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# lib/ustack-fold.c through tests/tools/ustack-fold-test: what a frame
# name may not carry into a folded line.

bats_require_minimum_version 1.5.0
load helpers

FOLD="$ROOT/tests/tools/ustack-fold-test"

setup() {
	[ -x "$FOLD" ] || skip "run make first ($FOLD missing)"
}

@test "fold: names are copied whole, frames joined by ';'" {
	run "$FOLD" main "std::vector<int>::push_back(int const&)" leaf
	[ "$status" -eq 0 ]
	[ "$output" = "main;std::vector<int>::push_back(int const&);leaf 1" ]
}

@test "fold: ';' in a name becomes ':', control characters (C0, DEL, C1) become \\xNN" {
	run "$FOLD" 'a;b' 'x\x01y\x1fz\x7f' ';;' 'tab\x09end' 'c1\x9b\xc2\x9b' 'ok'
	[ "$status" -eq 0 ]
	[ "$output" = 'a:b;x\x01y\x1fz\x7f;::;tab\x09end;c1\x9b\xc2\x9b;ok 1' ]
}

@test "fold: bytes above 0x7f (UTF-8) are kept" {
	run "$FOLD" 'caf\xc3\xa9' 'na\xc3\xafve'
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'caf\xc3\xa9;na\xc3\xafve 1')" ]
}

@test "fold: a name longer than twice the buffer (long C++/Rust names) is copied whole" {
	local long

	# the buffer starts at 256 bytes: growth must double until it fits
	long="$(printf 'ns%.0s::' $(seq 400))f"
	[ ${#long} -gt 1500 ]
	run "$FOLD" main "$long" leaf
	[ "$status" -eq 0 ]
	[ "$output" = "main;$long;leaf 1" ]
}
