#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Analysis in the terminal (issue 48): --top's table per function, the
# --tree of callers or callees, report's filters (-e, --comm, -P, --tid,
# --dso, --since, --until) in every output, and --event-root. On a
# recording of tests/progs/analysis/twopaths: 3,000 getppid(2) through
# main -> getppid_path -> getppid_mid -> getppid_leaf and 1,000 getuid(2)
# through main -> getuid_path -> getuid_leaf, none lost, so that every
# share is known: 75% and 25%.

bats_require_minimum_version 1.5.0
load helpers

TWO="$PROGS/analysis/twopaths"
EVENTS=(-e syscalls:sys_enter_getppid -e syscalls:sys_enter_getuid)

setup_file() {
	build_progs
}

setup() {
	tmp_setup
}

teardown() {
	instance_teardown
}

# summary_value FILE LABEL: the number after "LABEL:" in a summary
summary_value() {
	sed -n "s/^  $2: *\([0-9]*\).*/\1/p" "$1"
}

# record_exact FILE ARGS...: record ARGS (the events and a command) into
# FILE; the recording must have lost nothing (ring-buffer losses 0, no
# stack lost): tried three times, the program paces itself
record_exact() {
	local file=$1 try

	shift
	require_capture
	NAME=$(instance_name)
	for try in 1 2 3; do
		"$USTACK" record -B "$NAME" -q -o "$file" "$@" 2> "$TMP/rec.err" || return 1
		"$USTACK" report -i "$file" --folded > /dev/null 2> "$TMP/rep.err" || return 1
		if [ "$(summary_value "$TMP/rep.err" 'ring-buffer losses')" = 0 ] &&
		   [ "$(summary_value "$TMP/rep.err" 'stacks lost')" = 0 ]; then
			return 0
		fi
		echo "try $try lost events:" >&3
		cat "$TMP/rep.err" >&3
	done
	return 1
}

# The recording of 1000 rounds of twopaths, made once for the file's
# tests that read it: $TWO_DAT
TWO_DAT=
two_paths() {
	TWO_DAT="$BATS_FILE_TMPDIR/two.dat"
	[ -s "$TWO_DAT" ] && return 0
	record_exact "$TMP/two.dat" "${EVENTS[@]}" -- "$TWO" 1000
	[ "$(summary_value "$TMP/rep.err" events)" = 4000 ]
	mv "$TMP/two.dat" "$TWO_DAT"
}

# report ARGS...: report -q of the two paths' recording, stdout in $output
report() {
	run --separate-stderr "$USTACK" report -q -i "$TWO_DAT" "$@"
	head -50 <<< "$output"
	[ "$status" -eq 0 ]
}

# top_row NAME: "self total" of NAME's row of --top (the counts)
top_row() {
	awk -v n="$1" '$NF == n && !/^#/ { print $3, $4 }' <<< "$output"
}

