#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The symbolizer against reference tools on programs built here:
# llvm-symbolizer for names, inline chains and source lines, objdump and
# perf for PLT stubs. Each test says which frames it looks at and fails
# when the symbolizer answers differently from the reference.

load helpers
SYM="${USTACK_SYMBOLIZE:-$ROOT/tests/tools/ustack-symbolize}"
COMPARE="$ROOT/bench/symbolize/compare.py"

load elf

setup_file() {
	[ -x "$SYM" ] || make -s -C "$ROOT" tests/tools/ustack-symbolize >&2
}

setup() {
	tmp_setup
}

teardown() {
	instance_teardown
}

need() {
	local t

	for t in "$@"; do
		command -v "$t" >/dev/null || skip "$t not installed"
	done
}

# offs FILE: hex virtual addresses (no 0x) on stdin to "FILE<TAB>0xOFFSET"
# lines, through the executable PT_LOADs (one readelf call).
offs() {
	python3 -c '
import subprocess, sys
f = sys.argv[1]
loads = [(int(x[1], 16), int(x[2], 16), int(x[4], 16))
	 for x in (l.split() for l in subprocess.run(["readelf", "-lW", f],
		   capture_output=True, text=True).stdout.splitlines())
	 if x and x[0] == "LOAD"]
for line in sys.stdin:
	a = int(line, 16)
	o = [a - v + off for off, v, sz in loads if v <= a < v + sz]
	if not o:
		sys.exit("no PT_LOAD of %s holds %x" % (f, a))
	print("%s\t0x%x" % (f, o[0]))
' "$1"
}

# insns FILE START END: instruction addresses (hex, no 0x) in [START, END)
insns() {
	objdump -d --no-show-raw-insn --start-address="0x$2" --stop-address="0x$3" "$1" |
		awk '/^ +[0-9a-f]+:/ { sub(":", "", $1); print $1 }'
}

sym_addr() {
	nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }'
}

# sym_range FILE SYMBOL: "start end" (hex) of a sized symbol
sym_range() {
	local a s

	read -r a s < <(nm -S "$1" | awk -v n="$2" 'NF == 4 && $4 == n { print $1, $2; exit }')
	[ -n "$s" ] || { echo "no sized symbol $2 in $1" >&2; return 1; }
	printf '%x %x\n' $((0x$a)) $((0x$a + 0x$s))
}

# ours_names: the function of each frame of ustack-symbolize output
ours_names() {
	sed -E 's/\+0x[0-9a-f]+ \(.*//; s/ \(.*//'
}

# --- 1. Inline frames inside lambdas

@test "lambdas: inline frames inside a lambda's operator() agree with llvm-symbolizer" {
	need g++ llvm-symbolizer python3
	# Two lambdas kept out of line, full of inlined std::string code: one
	# in a function template that is only inlined (its DWARF is an
	# abstract instance), one in a member function of a local class.
	cat >"$TMP/lam.cpp" <<-'CPP'
	#include <algorithm>
	#include <cstdio>
	#include <string>
	#include <vector>
	template <typename T>
	static inline long count_long(const std::vector<T> &v, size_t min)
	{
		return std::count_if(v.begin(), v.end(),
			[min](const T &s) __attribute__((noinline)) {
				std::string t(s);
				t += "!";
				return t.size() > min;
			});
	}
	static int run(int argc)
	{
		struct Local {
			std::vector<std::string> words;
			__attribute__((noinline)) long longer(size_t n) const
			{
				auto f = [&](const std::string &w) __attribute__((noinline)) {
					std::string u = w + w;
					return u.size() > n;
				};
				return std::count_if(words.begin(), words.end(), f);
			}
		};
		Local l{{"alpha", "beta", "gamma", "delta"}};
		return (int)(l.longer(argc) + count_long(l.words, argc));
	}
	int main(int argc, char **argv)
	{
		printf("%d\n", run(argc));
		return 0;
	}
	CPP
	g++ -O2 -g -o "$TMP/lam" "$TMP/lam.cpp"
	f="$TMP/lam"
	# Every instruction of the two operator() (not their .cold parts).
	nm -S "$f" | awk '$4 ~ /Ul.*E_clE/ && $4 !~ /cold/ { print $1, $2 }' >"$TMP/fns"
	[ "$(wc -l <"$TMP/fns")" -eq 2 ]
	while read -r a s; do
		insns "$f" "$a" "$(printf '%x' $((0x$a + 0x$s)))"
	done <"$TMP/fns" >"$TMP/addrs"
	offs "$f" <"$TMP/addrs" >"$TMP/in"
	sed 's/^/0x/' "$TMP/addrs" | llvm-symbolizer --obj="$f" --inlines --demangle >"$TMP/llvm"
	"$SYM" --leaf --inlines --demangle "$TMP/in" >"$TMP/ours"
	# The reference does see inline frames there: the check means something.
	[ "$(awk 'NF == 0 { if (n > 2) k++; n = 0; next } { n++ } END { print k + 0 }' "$TMP/llvm")" -gt 30 ]
	run python3 "$COMPARE" --min=99 "$TMP/ours" "$TMP/llvm" "$f"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '\[inlined\]' "$TMP/ours"
}

