# The W3C suite runners (included by the Makefile): build/conformance (stax,
# its link rule is in the Makefile) and build/conformance_expat (the same
# selection, rules and report, on expat). Both compile in tests/xmlconf.c, the
# shared part: the test list, the verdicts, the report.
$(BUILD)/obj/tests/conformance.o $(BUILD)/obj/tests/conformance_expat.o: tests/xmlconf.c

# expat is only the parser under test; the list is still read with stax.
$(BUILD)/conformance_expat: $(BUILD)/obj/tests/conformance_expat.o $(BUILD)/libstax.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ -lexpat

.PHONY: conformance-expat conformance-both
conformance-expat: $(BUILD)/conformance_expat
	sh tools/fetch-suite.sh build/xmlconf
	$(BUILD)/conformance_expat build/xmlconf/package $(CONF_ARGS)

# stax's tables with expat's beside them (what docs/conformance.md shows).
# expat has failures (exit 1); that is its result, not an error here.
conformance-both: $(BUILD)/conformance $(BUILD)/conformance_expat
	sh tools/fetch-suite.sh build/xmlconf
	$(BUILD)/conformance_expat build/xmlconf/package --quiet --verdicts $(BUILD)/expat.verdicts \
	  --markdown $(BUILD)/conformance_expat.md || [ $$? -eq 1 ]
	$(BUILD)/conformance build/xmlconf/package --beside $(BUILD)/expat.verdicts \
	  --markdown $(BUILD)/conformance.md $(CONF_ARGS)
