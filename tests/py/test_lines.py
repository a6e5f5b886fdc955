"""Per-line counts of hot code (docs/FORMAT.md 1.18, "Per-line counts"),
in both exact modes ("count": segments on 3.12+, the trace function on
3.11; "instructions"): each code object's instructions per source line,
as co_lines() places them, equal the pure-Python reference collector's
(tests/py/reference.py: sys.settrace opcode events, each f_lasti mapped
through co_lines()) on the corpus, on the generated programs of
test_segments_random.py and on dedicated code; they add up to the
entry's instructions; dumps write what snapshot() reports, within the
documented bound."""
import dis
import os
import sys

import pytest

import workloads
from conftest import clean_env, dumps_in, measured_snapshot as measured, run_python
from reference import Reference, code_key
from test_hotcode import parse_code
from test_segments_random import Gen

MODES = ("count", "instructions")
WORKLOADS_DIR = os.path.dirname(os.path.abspath(workloads.__file__))
LINES_CAP = 100000      # docs/FORMAT.md 1.18
HOT_CAP = 2000          # docs/FORMAT.md 1.14


def per_line(snap):
    return {k: v["lines"] for k, v in snap["code"].items()}


def check_sums(snap):
    """Every entry's lines (the no-line bucket included) add up to its
    instructions; no line has a zero count."""
    for key, v in snap["code"].items():
        assert sum(v["lines"].values()) == v["instructions"], key
        assert all(n > 0 for n in v["lines"].values()), key
        assert all(k is None or (isinstance(k, int) and k >= 0)
                   for k in v["lines"]), key


def reference_measure(fn, *args):
    ref = Reference()
    ref.measure(fn, *args)
    return ref


# -- the corpus --------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", workloads.ALL)
def test_corpus_lines_match_reference(stats, mode, name):
    mod = workloads.load(name)
    mod.run()
    ref = reference_measure(mod.run)
    snap = measured(stats, mode, mod.run)
    assert per_line(snap) == ref.line_counts
    check_sums(snap)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["generators", "exceptions", "async_",
                                  "withs", "matching"])
def test_window_lines_match_reference(stats, mode, name):
    mod = workloads.load(name)
    mod.run()
    ref = Reference()
    ref.start()
    mod.run()
    ref.stop()
    stats.clear()
    stats.on(mode=mode)
    mod.run()
    stats.off()
    snap = stats.snapshot()
    stats.clear()

    def mine(d):
        return {k: v for k, v in d.items() if k.startswith(WORKLOADS_DIR)}
    got = mine(per_line(snap))
    assert got and got == mine(ref.line_counts)
    check_sums(snap)


# -- generated programs --------------------------------------------------------

@pytest.mark.parametrize("seed", range(300))
def test_generated_program_lines_match_reference(stats, seed):
    src = Gen(seed).program()
    ns = {}
    exec(compile(src, "<generated %d>" % seed, "exec"), ns)
    run = ns["run"]
    for x in (0, 5):
        run(x)                      # warm up: specialization, caches
    for x in (1, 7):
        want = reference_measure(run, x).line_counts
        for mode in MODES:
            snap = measured(stats, mode, run, x)
            assert per_line(snap) == want, (mode, x, src)
            check_sums(snap)


# -- dedicated code ------------------------------------------------------------

