#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Text from a trace or a traced program (task names, paths, symbol names,
# event names) is escaped, one rule for every output (issue 44, findings
# 3 and 4; lib/ustack-text.c): control bytes (C0, DEL, C1 raw or as
# UTF-8) and bytes that are not UTF-8 as \xNN in text and messages, a
# backslash as \\; valid UTF-8 in the SVG, speedscope and pprof files,
# every cut between characters. The rule alone through
# tests/tools/ustack-text-test, the outputs through its synthetic
# samples, and live runs of tests/progs/escape/hostile, which names
# itself with escape sequences and calls getppid(2) from a function whose
# symbol name holds control bytes.

bats_require_minimum_version 1.5.0
load helpers

TOOL="$ROOT/tests/tools/ustack-text-test"
CHECK="$ROOT/tests/bats/escape-check.py"
HOSTILE="$ROOT/tests/progs/escape/hostile"
# The symbol hostile's Makefile writes, and how a terminal output shows it
EVIL_SYM=$'evil_\x1b[2J\x9b\xc2\x9b\x07\\\xc3\xb1\x7f'
EVIL_SHOWN='evil_\x1b[2J\x9b\xc2\x9b\x07\\'$'\xc3\xb1''\x7f'
# Retitles and clears a terminal that prints it as it is
EVIL_COMM=$'\x1b]0;pwn\x07\x1b[2J'
EVIL_COMM_SHOWN='\x1b]0;pwn\x07\x1b[2J'

setup_file() {
	build_progs
	make -s -C "$ROOT" tests/tools/ustack-text-test >&2
}

setup() {
	tmp_setup
}

teardown() {
	instance_teardown
}

# no_raw_controls FILE...: no ESC, BEL, other C0 byte but tab and newline,
# DEL or C1 byte (0x80-0x9f alone, or U+0080-U+009F) in the files
no_raw_controls() {
	python3 - "$@" <<'EOF'
import re, sys
bad = re.compile(rb'[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]')
for path in sys.argv[1:]:
    data = open(path, 'rb').read()
    m = bad.search(data)
    # a C1 byte alone: one that is no part of a UTF-8 character
    text = data.decode('utf-8', errors='surrogateescape')
    c1 = [c for c in text if '\udc80' <= c <= '\udc9f']
    if m or c1:
        sys.exit('%s: raw control byte %r' % (path, m.group() if m else c1[0]))
EOF
}

# A copy of hostile at a path whose directory and name hold escape sequences
hostile_copy() {
	local dir="$TMP/d"$'\x1b]0;x\x07'

	mkdir -p "$dir"
	HOST="$dir/ho"$'\x1b[2J'st
	cp "$HOSTILE" "$HOST"
}

live() {
	"$USTACK" -B "$NAME" -e syscalls:sys_enter_getppid "$@"
}

# ---------------------------------------------------------------------
# The rule
# ---------------------------------------------------------------------

@test "text rule: C0, DEL, C1 (raw and UTF-8) and bytes that are not UTF-8 become \\xNN, a backslash \\\\, printable UTF-8 stays" {
	run "$TOOL" escape term 'a\x1b[2J\x07\x00b'
	[ "$output" = 'a\x1b[2J\x07' ]		# the NUL ends the C string
	run "$TOOL" escape term 'tab\x09nl\x0acr\x0ddel\x7f'
	[ "$output" = 'tab\x09nl\x0acr\x0ddel\x7f' ]
	run "$TOOL" escape term 'c1\x9b-\xc2\x9b-\xc2\x80-\xc2\x9f-\xc2\xa0'
	[ "$output" = 'c1\x9b-\xc2\x9b-\xc2\x80-\xc2\x9f-'$'\xc2\xa0' ]
	run "$TOOL" escape term 'back\x5cslash \x5cx1b'
	[ "$output" = 'back\\slash \\x1b' ]
	run "$TOOL" escape term 'espa\xc3\xb1a \xe2\x82\xac \xf0\x9f\x98\x80'
	[ "$output" = $'espa\xc3\xb1a \xe2\x82\xac \xf0\x9f\x98\x80' ]
	run "$TOOL" escape term 'bad\xff\xfe\xc0\xaf'
	[ "$output" = 'bad\xff\xfe\xc0\xaf' ]
}

