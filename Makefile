# SPDX-License-Identifier: GPL-2.0
#
# trace-cmd-ustack: deferred user-space stacks for trace-cmd.
#
#   make                 build tracecmd/trace-cmd-ustack and the test programs
#   make check           host tests, then the VM tests (patched kernel)
#   make check-host      bats tests that run on this kernel
#   make check-vm        bats tests inside tests/vm (builds the kernel once)
#   make check-debug     the VM tests on the debug kernel, failing on any splat
#   make install         honours prefix and DESTDIR
#   make install-wrapper also install a `trace-cmd` dispatcher (opt-in)
#   make demo            trace the bundled example program
#   make demo-vm         the same on the patched kernel, in the VM

prefix		?= /usr/local
bindir		?= $(prefix)/bin
mandir		?= $(prefix)/share/man
DESTDIR		?=

CC		?= gcc
PKG_CONFIG	?= pkg-config
CFLAGS		?= -O2 -g
CFLAGS		+= -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
		   -Wmissing-prototypes -fno-omit-frame-pointer -D_GNU_SOURCE \
		   -Iinclude
V		?= 0

PKGS		:= libtracefs libtraceevent libtracecmd libdw libelf libdebuginfod
# Debian package that provides each pkg-config module, for the error message.
pkg_deb_libtracefs	:= libtracefs-dev
pkg_deb_libtraceevent	:= libtraceevent-dev
pkg_deb_libtracecmd	:= libtracecmd-dev
pkg_deb_libdw		:= libdw-dev
pkg_deb_libelf		:= libelf-dev
pkg_deb_libdebuginfod	:= libdebuginfod-dev

ifeq ($(filter clean distclean help,$(MAKECMDGOALS)),)
missing := $(strip $(foreach p,$(PKGS),$(if $(shell $(PKG_CONFIG) --exists $(p) && echo y),,$(p))))
ifneq ($(missing),)
$(error missing pkg-config module(s): $(missing); install Debian package(s): $(foreach p,$(missing),$(pkg_deb_$(p))) (or run scripts/install-deps))
endif
PKG_CFLAGS	:= $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS	:= $(shell $(PKG_CONFIG) --libs $(PKGS))
# libiberty-dev (c++filt's demangler) has no .pc file: a header and a .a.
LIBIBERTY	:= $(filter /%,$(shell $(CC) -print-file-name=libiberty.a))
ifeq ($(and $(LIBIBERTY),$(wildcard /usr/include/libiberty/demangle.h)),)
$(error missing libiberty (libiberty.a, libiberty/demangle.h); install Debian package libiberty-dev (or run scripts/install-deps))
endif
endif

ALL_CFLAGS	= $(CFLAGS) $(PKG_CFLAGS)
LIBS		= $(PKG_LIBS) $(LIBIBERTY) -lpthread -llzma -lz

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRC		:= $(sort $(wildcard lib/*.c))
LIB_OBJ		:= $(LIB_SRC:.c=.o)
CMD_SRC		:= $(sort $(wildcard tracecmd/*.c))
CMD_OBJ		:= $(CMD_SRC:.c=.o)
HDRS		:= $(wildcard include/*.h lib/*.h)

PROGRAM		:= tracecmd/trace-cmd-ustack

all: $(PROGRAM) progs tools

lib/libustack.a: $(LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

%.o: %.c $(HDRS)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(PROGRAM): $(CMD_OBJ) lib/libustack.a
	@echo "  LINK    $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(CMD_OBJ) lib/libustack.a $(LIBS)

# Test programs with known call chains (frame pointers on purpose).
progs:
	$(Q)$(MAKE) -s -C tests/progs

# Small drivers used by tests and bench (link against lib/libustack.a).
TOOL_SRC	:= $(sort $(wildcard tests/tools/*.c))
TOOL_BIN	:= $(TOOL_SRC:.c=)
tools: $(TOOL_BIN)
tests/tools/%: tests/tools/%.c lib/libustack.a $(HDRS)
	@echo "  LINK    $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< lib/libustack.a $(LIBS)

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

install: $(PROGRAM)
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(mandir)/man1
	install -m 0755 $(PROGRAM) $(DESTDIR)$(bindir)/trace-cmd-ustack
	install -m 0644 Documentation/trace-cmd-ustack.1 $(DESTDIR)$(mandir)/man1/ 2>/dev/null || true

install-wrapper: install
	install -m 0755 scripts/trace-cmd-wrapper $(DESTDIR)$(bindir)/trace-cmd

demo: all
	scripts/demo

demo-vm: all
	tests/vm/run -- scripts/demo

doc: Documentation/trace-cmd-ustack.1

Documentation/trace-cmd-ustack.1: Documentation/trace-cmd-ustack.1.txt
	# asciidoc needs the distribution python3, not one found first in PATH
	PATH=/usr/bin:$$PATH a2x -f manpage -L $<

clean:
	rm -f lib/*.o lib/libustack.a tracecmd/*.o $(PROGRAM) $(TOOL_BIN)
	-$(MAKE) -s -C tests/progs clean

.PHONY: all progs tools check check-host check-vm check-debug install install-wrapper demo demo-vm doc clean
