# tests/fuzz/fuzz.mk: libFuzzer harnesses for every input parser of the
# pystats command (tests/fuzz/fuzz_load.c) and for sets of files read as
# a directory (tests/fuzz/fuzz_set.c, entry "set"), for JSON summaries
# read back (tests/fuzz/fuzz_roundtrip.c, entry "roundtrip"), built with clang's
# -fsanitize=fuzzer plus ASan and UBSan.  Included by the top-level
# Makefile.
#
#   fuzz        run each harness for FUZZ_SECONDS (default 60), growing a
#               corpus under $(BUILD)/fuzz/corpus; crashes land in
#               $(BUILD)/fuzz/crash-<entry>-*
#   test-fuzz   the quick suite: the regression inputs of
#               tests/golden/bad-input, then each harness for
#               FUZZ_QUICK_SECONDS (default 10); ends with
#               "fuzz: N passed, N failed"

FUZZ_CC            ?= clang-14
FUZZ_SECONDS       ?= 60
FUZZ_QUICK_SECONDS ?= 10
FUZZ_ENTRIES       := native own summary cpython
FUZZ_BUILD         := $(BUILD)/fuzz
FUZZ_CFLAGS        := -g -O1 -std=c11 -D_GNU_SOURCE \
                      -fsanitize=fuzzer,address,undefined \
                      -fno-sanitize-recover=undefined $(JANSSON_CFLAGS)
# main.c is the program's, not the harness's.
FUZZ_LIB_SRC       := $(filter-out src/cli/main.c,$(wildcard src/cli/*.c)) \
                      $(wildcard src/format/*.c)
FUZZ_BINS          := $(patsubst %,$(FUZZ_BUILD)/fuzz-%,$(FUZZ_ENTRIES)) $(FUZZ_BUILD)/fuzz-set \
                      $(FUZZ_BUILD)/fuzz-roundtrip
FUZZ_SET_SRC       := $(FUZZ_LIB_SRC)

fuzz_entry_native  := 1
fuzz_entry_own     := 2
fuzz_entry_summary := 3
fuzz_entry_cpython := 4

.PHONY: fuzz-build fuzz test-fuzz

fuzz-build: $(FUZZ_BINS)

$(FUZZ_BUILD)/fuzz-%: tests/fuzz/fuzz_load.c $(FUZZ_LIB_SRC) $(wildcard src/cli/*.h src/format/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -DFUZZ_ENTRY=$(fuzz_entry_$*) -o $@ \
	    tests/fuzz/fuzz_load.c $(FUZZ_LIB_SRC) $(JANSSON_LIBS) -pthread

$(FUZZ_BUILD)/fuzz-set: tests/fuzz/fuzz_set.c $(FUZZ_SET_SRC) $(wildcard src/cli/*.h src/format/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_set.c $(FUZZ_SET_SRC) $(JANSSON_LIBS) -pthread

# A dump read into a JSON summary, read back: the same summary
# (tests/fuzz/fuzz_roundtrip.c, entry "roundtrip").
$(FUZZ_BUILD)/fuzz-roundtrip: tests/fuzz/fuzz_roundtrip.c $(FUZZ_LIB_SRC) $(wildcard src/cli/*.h src/format/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_roundtrip.c $(FUZZ_LIB_SRC) $(JANSSON_LIBS) -pthread

fuzz: $(FUZZ_BINS)
	sh tests/fuzz/run.sh long $(FUZZ_SECONDS) $(FUZZ_BUILD)

test-fuzz: $(FUZZ_BINS) $(FUZZ_BUILD)/fuzz-expr
	sh tests/fuzz/run.sh quick $(FUZZ_QUICK_SECONDS) $(FUZZ_BUILD)