@test "inlines: a call inlined inside nested blocks (DW_TAG_lexical_block) agrees with llvm-symbolizer" {
	need gcc llvm-symbolizer python3 readelf
	cat >"$TMP/lb.c" <<-'C'
	#include <stdio.h>
	static inline __attribute__((always_inline)) int sq(int x)
	{
		return x * x + 1;
	}
	__attribute__((noinline)) int sum(int n)
	{
		int s = 0;

		for (int i = 0; i < n; i++) {
			volatile int t = i;

			s += sq(t);
		}
		return s;
	}
	int main(int argc, char **argv)
	{
		printf("%d\n", sum(argc * 10));
		return 0;
	}
	C
	gcc -O2 -g -o "$TMP/lb" "$TMP/lb.c"
	f="$TMP/lb"
	# Precondition: the inlined call sits in a block inside a block
	readelf --debug-dump=info "$f" | grep -E '^ <[0-9]+><' |
		grep -A1 '<3><.*DW_TAG_lexical_block' | grep -q '<4><.*DW_TAG_variable\|<4><.*DW_TAG_inlined_subroutine'
	set -- $(sym_range "$f" sum)
	insns "$f" "$1" "$2" >"$TMP/addrs"
	offs "$f" <"$TMP/addrs" >"$TMP/in"
	sed 's/^/0x/' "$TMP/addrs" | llvm-symbolizer --obj="$f" --inlines >"$TMP/llvm"
	"$SYM" --leaf --inlines "$TMP/in" >"$TMP/ours"
	grep -qx sq "$TMP/llvm"
	grep -q '^sq .*\[inlined\]' "$TMP/ours"
	run python3 "$COMPARE" --min=100 "$TMP/ours" "$TMP/llvm" "$f"
	echo "$output"
	[ "$status" -eq 0 ]
}

# A function defined inside another (GNU C) is a subprogram DIE inside
# code: walked as a function of its own, set aside until its parent's
# subtree is done.
@test "inlines: a GNU C nested function's inlined calls agree with llvm-symbolizer" {
	need gcc llvm-symbolizer python3
	cat >"$TMP/nest.c" <<-'C'
	#include <stdio.h>
	static inline __attribute__((always_inline)) int sq(int x)
	{
		return x * x + 1;
	}
	__attribute__((noinline)) int outer(int n)
	{
		__attribute__((noinline)) int inner(int y)
		{
			return sq(y) + n;
		}
		return inner(n) * 2 + inner(n + 1);
	}
	int main(int argc, char **argv)
	{
		printf("%d\n", outer(argc));
		return 0;
	}
	C
	gcc -O2 -g -o "$TMP/nest" "$TMP/nest.c"
	f="$TMP/nest"
	set -- $(sym_range "$f" inner.0)
	insns "$f" "$1" "$2" >"$TMP/addrs"
	offs "$f" <"$TMP/addrs" >"$TMP/in"
	sed 's/^/0x/' "$TMP/addrs" | llvm-symbolizer --obj="$f" --inlines >"$TMP/llvm"
	"$SYM" --leaf --inlines "$TMP/in" >"$TMP/ours"
	grep -qx sq "$TMP/llvm"
	grep -q '^sq .*\[inlined\]' "$TMP/ours"
	run python3 "$COMPARE" --min=100 "$TMP/ours" "$TMP/llvm" "$f"
	echo "$output"
	[ "$status" -eq 0 ]
}

# --- 2. Untyped labels

@test "labels: an untyped label after an unsized function is named, as llvm-symbolizer does" {
	need gcc llvm-symbolizer
	cat >"$TMP/lab.c" <<-'C'
	/* Hand-written assembly: an unsized function, then untyped labels. */
	__asm__(".text\n"
		".globl nosize_fn\n"
		".type nosize_fn, @function\n"
		"nosize_fn:\n"
		"	push %rbp\n	mov %rsp, %rbp\n	nop\n	nop\n	nop\n"
		"	nop\n	nop\n	nop\n	nop\n	nop\n	nop\n	pop %rbp\n"
		"after_label:\n"
		"	nop\n	nop\n	nop\n	ret\n"
		".globl global_label\n"
		"global_label:\n"
		"	nop\n	nop\n	ret\n");
	void nosize_fn(void);
	/* A label inside a function with a size does not name its code. */
	__attribute__((noinline)) int sized_fn(int x)
	{
		x *= 3;
		__asm__ volatile("inner_label:");
		return x + 1;
	}
	int main(int argc, char **argv)
	{
		return sized_fn(argc);
	}
	C
	gcc -O1 -g -o "$TMP/lab" "$TMP/lab.c"
	f="$TMP/lab"
	# Preconditions: untyped, sizeless labels right after nosize_fn.
	readelf -sW "$f" | awk '$8 == "after_label" || $8 == "global_label" || $8 == "inner_label"' >"$TMP/syms"
	[ "$(awk '$3 == 0 && $4 == "NOTYPE"' "$TMP/syms" | wc -l)" -eq 3 ]
	[ "$(readelf -sW "$f" | awk '$8 == "nosize_fn" { print $3 }')" = 0 ]
	start=$(sym_addr "$f" nosize_fn)
	set -- $(sym_range "$f" sized_fn)
	{
		insns "$f" "$start" "$(printf '%x' $((0x$(sym_addr "$f" global_label) + 4)))"
		insns "$f" "$1" "$2"
	} >"$TMP/addrs"
	offs "$f" <"$TMP/addrs" >"$TMP/in"
	sed 's/^/0x/' "$TMP/addrs" | llvm-symbolizer --obj="$f" --no-inlines |
		awk 'NR % 3 == 1' >"$TMP/llvm"
	"$SYM" --leaf "$TMP/in" | ours_names >"$TMP/ours"
	grep -qx after_label "$TMP/llvm"
	grep -qx global_label "$TMP/llvm"
	diff -u "$TMP/llvm" "$TMP/ours"
}

