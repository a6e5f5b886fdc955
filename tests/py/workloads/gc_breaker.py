"""The cyclic GC running between instructions: with a low threshold,
collections start at the eval breaker (3.12+: JUMP_BACKWARD, RESUME and
calls check it) in the middle of loops, and run __del__ methods and
weakref callbacks of the cycles they free."""

import gc
import weakref

log = []


class Node:
    def __init__(self, i):
        self.i = i
        self.other = None

    def __del__(self):
        log.append(self.i)


def dead(ref):
    log.append(-1)


def churn(n, keep):
    for i in range(n):
        a, b = Node(i), Node(-i)
        a.other, b.other = b, a             # a cycle only the GC frees
        if i % 5 == 0:
            keep.append(weakref.ref(a, dead))
        j = 0
        while j < 3:                        # a loop of its own
            j += 1
    return len(keep)


def branchless(n):
    """A loop whose only event is its JUMP_BACKWARD: the collections its
    lists start run at that instruction's eval breaker, and the GC
    callback runs Python code while the frame waits to jump."""
    i = 0
    try:
        while True:
            cell = [None]
            cell[0] = cell                  # a cycle, made without a call
            i += 1
            1 // (n - i)
    except ZeroDivisionError:
        return i


def leaf(x):
    return x + 1


def leafy(n):
    """A function called again and again, returning without an event of
    its own (a quiet return): each call's frame takes the place of the
    last, and the collections its lists start run at the eval breaker of
    its RESUME, before (3.13+) or after (3.12) it reports its start."""
    t = 0
    for i in range(n):
        cell = [None]
        cell[0] = cell
        t = leaf(t)
    return t


def on_gc(phase, info):
    log.append(phase)


def run():
    del log[:]
    gc.collect()
    old = gc.get_threshold()
    gc.set_threshold(40, 5, 5)
    keep = []           # the weakrefs outlive every referent
    gc.callbacks.append(on_gc)
    try:
        n = churn(300, keep) + branchless(400) + leafy(400)
    finally:
        gc.callbacks.remove(on_gc)
        gc.set_threshold(*old)
    gc.collect()
    del keep
    return n, len(log)
