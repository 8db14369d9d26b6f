# Benchmark programs: the document generator and the two peer parsers.
# Included from the main Makefile; `make bench-tools` builds all three.
# Always optimised and never sanitized, whatever SAN or OPT say.

BENCH_CFLAGS = $(STD) $(WARN) -O2 $(CFLAGS)
# Lazy (=), so pkg-config is only asked when a peer is really built.
LIBXML2_CFLAGS = $(shell pkg-config --cflags libxml-2.0)
LIBXML2_LIBS = $(shell pkg-config --libs libxml-2.0)

.PHONY: bench-tools bench-select
bench-select:
	BUILD=$(BUILD) sh bench/select_run.sh

bench-tools: $(BUILD)/gen $(BUILD)/expat_count $(BUILD)/libxml2_count

$(BUILD)/gen: bench/gen.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $< $(LDFLAGS)

$(BUILD)/expat_count: bench/expat_count.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $< $(LDFLAGS) -lexpat

$(BUILD)/libxml2_count: bench/libxml2_count.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) $(LIBXML2_CFLAGS) -o $@ $< $(LDFLAGS) $(LIBXML2_LIBS)
