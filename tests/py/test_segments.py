"""Segment counting (mode "count" on 3.12+) against the per-instruction
mechanism (mode "instructions"): identical execution counts and pair
counts on every workload of the corpus, in measure() and in windows,
including windows opened deep in the stack, inside generators,
coroutines and callbacks, and around clear() and snapshot().  On 3.11 the
two modes are the same trace mechanism, so these tests hold trivially
there."""
import asyncio
import collections
import dis
import functools
import opcode
import os
import sys
import threading

import pytest

import workloads
from conftest import clean_env, dumps_in, fresh_gc, measured_snapshot, run_python

MODES = ("count", "instructions")
SEGMENTS = sys.version_info >= (3, 12)


def desync(stats):
    return stats._collector._seg_state()["desync"]


def measured(stats, mode, fn, *args):
    snap = measured_snapshot(stats, mode, fn, *args)
    return snap["execution_count"], snap["pair_count"]


def windowed(stats, mode, fn, *args):
    stats.clear()
    with fresh_gc():
        stats.on(mode=mode)
        fn(*args)
        stats.off()
    snap = stats.snapshot()
    stats.clear()
    return snap["execution_count"], snap["pair_count"]


def assert_same(a, b):
    (ca, pa), (cb, pb) = a, b
    diff = {k: (ca.get(k), cb.get(k)) for k in set(ca) | set(cb)
            if ca.get(k) != cb.get(k)}
    assert not diff, "execution counts differ (count, instructions): %r" % diff
    diff = {k: (pa.get(k), pb.get(k)) for k in set(pa) | set(pb)
            if pa.get(k) != pb.get(k)}
    assert not diff, "pair counts differ (count, instructions): %r" % diff


def test_method_of_each_mode(stats):
    # Each in its own window: the method reported outside one is that of
    # the last collection, which another test may have left in either mode.
    for mode, method in (("count", "segments" if SEGMENTS else "instructions"),
                         ("instructions", "instructions")):
        stats.on(mode=mode)
        try:
            assert stats._collector._seg_state()["method"] == method, mode
        finally:
            stats.off()


@pytest.mark.parametrize("name", workloads.ALL)
def test_measure_identical_in_both_modes(stats, name):
    mod = workloads.load(name)
    mod.run()                       # warm up: imports, caches
    before = desync(stats)
    seg = measured(stats, "count", mod.run)
    ins = measured(stats, "instructions", mod.run)
    assert sum(seg[0].values()) > 20
    assert_same(seg, ins)
    assert desync(stats) == before


GC_BREAKER = """
import json, sys
sys.path.insert(0, %r)
import pystats
import workloads
from conftest import measured_snapshot
mod = workloads.load("gc_breaker")
mod.run()
out = {}
for mode in ("count", "instructions"):
    snap = measured_snapshot(pystats, mode, mod.run)
    out[mode] = [snap["execution_count"],
                 [[a, b, n] for (a, b), n in snap["pair_count"].items()]]
out["desync"] = pystats._collector._seg_state()["desync"]
print(json.dumps(out))
""" % os.path.dirname(os.path.abspath(__file__))


def test_gc_at_the_eval_breaker_identical_in_both_modes():
    """Collections started at the eval breaker of JUMP_BACKWARD and calls
    (3.12 fires JUMP before its breaker runs, 3.13 and 3.14 after), their
    __del__ methods and weakref callbacks.  In a new interpreter: where a
    collection frees a cycle depends on the whole process's heap (3.14's
    incremental collector visits the old generation in increments), so
    in a process that ran other tests the two windows' collections can
    free their cycles at different instructions."""
    import json
    p = run_python(GC_BREAKER, env=clean_env())
    out = json.loads(p.stdout.strip().splitlines()[-1])
    seg, ins = [(c, {(a, b): n for a, b, n in pairs})
                for c, pairs in (out["count"], out["instructions"])]
    assert seg[0]["RESUME"] > 300
    assert_same(seg, ins)
    assert out["desync"] == 0


def run_workload(mod):
    mod.run()


