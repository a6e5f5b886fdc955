# pystats: build, install, test and benchmark.
#
#   make                      build the extension for $(PYTHON) and build/pystats
#   make install PYTHON=...   install the module and startup hook into that
#                             interpreter's site-packages, and the command
#   make test                 every test, against every CPython 3.11-3.14 found
#   make test-full            the same with the whole real-world corpus
#                             (and every allocation of the collector's
#                             dump() failed in turn)
#   make wheels               a manylinux wheel per CPython found, into
#                             build/wheels (tools/wheels.py; WHEELS_ARGS=--pgo
#                             builds them profile-guided)
#   make bench                overhead and throughput benchmarks (ratios),
#                             the summary of the last make bench-real and
#                             the tables of the last make bench-events
#   make bench-events         mode count's cost by event kind (callgrind)
#   make ext-pgo              the extension built profile-guided (gcc),
#                             into build/pgo; make bench-pgo times it
#   make bench-real           what collection costs on 14 pyperformance
#                             benchmarks, per interpreter (not in make test;
#                             about 850 s of CPU time, 2 processes at a time)
#   make SANITIZER=address    build with ASan (also: undefined)
#   make WERROR=1             treat warnings as errors
#   make DEBUG=1              the asserts of the extension, the command and
#                             src/format on, -O0 -g, into build/debug (make
#                             test runs the Python suite once against it,
#                             with test-asan)
#   make test-format          src/ against .clang-format (clang-format 14)
#   make test-asan            the Python suite against the extension built
#                             with ASan, UBSan and DEBUG=1 (ASAN_PYTHON:
#                             which Python)

PYTHON    ?= python3
CC        ?= cc
PREFIX    ?= /usr/local
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
ifeq ($(DEBUG),1)
BUILD     ?= build/debug
OPT       := -O0 -g
endif
BUILD     ?= build
OPT       ?= -O2 -g
WARN      := -Wall -Wextra
ifeq ($(WERROR),1)
WARN      += -Werror
endif
ifneq ($(SANITIZER),)
SANFLAGS  := -fsanitize=$(SANITIZER) -fno-omit-frame-pointer
endif
CFLAGS_ALL = $(OPT) $(WARN) $(SANFLAGS) -std=c11 -D_GNU_SOURCE $(CFLAGS)
LDFLAGS_ALL = $(SANFLAGS) $(LDFLAGS)

.PHONY: bench-events bench-pgo ext-pgo wheels all ext cli install install-ext install-cli test test-quick test-full test-c test-golden bench bench-real example clean faults test-asan test-format
all: ext cli

