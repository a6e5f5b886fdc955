# src/ext/build.mk: the CPython extension pystats._collector, built for
# $(PYTHON) into $(BUILD)/py<X.Y>[t][-native]/ together with the package's Python
# files, so that PYTHONPATH=$(BUILD)/py<X.Y> imports it uninstalled.

# py<X.Y> for ordinary builds, py<X.Y>t for a free-threaded one,
# py<X.Y>-native for one built with --enable-pystats, so that no two
# share objects.
PY_INFO   := $(shell $(PYTHON) -c 'import sys, sysconfig; print("%d.%d" % sys.version_info[:2] + ("t" if sysconfig.get_config_var("Py_GIL_DISABLED") else "") + ("-native" if hasattr(sys, "_stats_on") else ""), sysconfig.get_paths()["include"], sysconfig.get_config_var("EXT_SUFFIX"), sysconfig.get_paths()["purelib"])' 2>/dev/null)
PY_VER    := $(word 1,$(PY_INFO))
PY_INC    := $(word 2,$(PY_INFO))
PY_SUFFIX := $(word 3,$(PY_INFO))
PY_SITE   := $(word 4,$(PY_INFO))
EXT_DIR   := $(BUILD)/py$(PY_VER)
EXT_OBJ   := $(BUILD)/py$(PY_VER)/obj
EXT_SRC   := $(wildcard src/ext/*.c) src/format/psf_write.c src/format/psf_text.c
EXT_OBJS  := $(patsubst src/%.c,$(EXT_OBJ)/%.o,$(EXT_SRC))
EXT_SO    := $(EXT_DIR)/pystats/_collector$(PY_SUFFIX)
PY_FILES  := $(wildcard python/pystats/*.py)
PY_OUT    := $(patsubst python/%,$(EXT_DIR)/%,$(PY_FILES)) $(EXT_DIR)/pystats_startup.py
# NDEBUG as in CPython's own extension builds: the headers' assertions
# (type checks in every Py_INCREF and PyLong accessor) and the
# collector's own stay out of the per-event paths.  DEBUG=1 (Makefile)
# keeps them all: an invariant broken stops the process there.
EXT_NDEBUG = $(if $(filter 1,$(DEBUG)),,-DNDEBUG)
EXT_CFLAGS = $(CFLAGS_ALL) $(EXT_NDEBUG) $(EXT_PGO) -fPIC -fvisibility=hidden -I$(PY_INC)

ext: check-python $(EXT_SO) $(PY_OUT)

check-python:
	@test -n "$(PY_VER)" || { echo "pystats: cannot run PYTHON=$(PYTHON)" >&2; exit 1; }

$(EXT_OBJ)/%.o: src/%.c $(wildcard src/ext/*.h src/format/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(EXT_CFLAGS) -c $< -o $@

$(EXT_SO): $(EXT_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS_ALL) $(EXT_PGO) -o $@ $(EXT_OBJS) -lpthread

$(EXT_DIR)/pystats/%.py: python/pystats/%.py
	@mkdir -p $(dir $@)
	cp $< $@

$(EXT_DIR)/pystats_startup.py: python/pystats_startup.py
	@mkdir -p $(dir $@)
	cp $< $@

# Profile-guided (gcc): the extension built instrumented into
# $(BUILD)/pgo, trained by bench/pgo_train.py (the corpus and the example
# in every mode), then built again from that profile in the same place,
# so that each object finds its own profile.  Install it with
# `make install-ext BUILD=$(BUILD)/pgo`.  Its effect is in cycles (code
# layout, branch prediction), not in instruction counts: bench/pgo.py
# measures it in wall time.
PGO_DIR = $(BUILD)/pgo
ext-pgo: check-python
	rm -rf $(PGO_DIR)/py$(PY_VER)
	$(MAKE) -s ext BUILD=$(PGO_DIR) EXT_PGO="-fprofile-generate -fprofile-update=single"
	PYTHONPATH=$(PGO_DIR)/py$(PY_VER) $(PYTHON) bench/pgo_train.py
	rm -f $(PGO_DIR)/py$(PY_VER)/pystats/_collector$(PY_SUFFIX)
	find $(PGO_DIR)/py$(PY_VER)/obj -name '*.o' -delete
	$(MAKE) -s ext BUILD=$(PGO_DIR) EXT_PGO="-fprofile-use -fprofile-partial-training -Wno-missing-profile"

# Into the interpreter's site-packages (a virtual environment included):
# the package, the startup module, and the .pth line that runs it when
# -X pystats or PYTHONSTATS asks for collection.
install-ext: ext
	@mkdir -p $(DESTDIR)$(PY_SITE)/pystats
	# a new file, never the old one overwritten in place: a running
	# process may have the old extension mapped
	cp --remove-destination $(EXT_SO) $(EXT_DIR)/pystats/*.py $(DESTDIR)$(PY_SITE)/pystats/
	cp $(EXT_DIR)/pystats_startup.py $(DESTDIR)$(PY_SITE)/
	cp python/pystats-startup.pth $(DESTDIR)$(PY_SITE)/

uninstall-ext:
	rm -rf $(DESTDIR)$(PY_SITE)/pystats $(DESTDIR)$(PY_SITE)/pystats_startup.py $(DESTDIR)$(PY_SITE)/pystats-startup.pth

.PHONY: check-python uninstall-ext

print-ext-dir:
	@echo $(abspath $(EXT_DIR))

.PHONY: print-ext-dir