@test "report -e picks one event of a recording of two, in every output: stacks, folded, perf-script, top, tree, SVG, pprof, speedscope" {
	two_paths
	command -v go >/dev/null || {
		echo "go is missing: install Debian's golang-go (scripts/install-deps)" >&2
		return 1
	}
	# the whole recording: both events
	report --folded
	[ "$(awk '{ n += $NF } END { print n }' <<< "$output")" = 4000 ]
	ev=(-e syscalls:sys_enter_getppid)
	report "${ev[@]}"
	[ "$(grep -c 'sys_enter_getppid:' <<< "$output")" = 3000 ]
	[ "$(grep -c 'sys_enter_getuid' <<< "$output")" = 0 ]
	[ "$(grep -c '^  getppid_leaf+' <<< "$output")" = 3000 ]
	report "${ev[@]}" --folded
	[ "$(grep -c . <<< "$output")" = 1 ]
	[[ "$output" == *";main;getppid_path;getppid_mid;getppid_leaf 3000" ]]
	report "${ev[@]}" --perf-script
	[ "$(grep -c ' syscalls:sys_enter_getppid:$' <<< "$output")" = 3000 ]
	[ "$(grep -c 'getuid' <<< "$output")" = 0 ]
	report "${ev[@]}" --top
	[ "$(top_row getppid_leaf)" = "3000 3000" ]
	[ -z "$(top_row getuid_leaf)" ]
	report "${ev[@]}" --tree
	grep -qx ' 100.00%   3000  getppid_leaf' <<< "$output"
	! grep -q getuid <<< "$output" || false
	report "${ev[@]}" --flamegraph "$TMP/f.svg" --pprof "$TMP/p.pb.gz" --speedscope "$TMP/s.json"
	grep -q '^\["getppid_leaf",' "$TMP/f.svg"
	! grep -q '"getuid_leaf"' "$TMP/f.svg" || false
	go tool pprof -top "$TMP/p.pb.gz" > "$TMP/pprof" 2>/dev/null
	cat "$TMP/pprof"
	grep -q 'Total samples = 3000 *$' "$TMP/pprof"
	! grep -q getuid "$TMP/pprof" || false
	run python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s:%d" % (p["name"], sum(p["weights"])) for p in d["profiles"]))' "$TMP/s.json"
	[ "$output" = "syscalls:sys_enter_getppid:3000" ]
	# shell patterns, repeatable; the summary says what was left out
	run --separate-stderr "$USTACK" report -i "$TWO_DAT" -e 'sys*:*getuid' -e '*:sys_enter_getu?d' --folded
	[ "$status" -eq 0 ]
	[[ "$output" == *";main;getuid_path;getuid_leaf 1000" ]]
	[ "$(grep -c . <<< "$output")" = 1 ]
	grep -qx '  left out by filters:  3000 (shown: 1000)' <<< "$stderr"
	report -e syscalls --folded
	[ "$(awk '{ n += $NF } END { print n }' <<< "$output")" = 4000 ]
}

@test "report -e with an event the file does not have is one line, exit 1" {
	two_paths
	run --separate-stderr "$USTACK" report -i "$TWO_DAT" -e syscalls:sys_enter_openat --folded
	[ "$status" -eq 1 ]
	[ "$stderr" = "trace-cmd ustack: -e syscalls:sys_enter_openat: $TWO_DAT has no such event" ]
	[ -z "$output" ]
}

@test "--top: the getppid path's leaf has 75% of the events itself, main 100% with its callees, counts worked out by hand" {
	two_paths
	report --top
	grep -qx '  75.00%   75.00%   3000   3000  getppid_leaf' <<< "$output"
	grep -qx '  25.00%   25.00%   1000   1000  getuid_leaf' <<< "$output"
	grep -qx '   0.00%  100.00%      0   4000  main' <<< "$output"
	grep -qx '   0.00%   75.00%      0   3000  getppid_mid' <<< "$output"
	[ "$(top_row getppid_path)" = "0 3000" ]
	[ "$(top_row getuid_path)" = "0 1000" ]
	# sorted by self: the two leaves first
	[ "$(grep -v '^#' <<< "$output" | head -2 | awk '{ print $NF }' | paste -sd' ')" = \
	  "getppid_leaf getuid_leaf" ]
	# every event has one leaf
	[ "$(grep -v '^#' <<< "$output" | awk '{ n += $3 } END { print n }')" = 4000 ]
	grep -qx '# 4000 events: syscalls:sys_enter_getppid 3000, syscalls:sys_enter_getuid 1000' \
		<<< "$output"
	# the first N rows; the others counted
	report --top=2
	[ "$(grep -vc '^#' <<< "$output")" = 2 ]
	grep -q '^# [0-9]* more rows (--top=2)$' <<< "$output"
}

