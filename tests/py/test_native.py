"""On a CPython built with --enable-pystats (NATIVE_PYTHON, e.g. from
native-cpython.sh 3.13): the API drives the interpreter's own counters,
and the collector's counts agree with them family by family.

Skipped when NATIVE_PYTHON is not set.  tests/run.py builds the
extension for it into build/py<X.Y>-native and sets PYSTATS_NATIVE_BUILD.
"""
import json
import os
import subprocess
import sys

import pytest

from conftest import HERE, clean_env, native_stats_dir

NATIVE = os.environ.get("NATIVE_PYTHON")
BUILD = os.environ.get("PYSTATS_NATIVE_BUILD")
pytestmark = pytest.mark.skipif(not (NATIVE and BUILD),
                                reason="NATIVE_PYTHON not set")

SCRIPT = r'''
import glob, json, os, sys, dis, opcode
import pystats
sys.path.insert(0, os.environ["TESTS_PY"])
import workloads

NATIVE_DIR = "/tmp/py_stats"   # fixed by CPython

def natives():
    # CPython's own files, not the dumps other processes' collectors
    # write there by default (pystats-PID-*.txt)
    return {p for p in glob.glob(NATIVE_DIR + "/*.txt")
            if not os.path.basename(p).startswith("pystats-")}

def native_dump():
    before = natives()
    wrote = pystats.dump()
    new = sorted(natives() - before)
    exe, att = {}, {}
    for path in new:
        with open(path) as f:
            for line in f:
                key, _, val = line.strip().rpartition(":")
                key = key.strip()
                if not key.startswith("opcode["):
                    continue
                name = key[7:key.index("]")]
                if key.endswith("].execution_count"):
                    exe[name] = exe.get(name, 0) + int(val)
                elif key.endswith(".specialization.success") or \
                        key.endswith(".specialization.failure"):
                    att[name] = att.get(name, 0) + int(val)
        os.unlink(path)
    return wrote, len(new), exe, att

family = {}
for base, forms in opcode._specializations.items():
    for f in forms:
        family[f] = base

out = {"backend": pystats.backend()}
sys._stats_off(); sys._stats_clear()
name = sys.argv[1]
mod = workloads.load(name)
# 3.14 closes a generator suspended at a yield without running its frame
# only when no tool has PY_UNWIND events (gen_close in
# Objects/genobject.c); the collector has them, so the native run gets
# them too, delivered to a C callable (slice) that runs no bytecode.  Set
# before the warm-up run: code whose instrumentation is out of date runs
# its RESUME twice (once to bring it up to date).
unwind_tool = None
if sys.version_info >= (3, 14):
    unwind_tool = 1
    sys.monitoring.use_tool_id(unwind_tool, "unwind")
    sys.monitoring.register_callback(unwind_tool,
                                     sys.monitoring.events.PY_UNWIND, slice)
    sys.monitoring.set_events(unwind_tool, sys.monitoring.events.PY_UNWIND)
mod.run()
result = pystats.measure(mod.run)
if unwind_tool is not None:
    sys.monitoring.set_events(unwind_tool, 0)
    sys.monitoring.free_tool_id(unwind_tool)
out["wrote"], out["files"], exe, att = native_dump()
fam = {}
for op, n in exe.items():
    b = family.get(op, op)
    fam[b] = fam.get(b, 0) + n
for op, n in att.items():
    fam[op] = fam.get(op, 0) - n      # each attempt re-runs the instruction
# What the native build executes and the collector by design does not
# see, or the other way round (docs/FORMAT.md, "Native counts"):
def take(name):
    return fam.pop(name, 0)
# - the trampoline frame CPython pushes when C code (here: measure)
#   calls Python, and the shim frame of CALL_ALLOC_AND_ENTER_INIT
#   (EXIT_INIT_CHECK, RETURN_VALUE): in no code object the user wrote;
take("INTERPRETER_EXIT")
fam["RETURN_VALUE"] = fam.get("RETURN_VALUE", 0) - take("EXIT_INIT_CHECK")
# - instructions before RESUME, which no event reports: MAKE_CELL,
#   COPY_FREE_VARS, a generator's (or coroutine's) RETURN_GENERATOR at
#   creation and the POP_TOP after it, which runs at its first
#   resumption (every generator of these workloads is resumed);
take("MAKE_CELL"); take("COPY_FREE_VARS")
fam["POP_TOP"] = fam.get("POP_TOP", 0) - take("RETURN_GENERATOR")
# - a for loop that exhausts a generator through FOR_ITER_GEN returns
#   into its END_FOR (and on 3.13 the POP_TOP after it; 3.14 goes on to
#   the POP_ITER a stock FOR_ITER jumps to as well), which a stock
#   FOR_ITER jumps over: every native END_FOR is one such exhaustion.
ends = take("END_FOR")
if (3, 13) <= sys.version_info < (3, 14):
    fam["POP_TOP"] = fam.get("POP_TOP", 0) - ends
# - instructions a specialized form skips: CALL_LIST_APPEND skips the
#   POP_TOP after it, BINARY_OP_INPLACE_ADD_UNICODE the STORE_FAST.
fam["POP_TOP"] = fam.get("POP_TOP", 0) + exe.get("CALL_LIST_APPEND", 0)
fam["STORE_FAST"] = fam.get("STORE_FAST", 0) + \
    exe.get("BINARY_OP_INPLACE_ADD_UNICODE", 0)
out["native"] = {k: v for k, v in fam.items() if v}
try:
    pystats.snapshot()
    out["snapshot"] = "allowed"
except RuntimeError:
    out["snapshot"] = "refused"
pystats.set_backend("own")
pystats.clear()
assert pystats.measure(mod.run) == result
out["own"] = pystats.snapshot()["execution_count"]
# - 3.14: a POP_JUMP_IF_* that does not jump skips the NOT_TAKEN after it,
#   unless that NOT_TAKEN is instrumented, as the collector's BRANCH_LEFT
#   event has it: the collector counts every NOT_TAKEN, the native build
#   only those after no POP_JUMP_IF_* (after an async for's END_SEND).
#   Compared apart.
out["own_not_taken"] = out["own"].pop("NOT_TAKEN", 0)
out["native_not_taken"] = out["native"].pop("NOT_TAKEN", 0)
pystats.clear()
print(json.dumps(out))
'''


def run_native(name):
    env = clean_env(PYTHONPATH=BUILD, TESTS_PY=HERE)
    with native_stats_dir():
        p = subprocess.run([NATIVE, "-c", SCRIPT, name], env=env,
                           capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", ["loops", "attrs", "closures", "branches",
                                  "exceptions", "strings", "dicts",
                                  "pp_generators", "pp_coroutines",
                                  "pp_classes"])
def test_native_counters_driven_and_agree_by_family(name):
    out = run_native(name)
    assert out["backend"] == "native"
    assert out["wrote"] is True and out["files"] == 1
    assert out["snapshot"] == "refused"
    # The collector counts base instructions; the native build counts each
    # specialized form, plus one extra execution for every specialization
    # attempt (the instruction is dispatched again after specializing).
    assert out["own"] == out["native"]
    assert sum(out["own"].values()) > 100
    if sys.version_info >= (3, 14):
        assert out["own_not_taken"] >= out["native_not_taken"]
    else:
        assert out["own_not_taken"] == out["native_not_taken"] == 0