@pytest.mark.parametrize("name", [n for n in workloads.ALL if n != "threads"])
def test_window_identical_in_both_modes(stats, name):
    mod = workloads.load(name)
    mod.run()
    before = desync(stats)
    seg = windowed(stats, "count", run_workload, mod)
    ins = windowed(stats, "instructions", run_workload, mod)
    assert_same(seg, ins)
    assert desync(stats) == before


def test_window_with_threads_counts_every_thread(stats):
    mod = workloads.load("threads")
    got = {}
    for mode in MODES:
        got[mode] = windowed(stats, mode, run_workload, mod)[0]
    # The workers' loop: BINARY_OP twice per iteration, 3 workers.
    assert got["count"]["BINARY_OP"] == got["instructions"]["BINARY_OP"]
    assert got["count"]["BINARY_OP"] >= 3 * 3 * 200


def test_window_opened_deep_in_the_stack(stats):
    mod = workloads.load("deep_start")
    before = desync(stats)
    res = {}
    for mode in MODES:
        stats.clear()
        r = mod.window(lambda: stats.on(mode=mode), stats.off)
        snap = stats.snapshot()
        res[mode] = (snap["execution_count"], snap["pair_count"], r)
        stats.clear()
    assert res["count"][2] == res["instructions"][2]
    assert_same(res["count"][:2], res["instructions"][:2])
    # Every frame on the way up finishes its loop: FOR_ITER of descend's
    # `for j in range(3)` runs 4 times in each of the 30 - 6 frames that
    # are not a generator or key frame, plus leaf's.
    assert res["count"][0]["RETURN_VALUE"] >= 30
    assert desync(stats) == before


def gen_that_opens(stats, mode):
    for i in range(3):
        if i == 1:
            stats.on(mode=mode)
        yield i


def consume_generator(stats, mode):
    total = 0
    for v in gen_that_opens(stats, mode):   # on() inside the generator
        total += v
    stats.off()
    return total


def key_that_opens(stats, mode, x, seen):
    if not seen:
        stats.on(mode=mode)
    seen.append(x)
    return -x


def sorted_with_opening_key(stats, mode):
    seen = []
    out = sorted([3, 1, 2], key=lambda x: key_that_opens(stats, mode, x,
                                                         seen))
    stats.off()
    return out


async def coro_that_opens(stats, mode):
    await asyncio.sleep(0)
    stats.on(mode=mode)
    await asyncio.sleep(0)
    return 5


async def awaiting(stats, mode):
    x = await coro_that_opens(stats, mode)
    return x + 1


def asyncio_opening(stats, mode):
    r = asyncio.run(awaiting(stats, mode))
    stats.off()
    return r


def send_opening(stats, mode):
    def echo():
        got = yield
        while got is not None:
            if got == 2:
                stats.on(mode=mode)
            got = yield got * 2

    def deleg():
        result = yield from echo()
        return result
    g = deleg()
    next(g)
    out = [g.send(i) for i in (1, 2, 3, 4)]
    g.close()
    stats.off()
    return out


def loop_closing_with_snapshot_and_clear(stats, mode):
    stats.on(mode=mode)
    total = 0
    for i in range(30):
        total += i
        if i == 10:
            stats.snapshot()
        if i == 20:
            stats.clear()
    stats.off()
    return total


@pytest.mark.parametrize("case", [consume_generator, sorted_with_opening_key,
                                  asyncio_opening, send_opening,
                                  loop_closing_with_snapshot_and_clear])
def test_window_opened_mid_construct(stats, case):
    asyncio.run(asyncio.sleep(0))       # asyncio's first-use setup
    before = desync(stats)
    res = {}
    for mode in MODES:
        stats.clear()
        r = case(stats, mode)
        snap = stats.snapshot()
        res[mode] = (snap["execution_count"], snap["pair_count"], r)
        stats.clear()
    assert res["count"][2] == res["instructions"][2]
    assert sum(res["count"][0].values()) > 0
    assert_same(res["count"][:2], res["instructions"][:2])
    assert desync(stats) == before


# ---- the API's window and measure semantics hold in both modes ----

