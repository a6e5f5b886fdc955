"""Quiet returns (mode count, 3.12+; docs/FORMAT.md 1.13): a function's
PY_RETURN is turned off at its first one, and the return is found later,
at the thread's next event or wherever the counts are read.  Each test
puts a quiet return where nothing follows it in its thread for a while
(interpreter shutdown, a thread's end, a code object freed right after
it ran, measure()'s end) and requires the counts and pairs of mode
instructions, which takes one event per instruction."""
import inspect
import json
import os
import sys

import pytest

from conftest import (adaptive_ops, clean_env, counted_as_instructions,
                      dumps_in, measured_snapshot, run_python, same_counts)

SEGMENTS = sys.version_info >= (3, 12)
pytestmark = pytest.mark.skipif(not SEGMENTS, reason="segment counting is 3.12+")


def leaf(x):
    return x + 1


def calls(n):
    t = 0
    for _ in range(n):
        t = leaf(t)
    return t


def gen(n):
    for i in range(n):
        yield i


def deleg(n):
    yield from gen(n)


async def agen(n):
    for i in range(n):
        yield i


async def aconsume(n):
    return [x async for x in agen(n)]


def test_returns_and_plain_yields_turned_off(stats):
    import asyncio
    asyncio.run(aconsume(1))

    def work():
        return calls(5), list(gen(3)), list(deleg(3)), asyncio.run(aconsume(3))

    measured_snapshot(stats, "count", work)
    def ops(fn):
        return [name for _, name in adaptive_ops(fn)]

    returns = [o for o in ops(leaf) + ops(gen) + ops(deleg) + ops(aconsume)
               if o.startswith("INSTRUMENTED_RETURN")]
    assert not returns
    assert "INSTRUMENTED_YIELD_VALUE" not in ops(gen)
    # `yield from`'s yields pass values on; an async generator keeps all
    assert "INSTRUMENTED_YIELD_VALUE" in ops(deleg)
    assert "INSTRUMENTED_YIELD_VALUE" in ops(agen)


async def square(x):
    return leaf(x) * x


async def awaits(n):
    t = 0
    for i in range(n):
        t += await square(i)
    return t


def test_coroutines_return_quietly(stats):
    import asyncio
    asyncio.run(awaits(2))
    count, ins = counted_as_instructions(stats, lambda: asyncio.run(awaits(10)))
    assert count["calls"]["returns"] == ins["calls"]["returns"] > 20


def gen_finally(log):
    try:
        yield 1
        yield 2
    finally:
        log.append(leaf(0))


def generators():
    log = []
    t = sum(gen(5)) + sum(x * 2 for x in range(4)) + sum(deleg(3))
    for x in gen(4):
        t += leaf(x)
    g = gen(10)
    t += next(g) + next(g)
    del g                                   # closed without running
    g = gen_finally(log)
    t += next(g)
    g.close()                               # GeneratorExit in its try
    g = gen_finally(log)
    next(g)
    try:
        g.throw(KeyError)
    except KeyError:
        t += 1
    e = (leaf(i) for i in range(3))
    t += next(e)
    return t, log


def test_generators_yield_quietly(stats):
    generators()
    count, ins = counted_as_instructions(stats, generators)
    assert count["calls"] == ins["calls"]
    assert count["calls"]["yields"] > 20


def test_calls_counted_after_quiet_returns(stats):
    count, ins = counted_as_instructions(stats, calls, 50)
    # leaf's RESUME, LOAD_FAST, LOAD_CONST (3.14: LOAD_SMALL_INT), BINARY_OP
    # and RETURN_VALUE, 50 times; every return counted
    assert count["calls"]["returns"] == ins["calls"]["returns"] == 51
    assert count["execution_count"]["BINARY_OP"] == 50


def exec_loop(n):
    for i in range(n):
        exec(compile("y = %d\nz = y * 2\n" % i, "<q>", "exec"), {})


def test_code_freed_after_its_quiet_return(stats):
    """Each compiled module returns quietly into exec(), and its code
    object dies before the caller's next event."""
    exec_loop(3)
    count, ins = counted_as_instructions(stats, exec_loop, 20)
    assert count["calls"]["returns"] == 21


