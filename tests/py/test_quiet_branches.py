"""Quiet branches (mode count, 3.12+; docs/FORMAT.md 1.13): a
POP_JUMP_IF_* whose two sides run straight to different instructions
that fire an event has all its events turned off, and the side taken is
told by where the frame's next event is.  Each test puts such a branch
where its next event is of every kind that can follow it (a Python call,
a C call that raises, a __bool__ run by the branch itself, a raise, a
quiet return, a thread's end, measure()'s end) and requires the counts
and pairs of mode instructions, which takes one event per instruction."""
import json
import sys
import threading
import types

import pytest

from conftest import (adaptive_ops, clean_env, counted_as_instructions,
                      measured_snapshot, run_python)

SEGMENTS = sys.version_info >= (3, 12)
pytestmark = pytest.mark.skipif(not SEGMENTS, reason="segment counting is 3.12+")


def helper(x):
    return x * 2


def pick(x, y):
    # a quiet branch: its sides end at a return and at the loop's FOR_ITER
    if x is None:
        return helper(y)
    for i in range(y % 3):
        x += i
    return x


def both(x, y):
    if x > y:                  # both sides end at returns: keeps its events
        return x
    return y


def checked(x):
    if x < 0:
        raise ValueError(x)    # one side ends at a raise
    if x > 100:
        return helper(x)
    return x


def parse(s, flag):
    n = 0
    if flag:
        n = int(s)             # a C call that may raise, on one side
        if n > 5:
            return n
    return -n


class Truthy:
    def __init__(self, v):
        self.v = v

    def __bool__(self):        # run by the branch (3.12) or TO_BOOL
        return helper(self.v) > 4


def truth(o, y):
    if o:
        y = helper(y)
        if y > 10:
            return y
    else:
        y = -y
    return y + 1


def lean(x):
    # the side not taken returns quietly: found at the caller's next event
    if x & 1:
        return x
    if x & 2:
        return -x
    return 0


def loop(n):
    t = 0
    for i in range(n):
        if i % 3 == 0:
            t += helper(i)
            if t > 50:
                t -= 50
        elif i % 3 == 1:
            t += lean(i)
    return t


def gen(n):
    for i in range(n):
        if i is None:
            return
        if i > 2:
            yield helper(i)
        yield i


def guarded(items, n):
    if not items:
        raise ValueError(n)
    while items and n > 0:     # the loop's test fires either way (its anchor)
        items = items[1:]
        n -= 1
    return n


class Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):            # Python code run by FOR_ITER
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n


def stop_at(x):
    if x > 2:
        raise StopIteration        # ends the map() below
    return x


def loops(n):
    # FOR_ITERs whose body runs straight to a test, and whose exit runs
    # straight to another event: quiet on 3.12 and 3.13
    t = 0
    for i in range(n):
        if i % 2:
            t += i
    for i in Countdown(n):
        if i > 1:
            t -= helper(i)
    for i in gen(n):
        if i is None:
            break
    for i in map(stop_at, range(n)):
        if i:
            t += 1
    for a, b in zip(range(n), "abc"):
        if b == "b":
            t += a
    return t


def program():
    t = 0
    for i in range(12):
        t += pick(None if i % 4 == 0 else i, i) + both(i, 6)
        try:
            t += checked(i * 20 - 30)
        except ValueError:
            t += 1
        try:
            t += parse("7" if i % 3 else "x", i % 2)
        except ValueError:
            t -= 1
        t += truth(Truthy(i), i)
        t += lean(i)
        try:
            t += guarded(list(range(i % 5)), 3)
        except ValueError:
            t += 2
    t += loop(20) + sum(gen(6)) + loops(5) + loops(0)
    return t


def fresh(fn):
    """fn with a code object of its own, instrumented from scratch."""
    return types.FunctionType(fn.__code__.replace(), fn.__globals__)


@pytest.mark.skipif(sys.version_info >= (3, 14),
                    reason="3.14's FOR_ITER keeps its events")
def test_loops_turned_off(stats):
    f = fresh(loops)
    measured_snapshot(stats, "count", f, 6)
    loops_ = [n for _, n in adaptive_ops(f) if "FOR_ITER" in n]
    # chosen from the last back: the last loop's exit runs to a return,
    # the one before it to that quiet FOR_ITER (no quiet branch ends a
    # run), and so on: the first, third and fifth are quiet
    assert [n.startswith("FOR_ITER") for n in loops_] == \
        [True, False, True, False, True], loops_


@pytest.mark.parametrize("mode", ["count", "noop-quiet"])
def test_quiet_branches_turned_off(stats, mode):
    p, b = fresh(pick), fresh(both)

    def work():
        for i in range(8):
            p(None if i % 4 == 0 else i, i)
            b(i, 6)

    measured_snapshot(stats, mode, work)
    # taken and not taken in the window: instrumented unless quiet
    [quiet] = [n for _, n in adaptive_ops(p) if "POP_JUMP_IF" in n]
    assert quiet == "POP_JUMP_IF_NOT_NONE"
    [kept] = [n for _, n in adaptive_ops(b) if "POP_JUMP_IF" in n]
    assert kept == "INSTRUMENTED_POP_JUMP_IF_FALSE"


def test_quiet_branches_counted_as_instructions(stats):
    program()
    count, ins = counted_as_instructions(stats, program)
    assert count["calls"] == ins["calls"]


def test_quiet_branches_in_threads(stats):
    def work():
        ts = [threading.Thread(target=program) for _ in range(3)]
        for t in ts:
            t.start()
        program()
        for t in ts:
            t.join()

    work()
    count, ins = counted_as_instructions(stats, work)


CHILD = """
import json
import test_quiet_branches as q
import pystats
pystats.on(mode=%r)
q.program()
pystats.off()
s = pystats.snapshot()
print(json.dumps({"e": s["execution_count"], "p": sorted(map(list, s["pair_count"].items()))}))
"""


def child_counts(mode, quiet_branches):
    r = run_python(CHILD % mode,
                   env=clean_env(PYSTATS_QUIET_BRANCHES=quiet_branches))
    return json.loads(r.stdout.splitlines()[-1])


def test_same_counts_with_quiet_branches_off():
    on = child_counts("count", "1")
    off = child_counts("count", "0")
    ins = child_counts("instructions", "1")
    assert on == off == ins
    assert sum(on["e"].values()) > 1000
