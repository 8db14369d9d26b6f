# stax build. `make` builds the library and the tool; `make test` runs every test;
# `make install` installs them (docs/install.md).
# Variables: CC (gcc or clang), CFLAGS, CPPFLAGS, LDFLAGS, BUILD (output folder),
# SAN=1 (ASan+UBSan build), WERROR=1 (warnings are errors; `make test` sets it).

CC ?= cc
BUILD ?= build
OPT ?= -O2
# 64-bit file offsets on 32-bit targets too (files over 2 GiB, readdir on
# file systems with 64-bit inode numbers).
STD = -std=c11 -D_POSIX_C_SOURCE=200809L -D_FILE_OFFSET_BITS=64
WARN = -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes $(if $(filter 1,$(WERROR)),-Werror)
SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ifeq ($(SAN),1)
  OPT = -O1 -g
  EXTRA = $(SANFLAGS) -DSTAX_ABORT_ON_INTERNAL -DSTAX_SIMD_MAX=2
else
  # The shared library must resolve every symbol it uses (-lpthread included).
  SHLIB_CHECK = -Wl,--no-undefined
endif
# The tool reads the encodings the library does not through the C library's
# iconv (cli/decode.c): ICONV=0 builds it without, where there is none;
# ICONV_LIBS links a separate one (-liconv).
ICONV ?= 1
ICONV_LIBS ?=
CLI_DEFS = $(if $(filter 0,$(ICONV)),-DSTAX_CLI_NO_ICONV)
# Only the public API (STAXDEF in stax.h) leaves the shared library.
CFLAGS_ALL = $(STD) $(WARN) $(OPT) $(EXTRA) -fvisibility=hidden $(CPPFLAGS) $(CFLAGS)
LDFLAGS_ALL = $(EXTRA) $(LDFLAGS)
DEPFLAGS = -MMD -MP

