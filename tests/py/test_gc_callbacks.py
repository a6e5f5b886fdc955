"""Python code the interpreter runs in the measuring thread while fn
runs: functions in gc.callbacks (a test framework may have installed
one: hypothesis does) run at every collection that starts while fn runs,
a signal handler at the next eval breaker, and measure() counts them as
fn's, on 3.11 (trace function) as on 3.12+ (sys.monitoring), in both
modes.  When an automatic collection starts depends on every allocation
since the last one, the caller's included, so two calls compared must
start from the same GC state (conftest.fresh_gc)."""
import collections
import gc
import os
import signal

import pytest

from test_segments import MODES, assert_same, executed_straight_line, measured

seen = []


def on_gc(phase, info):
    seen.append(phase)


def collect():
    gc.collect()


def churn(n):
    for i in range(n):
        cell = [None]
        cell[0] = cell              # a cycle only the GC frees


@pytest.fixture
def gc_state():
    """Automatic collections off (tests turn them on), thresholds and
    gc.callbacks restored afterwards."""
    enabled = gc.isenabled()
    threshold = gc.get_threshold()
    callbacks = list(gc.callbacks)
    gc.disable()
    try:
        yield
    finally:
        gc.callbacks[:] = callbacks
        gc.set_threshold(*threshold)
        if enabled:
            gc.enable()


@pytest.mark.parametrize("mode", MODES)
def test_gc_callback_counted_as_fns(stats, gc_state, mode):
    """One explicit collection in fn calls on_gc twice (start, stop):
    measure(fn) counts on_gc's instructions, read from dis, twice more
    than without it."""
    collect()                                   # warm up
    without = measured(stats, mode, collect)[0]
    gc.callbacks.append(on_gc)
    del seen[:]
    with_cb = measured(stats, mode, collect)[0]
    assert seen[-2:] == ["start", "stop"]
    extra = collections.Counter(with_cb)
    extra.subtract(without)
    expected = collections.Counter(executed_straight_line(on_gc) * 2)
    assert {k: v for k, v in extra.items() if v} == dict(expected)


def test_automatic_collections_alike_in_both_modes(stats, gc_state):
    """Collections fn's allocations start, with a Python gc callback, give
    the same counts in both modes whatever was allocated before the
    call."""
    gc.callbacks.append(on_gc)
    gc.set_threshold(100, 10, 10)
    gc.enable()
    churn(10)                                   # warm up
    for before in range(0, 100, 10):
        keep = [[] for _ in range(before)]      # allocations of the caller
        del seen[:]
        a = measured(stats, "count", churn, 60)
        b = measured(stats, "instructions", churn, 60)
        assert seen, "no collection in fn"
        assert_same(a, b)
        del keep


def on_signal(signum, frame):
    seen.append(signum)


def signal_self():
    os.kill(os.getpid(), signal.SIGUSR1)


@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="no SIGUSR1")
@pytest.mark.parametrize("mode", MODES)
def test_signal_handler_counted_as_fns(stats, mode):
    old = signal.signal(signal.SIGUSR1, on_signal)
    try:
        signal_self()                           # warm up
        del seen[:]
        counts = measured(stats, mode, signal_self)[0]
    finally:
        signal.signal(signal.SIGUSR1, old)
    assert seen == [signal.SIGUSR1]
    expected = collections.Counter(executed_straight_line(signal_self)) + \
        collections.Counter(executed_straight_line(on_signal))
    assert counts == dict(expected)