# --- 3. Source paths

# path_prog DIR: DIR/src/sub/main.c including DIR/src/inc/sq.h, built in
# DIR/src/sub with -I../inc; extra gcc arguments follow.
path_prog() {
	local d=$1

	shift
	mkdir -p "$d/src/sub" "$d/src/inc"
	cat >"$d/src/inc/sq.h" <<-'C'
	static inline int sq(int x)
	{
		return x * x + 1;
	}
	C
	cat >"$d/src/sub/main.c" <<-'C'
	#include "sq.h"
	__attribute__((noinline)) int twice_sq(int x)
	{
		return sq(x) + sq(x + 1);
	}
	int main(int argc, char **argv)
	{
		return twice_sq(argc);
	}
	C
	(cd "$d/src/sub" && gcc -O2 -g -I../inc "$@" -o prog main.c)
}

# frame_paths FILE: "file:line" of every frame (inlined ones too) for
# each instruction of twice_sq; llvm-symbolizer's into $TMP/llvm.paths,
# ours into $TMP/ours.paths, the reference's first.
frame_paths() {
	local f=$1

	set -- $(sym_range "$f" twice_sq)
	insns "$f" "$1" "$2" >"$TMP/addrs"
	offs "$f" <"$TMP/addrs" >"$TMP/in"
	sed 's/^/0x/' "$TMP/addrs" | llvm-symbolizer --obj="$f" --inlines |
		awk 'NF && ++n % 2 == 0 { sub(/:[0-9]+$/, ""); print }' >"$TMP/llvm.paths"
	"$SYM" --leaf --inlines --lines "$TMP/in" |
		sed -E 's/ \[inlined\]$//; s/.* //' >"$TMP/ours.paths"
}

@test "source paths: joined with the compile and include directories, as llvm-symbolizer prints them" {
	need gcc llvm-symbolizer
	path_prog "$TMP"
	frame_paths "$TMP/src/sub/prog"
	# The inlined header function is there, from its own directory.
	grep -qx "$TMP/src/sub/../inc/sq.h:[0-9]*" "$TMP/llvm.paths"
	diff -u "$TMP/llvm.paths" "$TMP/ours.paths"
}

@test "source paths: a compile directory ending in '/' is joined without doubling it, as llvm-symbolizer does" {
	need gcc llvm-symbolizer
	# the map leaves DW_AT_comp_dir "/srcroot/sub/"; the include
	# directory "../inc" stays relative to it
	path_prog "$TMP" -fdebug-prefix-map="$TMP/src/sub=/srcroot/sub/"
	readelf --debug-dump=info "$TMP/src/sub/prog" | grep -q 'DW_AT_comp_dir.*: /srcroot/sub/$'
	frame_paths "$TMP/src/sub/prog"
	grep -qx '/srcroot/sub/\.\./inc/sq\.h:[0-9]*' "$TMP/ours.paths"
	diff -u "$TMP/llvm.paths" "$TMP/ours.paths"
}

@test "source paths: a relative compile directory (-fdebug-prefix-map) gives paths that open from the source root" {
	need gcc llvm-symbolizer
	path_prog "$TMP" -fdebug-prefix-map="$TMP/src=."
	frame_paths "$TMP/src/sub/prog"
	# Every path we print is a file, seen from the root of the sources.
	grep -q '^\./sub/\.\./inc/sq\.h:' "$TMP/ours.paths"
	grep -q '^\./sub/main\.c:' "$TMP/ours.paths"
	(cd "$TMP/src" && while IFS=: read -r p l; do
		[ -f "$p" ] || { echo "cannot open $p" >&2; exit 1; }
	done <"$TMP/ours.paths")
	# The same as llvm-symbolizer, but where llvm-symbolizer 14 repeats
	# the compile directory for files of that directory (DWARF 5 entry 0),
	# which gives a path that does not open.
	grep -q '^\./sub/\./sub/main\.c:' "$TMP/llvm.paths"
	sed 's,^\./sub/\./sub/,./sub/,' "$TMP/llvm.paths" | diff -u - "$TMP/ours.paths"
}

