"""The specialization census: the state of known code, on every version,
read in mode census and alongside counting (mode count, 3.12+), and the
census in dumps."""
import json
import os
import subprocess
import sys
import sysconfig

import pytest

from conftest import SETS, clean_env, dumps_in, run_python

V = sys.version_info[:2]


class Plain:
    def __init__(self):
        self.x = 1


class Lazy:
    def __getattr__(self, name):    # every o.y goes through __getattr__
        return 5


if V >= (3, 14):
    # 3.14 no longer counts an attribute the class lacks as a failure
    # (Python/specialize.c sets the cooldown counter instead); a C type's
    # getset descriptor still fails.
    class Lazy(complex):
        y = complex.real


def mono(objs):
    t = 0
    for o in objs:
        t += o.x
    return t


def failing(objs):
    t = 0
    for o in objs:
        t += o.y
    return t


def never(o):
    return o.x


def census_of(pystats, code):
    from pystats import _census, _collector
    _census.setup()
    _collector._census_begin()
    sites = []
    _collector._census_code(code, sites)
    return _collector._census_totals()["families"], sites


def test_monomorphic_site_is_specialized(pystats):
    mono([Plain() for _ in range(200)])
    fams, sites = census_of(pystats, mono.__code__)
    la = fams["LOAD_ATTR"]
    assert la["sites"] == 1
    assert la["specialized"] == 1
    assert la["forms"] == {"LOAD_ATTR_INSTANCE_VALUE": 1}
    assert la["backing_off"] == 0 and la["never_tried"] == 0
    assert sites == []


def test_failing_site_backs_off(pystats):
    failing([Lazy() for _ in range(300)])
    fams, sites = census_of(pystats, failing.__code__)
    la = fams["LOAD_ATTR"]
    assert la["sites"] == 1
    assert la["specialized"] == 0
    assert la["backing_off"] == 1
    # 300 executions.  3.12+: warm-up counter 1 (backoff exponent 1), so
    # attempts at executions 2, 6, 14, 30, 62, 126, 254 (each failure
    # doubles the wait): 7 failures, exponent 8.  After each failed
    # attempt the instruction is dispatched again and that execution
    # already counts down: 255 - 46 - 7 = 202 left.
    # 3.11: the code is quickened after 8 iterations, then the adaptive
    # counter starts at 31 (exponent 5): attempts after 8+32, +64, +128
    # executions: 3 failures.
    expected = 3 if V == (3, 11) else 7
    assert la["failed_attempts"] == expected
    [(offset, fam, attempts, value)] = sites
    assert (fam, attempts) == ("LOAD_ATTR", expected)
    assert offset % 2 == 0
    if V >= (3, 12):
        assert value == 202


def test_never_run_code_is_never_tried(pystats):
    fams, sites = census_of(pystats, never.__code__)
    la = fams["LOAD_ATTR"]
    assert la == {"sites": 1, "specialized": 0, "backing_off": 0,
                  "failed_attempts": 0, "never_tried": 1, "forms": {}}
    assert sites == []


