# Writer benchmark: the books document through the stax writer and through
# libxml2's xmlTextWriter. Included from the main Makefile.
#   make writer-bench-tools        build both programs
#   make writer-bench-check        check that both write the same bytes
#   sh bench/writer_run.sh         the hyperfine comparison (docs/benchmarks.md)
#   make writer-records-check      the record-writing benchmark's three programs write the same bytes
#   sh bench/writer_records_run.sh its hyperfine comparison (numbers: the writer's calls, snprintf, libxml2)

WRITER_BENCH_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wpedantic -Werror -O2 $(CFLAGS)

.PHONY: writer-bench-tools writer-bench-check writer-records-check
writer-bench-tools: $(BUILD)/writer_bench $(BUILD)/writer_libxml2

$(BUILD)/writer_bench: bench/writer_bench.c bench/writer_books.h $(BUILD)/libstax.a
	@mkdir -p $(dir $@)
	$(CC) $(WRITER_BENCH_CFLAGS) -I. -o $@ bench/writer_bench.c $(BUILD)/libstax.a -lpthread

$(BUILD)/writer_libxml2: bench/writer_libxml2.c bench/writer_books.h
	@mkdir -p $(dir $@)
	$(CC) $(WRITER_BENCH_CFLAGS) $$(pkg-config --cflags libxml-2.0) -o $@ bench/writer_libxml2.c $$(pkg-config --libs libxml-2.0)

writer-bench-check: writer-bench-tools
	$(BUILD)/writer_bench 4 $(BUILD)/writer-stax.xml
	$(BUILD)/writer_libxml2 4 $(BUILD)/writer-libxml2.xml
	cmp $(BUILD)/writer-stax.xml $(BUILD)/writer-libxml2.xml
	xmllint --noout $(BUILD)/writer-stax.xml

writer-records-check: writer-bench-tools
	$(BUILD)/writer_bench 4 $(BUILD)/records-stax.xml -records
	$(BUILD)/writer_bench 4 $(BUILD)/records-snprintf.xml -records-snprintf
	$(BUILD)/writer_libxml2 4 $(BUILD)/records-libxml2.xml -records
	cmp $(BUILD)/records-stax.xml $(BUILD)/records-snprintf.xml
	cmp $(BUILD)/records-stax.xml $(BUILD)/records-libxml2.xml
	xmllint --noout $(BUILD)/records-stax.xml

# The catalog program (bench/writer_catalog.c): every record formatted by the
# caller with snprintf; stax, libxml2 and the snprintf + fwrite floor.
#   make writer-catalog-check      the three write the same bytes
#   sh bench/writer_catalog_run.sh  hyperfine and callgrind of both (docs/benchmarks.md)
$(BUILD)/writer_catalog: bench/writer_catalog.c $(BUILD)/libstax.a
	@mkdir -p $(dir $@)
	$(CC) $(WRITER_BENCH_CFLAGS) -I. $$(pkg-config --cflags libxml-2.0) -o $@ bench/writer_catalog.c $(BUILD)/libstax.a $$(pkg-config --libs libxml-2.0) -lpthread

.PHONY: writer-catalog-check
writer-catalog-check: $(BUILD)/writer_catalog
	$(BUILD)/writer_catalog stax 4M $(BUILD)/catalog-stax.xml
	$(BUILD)/writer_catalog libxml2 4M $(BUILD)/catalog-libxml2.xml
	$(BUILD)/writer_catalog floor 4M $(BUILD)/catalog-floor.xml
	cmp $(BUILD)/catalog-stax.xml $(BUILD)/catalog-libxml2.xml
	cmp $(BUILD)/catalog-stax.xml $(BUILD)/catalog-floor.xml
	xmllint --noout $(BUILD)/catalog-stax.xml

# The stanza program (bench/writer_stanza.c): XMPP messages one at a time,
# each flushed; stax's namespace-aware calls in fragment mode, and libxml2.
#   make writer-stanza-check       both write the same bytes
$(BUILD)/writer_stanza: bench/writer_stanza.c $(BUILD)/libstax.a
	@mkdir -p $(dir $@)
	$(CC) $(WRITER_BENCH_CFLAGS) -I. $$(pkg-config --cflags libxml-2.0) -o $@ bench/writer_stanza.c $(BUILD)/libstax.a $$(pkg-config --libs libxml-2.0) -lpthread

.PHONY: writer-stanza-check
writer-stanza-check: $(BUILD)/writer_stanza
	$(BUILD)/writer_stanza stax 20000 $(BUILD)/stanza-stax.xml
	$(BUILD)/writer_stanza libxml2 20000 $(BUILD)/stanza-libxml2.xml
	cmp $(BUILD)/stanza-stax.xml $(BUILD)/stanza-libxml2.xml
	{ printf '<stream:stream xmlns="jabber:client" xmlns:stream="http://etherx.jabber.org/streams">'; \
	  cat $(BUILD)/stanza-stax.xml; printf '</stream:stream>'; } | xmllint --noout -
