#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The man page and the bash completion: every option of --help is in the
# man page, which has trace-cmd's sections and the modes, the fallback and
# the exit codes; its examples show what the command prints; make install
# puts the completion where bash-completion looks; the completion offers
# the modes, the options of this build and the event names of tracefs.

bats_require_minimum_version 1.5.0
load helpers

MAN_TXT="$ROOT/Documentation/trace-cmd-ustack.1.txt"
COMPLETION="$ROOT/completion/trace-cmd-ustack"

setup_file() {
	build_progs
}

setup() {
	TMP="$(mktemp -d)"
	NAME=
}

teardown() {
	[ -z "$NAME" ] || assert_no_instance "$NAME"
	rm -rf "$TMP"
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
	# [libc.so.6]) and the task name (a thread gone before /proc was read
	# keeps the name the kernel's saved_cmdlines had for its pid)
	fallback() { sed -E 's/^[^;]*;(start_thread|\[libc\.so\.6\]);/TASK;LIBC;/' | sort; }
	[ "$(fallback <<< "$output")" = "$(fallback <<< "$want")" ]
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
	# after "--" a command
	complete_words trace-cmd-ustack -e sched -- bas | grep -qx bash
}
