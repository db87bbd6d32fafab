#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The profile formats, each read by its real client: --pprof by `go tool
# pprof` (Debian's golang-go), --speedscope against speedscope's published
# JSON schema (the npm package's file-format-schema.json) and by
# speedscope's own app in Chromium, --flamegraph
# in headless Chromium (Debian's chromium through playwright-core), which
# clicks, hovers and searches like a person; its screenshots are kept in
# tests/output/formats/. What every client shows is checked against the
# --folded output of the same run. A missing client fails the test with
# what to install (scripts/install-deps installs them all); nothing skips
# for a missing tool.

bats_require_minimum_version 1.5.0
load helpers

NODE_DIR="${USTACK_TEST_CACHE:-/var/cache/trace-cmd-ustack}/node"
SHOTS="$ROOT/tests/output/formats"

setup_file() {
	build_progs
	make -s -C "$ROOT" tools >&2
}

setup() {
	tmp_setup
}

teardown() {
	instance_teardown
}

need_go() {
	command -v go >/dev/null || {
		echo "go is missing: install Debian's golang-go (scripts/install-deps)" >&2
		return 1
	}
}

need_node_modules() {
	command -v node >/dev/null && [ -d "$NODE_DIR/node_modules/playwright-core" ] &&
		[ -d "$NODE_DIR/node_modules/ajv" ] && [ -d "$NODE_DIR/node_modules/speedscope" ] || {
		echo "node or the test's npm packages are missing from $NODE_DIR:" \
		     "run scripts/install-deps (npm ci of tests/browser/package.json)" >&2
		return 1
	}
}

need_browser() {
	[ -x /usr/bin/chromium ] || {
		echo "/usr/bin/chromium is missing: install Debian's chromium (scripts/install-deps)" >&2
		return 1
	}
	need_node_modules
}

# browse FILE.svg SHOT-NAME [--click NAME] [--search TERM]: what Chromium saw (JSON)
browse() {
	local svg="$1" shot="$2"

	shift 2
	mkdir -p "$SHOTS"
	NODE_PATH="$NODE_DIR/node_modules" timeout 180 \
		node "$ROOT/tests/browser/flamegraph.cjs" "$svg" "$SHOTS/$shot.png" "$@"
}

# Live, on this kernel: -q, getppid only, our own instance
capture() {
	require_capture
	NAME=$(instance_name)
	"$USTACK" -B "$NAME" -q -e syscalls:sys_enter_getppid "$@"
}

# go tool pprof -traces as folded lines: comm;root;...;leaf count, sorted
pprof_folded() {
	go tool pprof -traces -symbolize=none "$1" 2>/dev/null | awk '
		function flush(  s, i) {
			if (!n)
				return
			s = comm
			for (i = n; i >= 1; i--)
				s = s ";" f[i]
			print s " " count
			n = 0
		}
		/^-+\+-+$/ { flush(); next }
		/^ +comm: / { sub(/^ +comm: +/, ""); comm = $0; next }
		/^ +[0-9]+   [^ ]/ {
			count = $1
			sub(/^ +[0-9]+   /, ""); sub(/ \(inline\)$/, ""); f[++n] = $0; next
		}
		/^             [^ ]/ && n { sub(/^ +/, ""); sub(/ \(inline\)$/, ""); f[++n] = $0 }
		END { flush() }' | sort
}

# Folded lines as pprof names their frames: no _[i]/_[k] suffixes; a
# frame of a file without its symbol is "file+0xOFFSET" in both (pprof's
# line names it so), "[unknown]" without a file is pprof's "<unknown>"
folded_as_pprof() {
	sed -E -e ':a; s/_\[[ikj]\](;| )/\1/; ta' \
	       -e ':b; s/;\[unknown\](;| )/;<unknown>\1/; tb' | sort
}

@test "pprof: go tool pprof -traces shows the samples and frames of the folded output" {
	need_go
	capture --folded --pprof "$TMP/p.pb.gz" -- "$PROGS/profile/fanout" 16 > "$TMP/folded"
	want=$(folded_as_pprof < "$TMP/folded")
	got=$(pprof_folded "$TMP/p.pb.gz")
	echo "want:"; echo "$want"; echo "got:"; echo "$got"
	[ -n "$want" ]
	[ "$got" = "$want" ]
	# the three paths of fanout.c in their proportions (6:6:4 of 16)
	grep -q ';main;left;a 6$' <<< "$got"
	grep -q ';main;left;b 6$' <<< "$got"
	[ "$(grep ';main;right;' <<< "$got" | awk '{ n += $NF } END { print n }')" -eq 4 ]
	run go tool pprof -traces -symbolize=none "$TMP/p.pb.gz"
	[[ "$output" == *"Type: syscalls:sys_enter_getppid"* ]]
}

