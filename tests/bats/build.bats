#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The Makefile's checks for libraries without a pkg-config file: a missing
# one is named with the Debian package that provides it. `make -n` only
# parses the Makefile and prints the commands: nothing is built.

ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"

setup() {
	TMP="$(mktemp -d)"
}

teardown() {
	rm -rf "$TMP"
}

@test "build: without libiberty.a the Makefile stops and names libiberty-dev" {
	# A compiler that finds no libiberty.a: gcc then prints the bare name.
	cat >"$TMP/cc" <<-'SH'
	#!/bin/sh
	[ "$1" = -print-file-name=libiberty.a ] && { echo libiberty.a; exit 0; }
	exec cc "$@"
	SH
	chmod +x "$TMP/cc"
	run make -n -C "$ROOT" CC="$TMP/cc"
	echo "$output" >&2
	[ "$status" -ne 0 ]
	[[ "$output" == *"missing libiberty"*"install Debian package libiberty-dev"* ]]
	# The real compiler finds it: the check itself does not always fail.
	run make -n -C "$ROOT"
	[ "$status" -eq 0 ]
	[[ "$output" != *"missing libiberty"* ]]
}
