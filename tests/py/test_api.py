"""The in-process API: what on()/off(), measure(), clear(), dump() and
snapshot() count, instruction by instruction."""
import collections
import dis
import sys
import threading
import time

import pytest

from conftest import dumps_in

V = sys.version_info[:2]


def executed_straight_line(fn):
    """The instructions a call of fn with no branches executes: those
    from RESUME on (instructions before RESUME are reported by no event;
    RESUME itself is counted once per call).  On 3.11 an EXTENDED_ARG's
    target is not reported either (see docs/FORMAT.md)."""
    ins = list(dis.get_instructions(fn))
    start = next(i for i, x in enumerate(ins) if x.opname == "RESUME")
    return [x.opname for x in ins[start:]]


def pairs_of(seq):
    return collections.Counter(zip(seq, seq[1:]))


def f_simple():
    a = 1
    b = a + 2
    return (a, b)


def test_measure_counts_exactly_fn(pystats):
    seq = executed_straight_line(f_simple)
    assert pystats.measure(f_simple) == (1, 3)
    snap = pystats.snapshot()
    assert snap["execution_count"] == dict(collections.Counter(seq))
    assert snap["pair_count"] == dict(pairs_of(seq))


def test_measure_passes_args_and_kwargs(pystats):
    def g(a, b=0, *, c):
        return a + b + c
    assert pystats.measure(g, 1, b=2, c=3) == 6
    assert pystats.snapshot()["execution_count"]["RESUME"] == 1


def test_measure_twice_adds_and_pairs_do_not_cross_calls(pystats):
    seq = executed_straight_line(f_simple)
    pystats.measure(f_simple)
    pystats.measure(f_simple)
    snap = pystats.snapshot()
    assert snap["execution_count"] == {k: 2 * v for k, v in
                                       collections.Counter(seq).items()}
    # The last instruction of the first call is no predecessor of the
    # first of the second: the caller ran in between, uncounted.
    assert snap["pair_count"] == {k: 2 * v for k, v in pairs_of(seq).items()}


def test_measure_builtin_counts_nothing(pystats):
    assert pystats.measure(len, [1, 2, 3]) == 3
    assert pystats.measure(sorted, [3, 1, 2]) == [1, 2, 3]
    snap = pystats.snapshot()
    assert snap["execution_count"] == {} and snap["pair_count"] == {}


def test_measure_builtin_calling_back_counts_the_callback(pystats):
    calls = []

    def key(x):
        calls.append(x)
        return -x
    assert pystats.measure(sorted, [1, 2, 3], key=key) == [3, 2, 1]
    seq = executed_straight_line(key)
    counts = pystats.snapshot()["execution_count"]
    assert counts == {k: 3 * v for k, v in collections.Counter(seq).items()}


def raiser():
    x = 1
    raise ValueError(x)


def test_measure_raising_fn_counts_up_to_the_raise(pystats):
    with pytest.raises(ValueError):
        pystats.measure(raiser)
    seq = executed_straight_line(raiser)
    seq = seq[:seq.index("RAISE_VARARGS") + 1]
    assert pystats.snapshot()["execution_count"] == \
        dict(collections.Counter(seq))


def test_nested_measure_counts_once(pystats):
    def outer():
        return pystats.measure(f_simple)
    pystats.measure(outer)
    nested = pystats.snapshot()["execution_count"]
    expected = collections.Counter(executed_straight_line(outer)) + \
        collections.Counter(executed_straight_line(f_simple))
    assert nested == dict(expected)
    assert nested["BINARY_OP"] == 1


def window(on, off, work):
    on()
    work()
    off()


def test_window_counts_from_after_on_to_the_call_of_off(pystats):
    window(pystats.on, pystats.off, f_simple)
    ins = [x.opname for x in dis.get_instructions(window)]
    calls = [i for i, op in enumerate(ins) if op == "CALL"]
    caller = ins[calls[0] + 1:calls[2] + 1]   # POP_TOP ... CALL (off)
    expected = collections.Counter(caller) + \
        collections.Counter(executed_straight_line(f_simple))
    assert pystats.snapshot()["execution_count"] == dict(expected)
    assert not pystats.is_on()


def test_off_by_default_and_is_on(pystats):
    assert not pystats.is_on()
    f_simple()
    assert pystats.snapshot()["execution_count"] == {}
    pystats.on()
    assert pystats.is_on()
    pystats.off()
    assert not pystats.is_on()