@test "text rule: overlong forms, surrogates, code points past U+10FFFF and a sequence cut at the end are not characters" {
	# each maximal subpart of an ill-formed sequence counts once (Unicode 3.9)
	run "$TOOL" decode '\xc0\xaf\xe0\x80\xaf\xf0\x80\x80\xaf'
	[ "$output" = "$(printf 'bad 1\n%.0s' 1 2 3 4 5 6 7 8 9)" ]
	run "$TOOL" decode '\xed\xa0\x80\xed\x9f\xbf'
	[ "$output" = "$(printf 'bad 1\nbad 1\nbad 1\nU+D7FF')" ]
	run "$TOOL" decode '\xf4\x90\x80\x80\xf4\x8f\xbf\xbf'
	[ "$output" = "$(printf 'bad 1\nbad 1\nbad 1\nbad 1\nU+10FFFF')" ]
	run "$TOOL" decode 'a\xe2\x82'
	[ "$output" = "$(printf 'U+0061\nbad 2')" ]
	run "$TOOL" decode '\xf0\x9f\x98'
	[ "$output" = "bad 3" ]
	run "$TOOL" escape term 'end\xe2\x82'
	[ "$output" = 'end\xe2\x82' ]
	run "$TOOL" escape term 'sur\xed\xa0\x80'
	[ "$output" = 'sur\xed\xa0\x80' ]
}

@test "text rule: SVG, pprof, speedscope: U+FFFD for what is not UTF-8, control characters replaced (XML) or \\u00XX (JSON)" {
	local r=$'\xef\xbf\xbd'

	run "$TOOL" escape utf8 'a\x1b\x9b\xc2\x9bb\xe2\x82'
	[ "$output" = "a${r}${r}${r}b${r}" ]
	run "$TOOL" escape xml '<a&b>"\x01\x7f\xef\xbf\xbe\xef\xbf\xbf\xc3\xb1'
	[ "$output" = "&lt;a&amp;b&gt;&quot;${r}${r}${r}${r}"$'\xc3\xb1' ]
	run "$TOOL" escape json '"\x5c\x1b\x7f\xc2\x9b\x9b\xe2\x80\xa8\xc3\xb1'
	[ "$output" = '\"\\\u001b\u007f\u009b'"${r}"$'\xe2\x80\xa8\xc3\xb1' ]
	# JSON in the SVG's script: what the SVG shows, nothing that ends CDATA
	run "$TOOL" escape js ']]></script>\x1b\xe2\x80\xa8'
	[ "$output" = ']]\u003e\u003c/script\u003e'"${r}"'\u2028' ]
}

@test "text rule: a cut at N bytes or N characters falls between characters, never inside one or inside an escape" {
	# ñ is 2 bytes, € 3, 😀 4: cut inside each, and after it
	run "$TOOL" cut 3 'a\xc3\xb1'
	[ "$output" = 3 ]
	run "$TOOL" cut 2 'a\xc3\xb1'
	[ "$output" = 1 ]
	run "$TOOL" cut 3 'a\xe2\x82\xac'
	[ "$output" = 1 ]
	run "$TOOL" cut 4 'a\xf0\x9f\x98\x80'
	[ "$output" = 1 ]
	run "$TOOL" cut 5 'a\xf0\x9f\x98\x80'
	[ "$output" = 5 ]
	# bytes that are no character stay: an overlong form, a stray continuation
	run "$TOOL" cut 2 'a\xc0\xaf'
	[ "$output" = 2 ]
	run "$TOOL" cut 2 'a\x80'
	[ "$output" = 2 ]
	# the kernel's 15 bytes of "ñññññññññ" end in half an ñ
	run "$TOOL" cut 15 '\xc3\xb1\xc3\xb1\xc3\xb1\xc3\xb1\xc3\xb1\xc3\xb1\xc3\xb1\xc3\xb1\xc3\xb1'
	[ "$output" = 14 ]
	# into a buffer: a whole escape or character or none of it
	run "$TOOL" escape-n term 5 'ab\x1bc'
	[ "${lines[0]}" = ab ]
	[ "${lines[1]}" = 7 ]
	run "$TOOL" escape-n utf8 4 'ab\xc3\xb1'
	[ "${lines[0]}" = ab ]
	run "$TOOL" escape-n xml 5 'a&b'
	[ "${lines[0]}" = a ]
	# N characters shown: U+FFFD and an entity are one, an escape its length
	run "$TOOL" fit xml 3 'a\xc3\xb1&\xffz'
	[ "${lines[0]}" = $'a\xc3\xb1&amp;' ]
	run "$TOOL" fit term 3 'a\x1bz'
	[ "${lines[0]}" = a ]
	run "$TOOL" width term 'a\x1bz'
	[ "$output" = 6 ]
}

# ---------------------------------------------------------------------
# Every output, on synthetic samples
# ---------------------------------------------------------------------

