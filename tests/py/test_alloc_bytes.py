"""objects.allocated_bytes: the bytes a window's allocations asked for
(docs/FORMAT.md 1.11), against sizes CPython reports itself."""
import sys

import pytest

MODES = ["count", "census"]
N = 5000


def allocate(items, size, zeroed):
    keep = []
    for _ in items:             # no int made per object, as range()'s
        # b"x" * size: one PyObject_Malloc of the object's whole size;
        # bytes(size): one PyObject_Calloc of it (size + 1 elements of 1).
        keep.append(bytes(size) if zeroed else b"x" * size)
    return keep


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("zeroed", [False, True])
def test_allocated_bytes_are_the_objects_sizes(pystats, mode, zeroed):
    size = 1000
    one = sys.getsizeof(b"x" * size)         # CPython's own account of one
    items = [None] * N
    pystats.on(mode=mode)
    keep = allocate(items, size, zeroed)
    pystats.off()
    obj = pystats.snapshot()["objects"]
    assert len(keep) == N and all(sys.getsizeof(k) == one for k in keep)
    # Every object is one allocation of its size; the interpreter's own
    # allocations meanwhile (on() and off(); the list grows by realloc,
    # not counted) are the stated tolerance: at most 4 KB, whatever N.
    assert N * one <= obj["allocated_bytes"] <= N * one + 4096
    # The same allocations' count, as test_stats.py checks it.
    assert N <= obj["allocations4k"] <= N * 101 // 100


def test_no_bytes_counted_outside_windows(pystats):
    allocate([None] * 100, 1000, False)
    assert pystats.snapshot()["objects"]["allocated_bytes"] == 0
