"""Tests of the pure-Python reference collector itself (tests/py/reference.py).

Expected numbers are derived by hand from the bytecode each interpreter
compiles (shown by ``dis``), and cross-checked against ``dis`` where a
derivation is mechanical.
"""

import dis
import os
import sys
import threading

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import workloads  # noqa: E402
from reference import Reference, code_key  # noqa: E402

PY = sys.version_info[:2]


# -- helpers -----------------------------------------------------------------

def executed_straight_line(fn):
    """Opcode names a branch-free function executes, per dis: RESUME and
    everything after it (caches are not instructions; nothing before RESUME
    is reported)."""
    names = [i.opname for i in dis.get_instructions(fn)]
    return names[names.index("RESUME"):]


def tally(seq):
    counts = {}
    for name in seq:
        counts[name] = counts.get(name, 0) + 1
    return counts


def pair_tally(seq):
    return tally(zip(seq, seq[1:]))


def diff(a, b):
    """a - b, per key, dropping zeros."""
    out = {}
    for k in set(a) | set(b):
        v = a.get(k, 0) - b.get(k, 0)
        if v:
            out[k] = v
    return out


class RawEvents:
    """Records (code name, event, f_lasti, opname at f_lasti) for frames of
    the given code names, with opcode tracing on, set up the way the
    reference does it."""

    def __init__(self, names):
        self.names = set(names)
        self.events = []

    def _trace(self, frame, event, arg):
        code = frame.f_code
        if code.co_name not in self.names:
            return None
        frame.f_trace = self._trace
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        lasti = frame.f_lasti
        op = dis.opname[code.co_code[lasti]] if 0 <= lasti < len(code.co_code) else None
        self.events.append((code.co_name, event, lasti, op))
        return self._trace

    def run(self, fn):
        frame = sys._getframe()
        frame.f_trace_opcodes = True
        frame.f_trace_opcodes = False
        sys.settrace(self._trace)
        try:
            fn()
        finally:
            sys.settrace(None)
        return self.events


# -- functions measured ------------------------------------------------------

def f():
    x = 1
    return x


def g():
    return f()


def loop(n):
    t = 0
    for i in range(n):
        t += i
    return t


def gen3():
    yield 1
    yield 2
    yield 3


def bad():
    x = 1
    raise ValueError(x)


def with_cell():
    a = 1

    def inner():
        return a
    return inner


# -- a single straight-line function ----------------------------------------

# 3.14 loads small ints with LOAD_SMALL_INT and a local whose reference
# the stack may borrow with LOAD_FAST_BORROW.
if PY >= (3, 14):
    F_SEQ = ["RESUME", "LOAD_SMALL_INT", "STORE_FAST", "LOAD_FAST_BORROW",
             "RETURN_VALUE"]
else:
    F_SEQ = ["RESUME", "LOAD_CONST", "STORE_FAST", "LOAD_FAST", "RETURN_VALUE"]


def test_simple_function_counts_exact():
    ref = Reference()
    assert ref.measure(f) == 1
    # Same five instructions on 3.11, 3.12 and 3.13; RESUME counted once.
    if PY >= (3, 14):
        assert ref.counts == {"RESUME": 1, "LOAD_SMALL_INT": 1,
                              "STORE_FAST": 1, "LOAD_FAST_BORROW": 1,
                              "RETURN_VALUE": 1}
    else:
        assert ref.counts == {"RESUME": 1, "LOAD_CONST": 1, "STORE_FAST": 1,
                              "LOAD_FAST": 1, "RETURN_VALUE": 1}
    assert ref.counts == tally(executed_straight_line(f))
    assert ref.total == 5


def test_simple_function_pairs_follow_sequence():
    ref = Reference()
    ref.measure(f)
    if PY >= (3, 14):
        assert ref.pairs == {("RESUME", "LOAD_SMALL_INT"): 1,
                             ("LOAD_SMALL_INT", "STORE_FAST"): 1,
                             ("STORE_FAST", "LOAD_FAST_BORROW"): 1,
                             ("LOAD_FAST_BORROW", "RETURN_VALUE"): 1}
    else:
        assert ref.pairs == {("RESUME", "LOAD_CONST"): 1,
                             ("LOAD_CONST", "STORE_FAST"): 1,
                             ("STORE_FAST", "LOAD_FAST"): 1,
                             ("LOAD_FAST", "RETURN_VALUE"): 1}
    assert ref.pairs == pair_tally(F_SEQ)
    # The first instruction has no predecessor.
    assert sum(ref.pairs.values()) == ref.total - 1


