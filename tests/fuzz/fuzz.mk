# Fuzz targets (libFuzzer). Included by the top-level Makefile; see tests/fuzz/README.md.
#
#   make fuzz-build       build/fuzz/fuzz_{reader,dtd,alloc,writer,select,resume,context,parallel}
#   make fuzz-smoke       each target for FUZZ_SMOKE_TIME seconds (default 10) over its seed corpus
#   make fuzz-regress     every saved crash in tests/fuzz/crashes/ through its target (by name prefix)
#   make fuzz-reader FUZZ_TIME=600 (fuzz-dtd, fuzz-alloc, ..., fuzz-context): a real run, resuming from
#                         and adding to the saved corpus in $(FUZZ_CORPUS)/<target>
#   make fuzz-coverage    line coverage of the library from the seed and saved corpora (llvm-cov)
#
# The library is compiled once with the fuzzer's coverage instrumentation and ASan + UBSan
# (UBSan stops at the first report), then linked into each target.

FUZZ_CC ?= clang
FUZZ_BUILD ?= $(or $(BUILD),build)/fuzz
FUZZ_CORPUS ?= $(FUZZ_BUILD)/corpus
# The library's files, as the top-level Makefile lists them (a new file is fuzzed without more ado).
FUZZ_LIB_SRC = $(LIB_SRC)
FUZZ_LIB_HDR = $(LIB_HDR)
FUZZ_TARGETS = reader dtd alloc writer select resume context parallel
FUZZ_HARNESS = tests/fuzz/fuzz_check.c tests/fuzz/fuzz_gen.c
FUZZ_HARNESS_HDR = tests/fuzz/fuzz_check.h tests/fuzz/fuzz_gen.h tests/fuzz/ctx_model.h
FUZZ_WARN = -Wall -Wextra -Wpedantic -Werror -Wshadow -Wstrict-prototypes
FUZZ_CFLAGS = -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all -std=c11 -D_POSIX_C_SOURCE=200809L -DSTAX_ABORT_ON_INTERNAL $(FUZZ_ARENA) $(FUZZ_WARN) -I.
# The reader's arena starts at 256 bytes, not 64 KiB, so that inputs of at most max_len make it grow
# (reader.h, RD_ARENA_FIRST); tools/fuzz-coverage.sh builds with the same.
FUZZ_ARENA = -DSTAX__ARENA_FIRST=256
FUZZ_LDFLAGS = -fsanitize=fuzzer,address,undefined
FUZZ_ENV = UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1
FUZZ_ARGS = -timeout=10 -rss_limit_mb=2048 -max_len=4096
# Raw documents get the XML/DTD dictionary; the generator targets read choices, not text.
FUZZ_DICT_reader = -dict=tests/fuzz/xml.dict
FUZZ_DICT_resume = $(FUZZ_DICT_reader)
FUZZ_DICT_context = $(FUZZ_DICT_reader)
FUZZ_SMOKE_TIME ?= 10
# The smoke runs look for crashes and sanitizer reports in a few seconds, on a
# loaded 2-core CI machine: a unit is allowed a minute there. Slow inputs are
# the long runs' finding (FUZZ_ARGS' 10 s, make fuzz-TARGET).
FUZZ_SMOKE_TIMEOUT ?= 60
FUZZ_TIME ?= 600

FUZZ_OBJ = $(FUZZ_LIB_SRC:%.c=$(FUZZ_BUILD)/obj/%.o) $(FUZZ_HARNESS:tests/fuzz/%.c=$(FUZZ_BUILD)/obj/%.o)

.PHONY: fuzz-build fuzz-smoke fuzz-regress fuzz-coverage $(FUZZ_TARGETS:%=fuzz-%)
.SECONDARY: $(FUZZ_OBJ) $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/obj/fuzz_%.o)

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

$(FUZZ_BUILD)/obj/%.o: %.c $(FUZZ_LIB_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_BUILD)/obj/%.o: tests/fuzz/%.c $(FUZZ_LIB_HDR) $(FUZZ_HARNESS_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/obj/fuzz_%.o $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) $^ -lpthread -o $@