# --- 4. PLT stubs

# plt_check FILE: every stub of .plt, .plt.sec and .plt.got (each byte)
# has the name objdump gives it (f@plt), and nothing where objdump has
# none; every name perf lists for the file is among ours.
plt_check() {
	local f=$1 start size ent name

	readelf -SW "$f" | sed -n 's/^ *\[ *[0-9]*\] \(\.plt[.a-z]*\) .*$/&/p' |
		awk '{ sub(/^ *\[ *[0-9]*\] /, ""); print $1, $3, $5, $6 }' >"$TMP/secs"
	[ -s "$TMP/secs" ]
	objdump -d "$f" -j .plt -j .plt.sec -j .plt.got 2>/dev/null |
		awk '/^[0-9a-f]+ <.*@plt>:$/ { a = $1; n = $2; gsub(/[<>:]/, "", n);
			if (n !~ /^\*ABS\*/) print a, n }' >"$TMP/objdump"
	[ -s "$TMP/objdump" ]
	: >"$TMP/addrs"
	: >"$TMP/want"
	while read -r name start size ent; do
		ent=$((0x$ent))
		[ "$ent" -ge 8 ] || ent=16
		for ((a = 0x$start; a < 0x$start + 0x$size; a++)); do
			s=$(printf '%016x' $((a - (a - 0x$start) % ent)))
			printf '%x\n' "$a" >>"$TMP/addrs"
			awk -v s="$s" '$1 == s { print $2; f = 1 } END { if (!f) print "[unknown]" }' \
				"$TMP/objdump" >>"$TMP/want"
		done
	done <"$TMP/secs"
	offs "$f" <"$TMP/addrs" >"$TMP/in"
	"$SYM" --leaf "$TMP/in" | ours_names >"$TMP/ours"
	diff -u "$TMP/want" "$TMP/ours"
	if command -v perf >/dev/null; then
		perf probe -x "$f" -F --no-demangle --filter='*' 2>/dev/null |
			grep '@plt$' >"$TMP/perf" || true
		[ -s "$TMP/perf" ] || { echo "perf lists no @plt name" >&2; return 1; }
		sort -u "$TMP/ours" >"$TMP/ours.set"
		comm -23 <(sort -u "$TMP/perf") "$TMP/ours.set" >"$TMP/missing"
		[ ! -s "$TMP/missing" ] || { cat "$TMP/missing" >&2; return 1; }
	fi
}

plt_prog() {
	cat >"$TMP/plt.c" <<-'C'
	#include <stdio.h>
	#include <stdlib.h>
	#include <string.h>
	static int cmp(const void *a, const void *b)
	{
		return *(const int *)a - *(const int *)b;
	}
	int main(int argc, char **argv)
	{
		int v[4] = { 3, 1, 2, argc };
		qsort(v, 4, sizeof(v[0]), cmp);
		printf("%d %zu\n", v[0], strlen(argv[0]));
		puts(getenv("HOME") ? "home" : "none");
		return 0;
	}
	C
}

@test "PLT: lazy .plt and .plt.got stubs are func@plt, as objdump and perf name them" {
	need gcc objdump
	plt_prog
	gcc -O1 -o "$TMP/plt" "$TMP/plt.c"
	plt_check "$TMP/plt"
	# A PLT name is looked up, not guessed: the stubs are [unknown] without it.
	grep -q 'qsort@plt' "$TMP/ours"
}

@test "PLT: IBT stubs (.plt.sec) and -z now are func@plt, as objdump and perf name them" {
	need gcc objdump
	plt_prog
	gcc -O1 -fcf-protection=full -Wl,-z,ibtplt -o "$TMP/ibt" "$TMP/plt.c"
	readelf -SW "$TMP/ibt" | grep -q '\.plt\.sec' || skip "linker made no .plt.sec"
	plt_check "$TMP/ibt"
	gcc -O1 -Wl,-z,now -o "$TMP/now" "$TMP/plt.c"
	plt_check "$TMP/now"
}

