#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The man page, the README and the bash completion: every option of
# --help is in the man page, which has trace-cmd's sections and the modes,
# the fallback and the exit codes; its examples show what the command
# (and go tool pprof) prints; the README's picture is a flame graph the
# tool wrote and its table names every output; make install puts the
# completion where bash-completion looks; the completion offers the
# modes, the options of this build and the event names of tracefs.

bats_require_minimum_version 1.5.0
load helpers

MAN_TXT="$ROOT/Documentation/trace-cmd-ustack.1.txt"
COMPLETION="$ROOT/completion/trace-cmd-ustack"

setup_file() {
	build_progs
}

setup() {
	tmp_setup
}

teardown() {
	instance_teardown
}

@test "man page: every option --help lists is documented" {
	opts=$("$USTACK" --help | grep -oE '(^|[ ,])--[a-z][a-z-]*' | tr -d ' ,' | sort -u)
	[ "$(wc -l <<< "$opts")" -gt 25 ]
	missing=
	for o in $opts; do
		grep -qF -- "*$o*" "$MAN_TXT" || missing="$missing $o"
	done
	echo "missing:$missing"
	[ -z "$missing" ]
}

@test "man page: trace-cmd's sections, the three modes, the fallback, exit codes, SEE ALSO" {
	for s in NAME SYNOPSIS DESCRIPTION MODES 'THE FALLBACK' OPTIONS 'OUTPUT FORMATS' \
		 'EXIT STATUS' FILES EXAMPLES 'SEE ALSO'; do
		grep -qx -- "$s" "$MAN_TXT" || { echo "no section $s"; return 1; }
	done
	for m in '*trace-cmd ustack* [' '*trace-cmd ustack record*' '*trace-cmd ustack report*'; do
		grep -qF -- "$m" "$MAN_TXT"
	done
	for c in '*0*::' '*1*::' '*64*::'; do
		grep -qxF -- "$c" "$MAN_TXT"
	done
	grep -A2 -x 'SEE ALSO' "$MAN_TXT" | grep -q 'trace-cmd-record(1), trace-cmd-report(1), perf-script(1)'
	# the generated page is in the tree and man reads it
	grep -qF '.SH "THE FALLBACK"' "$ROOT/Documentation/trace-cmd-ustack.1"
	if command -v man >/dev/null; then
		man -l "$ROOT/Documentation/trace-cmd-ustack.1" 2>/dev/null | grep -q 'EXIT STATUS'
	fi
}

@test "man page: its examples name no developer's checkout" {
	! grep -nE "$ROOT|/work/|/home/" "$MAN_TXT" || false
	grep -q '/usr/src/trace-cmd-ustack/tests/progs/profile/inlchain.c:13$' "$MAN_TXT"
}

@test "man page: the exit codes it gives are the command's" {
	run "$USTACK" --no-such-option
	[ "$status" -eq 64 ]
	run "$USTACK" report -i "$TMP/missing.dat"
	[ "$status" -eq 1 ]
}

@test "man page: the folded example prints what the command prints" {
	require_capture
	NAME=$(instance_name)
	want=$(sed -n '/tests\/progs\/threads 5$/,/^-----/p' "$MAN_TXT" | sed '1d;$d')
	[ -n "$want" ]
	run --separate-stderr "$USTACK" -B "$NAME" -q --folded -e syscalls:sys_enter_getppid \
		-- "$PROGS/threads" 5
	[ "$status" -eq 0 ]
	echo "want:"; echo "$want"; echo "got:"; echo "$output"
	# Not compared, as the fallback may miss them for a short thread:
	# libc's start_thread (found through a maps snapshot it may outrun:
	# libc.so.6+0xOFFSET) and the task name (a thread gone before /proc was
	# read keeps the name the kernel's saved_cmdlines had for its pid)
	fallback() { sed -E 's/^[^;]*;(start_thread|libc\.so\.6\+0x[0-9a-f]+);/TASK;LIBC;/' | sort; }
	[ "$(fallback <<< "$output")" = "$(fallback <<< "$want")" ]
}

# The output of the man page's example whose command line ends in $1,
# up to the end of its block
man_example() {
	sed -n "/$1\$/,/^------------\$/p" "$MAN_TXT" | sed '1d;$d'
}

