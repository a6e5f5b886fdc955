"""Another tracing or monitoring tool in the program being counted: both
tools' results correct, or the dump says why the counts are not exact and
`pystats check` reports it as an error (never a silently wrong count).

3.11: one trace function per thread, so sys.settrace or coverage's C
tracer while counting displaces the collector in that thread.  3.12+:
sys.settrace and coverage (C tracer, or its sys.monitoring core) coexist
with the collector's events; a trace function that jumps by setting
frame.f_lineno is invisible to segment counting."""
import dis
import json
import os
import subprocess
import sys

import pytest

from conftest import SETS, clean_env, decode_text, dumps_in

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")
SEGMENTS = sys.version_info >= (3, 12)

pytestmark = pytest.mark.skipif(not os.access(PYSTATS_CLI, os.X_OK),
                                reason="build/pystats is not built")

try:
    import coverage                         # noqa: F401
    HAVE_COVERAGE = True
except ImportError:
    HAVE_COVERAGE = False

# sets(n) runs MATCH_CLASS exactly n times (conftest.SETS); nothing else
# the programs below run has a match statement.
PROGRAM = SETS + """
import sys

def tracer(frame, event, arg):
    return tracer

def main(tool):
    sets(3)
    if tool == "settrace":
        sys.settrace(tracer)
        sets(5)
        sys.settrace(None)
    elif tool in ("ctrace", "sysmon"):
        import coverage
        cov = coverage.Coverage(data_file=None)
        cov.start()
        # Which core coverage runs, as the interpreter sees it.
        t = sys.gettrace()
        mon = getattr(sys, "monitoring", None)
        print("core:", type(t).__name__ if t is not None else
              ("sysmon" if mon and mon.get_tool(mon.COVERAGE_ID) else "none"))
        sets(5)
        cov.stop()
    else:
        sets(5)
    sets(2)

main(sys.argv[1])
"""


# Where PROGRAM calls sys.settrace, as the dump must name it.
SETTRACE_AT = 'sys.settrace at "<string>", line %d, in main' % (
    PROGRAM.splitlines().index("        sys.settrace(tracer)") + 1)