@test "PLT: MPX 'bnd jmp' stubs (ld -z bndplt, gone from today's ld) are func@plt" {
	need gcc objdump
	plt_prog
	gcc -O1 -fcf-protection=full -Wl,-z,ibtplt -o "$TMP/ibt" "$TMP/plt.c"
	readelf -SW "$TMP/ibt" | grep -q '\.plt\.sec' || skip "linker made no .plt.sec"
	plt_check "$TMP/ibt"
	# the stubs as old linkers wrote them: endbr64, then the jump with the
	# bnd prefix (f2), its displacement one less, a 5-byte nop
	python3 - "$TMP/ibt" "$TMP/bnd" <<-'PY'
	import subprocess, sys
	src, dst = sys.argv[1:3]
	data = bytearray(open(src, "rb").read())
	for l in subprocess.run(["readelf", "-SW", src], capture_output=True,
	            text=True).stdout.splitlines():
	    x = l.replace("[ ", "[").split()
	    if len(x) > 6 and x[1] == ".plt.sec":
	        off, size = int(x[4], 16), int(x[5], 16)
	n = 0
	for e in range(off, off + size, 16):
	    b = data[e:e + 16]
	    if b[0:6] != b"\xf3\x0f\x1e\xfa\xff\x25" or b[10] != 0x66:
	        continue
	    disp = int.from_bytes(b[6:10], "little", signed=True) - 1
	    data[e + 4:e + 16] = b"\xf2\xff\x25" + disp.to_bytes(4, "little", signed=True) + b[11:16]
	    n += 1
	assert n, "no stub patched"
	open(dst, "wb").write(data)
	PY
	sed "s|^$TMP/ibt	|$TMP/bnd	|" "$TMP/in" >"$TMP/in.bnd"
	"$SYM" --leaf "$TMP/in.bnd" | ours_names >"$TMP/ours.bnd"
	diff -u "$TMP/want" "$TMP/ours.bnd"
}

@test "PLT: a .plt.got without an entry size has 8-byte stubs; a stub through a slot no relocation names is [unknown]" {
	need gcc objdump
	plt_prog
	gcc -O1 -o "$TMP/plt" "$TMP/plt.c"
	readelf -SW "$TMP/plt" | grep -q '\.plt\.got' || skip "linker made no .plt.got"
	plt_check "$TMP/plt"
	# sh_entsize 0 (the field is optional): the stubs keep their names
	python3 - "$TMP/plt" "$TMP/noent" <<-'PY'
	import struct, sys
	src, dst = sys.argv[1:3]
	d = bytearray(open(src, "rb").read())
	shoff, = struct.unpack_from("<Q", d, 0x28)
	shnum, shstrndx = struct.unpack_from("<HH", d, 0x3c)
	stroff, = struct.unpack_from("<Q", d, shoff + 64 * shstrndx + 24)
	for i in range(shnum):
	    h = shoff + 64 * i
	    name, = struct.unpack_from("<I", d, h)
	    if d[stroff + name:].split(b"\0")[0] == b".plt.got":
	        struct.pack_into("<Q", d, h + 56, 0)
	open(dst, "wb").write(d)
	PY
	sed "s|^$TMP/plt	|$TMP/noent	|" "$TMP/in" >"$TMP/in.noent"
	"$SYM" --leaf "$TMP/in.noent" | ours_names >"$TMP/ours.noent"
	diff -u "$TMP/want" "$TMP/ours.noent"
	# the first .plt.got stub made to jump through .got.plt's first slot
	# (the dynamic section's address, no relocation): not named, not guessed
	python3 - "$TMP/plt" "$TMP/noslot" >"$TMP/in.noslot" <<-'PY'
	import subprocess, sys
	src, dst = sys.argv[1:3]
	d = bytearray(open(src, "rb").read())
	secs = {}
	for l in subprocess.run(["readelf", "-SW", src], capture_output=True,
	                        text=True).stdout.splitlines():
	    x = l.replace("[ ", "[").split()
	    if len(x) > 6 and x[1].startswith("."):
	        secs[x[1]] = (int(x[3], 16), int(x[4], 16))
	addr, off = secs[".plt.got"]
	got = secs[".got.plt"][0] if ".got.plt" in secs else secs[".got"][0]
	i = 4 if d[off:off + 4] == b"\xf3\x0f\x1e\xfa" else 0
	assert d[off + i:off + i + 2] == b"\xff\x25"
	d[off + i + 2:off + i + 6] = (got - (addr + i + 6)).to_bytes(4, "little", signed=True)
	open(dst, "wb").write(d)
	print("%s\t0x%x" % (dst, off))
	PY
	run "$SYM" --leaf "$TMP/in.noslot"
	echo "$output"
	[ "$(ours_names <<< "$output")" = "[unknown]" ]
}

@test "PLT: stubs of a shared library, demangled (name, then @plt) as objdump -C names them" {
	need g++ objdump
	cat >"$TMP/lib.cpp" <<-'CPP'
	#include <string>
	#include <vector>
	std::string join(const std::vector<std::string> &v)
	{
		std::string r;
		for (const auto &s : v)
			r += s;
		return r;
	}
	CPP
	g++ -O1 -fPIC -shared -o "$TMP/libj.so" "$TMP/lib.cpp"
	plt_check "$TMP/libj.so"
	# Demangled: objdump -C names the same stubs.
	objdump -d -C "$TMP/libj.so" -j .plt -j .plt.sec -j .plt.got 2>/dev/null |
		awk '/^[0-9a-f]+ <.*@plt>:$/ { sub(/^[0-9a-f]+ </, ""); sub(/>:$/, ""); print }' |
		sort -u >"$TMP/objdump.C"
	offs "$TMP/libj.so" <"$TMP/addrs" | "$SYM" --leaf --demangle |
		sed -E 's/\+0x[0-9a-f]+ \([^)]*\)$//' | grep '@plt$' | sort -u >"$TMP/ours.C"
	grep -q '^std::.*)@plt$' "$TMP/ours.C"
	diff -u "$TMP/objdump.C" "$TMP/ours.C"
}