@test "pprof: a mapping has the file's build id, a location its file offset and inline frames" {
	need_go
	prog="$PROGS/profile/inlchain"
	# the file offset of the leaf frame, as the tool reads it without symbols
	capture --raw -- "$prog" 2 > "$TMP/raw"
	off=$(awk -v p="($prog)" '$2 == p { print $1; exit }' "$TMP/raw")
	[ -n "$off" ]
	capture --inline --lines --pprof "$TMP/p.pb.gz" -- "$prog" 3
	go tool pprof -raw -symbolize=none "$TMP/p.pb.gz" > "$TMP/rawpb"
	cat "$TMP/rawpb"
	id=$(readelf -n "$prog" | awk '/Build ID/ { print $3 }')
	mapline=$(grep -E "^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x0 $prog $id \[FN\]\[FL\]\[LN\]\[IN\]" "$TMP/rawpb")
	[ -n "$mapline" ]
	start=$(sed -E 's|^[0-9]+: (0x[0-9a-f]+)/.*|\1|' <<< "$mapline")
	mid=${mapline%%:*}
	# the location of the system call: three lines, the inlined calls first
	loc=$(grep -A2 -E "^ +[0-9]+: 0x[0-9a-f]+ M=$mid inl_leaf .*inlchain\.c:[0-9]+ " "$TMP/rawpb")
	echo "location: $loc"
	[ "$(sed -n 2p <<< "$loc" | awk '{ print $1 }')" = inl_mid ]
	[ "$(sed -n 3p <<< "$loc" | awk '{ print $1 }')" = outer_fn ]
	addr=$(head -1 <<< "$loc" | awk '{ print $2 }')
	# address - memory_start + file_offset (0) is the file offset
	[ $((addr - start)) -eq $((off)) ]
	run go tool pprof -traces -symbolize=none "$TMP/p.pb.gz"
	[[ "$output" == *"inl_leaf (inline)"* ]]
}

@test "pprof --lines: a function's start line is where its source defines it" {
	need_go
	capture --lines --pprof "$TMP/p.pb.gz" -- "$PROGS/profile/fanout" 8
	go tool pprof -raw -symbolize=none "$TMP/p.pb.gz" > "$TMP/raw"
	src="$ROOT/tests/progs/profile/fanout.c"
	for f in a b left right main; do
		want=$(grep -nE "^(__attribute__\(\(noinline\)\) void|int) $f\(" "$src" | cut -d: -f1)
		[ -n "$want" ]
		grep -E " M=[0-9]+ $f [^ ]*fanout\.c:[0-9]+ s=[0-9]+$" "$TMP/raw" > "$TMP/loc"
		cat "$TMP/loc"
		[ -s "$TMP/loc" ]
		# every location of the function: the same start line
		[ "$(sed 's/.* s=//' "$TMP/loc" | sort -u)" = "$want" ] ||
			{ echo "$f: want s=$want"; return 1; }
	done
}

@test "pprof --lines --inline: inlined functions and their caller start where their source defines them" {
	need_go
	capture --lines --inline --pprof "$TMP/p.pb.gz" -- "$PROGS/profile/inlchain" 3
	go tool pprof -raw -symbolize=none "$TMP/p.pb.gz" > "$TMP/raw"
	src="$ROOT/tests/progs/profile/inlchain.c"
	for f in inl_leaf inl_mid outer_fn; do
		want=$(grep -nE "^(static inline __attribute__\(\(always_inline\)\)|__attribute__\(\(noinline\)\)) void $f\(" "$src" | cut -d: -f1)
		[ -n "$want" ]
		grep -E " $f [^ ]*inlchain\.c:[0-9]+ s=[0-9]+$" "$TMP/raw" > "$TMP/loc" || true
		cat "$TMP/loc"
		[ -s "$TMP/loc" ]
		[ "$(sed 's/.* s=//' "$TMP/loc" | sort -u)" = "$want" ] ||
			{ echo "$f: want s=$want"; return 1; }
	done
}