def run_counted(tmp_path, tool, mode="count", extra_env=None):
    out = tmp_path / ("dumps-" + tool)
    env = clean_env(PYTHONSTATS=mode, PYSTATS_DIR=out, **(extra_env or {}))
    p = subprocess.run([sys.executable, "-c", PROGRAM, tool], env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    ds = dumps_in(str(out))
    assert len(ds) == 1, ds
    return p, ds[0], out


def check(path):
    p = subprocess.run([PYSTATS_CLI, "check", str(path), "--json", "-"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode in (0, 6), p.stderr
    report = json.loads(p.stdout)
    errors = {f["check"]: f for f in report["findings"]
              if f["severity"] == "error"}
    return p.returncode, report, errors


def sets_code(d):
    """The hot-code lines of sets() (docs/FORMAT.md 1.14)."""
    return {k: v for k, v in d.extra.items()
            if k.startswith("code[") and ":sets]." in k and "].site" not in k}


def test_sys_settrace_while_counting(tmp_path):
    p, d, out = run_counted(tmp_path, "settrace")
    rc, report, errors = check(out)
    if SEGMENTS:
        # Both tools' results are correct: all 10 MATCH_CLASS counted,
        # sets() exactly as without the trace function.
        _, plain, _ = run_counted(tmp_path, "none")
        assert d.counts["MATCH_CLASS"] == 10
        assert sets_code(d) == sets_code(plain)
        assert "meta.collection.displaced" not in d.header
        assert "inexact-counts" not in errors and rc == 0, errors
        assert "pystats:" not in p.stderr
    else:
        # The collector stepped aside: the 5 runs under the other trace
        # function (and everything after it in this thread) are missing,
        # and the dump, stderr and check all say so.
        assert d.counts["MATCH_CLASS"] == 3
        assert d.header["meta.collection.displaced"] == "1"
        cause = decode_text(d.header["meta.collection.inexact_cause"])
        assert cause == SETTRACE_AT, cause
        assert p.stderr.count("another trace function replaces the "
                              "collector's") == 1, p.stderr
        assert rc == 6
        assert report["findings"][0]["check"] == "inexact-counts"
        detail = errors["inexact-counts"]["details"][0]
        assert "1 thread displaced by another trace function" in detail
        assert SETTRACE_AT in detail


DOCTESTED = SETS + """
import doctest, sys
import pystats


def checked():
    \"\"\"
    >>> sets(2)
    >>> sys.gettrace() is None
    True
    \"\"\"


original = sys.settrace
pystats.on()
sets(3)
failed, tried = doctest.run_docstring_examples(checked, globals()) or (0, 2)
sets(5)
pystats.off()
print("restored:", sys.settrace is original)
assert pystats.dump()
"""


def test_doctest_saving_and_restoring_no_trace_function(tmp_path):
    """doctest saves sys.gettrace() (None: the collector's trace function
    carries no object) and restores it with sys.settrace(None) after
    each example run.  The collector keeps counting through it on 3.11
    (its sys.settrace pass-through; 3.12+ has no trace function to lose):
    all 10 MATCH_CLASS counted (3, 2 in the doctest, 5 after), nothing
    displaced, and sys.settrace is CPython's own again after off()."""
    out = tmp_path / "dumps"
    p = subprocess.run([sys.executable, "-c", DOCTESTED],
                       env=clean_env(PYSTATS_DIR=out), capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "restored: True" in p.stdout, p.stdout
    assert "pystats:" not in p.stderr, p.stderr
    [d] = dumps_in(str(out))
    assert d.counts["MATCH_CLASS"] == 10
    assert "meta.collection.displaced" not in d.header
    rc, report, errors = check(out)
    assert "inexact-counts" not in errors, errors


@pytest.mark.skipif(not HAVE_COVERAGE, reason="coverage is not installed")
@pytest.mark.parametrize("core", ["ctrace", "sysmon"])
def test_coverage_while_counting(tmp_path, core):
    if core == "sysmon" and not SEGMENTS:
        pytest.skip("coverage's sys.monitoring core needs 3.12+")
    p, d, out = run_counted(tmp_path, core,
                            extra_env={"COVERAGE_CORE": core})
    shown = "CTracer" if core == "ctrace" else "sysmon"
    assert ("core: %s\n" % shown) in p.stdout, p.stdout
    rc, report, errors = check(out)
    if SEGMENTS or core == "sysmon":
        _, plain, _ = run_counted(tmp_path, "none")
        assert sets_code(d) == sets_code(plain)
        assert sets_code(d), d.extra
        assert "meta.collection.displaced" not in d.header
        assert "inexact-counts" not in errors and rc == 0, errors
    else:
        # 3.11: coverage's C tracer took the thread's trace function.
        assert d.counts["MATCH_CLASS"] == 3
        assert d.header["meta.collection.displaced"] == "1"
        cause = decode_text(d.header["meta.collection.inexact_cause"])
        assert cause.startswith("sys.settrace at "), cause
        assert os.sep + "coverage" + os.sep in cause, cause
        assert rc == 6 and "inexact-counts" in errors


# A trace function that jumps from the first line of jumpy() to its
# fourth (frame.f_lineno), skipping three assignments, `n` times.
JUMP = """
import sys

def jumpy():
    a = 1
    a = 2
    a = 3
    a = 4
    return a

FIRST = jumpy.__code__.co_firstlineno
jumps = 0

def tracer(frame, event, arg):
    global jumps
    if event == "line" and frame.f_code is jumpy.__code__ and \\
            frame.f_lineno == FIRST + 1:
        frame.f_lineno = FIRST + 4
        jumps += 1
    return tracer

def main(n):
    sys.settrace(tracer)
    for _ in range(n):
        assert jumpy() == 4
    sys.settrace(None)

import warnings
warnings.simplefilter("ignore")     # the skipped a = 1 leaves a None
main(int(sys.argv[1]))
print("jumps:", jumps)
"""


def jumped_instructions():
    """What jumpy() executes once the tracer moved it, from dis: RESUME,
    then every instruction of its fourth line and after."""
    src = {}
    exec(compile(JUMP.split("FIRST =")[0], "<jump>", "exec"), src)
    code = src["jumpy"].__code__
    counts = {}
    for ins in dis.get_instructions(code):
        line = ins.positions.lineno
        if ins.opname == "RESUME" or (line is not None and
                                      line >= code.co_firstlineno + 4):
            counts[ins.opname] = counts.get(ins.opname, 0) + 1
    return counts


@pytest.mark.skipif(not SEGMENTS, reason="segment counting is 3.12+")
@pytest.mark.parametrize("mode", ["count", "instructions"])
def test_f_lineno_jump(tmp_path, mode):
    out = tmp_path / "dumps"
    p = subprocess.run([sys.executable, "-c", JUMP, "7"],
                       env=clean_env(PYTHONSTATS=mode, PYSTATS_DIR=out),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "jumps: 7\n" in p.stdout
    [d] = dumps_in(str(out))
    rc, report, errors = check(out)
    [key] = [k for k in d.extra
             if k.startswith("code[<string>:") and
             k.endswith(":jumpy].instructions")]
    counted = {k.rsplit(".opcode[", 1)[1][:-1]: int(v)
               for k, v in d.extra.items()
               if k.startswith(key[:-len(".instructions")] + ".opcode[")}
    expected = {op: 7 * n for op, n in jumped_instructions().items()}
    if mode == "instructions":
        # One event per instruction sees the jump (exact here), but the
        # trace function's start is a reason to distrust mode
        # instructions on 3.12 and 3.13 (test_instructions_mode below).
        assert counted == expected
        assert "meta.collection.line_jumps" not in d.header
        assert d.header["meta.collection.events_lost"] == "2"
        assert rc == 6 and "inexact-counts" in errors
    else:
        # Segment counting does not see it: the counts of jumpy() are
        # wrong, and the dump and check say so.
        assert counted != expected
        assert d.header["meta.collection.line_jumps"] == "7"
        cause = decode_text(d.header["meta.collection.inexact_cause"])
        assert cause.startswith('frame.f_lineno set at "<string>", line '), \
            cause
        assert cause.endswith(", in tracer"), cause
        assert p.stderr.count("by setting frame.f_lineno") == 1, p.stderr
        assert rc == 6
        assert report["findings"][0]["check"] == "inexact-counts"
        assert "7 frame.f_lineno jumps" in \
            errors["inexact-counts"]["details"][0]


# A trace function that raises at the 'call' or the 'exception' event of
# g (as test_sys_settrace's RaisingTraceFuncTestCase does), against the
# same program run so that the same instructions execute with no trace
# function raising: for 'call', g is a C callable raising ValueError
# (none of g runs either way); for 'exception', the tracer does not raise
# (g raises KeyError instead of the tracer's ValueError, caught alike).
RAISING = """
import functools, sys

def g(x):
    if x:
        raise KeyError(x)
    return x

def tracer_for(event, raising):
    def tracer(frame, now, arg):
        if raising and frame.f_code is g.__code__ and now == event:
            raise ValueError(event)
        return tracer
    return tracer

def work(event, raising):
    for i in range(20):
        sys.settrace(tracer_for(event, raising))
        try:
            g(i % 2)
        except (ValueError, KeyError):
            pass
        sys.settrace(None)

event, raising = sys.argv[1], sys.argv[2] == "raise"
if event == "call" and not raising:
    g = functools.partial(int, "x")
work(event, raising)
"""


@pytest.mark.skipif(not SEGMENTS, reason="segment counting is 3.12+")
@pytest.mark.parametrize("event", ["call", "exception"])
def test_raising_trace_function(tmp_path, event):
    """Another tool's callback that raises before the collector's is
    called (no PY_START, no RAISE for it): counted exactly anyway."""
    def counted(how):
        out = tmp_path / how
        p = subprocess.run([sys.executable, "-c", RAISING, event, how],
                           env=clean_env(PYTHONSTATS="count",
                                         PYSTATS_DIR=out),
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        [d] = dumps_in(str(out))
        code = {k: v for k, v in d.extra.items()
                if k.startswith("code[<string>:") and "].site" not in k
                and (":work]." in k or ":g]." in k)}
        return d, code, check(out)
    d, code, (rc, _, errors) = counted("raise")
    ref, ref_code, (ref_rc, _, _) = counted("plain")
    assert code == ref_code
    assert any(":work]." in k for k in code)
    if event == "call":
        assert not any(":g]." in k for k in code)    # g never ran
    assert "meta.collection.desync" not in d.header
    assert rc == ref_rc == 0, errors


def test_regression_suite_test_sys_settrace(tmp_path):
    """CPython's own test_sys_settrace under `pystats run`: its jump tests
    set f_lineno (3.12+), and it sets trace functions everywhere (3.11):
    the verdict's first reason is inexact-counts."""
    probe = subprocess.run([sys.executable, "-c",
                            "import test.test_sys_settrace"],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip("this interpreter has no test package")
    out = tmp_path / "run"
    p = subprocess.run([PYSTATS_CLI, "run", "-o", str(out), "--",
                        sys.executable, "-m", "test", "test_sys_settrace"],
                       env=clean_env(), capture_output=True, text=True,
                       timeout=300)
    verdict = [line for line in p.stderr.splitlines()
               if line.startswith("pystats run: trust: ")]
    assert verdict and "first: inexact-counts (" in verdict[0], p.stderr
    [d] = [d for d in dumps_in(str(out))
           if "meta.collection.inexact_cause" in d.header]
    cause = decode_text(d.header["meta.collection.inexact_cause"])
    if SEGMENTS:
        assert int(d.header["meta.collection.line_jumps"]) > 0
        assert cause.startswith("frame.f_lineno set at "), cause
        assert 'test_sys_settrace.py", line ' in cause
    else:
        assert int(d.header["meta.collection.displaced"]) >= 1
        assert cause.startswith("sys.settrace at "), cause


THREADS = """
import sys, threading

def work(n):
    t = 0
    for i in range(n):
        t += i
    return t

def batch(k):
    ths = [threading.Thread(target=work, args=(300,)) for _ in range(k)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()

batch(4)
if sys.argv[1] == "coverage":
    import coverage
    cov = coverage.Coverage(data_file=None)
    cov.start()
    batch(3)
    cov.stop()
else:
    batch(int(sys.argv[1]))
"""


@pytest.mark.skipif(not HAVE_COVERAGE, reason="coverage is not installed")
def test_coverage_with_threads(tmp_path):
    """coverage starts its tracer in every new thread (threading.settrace):
    3.11 loses those threads too, and counts them in the dump."""
    def counted(arg):
        out = tmp_path / arg
        p = subprocess.run([sys.executable, "-c", THREADS, arg],
                           env=clean_env(PYTHONSTATS=1, PYSTATS_DIR=out),
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        [d] = dumps_in(str(out))
        work = {k: v for k, v in d.extra.items()
                if k.startswith("code[<string>:") and ":work]." in k
                and "].site" not in k}
        return d, work, check(out)[0]
    d, work, rc = counted("coverage")
    if SEGMENTS:
        plain, plain_work, _ = counted("3")
        assert work == plain_work
        assert "meta.collection.displaced" not in d.header and rc == 0
    else:
        # Only the four threads before coverage started are counted; the
        # main thread and the three started under coverage are lost.
        plain, plain_work, _ = counted("0")
        assert work == plain_work
        assert d.header["meta.collection.displaced"] == "4"
        assert rc == 6


@pytest.mark.skipif(not SEGMENTS, reason="mode instructions is 3.12+")
@pytest.mark.parametrize("tool", ["settrace", "ctrace", "sysmon"])
def test_instructions_mode_with_another_tool(tmp_path, tool):
    """Mode instructions takes INSTRUCTION and PY_START events; on CPython
    3.12.1 and 3.13.0 another tool enabling PY_START (sys.settrace, coverage)
    makes the INSTRUCTION events stop for much of the code.  The dump says
    so whenever such a tool starts while it counts, short or not."""
    if tool != "settrace" and not HAVE_COVERAGE:
        pytest.skip("coverage is not installed")
    p, d, out = run_counted(tmp_path, tool, mode="instructions",
                            extra_env={"COVERAGE_CORE": tool})
    _, plain, _ = run_counted(tmp_path, "none", mode="instructions")
    assert plain.counts["MATCH_CLASS"] == 10
    assert "meta.collection.events_lost" not in plain.header
    # what this CPython did with the events (10: nothing lost)
    print(tool, "MATCH_CLASS", d.counts["MATCH_CLASS"], "of 10")
    assert d.counts["MATCH_CLASS"] <= 10
    assert int(d.header["meta.collection.events_lost"]) >= 1
    cause = decode_text(d.header["meta.collection.inexact_cause"])
    what = {"settrace": 'sys.settrace at "<string>", line ',
            "ctrace": "sys.settrace at ",
            "sysmon": "sys.monitoring.register_callback at "}[tool]
    assert cause.startswith(what), cause
    assert p.stderr.count("while mode 'instructions' counts") == 1, p.stderr
    rc, report, errors = check(out)
    assert rc == 6 and report["findings"][0]["check"] == "inexact-counts"


@pytest.mark.parametrize("lines, says", [
    (["meta.collection.displaced : 2",
      "meta.collection.inexact_cause : sys.settrace at %22a%3Ab.py%22"],
     '2 threads displaced by another trace function, uncounted from then '
     'on; the first: sys.settrace at "a:b.py"'),
    (["meta.collection.line_jumps : 1"],
     "1 frame.f_lineno jump that segment counting does not see"),
    (["meta.collection.desync : 12", "meta.collection.events_lost : 3"],
     "12 segment events that did not fit the shadow stack (a collector "
     "bug); 3 tracing tools started while mode instructions counted "
     "(INSTRUCTION events dropped)"),
    (["meta.collection.desync : many"], "meta.collection.desync many"),
    (["meta.collection.line_jumps : 0", "meta.collection.displaced : 0"],
     None),
])
def test_check_reads_the_inexact_headers(tmp_path, lines, says):
    """`pystats check` on a whole dump given these header lines (written
    here, not by the collector): an error naming each cause, decoded; a
    zero is no cause."""
    _, d, _ = run_counted(tmp_path, "none")
    text = open(d.path, encoding="utf-8").read().splitlines()
    at = next(i for i, line in enumerate(text)
              if line.startswith("meta.label"))
    out = tmp_path / "crafted"
    out.mkdir()
    (out / "pystats-1-0000000000000001.txt").write_text(
        "\n".join(text[:at + 1] + lines + text[at + 1:]) + "\n",
        encoding="utf-8")
    rc, report, errors = check(out)
    if says is None:
        assert "inexact-counts" not in errors and rc == 0, errors
        return
    assert rc == 6
    assert report["findings"][0]["check"] == "inexact-counts"
    [detail] = errors["inexact-counts"]["details"]
    assert detail.endswith(": " + says), detail


# Loops of every shape segment counting closes (a for loop's exit, a
# break's and a return's POP_ITER, an inlined comprehension, a generator
# driven by a for loop, nested loops, a match in a loop), run with or
# without another sys.monitoring tool taking INSTRUCTION events on all
# of their code.
LOOPS = """
import os, sys, pystats

def shapes(n):
    t = 0
    for i in range(n):
        match i:
            case int():
                pass
        for j in range(3):
            if j == 2:
                break
            t += j
        t += any(x > 5 for x in range(i % 9))
        t += sum([k for k in range(4) if k])
        t += first(i)
    return t

def first(i):
    for v in (1, 2, 3):
        if v > i % 4:
            return v
    return 0

def gen(n):
    for i in range(n):
        yield i

def outer():
    s = 0
    for v in gen(50):
        for w in range(v % 3):
            s += w
    return s

def codes(co):
    yield co
    for c in co.co_consts:
        if hasattr(c, "co_code"):
            yield from codes(c)

if os.environ.get("OTHER"):
    mon = sys.monitoring
    mon.use_tool_id(5, "other")
    mon.register_callback(5, mon.events.INSTRUCTION, lambda c, o: None)
    for f in (shapes, first, gen, outer):
        for co in codes(f.__code__):
            mon.set_local_events(5, co, mon.events.INSTRUCTION)
pystats.on(mode=sys.argv[1])
shapes(40)
outer()
pystats.off()
"""


@pytest.mark.skipif(not SEGMENTS, reason="segment counting is 3.12+")
def test_another_tools_instruction_events_in_loops(tmp_path):
    """Another tool taking INSTRUCTION events rewrites every instruction
    (3.14: INSTRUMENTED_INSTRUCTION saves the frame's instruction pointer
    first, so a loop exit's BRANCH_RIGHT names its POP_ITER, not its
    FOR_ITER): mode count's counts and pairs equal mode instructions'
    without the other tool, with no desync."""
    def run(mode, other):
        out = tmp_path / ("%s-%s" % (mode, other))
        env = clean_env(PYSTATS_DIR=out, **({"OTHER": "1"} if other else {}))
        p = subprocess.run([sys.executable, "-c", LOOPS, mode], env=env,
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        [d] = dumps_in(str(out))
        return d
    got = run("count", True)
    want = run("instructions", False)
    assert "meta.collection.desync" not in got.header, decode_text(
        got.header.get("meta.collection.inexact_cause", ""))
    assert want.counts["MATCH_CLASS"] == 40
    assert got.counts == want.counts
    assert got.pairs == want.pairs
