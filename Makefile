# SPDX-License-Identifier: GPL-2.0
#
# trace-cmd-ustack: deferred user-space stacks for trace-cmd.
#
#   make                 build tracecmd/trace-cmd-ustack and the test programs
#   make check           host tests, the VM tests (patched kernel), 30 s of each
#                        fuzzer, five host files under ASan+UBSan (tests/run-tests)
#   make check-host      bats tests that run on this kernel
#   make check-vm        bats tests inside tests/vm (builds the kernel once)
#   make check-debug     the VM tests on the debug kernel, failing on any splat
#   make mutation        mutation score of the core files (tests/mutation/run);
#                        FILE=lib/x.c for the mutants of one file
#   make vm-stress       5.5 min of stress on the debug kernel (tests/vm/vm-stress)
#   make bench-kernel    bench/kernel/run: traced syscall costs in the VM (RESULTS.md)
#   make kernel-prefixes build and boot the kernel with each prefix of the series
#                        (and build it for i386 without CONFIG_UNWIND_USER)
#   make install         program, man page, bash completion, README and the kernel
#                        series under docdir; honours prefix and DESTDIR
#   make install-wrapper also install a `trace-cmd` dispatcher (opt-in)
#   make uninstall       remove what install and install-wrapper put there
#   make doc             regenerate the shipped man page (needs asciidoc)
#
# CFLAGS, CPPFLAGS and LDFLAGS are yours (default CFLAGS: -O2 -g); what the
# build needs is added to them. libdebuginfod is optional.
#   make fuzz            libFuzzer harnesses (tests/fuzz) under ASan+UBSan, each
#                        run FUZZ_SECONDS (default 600); make fuzz-smoke: 60 s
#                        (make check: 30 s)
#   make check-asan      host tests with an ASan+UBSan build of the tool
#   make stress-signals  60 rounds of signals at random moments (tests/signal-stress)
#   make demo            trace the bundled example program
#   make demo-vm         the same on the patched kernel, in the VM

prefix		?= /usr/local
bindir		?= $(prefix)/bin
mandir		?= $(prefix)/share/man
completiondir	?= $(prefix)/share/bash-completion/completions
docdir		?= $(prefix)/share/doc/trace-cmd-ustack
DESTDIR		?=

CC		?= gcc
PKG_CONFIG	?= pkg-config
CFLAGS		?= -O2 -g
V		?= 0

# Needed whatever the user's CFLAGS: our headers, glibc's extensions,
# dependency files, and the warnings the code is kept clean of. Frame
# pointers: the tests read our own stacks too.
BASE_CFLAGS	:= -Iinclude -D_GNU_SOURCE -MMD -MP \
		   -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
		   -Wmissing-prototypes -fno-omit-frame-pointer

PKGS		:= libtracefs libtraceevent libtracecmd libdw libelf liblzma zlib
# Debian package that provides each pkg-config module, for the error message.
pkg_deb_libtracefs	:= libtracefs-dev
pkg_deb_libtraceevent	:= libtraceevent-dev
pkg_deb_libtracecmd	:= libtracecmd-dev
pkg_deb_libdw		:= libdw-dev
pkg_deb_libelf		:= libelf-dev
pkg_deb_liblzma		:= liblzma-dev
pkg_deb_zlib		:= zlib1g-dev

ifeq ($(filter clean distclean help uninstall,$(MAKECMDGOALS)),)
# Optional: without it frames whose debug info is elsewhere stay unresolved.
ifeq ($(shell $(PKG_CONFIG) --exists libdebuginfod && echo y),y)
PKGS		+= libdebuginfod
BASE_CFLAGS	+= -DUSTACK_HAVE_DEBUGINFOD
else
$(info libdebuginfod not found: building without debuginfod support (Debian: libdebuginfod-dev))
endif
missing := $(strip $(foreach p,$(PKGS),$(if $(shell $(PKG_CONFIG) --exists $(p) && echo y),,$(p))))
ifneq ($(missing),)
$(error missing pkg-config module(s): $(missing); install Debian package(s): $(foreach p,$(missing),$(pkg_deb_$(p))) (or run scripts/install-deps))
endif
PKG_CFLAGS	:= $(shell $(PKG_CONFIG) --cflags $(PKGS))
# libdebuginfod is dlopen()ed at its first use (lib/ustack-resolve-debuginfod.c)
PKG_LIBS	:= $(shell $(PKG_CONFIG) --libs $(filter-out libdebuginfod,$(PKGS))) \
		   $(if $(filter libdebuginfod,$(PKGS)),-ldl)
# libiberty-dev (c++filt's demangler) has no .pc file: a header and a .a.
LIBIBERTY	:= $(filter /%,$(shell $(CC) -print-file-name=libiberty.a))
ifeq ($(and $(LIBIBERTY),$(wildcard /usr/include/libiberty/demangle.h)),)
$(error missing libiberty (libiberty.a, libiberty/demangle.h); install Debian package libiberty-dev (or run scripts/install-deps))
endif
endif