@test "--top --sort: rows per event, per task, per file and function" {
	two_paths
	report --top --sort event
	[ "$(grep -v '^#' <<< "$output")" = "$(printf '%s\n' \
		'  75.00%   75.00%   3000   3000  syscalls:sys_enter_getppid' \
		'  25.00%   25.00%   1000   1000  syscalls:sys_enter_getuid')" ]
	report --top --sort comm
	[ "$(grep -v '^#' <<< "$output")" = ' 100.00%  100.00%   4000   4000  twopaths' ]
	report --top --sort dso,sym
	grep -qE '^  75\.00%   75\.00%   3000   3000  twopaths +getppid_leaf$' <<< "$output"
	grep -qE '^   0\.00%  100\.00%      0   4000  twopaths +main$' <<< "$output"
	grep -qE '  libc\.so\.6 +[^ ]+$' <<< "$output"
	report --top --sort event,sym
	grep -qE '^  75\.00%   75\.00%   3000   3000  syscalls:sys_enter_getppid +getppid_leaf$' \
		<<< "$output"
	grep -qE '^   0\.00%   25\.00%      0   1000  syscalls:sys_enter_getuid +main$' <<< "$output"
	# --percent-limit leaves out the rows whose total is under it
	report --top --percent-limit 50
	! grep -v '^#' <<< "$output" | grep -q getuid || false
	grep -q '^# 2 rows under --percent-limit 50% left out$' <<< "$output"
}