DEDICATED = '''
import asyncio
import functools


def deco(fn):
    @functools.wraps(fn)
    def wrapper(*a,
                **k):
        return fn(*a, **k)
    return wrapper


@deco
@functools.lru_cache(maxsize=None)
def decorated(n):
    return n * 2


class Box:
    @property
    def value(self):
        return 3

    @staticmethod
    def twice(x):
        return (x
                +
                x)


def comprehensions(n):
    a = [i * i for i in range(n)
         if i % 2]
    b = {i: [j for j in range(i)] for i in range(n)}
    c = {i % 3 for i in range(n)}
    d = sum(i for i in range(n)
            if i != 2)
    return len(a) + len(b) + len(c) + d


def matching(items):
    t = 0
    for it in items:
        match it:
            case {"k": v}:
                t += v
            case [x, y, *rest]:
                t += x + y + len(rest)
            case Box():
                t += 100
            case int(n) if n > 2:
                t += n
            case _:
                t -= 1
    return t


def handlers(n):
    t = 0
    for i in range(n):
        try:
            try:
                if i % 3 == 0:
                    raise ValueError(i)
                t += 1 // (i % 4)
            except ValueError as e:
                t += e.args[0]
            finally:
                t += 1
        except ZeroDivisionError:
            t -= 1
    return t


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, t, v, tb):
        return t is KeyError


def withs(n):
    t = 0
    for i in range(n):
        with Ctx() as c, Ctx():
            t += 1
            if i % 2:
                raise KeyError(i)
    return t


def gen(n):
    for i in range(n):
        got = yield i
        if got:
            yield got
    return n


def delegate(n):
    r = yield from gen(n)
    yield r


def generators(n):
    g = delegate(n)
    t = next(g)
    t += g.send(5)
    t += sum(g)
    g2 = gen(3)
    next(g2)
    g2.close()
    return t


async def leaf(x):
    await asyncio.sleep(0)
    return x


async def agen(n):
    for i in range(n):
        yield await leaf(i)


async def amain(n):
    t = 0
    async for v in agen(n):
        t += v
    async with ALock():
        t += 1
    return t + sum(await asyncio.gather(*(leaf(i) for i in range(2))))


class ALock:
    async def __aenter__(self):
        return self

    async def __aexit__(self, *a):
        return False


def multiline(a, b):
    x = (a +
         b *
         (a
          - b))
    y = [
        a,
        b,
    ]
    s = (f"{a}"
         f"{b}")
    return dict(x=x,
                y=y,
                s=s)


def work():
    t = 0
    for i in range(3):
        t += decorated(i)
        t += Box().value + Box.twice(i)
    t += comprehensions(6)
    t += matching([{"k": 1}, [1, 2, 3], Box(), 5, 1, "s"])
    t += handlers(8)
    t += withs(4)
    t += generators(4)
    t += asyncio.run(amain(3))
    t += len(multiline(3, 4))
    return t
'''


def dedicated_ns(tmp_path):
    path = tmp_path / "dedicated.py"
    path.write_text(DEDICATED)
    ns = {"__name__": "dedicated"}
    exec(compile(DEDICATED, str(path), "exec"), ns)
    return ns, str(path)


@pytest.mark.parametrize("mode", MODES)
def test_dedicated_code_lines_match_reference(stats, mode, tmp_path):
    ns, path = dedicated_ns(tmp_path)
    work = ns["work"]
    work()
    ref = reference_measure(work)
    snap = measured(stats, mode, work)
    got = per_line(snap)
    assert got == ref.line_counts
    check_sums(snap)
    # Every construct ran and was placed on its own lines.
    mine = {k.split(":")[-1] for k in got if k.startswith(path + ":")}
    for qual in ("deco.<locals>.wrapper", "Box.twice", "comprehensions",
                 "matching", "handlers", "withs", "gen", "delegate",
                 "agen", "amain", "leaf", "multiline",
                 "comprehensions.<locals>.<genexpr>"):
        assert qual in mine, qual
    if sys.version_info < (3, 12):     # not inlined before 3.12
        assert "comprehensions.<locals>.<listcomp>" in mine


def test_handlers_have_no_line_bucket(stats, tmp_path):
    """Exception clean-up code (the handler that clears `e` of `except
    ... as e` and re-raises, the one of a `finally`) has no line in
    co_lines(): counted in the None bucket, as the reference counts it."""
    ns, path = dedicated_ns(tmp_path)
    ref = reference_measure(ns["handlers"], 8)
    snap = measured(stats, "count", ns["handlers"], 8)
    key = code_key(ns["handlers"].__code__)
    assert snap["code"][key]["lines"] == ref.line_counts[key]
    assert snap["code"][key]["lines"][None] > 0