def test_measure_repeated_accumulates():
    ref = Reference()
    for _ in range(3):
        ref.measure(f)
    assert ref.counts == {k: 3 * v for k, v in tally(F_SEQ).items()}
    # Each window starts afresh: no (RETURN_VALUE, RESUME) pair across them.
    assert ref.pairs == {k: 3 * v for k, v in pair_tally(F_SEQ).items()}
    ref.clear()
    assert ref.counts == {} and ref.pairs == {}


def test_nested_call_pairs_cross_frames():
    ref = Reference()
    ref.measure(g)
    g_seq = executed_straight_line(g)
    call = g_seq.index("CALL")
    seq = g_seq[:call + 1] + F_SEQ + g_seq[call + 1:]
    if PY == (3, 11):
        assert g_seq == ["RESUME", "LOAD_GLOBAL", "PRECALL", "CALL", "RETURN_VALUE"]
    else:
        assert g_seq == ["RESUME", "LOAD_GLOBAL", "CALL", "RETURN_VALUE"]
    assert ref.counts == tally(seq)
    assert ref.pairs == pair_tally(seq)
    assert ref.pairs[("CALL", "RESUME")] == 1
    assert ref.pairs[("RETURN_VALUE", "RETURN_VALUE")] == 1


def test_start_stop_counts_only_called_code():
    # The frame calling start()/stop() is already running and not traced;
    # the reference's own stop() is not counted.
    ref = Reference()
    ref.start()
    f()
    ref.stop()
    assert ref.counts == tally(F_SEQ)
    ref2 = Reference()
    ref2.start()
    ref2.stop()
    assert ref2.counts == {}


def test_nothing_counted_after_stop():
    ref = Reference()
    ref.start()
    f()
    ref.stop()
    f()
    loop(5)
    assert ref.counts == tally(F_SEQ)


# -- loops ---------------------------------------------------------------------

def loop_expected(n):
    """Hand-derived from dis.dis(loop) on each version."""
    c = {"RESUME": 1, "LOAD_CONST": 1, "STORE_FAST": 1 + 2 * n,
         "LOAD_GLOBAL": 1, "CALL": 1, "GET_ITER": 1, "FOR_ITER": n + 1,
         "BINARY_OP": n, "JUMP_BACKWARD": n, "RETURN_VALUE": 1}
    if PY == (3, 11):
        c["PRECALL"] = 1
    if PY >= (3, 14):
        # t = 0 is LOAD_SMALL_INT; the loads borrow; after the loop
        # POP_ITER pops the iterator.
        del c["LOAD_CONST"]
        c["LOAD_SMALL_INT"] = 1
        c["LOAD_FAST_BORROW"] = 2
        c["LOAD_FAST_BORROW_LOAD_FAST_BORROW"] = n
        c["POP_ITER"] = 1
    elif PY >= (3, 13):
        # t += i loads both locals with one superinstruction.
        c["LOAD_FAST"] = 2
        c["LOAD_FAST_LOAD_FAST"] = n
    else:
        c["LOAD_FAST"] = 2 + 2 * n
    # On exhaustion FOR_ITER jumps past END_FOR (3.12), END_FOR and POP_TOP
    # (3.13), END_FOR to POP_ITER (3.14): END_FOR never executes.
    return {k: v for k, v in c.items() if v}


@pytest.mark.parametrize("n", [0, 1, 10, 37])
def test_loop_counts_exact(n):
    ref = Reference()
    assert ref.measure(loop, n) == sum(range(n))
    assert ref.counts == loop_expected(n)
    assert "END_FOR" not in ref.counts


def test_loop_counts_proportional_to_iterations():
    a, b = Reference(), Reference()
    a.measure(loop, 100)
    b.measure(loop, 50)
    d = diff(a.counts, b.counts)
    body = {"FOR_ITER": 1, "STORE_FAST": 2, "BINARY_OP": 1, "JUMP_BACKWARD": 1}
    body.update({"LOAD_FAST_BORROW_LOAD_FAST_BORROW": 1} if PY >= (3, 14) else
                {"LOAD_FAST_LOAD_FAST": 1} if PY >= (3, 13) else
                {"LOAD_FAST": 2})
    assert d == {k: 50 * v for k, v in body.items()}
    pd = diff(a.pairs, b.pairs)
    assert pd[("JUMP_BACKWARD", "FOR_ITER")] == 50
    assert pd[("FOR_ITER", "STORE_FAST")] == 50
    assert sum(pd.values()) == 50 * sum(body.values())