@test "--tree: the getppid branch has 75% of the events under main, the getuid branch 25%; callee from the leaves" {
	two_paths
	report --tree
	# the frames of libc above main: each 100%, a chain
	! sed -n '/^#/d; /  main$/q; p' <<< "$output" | grep -v '^ 100\.00%   4000  [^ |`]' || false
	[ "$(sed -n '/  main$/,$p' <<< "$output")" = "$(printf '%s\n' \
		' 100.00%   4000  main' \
		'  75.00%   3000  |--getppid_path' \
		'  75.00%   3000  |  getppid_mid' \
		'  75.00%   3000  |  getppid_leaf' \
		'  25.00%   1000  `--getuid_path' \
		'  25.00%   1000     getuid_leaf')" ]
	report --tree=callee
	[ "$(grep -v '^#' <<< "$output" | grep -E '  (get[a-z_]*|main)$|^$')" = "$(printf '%s\n' \
		'  75.00%   3000  getppid_leaf' \
		'  75.00%   3000  getppid_mid' \
		'  75.00%   3000  getppid_path' \
		'  75.00%   3000  main' \
		'' \
		'  25.00%   1000  getuid_leaf' \
		'  25.00%   1000  getuid_path' \
		'  25.00%   1000  main')" ]
	# branches under the limit are folded into one line
	report --tree --percent-limit 30
	[ "$(sed -n '/  main$/,$p' <<< "$output")" = "$(printf '%s\n' \
		' 100.00%   4000  main' \
		'  75.00%   3000  |--getppid_path' \
		'  75.00%   3000  |  getppid_mid' \
		'  75.00%   3000  |  getppid_leaf' \
		'  25.00%   1000  `--[1 more, each under 30%]')" ]
	# grouped by event at the top
	report --tree --sort event
	grep -qx '  75.00%   3000  \[event syscalls:sys_enter_getppid\]' <<< "$output"
	grep -qx '  25.00%   1000  \[event syscalls:sys_enter_getuid\]' <<< "$output"
	# 80 columns
	[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' <<< "$output")" -le 80 ]
}

# pprof -top's rows as "name flat cum", sorted
pprof_rows() {
	go tool pprof -top -nodefraction=0 -nodecount=100000 "$1" 2>/dev/null |
		awk 'go { print $6, $1, $4 } / flat%  *sum% / { go = 1 }' | sort
}

@test "--top agrees with go tool pprof -top on the pprof file of the same report" {
	two_paths
	command -v go >/dev/null || {
		echo "go is missing: install Debian's golang-go (scripts/install-deps)" >&2
		return 1
	}
	for args in "" "--event-root" "-e syscalls:sys_enter_getuid"; do
		# shellcheck disable=SC2086
		report $args --top --pprof "$TMP/p.pb.gz"
		got=$(grep -v '^#' <<< "$output" | awk '{ print $5, $3, $4 }' | sort)
		want=$(pprof_rows "$TMP/p.pb.gz")
		echo "$args: top:"; echo "$got"; echo "pprof -top:"; echo "$want"
		[ -n "$got" ]
		[ "$got" = "$want" ]
	done
}

@test "--event-root: the event is the root frame of folded, flame graph, pprof and speedscope" {
	two_paths
	command -v go >/dev/null || {
		echo "go is missing: install Debian's golang-go (scripts/install-deps)" >&2
		return 1
	}
	report --event-root --folded --flamegraph "$TMP/f.svg" --pprof "$TMP/p.pb.gz" \
		--speedscope "$TMP/s.json"
	[ "$(awk -F';' '{ print $1 ";" $2 ";...;" $NF }' <<< "$output")" = "$(printf '%s\n' \
		'sys_enter_getppid;twopaths;...;getppid_leaf 3000' \
		'sys_enter_getuid;twopaths;...;getuid_leaf 1000')" ]
	# pprof: the outermost location of each sample
	go tool pprof -traces "$TMP/p.pb.gz" 2>/dev/null > "$TMP/traces"
	cat "$TMP/traces"
	[ "$(awk '/^-+\+-+$/ { if (n++) print last } { last = $NF }' "$TMP/traces" |
	     sort | uniq -c | awk '{ print $2, $1 }' | paste -sd' ')" = \
	  "sys_enter_getppid 3 sys_enter_getuid 1" ]
	# speedscope: the first frame of every sample, then the task
	run python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
f = d["shared"]["frames"]
print(" ".join(sorted({f[s[0]]["name"] + ">" + f[s[1]]["name"]
		       for p in d["profiles"] for s in p["samples"]})))' "$TMP/s.json"
	[ "$output" = "sys_enter_getppid>twopaths sys_enter_getuid>twopaths" ]
	# flame graph: the events' boxes right above "all", the task above them
	run python3 -c 'import json, re, sys
svg = open(sys.argv[1]).read()
frames = json.loads(re.search(r"var FRAMES = (\[.*?\]);\n", svg, re.S).group(1))
boxes = json.loads(re.search(r"var BOXES = (\[.*?\]);", svg).group(1))
print(" ".join("%d:%s:%d" % (boxes[i], frames[boxes[i + 1]][0], boxes[i + 2])
	       for i in range(0, len(boxes), 3) if boxes[i] in (1, 2)))' "$TMP/f.svg"
	[ "$output" = "1:sys_enter_getppid:3000 2:twopaths:3000 1:sys_enter_getuid:1000 2:twopaths:1000" ]
	# and the tree, from the callers
	report --event-root --tree
	grep -qx '  75.00%   3000  sys_enter_getppid' <<< "$output"
	grep -qx '  25.00%   1000  sys_enter_getuid' <<< "$output"
}

@test "--top and --tree live: printed at the end of the run" {
	require_capture
	NAME=$(instance_name)
	run --separate-stderr "$USTACK" -B "$NAME" "${EVENTS[@]}" --top --tree -- "$TWO" 40
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	# losses would change the shares: counted only when there were none
	if grep -q '^  ring-buffer losses:   0$' <<< "$stderr"; then
		grep -qx '  75.00%   75.00%    120    120  getppid_leaf' <<< "$output"
		grep -qx '  75.00%    120  |--getppid_path' <<< "$output"
	fi
	grep -q '^# [0-9]* events: syscalls:sys_enter_getppid' <<< "$output"
	# the table, then the tree: nothing else on stdout
	[ -z "$(grep -vE '^(#|  *[0-9.]+%|$)' <<< "$output")" ]
	grep -q '^ustack summary:' <<< "$stderr"
}

# Two programs, one after the other, under sh: twopaths 25 (75 getppid,
# 25 getuid), then shlib 5 (5 getppid through libustack-chain.so)
two_programs() {
	record_exact "$TMP/t.dat" "${EVENTS[@]}" -c -- sh -c "'$TWO' 25; '$PROGS/shlib' 5"
}

# count ARGS...: the events report ARGS --folded shows, per task: "task n ..."
count() {
	"$USTACK" report -q -i "$TMP/t.dat" --folded "$@" |
		awk '{ split($1, f, ";"); n[f[1]] += $NF } END { for (t in n) print t, n[t] }' |
		sort | paste -sd' '
}

@test "report --comm, -P, --tid, --dso: the tasks, threads and files asked for, in every output" {
	two_programs
	[ "$(count --comm twopaths)" = "twopaths 100" ]
	[ "$(count --comm shlib)" = "shlib 5" ]
	# the pids and tids as perf-script prints them
	"$USTACK" report -q -i "$TMP/t.dat" --perf-script > "$TMP/ps"
	pid=$(awk '$1 == "twopaths" { split($2, p, "/"); print p[1]; exit }' "$TMP/ps")
	tid=$(awk '$1 == "shlib" { split($2, p, "/"); print p[2]; exit }' "$TMP/ps")
	[ -n "$pid" ] && [ -n "$tid" ]
	[ "$(count -P "$pid")" = "twopaths 100" ]
	[ "$(count --tid "$tid")" = "shlib 5" ]
	[ "$(count --tid "$tid,$pid")" = "shlib 5 twopaths 100" ]
	# a stack with a frame in the file: by base name, path or pattern
	[ "$(count --dso libustack-chain.so)" = "shlib 5" ]
	[ "$(count --dso "$PROGS/libustack-chain.so")" = "shlib 5" ]
	[ "$(count --dso 'twopath*')" = "twopaths 100" ]
	[ "$(count --dso nothing)" = "" ]
	# and every output sees the same samples
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --dso libustack-chain.so \
		--top --pprof "$TMP/p.pb.gz" --speedscope "$TMP/s.json" --flamegraph "$TMP/f.svg"
	[ "$status" -eq 0 ]
	grep -qx ' 100.00%  100.00%      5      5  lib_inner' <<< "$output"
	[ "$("$USTACK" report -q -i "$TMP/t.dat" --dso libustack-chain.so | grep -c '^  lib_inner+')" = 5 ]
	[ "$("$USTACK" report -q -i "$TMP/t.dat" --dso libustack-chain.so --perf-script |
	     grep -c ' syscalls:sys_enter_getppid:$')" = 5 ]
	! grep -q '"getppid_leaf"' "$TMP/f.svg" || false
	grep -q '^\["lib_inner",' "$TMP/f.svg"
	run python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(sum(p["weights"]) for p in d["profiles"]))' "$TMP/s.json"
	[ "$output" = 5 ]
}