@test "man page: the first example shows the stack, notice and summary the command prints" {
	require_capture
	NAME=$(instance_name)
	want=$(man_example 'tests\/progs\/shlib 1')
	[ -n "$want" ]
	run --separate-stderr "$USTACK" -B "$NAME" -e syscalls:sys_enter_getppid -- "$PROGS/shlib" 1
	[ "$status" -eq 0 ]
	echo "want:"; echo "$want"; echo "got:"; echo "$output"; echo "$stderr"
	# the frames, as printed (the event line has this run's pid and time)
	frames() { grep '^  [^ ]' | grep -v ':  ' | sed 's/ *$//'; }
	[ "$(grep -c '^  ' <<< "$output")" -ge 5 ]
	[ "$(frames <<< "$output")" = "$(sed -n '/sys_enter_getppid:/,/^ustack summary:/p' <<< "$want" | frames)" ]
	# every line of the summary, by its label, in the same order
	labels() { sed -n '/^ustack summary:/,$p' | sed 's/:.*//'; }
	[ "$(labels <<< "$stderr")" = "$(labels <<< "$want")" ]
	# the fallback's notice, word for word, where this machine takes
	# the same path (no deferred stacks, the perf side-band)
	if ! has_deferred && [[ "$stderr" == *"(side-band)"* ]]; then
		# the program as the example names it, from the top of the tree
		notice() { grep '^trace-cmd ustack: no deferred user stacks' |
			   sed "s|auto: $ROOT/|auto: |"; }
		[ "$(notice <<< "$stderr")" = "$(notice <<< "$want")" ]
	fi
}

@test "man page: the pprof example shows what go tool pprof -traces prints of such a file" {
	require_capture
	command -v go >/dev/null || {
		echo "go is missing: install Debian's golang-go (scripts/install-deps)" >&2
		return 1
	}
	NAME=$(instance_name)
	want=$(man_example 'go tool pprof -traces fanout.pb.gz')
	[ -n "$want" ]
	# as the example ran: from the top of the tree, relative paths
	(cd "$ROOT" && "$USTACK" -B "$NAME" -q -e syscalls:sys_enter_getppid --flamegraph "$TMP/f.svg" \
		--pprof "$TMP/fanout.pb.gz" --speedscope "$TMP/s.json" -- tests/progs/profile/fanout 16) \
		2>/dev/null
	[ -s "$TMP/f.svg" ] && [ -s "$TMP/s.json" ]
	got=$(cd "$TMP" && go tool pprof -traces fanout.pb.gz 2>/dev/null)
	echo "want:"; echo "$want"; echo "got:"; echo "$got"
	# up to the end of the first stack, but the build's id and the duration
	head_of() { sed -e 's/ *$//' -e '/^Build ID: /d' -e 's/^Duration: [0-9.]*ms,/Duration:/' |
		    awk '/^-+\+-+$/ && ++n == 2 { exit } { print }'; }
	[ "$(head_of <<< "$got")" = "$(head_of <<< "$want")" ]
	[ "$(grep -c '^Build ID: [0-9a-f]\{40\}$' <<< "$got")" -eq 1 ]
}

@test "README: its picture is a flame graph this tool wrote, the table names every output" {
	readme="$ROOT/README.md"
	svg="$ROOT/Documentation/flamegraph-demo.svg"
	png="$ROOT/Documentation/flamegraph-demo.png"
	grep -qF '](Documentation/flamegraph-demo.png)' "$readme"
	# the PNG is the SVG's size, and the SVG our writer's, of the bundled programs
	run python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read(24)
assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
print("%dx%d" % struct.unpack(">II", d[16:24]))' "$png"
	[ "$status" -eq 0 ]
	[ "$output" = "$(sed -n 's/^<svg [^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\1x\2/p' "$svg")" ]
	grep -qx '<!-- Flame graph written by trace-cmd ustack -->' "$svg"
	grep -q '<text id="title"[^>]*>trace-cmd ustack -- tests/progs/profile/together</text>' "$svg"
	for f in left alpha_thread lib_inner inl_leaf chain_20 chain_01; do
		grep -q "^\[\"$f\"," "$svg" || { echo "no frame $f"; return 1; }
	done
	# made by the writer as it is (scripts/readme-picture again when the
	# script of the flame graphs changes)
	sed -n '/^\/\/ SPDX-License-Identifier/,/^})();$/p' "$svg" | diff - "$ROOT/lib/ustack-flamegraph.js"
	# which output for which viewer: a row per output option of --help
	for o in --flamegraph --pprof --speedscope --folded --perf-script --top --tree; do
		"$USTACK" --help | grep -q -- "$o" || { echo "$o is not in --help"; return 1; }
		grep -qE "^\| [^|]+ \| \`$o( [^\`]*)?\` \| [^|]+ \|$" "$readme" ||
			{ echo "no row for $o"; return 1; }
	done
}

@test "make install puts the bash completion where bash-completion looks" {
	dest="$TMP/root"
	run make -s -C "$ROOT" install DESTDIR="$dest" prefix=/opt/u
	[ "$status" -eq 0 ]
	cmp "$COMPLETION" "$dest/opt/u/share/bash-completion/completions/trace-cmd-ustack"
	make -s -C "$ROOT" uninstall DESTDIR="$dest" prefix=/opt/u
	[ ! -e "$dest/opt/u/share/bash-completion/completions/trace-cmd-ustack" ]
}