# --- DWARF-only functions

@test "DWARF only: a function the symbol table lacks is named from DWARF, offsets from its first byte" {
	need gcc llvm-symbolizer
	cat >"$TMP/ns.c" <<-'C'
	__attribute__((noinline)) int first(int x) { return x * 7 - 2; }
	__attribute__((noinline)) int hidden(int x) { return (x * 3 + 1) / (x | 1); }
	__attribute__((noinline)) int outer(int x) { return hidden(x) ^ first(x); }
	int main(int argc, char **argv) { return outer(argc); }
	C
	gcc -O2 -g -o "$TMP/ns" "$TMP/ns.c"
	objcopy --strip-symbol=hidden "$TMP/ns" "$TMP/nosym"
	f="$TMP/nosym"
	# after a sized function: no symbol of the table covers it
	set -- $(sym_range "$TMP/ns" hidden)
	[ -z "$(sym_addr "$f" hidden)" ]
	insns "$f" "$1" "$2" >"$TMP/addrs"
	[ "$(wc -l <"$TMP/addrs")" -gt 2 ]
	sed 's/^/0x/' "$TMP/addrs" | llvm-symbolizer --obj="$f" --no-inlines |
		awk 'NR % 3 == 1' | sort -u >"$TMP/llvm"
	[ "$(cat "$TMP/llvm")" = hidden ]
	# (DWARF is read for lines: names mode reads none)
	offs "$f" <"$TMP/addrs" | "$SYM" --leaf --lines | sed 's/) .*/)/' >"$TMP/ours"
	while read -r a; do
		printf 'hidden+0x%x (nosym)\n' $((0x$a - 0x$1))
	done <"$TMP/addrs" | diff -u - "$TMP/ours"
}

# --- 5. Padding between functions

@test "padding: bytes between functions are [unknown] with the line llvm-symbolizer gives" {
	need gcc llvm-symbolizer
	cat >"$TMP/pad.c" <<-'C'
	__attribute__((noinline)) int f1(int x) { return x * 3 + 1; }
	__attribute__((noinline)) int f2(int x) { return f1(x) ^ 5; }
	__attribute__((noinline)) int f3(int x) { return f2(x) + f1(x - 1); }
	int main(int argc, char **argv) { return f3(argc); }
	C
	gcc -O2 -g -falign-functions=64 -o "$TMP/pad" "$TMP/pad.c"
	f="$TMP/pad"
	# Padding: from the end of f1, f2, f3 to the next symbol.
	nm -nS "$f" | awk '$(NF - 1) ~ /^[tT]$/ { print $1, (NF == 4 ? $2 : 0), $NF }' >"$TMP/nm"
	end=
	while read -r a sz name; do
		if [ -n "$end" ]; then
			for ((x = end; x < 0x$a; x++)); do printf '%x\n' "$x"; done
		fi
		end=
		case $name in f1|f2|f3) end=$((0x$a + 0x$sz)) ;; esac
	done <"$TMP/nm" >"$TMP/addrs"
	[ "$(wc -l <"$TMP/addrs")" -gt 20 ]
	offs "$f" <"$TMP/addrs" >"$TMP/in"
	sed 's/^/0x/' "$TMP/addrs" | llvm-symbolizer --obj="$f" --no-inlines |
		awk 'NR % 3 == 1 { n = $0 } NR % 3 == 2 { sub(/:[0-9]+$/, "");
			print (n == "??" ? "[unknown]" : n), ($0 ~ /^\?\?:0/ ? "-" : $0) }' >"$TMP/llvm"
	# llvm-symbolizer has no name there but a line for some of them.
	[ "$(grep -c '^\[unknown\] /' "$TMP/llvm")" -gt 10 ]
	"$SYM" --leaf --lines "$TMP/in" |
		awk '{ print $1, (NF > 2 ? $3 : "-") }' >"$TMP/ours"
	diff -u "$TMP/llvm" "$TMP/ours"
}

# --- 6. --debug-dir