@test "report --since, --until: timestamps as printed, or seconds after the first event" {
	two_programs
	"$USTACK" report -q -i "$TMP/t.dat" --perf-script > "$TMP/ps"
	# the first event, the last of twopaths, the first of shlib: as printed
	first=$(awk '/ [0-9]+\.[0-9]+: 1 / { print $4 }' "$TMP/ps" | tr -d : | sort -n | head -1)
	last_two=$(awk '$1 == "twopaths" { print $4 }' "$TMP/ps" | tr -d : | sort -n | tail -1)
	first_shlib=$(awk '$1 == "shlib" { print $4 }' "$TMP/ps" | tr -d : | sort -n | head -1)
	echo "first $first, twopaths to $last_two, shlib from $first_shlib"
	[ -n "$first" ] && [ -n "$last_two" ] && [ -n "$first_shlib" ]
	[ "$(count --since "$first_shlib" --comm shlib --comm twopaths)" = "shlib 5" ]
	[ "$(count --until "$last_two" --comm shlib --comm twopaths)" = "twopaths 100" ]
	# both bounds are included: one printed timestamp
	n=$(grep -c " $first_shlib: 1 " "$TMP/ps")
	[ "$("$USTACK" report -q -i "$TMP/t.dat" --since "$first_shlib" --until "$first_shlib" \
	     --perf-script | grep -c ' syscalls:')" = "$n" ]
	# relative: the microseconds from the first event
	rel=$(awk -v a="$first" -v b="$first_shlib" 'BEGIN {
		split(a, x, "."); split(b, y, ".")
		d = (y[1] - x[1]) * 1000000 + (y[2] - x[2])
		printf "+%d.%06d\n", d / 1000000, d % 1000000 }')
	echo "shlib from $rel"
	[ "$(count --since "$rel" --comm shlib --comm twopaths)" = "shlib 5" ]
	[ "$(count --since +0 --comm shlib --comm twopaths)" = "shlib 5 twopaths 100" ]
	[ "$(count --since +1000000)" = "" ]
}

