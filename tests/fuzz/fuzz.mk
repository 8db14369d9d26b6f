# Fuzz targets (libFuzzer). Included by the top-level Makefile; see tests/fuzz/README.md.
#
#   make fuzz-build     build/fuzz/fuzz_reader, build/fuzz/fuzz_writer and build/fuzz/fuzz_select
#   make fuzz-smoke     each target for FUZZ_SMOKE_TIME seconds (default 25) over the seed corpus
#   make fuzz-regress   every saved crash in tests/fuzz/crashes/ (fails until the bugs are fixed)
#   make fuzz-reader FUZZ_TIME=600 / make fuzz-writer / make fuzz-select: a real run
#
# The library sources are compiled straight into each target, with the fuzzer's
# coverage instrumentation and ASan + UBSan. UBSan stops at the first report.

FUZZ_CC ?= clang
FUZZ_BUILD ?= $(or $(BUILD),build)/fuzz
FUZZ_LIB_SRC = stax.c reader_batch.c reader_input.c reader_fast.c reader_tokens.c scan.c entities.c external.c dtd.c namespaces.c encoding.c writer.c select.c
FUZZ_LIB_HDR = stax.h stax_internal.h encoding_tables.h reader.h
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer \
	-std=c11 -D_POSIX_C_SOURCE=200809L -DSTAX_ABORT_ON_INTERNAL -I.
FUZZ_ENV = UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1
FUZZ_SMOKE_TIME ?= 25
FUZZ_TIME ?= 600

.PHONY: fuzz-build fuzz-smoke fuzz-regress fuzz-reader fuzz-writer fuzz-select

fuzz-build: $(FUZZ_BUILD)/fuzz_reader $(FUZZ_BUILD)/fuzz_writer $(FUZZ_BUILD)/fuzz_select

$(FUZZ_BUILD)/fuzz_reader: tests/fuzz/fuzz_reader.c $(FUZZ_LIB_SRC) $(FUZZ_LIB_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) tests/fuzz/fuzz_reader.c $(FUZZ_LIB_SRC) -lpthread -o $@

$(FUZZ_BUILD)/fuzz_writer: tests/fuzz/fuzz_writer.c $(FUZZ_LIB_SRC) $(FUZZ_LIB_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) tests/fuzz/fuzz_writer.c $(FUZZ_LIB_SRC) -lpthread -o $@

$(FUZZ_BUILD)/fuzz_select: tests/fuzz/fuzz_select.c $(FUZZ_LIB_SRC) $(FUZZ_LIB_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) tests/fuzz/fuzz_select.c $(FUZZ_LIB_SRC) -lpthread -o $@

# New inputs go to a scratch corpus under build/, never into tests/fuzz/corpus.
fuzz-smoke: fuzz-build
	@rm -rf $(FUZZ_BUILD)/smoke && mkdir -p $(FUZZ_BUILD)/smoke/reader $(FUZZ_BUILD)/smoke/writer $(FUZZ_BUILD)/smoke/select
	$(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_reader -max_total_time=$(FUZZ_SMOKE_TIME) -timeout=10 -rss_limit_mb=2048 \
		-max_len=4096 -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/smoke/ \
		$(FUZZ_BUILD)/smoke/reader tests/fuzz/corpus/reader
	$(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_writer -max_total_time=$(FUZZ_SMOKE_TIME) -timeout=10 -rss_limit_mb=2048 \
		-max_len=4096 -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/smoke/ \
		$(FUZZ_BUILD)/smoke/writer tests/fuzz/corpus/writer
	$(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_select -max_total_time=$(FUZZ_SMOKE_TIME) -timeout=10 -rss_limit_mb=2048 \
		-max_len=4096 -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/smoke/ \
		$(FUZZ_BUILD)/smoke/select tests/fuzz/corpus/select

# Each saved crash once, through the target that found it (reader-* / writer-*).
fuzz-regress: fuzz-build
	@st=0; for f in tests/fuzz/crashes/reader-*; do [ -f "$$f" ] || continue; \
		$(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_reader $$f >/dev/null 2>&1 || { echo "FAIL $$f"; st=1; }; done; \
	for f in tests/fuzz/crashes/writer-*; do [ -f "$$f" ] || continue; \
		$(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_writer $$f >/dev/null 2>&1 || { echo "FAIL $$f"; st=1; }; done; \
	for f in tests/fuzz/crashes/select-*; do [ -f "$$f" ] || continue; \
		$(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_select $$f >/dev/null 2>&1 || { echo "FAIL $$f"; st=1; }; done; \
	exit $$st

fuzz-reader: $(FUZZ_BUILD)/fuzz_reader
	@mkdir -p $(FUZZ_BUILD)/corpus/reader $(FUZZ_BUILD)/artifacts
	$(FUZZ_ENV) $< -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/artifacts/ \
		$(FUZZ_BUILD)/corpus/reader tests/fuzz/corpus/reader

fuzz-writer: $(FUZZ_BUILD)/fuzz_writer
	@mkdir -p $(FUZZ_BUILD)/corpus/writer $(FUZZ_BUILD)/artifacts
	$(FUZZ_ENV) $< -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/artifacts/ \
		$(FUZZ_BUILD)/corpus/writer tests/fuzz/corpus/writer

fuzz-select: $(FUZZ_BUILD)/fuzz_select
	@mkdir -p $(FUZZ_BUILD)/corpus/select $(FUZZ_BUILD)/artifacts
	$(FUZZ_ENV) $< -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/artifacts/ \
		$(FUZZ_BUILD)/corpus/select tests/fuzz/corpus/select
