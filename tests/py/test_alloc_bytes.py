"""objects.allocated_bytes: the bytes a window's allocations asked for
(docs/FORMAT.md 1.11), against sizes CPython reports itself."""
import sys

import pytest

MODES = ["count", "census"]
N = 5000
SLOTS = list(range(N))          # ints past 256 made outside the window


def allocate(keep, size, zeroed):
    """Fill keep, made beforehand (a list growing in the window would be
    allocations of its own: 3.14t moves it rather than reallocating),
    with one object of size bytes per slot."""
    n = len(keep)               # once: an int past 256 is an allocation
    for i in SLOTS:
        if i == n:
            break
        # b"x" * size: one PyObject_Malloc of the object's whole size;
        # bytes(size): one PyObject_Calloc of it (size + 1 elements of 1).
        keep[i] = bytes(size) if zeroed else b"x" * size
    return keep


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("zeroed", [False, True])
def test_allocated_bytes_are_the_objects_sizes(pystats, mode, zeroed):
    size = 1000
    one = sys.getsizeof(b"x" * size)         # CPython's own account of one
    # First sight of allocate()'s code, outside the count: the
    # collector's own tables for it (3.11's trace function) are allocated
    # then.
    pystats.on(mode=mode)
    allocate([None], size, zeroed)
    pystats.off()
    pystats.clear()
    keep = [None] * N
    pystats.on(mode=mode)
    allocate(keep, size, zeroed)
    pystats.off()
    obj = pystats.snapshot()["objects"]
    assert len(keep) == N and all(sys.getsizeof(k) == one for k in keep)
    # Every object is one allocation of its size; the interpreter's own
    # allocations meanwhile (on() and off()) are the stated tolerance: at
    # most 4 KB, whatever N.
    assert N * one <= obj["allocated_bytes"] <= N * one + 4096
    # The same allocations' count, as test_stats.py checks it.
    assert N <= obj["allocations4k"] <= N * 101 // 100


def test_no_bytes_counted_outside_windows(pystats):
    allocate([None] * 100, 1000, False)
    assert pystats.snapshot()["objects"]["allocated_bytes"] == 0