# -- generators and RESUME -------------------------------------------------------

def gen_body_counts(resumes):
    """Instructions gen3's frame executes when started and resumed by
    next() `resumes` more times (0 <= resumes <= 3), per dis.dis(gen3)."""
    load = "LOAD_SMALL_INT" if PY >= (3, 14) else "LOAD_CONST"
    c = {"RESUME": 1 + resumes, load: min(1 + resumes, 3),
         "YIELD_VALUE": min(1 + resumes, 3), "POP_TOP": resumes}
    if resumes == 3:
        if PY == (3, 11) or PY >= (3, 14):
            c["LOAD_CONST"] = c.get("LOAD_CONST", 0) + 1
            c["RETURN_VALUE"] = 1
        else:
            c["RETURN_CONST"] = 1
    return c


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_generator_next_counts_resume_per_resumption(k):
    def consume():
        it = gen3()
        for _ in range(k):
            next(it, None)

    ref = Reference()
    ref.measure(consume)
    gen_counts = gen_body_counts(k - 1)
    # RESUME: one for consume, one for the generator's start, one per
    # later next(); RETURN_GENERATOR/POP_TOP at creation are not reported.
    assert ref.counts["RESUME"] == 1 + k
    assert ref.counts["YIELD_VALUE"] == min(k, 3)
    assert "RETURN_GENERATOR" not in ref.counts
    assert gen_counts["RESUME"] == k
    # The generator's own POP_TOPs (one per resumption) plus consume's
    # one per next() call (the discarded result).
    assert ref.counts["POP_TOP"] == gen_counts["POP_TOP"] + k


def test_generator_fully_consumed_exact():
    def consume():
        for _ in gen3():
            pass

    ref = Reference()
    ref.measure(consume)
    consume_seq_counts = {"RESUME": 1, "LOAD_GLOBAL": 1, "CALL": 1,
                          "GET_ITER": 1, "FOR_ITER": 4, "STORE_FAST": 3,
                          "JUMP_BACKWARD": 3}
    if PY == (3, 11):
        consume_seq_counts.update({"PRECALL": 1, "LOAD_CONST": 1,
                                   "RETURN_VALUE": 1})
    elif PY >= (3, 14):
        consume_seq_counts.update({"POP_ITER": 1, "LOAD_CONST": 1,
                                   "RETURN_VALUE": 1})
    else:
        consume_seq_counts["RETURN_CONST"] = 1
    expected = dict(consume_seq_counts)
    for k, v in gen_body_counts(3).items():
        expected[k] = expected.get(k, 0) + v
    assert ref.counts == expected
    assert ref.counts["RESUME"] == 5            # consume + start + 3 resumes
    assert ref.pairs[("FOR_ITER", "RESUME")] == 4
    assert ref.pairs[("YIELD_VALUE", "STORE_FAST")] == 3


def test_generator_send_counts_resume():
    def consume():
        it = gen3()
        it.send(None)
        it.send(5)

    ref = Reference()
    ref.measure(consume)
    assert ref.counts["RESUME"] == 3
    assert ref.counts["YIELD_VALUE"] == 2


def test_throw_adds_no_resume():
    def catcher():
        n = 0
        while True:
            try:
                yield n
            except ValueError:
                n += 1

    def consume(throws):
        it = catcher()
        next(it)
        for _ in range(throws):
            it.throw(ValueError)

    counts = {}
    for throws in (0, 1, 4):
        ref = Reference()
        ref.measure(consume, throws)
        counts[throws] = ref.counts
    # consume + the generator's start; throw() resumptions add none.
    assert counts[0]["RESUME"] == 2
    assert counts[1]["RESUME"] == 2
    assert counts[4]["RESUME"] == 2
    # ...but each throw runs the handler and yields again.
    assert counts[4]["YIELD_VALUE"] == 5
    assert counts[4]["BINARY_OP"] == 4     # n += 1 in the handler
    # When consume returns, the suspended generator is finalized inside the
    # window: close() throws GeneratorExit, which enters the handler too
    # (and does not match), again without a RESUME.
    assert counts[0]["PUSH_EXC_INFO"] == 1
    assert counts[1]["PUSH_EXC_INFO"] == 2
    assert counts[4]["PUSH_EXC_INFO"] == 5
    assert counts[4]["CHECK_EXC_MATCH"] == 5
    assert counts[4]["POP_EXCEPT"] == 5    # 4 handled + the cleanup of 1