# debug_prog DIR: DIR/prog stripped, DIR/prog.debug its debug file;
# $ID its build id, $IN frames of three functions, $TMP/llvm the answer
# of llvm-symbolizer on the unstripped program.
debug_prog() {
	mkdir -p "$1"
	cat >"$TMP/d.c" <<-'C'
	__attribute__((noinline)) static int inner(int x) { return x * 7; }
	__attribute__((noinline)) int middle(int x) { return inner(x) + 1; }
	int main(int argc, char **argv) { return middle(argc); }
	C
	gcc -O1 -g -o "$TMP/full" "$TMP/d.c"
	objcopy --only-keep-debug "$TMP/full" "$1/prog.debug"
	strip -o "$1/prog" "$TMP/full"
	ID=$(readelf -n "$TMP/full" | awk '/Build ID:/ { print $3 }')
	for s in inner middle main; do
		printf '%x\n' $((0x$(sym_addr "$TMP/full" "$s") + 2))
	done >"$TMP/addrs"
	IN="$TMP/in"
	offs "$1/prog" <"$TMP/addrs" >"$IN"
	sed 's/^/0x/' "$TMP/addrs" | llvm-symbolizer --obj="$TMP/full" --no-inlines |
		awk 'NR % 3 == 1 { n = $0 } NR % 3 == 2 { sub(/:[0-9]+$/, ""); print n, $0 }' >"$TMP/llvm"
	# Without a debug directory the static function has no name.
	"$SYM" --leaf --no-debuginfod "$IN" | head -1 | grep -q '^\[unknown\]'
}

# dd_check ARGS...: names and file:line with ARGS equal llvm-symbolizer's.
dd_check() {
	"$SYM" --leaf --lines --no-debuginfod "$@" "$IN" |
		awk '{ sub(/\+0x[0-9a-f]+$/, "", $1); print $1, $3 }' >"$TMP/ours"
	diff -u "$TMP/llvm" "$TMP/ours"
}

@test "--debug-dir: DIR/.build-id/xx/rest.debug, as gdb's debug-file-directory" {
	need gcc llvm-symbolizer
	debug_prog "$TMP/app"
	mkdir -p "$TMP/dbg/.build-id/${ID:0:2}"
	mv "$TMP/app/prog.debug" "$TMP/dbg/.build-id/${ID:0:2}/${ID:2}.debug"
	dd_check --debug-dir "$TMP/nothing" --debug-dir "$TMP/dbg"
}

@test "--debug-dir: .gnu_debuglink name in DIR/<the file's directory>/ and DIR/" {
	need gcc llvm-symbolizer
	debug_prog "$TMP/app"
	objcopy --add-gnu-debuglink="$TMP/app/prog.debug" "$TMP/app/prog"
	mkdir -p "$TMP/dbg$TMP/app"
	mv "$TMP/app/prog.debug" "$TMP/dbg$TMP/app/prog.debug"
	dd_check --debug-dir "$TMP/dbg"
	mv "$TMP/dbg$TMP/app/prog.debug" "$TMP/dbg/prog.debug"
	dd_check --debug-dir "$TMP/dbg"
	# A link whose CRC does not match is not taken.
	printf 'x' >>"$TMP/dbg/prog.debug"
	run "$SYM" --leaf --no-debuginfod --debug-dir "$TMP/dbg" "$IN"
	[[ "${lines[0]}" == "[unknown]"* ]]
}

@test "--debug-dir: perf's build-id cache (perf buildid-cache -a)" {
	need gcc llvm-symbolizer perf
	debug_prog "$TMP/app"
	# perf keeps what it is given; give it the unstripped program.
	HOME="$TMP/home" perf buildid-cache -a "$TMP/full" 2>/dev/null ||
		skip "perf buildid-cache failed"
	[ -e "$TMP/home/.debug/.build-id/${ID:0:2}/${ID:2}" ]
	dd_check --debug-dir "$TMP/home/.debug"
}

@test "--debug-dir: trace-cmd ustack report finds a stripped binary's debug file" {
	data="$ROOT/tests/data"
	[ -f "$data/deep-deferred.dat" ] || skip "no tests/data/deep-deferred.dat fixture"
	us="$ROOT/tracecmd/trace-cmd-ustack"
	want=$("$us" report -q -i "$data/deep-deferred.dat" --symfs "$data/symfs" --folded)
	[[ "$want" == *chain_20* ]]
	# The same files, the program stripped, its debug file by build id.
	cp -a "$data/symfs" "$TMP/symfs"
	f="$TMP/symfs/tmp/ustack-fixtures/deep"
	id=$(readelf -n "$f" | awk '/Build ID:/ { print $3 }')
	mkdir -p "$TMP/dbg/.build-id/${id:0:2}"
	objcopy --only-keep-debug "$f" "$TMP/dbg/.build-id/${id:0:2}/${id:2}.debug"
	strip --strip-all "$f"
	run "$us" report -q -i "$data/deep-deferred.dat" --symfs "$TMP/symfs" --folded --no-debuginfod
	[[ "$output" != *chain_20* ]]
	run "$us" report -q -i "$data/deep-deferred.dat" --symfs "$TMP/symfs" --folded \
		--no-debuginfod --debug-dir "$TMP/dbg"
	[ "$output" = "$want" ]
}

# --- 7. MiniDebugInfo