def test_clear_forgets_and_dump_writes_then_clears(pystats):
    import os
    pystats.measure(f_simple)
    pystats.clear()
    assert pystats.snapshot()["execution_count"] == {}
    directory = os.environ["PYSTATS_DIR"]
    before = {d.path for d in dumps_in(directory)}
    assert pystats.dump() is False        # nothing to write
    pystats.measure(f_simple)
    assert pystats.dump() is True
    assert pystats.snapshot()["execution_count"] == {}
    new = [d for d in dumps_in(directory) if d.path not in before]
    assert len(new) == 1
    seq = executed_straight_line(f_simple)
    assert new[0].counts == dict(collections.Counter(seq))
    assert new[0].header["meta.dump.reason"] == "explicit"
    os.unlink(new[0].path)


def set_worker(stop, out):
    n = 0
    while not stop.is_set() and n < 2000:
        s = {n}          # BUILD_SET: no other code here uses it
        n += len(s)
        time.sleep(0)
    out.append(n)


def sleeper():
    time.sleep(0.05)


def test_measure_counts_only_the_calling_thread(pystats):
    """Documented: measure() is fn's work in this thread; other threads
    are not counted (a window, like the native one, counts all)."""
    stop, out = threading.Event(), []
    t = threading.Thread(target=set_worker, args=(stop, out))
    t.start()
    try:
        pystats.measure(sleeper)
    finally:
        stop.set()
        t.join()
    assert out[0] > 0
    counts = pystats.snapshot()["execution_count"]
    assert "BUILD_SET" not in counts
    assert counts["RESUME"] == 1


def fixed_set_worker(n):
    for i in range(n):
        s = {i}
        del s


def test_window_counts_every_thread(pystats):
    pystats.on()
    threads = [threading.Thread(target=fixed_set_worker, args=(100,))
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    pystats.off()
    assert pystats.snapshot()["execution_count"]["BUILD_SET"] == 300


def test_window_counts_threads_already_running(pystats):
    go, done = threading.Event(), threading.Event()

    def waiter():
        go.wait()
        fixed_set_worker(50)
        done.set()
    t = threading.Thread(target=waiter)
    t.start()
    pystats.on()
    go.set()
    done.wait()
    pystats.off()
    t.join()
    assert pystats.snapshot()["execution_count"]["BUILD_SET"] == 50


def test_unknown_mode_is_refused(pystats):
    with pytest.raises(ValueError, match="unknown collection mode"):
        pystats.on(mode="bogus")
    assert not pystats.is_on()


def test_noop_mode_counts_nothing(pystats):
    pystats.on(mode="noop")
    f_simple()
    pystats.off()
    assert pystats.snapshot()["execution_count"] == {}
    # The window's mode does not outlive it: measure() counts again.
    pystats.measure(f_simple)
    assert pystats.snapshot()["execution_count"]["RESUME"] == 1


@pytest.mark.skipif(V >= (3, 12), reason="3.11 trace-function backend")
def test_refuses_to_evict_a_trace_function(pystats):
    def tracer(frame, event, arg):
        return None
    sys.settrace(tracer)
    try:
        with pytest.raises(RuntimeError, match="trace function"):
            pystats.on()
        with pytest.raises(RuntimeError, match="trace function"):
            pystats.measure(f_simple)
        assert sys.gettrace() is tracer
    finally:
        sys.settrace(None)
    assert not pystats.is_on()


@pytest.mark.skipif(V < (3, 12), reason="sys.monitoring backend")
def test_refuses_to_evict_monitoring_tools(pystats):
    mon = sys.monitoring
    mon.use_tool_id(3, "other-a")
    mon.use_tool_id(4, "other-b")
    try:
        with pytest.raises(RuntimeError, match="in use"):
            pystats.on()
        assert mon.get_tool(3) == "other-a"
        assert mon.get_tool(4) == "other-b"
    finally:
        mon.free_tool_id(3)
        mon.free_tool_id(4)
    assert not pystats.is_on()
    # With one id free it coexists with the other tool.
    mon.use_tool_id(4, "other-b")
    try:
        pystats.measure(f_simple)
        assert mon.get_tool(4) == "other-b"
    finally:
        mon.free_tool_id(4)
    assert pystats.snapshot()["execution_count"]["RESUME"] == 1


def test_instrumentation_removed_when_off(pystats):
    pystats.on()
    assert pystats._collector._state()["installed"]
    pystats.off()
    assert not pystats._collector._state()["installed"]
    if V >= (3, 12):
        assert sys.monitoring.get_tool(3) is None
        assert sys.monitoring.get_tool(4) is None
    else:
        assert threading.gettrace() is None
    pystats.measure(f_simple)
    assert not pystats._collector._state()["installed"]
