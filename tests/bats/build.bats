#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The Makefile's checks for libraries without a pkg-config file: a missing
# one is named with the Debian package that provides it. `make -n` only
# parses the Makefile and prints the commands: nothing is built.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	tmp_setup
}

teardown() {
	instance_teardown
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

# A copy of the sources to build in, so that the tests do not touch the
# build of the checkout they run from.
copy_sources() {
	local d

	mkdir -p "$1"
	cp -r "$ROOT/Makefile" "$ROOT/include" "$ROOT/Documentation" "$ROOT/scripts" "$1/"
	for d in lib tracecmd; do
		mkdir -p "$1/$d"
		find "$ROOT/$d" -maxdepth 1 -type f ! -name '*.[oad]' ! -name trace-cmd-ustack \
			-exec cp {} "$1/$d/" \;
	done
}

@test "build: make CFLAGS=\"-O0 -g\" builds: what the build needs is not in CFLAGS" {
	copy_sources "$TMP/src"
	run make -C "$TMP/src" V=1 CFLAGS="-O0 -g" tracecmd/trace-cmd-ustack
	echo "$output" >&2
	[ "$status" -eq 0 ]
	# the user's flags are used, after ours (so that they can override)
	grep -q -- '-Iinclude .* -O0 -g -c -o lib/ustack-session.o' <<<"$output"
	run "$TMP/src/tracecmd/trace-cmd-ustack" --help
	[ "$status" -eq 0 ]
}

@test "build: a changed header rebuilds what includes it, and only that (-MMD)" {
	copy_sources "$TMP/src"
	make -s -C "$TMP/src" tracecmd/trace-cmd-ustack >/dev/null
	touch "$TMP/src/include/ustack-map-fileids.h"
	run make -C "$TMP/src" tracecmd/trace-cmd-ustack
	echo "$output" >&2
	[ "$status" -eq 0 ]
	[[ "$output" == *"CC      lib/ustack-map-fileids.o"* ]]
	[[ "$output" == *"CC      lib/ustack-map-db.o"* ]]
	[[ "$output" != *"CC      lib/ustack-fold.o"* ]]
	[[ "$output" != *"CC      tracecmd/ustack-opts.o"* ]]
}

@test "build: without libdebuginfod it builds and says so (make, --help, summary)" {
	copy_sources "$TMP/src"
	# pkg-config that knows every module but libdebuginfod
	cat >"$TMP/pkg-config" <<-'SH'
	#!/bin/sh
	for a in "$@"; do [ "$a" = libdebuginfod ] && exit 1; done
	exec pkg-config "$@"
	SH
	chmod +x "$TMP/pkg-config"
	run make -C "$TMP/src" PKG_CONFIG="$TMP/pkg-config" tracecmd/trace-cmd-ustack
	echo "$output" >&2
	[ "$status" -eq 0 ]
	[[ "$output" == *"building without debuginfod support"* ]]
	! grep -q debuginfod_ "$TMP/src/tracecmd/trace-cmd-ustack"
	"$TMP/src/tracecmd/trace-cmd-ustack" --help | tr -s ' \n' ' ' | grep -q "no debuginfod support"
	run --separate-stderr "$TMP/src/tracecmd/trace-cmd-ustack" report -i "$ROOT/tests/data/deep-deferred.dat"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"debuginfod:"*"not in this build"* ]]
}

# libdebuginfod pulls in libcurl and some thirty libraries: loaded at the
# first lookup (resolve.bats fetches from a real server), never at start.
@test "build: libdebuginfod is not linked, only loaded when a file is looked up" {
	grep -q debuginfod_begin "$ROOT/tracecmd/trace-cmd-ustack" || skip "built without libdebuginfod"
	run ldd "$ROOT/tracecmd/trace-cmd-ustack"
	[ "$status" -eq 0 ]
	[[ "$output" == *"libdw.so"* ]]
	[[ "$output" != *"libdebuginfod"* ]]
	[[ "$output" != *"libcurl"* ]]
}

@test "build: make install puts the man page there, make uninstall takes back what install put" {
	dest="$TMP/root"
	run make -s -C "$ROOT" install install-wrapper DESTDIR="$dest" prefix=/opt/u
	[ "$status" -eq 0 ]
	grep -qF '.TH "TRACE\-CMD\-USTACK" "1"' "$dest/opt/u/share/man/man1/trace-cmd-ustack.1"
	# the series the fallback's notice sends a user to, where the man page says
	doc="$dest/opt/u/share/doc/trace-cmd-ustack"
	grep -q "share/doc/trace-cmd-ustack/kernel-patches" "$ROOT/Documentation/trace-cmd-ustack.1.txt"
	cmp "$ROOT/kernel-patches/README.md" "$doc/kernel-patches/README.md"
	cmp "$ROOT/README.md" "$doc/README.md"
	[ "$(ls "$doc/kernel-patches"/*.patch | wc -l)" -eq "$(wc -l < "$ROOT/kernel-patches/series")" ]
	run make -s -C "$ROOT" uninstall DESTDIR="$dest" prefix=/opt/u
	[ "$status" -eq 0 ]
	[ -z "$(find "$dest" -type f)" ]
	# a trace-cmd that is not our wrapper stays
	mkdir -p "$dest/opt/u/bin"
	echo 'the real trace-cmd' >"$dest/opt/u/bin/trace-cmd"
	make -s -C "$ROOT" install DESTDIR="$dest" prefix=/opt/u
	make -s -C "$ROOT" uninstall DESTDIR="$dest" prefix=/opt/u
	[ "$(find "$dest" -type f)" = "$dest/opt/u/bin/trace-cmd" ]
}

@test "build: the shipped man page is what make doc makes of its source" {
	command -v a2x >/dev/null || skip "asciidoc (a2x) not installed"
	cp "$ROOT/Documentation/trace-cmd-ustack.1.txt" "$TMP/"
	(cd "$TMP" && PATH=/usr/bin:$PATH a2x -f manpage -L trace-cmd-ustack.1.txt)
	# the generator stamps its version and the date: compare the rest
	strip() { grep -v -e '^\.\\"' -e '^\.TH ' "$1"; }
	diff <(strip "$ROOT/Documentation/trace-cmd-ustack.1") <(strip "$TMP/trace-cmd-ustack.1")
}