# minidebug IN OUT: OUT is IN stripped, with a .gnu_debugdata made as
# Fedora's find-debuginfo makes it: the function symbols of .symtab that
# .dynsym lacks, in an xz-compressed ELF.
minidebug() {
	nm -D "$1" --format=posix --defined-only | awk '{ print $1 }' | sort >"$TMP/dynsyms"
	nm "$1" --format=sysv --defined-only |
		awk -F'|' '$4 ~ "FUNC" { sub(/ +$/, "", $1); print $1 }' | sort >"$TMP/funcsyms"
	comm -13 "$TMP/dynsyms" "$TMP/funcsyms" >"$TMP/keep"
	objcopy --only-keep-debug "$1" "$TMP/debug"
	objcopy -S --remove-section .gdb_index --remove-section .comment \
		--keep-symbols="$TMP/keep" "$TMP/debug" "$TMP/mini"
	rm -f "$TMP/mini.xz"
	xz "$TMP/mini"
	strip --strip-all -R .comment -o "$2" "$1"
	objcopy --add-section .gnu_debugdata="$TMP/mini.xz" "$2"
}

@test "MiniDebugInfo: a library's local functions from .gnu_debugdata, weak templates from .dynsym, as llvm-symbolizer names them" {
	need g++ xz llvm-symbolizer python3
	cat >"$TMP/w.cpp" <<-'CPP'
	template <typename T> __attribute__((noinline)) T twice(T x) { asm(""); return x * 2; }
	template <typename T> struct Box { T v; __attribute__((noinline)) T get() const { asm(""); return v + 1; } };
	static __attribute__((noinline)) int local_fn(int x) { asm(""); return x + 3; }
	int exported(int x) { return twice(x) + Box<int>{x}.get() + local_fn(x) + (int)twice(1.5); }
	CPP
	g++ -O1 -g -fPIC -shared -o "$TMP/libw.so" "$TMP/w.cpp"
	minidebug "$TMP/libw.so" "$TMP/libmini.so"
	# The recipe leaves the weak templates out of .gnu_debugdata: only
	# .dynsym has them.
	grep -q '^_ZL8local_fni$' "$TMP/keep"
	! grep -q 'twice' "$TMP/keep"
	for s in _Z5twiceIiET_S0_ _Z5twiceIdET_S0_ _ZNK3BoxIiE3getEv _ZL8local_fni _Z8exportedi; do
		printf '%x\n' $((0x$(sym_addr "$TMP/libw.so" "$s") + 1))
	done >"$TMP/addrs"
	offs "$TMP/libmini.so" <"$TMP/addrs" >"$TMP/in"
	sed 's/^/0x/' "$TMP/addrs" | llvm-symbolizer --obj="$TMP/libw.so" --no-inlines --demangle >"$TMP/llvm"
	"$SYM" --leaf --demangle --no-debuginfod "$TMP/in" >"$TMP/ours"
	run python3 "$COMPARE" --min=100 "$TMP/ours" "$TMP/llvm" "$TMP/libw.so"
	echo "$output"
	[ "$status" -eq 0 ]
	# Which table each name came from.
	"$SYM" --leaf --verbose --no-debuginfod "$TMP/in" >"$TMP/verbose"
	cat "$TMP/verbose"
	grep -q '^_ZL8local_fni+0x1 (libmini.so) # .gnu_debugdata .symtab$' "$TMP/verbose"
	grep -q '^_Z5twiceIiET_S0_+0x1 (libmini.so) # .dynsym$' "$TMP/verbose"
}

@test "MiniDebugInfo: a weak template in neither table stays [unknown], not the function before it" {
	need g++ xz
	cat >"$TMP/w.cpp" <<-'CPP'
	template <typename T> __attribute__((noinline)) T twice(T x) { asm(""); return x * 2; }
	static __attribute__((noinline)) int local_fn(int x) { asm(""); return x + 3; }
	int main(int argc, char **argv) { return twice(argc) + local_fn(argc); }
	CPP
	g++ -O1 -o "$TMP/w" "$TMP/w.cpp"
	# An executable's weak symbols are not in .dynsym; take them out of the
	# mini table too (older recipes kept only T/t symbols).
	minidebug "$TMP/w" "$TMP/wmini"
	grep -v twice "$TMP/keep" >"$TMP/keep2"
	objcopy -S --keep-symbols="$TMP/keep2" "$TMP/debug" "$TMP/mini2"
	xz -f "$TMP/mini2"
	objcopy --remove-section .gnu_debugdata "$TMP/wmini"
	objcopy --add-section .gnu_debugdata="$TMP/mini2.xz" "$TMP/wmini"
	a=$(printf '%x' $((0x$(sym_addr "$TMP/w" _Z5twiceIiET_S0_) + 1)))
	l=$(printf '%x' $((0x$(sym_addr "$TMP/w" _ZL8local_fni) + 1)))
	printf '%s\n%s\n' "$a" "$l" | offs "$TMP/wmini" >"$TMP/in"
	run "$SYM" --leaf --no-debuginfod "$TMP/in"
	echo "$output"
	[ "${lines[0]}" = "[unknown] (wmini)" ]
	[ "${lines[1]}" = "_ZL8local_fni+0x1 (wmini)" ]
}
