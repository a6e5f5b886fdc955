# src/cli/build.mk: the pystats command, its C unit tests and golden tests.
# Included by the top-level Makefile, which defines CC, BUILD, CFLAGS_ALL,
# LDFLAGS_ALL, PREFIX and FORMAT_SRC.
#
#   cli           build $(BUILD)/pystats
#   install-cli   install it into $(DESTDIR)$(PREFIX)/bin
#   test-c        cmocka unit tests of src/format and src/cli pieces
#   test-golden   golden and bad-input tests of $(BUILD)/pystats
#   test-html     the HTML reports rendered in headless Chromium
#   fuzz-expr     libFuzzer on the --fail-if expression parser for
#                 FUZZ_EXPR_SECONDS (default 30; clang-14)
#   tables        regenerate src/format/psf_tables_data.c from data/tables

FORMAT_SRC ?= $(wildcard src/format/*.c)
CLI_SRC    := $(wildcard src/cli/*.c)
CLI_OBJ    := $(patsubst src/cli/%.c,$(BUILD)/cli/%.o,$(CLI_SRC))
CLI_LIBOBJ := $(filter-out $(BUILD)/cli/main.o,$(CLI_OBJ))
FMT_OBJ    := $(patsubst src/format/%.c,$(BUILD)/format/%.o,$(FORMAT_SRC))
TESTC_SRC  := $(wildcard tests/c/test_*.c)
TESTC_BIN  := $(patsubst tests/c/%.c,$(BUILD)/tests/c/%,$(TESTC_SRC))

JANSSON_CFLAGS := $(shell pkg-config --cflags jansson 2>/dev/null)
# libm too: compare --by-label's geometric mean (log, exp).
JANSSON_LIBS   := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson) -lm
CMOCKA_CFLAGS  := $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS    := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

.PHONY: cli install-cli test-c test-golden test-html fuzz-expr tables

cli: $(BUILD)/pystats

$(BUILD)/pystats: $(CLI_OBJ) $(FMT_OBJ)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(JANSSON_LIBS) -pthread

# The assert()s of the command and of the format library (the
# invariants their headers state): on with DEBUG=1 (Makefile), off
# (NDEBUG) in the release build, as the collector's (src/ext/build.mk).
CLI_NDEBUG = $(if $(filter 1,$(DEBUG)),,-DNDEBUG)

$(BUILD)/cli/%.o: src/cli/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(CLI_NDEBUG) $(JANSSON_CFLAGS) -pthread -MMD -MP -c $< -o $@

$(BUILD)/format/%.o: src/format/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(CLI_NDEBUG) -MMD -MP -c $< -o $@

$(BUILD)/tests/c/%: tests/c/%.c $(CLI_LIBOBJ) $(FMT_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(CMOCKA_CFLAGS) $(JANSSON_CFLAGS) -Isrc -o $@ $^ \
	    $(LDFLAGS_ALL) $(CMOCKA_LIBS) $(JANSSON_LIBS) -pthread

-include $(CLI_OBJ:.o=.d) $(FMT_OBJ:.o=.d)

install-cli: $(BUILD)/pystats
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/pystats $(DESTDIR)$(PREFIX)/bin/pystats

test-c: $(TESTC_BIN)
	sh tests/c/run.sh $(BUILD)/tests/c

test-golden: $(BUILD)/pystats
	sh tests/golden/run.sh $(BUILD)/pystats

test-html: $(BUILD)/pystats
	python3 tests/html/test_html.py $(BUILD)/pystats $(BUILD)/html

FUZZ_EXPR_CC      ?= clang-14
FUZZ_EXPR_SECONDS ?= 30
FUZZ_EXPR_SRC     := tests/fuzz/fuzz_expr.c src/cli/compare_expr.c src/cli/util.c \
                     src/format/psf_detect.c src/format/psf_text.c
$(BUILD)/fuzz/fuzz-expr: $(FUZZ_EXPR_SRC) src/cli/compare_expr.h src/cli/cli.h
	@mkdir -p $(dir $@)
	$(FUZZ_EXPR_CC) -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=undefined -o $@ $(FUZZ_EXPR_SRC) -lm

fuzz-expr: $(BUILD)/fuzz/fuzz-expr
	@mkdir -p $(BUILD)/fuzz/corpus/expr
	$(BUILD)/fuzz/fuzz-expr -max_total_time=$(FUZZ_EXPR_SECONDS) -max_len=512 \
	    -dict=tests/fuzz/expr.dict -artifact_prefix=$(BUILD)/fuzz/crash-expr- \
	    $(BUILD)/fuzz/corpus/expr tests/fuzz/seeds-expr

tables:
	awk -f src/format/psf_tables_gen.awk data/tables/*.tsv > src/format/psf_tables_data.c