def test_throw_uncaught_and_unstarted():
    def consume():
        it = gen3()
        try:
            it.throw(KeyError)             # unstarted: nothing runs in it
        except KeyError:
            pass
        it = gen3()
        next(it)
        try:
            it.throw(KeyError)             # propagates out of the generator
        except KeyError:
            pass

    ref = Reference()
    ref.measure(consume)
    assert ref.counts["RESUME"] == 2       # consume + one generator start
    assert ref.counts["YIELD_VALUE"] == 1


def test_close_before_start_runs_nothing():
    def consume():
        it = gen3()
        it.close()

    ref = Reference()
    ref.measure(consume)
    assert ref.counts["RESUME"] == 1
    assert "YIELD_VALUE" not in ref.counts


def test_call_event_lasti_facts():
    """The version facts the RESUME rule depends on (see reference.py)."""
    def consume():
        it = gen3()
        next(it)
        next(it)
        try:
            it.throw(ValueError)
        except ValueError:
            pass

    ev = RawEvents(["gen3"]).run(consume)
    calls = [e for e in ev if e[1] == "call"]
    assert [c[3] for c in calls[:2]] == ["RESUME", "RESUME"]
    assert calls[0][2] == 4 and calls[1][2] == 10
    throw_call = calls[2]
    i = ev.index(throw_call)
    assert ev[i + 1][1] == "exception"       # throw: exception comes first
    if PY >= (3, 13):
        assert throw_call[2:] == (18, "RESUME")
    else:
        assert throw_call[2:] == (16, "YIELD_VALUE")
    # After send()/next(), the next event is the opcode after RESUME.
    j = ev.index(calls[1])
    assert ev[j + 1][1:] == ("opcode", 12, "POP_TOP")


# -- what is never reported ----------------------------------------------------

def test_no_opcode_event_reports_resume():
    names = set()
    for mod in ("generators", "async_", "closures", "exceptions", "classes"):
        m = workloads.load(mod)
        codes = set()
        for obj in vars(m).values():
            if hasattr(obj, "__code__"):
                codes.add(obj.__code__.co_name)
        names |= codes
    raw = RawEvents(names)
    for mod in ("generators", "async_", "closures", "exceptions", "classes"):
        raw.run(workloads.load(mod).run)
    ops = [e for e in raw.events if e[1] == "opcode"]
    assert len(ops) > 500
    assert not [e for e in ops if e[3] == "RESUME"]


def test_instructions_before_resume_not_counted():
    def make():
        inner = with_cell()
        return inner()

    ref = Reference()
    assert ref.measure(make) == 1
    assert "MAKE_CELL" not in ref.counts
    assert "COPY_FREE_VARS" not in ref.counts
    pre = [i.opname for i in dis.get_instructions(with_cell)]
    assert pre[0] == "MAKE_CELL"           # it is there, just never reported
    ref = Reference()
    ref.measure(gen3)                      # creating a generator runs nothing
    assert ref.counts == {}


def test_builtin_fn_counts_nothing():
    ref = Reference()
    assert ref.measure(len, [1]) == 1
    assert ref.counts == {}
    assert ref.pairs == {}


def test_builtin_calling_back_counts_callbacks_only():
    ref = Reference()
    assert ref.measure(sorted, [3, 1, 2], key=lambda v: -v) == [3, 2, 1]
    # Three calls of the lambda: RESUME, LOAD_FAST (3.14: LOAD_FAST_BORROW),
    # UNARY_NEGATIVE, RETURN_VALUE.
    load = "LOAD_FAST_BORROW" if PY >= (3, 14) else "LOAD_FAST"
    assert ref.counts == {"RESUME": 3, load: 3, "UNARY_NEGATIVE": 3,
                          "RETURN_VALUE": 3}
    # Each call follows the previous one's RETURN_VALUE in the same thread.
    assert ref.pairs[("RETURN_VALUE", "RESUME")] == 2


def test_exception_counted_up_to_raise_and_propagates():
    ref = Reference()
    with pytest.raises(ValueError):
        ref.measure(bad)
    seq = executed_straight_line(bad)
    assert seq[-1] == "RAISE_VARARGS"
    assert ref.counts == tally(seq)
    if PY == (3, 11):
        assert ref.total == 8   # RESUME LOAD_CONST STORE_FAST LOAD_GLOBAL LOAD_FAST PRECALL CALL RAISE_VARARGS
    else:
        assert ref.total == 7
    # The reference is off again afterwards.
    assert sys.gettrace() is None
    f()
    assert ref.counts == tally(seq)


