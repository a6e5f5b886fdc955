# pystats: build, install, test and benchmark.
#
#   make                      build the extension for $(PYTHON) and build/pystats
#   make install PYTHON=...   install the module and startup hook into that
#                             interpreter's site-packages, and the command
#   make test                 every test, against every CPython 3.11-3.13 found
#   make bench                overhead and throughput benchmarks (ratios)
#   make SANITIZER=address    build with ASan (also: undefined)
#   make WERROR=1             treat warnings as errors

PYTHON    ?= python3
CC        ?= cc
PREFIX    ?= /usr/local
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

.PHONY: all ext cli install install-ext install-cli test test-c test-golden bench example clean faults
all: ext cli

# The shared core: no Python.h, used by both programs.
FORMAT_SRC := $(wildcard src/format/*.c)

include src/ext/build.mk
-include src/cli/build.mk

install: install-ext install-cli

test:
	$(PYTHON) tests/run.py

bench:
	$(PYTHON) bench/run.py

# The bundled example: install into a virtual environment, run
# examples/mixed.py under -X pystats, show the dump and its summary.
EXAMPLE_VENV := $(BUILD)/venv-example
EXAMPLE_OUT  := $(BUILD)/example-stats
example: cli
	@test -x $(EXAMPLE_VENV)/bin/python || $(PYTHON) -m venv $(EXAMPLE_VENV)
	@$(MAKE) -s install-ext PYTHON=$(EXAMPLE_VENV)/bin/python
	@rm -rf $(EXAMPLE_OUT)
	$(EXAMPLE_VENV)/bin/python -X pystats -X pystats_dir=$(EXAMPLE_OUT) examples/mixed.py
	@echo "--- the dump ($$(ls $(EXAMPLE_OUT))), first 30 lines:"
	@head -n 30 $(EXAMPLE_OUT)/*.txt
	@echo "--- summarized:"
	$(BUILD)/pystats summarize $(EXAMPLE_OUT)

# The fault-injection shim of tests/py/test_faults.py (LD_PRELOAD):
# makes file system calls fail on demand, see tests/faults/faultshim.c.
FAULTS_SO := $(BUILD)/faults/libfaultshim.so
faults: $(FAULTS_SO)
$(FAULTS_SO): tests/faults/faultshim.c
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(WARN) -std=c11 -fPIC -shared -o $@ $< -ldl

clean:
	rm -rf $(BUILD)