# complete WORD...: what the completion offers for the last word, one a line
complete_words() {
	bash -c '
		source "$1"; shift
		PATH="$(dirname "$0"):$PATH"
		COMP_WORDBREAKS=${COMP_WORDBREAKS:-" \"'"'"'><=;|&(:"}
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_trace_cmd_ustack
		printf "%s\n" "${COMPREPLY[@]}"' "$USTACK" "$COMPLETION" "$@" | sort
}

@test "completion in an interactive bash: trace-cmd ustack through the wrapper's, trace-cmd's own for the rest" {
	bc=/usr/share/bash-completion/bash_completion
	[ -r "$bc" ] || {
		echo "$bc is missing: install Debian's bash-completion (scripts/install-deps)" >&2
		return 1
	}
	dest="$TMP/root"
	make -s -C "$ROOT" install install-wrapper DESTDIR="$dest" prefix=/opt/u
	[ -f "$dest/opt/u/share/bash-completion/completions/trace-cmd" ]
	# TAB typed on a terminal, bash-completion finding what make installed
	run env PATH="$dest/opt/u/bin:$PATH" XDG_DATA_DIRS="$dest/opt/u/share:/usr/share" \
		timeout 60 python3 "$ROOT/tests/bats/complete-tty.py" "$bc" \
		'trace-cmd ustack --fla' 'trace-cmd ustack rep' 'trace-cmd us' \
		'trace-cmd ustack -e sched:sched_swi' 'trace-cmd-ustack --spe'
	printf '%s\n' "${lines[@]}"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "trace-cmd ustack --flamegraph" ]
	[ "${lines[1]}" = "trace-cmd ustack report" ]
	[ "${lines[2]}" = "trace-cmd ustack" ]
	[ "${lines[3]}" = "trace-cmd ustack -e sched:sched_switch" ]
	[ "${lines[4]}" = "trace-cmd-ustack --speedscope" ]
	# trace-cmd's own commands still complete with trace-cmd's completion
	if [ -f /usr/share/bash-completion/completions/trace-cmd.bash ]; then
		run env PATH="$dest/opt/u/bin:$PATH" XDG_DATA_DIRS="$dest/opt/u/share:/usr/share" \
			timeout 60 python3 "$ROOT/tests/bats/complete-tty.py" "$bc" 'trace-cmd rep'
		[ "$output" = "trace-cmd report" ]
	fi
	# uninstall takes the completion of trace-cmd back
	make -s -C "$ROOT" uninstall DESTDIR="$dest" prefix=/opt/u
	[ ! -e "$dest/opt/u/share/bash-completion/completions/trace-cmd" ]
}

@test "completion: modes, this build's options, event names from tracefs" {
	# a tracefs of our own: two systems, three events
	export TRACEFS_DIR="$TMP/tracefs"
	for e in sched/sched_switch sched/sched_wakeup syscalls/sys_enter_getppid; do
		mkdir -p "$TRACEFS_DIR/events/$e"
		echo "name: ${e#*/}" > "$TRACEFS_DIR/events/$e/format"
	done
	mkdir -p "$TRACEFS_DIR/instances/mine"
	echo 'local [global] mono' > "$TRACEFS_DIR/trace_clock"
	[ "$(complete_words trace-cmd-ustack re | paste -sd' ')" = "record report" ]
	[ "$(complete_words trace-cmd-ustack report --fla)" = --flamegraph ]
	complete_words trace-cmd-ustack --sp | grep -qx -- --speedscope
	complete_words trace-cmd-ustack -- | grep -qx -- --pprof
	# every long option of --help is offered
	for o in $("$USTACK" --help | grep -oE '(^|[ ,])--[a-z][a-z-]*' | tr -d ' ,' | sort -u); do
		complete_words trace-cmd-ustack -- | grep -qx -- "$o" || { echo "no $o"; return 1; }
	done
	[ "$(complete_words trace-cmd-ustack -e sch | paste -sd' ')" = \
	  "sched sched:sched_switch sched:sched_wakeup" ]
	# bash splits at ':': the part after it is completed
	[ "$(complete_words trace-cmd-ustack -e sched : sched_w)" = sched_wakeup ]
	[ "$(complete_words trace-cmd-ustack --event syscalls :)" = sys_enter_getppid ]
	[ "$(complete_words trace-cmd-ustack -B m)" = mine ]
	[ "$(complete_words trace-cmd-ustack -C "" | paste -sd' ')" = "global local mono" ]
	# an option's value after "=", which bash splits the word at
	[ "$(complete_words trace-cmd-ustack report --tree = cal | paste -sd' ')" = "callee caller" ]
	[ "$(complete_words trace-cmd-ustack report --tree = | paste -sd' ')" = "callee caller" ]
	complete_words trace-cmd-ustack report --sort dso | grep -qx dso,sym
	# after "--" a command
	complete_words trace-cmd-ustack -e sched -- bas | grep -qx bash
}
