#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# trace-cmd ustack command line: help, usage errors, the one-line error
# messages, the trace-cmd wrapper, make install.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	tmp_setup
}

teardown() {
	instance_teardown
}

# Exactly one line on stderr, non-zero exit, message matching $1.
assert_one_line_error() {
	[ "$status" -ne 0 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "${stderr_lines[0]}" == "trace-cmd ustack: "* ]]
	[[ "${stderr_lines[0]}" == *"$1"* ]]
}

@test "--help shows the modes, record's option letters and examples" {
	run "$USTACK" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"trace-cmd ustack record -o FILE"* ]]
	[[ "$output" == *"trace-cmd ustack report -i FILE"* ]]
	for opt in "-e, --event" "-f, --filter" "-P, --pid" "-c, --children" "-o, --output" \
		   "-i, --input" "-B, --instance" "-b, --buffer-size" "-C, --clock" \
		   "-s, --sleep" "-q, --quiet" "-d, --duration" "--folded" "--perf-script" \
		   "--kernel" "--comm"; do
		[[ "$output" == *"$opt"* ]] || { echo "missing $opt"; return 1; }
	done
	[[ "$output" == *"Examples:"* ]]
}

@test "--help: no line is only blanks, every example stays on its line" {
	run "$USTACK" --help
	[ "$status" -eq 0 ]
	! grep -n '^ \+$' <<< "$output" || false
	# after "Examples:" every line is a command line, none a wrapped tail
	sed -n '/^Examples:/,$p' <<< "$output" | sed 1d > "$TMP/examples"
	cat "$TMP/examples"
	[ "$(wc -l < "$TMP/examples")" -ge 5 ]
	! grep -v '^  trace-cmd ' "$TMP/examples" || false
}

@test "--version and -V print the version, exit 0" {
	run --separate-stderr "$USTACK" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^"trace-cmd ustack version "[0-9]+\.[0-9]+ ]]
	run --separate-stderr "$USTACK" -V
	[ "$status" -eq 0 ]
	[[ "$output" == "trace-cmd ustack version "* ]]
}

@test "-f without -e is a usage error" {
	run "$USTACK" -f 'common_pid == 1'
	[ "$status" -ne 0 ]
	[[ "$output" == *"-f needs a preceding -e"* ]]
}

@test "-P with an empty item (',', '1,,2', '1,') is a usage error, not the whole system" {
	local l

	for l in , 1,,2 1, ,1; do
		run --separate-stderr "$USTACK" report -P "$l" -i "$TMP/none.dat"
		echo "-P $l: $status: $stderr"
		[ "$status" -eq 64 ]
		[ "${stderr_lines[0]}" = "trace-cmd ustack: bad pid list '$l' (an empty item)" ]
	done
}

@test "-d, -s, -b: nan, inf, hex, out of range and negative numbers are usage errors (exit 64)" {
	local a

	# record of a command: on the old code each of these ran (exit 0)
	for a in "-d nan" "-d inf" "-d 1e309" "-d 0x10" "-d 0.0000001" "-d -1" "-d ''" \
		 "-s -1" "-s 2147483648" "-s ' 5'" "-b 0" "-b 18446744073709551615" "-b -1"; do
		eval "run --separate-stderr timeout 60 \"\$USTACK\" record -q -o \"\$TMP/x.dat\" $a -- true"
		echo "$a: $status: $stderr"
		[ "$status" -eq 64 ]
		[[ "${stderr_lines[0]}" == "trace-cmd ustack: bad "*" (want "* ]]
	done
	[ ! -e "$TMP/x.dat" ]
}

@test "--symfs that does not exist or is not a directory: one line, exit 64" {
	run --separate-stderr "$USTACK" report -q --folded --symfs "$TMP/none" -i "$DATA/deep-deferred.dat"
	[ "$status" -eq 64 ]
	[ "$stderr" = "trace-cmd ustack: --symfs $TMP/none: No such file or directory" ]
	[ -z "$output" ]
	touch "$TMP/file"
	run --separate-stderr "$USTACK" report -q --folded --symfs "$TMP/file" -i "$DATA/deep-deferred.dat"
	[ "$status" -eq 64 ]
	[ "$stderr" = "trace-cmd ustack: --symfs $TMP/file: not a directory" ]
}

@test "report does not take a command or capture options" {
	run "$USTACK" report -i x.dat -- ls
	[ "$status" -ne 0 ]
	run "$USTACK" report -e sched:sched_switch
	[ "$status" -ne 0 ]
}

@test "error: not root" {
	command -v setpriv >/dev/null || skip "no setpriv"
	[ "$(id -u)" = 0 ] || skip "needs root to drop it"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups "$USTACK" -- true
	assert_one_line_error "must be run as root"
}

@test "error: no tracefs" {
	[ "$(id -u)" = 0 ] || skip "needs root"
	run --separate-stderr env TRACEFS_DIR="$TMP/none" "$USTACK" -- true
	assert_one_line_error "no tracefs at $TMP/none"
}