SHUTDOWN = "import atexit, threading, weakref\n" + inspect.getsource(leaf) + \
    inspect.getsource(calls) + """
class Late:
    def __del__(self):
        leaf(calls(3))
        self.g = (leaf(i) for i in range(3))
        next(self.g)
def callback(ref):
    calls(2)
def worker():
    calls(4)
for _ in range(2):
    th = threading.Thread(target=worker)
    th.start()
    th.join()
late = Late()
keep = Late()
ref = weakref.ref(keep, callback)
atexit.register(calls, 5)
calls(6)
"""


def test_whole_program_with_code_run_at_shutdown(tmp_path):
    """The last Python code of a process runs during finalization (atexit
    functions, module globals' __del__, weakref callbacks); a thread ends
    right after its last return (the second of two threads: the first
    one's returns were the first, and fired)."""
    dumps = {}
    for mode in ("count", "instructions"):
        d = str(tmp_path / mode)
        run_python(SHUTDOWN, env=clean_env(PYTHONSTATS=mode, PYSTATS_DIR=d,
                                           PYTHONHASHSEED=0))
        [dumps[mode]] = dumps_in(d)
    a, b = dumps["count"], dumps["instructions"]
    same_counts({"execution_count": a.counts, "pair_count": a.pairs},
                {"execution_count": b.counts, "pair_count": b.pairs})
    # three threads, each with a first instruction that follows nothing
    assert sum(a.pairs.values()) == sum(a.counts.values()) - 3
    assert a.header.get("meta.collection.desync", "0") == "0"


def consume_first(make, stats, mode):
    for v in make(stats, mode):
        return v
    return None


def plain_gen(stats, mode):
    yield 1


def opening_gen(stats, mode):
    stats.on(mode=mode)     # consume_first is under way at its FOR_ITER
    for _ in range(2):      # events of its own after on()
        pass
    yield 2


def window_opened_in_a_generator(stats, mode):
    """consume_first's return was turned off by an earlier window;
    opening_gen's yield, seen for the first time, fires: consume_first,
    under way at its FOR_ITER when the window opened, goes into its loop
    body and returns from there without an event."""
    stats.clear()
    stats.on(mode=mode)
    consume_first(plain_gen, stats, mode)
    stats.off()
    stats.clear()
    r = consume_first(opening_gen, stats, mode)
    stats.off()
    snap = stats.snapshot()
    stats.clear()
    return r, snap


def test_quiet_return_of_a_frame_under_way_at_for_iter(tmp_path):
    # each mode in a process of its own: opening_gen's yield must be new
    code = """
import json, sys
sys.path.insert(0, %r)
import pystats, test_quiet_returns as t
r, s = t.window_opened_in_a_generator(pystats, sys.argv[1])
print(json.dumps([r, s["execution_count"], sorted([list(k), v] for k, v in s["pair_count"].items()),
                  pystats._collector._seg_state()["desync"]]))
""" % os.path.dirname(os.path.abspath(__file__))
    out = {}
    for mode in ("count", "instructions"):
        p = run_python(code, args=(mode,), env=clean_env())
        out[mode] = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["count"][0] == out["instructions"][0] == 2
    assert out["count"][1] == out["instructions"][1]
    assert out["count"][2] == out["instructions"][2]
    assert out["count"][3] == 0


def forever():
    while True:
        yield


def loops_over_forever():
    for _ in forever():
        yield


def break_out_of_nested_generators(n):
    """Leave a for loop over a generator that is itself in a for loop over
    another: the generators are closed at once (3.14 throws GeneratorExit
    into them when a tool takes PY_UNWIND, as segment counting does; the
    outer one stands at the RESUME after its YIELD_VALUE while it
    unwinds)."""
    for _ in range(n):
        k = 0
        for _ in loops_over_forever():
            k += 1
            if k == 3:
                break


def test_generators_closed_inside_a_for_loop_over_another(stats):
    before = stats._collector._seg_state()["desync"]
    break_out_of_nested_generators(3)
    count, ins = counted_as_instructions(stats, break_out_of_nested_generators,
                                         5)
    assert stats._collector._seg_state()["desync"] == before
    assert count["execution_count"]["YIELD_VALUE"] == 5 * (3 + 3)
