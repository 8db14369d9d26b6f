# stax build. `make` builds the library and the tool; `make test` runs every test.
# Variables: CC (gcc or clang), BUILD (output folder), SAN=1 (ASan+UBSan build).

CC ?= cc
BUILD ?= build
OPT ?= -O2
STD = -std=c11 -D_POSIX_C_SOURCE=200809L
WARN = -Wall -Wextra -Wpedantic -Werror -Wshadow -Wstrict-prototypes
SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ifeq ($(SAN),1)
  OPT = -O1 -g
  EXTRA = $(SANFLAGS) -DSTAX_ABORT_ON_INTERNAL
endif
CFLAGS_ALL = $(STD) $(WARN) $(OPT) $(EXTRA) $(CFLAGS)
LDFLAGS_ALL = $(EXTRA) $(LDFLAGS)

LIB_SRC = stax.c reader_batch.c dtd.c namespaces.c encoding.c writer.c
LIB_HDR = stax.h stax_internal.h
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

.PHONY: all lib single test unit conformance test-asan test-single test-nostdio test-usage test-clang deps clean bench main
all: lib $(BUILD)/stax

lib: $(BUILD)/libstax.a $(BUILD)/libstax.so

$(BUILD)/obj/%.o: %.c $(LIB_HDR) $(wildcard cli/*.h tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -I. -c $< -o $@

$(BUILD)/pic/%.o: %.c $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -fPIC -I. -c $< -o $@

$(BUILD)/libstax.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/libstax.so: $(PIC_OBJ)
	$(CC) -shared $(LDFLAGS_ALL) -o $@ $^

$(BUILD)/stax: $(CLI_OBJ) $(BUILD)/libstax.a
	$(CC) $(LDFLAGS_ALL) -o $@ $(CLI_OBJ) $(BUILD)/libstax.a -lpthread

# ---------------------------------------------------------------- single file
single: $(BUILD)/stax.h

$(BUILD)/stax.h: stax.h stax_internal.h $(LIB_SRC) tools/amalgamate.sh
	@mkdir -p $(BUILD)
	sh tools/amalgamate.sh $@ stax.h stax_internal.h $(LIB_SRC)

# ---------------------------------------------------------------- tests
deps:
	sh tools/deps.sh test

$(BUILD)/unit: $(UNIT_OBJ) $(BUILD)/libstax.a $(CLI_LIB_OBJ)
	$(CC) $(LDFLAGS_ALL) $(WRAP_MALLOC) -o $@ $(UNIT_OBJ) $(CLI_LIB_OBJ) $(BUILD)/libstax.a -lcriterion -lpthread

$(BUILD)/conformance: $(BUILD)/obj/tests/conformance.o $(CLI_LIB_OBJ) $(BUILD)/libstax.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ -lpthread

# The writer's round trip over the W3C suite needs it fetched first.
unit: $(BUILD)/unit $(BUILD)/stax
	sh tools/fetch-suite.sh build/xmlconf
	$(BUILD)/unit --jobs 2

conformance: $(BUILD)/conformance
	sh tools/fetch-suite.sh build/xmlconf
	$(BUILD)/conformance build/xmlconf/package $(CONF_ARGS)
	$(BUILD)/conformance build/xmlconf/package --chunk 3 --quiet

# The whole suite again with AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan:
	$(MAKE) BUILD=build/asan SAN=1 unit conformance CONF_ARGS=--quiet

# The unit tests against the amalgamated single file (tests/single_impl.c holds
# the implementation; every other file sees only the generated header).
SINGLE_B = $(BUILD)/single
test-single: $(BUILD)/stax.h
	@mkdir -p $(SINGLE_B)
	$(CC) $(STD) $(WARN) $(OPT) -I$(BUILD) -c tests/single_impl.c -o $(SINGLE_B)/impl.o
	$(CC) $(STD) $(WARN) $(OPT) -DSTAX_STATIC -I$(BUILD) -c tests/single_static.c -o $(SINGLE_B)/static.o
	for f in $(UNIT_SRC) tests/harness.c $(CLI_LIB_OBJ:$(BUILD)/obj/%.o=%.c); do \
	  $(CC) $(STD) $(WARN) $(OPT) -I$(BUILD) -I. -Icli -c $$f -o $(SINGLE_B)/$$(basename $$f .c).o || exit 1; \
	done
	$(CC) $(WRAP_MALLOC) -o $(SINGLE_B)/unit $(SINGLE_B)/*.o -lcriterion -lpthread
	$(SINGLE_B)/unit --jobs 2

# The library compiles without the fd/FILE* functions (embedded builds).
test-nostdio:
	for f in $(LIB_SRC); do $(CC) $(STD) $(WARN) -DSTAX_NO_STDIO -I. -c $$f -o /dev/null || exit 1; done

# The usage block at the top of stax.h compiles and does what it says.
test-usage: lib
	sh tools/check-usage.sh $(BUILD)

# The same library, tool and unit tests built with clang (warnings are errors there
# too) and with STAX_NO_SIMD, so that the portable loops are tested as well.
test-clang:
	$(MAKE) CC=clang BUILD=build/clang EXTRA='-DSTAX_NO_SIMD -DSTAX_ABORT_ON_INTERNAL' all unit

test: deps
	$(MAKE) all
	$(MAKE) test-nostdio
	$(MAKE) test-usage
	$(MAKE) unit
	$(MAKE) conformance
	$(MAKE) test-asan
	$(MAKE) test-single
	$(MAKE) test-clang
	@st=0; $(MAKE) fuzz-regress || st=1; $(MAKE) fuzz-smoke || st=1; exit $$st
	@echo "make test: all suites passed"

# ---------------------------------------------------------------- benchmarks
main:
	BUILD=$(BUILD) sh bench/main.sh

bench:
	BUILD=$(BUILD) sh bench/run.sh

clean:
	rm -rf build

# Benchmark programs and peers (bench/bench.mk).
-include bench/bench.mk
-include tests/conformance.mk
-include tests/fuzz/fuzz.mk
-include bench/writer.mk
