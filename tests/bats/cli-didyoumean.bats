#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Issue 46, item 9 (c, d): an option that does nothing in a mode (live,
# record, report) is refused there, in one line naming it and the mode,
# exit 64, before anything runs (tracecmd/ustack-opts.c, mode_rules);
# what perf record/report and trace-cmd record users type gets what to
# use instead, or that there is no equivalent (foreign_opts).

bats_require_minimum_version 1.5.0
load helpers

setup() {
	tmp_setup
	NAME=$(instance_name)
	FIX="$DATA/threads-deferred.dat"
}

teardown() {
	instance_teardown
}

# refused MODE-WORDS... -- OPTION-WORDS...: exit 64, one line naming the
# option ($opt) and the mode ($mode), nothing recorded, nothing run
refused() {
	local -a pre=()

	while [ "$1" != -- ]; do pre+=("$1"); shift; done
	shift
	run --separate-stderr "$USTACK" "${pre[@]}" "$@"
	echo "${pre[*]} $*: status $status: $stderr"
	[ "$status" -eq 64 ]
	[ "$(wc -l <<< "$stderr")" -eq 1 ]
	[[ "$stderr" == "trace-cmd ustack: $opt"*" does nothing in $mode mode: "* ]]
	[ -z "$output" ]
	[ ! -e "$TMP/ran" ]
	[ ! -e "$TMP/x.dat" ]
}

@test "record refuses every output, symbolizer-output and analysis option (accepted and ignored before): exit 64, one line naming it and 'record mode'; its capture options still taken" {
	mode=record
	while read -r opt args; do
		# shellcheck disable=SC2086
		refused record -B "$NAME" -o "$TMP/x.dat" -- $opt $args -- touch "$TMP/ran"
	done <<-EOF
	--folded
	--perf-script
	--flamegraph $TMP/f.svg
	--pprof $TMP/p.pb.gz
	--speedscope $TMP/s.json
	--reverse
	--raw
	--lines
	--why
	--inline
	--no-demangle
	--comm sh
	--tid 1
	--dso libc.so.6
	--since 1
	--until +1
	--top
	--tree
	--sort sym
	--percent-limit 1
	--event-root
	-i $TMP/in.dat
	EOF
	[ ! -e "$TMP/f.svg" ]
	assert_no_instance "$NAME"
	# what record does use is still taken: capture, unwinding, files
	require_capture
	run --separate-stderr "$USTACK" record -q -B "$NAME" -o "$TMP/r.dat" \
		-e syscalls:sys_enter_getppid -f 'common_pid > 0' -c -d 30 -b 256 -C mono \
		-s 50000 --max-stack 64 --kernel --symfs / --no-debuginfod -- "$PROGS/deep" 3
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -s "$TMP/r.dat" ]
	assert_no_instance "$NAME"
}

@test "report refuses every capture option, -o and -f: exit 64, one line naming it and 'report mode'; its outputs and filters still taken" {
	mode=report
	while read -r opt args; do
		# shellcheck disable=SC2086
		refused report -i "$FIX" -- $opt $args
	done <<-EOF
	-c
	-d 1
	-b 64
	-C mono
	-s 1000
	--fallback
	--stack-source perf
	--call-graph fp
	--call-graph dwarf
	-o $TMP/x.dat
	EOF
	opt=-f refused report -i "$FIX" -- -e syscalls -f 'common_pid == 1'
	# what report does use is still taken: outputs, filters, the symbolizer
	run --separate-stderr "$USTACK" report -q -i "$FIX" --folded --raw --why --lines \
		--no-demangle --comm threads --event-root --max-stack 10 --kernel \
		--no-debuginfod --symfs / --debug-dir "$TMP"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -n "$output" ]
}

@test "live refuses -i: exit 64, one line naming it and 'live mode', the command not run" {
	mode=live
	opt=-i refused -B "$NAME" -- -i "$FIX" -- touch "$TMP/ran"
	assert_no_instance "$NAME"
}

# theirs WORDS... : refused before anything runs, exit 64, one line that
# names the word and says $say
theirs() {
	run --separate-stderr "$USTACK" "$@" -- touch "$TMP/ran"
	echo "$*: status $status: $stderr"
	[ "$status" -eq 64 ]
	[ "$(wc -l <<< "$stderr")" -eq 1 ]
	[[ "$stderr" == "trace-cmd ustack: $word is not an option of trace-cmd ustack: "* ]]
	[[ "$stderr" == *"$say"* ]]
	[ ! -e "$TMP/ran" ]
}

@test "perf's and trace-cmd's spellings: -p, -t, -g, -T, -m get the option of ours that does it; as values of our options or after -- they are not refused" {
	word=-p say="did you mean -P PID"; theirs -p 1
	word=-p1 say="did you mean -P PID"; theirs -p1
	word=-t say="--tid TID"; theirs -t 1
	word=-g say="--call-graph=fp|dwarf"; theirs -g
	word=-T say="did you mean --kernel"; theirs -T
	word=-m say="did you mean -b KB"; theirs -m 1024
	word=--mmap-pages say="did you mean -b KB"; theirs --mmap-pages 1024
	word=-G say="did you mean --tree=callee"; theirs report -G
	word=--dsos say="did you mean --dso FILE"; theirs report --dsos libc.so.6
	word=--comms say="did you mean --comm COMM"; theirs report --comms sh
	# their spellings as values of our options, or after --, are not theirs
	[ -f "$FIX" ]
	run --separate-stderr "$USTACK" report -q -i "$FIX" --folded --comm -p --dso -a
	echo "$stderr"
	[ "$status" -eq 0 ]
	require_capture
	run --separate-stderr "$USTACK" -q -B "$NAME" -e syscalls:sys_enter_getppid -- ls -a -p /
	echo "$stderr"
	[ "$status" -eq 0 ]
	assert_no_instance "$NAME"
}

@test "perf's and trace-cmd's spellings with no equivalent say so: -F, --freq, --count, -a, --cpu, -M, -u, -O, -l" {
	word=-F say="there is no sampling here"; theirs -F 99
	word=--freq=99 say="there is no sampling here"; theirs --freq=99
	word=--count say="there is no sampling here"; theirs --count 1000
	word=-a say="the whole system is traced when neither -P nor a command is given"; theirs -a
	word=--all-cpus say="drop --all-cpus"; theirs --all-cpus
	word=--cpu say="there is no CPU filter"; theirs --cpu 0
	word=-M say="there is no CPU mask"; theirs -M 1
	word=-u say="there is no user filter"; theirs -u root
	word=-O say="--kernel adds kernel stacks"; theirs -O stacktrace
	word=-l say="functions are not traced"; theirs -l 'do_sys_*'
	# a letter of theirs among ours
	word=-a say="the whole system is traced"; theirs -qa
}
