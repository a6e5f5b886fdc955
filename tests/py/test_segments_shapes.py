"""Shapes of code that the callbacks of mode count (3.12+) take on their
fast paths: a class's __init__ (3.13+ puts a shim frame between the
caller and __init__), chains of returns that fire no event, many more
code objects than the table cache holds, and loops whose back edge
jumps to a head before the instruction that fires the loop's event.
Each must give the counts and pairs of mode instructions, which takes
one event per instruction, and the number of calls of its functions
(RESUME runs once per call: counted from the program, not by the
collector)."""
import sys

import pytest

from conftest import measured_snapshot, same_counts

pytestmark = pytest.mark.skipif(sys.version_info < (3, 12),
                                reason="segment counting is 3.12+")


def desync(stats):
    return stats._collector._seg_state()["desync"]


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


class Named(Point):
    def __init__(self, x, y, name):
        super().__init__(x, y)
        self.name = name if name else "?"


def make(k):
    return Point(k, k + 1)


def make_named(k):
    p = Named(k, k, "p%d" % k if k % 3 else "")
    return p.name


def classes():
    pts = [Point(i, i) for i in range(50)]        # 50 __init__
    pts += list(map(Point, range(20), range(20)))  # 20, the class called from C
    names = [make_named(i) for i in range(30)]    # 30 make_named, 60 __init__
    return len(pts), names[:3], make(3).y          # 1 make, 1 __init__


def classes_calls():
    # classes, its __init__ calls, make_named and make (3.12+ inlines
    # the comprehensions)
    return 1 + (50 + 20 + 60 + 1) + 30 + 1


def level(n, x):
    if n == 0:
        return x + 1
    return level(n - 1, x)


def chains():
    t = 0
    for depth in (3, 5, 6, 7, 9, 12):
        for i in range(10):
            t = level(depth, t)   # depth + 1 returns in a row, no event
    return t


def chains_calls():
    return 1 + sum(10 * (d + 1) for d in (3, 5, 6, 7, 9, 12))


def while_loops(n):
    a = b = 0
    node = list(range(n))
    while node is not None and node:  # back edge to before the test's event
        node.pop()
        a += 1
    k = n
    while k:
        k -= 1
        if k % 3:
            b += 1
        else:
            b -= 1
    return a, b


def loops():
    return [while_loops(n) for n in range(15)]


def loops_calls():
    return 1 + 15


# Many more code objects than the cache's slots, called in turn: some
# share a slot, whatever the addresses.
MANY = []
for _i in range(700):
    _ns = {}
    exec("def f%d(x):\n    return x + %d\n" % (_i, _i), _ns)
    MANY.append(_ns["f%d" % _i])


def many_codes():
    t = 0
    for _ in range(3):
        for f in MANY:
            t = f(t)
    return t


def many_codes_calls():
    return 1 + 3 * len(MANY)


CASES = [(classes, classes_calls), (chains, chains_calls), (loops, loops_calls),
         (many_codes, many_codes_calls)]


@pytest.mark.parametrize("case,calls", CASES, ids=lambda c: c.__name__)
def test_shape_identical_in_both_modes(stats, case, calls):
    case()                          # warm up: specialization, quiet sites
    before = desync(stats)
    seg = measured_snapshot(stats, "count", case)
    ins = measured_snapshot(stats, "instructions", case)
    same_counts(seg, ins)
    assert seg["execution_count"]["RESUME"] == calls()
    assert desync(stats) == before