QUIRK_SCRIPT = r"""
import sys
events = []
def tr(frame, event, arg):
    if frame.f_code.co_name != "h":
        return None
    if ORDER == "f_trace first":
        frame.f_trace = tr
    frame.f_trace_opcodes = True
    frame.f_trace_lines = False
    events.append(event)
    return tr
def h():
    x = 1
    return x
if PRIME:
    fr = sys._getframe()
    fr.f_trace_opcodes = True
    fr.f_trace_opcodes = False
sys.settrace(tr)
h()
sys.settrace(None)
print(events.count("opcode"))
"""


@pytest.mark.parametrize("prime", [False, True])
@pytest.mark.parametrize("order", ["f_trace first", "flags only"])
def test_opcode_tracing_setup_quirks(prime, order):
    """Why the reference primes f_trace_opcodes before settrace (3.12) and
    assigns frame.f_trace before setting f_trace_opcodes/f_trace_lines
    (3.13): without either, the first traced call reports no opcode event."""
    import subprocess
    script = f"PRIME = {prime}\nORDER = {order!r}\n" + QUIRK_SCRIPT
    out = subprocess.run([sys.executable, "-c", script], capture_output=True,
                         text=True, check=True).stdout
    n = int(out)
    works = True
    if PY == (3, 12) and not prime:
        works = False
    if PY >= (3, 13) and order == "flags only":
        works = False
    assert n == (4 if works else 0)


# -- EXTENDED_ARG ------------------------------------------------------------

def _make_many_consts():
    src = "def many():\n" + "".join(f"    v = {i}.5\n" for i in range(300))
    ns = {}
    exec(compile(src, "<many>", "exec"), ns)
    return ns["many"]


def test_extended_arg_reporting():
    many = _make_many_consts()
    static = tally(executed_straight_line(many))
    # co_consts = (None, 0.5, ..., 299.5): indices 256..300 need EXTENDED_ARG.
    assert static["EXTENDED_ARG"] == 45
    ref = Reference()
    ref.measure(many)
    assert ref.counts["EXTENDED_ARG"] == 45
    assert ref.counts["STORE_FAST"] == 300
    # On 3.11 the instruction an EXTENDED_ARG prefixes gets no event of
    # its own; it is counted from the bytecode right after its prefix.
    # 3.11 and 3.14 return None with LOAD_CONST, RETURN_VALUE (3.12 and
    # 3.13: RETURN_CONST).
    assert ref.counts["LOAD_CONST"] == (301 if PY == (3, 11) or PY >= (3, 14)
                                        else 300)
    assert ref.counts == static
    assert ref.pairs[("EXTENDED_ARG", "LOAD_CONST")] == 45


# -- threads -----------------------------------------------------------------