@pytest.mark.parametrize("mode", MODES)
def test_straight_line_from_dis(stats, mode):
    """A branch-free function: each line's count is the number of
    instructions dis places on it (from RESUME on)."""
    def straight(a, b):
        c = (a +
             b)
        d = c * a
        return (d -
                b)

    want = {}
    seen_resume = False
    line = None
    for ins in dis.get_instructions(straight):
        if sys.version_info >= (3, 13):
            line = ins.line_number
        elif ins.starts_line is not None:
            line = ins.starts_line
        seen_resume = seen_resume or ins.opname == "RESUME"
        if seen_resume:
            want[line] = want.get(line, 0) + 1
    snap = measured(stats, mode, straight, 3, 4)
    assert snap["code"][code_key(straight.__code__)]["lines"] == want
    first = straight.__code__.co_firstlineno
    assert first in want and set(want) <= set(range(first, first + 6))


def test_module_code_line_zero(stats, tmp_path):
    """Module code on 3.12+ has its RESUME on line 0 (co_lines()):
    kept as line 0."""
    src = "x = 1\nfor i in range(3):\n    x += i\n"
    code = compile(src, str(tmp_path / "m.py"), "exec")
    ref = reference_measure(exec, code, {})
    snap = measured(stats, "count", exec, code, {})
    key = code_key(code)
    assert snap["code"][key]["lines"] == ref.line_counts[key]
    if sys.version_info >= (3, 12):
        assert snap["code"][key]["lines"][0] == 1   # RESUME
    assert snap["code"][key]["lines"][3] == 3 * (
        len([i for i in dis.get_instructions(code)
             if (i.positions.lineno == 3)]))


# -- records with one key: lines added by number ------------------------------

SRC = "def dyn(n):\n    t = 0\n    for i in range(n):\n        t += i\n" \
      "    return t\n"


def run_dynamic():
    for k in range(3):
        ns = {}
        exec(compile(SRC, "<dyn:file>", "exec"), ns)
        ns["dyn"](k + 2)


def test_same_key_lines_added(stats):
    import gc
    ref = reference_measure(run_dynamic)
    snap = measured(stats, "count", run_dynamic)
    gc.collect()
    key = "<dyn%3Afile>:1:dyn"
    want = ref.line_counts["<dyn:file>:1:dyn"]
    assert snap["code"][key]["lines"] == want
    assert snap["code"][key]["calls"] == 3
    # dyn(2), dyn(3), dyn(4): the loop body ran 2 + 3 + 4 times.
    assert want[4] % 9 == 0
    check_sums(snap)


# -- dumps ----------------------------------------------------------------------

CHILD = r"""
import json, sys
sys.path.insert(0, %r)
import pystats
import workloads
mods = [workloads.load(n) for n in %r]
pystats.on(mode=%r)
for m in mods:
    m.run()
pystats.off()
snap = pystats.snapshot()
print(json.dumps({k: {str(l): n for l, n in v["lines"].items()}
                  for k, v in snap["code"].items()}))
pystats.dump()
"""


@pytest.mark.parametrize("mode", MODES)
def test_dump_lines_equal_snapshot(stats_dir, mode):
    import json
    here = os.path.dirname(os.path.abspath(__file__))
    proc = run_python(CHILD % (here, ["generators", "exceptions", "classes",
                                      "matching", "withs"], mode),
                      env=clean_env(PYSTATS_DIR=stats_dir))
    snap = json.loads(proc.stdout)
    (d,) = dumps_in(stats_dir)
    code, _ = parse_code(d.extra)
    assert "code_lines.omitted" not in d.extra
    assert len(code) == len(snap) < HOT_CAP
    for key, e in code.items():
        assert {str(l): n for l, n in e["lines"].items()} == snap[key], key
        assert sum(e["lines"].values()) == e["instructions"], key


BOUND = r"""
import pystats
src = []
for f in range(%d):
    src.append("def f%%d(x):" %% f)
    src += ["    x = x + %%d" %% i for i in range(%d)]
    src.append("    return x")
ns = {}
exec(compile("\n".join(src), "<bound>", "exec"), ns)
pystats.on()
for f in range(%d):
    for _ in range(f + 1):
        ns["f%%d" %% f](1)
pystats.off()
"""