@test "analysis options: refused by record, --sort and --percent-limit need --top or --tree, bad values, -f at report" {
	for o in --top --tree --event-root "--tid 1" "--dso x" "--since 1" "--until +1"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$USTACK" record -o "$TMP/x.dat" $o -- true
		echo "$o: $stderr"
		[ "$status" -eq 64 ]
		[[ "$stderr" == *"only applies to what is printed: use it live or with report"* ]]
	done
	[ ! -e "$TMP/x.dat" ]
	bad() {
		run --separate-stderr "$USTACK" report -i "$TMP/none.dat" "$@"
		echo "$*: $stderr"
		[ "$status" -eq 64 ]
		[[ "$stderr" == *"$msg"* ]]
	}
	msg="--sort and --percent-limit are for --top and --tree"
	bad --sort sym
	bad --percent-limit 5
	msg="bad --sort key 'file'"; bad --top --sort dso,file
	msg="--sort names 'sym' twice"; bad --top --sort sym,dso,sym
	msg="bad --percent-limit '200'"; bad --tree --percent-limit 200
	msg="bad --percent-limit '-1'"; bad --tree --percent-limit -1
	msg="bad --top '0'"; bad --top=0
	msg="bad --tree 'down'"; bad --tree=down
	msg="bad --since '1e3'"; bad --since 1e3
	msg="bad --until '+'"; bad --until +
	msg="bad --since '.5'"; bad --since .5
	msg="--since is after --until"; bad --since 20 --until 10
	msg="bad tid list ','"; bad --tid ,
	msg="--event-root is for --folded"; bad --event-root
	msg="--event-root is for --folded"; bad --event-root --perf-script
	# the rule of ustack-opts.c's mode_rules (cli-didyoumean.bats has them all)
	msg="-f (--filter) does nothing in report mode"; bad -e syscalls -f 'common_pid == 1'
	msg="-c (--children) does nothing in report mode"; bad -c
}

# The block of the man page (or README) example whose command line ends
# in $2, up to the end of its block
doc_example() {
	sed -n "/$2\$/,/^\(------------\|\`\`\`\)\$/p" "$1" | sed '1d;$d'
}

@test "man page and README: the --top and --tree examples print what report prints of such a recording" {
	two_paths
	# the lines of libc's frames depend on the C library: left out
	nolibc() { grep -v '__libc'; }
	for ex in "$ROOT/Documentation/trace-cmd-ustack.1.txt:two.dat --top --tree" \
		  "$ROOT/Documentation/trace-cmd-ustack.1.txt:two.dat -e syscalls:sys_enter_getuid --top --sort dso,sym" \
		  "$ROOT/README.md:two.dat --top=3"; do
		file=${ex%%:*} args=${ex#*:}
		want=$(doc_example "$file" "$args")
		[ -n "$want" ]
		# shellcheck disable=SC2086
		report ${args#two.dat}
		echo "want:"; echo "$want"
		[ "$(nolibc <<< "$output")" = "$(nolibc <<< "$want")" ]
	done
}