@test "error: unknown event, and the instance is removed" {
	require_capture
	name=$(instance_name)
	run --separate-stderr "$USTACK" -B "$name" -e nosuchsystem:nosuchevent -- true
	assert_one_line_error "unknown event nosuchsystem:nosuchevent (trace-cmd list -e lists the events)"
	assert_no_instance "$name"
}

@test "error: a mistyped event gets the nearest event's name, a system its system's" {
	require_capture
	name=$(instance_name)
	run --separate-stderr "$USTACK" -B "$name" -e syscalls:sys_enter_getppidd -- true
	assert_one_line_error "unknown event syscalls:sys_enter_getppidd (did you mean syscalls:sys_enter_getppid? trace-cmd list -e lists them all)"
	run --separate-stderr "$USTACK" -B "$name" -e schde -- true
	assert_one_line_error "unknown event schde (did you mean sched?"
	assert_no_instance "$name"
}

@test "error: bad filter, and the instance is removed" {
	require_capture
	name=$(instance_name)
	run --separate-stderr "$USTACK" -B "$name" -e syscalls:sys_enter_getppid -f 'no_such_field ==' -- true
	assert_one_line_error "bad filter 'no_such_field ==' for syscalls:sys_enter_getppid"
	assert_no_instance "$name"
}

@test "error: command that does not exist, in one line before any setup or notice" {
	require_capture
	name=$(instance_name)
	run --separate-stderr "$USTACK" -B "$name" -- "$TMP/no-such-program"
	assert_one_line_error "cannot run $TMP/no-such-program: No such file or directory"
	assert_no_instance "$name"
	# looked up in PATH as execvp does; a directory is not run
	run --separate-stderr env PATH="$TMP" "$USTACK" -B "$name" -- no-such-program
	assert_one_line_error "cannot run no-such-program: No such file or directory"
	run --separate-stderr "$USTACK" -B "$name" -- "$TMP"
	assert_one_line_error "cannot run $TMP: Permission denied"
	assert_no_instance "$name"
}

@test "a word that is not a mode is a usage error, a command goes after --" {
	run --separate-stderr "$USTACK" bogus
	[ "$status" -eq 64 ]
	[[ "${stderr_lines[0]}" == "trace-cmd ustack: 'bogus' is not a mode (record, report): put a command after --"* ]]
	run --separate-stderr "$USTACK" -q reprot -i x.dat
	[ "$status" -eq 64 ]
	[[ "$stderr" == *"'reprot' is not a mode"* ]]
}

@test "error: missing input file" {
	run --separate-stderr "$USTACK" report -i "$TMP/missing.dat"
	assert_one_line_error "cannot open $TMP/missing.dat: No such file or directory"
}

@test "error: a file that is not a trace.dat" {
	echo "hello" > "$TMP/text.dat"
	run --separate-stderr "$USTACK" report -i "$TMP/text.dat"
	assert_one_line_error "$TMP/text.dat is not a trace.dat file"
}

@test "wrapper: trace-cmd ustack runs our command, the rest the real trace-cmd" {
	command -v trace-cmd >/dev/null || skip "no trace-cmd"
	mkdir "$TMP/bin"
	cp "$ROOT/scripts/trace-cmd-wrapper" "$TMP/bin/trace-cmd"
	ln -s "$USTACK" "$TMP/bin/trace-cmd-ustack"
	PATH="$TMP/bin:$PATH" run trace-cmd ustack --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"trace-cmd ustack record -o FILE"* ]]
	PATH="$TMP/bin:$PATH" run trace-cmd version
	[[ "$output" == *"trace-cmd version"* ]]
}

@test "wrapper: two wrappers in PATH do not call each other" {
	mkdir "$TMP/a" "$TMP/b" "$TMP/tools"
	cp "$ROOT/scripts/trace-cmd-wrapper" "$TMP/a/trace-cmd"
	cp "$ROOT/scripts/trace-cmd-wrapper" "$TMP/b/trace-cmd"
	# the tools the wrapper uses, without the real trace-cmd
	for t in sh readlink dirname head grep; do
		ln -s "$(command -v $t)" "$TMP/tools/$t"
	done
	run -127 timeout 10 env PATH="$TMP/a:$TMP/b:$TMP/tools" "$TMP/a/trace-cmd" version
	[[ "$output" == *"the real trace-cmd is not in PATH"* ]]
}

@test "make install honours prefix and DESTDIR; install-wrapper adds trace-cmd" {
	run make -s -C "$ROOT" install install-wrapper DESTDIR="$TMP/root" prefix=/opt/ustack
	[ "$status" -eq 0 ]
	[ -x "$TMP/root/opt/ustack/bin/trace-cmd-ustack" ]
	[ -x "$TMP/root/opt/ustack/bin/trace-cmd" ]
	run "$TMP/root/opt/ustack/bin/trace-cmd" ustack --help
	[ "$status" -eq 0 ]
}