def executed_straight_line(fn):
    ins = list(dis.get_instructions(fn))
    start = next(i for i, x in enumerate(ins) if x.opname == "RESUME")
    return [x.opname for x in ins[start:]]


def f_simple():
    a = 1
    b = a + 2
    return (a, b)


def window(on, off, work):
    on()
    work()
    off()


@pytest.mark.parametrize("mode", MODES)
def test_measure_counts_exactly_fn(stats, mode):
    seq = executed_straight_line(f_simple)
    counts, pairs = measured(stats, mode, f_simple)
    assert counts == dict(collections.Counter(seq))
    assert pairs == dict(collections.Counter(zip(seq, seq[1:])))


@pytest.mark.parametrize("mode", MODES)
def test_measure_raising_and_nested(stats, mode):
    def raiser():
        x = 1
        raise ValueError(x)

    def outer():
        return stats.measure(f_simple)
    stats._collector._set_measure_mode(mode)
    with pytest.raises(ValueError):
        stats.measure(raiser)
    stats.measure(outer)
    counts = stats.snapshot()["execution_count"]
    seq = executed_straight_line(raiser)
    seq = seq[:seq.index("RAISE_VARARGS") + 1]
    expected = collections.Counter(seq) + collections.Counter(
        executed_straight_line(outer)) + collections.Counter(
        executed_straight_line(f_simple))
    assert counts == dict(expected)


@pytest.mark.parametrize("mode", MODES)
def test_window_counts_from_after_on_to_the_call_of_off(stats, mode):
    # functools.partial is C: no Python frame between window() and on().
    window(functools.partial(stats.on, mode=mode), stats.off, f_simple)
    ins = [x.opname for x in dis.get_instructions(window)]
    calls = [i for i, op in enumerate(ins) if op == "CALL"]
    caller = ins[calls[0] + 1:calls[2] + 1]   # POP_TOP ... CALL (off)
    expected = collections.Counter(caller) + \
        collections.Counter(executed_straight_line(f_simple))
    snap = stats.snapshot()
    assert snap["execution_count"] == dict(expected)
    # One window, one thread: every instruction but the first has its
    # predecessor.
    assert sum(snap["pair_count"].values()) == sum(expected.values()) - 1


@pytest.mark.parametrize("mode", MODES)
def test_window_sees_threads_already_running(stats, mode):
    go, done = threading.Event(), threading.Event()

    def waiter():
        go.wait()
        for i in range(50):
            s = {i}
            del s
        done.set()
    t = threading.Thread(target=waiter)
    t.start()
    before = desync(stats)
    stats.on(mode=mode)
    go.set()
    done.wait()
    stats.off()
    t.join()
    assert stats.snapshot()["execution_count"]["BUILD_SET"] == 50
    assert desync(stats) == before


@pytest.mark.parametrize("mode", ["noop-segments", "noop-quiet"])
def test_noop_segments_counts_nothing(stats, mode):
    if not SEGMENTS:
        with pytest.raises(ValueError):
            stats.on(mode=mode)
        return
    stats.on(mode=mode)
    f_simple()
    stats.off()
    assert stats.snapshot()["execution_count"] == {}


# ---- quiet jumps: unconditional jumps report once ----

def two_loops(n):
    t = 0
    for i in range(n):          # back edge to its FOR_ITER: turned off
        if i % 3:
            t += i              # JUMP_FORWARD over the else: turned off
        else:
            t -= 1
    j = 0
    try:
        while True:             # its back edge is its only event: stays
            j += 1
            1 // (n - j)
    except ZeroDivisionError:
        pass
    return t, j


def instrumented_jumps(fn):
    # The adaptive opcode at each instruction's offset (3.14's
    # dis.get_instructions(adaptive=True) cannot label instrumented jumps).
    raw = fn.__code__._co_code_adaptive
    ops = [dis._all_opname[raw[i.offset]] for i in dis.get_instructions(fn)]
    # 3.14 specializes JUMP_BACKWARD (JUMP_BACKWARD_NO_JIT, _JIT).
    family = {form: base for base, forms in
              getattr(opcode, "_specializations", {}).items()
              for form in forms}
    ops = [family.get(o, o) for o in ops]
    return ({o for o in ops if o.startswith("INSTRUMENTED_JUMP")},
            sum(1 for o in ops if o in ("JUMP_BACKWARD", "JUMP_FORWARD")))