ALL_CFLAGS	= $(BASE_CFLAGS) $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS)
LIBS		= $(PKG_LIBS) $(LIBIBERTY) -lpthread

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRC		:= $(sort $(wildcard lib/*.c))
LIB_OBJ		:= $(LIB_SRC:.c=.o)
CMD_SRC		:= $(sort $(wildcard tracecmd/*.c))
CMD_OBJ		:= $(CMD_SRC:.c=.o)

PROGRAM		:= tracecmd/trace-cmd-ustack
# What --version prints; only the file that prints it is rebuilt for it
VERSION		:= 0.1
MANPAGE		:= Documentation/trace-cmd-ustack.1

all: $(PROGRAM) progs tools

# Everything is rebuilt when the flags change (other CFLAGS, debuginfod
# found or gone), as git does with GIT-CFLAGS.
BUILD_FLAGS	= $(CC) $(ALL_CFLAGS) $(LDFLAGS) $(LIBS)
.build-flags: FORCE
	@echo '$(BUILD_FLAGS)' | cmp -s - $@ || echo '$(BUILD_FLAGS)' > $@

lib/libustack.a: $(LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

%.o: %.c .build-flags
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

tracecmd/ustack-opts.o: ALL_CFLAGS += -DUSTACK_VERSION='"$(VERSION)"'
tracecmd/ustack-opts.o: Makefile

# The flame graph's script, embedded as a C string
lib/ustack-flamegraph-js.h: lib/ustack-flamegraph.js
	@echo "  GEN     $@"
	$(Q){ echo 'static const char ustack_flamegraph_js[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; \
	  echo ';'; } > $@
lib/ustack-flamegraph.o: lib/ustack-flamegraph-js.h

# System call names by number, from the headers of the machine built for
lib/ustack-syscalls-table.h: scripts/gen-syscalls-table .build-flags
	@echo "  GEN     $@"
	$(Q)scripts/gen-syscalls-table '$(CC)' > $@.tmp && mv $@.tmp $@
lib/ustack-syscalls.o: lib/ustack-syscalls-table.h

$(PROGRAM): $(CMD_OBJ) lib/libustack.a
	@echo "  LINK    $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(CMD_OBJ) lib/libustack.a $(LIBS)

# Test programs with known call chains (frame pointers on purpose).
progs:
	$(Q)$(MAKE) -s -C tests/progs

# Small drivers used by tests and bench (link against lib/libustack.a).
TOOL_SRC	:= $(sort $(wildcard tests/tools/*.c))
TOOL_BIN	:= $(TOOL_SRC:.c=)
tools: $(TOOL_BIN)
# They may test what is private to lib/ too (headers that only lib/ uses).
tests/tools/%: tests/tools/%.c lib/libustack.a .build-flags
	@echo "  LINK    $@"
	$(Q)$(CC) $(ALL_CFLAGS) -Ilib $(LDFLAGS) -o $@ $< lib/libustack.a $(LIBS)

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(TOOL_BIN:=.d) $(FUZZ_LIBOBJ:.o=.d)

check: all
	tests/run-tests

check-host: all
	tests/run-tests --host

check-vm: all
	tests/run-tests --vm

# The VM tests on the debug kernel (KASAN, lockdep, atomic-sleep checks):
# slower, and not part of check
check-debug: all
	tests/run-tests --vm-debug

# Not part of check; USTACK_STRESS_SECONDS (default 330) sets the length
vm-stress:
	tests/vm/vm-stress
.PHONY: vm-stress

# Not part of check (the host suite runs 10 rounds): 60 live and record
# runs, each sent signals at random moments; USTACK_SIGNAL_SEED repeats one
stress-signals: all
	tests/signal-stress 60
.PHONY: stress-signals

# Not part of check: each mutant of tests/mutation/mutants against the
# tests that cover its file (tests/README.md); long
mutation: all
	tests/mutation/run $(FILE)
.PHONY: mutation

# Not part of check: every prefix of kernel-patches/series builds and boots
# on x86-64 and builds on i386 without CONFIG_UNWIND_USER (bisection); two
# kernel builds and a VM boot per patch
kernel-prefixes:
	kernel-patches/build-prefixes
.PHONY: kernel-prefixes

# Not part of check: cost per traced system call in the VM, against the
# synchronous option and perf (bench/kernel/README.md); ~10 minutes
bench-kernel:
	bench/kernel/run
.PHONY: bench-kernel

# libFuzzer harnesses (tests/README.md, Reliability). The library is built again
# with clang and the sanitizers into .fuzz/, away from the normal objects.
FUZZ_CC		?= clang
FUZZ_SAN	:= -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS	= $(BASE_CFLAGS) -Ilib $(PKG_CFLAGS) -O1 -g $(FUZZ_SAN) \
		  -DFUZZ_DATA='"$(CURDIR)/tests/data"'
FUZZ_SRC	:= $(sort $(wildcard tests/fuzz/fuzz-*.c))
FUZZ_BIN	:= $(patsubst tests/fuzz/%.c,.fuzz/%,$(FUZZ_SRC))
FUZZ_LIBOBJ	:= $(patsubst lib/%.c,.fuzz/lib/%.o,$(LIB_SRC))
FUZZ_SECONDS	?= 600

.fuzz/lib/%.o: lib/%.c .build-flags
	@mkdir -p $(@D)
	@echo "  FUZZCC  $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<
.fuzz/lib/ustack-flamegraph.o: lib/ustack-flamegraph-js.h
.fuzz/lib/ustack-syscalls.o: lib/ustack-syscalls-table.h

.fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ_LIBOBJ)
	@echo "  FUZZLD  $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIBOBJ) $(LIBS)

fuzz-build: $(FUZZ_BIN)
# not intermediate files: kept for the next build
.SECONDARY: $(FUZZ_LIBOBJ)

# One harness at a time (the machine is shared): its corpus under
# .fuzz/corpus/, seeded from tests/fuzz/seeds/ (tests/fuzz/run), each
# harness one test of tests/run-tests --fuzz ("N passed, N failed")
fuzz: fuzz-build
	USTACK_FUZZ_SECONDS=$(FUZZ_SECONDS) tests/run-tests --fuzz

# Part of make check
fuzz-smoke: fuzz-build
	USTACK_FUZZ_SECONDS=60 tests/run-tests --fuzz

# The host tests against a copy of the tree built with ASan+UBSan (the
# test programs stay unsanitized: the tests read their stacks); part of
# make check
check-asan:
	tests/run-asan

.PHONY: fuzz fuzz-build fuzz-smoke check-asan

# The man page is shipped generated (make doc): installing needs no asciidoc.
install: $(PROGRAM)
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(mandir)/man1 $(DESTDIR)$(completiondir)
	install -m 0755 $(PROGRAM) $(DESTDIR)$(bindir)/trace-cmd-ustack
	install -m 0644 $(MANPAGE) $(DESTDIR)$(mandir)/man1/
	install -m 0644 completion/trace-cmd-ustack $(DESTDIR)$(completiondir)/trace-cmd-ustack
	install -d $(DESTDIR)$(docdir)/kernel-patches
	install -m 0644 README.md $(DESTDIR)$(docdir)/
	install -m 0644 kernel-patches/README.md kernel-patches/series kernel-patches/*.patch \
		$(DESTDIR)$(docdir)/kernel-patches/

# The completion of trace-cmd too: ours for `trace-cmd ustack`, trace-cmd's for the rest
install-wrapper: install
	install -m 0755 scripts/trace-cmd-wrapper $(DESTDIR)$(bindir)/trace-cmd
	install -m 0644 completion/trace-cmd-ustack $(DESTDIR)$(completiondir)/trace-cmd

# A trace-cmd that is not our wrapper (the real one) is left alone.
uninstall:
	rm -f $(DESTDIR)$(bindir)/trace-cmd-ustack $(DESTDIR)$(mandir)/man1/trace-cmd-ustack.1 \
		$(DESTDIR)$(completiondir)/trace-cmd-ustack
	rm -rf $(DESTDIR)$(docdir)
	if cmp -s scripts/trace-cmd-wrapper $(DESTDIR)$(bindir)/trace-cmd; then \
		rm -f $(DESTDIR)$(bindir)/trace-cmd; fi
	if cmp -s completion/trace-cmd-ustack $(DESTDIR)$(completiondir)/trace-cmd; then \
		rm -f $(DESTDIR)$(completiondir)/trace-cmd; fi

demo: all
	scripts/demo

demo-vm: all
	tests/vm/run -- scripts/demo

# asciidoc needs the distribution python3, not one found first in PATH
doc:
	PATH=/usr/bin:$$PATH a2x -f manpage -L $(MANPAGE).txt
	rm -f $(MANPAGE:.1=.xml)

clean:
	rm -f lib/*.o lib/*.d lib/libustack.a lib/ustack-flamegraph-js.h lib/ustack-syscalls-table.h tracecmd/*.o tracecmd/*.d $(PROGRAM) \
		$(TOOL_BIN) $(TOOL_BIN:=.d) .build-flags
	rm -rf .fuzz
	-$(MAKE) -s -C tests/progs clean

.PHONY: all progs tools check check-host check-vm check-debug install install-wrapper \
	uninstall demo demo-vm doc clean FORCE
