#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The summary and the progress line of the deferred source (issue 46,
# item 6), run inside the VM (tests/vm/run -- bats
# tests/bats/vm/summary-deferred.bats): stacks paired by cookie keep their
# counters (matched, lost, cookie 0, pending), the synchronous sources'
# "user stacks:" line is not there; record and report of one recording
# agree on the lines they share. tests/bats/summary-source.bats has the
# host's sources.

bats_require_minimum_version 1.5.0
load ../helpers

setup() {
	deferred_setup "$PROGS" shlib
}

teardown() {
	instance_teardown
}

@test "deferred summary: matched, lost, cookie 0 and pending; no synchronous source's line" {
	run --separate-stderr "$USTACK" -B "$NAME" --stack-source=tracefs-deferred \
		-e syscalls:sys_enter_getppid -- "$PROGS/shlib" 3
	[ "$status" -eq 0 ]
	echo "$stderr"
	[[ "$stderr" == *$'\n  user stacks matched:  3\n'* ]]
	[[ "$stderr" == *$'\n  stacks lost:          0\n'* ]]
	[[ "$stderr" == *$'\n  no user stack:        0 (cookie 0: 0)\n'* ]]
	[[ "$stderr" == *$'\n  cookies pending:      0\n'* ]]
	[[ "$stderr" != *"user stacks: "* && "$stderr" != *"fallback stacks"* ]]
}

@test "deferred progress line: stacks and pending cookies" {
	command -v script >/dev/null || skip "no script(1)"
	# sh's own getppid and shlib's three (-c); the command ends once
	# the progress line shows four stacks, or after 20 s
	script -qfec "$USTACK -B $NAME --stack-source=tracefs-deferred -c -e syscalls:sys_enter_getppid \
		-- sh -c '$PROGS/shlib 3; i=0; while [ \$i -lt 200 ] &&
		! grep -qE \"stacks ([4-9]|[1-9][0-9])\" $TMP/tty; do sleep 0.1; i=\$((i + 1)); done'" \
		"$TMP/tty" >/dev/null
	grep -qE 'events ([4-9])  stacks \1  pending 0  lost 0  rb-lost 0' "$TMP/tty" ||
		{ cat -v "$TMP/tty"; return 1; }
}

@test "deferred record and report of one recording agree on every line they share" {
	"$USTACK" record -B "$NAME" -o "$TMP/t.dat" --stack-source=tracefs-deferred \
		-e syscalls:sys_enter_getppid -- "$PROGS/shlib" 3 2>"$TMP/rec.err"
	"$USTACK" report -i "$TMP/t.dat" >/dev/null 2>"$TMP/rep.err"
	cat "$TMP/rec.err" "$TMP/rep.err"
	lines() { sed -n '/^ustack summary/,$p' "$1" | sed -n 's/^  \([^:]*\):  *\(.*\)$/\1\t\2/p'; }
	lines "$TMP/rep.err" >"$TMP/rep.lines"
	shared=0
	while IFS=$'\t' read -r label value; do
		other=$(awk -F'\t' -v l="$label" '$1 == l { print $2 }' "$TMP/rep.lines")
		[ -n "$other" ] || continue
		shared=$((shared + 1))
		[ "$value" = "$other" ] || { echo "$label: '$value' against '$other'"; return 1; }
	done < <(lines "$TMP/rec.err")
	[ "$shared" -ge 1 ]
	grep -q '^  user stacks matched:  3$' "$TMP/rep.err"
}