def test_caches_that_are_not_specialization_state_are_skipped(pystats):
    def loop(n):
        t = 0
        for i in range(n):
            if i < 500:        # POP_JUMP_IF_* branch history on 3.13
                t += 1
        return t               # JUMP_BACKWARD's counter on 3.13
    loop(1000)
    fams, sites = census_of(pystats, loop.__code__)
    for name in ("JUMP_BACKWARD", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE"):
        if V >= (3, 13):
            assert name not in fams       # their caches are no site's state
        elif name in fams:                # 3.11's JUMP_BACKWARD_QUICK
            assert fams[name]["backing_off"] == 0
            assert fams[name]["never_tried"] == 0
    assert sites == []
    if V >= (3, 12):                      # FOR_ITER_RANGE
        assert fams["FOR_ITER"]["specialized"] == 1
    assert fams["COMPARE_OP"]["specialized"] == 1


CENSUS_SCRIPT = """
import pystats
import json
import sys
class Lazy:
    def __getattr__(self, name):
        return 5
if sys.version_info >= (3, 14):
    class Lazy(complex):
        y = complex.real
def failing(objs):
    t = 0
    for o in objs:
        t += o.y
    return t
pystats.on(mode="census")
failing([Lazy() for _ in range(300)])
"""


def test_census_dump_names_the_failing_site(stats_dir):
    p = run_python(CENSUS_SCRIPT, env=clean_env(PYSTATS_DIR=stats_dir))
    [d] = dumps_in(stats_dir)
    h = d.header
    assert h["meta.collection.mode"] == "census"
    assert d.counts == {}                  # no per-instruction counting
    census = d.extra
    assert int(census["census.code_objects"]) > 100
    sites = [v for k, v in census.items() if k.startswith("census.site[")]
    mine = [s.split(" | ") for s in sites if "failing" in s]
    assert len(mine) == 1, sites
    fam, attempts, value, filename, line, func, src = mine[0]
    assert fam == "LOAD_ATTR" and func == "failing"
    assert filename == "<string>"
    assert line == str(CENSUS_SCRIPT.splitlines().index("        t += o.y") + 1)
    assert int(attempts) == (3 if V == (3, 11) else 7)
    assert int(census["census.family[LOAD_ATTR].backing_off"]) >= 1
    assert p.returncode == 0


def test_census_window_installs_no_events(pystats):
    pystats.on(mode="census")
    try:
        assert not pystats._collector._state()["installed"]
        if V >= (3, 12):
            assert sys.monitoring.get_tool(3) is None
            assert sys.monitoring.get_tool(4) is None
        with pytest.raises(ValueError, match="census"):
            pystats.measure(mono, [])
    finally:
        pystats.off()
    assert pystats.snapshot()["execution_count"] == {}


# ---- the census alongside counting (mode count, 3.12+) ---------------------

SEG = V >= (3, 12)
needs_segments = pytest.mark.skipif(not SEG, reason="segment counting is 3.12+")

# The INSTRUMENTED_* opcodes segment counting puts in code, seen on 3.12.1
# and 3.13.0 (test_segment_counting_instruments_only_these below), and
# the families whose sites they hide.
# 3.14 (EVENT_FOR_OPCODE in its Python/instrumentation.c): RETURN_CONST
# is gone; BRANCH_LEFT and BRANCH_RIGHT also instrument NOT_TAKEN,
# POP_ITER and END_ASYNC_FOR.
SEGMENT_INSTRUMENTED = {"INSTRUMENTED_" + n for n in (
    "RESUME", "RETURN_VALUE", "YIELD_VALUE", "JUMP_FORWARD",
    "JUMP_BACKWARD", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE",
    "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE", "FOR_ITER") + (
    ("NOT_TAKEN", "POP_ITER", "END_ASYNC_FOR") if V >= (3, 14) else
    ("RETURN_CONST",))} if SEG else set()
EXCLUDED = ({"FOR_ITER"} | ({"RESUME"} if V >= (3, 13) else set())
            if SEG else set())

WORK_SRC = """
import json
import sys
class Plain:
    def __init__(self):
        self.x = 1
class Lazy:
    def __getattr__(self, name):
        return 5
if sys.version_info >= (3, 14):
    class Lazy(complex):
        y = complex.real
def mono(objs):
    t = 0
    for o in objs:
        t += o.x
    return t
def failing(objs):
    t = 0
    for o in objs:
        t += o.y
    return t
"""


def fresh_work():
    """mono and failing as code no other test has run (their state is
    the code objects')."""
    ns = {}
    exec(compile(WORK_SRC, "<work>", "exec"), ns)
    return ns


def _cache_entries(name):
    """Inline cache entries after opcode `name`, from dis and opcode (not
    from the collector's tables): an INSTRUMENTED_ form has its base's."""
    import dis
    import opcode
    if name.startswith("INSTRUMENTED_") and name[13:] in dis._all_opmap:
        name = name[13:]
    if name not in dis._all_opmap:
        return 0
    base = dis._all_opname[dis._deoptop(dis._all_opmap[name])]
    ice = opcode._inline_cache_entries
    if isinstance(ice, dict):
        return ice.get(base, 0)
    return ice[dis._all_opmap[base]]


def adaptive_opnames(code):
    """The opcode names of code's adaptive bytecode, caches skipped."""
    import dis
    raw, out, i = code._co_code_adaptive, [], 0
    while i < len(raw):
        name = dis._all_opname[raw[i]]
        out.append(name)
        i += 2 * (1 + _cache_entries(name))
    return out


def census_in(code, scope):
    """(families, sites, totals) of one code object read in scope."""
    from pystats import _census, _collector
    _census.setup()
    _collector._census_begin(scope)
    sites = []
    _collector._census_code(code, sites)
    totals = _collector._census_totals()
    return totals["families"], sites, totals


def test_census_tables_agree_with_dis():
    """The collector builds its tables from opcode alone (so that a count
    window does not import dis for the program): they are dis's."""
    import dis
    from pystats import _census
    names, kind, base, caches = _census.tables()
    want = list(dis._all_opname)[:256]
    assert names == want + ["<%d>" % i for i in range(len(want), 256)]
    for op in range(256):
        name = names[op]
        if name.startswith("INSTRUMENTED_") and name[13:] in dis._all_opmap:
            under = dis._all_opmap[name[13:]]
            assert base[op] == dis._deoptop(under), name
        else:
            assert base[op] == dis._deoptop(op), name
        assert caches[op] == _cache_entries(name), name
    segment = {names[op] for op in range(256) if kind[op] == _census.SEGMENT}
    assert segment == SEGMENT_INSTRUMENTED
    if SEG:                           # FOR_ITER has a counter from 3.12
        assert caches[dis._all_opmap["FOR_ITER"]] == 1
        assert caches[dis._all_opmap["INSTRUMENTED_FOR_ITER"]] == 1


def _many_shapes():
    """Loops, branches, returns, yields, await, with, try, comprehensions."""
    import asyncio
    import contextlib

    def gen(n):
        for i in range(n):
            if i % 2:
                yield i
            elif i is None:
                continue
        yield from range(2)

    async def coro():
        await asyncio.sleep(0)
        return [i async for i in agen()]

    async def agen():
        yield 1

    t = 0
    for v in gen(10):
        t += v if v is not None else 0
    while t > 100:
        t -= 1
    with contextlib.suppress(KeyError):
        {}[1]
    try:
        raise ValueError
    except ValueError:
        t += 1
    t += sum(x for x in [1, 2] if x)
    asyncio.run(coro())
    return t


@needs_segments
def test_segment_counting_instruments_only_these(pystats):
    """Which INSTRUMENTED_* opcodes a count window leaves in code: those
    the census in scope count tolerates, and no other."""
    pystats.on()
    _many_shapes()
    pystats.off()
    codes, todo = set(), [_many_shapes.__code__]
    while todo:
        co = todo.pop()
        codes.add(co)
        todo += [c for c in co.co_consts if isinstance(c, type(co))]
    assert len(codes) == 5          # and gen, coro, agen, the genexpr
    found = set()
    for co in codes:
        found.update(n for n in adaptive_opnames(co)
                     if n.startswith("INSTRUMENTED_"))
    assert found <= SEGMENT_INSTRUMENTED, found - SEGMENT_INSTRUMENTED
    # returns are quiet (turned off at their first event) except an
    # async generator's, whose return may be a RETURN_CONST (3.12, 3.13)
    assert {"INSTRUMENTED_RESUME", "INSTRUMENTED_FOR_ITER",
            "INSTRUMENTED_YIELD_VALUE",
            "INSTRUMENTED_JUMP_BACKWARD", "INSTRUMENTED_POP_JUMP_IF_FALSE",
            } <= found
    totals = census_in(_many_shapes.__code__, "count")[2]
    assert totals["code_objects"] == 1
    assert totals["instrumented_code_objects"] == 0


@needs_segments
def test_count_scope_reads_what_counting_left_specializing(pystats):
    w = fresh_work()
    pystats.on()
    w["mono"]([w["Plain"]() for _ in range(200)])
    w["failing"]([w["Lazy"]() for _ in range(300)])
    pystats.off()
    mono, failing = w["mono"].__code__, w["failing"].__code__
    assert "INSTRUMENTED_FOR_ITER" in adaptive_opnames(mono)
    # Scope census: code some tool instrumented is skipped whole.
    fams, sites, totals = census_in(mono, "census")
    assert totals["instrumented_code_objects"] == 1 and fams == {}
    # Scope count: read, with the families counting holds back left out.
    fams, sites, totals = census_in(mono, "count")
    assert totals["scope"] == "count"
    assert totals["code_objects"] == 1
    assert totals["instrumented_code_objects"] == 0
    assert fams["LOAD_ATTR"] == {
        "sites": 1, "specialized": 1, "backing_off": 0, "failed_attempts": 0,
        "never_tried": 0, "forms": {"LOAD_ATTR_INSTANCE_VALUE": 1}}
    assert not EXCLUDED & set(fams)
    assert totals["excluded"] == {f: 1 for f in EXCLUDED}
    assert sites == []
    fams, sites, totals = census_in(failing, "count")
    la = fams["LOAD_ATTR"]
    assert (la["specialized"], la["backing_off"], la["failed_attempts"]) == \
        (0, 1, 7)
    [(offset, fam, attempts, value)] = sites
    assert (fam, attempts, value) == ("LOAD_ATTR", 7, 202)
    assert totals["excluded"] == {f: 1 for f in EXCLUDED}
    # Run outside a window: FOR_ITER loses its instrumentation and
    # specializes (FOR_ITER_LIST); still left out, never read.
    w["mono"]([w["Plain"]() for _ in range(50)])
    names = adaptive_opnames(mono)
    assert "FOR_ITER_LIST" in names and "INSTRUMENTED_FOR_ITER" not in names
    fams, sites, totals = census_in(mono, "count")
    assert "FOR_ITER" not in fams
    assert totals["excluded"]["FOR_ITER"] == 1


# gc is imported before the window: on() imports it otherwise, inside.
COUNT_SCRIPT = WORK_SRC + """
import gc
import pystats
pystats.on(%s)
mono([Plain() for _ in range(200)])
failing([Lazy() for _ in range(300)])
pystats.off()
assert pystats.dump()
"""
FAILING_LINE = WORK_SRC.splitlines().index("        t += o.y") + 1


def counted_key(k):
    """Hot code and calls: counts; the census's own code[K].site rows
    (1.18) are not."""
    return k.startswith(("code[", "calls.")) and "].site" not in k


def census_keys(d):
    return {k: v for k, v in d.extra.items() if k.startswith("census.")}


def count_dump(tmp_path, name, on_args, **env):
    d = str(tmp_path / name)
    run_python(COUNT_SCRIPT % on_args, env=clean_env(PYSTATS_DIR=d, **env))
    [dump] = dumps_in(d)
    return dump


@needs_segments
def test_count_dump_has_the_census_and_exact_counts(tmp_path):
    d = count_dump(tmp_path, "census", "")
    plain = count_dump(tmp_path, "plain", "census=False")
    ins = count_dump(tmp_path, "ins", "mode='instructions'")
    assert d.header["meta.collection.mode"] == "count"
    assert d.header["meta.collection.method"] == "segments"
    assert d.header["meta.census.scope"] == "count"
    # The counts: those of the same run without the census, and of mode
    # instructions; 200 + 300 attribute loads, and pystats.off.
    assert d.counts["LOAD_ATTR"] == 501
    assert (d.counts, d.pairs) == (plain.counts, plain.pairs)
    assert (d.counts, d.pairs) == (ins.counts, ins.pairs)
    own = {k: v for k, v in d.extra.items()
           if counted_key(k)}
    assert own == {k: v for k, v in plain.extra.items()
                   if counted_key(k)}
    # The census, families left out.
    c = census_keys(d)
    # Scope count reads the code that ran while counting (1.10, "How the
    # code objects are reached"): each has its hot-code entry.
    ran = [k for k in d.extra if k.endswith("].instructions")]
    assert int(c["census.code_objects"]) == len(ran) >= 4
    assert c["census.instrumented_code_objects"] == "0"
    excluded = {k[len("census.excluded_family["):-1]: int(v)
                for k, v in c.items()
                if k.startswith("census.excluded_family[")}
    assert set(excluded) == EXCLUDED
    assert excluded["FOR_ITER"] >= 2          # mono's, failing's, ...
    for fam in EXCLUDED:
        assert not [k for k in c if k.startswith("census.family[%s]" % fam)]
    assert int(c["census.family[LOAD_ATTR].specialized"
                 "[LOAD_ATTR_INSTANCE_VALUE]"]) >= 1
    mine = [v.split(" | ") for k, v in c.items()
            if k.startswith("census.site[") and "| failing |" in v]
    assert [s[:6] for s in mine] == [
        ["LOAD_ATTR", "7", "202", "<string>", str(FAILING_LINE), "failing"]]
    # No census without it, nor in mode instructions.
    for other in (plain, ins):
        assert census_keys(other) == {}
        assert "meta.census.scope" not in other.header


OPEN_SCRIPT = WORK_SRC + """
import gc
import pystats
pystats.on(%s)
mono([Plain() for _ in range(200)])
assert pystats.dump()             # the census walk runs in the window
failing([Lazy() for _ in range(300)])
"""                               # and at exit, the window still open


@needs_segments
def test_census_walk_in_an_open_window_is_not_counted(tmp_path):
    """The walk is Python code: run with the thread's events suspended,
    it adds nothing to the counts, the pairs, hot code or calls."""
    runs = {}
    for name, args in (("census", ""), ("plain", "census=False")):
        d = str(tmp_path / name)
        run_python(OPEN_SCRIPT % args, env=clean_env(PYSTATS_DIR=d))
        runs[name] = sorted(dumps_in(d),
                            key=lambda x: x.header["meta.dump.reason"])
    for d, p in zip(runs["census"], runs["plain"]):
        assert d.header["meta.dump.reason"] == p.header["meta.dump.reason"]
        assert d.header["meta.census.scope"] == "count"
        assert "meta.census.scope" not in p.header
        assert (d.counts, d.pairs) == (p.counts, p.pairs)
        own = {k: v for k, v in d.extra.items()
               if counted_key(k)}
        assert own == {k: v for k, v in p.extra.items()
                       if counted_key(k)}
    assert [d.header["meta.dump.reason"] for d in runs["census"]] == \
        ["exit", "explicit"]


EXIT_SCRIPT = WORK_SRC + """
import os, signal, sys
mono([Plain() for _ in range(200)])
failing([Lazy() for _ in range(300)])
how = sys.argv[1]
if how == "os._exit":
    os._exit(0)
if how == "signal":
    os.kill(os.getpid(), signal.SIGTERM)
"""


@needs_segments
@pytest.mark.parametrize("how", ["exit", "os._exit", "signal"])
def test_count_census_at_exit_and_os_exit_never_on_sigterm(stats_dir, how):
    p = run_python(EXIT_SCRIPT, args=[how], xopts=["pystats"],
                   env=clean_env(PYSTATS_DIR=stats_dir), check=False)
    [d] = dumps_in(stats_dir)
    assert d.header["meta.dump.reason"] == how
    assert d.counts["LOAD_ATTR"] >= 500
    c = census_keys(d)
    if how == "signal":
        # No Python code can run in a signal handler: no census at all
        # (not even the code objects that died meanwhile).
        assert p.returncode == -15
        assert c == {} and "meta.census.scope" not in d.header
        return
    assert p.returncode == 0
    assert d.header["meta.census.scope"] == "count"
    assert {k for k in c if k.startswith("census.excluded_family[")} == \
        {"census.excluded_family[%s]" % f for f in EXCLUDED}
    assert [v for v in c.values() if v.startswith(
        "LOAD_ATTR | 7 | 202 | <string> | %d | failing |" % FAILING_LINE)]


@needs_segments
@pytest.mark.parametrize("how", ["env", "xopt"])
def test_census_left_out_on_request(stats_dir, how):
    env = clean_env(PYSTATS_DIR=stats_dir, PYTHONSTATS="1")
    xopts = []
    if how == "env":
        env["PYSTATS_CENSUS"] = "0"
    else:
        xopts = ["pystats_census=0"]
    run_python(SETS + "sets(5)\n", env=env, xopts=xopts)
    [d] = dumps_in(stats_dir)
    assert d.counts["MATCH_CLASS"] == 5
    assert census_keys(d) == {} and "meta.census.scope" not in d.header


def test_census_option_outside_count_mode(pystats):
    with pytest.raises(ValueError, match="always takes the census"):
        pystats.on(mode="census", census=False)
    with pytest.raises(ValueError, match="3.12"):
        pystats.on(mode="instructions", census=True)
    if not SEG:
        with pytest.raises(ValueError, match="3.12"):
            pystats.on(census=True)
    assert not pystats.is_on()
    pystats.on(mode="noop", census=False)
    pystats.off()


@pytest.mark.skipif(SEG, reason="3.11 only")
def test_no_census_in_count_dumps_on_311(tmp_path):
    """3.11 counts with a trace function, which holds specialization back
    in every traced instruction: a census would describe frozen state."""
    d = count_dump(tmp_path, "c", "")
    assert d.header["meta.collection.mechanism"] == "trace"
    assert d.counts["LOAD_ATTR"] == 501
    assert census_keys(d) == {} and "meta.census.scope" not in d.header


MEASURE_SCRIPT = WORK_SRC + """
import pystats
pystats.measure(mono, [Plain() for _ in range(20)])
assert pystats.dump()
"""


def test_measure_takes_no_census(stats_dir):
    run_python(MEASURE_SCRIPT, env=clean_env(PYSTATS_DIR=stats_dir))
    [d] = dumps_in(stats_dir)
    assert d.counts["LOAD_ATTR"] == 20
    assert census_keys(d) == {} and "meta.census.scope" not in d.header


MIXED_SCRIPT = WORK_SRC + """
import pystats
pystats.on(mode="census")
mono([Plain() for _ in range(20)])
pystats.off()
pystats.on()
failing([Lazy() for _ in range(300)])
pystats.off()
assert pystats.dump()
"""


@needs_segments
def test_census_then_count_window_in_one_dump_is_scope_count(stats_dir):
    run_python(MIXED_SCRIPT, env=clean_env(PYSTATS_DIR=stats_dir))
    [d] = dumps_in(stats_dir)
    assert d.header["meta.census.scope"] == "count"
    c = census_keys(d)
    assert "census.excluded_family[FOR_ITER]" in c
    assert not [k for k in c if k.startswith("census.family[FOR_ITER]")]


def test_census_mode_dump_says_its_scope(stats_dir):
    run_python(CENSUS_SCRIPT, env=clean_env(PYSTATS_DIR=stats_dir))
    [d] = dumps_in(stats_dir)
    assert d.header["meta.census.scope"] == "census"
    assert not [k for k in d.extra if k.startswith("census.excluded_family")]
    if SEG:
        assert "census.family[FOR_ITER].sites" in d.extra


BROKEN_SCRIPT = WORK_SRC + """
import gc, sys
import pystats
sys.modules["pystats._census"] = None      # the census cannot be set up
try:
    pystats.on(census=True)
except ImportError:
    print("explicit census refused")
pystats.on()                               # counts without it
failing([Lazy() for _ in range(10)])
pystats.off()
assert pystats.dump()
"""


@needs_segments
def test_count_window_without_a_census_that_cannot_be_set_up(stats_dir):
    p = run_python(BROKEN_SCRIPT, env=clean_env(PYSTATS_DIR=stats_dir))
    assert "explicit census refused" in p.stdout
    assert "pystats._census" in p.stderr          # said, not silent
    [d] = dumps_in(stats_dir)
    assert d.counts["LOAD_ATTR"] == 11
    assert census_keys(d) == {} and "meta.census.scope" not in d.header


# The census of a window is the code that ran in it (docs/FORMAT.md 1.10,
# "How the code objects are reached"): a harness around measure(), or
# around on() and off(), that runs nothing of its own while counting is not
# in it, nor is the module's top level that calls it.
ENCLOSED = """
import json
import sys
import pystats
from pystats import _census

def inner(x):
    return x * 2 + 1

def work():
    t = 0
    for i in range(200):
        t += inner(i)
    return t

def harness(how):
    n = 0
    for _ in range(3):
        if how == "measure":
            pystats.measure(work)
        else:
            pystats.on()
            work()
            pystats.off()
        n += 1
    return n

def top(how):
    harness(how)
    if how == "measure":
        _census.take("count")       # as the pyperf hook's teardown does
    assert pystats.dump()

top(sys.argv[1])
"""

# The sites of code objects, by family, as dis reads them (the base
# opcodes, independent of the adaptive bytecode the census reads).
DIS_SITES = """
def dis_sites(codes, excluded):
    import dis, opcode
    sites, left_out = {}, {}
    for co in codes:
        for ins in dis.get_instructions(co):
            if ins.opname not in opcode._specializations:
                continue
            if ins.opname == "JUMP_BACKWARD" and sys.version_info >= (3, 14):
                continue                # no site (FORMAT.md 1.10)
            into = left_out if ins.opname in excluded else sites
            into[ins.opname] = into.get(ins.opname, 0) + 1
    return sites, left_out
"""


def census_code_and_sites(dump):
    c = census_keys(dump)
    sites = {k[len("census.family["):-len("].sites")]: int(v)
             for k, v in c.items()
             if k.startswith("census.family[") and k.endswith("].sites")}
    excl = {k[len("census.excluded_family["):-1]: int(v)
            for k, v in c.items() if k.startswith("census.excluded_family[")}
    return int(c["census.code_objects"]), sites, \
        {k: v for k, v in excl.items() if v}


@needs_segments
@pytest.mark.parametrize("how", ["measure", "window"])
def test_census_is_the_code_that_ran_while_counting(tmp_path, how):
    d = str(tmp_path / "stats")
    run_python(ENCLOSED, args=[how], env=clean_env(PYSTATS_DIR=d))
    [dump] = dumps_in(d)
    assert dump.header["meta.census.scope"] == "count"
    # What ran while counting: work() and inner(); in a window, also the
    # harness's own loop between on() and off().  Never top() or the
    # module's top level, which only enclose the windows.
    names = ["work", "inner"] + (["harness"] if how == "window" else [])
    expect = run_python(DIS_SITES + ENCLOSED.split("def top")[0] + """
import json
codes = [globals()[n].__code__ for n in sys.argv[1].split(",")]
print(json.dumps(dis_sites(codes, set(sys.argv[2].split(",")))))
""", args=[",".join(names), ",".join(EXCLUDED)]).stdout
    sites, left_out = json.loads(expect)
    assert census_code_and_sites(dump) == (len(names), sites, left_out)
    assert int(census_keys(dump)["census.dead_code_objects"]) == 0
    # The site rows (1.18) are of the same code.
    rows = {k.split("].site[")[0].rpartition(":")[2]
            for k in dump.extra if "].site[" in k}
    assert rows == set(names)


# The census at exit runs after whatever the program did to the import
# system and to what the census calls.
BROKEN_AT_EXIT = """
import builtins, sys
import pystats
pystats.on()
def f():
    return sum(i for i in range(100))
f()
if sys.argv[1] == "import":
    builtins.__import__ = None          # every import statement fails
else:
    import gc
    gc.isenabled = None                 # the census walk fails
"""

PYSTATS_CLI = os.path.join(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))), "build", "pystats")


