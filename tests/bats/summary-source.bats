#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The summary and the progress line count what the stack source produced
# (issue 46, item 6): a synchronous source (perf events, userstacktrace)
# has no cookies, so no "matched", "cookies pending" or "cookie 0"; and a
# recording's summary and its report's agree on every line they share.
# The deferred source's lines are tested in the VM (tests/bats/vm/).

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	perf_host_setup
}

teardown() {
	instance_teardown
}

# summary_lines FILE: the summary's "  label:  value" lines, as
# "label<TAB>value"
summary_lines() {
	sed -n '/^ustack summary/,$p' "$1" |
		sed -n 's/^  \([^:]*\):  *\(.*\)$/\1\t\2/p'
}

# The lines a synchronous source's summary has and has not
assert_sync_summary() {
	local err="$1" n="$2"

	grep -q "^  user stacks:          $n$" "$err" || { cat "$err"; return 1; }
	grep -q '^  stacks lost:          0$' "$err"
	grep -q '^  no user stack:        0$' "$err"
	! grep -qE 'matched|cookie|pending|fallback stacks' "$err" || { cat "$err"; return 1; }
}

# same_shared_lines REC REP: every line of record's summary whose label
# report's summary also has says the same in both
same_shared_lines() {
	local label value other shared=0

	summary_lines "$2" >"$TMP/rep.lines"
	while IFS=$'\t' read -r label value; do
		other=$(awk -F'\t' -v l="$label" '$1 == l { print $2 }' "$TMP/rep.lines")
		[ -n "$other" ] || continue
		shared=$((shared + 1))
		[ "$value" = "$other" ] ||
			{ echo "$label: record says '$value', report '$other'"; return 1; }
	done < <(summary_lines "$1")
	[ "$shared" -ge 3 ] || { echo "only $shared lines shared"; return 1; }
}

@test "summary, perf source: user stacks, lost, none; no cookie, pending or matched line" {
	run --separate-stderr "$USTACK" -B "$NAME" --stack-source=perf \
		-e syscalls:sys_enter_getppid -- "$PROGS/shlib" 3
	[ "$status" -eq 0 ]
	echo "$stderr" >"$TMP/err"
	assert_sync_summary "$TMP/err" 3
	# frame-pointer walks: nothing unwound from a copy
	! grep -q 'stacks unwound' "$TMP/err"
}

@test "summary, userstacktrace source: user stacks, lost, none; no cookie, pending or matched line" {
	run --separate-stderr "$USTACK" -B "$NAME" --stack-source=userstacktrace \
		-e syscalls:sys_enter_getppid -- "$PROGS/shlib" 3
	[ "$status" -eq 0 ]
	echo "$stderr" >"$TMP/err"
	assert_sync_summary "$TMP/err" 3
}

@test "summary, perf source with --call-graph=dwarf: the stacks unwound from copies counted" {
	run --separate-stderr "$USTACK" -B "$NAME" --stack-source=perf --call-graph=dwarf \
		-e syscalls:sys_enter_getppid -- "$PROGS/shlib" 3
	[ "$status" -eq 0 ]
	echo "$stderr" >"$TMP/err"
	assert_sync_summary "$TMP/err" 3
	grep -q '^  stacks unwound:       3 (stack copies, CFI)$' "$TMP/err"
}

@test "progress line, perf source: stacks counts the events' stacks, no pending cookies" {
	command -v script >/dev/null || skip "no script(1)"
	# the command (sh: one getppid of its own, shlib's three; -c follows
	# shlib) ends once the progress line (on a terminal: script) shows
	# four stacks, or after 20 s, and the check below fails
	script -qfec "$USTACK -B $NAME --stack-source=perf -c -e syscalls:sys_enter_getppid \
		-- sh -c '$PROGS/shlib 3; i=0; while [ \$i -lt 200 ] &&
		! grep -qE \"stacks ([4-9]|[1-9][0-9])\" $TMP/tty; do sleep 0.1; i=\$((i + 1)); done'" \
		"$TMP/tty" >/dev/null
	grep -qE 'events ([4-9])  stacks \1  lost 0  rb-lost 0' "$TMP/tty" ||
		{ cat -v "$TMP/tty"; return 1; }
	! grep -q 'pending' "$TMP/tty"
}

# A stripped program's frames (Debian's gzip): report names them
# "stripped", which record, symbolizing nothing, cannot count
@test "record and report of one --call-graph=dwarf recording agree on every line they share" {
	[ -x /usr/bin/gzip ] || skip "no /usr/bin/gzip"
	"$USTACK" record -B "$NAME" -o "$TMP/t.dat" --stack-source=perf --call-graph=dwarf \
		-e syscalls:sys_enter_write -- sh -c 'gzip -c /etc/services >/dev/null' \
		2>"$TMP/rec.err"
	"$USTACK" report -i "$TMP/t.dat" >/dev/null 2>"$TMP/rep.err"
	grep -q '^  frames unresolved:.*stripped' "$TMP/rep.err" || { cat "$TMP/rep.err"; return 1; }
	same_shared_lines "$TMP/rec.err" "$TMP/rep.err"
}

@test "record and report of one perf frame-pointer recording agree on every line they share" {
	"$USTACK" record -B "$NAME" -o "$TMP/t.dat" --stack-source=perf --call-graph=fp \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 3 2>"$TMP/rec.err"
	"$USTACK" report -i "$TMP/t.dat" >/dev/null 2>"$TMP/rep.err"
	same_shared_lines "$TMP/rec.err" "$TMP/rep.err"
	assert_sync_summary "$TMP/rep.err" 3
}

@test "record and report of one userstacktrace recording agree on every line they share" {
	"$USTACK" record -B "$NAME" -o "$TMP/t.dat" --stack-source=userstacktrace \
		-e syscalls:sys_enter_getppid -- "$PROGS/shlib" 3 2>"$TMP/rec.err"
	"$USTACK" report -i "$TMP/t.dat" >/dev/null 2>"$TMP/rep.err"
	same_shared_lines "$TMP/rec.err" "$TMP/rep.err"
	assert_sync_summary "$TMP/rep.err" 3
}