def _run_threads(n_threads, iterations):
    threads = [threading.Thread(target=loop, args=(iterations,)) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_threads_counted_by_start_stop():
    results = {}
    for iterations in (40, 90):
        ref = Reference()
        ref.start()
        _run_threads(3, iterations)
        ref.stop()
        results[iterations] = ref
    # The workers' loop exactly, three times; the whole-process totals also
    # hold threading's own join and lock loops, which run a number of
    # times that depends on scheduling.
    key = code_key(loop.__code__)
    for iterations, ref in results.items():
        want = {k: 3 * v for k, v in loop_expected(iterations).items()}
        assert ref.code_counts[key] == want
    # Every worker ran its loop in full: three RESUMEs of loop at least.
    for k, v in loop_expected(90).items():
        assert results[90].counts[k] >= 3 * v


def test_thread_pairs_are_per_thread():
    ref = Reference()
    ref.start()
    _run_threads(3, 10)
    ref.stop()
    # Four threads (main + 3) ran instructions; each one's first instruction
    # has no predecessor, every other instruction closes exactly one pair.
    assert sum(ref.pairs.values()) == ref.total - 4


def test_measure_counts_only_calling_thread():
    # A long switch interval makes the calling thread's path through
    # threading's start()/join() code the same every time (see
    # workloads/threads.py), so its count cannot depend on the workers.
    old = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    try:
        small, large = Reference(), Reference()
        small.measure(_run_threads, 3, 10)
        large.measure(_run_threads, 3, 100)
    finally:
        sys.setswitchinterval(old)
    assert small.counts == large.counts
    assert small.pairs == large.pairs
    # The workers' loops (a BINARY_OP per iteration, 30 in small) are not
    # in it; threading's own code has a few (3.14: subscripts are BINARY_OP).
    assert small.counts.get("BINARY_OP", 0) < 30


# -- the workload corpus -----------------------------------------------------

@pytest.mark.parametrize("name", workloads.ALL)
def test_workload_deterministic_and_small(name):
    mod = workloads.load(name)
    expected = mod.run()
    a, b = Reference(), Reference()
    assert a.measure(mod.run) == expected
    assert b.measure(mod.run) == expected
    assert a.counts == b.counts
    assert a.pairs == b.pairs
    assert 100 < a.total < 50_000
    assert sum(a.pairs.values()) == a.total - 1


def test_workloads_cover_extended_arg():
    ref = Reference()
    ref.measure(workloads.load("extended_arg").run)
    assert ref.counts["EXTENDED_ARG"] > 100


def test_workload_threads_counts_worker_threads():
    mod = workloads.load("threads")
    main_only = Reference()
    main_only.measure(mod.run)
    everything = Reference()
    everything.start()
    mod.run()
    everything.stop()
    one = Reference()
    one.measure(mod.work, 1, {})
    assert everything.total > main_only.total + 3 * one.total - 100
    for name, n in one.counts.items():
        assert everything.counts[name] >= main_only.counts.get(name, 0) + 3 * n


# -- cross-check against sys.monitoring (3.12+) ---------------------------------

class MonitoringCounts:
    """Per-opcode counts from a sys.monitoring tool: INSTRUCTION events name
    every instruction but RESUME; PY_START plus PY_RESUME count exactly the
    RESUMEs the reference adds (throw() fires PY_THROW instead)."""

    def __init__(self, skip_files):
        self.skip_files = set(skip_files)
        self.counts = {}

    def _instruction(self, code, offset):
        if code.co_filename not in self.skip_files:
            op = dis.opname[code.co_code[offset]]
            self.counts[op] = self.counts.get(op, 0) + 1

    def _resume(self, code, offset):
        if code.co_filename not in self.skip_files:
            self.counts["RESUME"] = self.counts.get("RESUME", 0) + 1

    def _unwind(self, code, offset, exc):
        pass

    def run(self, fn):
        mon = sys.monitoring
        tool = next(t for t in range(6) if mon.get_tool(t) is None)
        ev = mon.events
        mon.use_tool_id(tool, "reference-check")
        try:
            mon.register_callback(tool, ev.INSTRUCTION, self._instruction)
            mon.register_callback(tool, ev.PY_START, self._resume)
            mon.register_callback(tool, ev.PY_RESUME, self._resume)
            # PY_UNWIND too, as the reference's sys.settrace has it: 3.14
            # closes a suspended generator without running its frame only
            # when no tool has PY_UNWIND events (gen_close in
            # Objects/genobject.c), so both must see the same execution.
            mon.register_callback(tool, ev.PY_UNWIND, self._unwind)
            mon.set_events(tool, ev.INSTRUCTION | ev.PY_START | ev.PY_RESUME |
                           ev.PY_UNWIND)
            fn()
        finally:
            mon.set_events(tool, 0)
            mon.free_tool_id(tool)
        return self.counts


needs_monitoring = pytest.mark.skipif(PY < (3, 12), reason="sys.monitoring is 3.12+")


@needs_monitoring
@pytest.mark.parametrize("name", [n for n in workloads.ALL if n != "threads"])
def test_counts_match_sys_monitoring(name):
    # One after the other, never at the same time (see reference.py).
    run = workloads.load(name).run
    ref = Reference()
    ref.measure(run)
    # This file's own frames are outside the measured window.
    got = MonitoringCounts([__file__]).run(run)
    assert ref.counts == got


@needs_monitoring
def test_reference_survives_other_monitoring_tool():
    """3.12/3.13 lose opcode events on code that another tool's INSTRUCTION
    events touched in between; the reference repairs that per window."""
    def work():
        return loop(7) + f()

    first = Reference()
    first.measure(work)
    MonitoringCounts([__file__]).run(work)
    second = Reference()
    second.measure(work)
    assert second.counts == first.counts
    assert second.pairs == first.pairs
    assert first.counts["FOR_ITER"] == 8
