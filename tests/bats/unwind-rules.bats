#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The cache of simple CFI rules in front of libdwfl (issue 47,
# lib/ustack-unwind-rules.c): a copy whose every frame has a rule kept
# from an earlier walk is walked with the rules alone, and must give what
# libdwfl's walk gives: the frames, how each was found, the end and its
# address, the words of the copy read (what a trimmed copy keeps).
#
# Test hook: USTACK_UNWIND_RULES=check walks every sample both ways, the
# result libdwfl's, and says when the unwinder is freed "unwind rules
# check: N walks, F by the rules, D differ" (and each of the first ten
# that differ); =off walks with libdwfl alone.

bats_require_minimum_version 1.5.0
load helpers

CFI="$ROOT/tests/progs/cfi"
EDGES="$CFI/cfi-edges"
TOOL="$ROOT/tests/tools/ustack-unwind-test"

setup_file() {
	build_progs
	make -s -C "$ROOT" tests/tools/ustack-unwind-test >&2
}

setup() {
	perf_host_setup
}

teardown() {
	instance_teardown
}

# check_counts FILE: "WALKS FAST DIFFER" of the last check line in FILE
check_counts() {
	sed -n 's/.*unwind rules check: \([0-9]*\) walks, \([0-9]*\) by the rules, \([0-9]*\) differ$/\1 \2 \3/p' \
		"$1" | tail -n 1
}

# check_ok FILE MIN%: FILE's check says none differ, at least MIN% of
# the walks by the rules (the rules used, not only declined)
check_ok() {
	local walks fast differ

	read -r walks fast differ <<< "$(check_counts "$1")"
	echo "$1: ${walks:-no} walks, $fast by the rules, $differ differ"
	grep 'unwind rules check: tid' "$1" || true
	[ -n "$walks" ] && [ "$walks" -gt 0 ] && [ "$differ" -eq 0 ] &&
		[ $((100 * fast)) -ge $((walks * $2)) ]
}

# same_reports FILE ARGS...: report ARGS of FILE with the rules, without
# them, and checked: the same stacks and summary
same_reports() {
	local f="$1" m

	shift
	for m in on off check; do
		USTACK_UNWIND_RULES=$m "$USTACK" report -i "$f" "$@" > "$f.$m.out" 2> "$f.$m.err"
		grep -v 'unwind rules check' "$f.$m.err" > "$f.$m.sum" || true
	done
	cmp "$f.on.out" "$f.off.out" && cmp "$f.on.out" "$f.check.out" &&
		cmp "$f.on.sum" "$f.off.sum" && cmp "$f.on.sum" "$f.check.sum"
}

# whole_copies NAME EVENT CMD...: CMD recorded with every copy whole
# (USTACK_TRIM_QUEUE=0); report walks each copy both ways: none differs,
# most by the rules; its output the same with the rules and without
whole_copies() {
	local f="$TMP/$1.dat" ev="$2"

	shift 2
	USTACK_TRIM_QUEUE=0 "$USTACK" record -B "$NAME" -o "$f" --stack-source=perf \
		--call-graph=dwarf -e "$ev" -- "$@" > /dev/null 2> "$f.rec"
	grep -q '^  samples: *[1-9]' "$f.rec" || { cat "$f.rec"; false; }
	same_reports "$f"
	check_ok "$f.check.err" 80
	same_reports "$f" --folded
}

PY_LOOP='import json, os
for i in range(1000):
    json.dumps({"i": i}); os.stat("/")'

@test "unwind rules: python3 (Debian), whole copies: every walk by the rules is libdwfl's, 80% by the rules, report unchanged" {
	whole_copies py raw_syscalls:sys_enter /usr/bin/python3 -c "$PY_LOOP"
}

@test "unwind rules: bash (Debian), whole copies: every walk by the rules is libdwfl's, 80% by the rules, report unchanged" {
	whole_copies bash raw_syscalls:sys_enter /bin/bash -c \
		'for ((i = 0; i < 1000; i++)); do echo "$i" > /dev/null; done'
}

@test "unwind rules: ls -lR (Debian), whole copies: every walk by the rules is libdwfl's, 80% by the rules, report unchanged" {
	whole_copies ls raw_syscalls:sys_enter /bin/ls -lR /usr/share/doc
}

