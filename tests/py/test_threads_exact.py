"""Threads running at once are counted exactly: N threads executing the
same code in parallel give the same counts as the same N threads run one
after another, and N times what the pure-Python reference collector
counts for one of them; modes count and instructions agree.  On a
free-threaded build (3.14t) the threads truly run in parallel; on the
default build they interleave under the GIL at points that depend on
timing.  Either way the counts must not.

Threads are started with _thread.start_new_thread and waited for with a
lock the worker releases: no threading module, whose join loops run a
number of times that depends on scheduling, so every thread's own
instruction stream is fixed.  The automatic GC is off in the child
(gc.disable): when a collection starts would depend on every thread's
allocations."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

import workloads
from conftest import clean_env, dumps_in
from reference import Reference, code_key

V312 = sys.version_info >= (3, 12)
FREE_THREADED = bool(__import__("sysconfig").get_config_var("Py_GIL_DISABLED"))
# Straight deterministic workloads: no finalizers, no threads of their own.
NAMES = ["loops", "branches", "closures", "generators", "exceptions",
         "classes", "recursion", "dicts", "pp_generators"]

CHILD = textwrap.dedent("""
    import _thread, gc, json, sys
    gc.disable()
    import pystats, workloads
    names, n, mode, how = sys.argv[1].split(","), int(sys.argv[2]), \\
        sys.argv[3], sys.argv[4]
    mods = [workloads.load(name) for name in names]
    for m in mods:          # warm up: imports, first-call specialization
        m.run()

    def body():
        for m in mods:
            m.run()

    def worker(lock):
        try:
            if how == "measure":
                pystats.measure(body)
            else:
                body()
        finally:
            lock.release()

    def start():
        lock = _thread.allocate_lock()
        lock.acquire()
        _thread.start_new_thread(worker, (lock,))
        return lock

    def parallel():
        locks = [start() for _ in range(n)]
        for lock in locks:
            lock.acquire()

    def sequential():
        for _ in range(n):
            start().acquire()

    pystats._collector._set_measure_mode(mode)
    out = {}
    for name, fn in (("parallel", parallel), ("sequential", sequential)):
        pystats.clear()
        if how == "window":
            pystats.on(mode=mode, census=False)
            fn()
            pystats.off()
        else:
            fn()
        out[name] = pystats.snapshot()["code"]
    out["state"] = pystats._collector._seg_state() if hasattr(
        pystats._collector, "_seg_state") else {}
    out["gil"] = getattr(sys, "_is_gil_enabled", lambda: True)()
    print(json.dumps(out))
""")


def run_child(n, mode, how):
    env = clean_env()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, ",".join(NAMES), str(n), mode, how],
        env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def worker_code(snap):
    """The per-code opcode counts of the workloads' own code (the driver's
    functions differ between the two ways of running)."""
    where = os.path.dirname(os.path.abspath(workloads.__file__))
    return {k: v["opcodes"] for k, v in snap.items()
            if k.startswith(where + os.sep)}


@pytest.fixture(scope="module")
def one_thread():
    """The reference collector's per-code counts of one body()."""
    mods = [workloads.load(name) for name in NAMES]
    for m in mods:
        m.run()
    ref = Reference()
    ref.measure(lambda: [m.run() for m in mods])
    return {k: v for k, v in ref.code_counts.items()
            if k.startswith(os.path.dirname(os.path.abspath(
                workloads.__file__)) + os.sep)}


def times(counts, n):
    return {k: {op: c * n for op, c in v.items()} for k, v in counts.items()}


HOWS = ["measure"] + (["window"] if V312 else [])


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("mode", ["count", "instructions"])
def test_parallel_equals_sequential(one_thread, mode, how):
    n = 8
    out = run_child(n, mode, how)
    par, seq = worker_code(out["parallel"]), worker_code(out["sequential"])
    assert len(par) >= len(NAMES)       # every workload's run() at least
    assert par == seq
    assert par == times(one_thread, n)
    assert out["state"].get("desync", 0) == 0


def test_load_16_threads_count_equals_instructions(one_thread):
    """16 threads at once, in both modes: the counts are 16 times the
    reference's, and count equals instructions."""
    n = 16
    how = "window" if V312 else "measure"
    got = {mode: worker_code(run_child(n, mode, how)["parallel"])
           for mode in ("count", "instructions")}
    assert got["count"] == got["instructions"] == times(one_thread, n)


@pytest.mark.skipif(not FREE_THREADED, reason="a free-threaded build only")
def test_free_threaded_build_counts_with_the_gil(tmp_path):
    """On 3.14t the collector does not yet declare itself safe without the
    GIL, so CPython enables the GIL when it is imported (README, "Free-
    threaded CPython"): the threads above ran under it, and their counts,
    from thread-local copies of the bytecode, are exact.  The dump says
    the build is free-threaded."""
    out = run_child(2, "count", "measure")
    assert out["gil"] is True
    subprocess.run([sys.executable, "-X", "pystats", "-c", "pass"],
                   env=dict(clean_env(), PYSTATS_DIR=str(tmp_path)),
                   capture_output=True, timeout=120, check=True)
    (dump,) = dumps_in(str(tmp_path))
    assert dump.header["meta.python.free_threading"] == "1"


@pytest.mark.skipif(not FREE_THREADED, reason="a free-threaded build only")
def test_gil_forced_off_is_refused(tmp_path):
    """PYTHON_GIL=0 keeps the GIL off despite the collector: collection
    is refused with one line, nothing is written, the program runs."""
    env = dict(clean_env(), PYTHON_GIL="0", PYSTATS_DIR=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-X", "pystats", "-c", textwrap.dedent("""
            import pystats
            try:
                pystats.measure(len, [])
            except RuntimeError:
                print("refused")
        """)], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    assert proc.stdout == "refused\n"
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "without the GIL" in lines[0], proc.stderr
    assert dumps_in(str(tmp_path)) == []