# The shared core: no Python.h, used by both programs.
FORMAT_SRC := $(wildcard src/format/*.c)

include src/ext/build.mk
-include src/cli/build.mk
-include tests/fuzz/fuzz.mk

install: install-ext install-cli

# A missing build tool or library is one line naming the package to
# install (Debian's names; .ci/run installs them all), not a compiler's
# error.  The checks run before anything that needs them is compiled.
need = { echo "pystats: $(1): install $(2)" >&2; exit 1; }
need-header = printf '\#include <%s>\n' $(1) | $(CC) $(2) -E -x c - >/dev/null 2>&1 || \
    $(call need,$(1) not found,$(3))
FUZZER_PROBE = 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d == 0 && n; }'
.PHONY: need-cc need-jansson need-cmocka need-fuzzer need-asan
need-cc:
	@command -v $(firstword $(CC)) >/dev/null 2>&1 || $(call need,no C compiler $(CC),build-essential)
need-jansson: need-cc
	@$(call need-header,jansson.h,$(JANSSON_CFLAGS),libjansson-dev)
need-cmocka: need-cc
	@$(call need-header,cmocka.h,$(CMOCKA_CFLAGS),libcmocka-dev)
need-fuzzer:
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || \
	    $(call need,no $(FUZZ_CC) to build the libFuzzer harnesses,clang-14 libclang-rt-14-dev)
	@echo $(FUZZER_PROBE) | $(FUZZ_CC) -fsanitize=fuzzer -x c - -o /dev/null >/dev/null 2>&1 || \
	    $(call need,$(FUZZ_CC) cannot link libFuzzer,libclang-rt-14-dev)
need-asan: need-cc
	@for f in $(ASAN_RT); do test -f "$$f" || \
	    $(call need,$(CC) has no sanitizer runtime $$f,build-essential (gcc and its libasan and libubsan)); done
# The objects that include jansson.h or cmocka.h, and the fuzz builds.
$(CLI_OBJ): | need-jansson
$(TESTC_BIN): | need-cmocka
$(FUZZ_BINS) $(BUILD)/fuzz/fuzz-expr: | need-fuzzer

test:
	$(PYTHON) tests/run.py

# The loop of a change in progress: the C unit, golden and style suites
# and the Python suite with the newest interpreter (tests/run.py).
test-quick:
	PYSTATS_QUICK=1 $(PYTHON) tests/run.py

# The same, with the whole real-world corpus (tests/py/test_realworld.py)
# and a long run of the round-trip property test.
test-full:
	PYSTATS_FULL_TESTS=1 PYSTATS_ROUNDTRIP_EXAMPLES=$${PYSTATS_ROUNDTRIP_EXAMPLES:-300} \
	    $(PYTHON) tests/run.py

wheels:
	$(PYTHON) tools/wheels.py $(WHEELS_ARGS)

bench:
	@$(PYTHON) bench/run.py --reference; s=$$?; echo; \
	    BUILD=$(abspath $(BUILD)) $(PYTHON) bench/real.py --last; echo; \
	    BUILD=$(abspath $(BUILD)) $(PYTHON) bench/events.py --last; exit $$s

# Mode count's cost by event kind (bench/events.py): per benchmark the
# events per unit of work, the callback's machine instructions per call
# by kind, CPython's delivery per event and how often each slow path is
# taken (callgrind); saved in $(BUILD)/bench-events.md, which make bench
# prints.  BENCH_EVENTS_ARGS: by default the four benchmarks with the
# most events per instruction.
BENCH_EVENTS_ARGS ?= --only generators,hexiom,richards,deltablue
bench-events:
	BUILD=$(abspath $(BUILD)) $(PYTHON) bench/events.py $(BENCH_EVENTS_ARGS)

# What profile-guided optimisation (make ext-pgo) does to mode count's
# cost, in CPU time (bench/pgo.py).
bench-pgo:
	BUILD=$(abspath $(BUILD)) $(PYTHON) bench/pgo.py $(BENCH_PGO_ARGS)

# Callgrind instruction ratios of every mode to a plain run on real code
# (bench/real.py), then pyperf's wall-clock view; the tables are saved in
# $(BUILD)/bench-real.md.  BENCH_REAL_ARGS: e.g. --no-wall, --only nbody,go.
bench-real:
	BUILD=$(abspath $(BUILD)) $(PYTHON) bench/real.py $(BENCH_REAL_ARGS)

# The bundled example: examples/mixed.py run under `pystats run` with the
# newest CPython found (3.12+ shows the specialization census; EXAMPLE_PYTHON
# picks another), installed into a virtual environment of its own and
# built in parallel; prints the headline, the source view of the hottest
# function and where the full reports are.
EXAMPLE_PYTHON ?= $(or $(shell $(PYTHON) tools/pythons.py --newest 2>/dev/null),$(PYTHON))
EXAMPLE_VENV   := $(BUILD)/venv-example
EXAMPLE_OUT    := $(BUILD)/example-stats
example:
	@$(MAKE) -s -j$(JOBS) cli
	@want=$$($(EXAMPLE_PYTHON) -c 'import sys; print(sys.version.split()[0])'); \
	    have=$$($(EXAMPLE_VENV)/bin/python -c 'import sys; print(sys.version.split()[0])' 2>/dev/null); \
	    if [ "$$want" != "$$have" ]; then rm -rf $(EXAMPLE_VENV) && $(EXAMPLE_PYTHON) -m venv $(EXAMPLE_VENV); fi
	@$(MAKE) -s -j$(JOBS) install-ext PYTHON=$(EXAMPLE_VENV)/bin/python >/dev/null
	@rm -rf $(EXAMPLE_OUT)
	@echo "$$ pystats run -o $(EXAMPLE_OUT) -- python examples/mixed.py    # $$($(EXAMPLE_VENV)/bin/python -c 'import sys; print("Python", sys.version.split()[0])')"
	@$(BUILD)/pystats run -o $(EXAMPLE_OUT) -- $(EXAMPLE_VENV)/bin/python examples/mixed.py >/dev/null
	@echo
	@echo "$$ pystats annotate $(EXAMPLE_OUT) --top 1"
	@$(BUILD)/pystats annotate $(EXAMPLE_OUT) --top 1
	@echo
	@echo "Full reports: $(EXAMPLE_OUT)/report/summary.html (open in a browser), summary.md, summary.json"
	@echo "Source view as a page: $(BUILD)/pystats annotate $(EXAMPLE_OUT) --html annotate.html"

# The Python suite against the extension built with AddressSanitizer and
# UndefinedBehaviorSanitizer, in a virtual environment of its own, the
# runtimes preloaded into every Python process of the suite, with
# PYTHONMALLOC=malloc so that ASan sees Python's allocations too.  Leak
# detection is off: CPython itself does not free everything at exit.
# Built with DEBUG=1 as well: the collector's asserts (and the
# CPython headers') are on, so that this run is also the suite's run
# against the debug build, where a broken invariant stops the process.
# The slow suites (packaging, pyperf) are skipped.  Ends with
# "asan-X.Y: N passed, N failed, N skipped".
ASAN_PYTHON ?= $(shell $(PYTHON) tools/pythons.py --newest 2>/dev/null)
ASAN_VER     = $(shell $(ASAN_PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
ASAN_VENV    = $(BUILD)/venv-asan-$(ASAN_VER)
ASAN_XML     = $(BUILD)/junit-asan-$(ASAN_VER).xml
ASAN_RT      = $(shell $(CC) -print-file-name=libasan.so) $(shell $(CC) -print-file-name=libubsan.so)
# The load test (64 processes x 16 threads, forking) is about scale, not
# memory errors: under the sanitizers it runs past its time limit.
test-asan: need-asan faults
	@test -n "$(ASAN_PYTHON)" || { echo "test-asan: no Python (ASAN_PYTHON=...)" >&2; exit 1; }
	@test -x $(ASAN_VENV)/bin/python || $(ASAN_PYTHON) -m venv $(ASAN_VENV)
	@$(ASAN_VENV)/bin/python -c 'import pytest' 2>/dev/null || \
	    $(ASAN_VENV)/bin/python -m pip install -q --disable-pip-version-check pytest
	$(MAKE) -s install-ext BUILD=$(BUILD)/asan SANITIZER=address,undefined \
	    DEBUG=1 PYTHON=$(ASAN_VENV)/bin/python
	@rm -f $(ASAN_XML)
	-LD_PRELOAD="$(ASAN_RT)" PYTHONMALLOC=malloc \
	    ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:halt_on_error=1 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    PYSTATS_QUICK_TESTS=1 PYTHONDONTWRITEBYTECODE=1 \
	    $(ASAN_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/py \
	    --ignore tests/py/test_load.py --junitxml $(ASAN_XML)
	@$(PYTHON) -c 'import sys, xml.etree.ElementTree as E; \
	    r = E.parse(sys.argv[1]).getroot(); s = [r] if r.tag == "testsuite" else list(r); \
	    n = lambda k: sum(int(x.get(k, 0)) for x in s); bad = n("failures") + n("errors"); \
	    print("asan-%s: %d passed, %d failed, %d skipped" % (sys.argv[2], n("tests") - bad - n("skipped"), bad, n("skipped"))); \
	    sys.exit(1 if bad else 0)' $(ASAN_XML) $(ASAN_VER)

# The sources against the style .clang-format states, with clang-format
# 14 (its options differ between versions); one line per file that
# differs, then "format: N passed, N failed".  All of src/ but the
# generated tables; src/cli at 100 columns (src/cli/.clang-format).
CLANG_FORMAT   ?= $(or $(shell command -v clang-format-14 2>/dev/null),clang-format)
FORMAT_CHECKED := $(wildcard src/ext/*.c src/ext/*.h src/cli/*.c src/cli/*.h) \
                  $(filter-out src/format/psf_tables_data.c,$(wildcard src/format/*.c src/format/*.h))
test-format:
	@command -v $(CLANG_FORMAT) >/dev/null || { echo "test-format: no $(CLANG_FORMAT) (apt-get install clang-format-14)" >&2; \
	    echo "format: 0 passed, 1 failed"; exit 1; }
	@pass=0; fail=0; for f in $(FORMAT_CHECKED); do \
	    if $(CLANG_FORMAT) --dry-run -Werror $$f >/dev/null 2>&1; then pass=$$((pass+1)); \
	    else fail=$$((fail+1)); echo "$$f: not formatted as .clang-format says ($(CLANG_FORMAT) -i $$f)"; fi; \
	done; echo "format: $$pass passed, $$fail failed"; test $$fail -eq 0

# The fault-injection shim of tests/py/test_faults.py (LD_PRELOAD):
# makes file system calls fail on demand, see tests/faults/faultshim.c.
FAULTS_SO := $(BUILD)/faults/libfaultshim.so
faults: $(FAULTS_SO)
$(FAULTS_SO): tests/faults/faultshim.c
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(WARN) -std=c11 -fPIC -shared -o $@ $< -ldl

clean:
	rm -rf $(BUILD)