@test "outputs: task, event, symbol, JIT and file names of a trace are escaped in stacks, --raw, --why, --perf-script and --folded" {
	local mode stack='2:main,evil\x1b[2J\x9b\xc2\x9b\x5c,-'
	local jit='1:main,jit:J\x1b[1m\xc2\x85'

	for mode in stacks raw why perf folded; do
		"$TOOL" outputs "$TMP" "$mode" 'x\x1b]0;pwn\x07\xc2\x9b' 'sys\x1b:ev\x9b' \
			"$stack" "$jit" >"$TMP/$mode.out"
		no_raw_controls "$TMP/$mode.out"
	done
	grep -qF '  evil\x1b[2J\x9b\xc2\x9b\\+0x0 (evil\x1b[2J\x9b\xc2\x9b\\)' "$TMP/stacks.out"
	grep -qF 'x\x1b]0;pwn\x07\xc2\x9b-1000 ' "$TMP/stacks.out"
	grep -qF ': ev\x9b:' "$TMP/stacks.out"
	grep -qF '  0x14 (/lib/evil\x1b[2J\x9b\xc2\x9b\\)' "$TMP/raw.out"
	grep -qF ' (evil\x1b[2J\x9b\xc2\x9b\\) evil\x1b[2J\x9b\xc2\x9b\\:1' "$TMP/why.out"
	grep -qF '[unknown] (-+0x24) # no symbol' "$TMP/why.out"
	grep -qF 'x\x1b]0;pwn\x07\xc2\x9b 1000/1000 [000] 0.000001: 1 sys\x1b:ev\x9b:' "$TMP/perf.out"
	grep -qF $'\t14 evil\\x1b[2J\\x9b\\xc2\\x9b\\\\+0x0 (/lib/evil\\x1b[2J\\x9b\\xc2\\x9b\\\\)' "$TMP/perf.out"
	grep -qF '  J\x1b[1m\xc2\x85+0x0 ([jit])' "$TMP/stacks.out"
	grep -qF $'\t34 J\\x1b[1m\\xc2\\x85+0x0 ([jit])' "$TMP/perf.out"
	# folded: ';' still becomes ':'
	[ "$(cat "$TMP/folded.out")" = 'x\x1b]0:pwn\x07\xc2\x9b;main;J\x1b[1m\xc2\x85_[j] 1
x\x1b]0:pwn\x07\xc2\x9b;main;evil\x1b[2J\x9b\xc2\x9b\\;-+0x24 2' ]
}

@test "outputs: SVG, speedscope and pprof of names with control bytes and bytes that are not UTF-8 parse, with U+FFFD or \\u00XX in their place" {
	local r=$'\xef\xbf\xbd'

	"$TOOL" outputs "$TMP" folded 'x\x1b]0;pwn\x07\xc2\x9b\xff' 'sys:ev' \
		'2:main,evil\x1b[2J\x9b\xc2\x9b\xe2\x82' >/dev/null
	run python3 "$CHECK" svg "$TMP/f.svg"
	[ "$status" -eq 0 ]
	grep -qxF "\"evil${r}[2J${r}${r}${r}\"" <<< "$output"
	grep -qxF "\"x${r}]0;pwn${r}${r}${r}\"" <<< "$output"
	no_raw_controls "$TMP/f.svg"
	run python3 "$CHECK" json "$TMP/s.json"
	[ "$status" -eq 0 ]
	grep -qxF "\"evil\\u001b[2J${r}"$'\xc2\x9b'"${r}\"" <<< "$output"
	run python3 "$CHECK" pprof "$TMP/p.pb.gz"
	[ "$status" -eq 0 ]
	grep -qxF "\"evil${r}[2J${r}${r}${r}\"" <<< "$output"
}

@test "outputs: an SVG title and box label cut to fit are cut between characters, the file parses as XML" {
	local long name

	# 'ab' and 200 ñ: a byte count cuts it inside an ñ
	long="ab$(printf '\\xc3\\xb1%.0s' $(seq 200))"
	"$TOOL" outputs "$TMP" folded "$long" 'sys:ev' '3:main,f' >/dev/null
	run python3 "$CHECK" svg "$TMP/f.svg"
	[ "$status" -eq 0 ]
	# the title, the task's box label: cut with '..', no U+FFFD
	[ "$(grep -cE '^"ab(ñ)+\.\."$' <<< "$output")" -ge 2 ]
	! grep -q $'\xef\xbf\xbd' <<< "$output" || false
}

# ---------------------------------------------------------------------
# Live: a hostile traced program
# ---------------------------------------------------------------------

@test "live: a program naming itself ESC ] 0 ; pwn BEL ESC [ 2 J from a path of escapes: no control byte on stdout or stderr of stacks, --raw, --why, --perf-script, --folded, nor in an event's fields" {
	local mode

	require_capture
	NAME=$(instance_name)
	hostile_copy
	for mode in "" --raw --why --perf-script --folded; do
		live $mode -- "$HOST" "$EVIL_COMM" 2 >"$TMP/out" 2>"$TMP/err"
		no_raw_controls "$TMP/out" "$TMP/err"
		grep -qF "$EVIL_COMM_SHOWN" "$TMP/out" ||
			grep -qF '\x1b]0:pwn\x07\x1b[2J;' "$TMP/out"
		case "$mode" in
		--raw)
			grep -qF '/d\x1b]0;x\x07/ho\x1b[2Jst)' "$TMP/out" ;;
		--perf-script)
			grep -qF "$EVIL_SHOWN+0x" "$TMP/out"
			grep -qF '/d\x1b]0;x\x07/ho\x1b[2Jst)' "$TMP/out" ;;
		--folded)
			grep -qF ";main;$EVIL_SHOWN 2" "$TMP/out" ;;
		*)
			grep -qF "  $EVIL_SHOWN+0x" "$TMP/out"
			grep -qF '(ho\x1b[2Jst)' "$TMP/out" ;;
		esac
	done
	# an event's own fields: the file exec names
	"$USTACK" -B "$NAME" -e sched:sched_process_exec -- "$HOST" "$EVIL_COMM" 1 \
		>"$TMP/out" 2>"$TMP/err"
	no_raw_controls "$TMP/out" "$TMP/err"
	grep -qF "filename=$TMP/d"'\x1b]0;x\x07/ho\x1b[2Jst pid=' "$TMP/out"
}