@test "pprof and flame graph: every event counted by default, one sample type per event, the event a label" {
	need_go
	require_capture
	NAME=$(instance_name)
	# fanout: 8 getppid from its own code, 8 clock_nanosleep through libc
	"$USTACK" -B "$NAME" -q -e syscalls:sys_enter_getppid \
		-e syscalls:sys_enter_clock_nanosleep --pprof "$TMP/p.pb.gz" \
		--flamegraph "$TMP/f.svg" --speedscope "$TMP/s.json" -- "$PROGS/profile/fanout" 8
	# speedscope: a profile per event, its samples adding up to its count
	jq -r '.profiles[] | "\(.name) \(.endValue) \(.weights | add) \(.samples | length) \(.weights | length)"' "$TMP/s.json" > "$TMP/profiles"
	cat "$TMP/profiles"
	[ "$(awk '{ print $1, $2, $3 }' "$TMP/profiles")" = "syscalls:sys_enter_getppid 8 8
syscalls:sys_enter_clock_nanosleep 8 8" ]
	# a sample per weight: no stack of the other event among the samples
	[ -z "$(awk '$4 != $5' "$TMP/profiles")" ]
	run go tool pprof -raw -symbolize=none "$TMP/p.pb.gz"
	echo "$output"
	grep -qE '^events/count\[dflt\] syscalls:sys_enter_getppid/count syscalls:sys_enter_clock_nanosleep/count$' <<< "$output"
	# the default counts all 16, -tagfocus on the event label picks one
	run go tool pprof -top -symbolize=none "$TMP/p.pb.gz"
	[[ "$output" == *"Total samples = 16"* ]]
	[[ "$output" == *"Showing nodes accounting for 16, 100% of 16 total"* ]]
	run go tool pprof -top -symbolize=none -tagfocus=event=syscalls:sys_enter_getppid "$TMP/p.pb.gz"
	[[ "$output" == *"Showing nodes accounting for 8, 50.00% of 16 total"* ]]
	[[ "$output" == *" a"* ]]
	run go tool pprof -top -symbolize=none -sample_index=syscalls:sys_enter_getppid "$TMP/p.pb.gz"
	[[ "$output" == *"Total samples = 8"* ]]
	[[ "$output" == *" a"* ]]
	run go tool pprof -top -symbolize=none -sample_index=syscalls:sys_enter_clock_nanosleep "$TMP/p.pb.gz"
	[[ "$output" == *"Total samples = 8"* ]]
	[[ "$output" != *" a"$'\n'* ]]
	# the flame graph counts per event for its tooltips: 8 and 8 at the root
	grep -q '^var EVC = \[8,8,' "$TMP/f.svg"
	grep -q 'var EVENTS = \["syscalls:sys_enter_getppid","syscalls:sys_enter_clock_nanosleep"\]' "$TMP/f.svg"
}

@test "pprof: a fixture recorded on the patched kernel keeps the kernel's build ids" {
	need_go
	f="$DATA/threads-deferred.dat"
	[ -f "$f" ] || skip "no tests/data/threads-deferred.dat fixture"
	run --separate-stderr "$USTACK" report -q -i "$f" --symfs "$DATA/symfs" --folded \
		--pprof "$TMP/p.pb.gz"
	[ "$status" -eq 0 ]
	[ "$(pprof_folded "$TMP/p.pb.gz")" = "$(folded_as_pprof <<< "$output")" ]
	run go tool pprof -raw -symbolize=none "$TMP/p.pb.gz"
	grep -E '^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x0 [^ ]*/threads [0-9a-f]{40} ' <<< "$output"
}

# speedscope's samples as folded lines: the frames of each stack root
# first, weights added up per stack
speedscope_folded() {
	jq -r --arg ev "$2" '.shared.frames as $f | .profiles[] | select(.name == $ev) |
		[.samples, .weights] | transpose[] |
		"\([.[0][] | $f[.].name] | join(";")) \(.[1])"' "$1" |
		awk '{ c = $NF; sub(/ [0-9]+$/, ""); n[$0] += c }
			END { for (s in n) print s " " n[s] }' | sort
}

@test "speedscope: the file passes speedscope's published schema and holds the folded stacks" {
	need_node_modules
	capture --folded --speedscope "$TMP/s.json" -- "$PROGS/profile/fanout" 16 > "$TMP/folded"
	schema="$NODE_DIR/node_modules/speedscope/dist/release/file-format-schema.json"
	run env NODE_PATH="$NODE_DIR/node_modules" node "$ROOT/tests/browser/schema.cjs" \
		"$schema" "$TMP/s.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = valid ]
	[ "$(jq -r '."$schema"' "$TMP/s.json")" = "https://www.speedscope.app/file-format-schema.json" ]
	[ "$(speedscope_folded "$TMP/s.json" syscalls:sys_enter_getppid)" = "$(sort "$TMP/folded")" ]
}

@test "speedscope: the app opens on the event with the most samples" {
	need_browser
	# mmap (the loader's, first) has fewer samples than the 32 getppid
	capture -e syscalls:sys_enter_mmap --speedscope "$TMP/s.json" -- "$PROGS/profile/fanout" 32
	jq -c '[.activeProfileIndex, [.profiles[] | [.name, (.weights | add)]]]' "$TMP/s.json"
	largest=$(jq '[.profiles[] | .weights | add] | indices(max)[0]' "$TMP/s.json")
	[ "$largest" -gt 0 ]
	[ "$(jq .activeProfileIndex "$TMP/s.json")" -eq "$largest" ]
	app="$NODE_DIR/node_modules/speedscope/dist/release"
	run --separate-stderr env NODE_PATH="$NODE_DIR/node_modules" timeout 180 \
		node "$ROOT/tests/browser/speedscope.cjs" "$app" "$TMP/s.json" "$TMP/s.png"
	[ "$status" -eq 0 ]
	jq -r .text <<< "$output" | grep -qx "syscalls:sys_enter_getppid ($((largest + 1))/2)"
}

@test "speedscope --inline: inlined frames follow their caller, in the folded output's order" {
	# inl_leaf is inlined into inl_mid, inlined into outer_fn: one address
	capture --inline --folded --speedscope "$TMP/s.json" -- "$PROGS/profile/inlchain" 2 > "$TMP/folded"
	cat "$TMP/folded"
	grep -q ';main;outer_fn;inl_mid_\[i\];inl_leaf_\[i\] 2$' "$TMP/folded"
	[ "$(speedscope_folded "$TMP/s.json" syscalls:sys_enter_getppid)" = "$(sort "$TMP/folded")" ]
}

@test "speedscope: two commands keep their names, a '\"' in one escaped" {
	need_node_modules
	ln -s "$PROGS/deep" "$TMP/q\"uote"
	cat > "$TMP/run.sh" <<EOF
#!/bin/sh
"$PROGS/shlib" 2
"$TMP/q\\"uote" 3
EOF
	chmod +x "$TMP/run.sh"
	capture -c --folded --speedscope "$TMP/s.json" -- "$TMP/run.sh" > "$TMP/folded"
	cat "$TMP/folded"
	grep -q '^shlib;.* 2$' "$TMP/folded"
	grep -q '^q"uote;.* 3$' "$TMP/folded"
	schema="$NODE_DIR/node_modules/speedscope/dist/release/file-format-schema.json"
	run env NODE_PATH="$NODE_DIR/node_modules" node "$ROOT/tests/browser/schema.cjs" \
		"$schema" "$TMP/s.json"
	[ "$output" = valid ]
	[ "$(speedscope_folded "$TMP/s.json" syscalls:sys_enter_getppid)" = "$(sort "$TMP/folded")" ]
}

@test "speedscope: the schema check fails a file that breaks the format" {
	need_node_modules
	capture --speedscope "$TMP/s.json" -- "$PROGS/shlib" 2
	jq '.profiles[0].samples[0][0] = "main"' "$TMP/s.json" > "$TMP/bad.json"
	schema="$NODE_DIR/node_modules/speedscope/dist/release/file-format-schema.json"
	run env NODE_PATH="$NODE_DIR/node_modules" node "$ROOT/tests/browser/schema.cjs" \
		"$schema" "$TMP/bad.json"
	echo "$output"
	[ "$status" -ne 0 ]
}

@test "speedscope: speedscope's own importer opens the file in Chromium, and refuses a broken one" {
	need_browser
	capture --speedscope "$TMP/s.json" -- "$PROGS/profile/fanout" 16
	app="$NODE_DIR/node_modules/speedscope/dist/release"
	mkdir -p "$SHOTS"
	run --separate-stderr env NODE_PATH="$NODE_DIR/node_modules" timeout 180 \
		node "$ROOT/tests/browser/speedscope.cjs" "$app" "$TMP/s.json" "$SHOTS/speedscope.png"
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	# the app names the page after the imported file and shows its profile
	[ "$(jq -r .title <<< "$output")" = "$(jq -r .name "$TMP/s.json") - speedscope" ]
	jq -r .text <<< "$output" | grep -qx 'syscalls:sys_enter_getppid'
	[ "$(jq '.errors + .dialogs | length' <<< "$output")" -eq 0 ]
	echo "# screenshot: $SHOTS/speedscope.png" >&3
	# a file that is no speedscope profile leaves the app on its welcome page
	echo '{"shared": {"frames": []}}' > "$TMP/bad.json"
	run --separate-stderr env NODE_PATH="$NODE_DIR/node_modules" timeout 180 \
		node "$ROOT/tests/browser/speedscope.cjs" "$app" "$TMP/bad.json" "$TMP/bad.png"
	[ "$status" -eq 0 ]
	[ "$(jq -r .title <<< "$output")" = speedscope ]
	jq -r '.dialogs[]' <<< "$output" | grep -q '^Unrecognized format'
}

# The boxes of a flame graph, from the data its script gets (the element
# of each wide box is checked against it): depth, x, width, samples, name;
# one a line, in depth-first order
svg_boxes() {
	python3 - "$1" <<'PY'
import json, re, sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
script = root.find(NS + "script").text
def var(name):
    return re.search(r"var %s = (.*?);\n" % name, script, re.S).group(1)
frames = json.loads(var("FRAMES"))
boxes = json.loads(var("BOXES"))
conf = json.loads(re.sub(r"(\w+):", r'"\1":', var("CONF")))
full = conf["width"] - 2 * conf["margin"]
elements = {int(g.get("data-i")): g.find(NS + "rect")
            for g in root.find(NS + "g[@id='frames']")}
nxt = [conf["margin"]]
for i in range(len(boxes) // 3):
    depth, frame, n = boxes[3 * i:3 * i + 3]
    x, w = nxt[depth], n / conf["total"] * full
    nxt[depth] += w
    del nxt[depth + 1:]
    nxt.append(x)
    if i in elements:
        r = elements[i]
        assert "%.2f" % x == r.get("x") and "%.2f" % w == r.get("width"), (i, x, w, r.attrib)
        if conf["reverse"]:
            assert int(r.get("y")) == conf["top"] + depth * conf["box"]
        else:
            assert int(r.get("y")) == conf["height"] - conf["bottom"] - (depth + 1) * conf["box"]
    else:
        assert w < conf["sliver"], (i, w)
    print(depth, "%.2f" % x, "%.2f" % w, n, frames[frame][0])
PY
}

@test "flamegraph: valid SVG, a box per distinct path of the folded stacks, widths by count" {
	capture --folded --flamegraph "$TMP/f.svg" -- "$PROGS/profile/fanout" 16 > "$TMP/folded"
	svg_boxes "$TMP/f.svg" > "$TMP/boxes"
	cat "$TMP/boxes"
	# every prefix of every folded stack is one box, with its samples
	want=$(awk '{ n = split($1, f, ";"); p = "";
		      for (i = 1; i <= n; i++) { p = p (i > 1 ? ";" : "") f[i]; c[i " " p] += $2 } }
		    END { for (k in c) { split(k, a, " "); print a[1], c[k] } }' "$TMP/folded" | sort)
	got=$(awk '$1 > 0 { print $1, $4 }' "$TMP/boxes" | sort)
	[ "$(awk '{ print $1 }' <<< "$want" | sort | uniq -c)" = "$(awk '{ print $1 }' <<< "$got" | sort | uniq -c)" ]
	# the root has all 16 samples, 1180 pixels; every box its share of them
	grep -qx '0 10.00 1180.00 16 all' "$TMP/boxes"
	awk '{ w = sprintf("%.2f", $4 / 16 * 1180); if (w != $3) { print "bad width:", $0; bad = 1 } }
	     END { exit bad }' "$TMP/boxes"
	# left() has 12 (6 + 6) of them, right() 4 (in one box each, or more
	# when the fallback left a libc frame unnamed in some samples)
	[ "$(awk '$5 == "left" { n += $4 } END { print n }' "$TMP/boxes")" -eq 12 ]
	[ "$(awk '$5 == "right" { n += $4 } END { print n }' "$TMP/boxes")" -eq 4 ]
	# the title says what ran, the subtitle events, time span and losses
	grep -q '<text id="title"[^>]*>trace-cmd ustack -B [^<]*fanout 16</text>' "$TMP/f.svg" ||
		grep -q '<text id="title"[^>]*>trace-cmd ustack -- .*fanout 16</text>' "$TMP/f.svg"
	grep -qE '<text id="subtitle"[^>]*>16 samples of syscalls:sys_enter_getppid \(16\) · [0-9.]+ to [0-9.]+ \([0-9.]+ s\) · stacks lost: 0' "$TMP/f.svg"
}

@test "flamegraph --reverse: callers as an icicle, leaf functions at the top" {
	capture --flamegraph "$TMP/r.svg" --reverse -- "$PROGS/profile/fanout" 16
	svg_boxes "$TMP/r.svg" > "$TMP/boxes"
	cat "$TMP/boxes"
	# depth 1 (under "all") holds the leaves a() and b(), drawn at the top
	[ "$(awk '$1 == 1 { print $5 }' "$TMP/boxes" | sort | paste -sd,)" = "a,b" ]
	# box 1, the first leaf, is drawn below the root: top down
	ya=$(grep -o '<g data-i="1"><rect x="[0-9.]*" y="[0-9]*"' "$TMP/r.svg" | sed 's/.*y="//; s/"//')
	yroot=$(grep -o '<g data-i="0"><rect x="[0-9.]*" y="[0-9]*"' "$TMP/r.svg" | sed 's/.*y="//; s/"//')
	[ "$ya" -gt "$yroot" ]
	# a() calls come from left (6) and right (2): its callers below it
	grep -qE '^2 [0-9.]+ [0-9.]+ 6 left$' "$TMP/boxes"
	grep -q 'callers (reversed stacks)' "$TMP/r.svg"
}

@test "flamegraph from report of a recorded fixture: same stacks as its folded output" {
	f="$DATA/threads-deferred.dat"
	[ -f "$f" ] || skip "no tests/data/threads-deferred.dat fixture"
	run --separate-stderr "$USTACK" report -q -i "$f" --symfs "$DATA/symfs" --folded \
		--flamegraph "$TMP/f.svg"
	[ "$status" -eq 0 ]
	total=$(awk '{ n += $NF } END { print n }' <<< "$output")
	svg_boxes "$TMP/f.svg" > "$TMP/boxes"
	grep -qx "0 10.00 1180.00 $total all" "$TMP/boxes"
	for x in alpha beta gamma; do
		grep -qE "^[0-9]+ [0-9.]+ [0-9.]+ [0-9]+ ${x}_thread\$" "$TMP/boxes"
	done
	grep -q "<text id=\"title\"[^>]*>trace-cmd ustack report -i $f</text>" "$TMP/f.svg"
}

@test "flamegraph in Chromium: a click zooms, the tooltip names the frame, a search highlights" {
	need_browser
	capture --lines --flamegraph "$TMP/f.svg" -- "$PROGS/profile/fanout" 16
	run --separate-stderr browse "$TMP/f.svg" fanout --click left --search '^a$'
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	j="$output"
	[ "$(jq '.errors | length' <<< "$j")" -eq 0 ]
	# the script colours boxes it draws as the file did
	[ "$(jq '.colourMismatches' <<< "$j")" -eq 0 ]
	# before the click left() is its share of 1180 pixels (12/16, or less
	# when the fallback split it), after it the whole width
	n=$(jq '.before.samples' <<< "$j")
	[ "$n" -ge 5 ]
	[ "$(jq '.before.width' <<< "$j")" = "$(awk -v n="$n" 'BEGIN { print n / 16 * 1180 }')" ]
	[ "$(jq '.after.width' <<< "$j")" = 1180 ]
	[ "$(jq '.after.x' <<< "$j")" = 10 ]
	# the tooltip shown while pointing at left(), gone once the click
	# moved the boxes under the pointer (until the mouse moves again)
	[ "$(jq '.beforeClick.tipShown' <<< "$j")" = true ]
	[ "$(jq '.afterClick.tipShown' <<< "$j")" = false ]
	# right() and its children hidden, the ancestors dimmed, Reset Zoom shown
	[ "$(jq '.zoomed.hidden' <<< "$j")" -ge 3 ]
	[ "$(jq '.zoomed.dimmed' <<< "$j")" -ge 3 ]
	[ "$(jq '.zoomed.resetShown' <<< "$j")" = true ]
	# the tooltip: name, kind, binary, source file and line, samples
	[ "$(jq -r '.zoomed.tip[0]' <<< "$j")" = left ]
	jq -r '.zoomed.tip[]' <<< "$j" | grep -qx 'kind: user function'
	jq -r '.zoomed.tip[]' <<< "$j" | grep -qx "binary: $PROGS/profile/fanout"
	jq -r '.zoomed.tip[]' <<< "$j" | grep -qE '^source: .*fanout\.c(:[0-9]+|, lines [0-9]+-[0-9]+)$'
	pct=$(awk -v n="$n" 'BEGIN { printf "%.2f", 100 * n / 16 }')
	jq -r '.zoomed.tip[]' <<< "$j" | grep -qx "samples: $n ($pct%), 100.00% of the zoomed box"
	# a() makes 8 of the 16 calls (50%): zoomed into left(), its a() box
	# is the one highlighted (the one under right() is hidden)
	[ "$(jq '.searched.matched' <<< "$j")" -ge 1 ]
	[ "$(jq -r '.searched.matchedNames | unique | join(",")' <<< "$j")" = a ]
	[ "$(jq -r '.searched.matchedText' <<< "$j")" = "Matched: 50.00% (8 of 16 samples)" ]
	# Reset Zoom gives left() its width back
	[ "$(jq '.reset.width' <<< "$j")" = "$(jq '.before.width' <<< "$j")" ]
	[ "$(jq '.resetState.hidden' <<< "$j")" -eq 0 ]
	[ -s "$SHOTS/fanout.png" ]
	echo "# screenshot: $SHOTS/fanout.png" >&3
}

@test "flamegraph in Chromium: a long subtitle (many events, the fallback) stays inside the image" {
	need_browser
	require_capture
	NAME=$(instance_name)
	# every system call of a shell and its children: dozens of events
	"$USTACK" -B "$NAME" -q -c --flamegraph "$TMP/f.svg" -- \
		sh -c "ls / > /dev/null; cat /etc/hostname > /dev/null; '$PROGS/shlib' 2"
	run --separate-stderr browse "$TMP/f.svg" subtitle
	echo "$output" | jq -c '{subtitle, subtitle2, subtitleBoxes}'
	[ "$status" -eq 0 ]
	[[ "$(jq -r .subtitle <<< "$output")" == *" and "*" more"* ]]
	# nothing cut: both lines begin and end inside the 1200 pixels
	jq -e '.subtitleBoxes | all(.x >= 0 and .right <= 1200)' <<< "$output"
	# and nothing lost: the stacks lost and the time span are said
	jq -r '.subtitle, .subtitle2' <<< "$output" | grep -q 'stacks lost: '
	jq -r '.subtitle, .subtitle2' <<< "$output" | grep -qE '[0-9.]+ to [0-9.]+ \([0-9.]+ s\)'
}

# hue FILL: the hue of an #rrggbb colour in degrees, "grey" without saturation
hue() {
	python3 -c 'import colorsys, sys
c = sys.argv[1].lstrip("#")
h, l, s = colorsys.rgb_to_hls(*(int(c[i:i + 2], 16) / 255 for i in (0, 2, 4)))
print("grey" if s < 0.02 else round(h * 360))' "$1"
}

@test "flamegraph in Chromium: colours and tooltips tell user, inlined, kernel, unresolved frames and tasks apart" {
	need_browser
	# a copy without symbols: its own frames can only be "stripped+0xOFFSET"
	cp "$PROGS/profile/fanout" "$TMP/stripped"
	strip -s "$TMP/stripped"
	# perf samples a syscall tracepoint with the user registers (no kernel chain)
	src=()
	[ "$(stack_source)" = perf ] && src=(--stack-source=userstacktrace)
	capture "${src[@]}" -c --kernel --inline --lines --folded --flamegraph "$TMP/f.svg" -- \
		sh -c "'$PROGS/profile/inlchain' 4; '$TMP/stripped' 4" > "$TMP/folded"
	cat "$TMP/folded"
	S=$(grep -o 'stripped+0x[0-9a-f]*' "$TMP/folded" | head -1)
	[ -n "$S" ]
	run --separate-stderr browse "$TMP/f.svg" kinds \
		--hover "outer_fn,inl_leaf,do_syscall_64,$S,inlchain"
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	j="$output"
	[ "$(jq '.errors | length' <<< "$j")" -eq 0 ]
	tip() { jq -r --arg n "$1" '.hovers[$n].tip[]' <<< "$j"; }
	fill() { jq -r --arg n "$1" '.hovers[$n].fill' <<< "$j"; }
	# the tooltip: the frame's name, its kind, binary, source line as known
	[ "$(tip outer_fn | head -1)" = outer_fn ]
	tip outer_fn | grep -qx 'kind: user function'
	tip outer_fn | grep -qx "binary: $PROGS/profile/inlchain"
	tip outer_fn | grep -qE '^source: .*/inlchain\.c:[0-9]+$'
	# 4 of 8 samples, or of 9 when sh calls getppid (dash does)
	tip outer_fn | grep -qE '^samples: 4 \((50\.00|44\.44)%\)$'
	tip inl_leaf | grep -qx 'kind: inlined call (inlined into its caller)'
	tip inl_leaf | grep -qE '^source: .*/inlchain\.c:[0-9]+$'
	tip do_syscall_64 | grep -qx 'kind: kernel function'
	! tip do_syscall_64 | grep -q '^binary:'
	tip "$S" | grep -qx 'kind: unresolved (no symbol)'
	tip "$S" | grep -qx "binary: $TMP/stripped"
	! tip "$S" | grep -q '^source:'
	tip inlchain | grep -qx 'kind: task'
	# the colours: user red to yellow, inlined aqua, kernel blue,
	# unresolved grey, tasks lilac
	h=$(hue "$(fill outer_fn)"); echo "user: $h"; [ "$h" -ge 0 ] && [ "$h" -le 52 ]
	h=$(hue "$(fill inl_leaf)"); echo "inlined: $h"; [ "$h" -ge 170 ] && [ "$h" -le 190 ]
	h=$(hue "$(fill do_syscall_64)"); echo "kernel: $h"; [ "$h" -ge 206 ] && [ "$h" -le 232 ]
	[ "$(hue "$(fill "$S")")" = grey ]
	h=$(hue "$(fill inlchain)"); echo "task: $h"; [ "$h" -ge 266 ] && [ "$h" -le 290 ]
	# the title is the command line as a shell reads it back (shlex
	# splits like sh), one word a line
	run python3 -c 'import shlex, sys, xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1]).getroot().find("{http://www.w3.org/2000/svg}title").text
print(t)
print("\n".join(shlex.split(t)))' "$TMP/f.svg"
	printf '%s\n' "${lines[@]}"
	[ "${#lines[@]}" -eq 7 ]
	[ "${lines[*]:1}" = "trace-cmd ustack -- sh -c '$PROGS/profile/inlchain' 4; '$TMP/stripped' 4" ]
	[ "${lines[6]}" = "'$PROGS/profile/inlchain' 4; '$TMP/stripped' 4" ]
	echo "# screenshot: $SHOTS/kinds.png" >&3
}

@test "record, then report: flame graph, pprof and speedscope hold the recorded stacks" {
	need_go
	require_capture
	NAME=$(instance_name)
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" -e syscalls:sys_enter_getppid \
		-- "$PROGS/profile/fanout" 16
	run --separate-stderr "$USTACK" report -q -i "$TMP/t.dat" --folded \
		--flamegraph "$TMP/f.svg" --pprof "$TMP/p.pb.gz" --speedscope "$TMP/s.json"
	[ "$status" -eq 0 ]
	echo "$output"
	folded="$output"
	[ "$(awk '{ n += $NF } END { print n }' <<< "$folded")" -eq 16 ]
	grep -q ';main;left;a 6$' <<< "$folded"
	# the flame graph: 16 samples, left() with 12 of them, titled after the report
	svg_boxes "$TMP/f.svg" > "$TMP/boxes"
	grep -qx '0 10.00 1180.00 16 all' "$TMP/boxes"
	[ "$(awk '$5 == "left" { n += $4 } END { print n }' "$TMP/boxes")" -eq 12 ]
	grep -q "<text id=\"title\"[^>]*>trace-cmd ustack report -i $TMP/t.dat</text>" "$TMP/f.svg"
	# pprof and speedscope: the stacks of the folded output
	[ "$(pprof_folded "$TMP/p.pb.gz")" = "$(folded_as_pprof <<< "$folded")" ]
	[ "$(speedscope_folded "$TMP/s.json" syscalls:sys_enter_getppid)" = "$(sort <<< "$folded")" ]
}

@test "flamegraph --inline: inlined frames above their caller, innermost on top" {
	capture --inline --flamegraph "$TMP/f.svg" -- "$PROGS/profile/inlchain" 2
	svg_boxes "$TMP/f.svg" > "$TMP/boxes"
	cat "$TMP/boxes"
	# one path: the depths of outer_fn, inl_mid and inl_leaf follow each other
	d=$(awk '$5 == "outer_fn" { print $1 }' "$TMP/boxes")
	[ -n "$d" ]
	[ "$(awk -v d="$d" '$1 == d + 1 { print $5 }' "$TMP/boxes")" = inl_mid ]
	[ "$(awk -v d="$d" '$1 == d + 2 { print $5 }' "$TMP/boxes")" = inl_leaf ]
}

@test "flamegraph: boxes under 0.1% of the samples are merged, two or more at a time, last, with their whole count" {
	local n

	# 300 stacks: some shown boxes have a single small child (kept);
	# 3000: many have several (merged)
	for n in 300 3000; do
		"$ROOT/tests/tools/ustack-profile-gen" -n $n -F "$TMP/folded" -f "$TMP/f.svg"
		svg_boxes "$TMP/f.svg" > "$TMP/boxes"
		grep -o 'var MERGED = {[^}]*}' "$TMP/f.svg" | sed 's/^var MERGED = //' > "$TMP/merged"
		check_merged
	done
}

# check_merged: $TMP/boxes (svg_boxes), $TMP/merged (MERGED) against $TMP/folded
check_merged() {
	python3 - "$TMP/folded" "$TMP/boxes" "$TMP/merged" <<'PY'
import collections, re, sys
folded, boxes, merged = sys.argv[1:4]
through, ends = collections.Counter(), collections.Counter()
kids = collections.defaultdict(set)
total = 0
for line in open(folded):
    stack, n = line.rsplit(" ", 1)
    n = int(n)
    total += n
    f = tuple(stack.split(";"))
    for i in range(len(f) + 1):
        through[f[:i]] += n
        if i:
            kids[f[:i - 1]].add(f[:i])
    ends[f] += n
nmerged = {int(k): int(v) for k, v in re.findall(r"(\d+):(\d+)", open(merged).read())}
tree = collections.defaultdict(list)     # parent path -> [(index, name, count)]
path = []
for i, line in enumerate(open(boxes)):
    depth, x, w, n = line.split()[:4]
    name = line.rstrip("\n").split(" ", 4)[4]
    depth, n = int(depth), int(n)
    del path[depth:]
    if depth:
        tree[tuple(path[1:])].append((i, name, n))
    path.append(name)
    if name:
        assert n == through[tuple(path[1:])], (i, path, n)
small = lambda c: through[c] * 1000 < total
checked = 0
for parent, children in tree.items():
    shown = {parent + (name,) for i, name, n in children if name}
    lost = sorted(c for c in kids[parent] if c not in shown)
    assert all(small(c) for c in lost), (parent, lost)
    m = [(i, n) for i, name, n in children if not name]
    if len([c for c in kids[parent] if small(c)]) >= 2:
        assert len(m) == 1 and children[-1][1] == "", (parent, children)
        assert m[0][1] == sum(through[c] for c in lost), (parent, m, lost)
        assert nmerged[m[0][0]] == len(lost) >= 2, (parent, m, lost)
        checked += 1
    else:
        assert not m and not lost, (parent, m, lost)
kept = sum(1 for p, k in kids.items() if not small(p) and sum(1 for c in k if small(c)) == 1)
assert checked + kept > 10, (checked, kept)
print("merged boxes checked:", checked, "single small boxes kept:", kept)
PY
}

@test "flamegraph: 100,000 distinct stacks make a file under 20 MB that Chromium opens whole, search share exact" {
	need_browser
	gen="$ROOT/tests/tools/ustack-profile-gen"
	"$gen" -n 100000 -F "$TMP/folded" -f "$TMP/big.svg"
	[ "$(wc -l < "$TMP/folded")" -eq 100000 ]
	size=$(stat -c %s "$TMP/big.svg")
	echo "size: $size bytes"
	[ "$size" -lt $((20 * 1024 * 1024)) ]
	# merged boxes are said to be merged
	grep -qE '<text id="subtitle2"[^>]*>[0-9]+ boxes under 0.1% of the samples merged into [0-9]+ boxes' "$TMP/big.svg"
	grep -q '^var MERGED = {[0-9]' "$TMP/big.svg"
	# fn_24xx: deep in the stacks, mostly inside merged boxes
	run --separate-stderr browse "$TMP/big.svg" big --click fn_0007 --search 'fn_24'
	echo "$output" | jq -c '{load, loadEvent, boxes, errors, matched: .searched.matchedText}'
	[ "$status" -eq 0 ]
	# the share of the search is the folded stacks' (a sample counts once),
	# merged boxes searched through what they stand for
	truth=$(awk '{ n = split($1, f, ";"); m = 0
		       for (i = 1; i <= n; i++) if (f[i] ~ /fn_24/) m = 1
		       if (m) s += $NF; t += $NF }
		     END { printf "Matched: %.2f%% (%d of %d samples)", 100 * s / t, s, t }' "$TMP/folded" |
		sed -E ':a; s/([0-9])([0-9]{3})([ ,][^%]*$)/\1,\2\3/; ta')
	echo "folded: $truth"
	[ "$(jq -r '.searched.matchedText' <<< "$output")" = "$truth" ]
	[ "$(jq '.errors | length' <<< "$output")" -eq 0 ]
	[ "$(jq '.boxes' <<< "$output")" -gt 100 ]
	[ "$(jq '.after.width' <<< "$output")" = 1180 ]
}

@test "flamegraph: 100,000 stacks in the widest shape merging keeps: under 20 MB, every kept box drawn, zoom works" {
	need_browser
	# 1000 groups of 0.1% each, 30 functions deep: 31,000 boxes stay
	"$ROOT/tests/tools/ustack-profile-gen" -w -F "$TMP/folded" -f "$TMP/wide.svg"
	[ "$(wc -l < "$TMP/folded")" -eq 100000 ]
	size=$(stat -c %s "$TMP/wide.svg")
	echo "size: $size bytes"
	[ "$size" -lt $((20 * 1024 * 1024)) ]
	grep -qE '<text id="subtitle2"[^>]*>10000 boxes under 0.1% of the samples merged into 1000 boxes' "$TMP/wide.svg"
	run --separate-stderr browse "$TMP/wide.svg" wide --zoom group007_fn00 --search 'group007_fn1'
	echo "$output" | jq -c '{load, loadEvent, boxes, elements, zoomTo, errors}'
	[ "$status" -eq 0 ]
	[ "$(jq '.errors | length' <<< "$output")" -eq 0 ]
	[ "$(jq '.boxes' <<< "$output")" -ge 31000 ]
	# a box 1.18 pixels wide is part of a sliver path, until a zoom makes
	# it the whole width: then an element with its name
	[ "$(jq '.zoomTo.wasElement' <<< "$output")" = false ]
	[ "$(jq '.zoomTo.width' <<< "$output")" = 1180 ]
	[ "$(jq -r '.zoomTo.label' <<< "$output")" = group007_fn00 ]
	# its 29 callees and 3 ancestors with it, the root; the rest hidden
	[ "$(jq '.zoomTo.shown' <<< "$output")" -ge 33 ]
	[ "$(jq -r '.searched.matchedNames | unique | join(",")' <<< "$output")" = \
	  "$(printf 'group007_fn%s\n' 10 11 12 13 14 15 16 17 18 19 | paste -sd,)" ]
}

@test "profile options: not for record, --reverse needs --flamegraph, unwritable files fail" {
	run "$USTACK" record -o "$TMP/t.dat" --flamegraph "$TMP/f.svg" -- true
	[ "$status" -ne 0 ]
	[[ "$output" == *"report -i FILE"* ]]
	run "$USTACK" report -i "$DATA/threads-deferred.dat" --reverse
	[ "$status" -ne 0 ]
	[[ "$output" == *"--reverse is for --flamegraph"* ]]
	[ -f "$DATA/threads-deferred.dat" ] || return 0
	run "$USTACK" report -q -i "$DATA/threads-deferred.dat" --flamegraph "$TMP/no/such/dir/f.svg"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cannot write $TMP/no/such/dir/f.svg: directory $TMP/no/such/dir: No such file or directory"* ]]
}