# A few seconds of each target over its seed corpus; new inputs go to a scratch
# corpus under build/, never into tests/fuzz/corpus. Every target runs; for each
# failure, the finding's first lines, the seed, the input in hex (so that a CI
# log is enough to reproduce it) and the log's name.
fuzz-smoke: fuzz-build
	@rm -rf $(FUZZ_BUILD)/smoke && mkdir -p $(FUZZ_BUILD)/smoke
	@st=0; for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_BUILD)/smoke/$$t; \
		d=; [ $$t = reader ] && d='$(FUZZ_DICT_reader)'; \
		log=$(FUZZ_BUILD)/smoke/$$t.log; \
		if $(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_$$t $$d $(FUZZ_ARGS) -timeout=$(FUZZ_SMOKE_TIMEOUT) -max_total_time=$(FUZZ_SMOKE_TIME) \
			-print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/smoke/$$t- \
			$(FUZZ_BUILD)/smoke/$$t tests/fuzz/corpus/$$t >$$log 2>&1; then \
			echo "fuzz-smoke $$t: $$(sed -n 's/^stat::number_of_executed_units: *//p' $$log) runs, ok"; \
		else grep -m4 -A1 -E 'invariant failed|ERROR: [A-Za-z]*Sanitizer|runtime error|Test unit written' $$log; \
			grep -m1 'Seed:' $$log; \
			for a in $(FUZZ_BUILD)/smoke/$$t-*; do [ -f "$$a" ] || continue; \
				echo "$$a, in hex (xxd -r -p turns it back):"; od -An -tx1 -v "$$a" | head -c 16384; done; \
			echo "fuzz-smoke $$t: FAILED (log: $$log)"; st=1; fi; \
	done; exit $$st

# Each saved crash once, through the target its name starts with (reader-*, dtd-*, alloc-*, writer-*).
# An input may take FUZZ_REGRESS_CPU seconds of CPU time (ulimit -S -t:
# SIGXCPU stops it), not of the clock, which another program's load stretches: the
# slowest, a million references at 1 MiB chunks, takes a few seconds alone
# and several times that beside other work on a 2-core machine. libFuzzer's
# -timeout, on the clock, is only the backstop for an input that waits.
FUZZ_REGRESS_CPU ?= 30
fuzz-regress: fuzz-build
	@st=0; n=0; for f in tests/fuzz/crashes/*; do \
		t=$$(basename $$f); t=$${t%%-*}; \
		case " $(FUZZ_TARGETS) " in *" $$t "*) ;; *) continue ;; esac; \
		n=$$((n + 1)); r=0; \
		( ulimit -S -t $(FUZZ_REGRESS_CPU) && exec env $(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_$$t -timeout=600 $$f ) \
			>$(FUZZ_BUILD)/regress.log 2>&1 || r=$$?; \
		[ $$r -eq 0 ] && continue; \
		if [ $$r -gt 128 ] && [ "$$(kill -l $$r)" = XCPU ]; then echo "over $(FUZZ_REGRESS_CPU) s of CPU time"; \
		else grep -m4 -A1 -E 'invariant failed|ERROR: [A-Za-z]*Sanitizer|runtime error|timeout' $(FUZZ_BUILD)/regress.log; fi; \
		echo "FAIL $$f (exit $$r)"; st=1; \
	done; echo "fuzz-regress: $$n inputs replayed"; exit $$st

$(FUZZ_TARGETS:%=fuzz-%): fuzz-%: $(FUZZ_BUILD)/fuzz_%
	@mkdir -p $(FUZZ_CORPUS)/$* $(FUZZ_BUILD)/artifacts
	$(FUZZ_ENV) nice $< $(FUZZ_DICT_$*) $(FUZZ_ARGS) -max_total_time=$(FUZZ_TIME) -print_final_stats=1 \
		-artifact_prefix=$(FUZZ_BUILD)/artifacts/$*- $(FUZZ_CORPUS)/$* tests/fuzz/corpus/$*

fuzz-coverage:
	FUZZ_CC=$(FUZZ_CC) FUZZ_CORPUS=$(FUZZ_CORPUS) BUILD=$(or $(BUILD),build) sh tools/fuzz-coverage.sh