@test "live: --top and --tree of a program naming itself with escapes and a symbol of control bytes print none of them" {
	local mode

	require_capture
	NAME=$(instance_name)
	hostile_copy
	for mode in --top "--top --sort comm,dso,sym" --tree --tree=callee; do
		live -q $mode -- "$HOST" "$EVIL_COMM" 2 >"$TMP/out" 2>"$TMP/err"
		no_raw_controls "$TMP/out" "$TMP/err"
		grep -qF "$EVIL_SHOWN" "$TMP/out"
	done
	live -q --top --sort comm -- "$HOST" "$EVIL_COMM" 2 >"$TMP/out"
	grep -qF "$EVIL_COMM_SHOWN" "$TMP/out"
}

@test "live: a C1 byte (0x9b) and U+009B in a task name and a symbol are escaped in --folded" {
	require_capture
	NAME=$(instance_name)
	live -q --folded -- "$HOSTILE" $'c1\x9b-\xc2\x9b' 2 >"$TMP/out"
	no_raw_controls "$TMP/out"
	grep -q '^c1\\x9b-\\xc2\\x9b;.*;main;evil_\\x1b\[2J\\x9b\\xc2\\x9b\\x07\\\\' "$TMP/out"
}

@test "live: a warning naming a path of escapes, and --why of its frames, print no control byte" {
	require_capture
	NAME=$(instance_name)
	hostile_copy
	"$USTACK" record -B "$NAME" -o "$TMP/t.dat" -e syscalls:sys_enter_getppid -- \
		"$HOST" "$EVIL_COMM" 1 2>"$TMP/record.err"
	no_raw_controls "$TMP/record.err"
	# another build at the traced path: report warns, naming it
	cp "$PROGS/deep" "$HOST"
	"$USTACK" report -i "$TMP/t.dat" --why >"$TMP/out" 2>"$TMP/err"
	no_raw_controls "$TMP/out" "$TMP/err"
	grep -qF '/d\x1b]0;x\x07/ho\x1b[2Jst: build id' "$TMP/err"
	grep -qF '[unknown] (ho\x1b[2Jst+0x' "$TMP/out"
}

@test "live: a task name the kernel cut inside a character (ñññññññññ): SVG is XML, speedscope JSON, pprof UTF-8, the name up to its last whole ñ" {
	local ns=$'\xc3\xb1\xc3\xb1\xc3\xb1\xc3\xb1\xc3\xb1\xc3\xb1\xc3\xb1'

	require_capture
	NAME=$(instance_name)
	live -q --flamegraph "$TMP/f.svg" --speedscope "$TMP/s.json" --pprof "$TMP/p.pb.gz" \
		-- "$HOSTILE" "${ns}"$'\xc3\xb1\xc3\xb1' 2
	run python3 "$CHECK" svg "$TMP/f.svg"
	[ "$status" -eq 0 ]
	grep -qxF "\"$ns\"" <<< "$output"
	run python3 "$CHECK" json "$TMP/s.json"
	[ "$status" -eq 0 ]
	grep -qxF "\"$ns\"" <<< "$output"
	run python3 "$CHECK" pprof "$TMP/p.pb.gz"
	[ "$status" -eq 0 ]
	grep -qxF "\"$ns\"" <<< "$output"
	# and in text: no half character
	live -q --folded -- "$HOSTILE" "${ns}"$'\xc3\xb1\xc3\xb1' 1 >"$TMP/out"
	grep -q "^$ns;" "$TMP/out"
}