LIB_SRC = format.c hash.c stax.c scan.c encoding.c namespaces.c dtd_store.c entities.c external.c dtd.c omitted.c reader_core.c reader_input.c reader_frame.c reader_tokens.c reader_fast.c reader_batch.c reader_context.c parallel.c writer.c select.c
# Private headers, in the order the single file inlines them.
LIB_HDR = stax_internal.h scan.h encoding.h namespaces.h dtd.h entities.h external.h encoding_tables.h reader.h reader_tag.h
LIB_OBJ = $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
PIC_OBJ = $(LIB_SRC:%.c=$(BUILD)/pic/%.o)
CLI_SRC = $(wildcard cli/*.c)
CLI_OBJ = $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
CLI_LIB_OBJ = $(filter-out $(BUILD)/obj/cli/main.o,$(CLI_OBJ))
UNIT_SRC = $(wildcard tests/test_*.c)
UNIT_ALL = $(UNIT_SRC) tests/harness.c
UNIT_OBJ = $(UNIT_ALL:%.c=$(BUILD)/obj/%.o)
# Unit tests wrap the allocator so fixed-block tests can prove malloc is never called.
WRAP_MALLOC = -Wl,--wrap=malloc -Wl,--wrap=realloc -Wl,--wrap=calloc -Wl,--wrap=free

# The version is written once, in stax.h; the soname and stax.pc take it from there.
version_part = $(shell sed -n 's/^\#define STAX_VERSION_$(1) \([0-9][0-9]*\)$$/\1/p' stax.h)
VERSION_MAJOR := $(call version_part,MAJOR)
VERSION := $(VERSION_MAJOR).$(call version_part,MINOR).$(call version_part,PATCH)
SONAME = libstax.so.$(VERSION_MAJOR)
SHLIB = libstax.so.$(VERSION)

# Installation (GNU conventions; DESTDIR for staging).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/stax
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INSTALL ?= install
INSTALL_PROGRAM ?= $(INSTALL)
INSTALL_DATA ?= $(INSTALL) -m 644

# The W3C suite, fetched once for every build folder.
XMLCONF = build/xmlconf

.PHONY: all lib single test test-lane-1 test-lane-2 unit conformance test-asan test-single test-nostdio test-usage test-layers test-clang \
	test-install test-symbols test-docs test-man test-encodings test-baremetal test-parts install uninstall deps clean bench bench-parallel main FORCE \
	test-cmake test-cpp test-ranges test-select-oracle dist test-dist python test-python bench-python
all: lib $(BUILD)/stax

lib: $(BUILD)/libstax.a $(BUILD)/libstax.so

# Objects are rebuilt when the compiler or its flags change, not only the sources.
$(BUILD)/cflags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC) $(CFLAGS_ALL)' | cmp -s - $@ || echo '$(CC) $(CFLAGS_ALL)' >$@

$(BUILD)/obj/%.o: %.c $(BUILD)/cflags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(DEPFLAGS) -I. -c $< -o $@

$(BUILD)/obj/cli/decode.o: cli/decode.c $(BUILD)/cflags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(CLI_DEFS) $(DEPFLAGS) -I. -c $< -o $@

$(BUILD)/pic/%.o: %.c $(BUILD)/cflags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(DEPFLAGS) -fPIC -I. -c $< -o $@

-include $(LIB_OBJ:.o=.d) $(PIC_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(BUILD)/obj/tests/conformance.d

$(BUILD)/libstax.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

# libstax.so.MAJOR.MINOR.PATCH with soname libstax.so.MAJOR, and the two links.
$(BUILD)/$(SHLIB): $(PIC_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) $(SHLIB_CHECK) $(LDFLAGS_ALL) -o $@ $^ -lpthread

$(BUILD)/libstax.so: $(BUILD)/$(SHLIB)
	ln -sf $(SHLIB) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $@

$(BUILD)/stax: $(CLI_OBJ) $(BUILD)/libstax.a
	$(CC) $(LDFLAGS_ALL) -o $@ $(CLI_OBJ) $(BUILD)/libstax.a -lpthread $(ICONV_LIBS)

# ---------------------------------------------------------------- single file
# SINGLE_LINE=1 adds #line directives that point at the source files.
single: $(BUILD)/stax.h

$(BUILD)/stax.h: stax.h $(LIB_HDR) $(LIB_SRC) tools/amalgamate.sh FORCE
	@mkdir -p $(BUILD)
	sh tools/amalgamate.sh $(if $(filter 1,$(SINGLE_LINE)),--line) $@ stax.h $(LIB_HDR) $(LIB_SRC)

# ---------------------------------------------------------------- install
# README.md in DOCDIR and docs/*.md in DOCDIR/docs (so the README's links
# hold); the man pages' references to docs/X.md name DOCDIR/docs/X.md.
DOC_FILES = $(wildcard docs/*.md)
MAN_SED = -e 's|Pa docs/|Pa $(DOCDIR)/docs/|g'
# The CMake package (LIBDIR/cmake/stax, where it finds the libraries at ../..
# and stax.h by the relative path below) from the templates CMakeLists.txt
# fills in too.
CMAKE_PKG_SED = -e 's|@STAX_VERSION@|$(VERSION)|g' -e 's|@STAX_VERSION_MAJOR@|$(VERSION_MAJOR)|g' \
	-e 's|@STAX_CONFIG_THREADS@|ON|' -e 's|@STAX_CONFIG_DEFINITIONS@||' \
	-e "s|@STAX_CONFIG_INCLUDEDIR@|$$(realpath -m --relative-to=$(LIBDIR)/cmake/stax $(INCLUDEDIR))|" \
	-e "s|@STAX_SIZEOF_VOID_P@|$$(echo __SIZEOF_POINTER__ | $(CC) $(CFLAGS_ALL) -E -P -x c -)|"
install: all
	@mkdir -p $(BUILD)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
	    -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' -e 's|@VERSION@|$(VERSION)|' \
	    stax.pc.in >$(BUILD)/stax.pc
	sed $(CMAKE_PKG_SED) cmake/staxConfig.cmake.in >$(BUILD)/staxConfig.cmake
	sed $(CMAKE_PKG_SED) cmake/staxConfigVersion.cmake.in >$(BUILD)/staxConfigVersion.cmake
	sed $(MAN_SED) man/stax.1 >$(BUILD)/stax.1
	sed $(MAN_SED) man/stax.3 >$(BUILD)/stax.3
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(LIBDIR)/cmake/stax $(DESTDIR)$(DOCDIR)/docs
	$(INSTALL_PROGRAM) $(BUILD)/stax $(DESTDIR)$(BINDIR)/stax
	$(INSTALL_DATA) $(BUILD)/libstax.a $(DESTDIR)$(LIBDIR)/libstax.a
	$(INSTALL) -m 755 $(BUILD)/$(SHLIB) $(DESTDIR)$(LIBDIR)/$(SHLIB)
	ln -sf $(SHLIB) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libstax.so
	$(INSTALL_DATA) stax.h $(DESTDIR)$(INCLUDEDIR)/stax.h
	$(INSTALL_DATA) $(BUILD)/stax.pc $(DESTDIR)$(PKGCONFIGDIR)/stax.pc
	$(INSTALL_DATA) $(BUILD)/staxConfig.cmake $(BUILD)/staxConfigVersion.cmake $(DESTDIR)$(LIBDIR)/cmake/stax
	$(INSTALL_DATA) $(BUILD)/stax.1 $(DESTDIR)$(MANDIR)/man1/stax.1
	$(INSTALL_DATA) $(BUILD)/stax.3 $(DESTDIR)$(MANDIR)/man3/stax.3
	$(INSTALL_DATA) README.md $(DESTDIR)$(DOCDIR)/README.md
	$(INSTALL_DATA) $(DOC_FILES) $(DESTDIR)$(DOCDIR)/docs

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/stax $(DESTDIR)$(LIBDIR)/libstax.a $(DESTDIR)$(LIBDIR)/$(SHLIB) \
	    $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libstax.so $(DESTDIR)$(INCLUDEDIR)/stax.h \
	    $(DESTDIR)$(PKGCONFIGDIR)/stax.pc $(DESTDIR)$(MANDIR)/man1/stax.1 $(DESTDIR)$(MANDIR)/man3/stax.3 \
	    $(DESTDIR)$(LIBDIR)/cmake/stax/staxConfig.cmake $(DESTDIR)$(LIBDIR)/cmake/stax/staxConfigVersion.cmake \
	    $(DESTDIR)$(DOCDIR)/README.md $(DOC_FILES:%=$(DESTDIR)$(DOCDIR)/%)
	rmdir $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR) 2>/dev/null || true

# ---------------------------------------------------------------- tests
# Installing what the tests need is tools/deps.sh's job, never make's.
deps:
	sh tools/deps.sh test

$(BUILD)/unit: $(UNIT_OBJ) $(BUILD)/libstax.a $(CLI_LIB_OBJ)
	$(CC) $(LDFLAGS_ALL) $(WRAP_MALLOC) -o $@ $(UNIT_OBJ) $(CLI_LIB_OBJ) $(BUILD)/libstax.a -lcriterion -lpthread $(ICONV_LIBS)

$(BUILD)/conformance: $(BUILD)/obj/tests/conformance.o $(CLI_LIB_OBJ) $(BUILD)/libstax.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ -lpthread

# Offline: a test that needs the W3C suite skips (and is listed as skipped)
# until `make conformance` has fetched it. As many jobs as make was given
# (-jN), else one per core. The native gcc build runs the sweeps whole
# (TEST_FULL=1: STAX_TEST_FULL=1 for the tests); the sanitizer and clang
# builds, like the single-file build and the cross targets, run the long
# inputs a tenth as long and a sample of the sweeps (tests/harness.h).
UNIT_JOBS = $(or $(patsubst -j%,%,$(firstword $(filter -j%,$(MAKEFLAGS)))),$(shell nproc))
TEST_FULL = $(if $(filter 1,$(SAN)),0,1)
# UNIT_ARGS: more arguments for the runner (--filter 'cli/*': one suite).
unit: $(BUILD)/unit $(BUILD)/stax $(BUILD)/gen
	STAX_TEST_FULL=$(TEST_FULL) $(BUILD)/unit --jobs $(UNIT_JOBS) --tap=$(BUILD)/unit.tap $(UNIT_ARGS)
	@sed -n 's/^ok - \(.*\)  # SKIP \(.*\)/SKIPPED \1: \2/p' $(BUILD)/unit.tap

# The only target that fetches the suite (STAX_SUITE_TGZ=FILE: from a tarball, offline).
conformance: $(BUILD)/conformance
	STAX_SUITE_TGZ='$(STAX_SUITE_TGZ)' sh tools/fetch-suite.sh $(XMLCONF)
	$(BUILD)/conformance $(XMLCONF)/package $(CONF_ARGS)
	$(BUILD)/conformance $(XMLCONF)/package --chunk 3 --quiet --fixed-sweep

# The whole suite again with AddressSanitizer + UndefinedBehaviorSanitizer.
# The unit tests run through tests/lite's runner, which forks for each test
# and has LeakSanitizer check the child before it exits: Criterion's runner
# starts the program anew for every test, and an ASan program's start (its
# shadow, relocations and globals) and exit took a third of the run.
test-asan:
	$(MAKE) BUILD=build/asan SAN=1 CPPFLAGS=-Itests/lite CONF_ARGS=--quiet \
	    conformance build/asan/unit-lite build/asan/stax build/asan/gen
	STAX_TEST_FULL=0 build/asan/unit-lite --jobs $(UNIT_JOBS)

# The unit tests against the amalgamated single file (tests/single_impl.c holds
# the implementation; every other file sees only the generated header), with
# the private STAX_STATIC copy (tests/single_static.c) run beside it; then the
# configuration macros and #line directives (tools/check-single.sh). Like the
# sanitizer, clang and cross builds, through tests/lite's runner: only the
# native gcc build (`make unit`) runs Criterion's own, whose start of a
# process for every test cost as much CPU as the sampled tests themselves.
SINGLE_B = $(BUILD)/single
SINGLE_CC = $(CC) $(STD) $(WARN) $(OPT) $(CPPFLAGS)
test-single: $(BUILD)/stax.h
	@mkdir -p $(SINGLE_B)
	$(SINGLE_CC) -DSTAX_SIMD_MAX=1 -I$(BUILD) -c tests/single_impl.c -o $(SINGLE_B)/impl.o
	$(SINGLE_CC) -DSTAX_STATIC -I$(BUILD) -c tests/single_static.c -o $(SINGLE_B)/static.o
	printf '%s\n' $(UNIT_SRC) tests/single_test.c tests/harness.c tests/lite/runner.c $(CLI_LIB_OBJ:$(BUILD)/obj/%.o=%.c) | \
	  xargs -P $(NPROC) -I{} sh -c '$(SINGLE_CC) -Itests/lite -I$(BUILD) -I. -Icli -c {} -o $(SINGLE_B)/$$(basename {} .c).o' || exit 1
	$(CC) $(WRAP_MALLOC) -o $(SINGLE_B)/unit $(SINGLE_B)/*.o -lpthread
	STAX_TEST_FULL=0 $(SINGLE_B)/unit --jobs $(UNIT_JOBS)
	sh tools/amalgamate.sh --line $(SINGLE_B)/stax-line.h stax.h $(LIB_HDR) $(LIB_SRC)
	CC='$(SINGLE_CC)' sh tools/check-single.sh $(BUILD)/stax.h $(SINGLE_B)/stax-line.h $(SINGLE_B)

# The single file as C++ (g++ and clang++, C++11 and C++20): the implementation
# in one C++ translation unit, linked with C++ and C callers, the usage block
# and examples of docs/api.md (tools/check-cpp.sh).
test-cpp: $(BUILD)/stax.h
	WERROR='$(WERROR)' CC='$(CC)' sh tools/check-cpp.sh $(BUILD)

# The library compiles without the fd/FILE* functions (embedded builds).
test-nostdio:
	for f in $(LIB_SRC); do $(CC) $(STD) $(WARN) $(CPPFLAGS) -DSTAX_NO_STDIO -I. -c $$f -o /dev/null || exit 1; done

# ---------------------------------------------------------------- bare metal
# The single file for Cortex-M0+ and Cortex-M4 (arm-none-eabi-gcc, newlib-nano,
# -Os -mthumb, -Wconversion clean), each configuration of
# tools/check-baremetal.sh linked with --gc-sections into tests/baremetal/ and
# run under qemu-system-arm. Budgets, CPU:CONFIG:BYTES: the flash the
# implementation keeps (code, read-only and initialized data) may not pass
# them, so growth is seen; docs/embedded.md gives the sizes.
BAREMETAL_BUDGETS = m4:full:87400 m4:reader:56800 m4:no-messages:45100 m4:writer:71400 m4:writer-short:58600 \
	m4:tiny:24400 m0plus:full:90100 m0plus:reader:59200 m0plus:no-messages:47200 m0plus:writer:74400 \
	m0plus:writer-short:61000 m0plus:tiny:26000

test-baremetal: $(BUILD)/stax.h
	BUDGETS='$(BAREMETAL_BUDGETS)' sh tools/check-baremetal.sh $(BUILD)/stax.h $(BUILD)/baremetal

# The switches that leave parts out (STAX_NO_DTD, ...: docs/embedded.md),
# each built natively from the single file and tested (tools/check-parts.sh),
# and the W3C suite read by the general path alone (STAX_NO_FAST_PATH).
test-parts: $(BUILD)/stax.h
	CC='$(SINGLE_CC)' sh tools/check-parts.sh $(BUILD)/stax.h $(BUILD)
	$(MAKE) BUILD=build/nofast EXTRA=-DSTAX_NO_FAST_PATH conformance CONF_ARGS=--quiet

# --part K/N and stax merge: the ranges run as separate processes under GNU
# parallel, the merged result compared with the serial one.
test-ranges: $(BUILD)/stax $(BUILD)/gen
	sh tools/check-ranges.sh $(BUILD)

# stax select against lxml's XPath (Debian's python3-lxml): queries with
# predicates made from each document's names and values, on build/gen shapes
# and fixtures, at --chunk 7 and -j 2 too; a difference fails.
test-select-oracle: $(BUILD)/stax $(BUILD)/gen
	$(or $(PYTHON),/usr/bin/python3) tools/select-oracle.py --stax $(BUILD)/stax --gen $(BUILD)/gen

# The usage block at the top of stax.h compiles and does what it says.
test-usage: lib
	sh tools/check-usage.sh $(BUILD)

# The same library, tool, unit tests and W3C suite built with clang and with
# STAX_NO_SIMD, so that the portable loops are tested as well (the suite's
# results must be those of the SIMD build: every test passes either way).
# The unit tests through tests/lite's runner, as test-single. The static
# library only: the shared one is the same code built with -fPIC, which the
# gcc build's test-symbols and test-install check.
test-clang:
	$(MAKE) CC=clang BUILD=build/clang CPPFLAGS=-Itests/lite EXTRA='-DSTAX_NO_SIMD -DSTAX_ABORT_ON_INTERNAL' \
	    build/clang/stax build/clang/unit-lite build/clang/gen conformance CONF_ARGS=--quiet
	STAX_TEST_FULL=0 build/clang/unit-lite --jobs $(UNIT_JOBS)

# ThreadSanitizer over the suites that run threads (the parallel reads from
# memory and from pipes, the tool's -j, select's saved state, the writer's
# background thread), through tests/lite: Criterion's own runner does not
# start under TSan. A report stops the program (halt_on_error), so the test
# fails; the tool the tests run is the TSan build's too. Only the test files
# of those suites are built (unit-threads): the others, two thirds of the
# build's time, would not run.
THREAD_TEST_SRC = tests/test_parallel.c tests/test_parallel_cli.c tests/test_select_state.c tests/test_writer_async.c
THREAD_TEST_OBJ = $(THREAD_TEST_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/tests/harness.o $(BUILD)/obj/tests/lite/runner.o
TSAN_SUITES = --filter 'parallel*' --filter 'select_state/*' --filter 'writer_async/*'
$(BUILD)/unit-threads: $(THREAD_TEST_OBJ) $(BUILD)/libstax.a $(CLI_LIB_OBJ)
	$(CC) $(LDFLAGS_ALL) $(WRAP_MALLOC) -o $@ $(THREAD_TEST_OBJ) $(CLI_LIB_OBJ) $(BUILD)/libstax.a -lpthread $(ICONV_LIBS)

test-tsan:
	$(MAKE) BUILD=build/tsan CPPFLAGS=-Itests/lite EXTRA=-fsanitize=thread LDFLAGS=-fsanitize=thread \
	    build/tsan/unit-threads build/tsan/stax
	TSAN_OPTIONS=halt_on_error=1 build/tsan/unit-threads --jobs $(UNIT_JOBS) $(TSAN_SUITES)

# `make install` into a scratch DESTDIR with PREFIX=/usr, then programs built
# against it with pkg-config (shared and --static), then `make uninstall`.
test-install: all
	MAKE='$(MAKE)' sh tools/check-install.sh $(BUILD)

# CMake: the libraries, tool and install of CMakeLists.txt beside the
# Makefile's, and a consumer project (tests/cmake/) built against them with
# find_package, add_subdirectory and FetchContent.
test-cmake: all
	MAKE='$(MAKE)' sh tools/check-cmake.sh $(BUILD)

# The release archive: $(BUILD)/stax-$(VERSION).tar.gz, the files git tracks
# (sources, docs, tests, fixtures, tools; nothing generated) under one folder
# stax-$(VERSION)/ (tools/dist.sh).
dist:
	sh tools/dist.sh $(VERSION) $(BUILD)/stax-$(VERSION).tar.gz

# The archive, written again, unpacked into a scratch folder builds and tests
# there (make, make unit on some suites, test-docs and test-man), and a CMake
# project takes it with the README's FetchContent lines, with no warning
# (tools/check-dist.sh; SKIPPED outside a git checkout).
test-dist:
	MAKE='$(MAKE)' sh tools/check-dist.sh $(VERSION) $(BUILD)/stax-$(VERSION).tar.gz

# The shared library exports exactly the STAXDEF functions of stax.h.
# The library's objects call only down: no cycle in their link graph
# (tools/check-layers.sh prints the layers; docs/internals.md names them);
# nor in the tool's objects', nor in the headers' include graph (each check
# first finds the cycle of a planted pair).
test-layers: lib $(BUILD)/stax
	sh tools/check-layers.sh $(LIB_OBJ)
	sh tools/check-layers.sh $(CLI_OBJ)
	@mkdir -p $(BUILD)/planted && printf '#include "b.h"\n' >$(BUILD)/planted/a.h && printf '#include "a.h"\n' >$(BUILD)/planted/b.h
	@! sh tools/check-includes.sh $(BUILD)/planted/a.h $(BUILD)/planted/b.h >/dev/null 2>&1 || \
	    { echo "test-layers: the include check missed a planted cycle"; exit 1; }
	sh tools/check-includes.sh $(LIB_HDR) $(wildcard cli/*.h)
	sh tools/check-simd.sh $(LIB_SRC) $(LIB_HDR)

test-symbols: lib
	sh tools/check-symbols.sh $(BUILD)

# The docs, the header and the man pages tell no history (tools/check-docs.sh),
# and code comments quote no measurement (tools/check-comments.sh); first,
# each check must catch each kind of finding in a planted file. Then the
# figures they give that the code decides are the code's (tools/check-figures.sh).
test-docs: $(BUILD)/stax $(BUILD)/stax.h
	@mkdir -p $(BUILD)
	@printf '%s\n' 'see #18' 'issue 18' 'at 9771ea4' 'a second round' 'after a review' \
	    'as before' 'a round trip, rounded, &#13; and 1000000 are fine' >$(BUILD)/check-docs-planted.md
	@n=$$(sh tools/check-docs.sh $(BUILD)/check-docs-planted.md 2>/dev/null | wc -l); \
	    [ "$$n" -eq 6 ] || { echo "test-docs: the check found $$n of the 6 planted lines"; exit 1; }
	sh tools/check-docs.sh
	@printf '%s\n' '/* inline, it cost deep 1.9% more */' '/* a loop' ' * of every shape 1-9% more */' \
	    'printf("%5d%% done", n); /* a count */' 'x = 5 % 3; // mod 2%' 'y = a % b; /* the rest */' >$(BUILD)/check-comments-planted.c
	@n=$$(sh tools/check-comments.sh $(BUILD)/check-comments-planted.c 2>/dev/null | wc -l); \
	    [ "$$n" -eq 3 ] || { echo "test-docs: the comment check found $$n of the 3 planted lines"; exit 1; }
	sh tools/check-comments.sh
	CC='$(CC)' sh tools/check-figures.sh $(BUILD)

# The man pages lint clean, and stax(1) lists exactly the tool's options.
test-man: $(BUILD)/stax
	sh tools/check-man.sh $(BUILD)

# encoding_tables.h and fixtures/encoding-mappings.txt are what
# tools/gen-encodings.py writes today.
test-encodings:
	python3 tools/gen-encodings.py --check

# Every suite. First what every suite shares is built (the library, the tool,
# the generator, the unit and W3C programs, the single file) and the W3C suite
# fetched; then two lanes run side by side, one phase after another in each,
# so that a phase that keeps one core busy leaves the other to the second
# lane. (The single file, $(BUILD)/stax.h, that phases of both lanes make
# again is written to a temporary file and renamed, with the same bytes.)
# A phase's output goes to $(BUILD)/test-logs/PHASE.log and is printed whole
# when the phase ends, with how long it took and the CPU time (user and
# system) of all it ran (the 20-minute budget on a 2-core machine is watched
# in the CI log); the first failing phase stops its lane, and make test fails.
# Each lane runs one process at a time (UNIT_JOBS, CROSS_JOBS and NPROC 1,
# STAX_TEST_JOBS=1 for the scripts), so that the two lanes keep the two cores
# busy without four processes sharing them: a phase run beside another lane
# that ran two processes of its own took a quarter more CPU time than alone.
# The lanes are balanced by the phases' CPU time (user and system) at one
# process each, in seconds on a 2-core AMD EPYC shared with other work:
# lane 1: conformance 1, unit 58, test-asan 119, test-single 72, test-clang
# 36, test-parts 94, test-cpp 49, test-ranges 18, test-select-oracle 6, test-tsan 80,
# test-baremetal 85, test-dist 31 (about 645); lane 2: the small checks 10,
# test-python 34 (the extension's build 19, the tests 15 with a Dask cluster of two processes),
# test-cross 439 (the unit tests under qemu 265 of it), fuzz-regress 58 (the
# fuzzers' build most of it), fuzz-smoke 80 (eight targets for 10 s of the
# clock each), test-cmake 46 (about 635). The shared build before them is
# about 45.
TEST_LANE1 = conformance unit test-asan test-single test-clang test-parts test-cpp test-ranges test-select-oracle test-tsan \
	test-baremetal test-dist
TEST_LANE2 = test-nostdio test-usage test-layers test-symbols test-docs test-man test-encodings test-python \
	test-cross fuzz-regress fuzz-smoke test-install test-cmake
TEST_LANE_ARGS = WERROR=1 UNIT_JOBS=1 CROSS_JOBS=1 NPROC=1
NPROC := $(shell nproc 2>/dev/null || echo 2)
test:
	@t0=$$(date +%s); \
	$(MAKE) -j$(NPROC) WERROR=1 all $(BUILD)/gen $(BUILD)/unit $(BUILD)/conformance $(BUILD)/stax.h || exit 1; \
	STAX_SUITE_TGZ='$(STAX_SUITE_TGZ)' sh tools/fetch-suite.sh $(XMLCONF) || exit 1; \
	echo "make test: the shared build took $$(( $$(date +%s) - t0 )) s"; \
	$(MAKE) -j2 test-lane-1 test-lane-2 || { echo "make test: FAILED after $$(( $$(date +%s) - t0 )) s"; exit 1; }; \
	echo "make test: all suites passed in $$(( $$(date +%s) - t0 )) s"

test-lane-1 test-lane-2: test-lane-%:
	@mkdir -p $(BUILD)/test-logs; cpu0=0; for t in $(TEST_LANE$*); do s=$$(date +%s); log=$(BUILD)/test-logs/$$t.log; \
	  if STAX_TEST_JOBS=1 $(MAKE) $(TEST_LANE_ARGS) $$t >$$log 2>&1; then r=passed; else r=FAILED; fi; \
	  times >$$log.times; cpu=$$(awk 'NR == 2 { split($$1, u, "m"); split($$2, k, "m"); printf "%d", u[1] * 60 + u[2] + k[1] * 60 + k[2] }' $$log.times); \
	  cat $$log; echo "make test: lane $*: $$t $$r in $$(( $$(date +%s) - s )) s (CPU $$((cpu - cpu0)) s)"; cpu0=$$cpu; \
	  [ $$r = passed ] || exit 1; done

# ---------------------------------------------------------------- Python
# The package of python/ (docs/python.md) for $(PYTHON): its extension
# compiles the single file in. `make python` builds it into $(BUILD)/python
# (PYTHONPATH=$(BUILD)/python imports it); `make test-python` runs its tests
# (pytest) against the tool and the generator of this build.
PYTHON ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
PY_BUILD = $(abspath $(BUILD))
python: $(BUILD)/stax.h
	cd python && STAX_SINGLE_H=$(PY_BUILD)/stax.h $(PYTHON) setup.py -q build --build-base $(PY_BUILD)/python-build \
	    --build-lib $(PY_BUILD)/python >$(PY_BUILD)/python-build.log 2>&1 || { cat $(PY_BUILD)/python-build.log; exit 1; }

test-python: python $(BUILD)/stax $(BUILD)/gen
	PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$(PY_BUILD)/python STAX_TOOL=$(PY_BUILD)/stax STAX_GEN=$(PY_BUILD)/gen \
	    $(PYTHON) -m pytest -q -p no:cacheprovider python/tests $(PYTEST_ARGS)

# The package beside pyexpat, ElementTree, lxml and twisted's domish, one
# process each (bench/python.sh; docs/benchmarks.md, "Python").
bench-python: python $(BUILD)/stax $(BUILD)/gen
	PYTHON=$(PYTHON) BUILD=$(BUILD) sh bench/python.sh

# ---------------------------------------------------------------- benchmarks
main:
	BUILD=$(BUILD) sh bench/main.sh

bench:
	BUILD=$(BUILD) sh bench/run.sh
	BUILD=$(BUILD) sh bench/shapes.sh
	BUILD=$(BUILD) sh bench/parallel.sh
	BUILD=$(BUILD) sh bench/parallel-shapes.sh

# -j N beside -j 1 and expat: the mixed dump (STAX_PAR_MIB, default 256) and every shape.
bench-parallel:
	BUILD=$(BUILD) sh bench/parallel.sh
	BUILD=$(BUILD) sh bench/parallel-shapes.sh

clean:
	rm -rf $(BUILD)

FORCE:

# Benchmark programs and peers (bench/bench.mk).
-include bench/bench.mk
-include tests/conformance.mk
-include tests/fuzz/fuzz.mk
-include bench/writer.mk

# ---------------------------------------------------------------- cross targets
# `make test-cross`: aarch64, armhf (32-bit; and armhf-neon, built with
# -mfpu=neon), i686 (32-bit) and s390x (big-endian), each built with Debian's cross compiler and run under
# qemu-user (tools/cross.sh; tools/deps.sh installs both): the unit tests, the
# W3C suite with --chunk 3 --fixed-sweep, and the tool over fixtures/ and
# generated documents compared byte for byte with the native build. Two
# targets at a time (CROSS_JOBS). A sample: the sweeps as the sanitizer
# builds run them; i686 and s390x run the tests, each of the slowest on one
# target of aarch64, i686 and s390x; aarch64, armhf and armhf-neon the
# suites whose code depends on their CPU, and aarch64 those that run threads
# (tools/cross.sh says which; CROSS_UNIT_ALL=1 runs all of them everywhere). The unit tests run through tests/lite, a
# runner of Criterion's interface that needs no library for the target: a
# cross Criterion would need dpkg multiarch, which a fresh Debian machine
# does not always take (foreign architectures break `apt-get update` where
# only the native one is mirrored).
CROSS_TARGETS = aarch64 i686 s390x armhf armhf-neon
CROSS_JOBS ?= 2
LITE_OBJ = $(BUILD)/obj/tests/lite/runner.o
.PHONY: test-cross $(CROSS_TARGETS:%=test-cross-%)
$(LITE_OBJ): CPPFLAGS += -Itests/lite
$(BUILD)/unit-lite: $(UNIT_OBJ) $(LITE_OBJ) $(BUILD)/libstax.a $(CLI_LIB_OBJ)
	$(CC) $(LDFLAGS_ALL) $(WRAP_MALLOC) -o $@ $(UNIT_OBJ) $(LITE_OBJ) $(CLI_LIB_OBJ) $(BUILD)/libstax.a -lpthread $(ICONV_LIBS)

test-cross: $(BUILD)/stax $(BUILD)/gen
	$(MAKE) -k -j$(CROSS_JOBS) $(CROSS_TARGETS:%=test-cross-%)

$(CROSS_TARGETS:%=test-cross-%): test-cross-%:
	@mkdir -p build/cross/$*
	MAKE='$(MAKE)' sh tools/cross.sh $* $(BUILD)
