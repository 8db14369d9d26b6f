# Benchmark programs: the document generator and the peer parsers (expat,
# libxml2, and pugixml's DOM as the in-memory reference), and the shape
# benchmark. Included from the main Makefile; `make bench-tools` builds them.
# Always optimised and never sanitized, whatever SAN or OPT say.
#   make bench-shapes     stax beside the peers on each document shape
#                         (bench/shapes.sh), results in build/bench-shapes.md
#   make bench-modes      stax beside expat in each reading mode: namespaces,
#                         ATTLISTs, entity references (bench/modes.sh),
#                         results in build/bench-modes.md
#   make bench-check      the shape documents are exact, repeatable, and the
#                         four programs count them alike (nothing timed)
#   make bench-adversarial  stax check at N and 2N of each adversarial shape
#                         beside expat (bench/adversarial.sh): fails unless the
#                         time is linear and stax ahead of expat (skipped-refs:
#                         within 2.5 times expat's time)
#   make bench-transcode  the decoders of encoding.c beside glibc's iconv
#                         (bench/transcode.c), 100 MiB a case, best of 5

BENCH_CFLAGS = $(STD) $(WARN) -O2 $(CFLAGS)
BENCH_CXXFLAGS = -std=c++11 -Wall -Wextra -Wpedantic -Wshadow $(if $(filter 1,$(WERROR)),-Werror) -O2 $(CXXFLAGS)
# Lazy (=), so pkg-config is only asked when a peer is really built.
LIBXML2_CFLAGS = $(shell pkg-config --cflags libxml-2.0)
LIBXML2_LIBS = $(shell pkg-config --libs libxml-2.0)

.PHONY: bench-tools bench-shapes bench-modes bench-check bench-select bench-adversarial bench-transcode
bench-tools: $(BUILD)/gen $(BUILD)/expat_count $(BUILD)/libxml2_count $(BUILD)/pugixml_count

bench-shapes:
	BUILD=$(BUILD) sh bench/shapes.sh

bench-modes:
	BUILD=$(BUILD) sh bench/modes.sh

bench-check:
	BUILD=$(BUILD) STAX_BENCH_CHECK=1 STAX_BENCH_MIB=$${STAX_BENCH_MIB:-4} sh bench/shapes.sh

bench-select:
	BUILD=$(BUILD) sh bench/select_run.sh

bench-adversarial:
	BUILD=$(BUILD) sh bench/adversarial.sh

bench-transcode: $(BUILD)/transcode
	$(BUILD)/transcode

# (the decoder's internal interface: linked from the static library)
$(BUILD)/transcode: bench/transcode.c $(BUILD)/libstax.a
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -I. -o $@ $< $(BUILD)/libstax.a $(LDFLAGS)

$(BUILD)/gen: bench/gen.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $< $(LDFLAGS)

$(BUILD)/pos_count: bench/pos_count.c $(BUILD)/libstax.a
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -I. -o $@ $< $(BUILD)/libstax.a $(LDFLAGS)

$(BUILD)/read_align: bench/read_align.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $< $(LDFLAGS)

$(BUILD)/expat_count: bench/expat_count.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $< $(LDFLAGS) -lexpat

$(BUILD)/libxml2_count: bench/libxml2_count.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) $(LIBXML2_CFLAGS) -o $@ $< $(LDFLAGS) $(LIBXML2_LIBS)

$(BUILD)/pugixml_count: bench/pugixml_count.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(BENCH_CXXFLAGS) $$(pkg-config --cflags pugixml) -o $@ $< $(LDFLAGS) $$(pkg-config --libs pugixml)
