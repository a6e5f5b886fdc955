"""One benchmark run: `python overhead_workload.py MODE KIND N`.

MODE: plain (nothing on); count (the collector's default: segment events
on 3.12+, the trace function on 3.11); noop-segments (count's events,
callbacks that do nothing: its floor, 3.12+); noop-quiet (exactly the
events count receives -- the jumps it turns off turned off too --,
callbacks that do nothing, 3.12+); instructions (one
event per instruction); noop (the events of instructions, callbacks that
do nothing: its floor); reference (the pure-Python settrace collector of
tests/py/reference.py).
KIND: tight (integer loop), attrs (method calls and attribute loads),
gen (a generator consumed by a for loop).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "py"))
import pystats  # noqa: E402
from reference import Reference  # noqa: E402


def tight(n):
    t = 0
    for i in range(n):
        t += i
    return t


class Point:
    def __init__(self, x):
        self.x = x

    def get(self):
        return self.x


def attrs(n):
    p = Point(3)
    t = 0
    for i in range(n):
        t += p.get() + p.x
    return t


def numbers(n):
    for i in range(n):
        yield i


def gen(n):
    t = 0
    for v in numbers(n):
        t += v
    return t


def main():
    mode, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    fn = {"tight": tight, "attrs": attrs, "gen": gen}[kind]
    if mode == "plain":
        fn(n)
    elif mode in ("noop", "count", "instructions", "noop-segments",
                  "noop-quiet"):
        pystats.on(mode=mode)
        fn(n)
        pystats.off()
        pystats.clear()
    elif mode == "reference":
        ref = Reference()
        ref.start()
        fn(n)
        ref.stop()
    else:
        raise SystemExit("unknown mode " + mode)


if __name__ == "__main__":
    main()
