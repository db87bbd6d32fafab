#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# tests/vm/reset-tree, which resets the cached kernel tree and applies a
# series before every build (tests/vm/build-kernel, and each prefix of
# kernel-patches/build-prefixes). What it must keep: a file whose content
# the new series leaves as it was keeps its mtime (else make rebuilds all
# that includes it); one whose content changed, or came back to the base
# content, gets a new one (else make builds a stale object). Checked on a
# small git tree with real git am, as on the kernel's.

bats_require_minimum_version 1.5.0
load helpers

RESET="$ROOT/tests/vm/reset-tree"
OLD="2020-01-02 03:04:05.000000000 +0000"

setup() {
	T="$BATS_TEST_TMPDIR/tree"
	P="$BATS_TEST_TMPDIR/patches"
	mkdir -p "$T" "$P"
	g() { git -C "$T" "$@"; }
	g init -q
	g config user.email t@localhost
	g config user.name t
	printf 'int a;\n' > "$T/a.h"
	printf 'int b;\n' > "$T/b.c"
	g add -A
	g commit -q -m base
	g tag base
	# the patches: 1 changes a.h, 2 changes b.c and adds n.c, 2x changes
	# b.c otherwise
	patch_of 1 a.h 'int a, a1;'
	patch_of 2 b.c 'int b, b2;' n.c 'int n;'
	g checkout -q -f --detach base
	g am -q "$P/1.patch"
	patch_of 2x b.c 'int b, bx;'
	g checkout -q -f --detach base
}

# patch_of NAME FILE TEXT...: a commit on HEAD writing each FILE, saved as
# $P/NAME.patch
patch_of() {
	local name=$1

	shift
	while [ $# -gt 0 ]; do
		printf '%s\n' "$2" > "$T/$1"
		shift 2
	done
	g add -A
	g commit -q -m "patch $name"
	g format-patch -q -1 --stdout > "$P/$name.patch"
}

# age: every file of the tree as if written long ago
age() {
	find "$T" -path "$T/.git" -prune -o -type f -exec touch -d "$OLD" {} +
}

mtime() {
	stat -c %y "$T/$1"
}

# from_to "OLD..." "NEW...": the tree at patches OLD (names in $P), every
# file aged, then reset-tree to patches NEW (run's status and output)
from_to() {
	local n old=() new=()

	for n in $1; do old+=("$P/$n.patch"); done
	for n in $2; do new+=("$P/$n.patch"); done
	"$RESET" "$T" base "${old[@]}" > /dev/null
	age
	run --separate-stderr "$RESET" "$T" base "${new[@]}"
}

# a_kept_b_new SAID B: reset-tree succeeded saying SAID; a.h kept its
# mtime, b.c got a new one and holds the line B, n.c is gone
a_kept_b_new() {
	[ "$status" -eq 0 ]
	[ "$output" = "$1" ]
	[ "$(mtime a.h)" = "$OLD" ]
	[ "$(mtime b.c)" != "$OLD" ]
	grep -qx "$2" "$T/b.c"
	[ ! -e "$T/n.c" ]
}

@test "vm-tree: a file the new series leaves as it was keeps its mtime, one it changes gets a new one" {
	from_to "1 2" "1 2x"
	# a.h, b.c and n.c differed from base; a.h alone is the same
	a_kept_b_new "1 of 3" 'int b, bx;'
}

@test "vm-tree: a shorter prefix of the series: the files it still patches keep their mtimes, those back at base get new ones" {
	from_to "1 2" "1"
	a_kept_b_new "1 of 3" 'int b;'
	# and back up: b.c and n.c come back with new mtimes
	from_to "1" "1 2"
	[ "$output" = "1 of 1" ]
	[ "$(mtime b.c)" != "$OLD" ]
	[ "$(mtime n.c)" != "$OLD" ]
}

@test "vm-tree: a file edited in the tree is remembered with its edit: the series' content is a change" {
	"$RESET" "$T" base "$P/1.patch"
	printf 'int a, edited;\n' > "$T/a.h"
	age
	run --separate-stderr "$RESET" "$T" base "$P/1.patch"
	[ "$output" = "0 of 1" ]
	[ "$(mtime a.h)" != "$OLD" ]
	grep -qx 'int a, a1;' "$T/a.h"
}

@test "vm-tree: a patch that does not apply: exit 1 naming it, the tree left at base" {
	"$RESET" "$T" base "$P/1.patch"
	run --separate-stderr "$RESET" "$T" base "$P/2.patch" "$P/2x.patch"
	[ "$status" -eq 1 ]
	[[ "${stderr_lines[-1]}" == "reset-tree: error: $P/2x.patch does not apply to base" ]]
	[ "$(g rev-parse HEAD)" = "$(g rev-parse base)" ]
	[ -z "$(g status --porcelain)" ]
}

@test "vm-tree: a base the tree does not have is an error naming it" {
	run --separate-stderr "$RESET" "$T" nosuchtag
	[ "$status" -eq 1 ]
	[ "$stderr" = "reset-tree: error: $T has no commit 'nosuchtag'" ]
}
