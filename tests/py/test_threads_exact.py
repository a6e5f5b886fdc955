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
        snap = pystats.snapshot()
        out[name] = snap["code"]
        out[name + "_whole"] = {
            "exec": snap["execution_count"],
            "pairs": sorted([a, b, c] for (a, b), c in
                            snap["pair_count"].items()),
            "calls": snap["calls"]}
    out["state"] = pystats._collector._seg_state() if hasattr(
        pystats._collector, "_seg_state") else {}
    out["gil"] = getattr(sys, "_is_gil_enabled", lambda: True)()
    print(json.dumps(out))
""")


def run_child(n, mode, how, gil=None):
    env = clean_env()
    if gil is not None:
        env["PYTHON_GIL"] = gil
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
    """On 3.14t the collector does not declare itself safe without the
    GIL (mode count needs it), so CPython enables the GIL when it is
    imported (docs/COLLECTING.md, "Free-threaded CPython"): the threads above ran
    under it, and their counts, from thread-local copies of the bytecode,
    are exact.  The dump says the build is free-threaded."""
    out = run_child(2, "count", "measure")
    assert out["gil"] is True
    subprocess.run([sys.executable, "-X", "pystats", "-c", "pass"],
                   env=dict(clean_env(), PYSTATS_DIR=str(tmp_path)),
                   capture_output=True, timeout=120, check=True)
    (dump,) = dumps_in(str(tmp_path))
    assert dump.header["meta.python.free_threading"] == "1"


@pytest.mark.skipif(not FREE_THREADED, reason="a free-threaded build only")
@pytest.mark.parametrize("how", ["measure", "window"])
@pytest.mark.parametrize("n", [8, 70])
def test_gil_off_threads_in_parallel_are_exact(one_thread, how, n):
    """PYTHON_GIL=0: the threads truly run at once, each counting into its
    own counters (70 threads: more than the 64 shards, so some count
    into the shared counters with atomic adds).  Parallel equals
    sequential equals n times the reference; and under measure(), the
    whole snapshot (every opcode, every pair, the call statistics, every
    code object) equals the same program's with the GIL on.  (A window
    also counts what each worker runs after releasing its lock, which
    the main thread may or may not have switched off by then.)"""
    off = run_child(n, "instructions", how, gil="0")
    on = run_child(n, "instructions", how)
    assert off["gil"] is False and on["gil"] is True
    par, seq = worker_code(off["parallel"]), worker_code(off["sequential"])
    assert len(par) >= len(NAMES)
    assert par == seq == times(one_thread, n)
    for phase in ("parallel", "sequential") if how == "measure" else ():
        assert off[phase + "_whole"] == on[phase + "_whole"]
        assert off[phase] == on[phase]


GIL_OFF_PROGRAM = textwrap.dedent("""
    import _thread, sys
    def work(k, lock):
        s = 0
        for i in range(k):
            s += i % 7
        lock.release()
    locks = []
    for _ in range(4):
        lock = _thread.allocate_lock()
        lock.acquire()
        _thread.start_new_thread(work, (5000, lock))
        locks.append(lock)
    for lock in locks:
        lock.acquire()
    while _thread._count():     # each work() is over, its return too
        pass
    print(sys._is_gil_enabled())
""")


@pytest.mark.skipif(not FREE_THREADED, reason="a free-threaded build only")
def test_gil_off_collects_in_mode_instructions(tmp_path):
    """-X pystats with the GIL forced off: mode instructions, the GIL
    stays off, the dump at exit holds the threads' loops exactly."""
    prog = tmp_path / "prog.py"
    prog.write_text(GIL_OFF_PROGRAM)
    out = tmp_path / "dumps"
    out.mkdir()
    env = dict(clean_env(), PYTHON_GIL="0", PYSTATS_DIR=str(out))
    proc = subprocess.run([sys.executable, "-X", "pystats", str(prog)],
                          env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "False\n"
    assert proc.stderr == ""
    (dump,) = dumps_in(str(out))
    assert dump.header["meta.collection.mode"] == "instructions"
    ref = Reference()
    lock = __import__("_thread").allocate_lock()
    ns = {}
    exec(compile(GIL_OFF_PROGRAM.split("locks = []")[0], str(prog), "exec"),
         ns)
    lock.acquire()
    ref.measure(lambda: ns["work"](5000, lock))
    key = code_key(ns["work"].__code__)
    want = sum(ref.code_counts[key].values()) * 4
    assert want > 5000 * 4
    assert int(dump.extra["code[%s].instructions" % key]) == want


@pytest.mark.skipif(not FREE_THREADED, reason="a free-threaded build only")
@pytest.mark.parametrize("mode", ["count", "noop-segments"])
def test_gil_off_refuses_segment_modes(tmp_path, mode):
    """Segment counting shares its tables between threads: with the GIL
    forced off it is refused with one line, nothing is written, the
    program runs; on() and measure() raise."""
    env = dict(clean_env(), PYTHON_GIL="0", PYSTATS_DIR=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-X", "pystats=" + mode, "-c", textwrap.dedent("""
            import sys, pystats
            pystats._collector._set_measure_mode(sys.argv[1])
            for call in (lambda: pystats.on(mode=sys.argv[1]),
                         lambda: pystats.measure(len, [])):
                try:
                    call()
                except RuntimeError:
                    print("refused")
        """), mode], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "refused\nrefused\n"
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "only with the GIL" in lines[0], proc.stderr
    assert "nothing is collected" in lines[0]
    assert dumps_in(str(tmp_path)) == []


@pytest.mark.skipif(not FREE_THREADED, reason="a free-threaded build only")
@pytest.mark.parametrize("gil, want", [("0", "instructions False"),
                                       ("1", "count True")])
def test_pyperf_hook_counts_in_the_mode_the_interpreter_allows(gil, want):
    """The pyperf hook calls the collector's on() directly: without the
    GIL it counts in mode instructions, with no census alongside (which
    needs mode count), and says so in the run's metadata."""
    proc = subprocess.run(
        [sys.executable, "-c", "from pystats import pyperf_hook as h; "
         "print(h.MODE, h.CENSUS_ALONGSIDE)"],
        env=dict(clean_env(), PYTHON_GIL=gil), capture_output=True,
        text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == want