@needs_segments
def test_census_at_exit_needs_no_import(tmp_path):
    d = str(tmp_path / "stats")
    p = run_python(BROKEN_AT_EXIT, args=["import"],
                   env=clean_env(PYSTATS_DIR=d))
    assert p.stderr == ""
    [dump] = dumps_in(d)
    assert dump.header["meta.census.scope"] == "count"
    assert "meta.census.error" not in dump.header
    # The code that ran while counting, each code object once (one per
    # hot-code entry here): the module's, gone by then (dead), and f, its
    # generator expression and threading's shutdown, live at the census;
    # the code objects finalization destroys after the census are not
    # read twice.
    ran = [k for k in dump.extra if k.endswith("].instructions")]
    c = census_keys(dump)
    live, dead = (int(c["census.code_objects"]),
                  int(c["census.dead_code_objects"]))
    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        # Free-threaded: code objects are freed by deferred reference
        # counting, at a collection, so the module's may still be alive.
        assert live + dead == len(ran) and dead <= 1, (live, dead)
    else:
        assert (live, dead) == (len(ran) - 1, 1)
    assert len(ran) >= 3


@needs_segments
@pytest.mark.skipif(not os.access(PYSTATS_CLI, os.X_OK),
                    reason="build/pystats is not built")
def test_census_that_cannot_be_taken_is_said(tmp_path):
    d = str(tmp_path / "stats")
    p = run_python(BROKEN_AT_EXIT, args=["gc"], env=clean_env(PYSTATS_DIR=d))
    why = "TypeError: 'NoneType' object is not callable"
    assert p.stderr.splitlines() == [
        "pystats: the specialization census could not be taken (%s): the "
        "dump has none and says why (meta.census.error)" % why]
    [dump] = dumps_in(d)
    assert dump.header["meta.census.error"] == why
    assert "meta.census.scope" not in dump.header
    assert census_keys(dump) == {}
    # The counts are dumped whole.
    assert dump.counts["CALL"] >= 2
    c = subprocess.run([PYSTATS_CLI, "check", "--json", "-", d],
                       env=clean_env(), capture_output=True, text=True,
                       timeout=60)
    found = [f for f in json.loads(c.stdout)["findings"]
             if f["check"] == "census-missing"]
    assert len(found) == 1 and found[0]["severity"] == "warning", found
    assert why in json.dumps(found[0])
    assert json.loads(c.stdout)["verdict"] == "caution"