def window_with_jumps(stats, mode):
    stats.clear()
    stats.on(mode=mode)
    try:
        two_loops(40)
        snap = stats.snapshot()
        jumps = instrumented_jumps(two_loops)
    finally:
        stats.off()
        stats.clear()
    return (snap["execution_count"], snap["pair_count"]), jumps


@pytest.mark.skipif(not SEGMENTS, reason="segment counting is 3.12+")
def test_unconditional_jumps_turned_off_where_loops_keep_an_event(stats):
    seg, (live, plain) = window_with_jumps(stats, "count")
    ins, _ = window_with_jumps(stats, "instructions")
    # The while loop's back edge still fires; the for loop's back edges
    # were turned off after their first event.
    assert live == {"INSTRUMENTED_JUMP_BACKWARD"}
    assert plain >= 2
    # for: i % 3 and one of t += i, t -= 1; while: j += 1, n - j and
    # 1 // (n - j), the last one raising.
    assert seg[0]["BINARY_OP"] == ins[0]["BINARY_OP"] == 2 * 40 + 3 * 40
    assert_same(seg, ins)


@pytest.mark.skipif(not SEGMENTS, reason="segment counting is 3.12+")
def test_quiet_jumps_counted_when_another_tool_restarts_events(stats):
    """sys.monitoring.restart_events() brings turned-off events back: they
    are counted, then turned off again."""
    import sys as _sys

    def run():
        two_loops(30)
        _sys.monitoring.restart_events()
        two_loops(30)
        _sys.monitoring.restart_events()
        return two_loops(30)

    run()
    before = desync(stats)
    seg = measured(stats, "count", run)
    ins = measured(stats, "instructions", run)
    assert_same(seg, ins)
    assert desync(stats) == before


# ---- whole programs: startup, exit, dumps ----

PROGRAM = """
import sys
sys.path.insert(0, %r)
import workloads
for name in ("loops", "generators", "exceptions", "withs", "gen_variants",
             "finalizers", "deep_start", "classes"):
    workloads.load(name).run()
""" % os.path.dirname(os.path.abspath(__file__))


def test_whole_program_identical_in_both_modes(tmp_path):
    dumps = {}
    for mode in MODES:
        d = str(tmp_path / mode)
        run_python(PROGRAM, env=clean_env(PYTHONSTATS=mode, PYSTATS_DIR=d,
                                          PYTHONHASHSEED=0))
        [dump] = dumps_in(d)
        dumps[mode] = dump
    seg, ins = dumps["count"], dumps["instructions"]
    assert seg.header["meta.collection.mode"] == "count"
    assert seg.header["meta.collection.method"] == (
        "segments" if SEGMENTS else "instructions")
    assert ins.header["meta.collection.method"] == "instructions"
    assert_same((seg.counts, seg.pairs), (ins.counts, ins.pairs))
    assert sum(seg.pairs.values()) == sum(seg.counts.values()) - 1


def test_os_exit_and_fork_identical_in_both_modes(tmp_path):
    code = """
import os, pystats
def work(n):
    t = 0
    for i in range(n):
        t += i
    return t
work(5)
pid = os.fork()
if pid == 0:
    work(7)
    os._exit(0)
os.waitpid(pid, 0)
work(9)
os._exit(0)
"""
    dumps = {}
    for mode in MODES:
        d = str(tmp_path / mode)
        run_python(code, env=clean_env(PYTHONSTATS=mode, PYSTATS_DIR=d,
                                       PYTHONHASHSEED=0))
        ds = dumps_in(d)
        assert len(ds) == 2
        dumps[mode] = sorted(ds, key=lambda x: x.header["meta.process.forked"])
    for a, b in zip(dumps["count"], dumps["instructions"]):
        assert_same((a.counts, a.pairs), (b.counts, b.pairs))