@test "unwind rules: cfi-shlib (-O2, no frame pointers), whole copies: every walk by the rules is libdwfl's, 80% by the rules, report unchanged" {
	whole_copies shlib syscalls:sys_enter_getppid "$CFI/cfi-shlib" 200
}

@test "unwind rules: the recorder's worker trims each copy to the words libdwfl's walk reads (python3, cfi-deep), and report unwinds them alike" {
	local f

	for f in py deep; do
		if [ $f = py ]; then
			set -- raw_syscalls:sys_enter /usr/bin/python3 -c "$PY_LOOP"
		else
			set -- syscalls:sys_enter_getppid "$CFI/cfi-deep" 200
		fi
		USTACK_UNWIND_RULES=check "$USTACK" record -B "$NAME" -o "$TMP/$f.dat" \
			--stack-source=perf --call-graph=dwarf -e "$1" -- "${@:2}" \
			> /dev/null 2> "$TMP/$f.rec"
		grep '^  stack copies:' "$TMP/$f.rec"
		# the worker's walks, on the copies it trimmed
		check_ok "$TMP/$f.rec" 50
		# report's, on the words kept
		same_reports "$TMP/$f.dat" --folded
		check_ok "$TMP/$f.dat.check.err" 80
	done
}

# edge NAME MIN ARGS...: ustack-unwind-test ARGS checked: none differs,
# at least MIN walks by the rules; its output that of a run without them
edge() {
	local name="$1" min="$2" fast

	shift 2
	USTACK_UNWIND_RULES=check "$TOOL" --fold "$@" > "$TMP/$name.out" 2> "$TMP/$name.err"
	cat "$TMP/$name.out"
	check_ok "$TMP/$name.err" 0
	read -r _ fast _ <<< "$(check_counts "$TMP/$name.err")"
	[ "$fast" -ge "$min" ]
}

@test "unwind rules: the ends of a walk by the rules are libdwfl's: copy too small past a register or at a return address, a return address past its FDE, the frame limit" {
	local size

	edge noreturn 2 -- "$EDGES" noreturn 3
	edge lostreg8 2 --stack-size 8 -- "$EDGES" lostreg 3
	edge lostreg16 2 --stack-size 16 -- "$EDGES" lostreg 3
	size=$("$EDGES" copyend 1 2>&1 | awk '/^copyend/ { print $2 }')
	[ -n "$size" ]
	edge copyend 2 --stack-size "$size" -- "$EDGES" copyend 3
	edge copyend8 2 --stack-size $((size - 8)) -- "$EDGES" copyend 3
	edge small 4 --stack-size 64 -- "$CFI/cfi-deep" 5
	# signal frames and frames without CFI: left to libdwfl, alike
	edge altstack 0 -- "$EDGES" altstack 3
	edge nocfi 0 -- "$CFI/cfi-nocfi-fp" 5
	# the frame limit, live
	USTACK_UNWIND_RULES=check "$USTACK" -B "$NAME" -q --call-graph=dwarf --folded --max-stack 6 \
		-e syscalls:sys_enter_getppid -- "$CFI/cfi-deep" 20 > "$TMP/max.out" 2> "$TMP/max.err"
	cat "$TMP/max.out"
	grep -q '^cfi-deep;\[truncated\];chain_07;.*;chain_12 20$' "$TMP/max.out"
	check_ok "$TMP/max.err" 80
}

@test "unwind rules: a library replaced at the same address between samples: its rules are not the other's" {
	local at

	USTACK_UNWIND_RULES=check "$USTACK" -B "$NAME" -q --call-graph=dwarf --folded \
		-e syscalls:sys_enter_getppid -- "$CFI/cfi-reload" 20 > "$TMP/out" 2> "$TMP/err"
	cat "$TMP/out" "$TMP/err"
	at=$(sed -n 's/^one at \(0x[0-9a-f]*\), two at \(0x[0-9a-f]*\)$/\1 \2/p' "$TMP/err")
	[ -n "$at" ]
	[ "${at% *}" = "${at#* }" ] || skip "the loader put the two libraries at different addresses"
	check_ok "$TMP/err" 80
	[ "$(cat "$TMP/out")" = "cfi-reload;_start;__libc_start_main;__libc_start_call_main;main;run_lib;call_lib;reload1_entry;reload1_inner 20
cfi-reload;_start;__libc_start_main;__libc_start_call_main;main;run_lib;call_lib;reload2_entry;reload2_inner 20" ]
}