def test_dump_lines_bound(stats_dir):
    """More line entries than a dump writes: the hottest code objects
    whole, in hot-code order, then none; code_lines.omitted counts the
    hot-code entries left without lines."""
    nfun, body = 300, 400
    run_python(BOUND % (nfun, body, nfun),
               env=clean_env(PYSTATS_DIR=stats_dir), timeout=300)
    (d,) = dumps_in(stats_dir)
    code, _ = parse_code(d.extra)
    fs = {k: e for k, e in code.items() if k.startswith("<bound>:")}
    assert len(fs) == nfun
    # Each f<k> runs body + 2 lines (def line: RESUME; return line).
    order = sorted(code, key=lambda k: (-code[k]["instructions"], k))
    written = 0
    expect_omitted = 0
    for k in order:
        n = body + 2 if k in fs else None
        if expect_omitted or (n is not None and written + n > LINES_CAP):
            expect_omitted += 1
            assert code[k]["lines"] == {}, k
            continue
        if n is not None:
            assert len(code[k]["lines"]) == n, k
        assert sum(code[k]["lines"].values()) == code[k]["instructions"]
        written += len(code[k]["lines"])
    assert written <= LINES_CAP
    assert expect_omitted > 0
    assert int(d.extra["code_lines.omitted"]) == expect_omitted


# -- the source view reads them ---------------------------------------------------

VIEWED = '''\
def viewed(n):
    t = 0
    for i in range(n):
        if i % 3:
            t += i
        else:
            t -= 1
    return t


viewed(100)
'''


@pytest.mark.parametrize("mode", MODES)
def test_annotate_shows_reference_counts(tmp_path, mode):
    """pystats annotate, given the dump of a program, shows for each line
    of a function the count the reference collector gives that line."""
    import re
    import subprocess
    cli = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "build", "pystats")
    if not os.access(cli, os.X_OK):
        pytest.skip("build/pystats is not built")
    path = tmp_path / "viewed.py"
    path.write_text(VIEWED)
    out = tmp_path / "dumps"
    run_python("import runpy, sys; runpy.run_path(sys.argv[1])",
               args=[str(path)], xopts=["pystats=" + mode],
               env=clean_env(PYSTATS_DIR=str(out)))
    ns = {}
    exec(compile(VIEWED.replace("viewed(100)\n", ""), str(path), "exec"), ns)
    want = reference_measure(ns["viewed"], 100).line_counts[
        code_key(ns["viewed"].__code__)]
    view = subprocess.run([cli, "annotate", str(out), "--function", "viewed"],
                          capture_output=True, text=True, timeout=60)
    assert view.returncode == 0, view.stderr
    shown = {}
    for row in view.stdout.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+(\d+)  ", row)
        if m:
            shown[int(m.group(2))] = int(m.group(1).replace(",", ""))
    assert shown == {k: v for k, v in want.items() if k is not None}


SIGTERM_CHILD = r"""
import os, signal, pystats
SRC = "def dyn(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t\n"
pystats.on(mode=%r)
for k in range(3):
    ns = {}
    exec(compile(SRC, "<dyn>", "exec"), ns)
    ns["dyn"](k + 2)
    del ns
os.kill(os.getpid(), signal.SIGTERM)
"""


@pytest.mark.parametrize("mode", MODES)
def test_sigterm_dump_has_lines_of_dead_code(stats_dir, mode):
    """A dump from the SIGTERM handler reads only C data: the lines of
    code objects dead by then are in it, adding up exactly."""
    import signal
    p = run_python(SIGTERM_CHILD % mode, env=clean_env(PYSTATS_DIR=stats_dir),
                   check=False)
    assert p.returncode == -signal.SIGTERM, p.stderr
    (d,) = dumps_in(stats_dir)
    assert d.header["meta.dump.reason"] == "signal"
    code, _ = parse_code(d.extra)
    ref = reference_measure(run_dynamic)
    assert code["<dyn>:1:dyn"]["lines"] == ref.line_counts["<dyn:file>:1:dyn"]
    for key, e in code.items():
        assert sum(e["lines"].values()) == e["instructions"], key
