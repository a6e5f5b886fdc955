"""Allocation figures are the program's, not the events' (docs/FORMAT.md
1.11).  3.12 and 3.13 hand each sys.monitoring callback its offsets
(and a jump's destination) as ints made for the event: past the cached
small ints (offsets beyond 256 bytes) each is one allocation and one
free, which the collector leaves out.

The loop below allocates nothing: it walks a list made beforehand and
flips a bool, so every allocation a window reports while it runs is
someone else's.  Its body sits past byte 256 of its code, so each event
it fires there comes with fresh ints."""
import sys

import pytest

N = 5000
ITEMS = [None] * N
# A few allocations of the interpreter's own per window (on() and off()
# themselves), whatever N: the stated tolerance.
TOLERANCE = 40

PROLOGUE = "".join("    a%d = b%d = None\n" % (k, k) for k in range(40))
SOURCE = ("def flips(items):\n" + PROLOGUE +
          "    flag = False\n"
          "    for _ in items:\n"
          "        if flag:\n"
          "            flag = False\n"
          "        else:\n"
          "            flag = True\n"
          "    return flag\n")
NS = {}
exec(compile(SOURCE, "<flips>", "exec"), NS)
flips = NS["flips"]

MODES = ["census", "count"] + (["instructions"] if sys.version_info >= (3, 12) else [])


def window_objects(pystats, mode, fn):
    """The allocation figures of fn(ITEMS) in a window of mode, after a
    first window on a few items: the first sight of fn's code (the
    collector's tables, the interpreter's instrumentation) outside it."""
    pystats.on(mode=mode)
    fn(ITEMS[:10])
    pystats.off()
    pystats.clear()
    pystats.on(mode=mode)
    fn(ITEMS)
    pystats.off()
    return pystats.snapshot()["objects"]


def test_the_loop_lies_past_the_small_ints():
    import dis
    loop = [i.offset for i in dis.get_instructions(flips) if i.opname == "FOR_ITER"]
    assert loop and loop[0] > 256


@pytest.mark.parametrize("mode", MODES)
def test_events_allocate_nothing_of_the_programs(pystats, mode):
    obj = window_objects(pystats, mode, flips)
    # Each pass fires a branch event past byte 256 (mode instructions:
    # several): N allocations and frees or more if the events' ints
    # were counted.
    assert obj["allocations"] <= TOLERANCE, obj
    assert obj["frees"] <= TOLERANCE, obj
    assert obj["allocated_bytes"] <= TOLERANCE * 512, obj


@pytest.mark.parametrize("mode", MODES)
def test_the_programs_allocations_still_counted(pystats, mode):
    """The same loop making a 600-byte bytes object every other pass
    (one allocation of the 4 KB bucket each, freed by the next): those,
    and nothing in the bucket under 512 bytes, where the events' ints
    would go."""
    src = SOURCE.replace("flag = True\n", "flag = True\n            x = B * 600\n")
    ns = {"B": b"x"}           # not a constant the compiler folds
    exec(compile(src, "<flips_bytes>", "exec"), ns)
    obj = window_objects(pystats, mode, ns["flips"])
    assert N // 2 <= obj["allocations4k"] <= N // 2 + 2, obj
    assert obj["allocations512"] <= TOLERANCE, obj
    assert N // 2 <= obj["frees"] <= N // 2 + TOLERANCE, obj


def test_nothing_counted_after_off_under_another_wrapper(pystats):
    """tracemalloc wraps the allocators on top of the collector's inside a
    window: off() cannot take its wrappers out of the chain, and they
    count nothing from then on."""
    import tracemalloc
    pystats.on(mode="census")
    tracemalloc.start()
    try:
        pystats.off()
        before = pystats.snapshot()["objects"]["allocations"]
        keep = [B * 600 for B in [b"x"] * 1000]
        after = pystats.snapshot()["objects"]["allocations"]
    finally:
        tracemalloc.stop()
    assert len(keep) == 1000
    assert after == before
