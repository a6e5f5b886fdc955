"""The census's per-site rows and source text (docs/FORMAT.md 1.18):
code[K].site[OFFSET] rows of the code that ran, checked against an
independent reading of the same code objects in Python (dis with
adaptive=True for the specialized forms, the adaptive bytecode's counter
for backing off, co_positions() for the positions), and source[FILE]
lines checked against the file itself."""
import json
import os
import sys
import textwrap

import pytest

from conftest import clean_env, decode_text, dumps_in, run_python

V = sys.version_info[:2]
needs_segments = pytest.mark.skipif(V < (3, 12),
                                    reason="segment counting is 3.12+")

# The reading the census is compared with, run in the child on the code
# objects themselves, in pure Python: CPython's own tables
# (opcode._specializations, _inline_cache_entries), dis for the names of
# the adaptive bytecode, co_positions() for the positions.
READING = r'''
import dis, opcode, sys

EXCLUDED = {"FOR_ITER"} | ({"RESUME"} if sys.version_info >= (3, 13) else set())


def _families():
    fam = {}
    for base, forms in opcode._specializations.items():
        if base == "JUMP_BACKWARD":     # 3.14: the JIT's counter, no site
            continue
        fam[base] = base
        for form in forms:
            fam[form] = base
    return fam


def _caches(name):
    ice = opcode._inline_cache_entries
    if isinstance(ice, dict):
        return ice.get(name, 0)
    return ice[opcode.opmap[name]]


def reading(code):
    """{offset: [FAMILY, STATE, DETAIL, LINE, COL, END_LINE, END_COL]}"""
    fam_of = _families()
    raw = code._co_code_adaptive
    names = dis._all_opname
    positions = list(code.co_positions())
    rows = {}
    i = 0
    while i < len(raw) // 2:
        name = names[raw[2 * i]]
        under = name[len("INSTRUMENTED_"):] if name.startswith(
            "INSTRUMENTED_") else name
        fam = fam_of.get(under)
        if fam is None:
            base = under
        else:
            base = fam
            if fam in EXCLUDED:
                state, detail = "excluded", ""
            elif under != fam:
                state, detail = "specialized", under
            elif _caches(fam) == 0:
                # No counter, not specialized (3.12's LOAD_FAST with no
                # superinstruction): no adaptive site, no row.
                i += 1 + _caches(base)
                continue
            else:
                counter = raw[2 * i + 2] | raw[2 * i + 3] << 8
                tries = (counter & 15) - 1
                state, detail = ("backing_off", str(tries)) if tries > 0 \
                    else ("never_tried", "")
            line, end_line, col, end_col = positions[i]
            rows[2 * i] = [fam, state, detail] + [
                "-" if p is None else str(p)
                for p in (line, col, end_line, end_col)]
        i += 1 + (_caches(base) if base in opcode.opmap else 0)
    # dis agrees on the specialized forms it names (adaptive=True).
    if not any(names[raw[2 * k]].startswith("INSTRUMENTED_")
               for k in range(len(raw) // 2)):
        for ins in dis.get_instructions(code, adaptive=True):
            if ins.offset in rows and rows[ins.offset][1] == "specialized":
                assert rows[ins.offset][2] == ins.opname, (ins, rows)
    return rows


def key(code):
    return "%s:%d:%s" % (code.co_filename, code.co_firstlineno,
                         code.co_qualname)
'''

WORK = '''
class Plain:
    def __init__(self):
        self.x = 1


class Lazy:
    def __getattr__(self, name):
        return 2


if sys.version_info >= (3, 14):
    # 3.14 counts an attribute the class lacks as no failure (the
    # cooldown counter); a C type's getset descriptor still fails.
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
'''

DEAD = '''
def dead(objs):
    t = 0
    for o in objs:
        t += o.x
    return t

dead([Plain() for _ in range(50)])
'''

SCRIPT = READING + WORK + '''
import gc, json
import pystats


def run_dead(path):
    """Code that runs, is read, and dies before the census."""
    with open(path) as f:
        module = compile(f.read(), path, "exec")
    ns = {"Plain": Plain}
    exec(module, ns)
    readings = {key(module): reading(module),
                key(ns["dead"].__code__): reading(ns["dead"].__code__)}
    ns.clear()
    return readings


pystats.on()
mono([Plain() for _ in range(200)])
failing([Lazy() for _ in range(300)])
expected = run_dead(sys.argv[1])
pystats.off()
for fn in (mono, failing):
    expected[key(fn.__code__)] = reading(fn.__code__)
spans = {key(c): [c.co_firstlineno, max(l for _, _, l in c.co_lines() if l)]
         for c in (mono.__code__, failing.__code__)}
with open(sys.argv[2], "w") as f:
    json.dump({"rows": expected, "spans": spans, "never": key(never.__code__)}, f)
assert pystats.dump()
'''


def decode_key(key):
    """FILE:LINE:QUALNAME, or generated code's FILE:LINE:QUALNAME:MODULE:
    FUNCQUAL (FORMAT.md 1.18), each part decoded."""
    parts = key.split(":")
    assert len(parts) in (3, 5), key
    return ":".join(p if i == 1 else decode_text(p)
                    for i, p in enumerate(parts))


def site_rows(dump):
    """{decoded key: {offset: fields}} of the dump's code[K].site rows."""
    out = {}
    for k, v in dump.extra.items():
        if not (k.startswith("code[") and "].site[" in k):
            continue
        key, off = k[len("code["):-1].rsplit("].site[", 1)
        out.setdefault(decode_key(key), {})[int(off)] = v.split(" | ")
    return out


def source_lines(dump):
    """{file: {n: text}} of the dump's source[FILE].line[N] lines."""
    out = {}
    for k, v in dump.extra.items():
        if k.startswith("source["):
            f, n = k[len("source["):-1].split("].line[")
            out.setdefault(decode_text(f), {})[int(n)] = decode_text(v)
    return out


def file_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")


@pytest.fixture
def sites_run(tmp_path):
    script = tmp_path / "work_sites.py"
    script.write_text(SCRIPT)
    dead = tmp_path / "dead_sites.py"
    dead.write_text(DEAD)
    out = tmp_path / "expected.json"
    d = str(tmp_path / "stats")
    run_python("import runpy, sys; sys.argv[:] = [%r, %r, %r]; "
               "runpy.run_path(%r, run_name='__main__')"
               % (str(script), str(dead), str(out), str(script)),
               env=clean_env(PYSTATS_DIR=d))
    [dump] = dumps_in(d)
    with open(out) as f:
        return dump, json.load(f), str(script), str(dead)


@needs_segments
def test_rows_are_the_sites_as_python_reads_them(sites_run):
    dump, exp, script, dead = sites_run
    assert dump.header["meta.census.scope"] == "count"
    rows = site_rows(dump)
    for key, want in exp["rows"].items():
        assert key in rows, key
        assert rows[key] == {int(o): r for o, r in want.items()}, key
    # The reading is not trivial: a site of each state that can be had.
    states = {(r[0], r[1]) for key in exp["rows"] for r in rows[key].values()}
    assert ("LOAD_ATTR", "specialized") in states
    assert ("LOAD_ATTR", "backing_off") in states
    assert ("FOR_ITER", "excluded") in states
    failing = [r for k, v in rows.items() if k.endswith(":failing")
               for r in v.values() if r[1] == "backing_off"]
    assert [r[:3] for r in failing] == [["LOAD_ATTR", "backing_off", "7"]]
    # Code that never ran has no rows; code that ran and died keeps its.
    assert exp["never"] not in rows
    assert [k for k in exp["rows"] if k.startswith(dead)] and \
        all(k in rows for k in exp["rows"] if k.startswith(dead))
    assert dump.extra["census.omitted_site_rows"] == "0"
    assert dump.extra["census.omitted_source_lines"] == "0"


@needs_segments
def test_source_text_round_trips(sites_run):
    dump, exp, script, dead = sites_run
    src = source_lines(dump)
    for path in (script, dead):
        lines = file_lines(path)
        assert src[path], path
        for n, text in src[path].items():
            assert text == lines[n - 1], (path, n)
    # Every line of each code object with rows, from its first line to
    # the last of its co_lines(), blank and indented ones included.
    for key, (first, last) in exp["spans"].items():
        assert set(range(first, last + 1)) <= set(src[script]), key
    assert any(t.startswith("    ") for t in src[script].values())
    assert "" in src[script].values()


BOUND = '''
import pystats

class O:
    x = 1

src = "".join("def f%d(o):\\n    return o.x\\n" % i for i in range(N))
ns = {}
code = compile(src, "<generated>", "exec")
pystats.on()
exec(code, ns)
o = O()
for i in range(N):
    ns["f%d" % i](o)
pystats.off()
assert pystats.dump()
'''


@needs_segments
def test_rows_are_bounded_by_the_hot_code_cap(tmp_path):
    """2000 code objects at most: of 2100 one-call functions and the two
    modules, the modules and 1998 functions; the rest counted."""
    d = str(tmp_path / "stats")
    n = 2100
    run_python(READING + "N = %d\n" % n + BOUND + textwrap.dedent('''
        import json, sys
        with open(sys.argv[1], "w") as f:
            json.dump([len(reading(ns["f0"].__code__)), len(reading(code))], f)
        '''), args=[str(tmp_path / "one.json")],
        env=clean_env(PYSTATS_DIR=d))
    [dump] = dumps_in(d)
    with open(tmp_path / "one.json") as f:
        per_function, per_module = json.load(f)
    rows = site_rows(dump)
    funcs = [k for k in rows if k.startswith("<generated>:") and
             not k.endswith(":<module>")]
    # The generated module has rows only where its bytecode has an
    # adaptive site (3.12's STORE_NAME-only module body has none).
    assert len(rows) == 1999 + (per_module > 0)
    assert len(funcs) == 1998
    assert all(len(rows[k]) == per_function for k in funcs)
    assert int(dump.extra["census.omitted_site_rows"]) == \
        (n - 1998) * per_function


@needs_segments
def test_no_rows_in_mode_census_or_without_the_census(tmp_path):
    for name, xopts in (("census", ["pystats=census"]),
                        ("nocensus", ["pystats", "pystats_census=0"])):
        d = str(tmp_path / name)
        run_python("import pystats, sys\n" + WORK + "mono([Plain()] * 10)\n",
                   xopts=xopts, env=clean_env(PYSTATS_DIR=d))
        dumps = dumps_in(d)
        assert dumps
        for dump in dumps:
            assert not [k for k in dump.extra
                        if "].site[" in k or k.startswith("source[")]


REACH = READING + WORK + '''
import json, sys
import pystats
from pystats import _census, _collector

pystats.on(mode=sys.argv[1])
mono([Plain() for _ in range(200)])
failing([Lazy() for _ in range(300)])
json.loads(json.dumps({"a": [1, 2.5, None]}))     # library code too
pystats.off()


def tally(codes, which):
    _collector._census_begin("count")
    for co in codes:
        if which(co):
            _collector._census_code(co, None)
    return _collector._census_totals()


def readings():
    """Both readings in one call: the module's own sites stand still."""
    _census.take()                  # as the dump takes it
    taken = _collector._census_totals()
    reached = _census.live_code_objects()       # the heap walk
    registry = _collector._census_registry(sys.argv[1] == "count")
    out = {"taken": taken, "walk_ids": sorted(map(id, reached)),
           "registry_ids": sorted(map(id, registry))}
    if sys.argv[1] == "count":
        # The code that ran, by its hot-code key; a key two code objects
        # share (namedtuple's exec'd "<string>" code...) says nothing.
        ran = set(pystats.snapshot()["code"])
        keys = [key(c) for c in reached]
        unique = {k for k in keys if keys.count(k) == 1}
        out["registry"] = tally(registry, lambda c: True)
        out["registry_ran"] = tally(registry, lambda c: key(c) in unique)
        out["walk_ran"] = tally(reached, lambda c: key(c) in ran & unique)
        ids = set(map(id, registry))
        out["missing"] = sorted(key(c) for c in reached
                                if key(c) in ran & unique and id(c) not in ids)
    return out


out = readings()
with open(sys.argv[2], "w") as f:
    json.dump(out, f)
'''


@needs_segments
@pytest.mark.parametrize("mode", ["count", "census"])
def test_no_heap_walk_reads_the_same_code(tmp_path, mode):
    """Scope count: the census of the registry's code that ran equals a
    heap walk's census of the code that ran (hot code says which).  Mode
    census: the registry holds every code object the walk reaches."""
    out = tmp_path / "reach.json"
    run_python(REACH, args=[mode, str(out)],
               env=clean_env(PYSTATS_DIR=str(tmp_path / "stats")))
    with open(out) as f:
        r = json.load(f)
    if mode == "count":
        assert r["taken"] == r["registry"]
        assert r["missing"] == []
        assert r["registry_ran"] == r["walk_ran"]
        assert r["taken"]["code_objects"] >= 10
        assert r["taken"]["families"]["LOAD_ATTR"]["backing_off"] >= 1
    else:
        assert set(r["walk_ids"]) <= set(r["registry_ids"])
        assert r["taken"]["code_objects"] > 100 < len(r["walk_ids"])


@needs_segments
def test_source_text_is_bounded(tmp_path):
    """4 MiB of source lines at most; the lines left out are counted."""
    big = tmp_path / "big_source.py"
    n = 5000
    big.write_text("def f():\n    a = 1\n" + ("#" * 1000 + "\n") * n
                   + "    return a\n")
    d = str(tmp_path / "stats")
    run_python("import pystats, runpy\npystats.on()\n"
               "runpy.run_path(%r)['f']()\npystats.off()\n"
               "assert pystats.dump()\n" % str(big),
               env=clean_env(PYSTATS_DIR=d))
    [dump] = dumps_in(d)
    lines = source_lines(dump)[str(big)]
    omitted = int(dump.extra["census.omitted_source_lines"])
    assert omitted > 0
    assert len(lines) + omitted == n + 3           # f's lines, all of them
    with open(dump.path, encoding="utf-8") as f:
        size = sum(len(line.encode()) for line in f
                   if line.startswith("source["))
    assert 4 * 2**20 - 2000 < size <= 4 * 2**20


SAME_KEY = READING + '''
import json, sys
import pystats

SRC = "def twice(xs):\\n    t = 0\\n    for x in xs:\\n        t += x\\n    return t\\n"
a, b = {}, {}
exec(compile(SRC, "<twice>", "exec"), a)
exec(compile(SRC, "<twice>", "exec"), b)
pystats.on()
a["twice"]([1, 2] * 5)              # fewer instructions, ints
b["twice"]([1.5, 2.5] * 50)         # more, floats: other specializations
pystats.off()
with open(sys.argv[1], "w") as f:
    json.dump({"a": reading(a["twice"].__code__),
               "b": reading(b["twice"].__code__)}, f)
assert pystats.dump()
'''


@needs_segments
def test_one_code_object_per_key_the_one_with_most_instructions(tmp_path):
    d = str(tmp_path / "stats")
    run_python(SAME_KEY, args=[str(tmp_path / "r.json")],
               env=clean_env(PYSTATS_DIR=d))
    [dump] = dumps_in(d)
    with open(tmp_path / "r.json") as f:
        r = json.load(f)
    assert r["a"] != r["b"]
    # exec'd into namespaces without __name__: no module, one function
    # name, so still one key (FORMAT.md 1.18).
    rows = site_rows(dump)["<twice>:1:twice::twice"]
    assert rows == {int(o): v for o, v in r["b"].items()}


# The executions of every site (code[K].site_executions[OFFSET]) against
# an independent count: the same program run without the collector under
# a sys.monitoring INSTRUCTION tool, which sees every instruction of the
# window at its offset (RESUME by PY_START: these functions start only).
EXEC_SCRIPT = READING + WORK + r'''
import json, sys

DEAD_SRC = """
def dead(objs):
    t = 0
    for o in objs:
        t += o.x
    return t

dead([Plain() for _ in range(50)])
"""


def hot_failing(o):
    return o.y


def window():
    mono([Plain() for _ in range(200)])
    failing([Lazy() for _ in range(300)])
    lazy = Lazy()
    for _ in range(1400):
        hot_failing(lazy)
    ns = {"Plain": Plain}
    exec(compile(DEAD_SRC, "dead_sites.py", "exec"), ns)
    ns.clear()


keys = [key(f.__code__) for f in (mono, failing, hot_failing)]
if sys.argv[1] == "ref":
    M = sys.monitoring
    TOOL = M.PROFILER_ID
    counts = {}

    def instruction(code, offset):
        k = "%s|%d" % (key(code), offset)
        counts[k] = counts.get(k, 0) + 1

    M.use_tool_id(TOOL, "reference")
    # No INSTRUCTION event for RESUME: its starts are PY_START's.
    for ev in (M.events.INSTRUCTION, M.events.PY_START):
        M.register_callback(TOOL, ev, instruction)
    M.set_events(TOOL, M.events.INSTRUCTION | M.events.PY_START)
    window()
    M.set_events(TOOL, 0)
    with open(sys.argv[2], "w") as f:
        json.dump({"counts": counts, "keys": keys}, f)
else:
    import pystats
    pystats.on()
    window()
    pystats.off()
    assert pystats.dump()
'''


def site_executions(dump):
    """{decoded key: {offset: executions}} of code[K].site_executions."""
    out = {}
    for k, v in dump.extra.items():
        if not (k.startswith("code[") and "].site_executions[" in k):
            continue
        key, off = k[len("code["):-1].rsplit("].site_executions[", 1)
        out.setdefault(decode_key(key), {})[int(off)] = int(v)
    return out


@needs_segments
def test_site_executions_are_the_instructions_run(tmp_path):
    script = tmp_path / "work_exec.py"
    script.write_text(EXEC_SCRIPT)
    ref = tmp_path / "ref.json"
    d = str(tmp_path / "stats")
    run_python("import runpy, sys; sys.argv[:] = [%r, 'ref', %r]; "
               "runpy.run_path(%r, run_name='__main__')"
               % (str(script), str(ref), str(script)))
    run_python("import runpy, sys; sys.argv[:] = [%r, 'count']; "
               "runpy.run_path(%r, run_name='__main__')"
               % (str(script), str(script)),
               env=clean_env(PYSTATS_DIR=d))
    [dump] = dumps_in(d)
    with open(ref) as f:
        exp = json.load(f)
    rows, execs = site_rows(dump), site_executions(dump)
    dead = [k for k in rows if k.startswith("dead_sites.py:")]
    assert len(dead) == 2, sorted(rows)     # the module and dead()
    checked = 0
    for key in exp["keys"] + dead:
        assert key in rows, key
        # One executions line per site row, no more.
        assert sorted(execs[key]) == sorted(rows[key]), key
        for off, n in execs[key].items():
            assert n == exp["counts"].get("%s|%d" % (key, off), 0), \
                (key, off, rows[key][off])
            checked += n > 0
    assert checked >= 10
    # The hot failing site: 1,400 executions, backing off at the ceiling.
    [hot] = [k for k in exp["keys"] if k.endswith(":hot_failing")]
    [(off, row)] = [(o, r) for o, r in rows[hot].items()
                    if r[0] == "LOAD_ATTR"]
    assert row[1] == "backing_off"
    assert execs[hot][off] == 1400


# A hot failing site among many cold ones at the backoff ceiling: the
# consecutive failed attempts tie, the executions (known from the
# program: one per call) rank them.
RANK_SCRIPT = "import sys\n" + WORK + "".join(
    "\ndef cold_%d(o):\n    return o.y\n" % i for i in range(20)) + r'''
import pystats

COLD = 20


def zz_hot(o):
    return o.y


lazy = Lazy()
pystats.on()
for i in range(COLD):
    f = globals()["cold_%d" % i]
    for _ in range(9000):
        f(lazy)
for _ in range(60000):
    zz_hot(lazy)
pystats.off()
assert pystats.dump()
'''

CLI = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "build", "pystats")


@needs_segments
@pytest.mark.skipif(not os.access(CLI, os.X_OK),
                    reason="build/pystats not built")
def test_the_hot_failing_site_leads_by_executions(tmp_path):
    import subprocess
    script = tmp_path / "rank.py"
    script.write_text(RANK_SCRIPT)
    d = str(tmp_path / "stats")
    run_python("import runpy, sys; sys.argv[:] = [%r]; "
               "runpy.run_path(%r, run_name='__main__')"
               % (str(script), str(script)),
               env=clean_env(PYSTATS_DIR=d), timeout=300)
    [dump] = dumps_in(d)
    rows = site_rows(dump)
    attempts = sorted(int(r[2]) for k, v in rows.items()
                      if k.endswith((":zz_hot",)) or ":cold_" in k
                      for r in v.values() if r[1] == "backing_off")
    # 21 sites backing off, the cold ones at the ceiling with the hot one.
    assert len(attempts) == 21 and attempts[0] == attempts[-1], attempts
    [off_hot] = [o for k, v in rows.items() if k.endswith(":zz_hot")
                 for o, r in v.items() if r[0] == "LOAD_ATTR"]
    hot_line = RANK_SCRIPT.split("\n").index("    return o.y",
        RANK_SCRIPT.split("\n").index("def zz_hot(o):")) + 1
    r = subprocess.run([CLI, "summarize", dump.path], capture_output=True,
                       text=True, check=True)
    out = r.stdout
    look = [ln for ln in out.split("\n")
            if ln.startswith("- Fails to specialize: ")]
    assert look[0].startswith(
        "- Fails to specialize: LOAD_ATTR at %s:%d in `zz_hot`: "
        "60,000 executions not specialized" % (script, hot_line)), look
    # The section's own table: up to the next section.
    table = out.split("## Sites that fail to specialize", 1)[1].split(
        "\n## ", 1)[0]
    body = [ln for ln in table.split("\n") if ln.startswith("| ")][2:]
    cells = [[c.strip() for c in ln.strip("|").split("|")] for ln in body]
    assert cells[0][:5] == ["LOAD_ATTR", "60,000", "25.0%", "backing off",
                            str(attempts[-1])], cells[0]
    assert cells[0][5] == "%s:%d" % (script, hot_line)
    # The cold ones next, each at its own executions: one per call.
    cold = [c for c in cells[1:21]]
    assert all(c[1] == "9,000" and c[3] == "backing off" for c in cold), cold
    assert sorted(c[6] for c in cold) == sorted(
        "cold_%d" % i for i in range(20))
    # pystats run's headline names the same site first, by executions.
    r = subprocess.run([CLI, "run", "-o", str(tmp_path / "run"), "--",
                        sys.executable, str(script)],
                       capture_output=True, text=True, env=clean_env(),
                       timeout=300)
    assert r.returncode == 0, r.stderr
    said = [ln for ln in r.stderr.split("\n") if "fails to specialize" in ln]
    assert said[0].startswith(
        "pystats run:   fails to specialize: LOAD_ATTR at %s:%d in zz_hot: "
        "60,000 executions not specialized" % (script, hot_line)), said
    # annotate: each site's executions on hover and as data-executions.
    page = tmp_path / "page.html"
    subprocess.run([CLI, "annotate", dump.path, "--html", str(page),
                    "--top", "100", "--quiet"], check=True, timeout=120)
    html = page.read_text()
    import re
    hot_site = re.findall(r'<span class="[^"]*" data-family="LOAD_ATTR" '
                          r'data-state="backing_off" data-detail="\d+" '
                          r'data-offset="%d" data-executions="(\d+)"[^>]* '
                          r'title="LOAD_ATTR: [^"]*; (\d+) executions'
                          % off_hot, html)
    assert ("60000", "60000") in hot_site, hot_site


# Code that shares a key (every dataclass's __init__ is compiled from a
# string as <string>:N:__create_fn__.<locals>.__init__) keeps its rows
# per function, named by the function's own __module__ and __qualname__
# (FORMAT.md 1.18).  Expected: the rows as Python reads each code object
# (adaptive bytecode, co_positions()), the executions from the program
# (one per construction), the names from the functions themselves.
DATACLASSES = READING + r'''
import dataclasses, json, sys


class Hooked:
    """A __setattr__ of its own: STORE_ATTR cannot specialize."""
    def __setattr__(self, k, v):
        object.__setattr__(self, k, v)


@dataclasses.dataclass
class Point(Hooked):
    x: int
    y: int


@dataclasses.dataclass
class Line(Hooked):
    a: object
    b: object


def run():
    import pystats
    pystats.on()
    for i in range(3000):
        Point(i, i)
    for i in range(1000):
        Line(1.5, "s")
    pystats.off()
    out = {}
    for f, n in ((Point.__init__, 3000), (Line.__init__, 1000)):
        out[f.__qualname__] = {"key": key(f.__code__), "module": f.__module__,
                               "rows": reading(f.__code__), "calls": n}
    with open(sys.argv[1], "w") as fh:
        json.dump(out, fh)
    assert pystats.dump()
'''


@needs_segments
@pytest.mark.skipif(not os.access(CLI, os.X_OK),
                    reason="build/pystats not built")
def test_dataclass_inits_are_one_record_each_named_by_their_class(tmp_path):
    import subprocess
    (tmp_path / "dcmod.py").write_text(DATACLASSES)
    d = str(tmp_path / "stats")
    run_python("import sys; sys.path.insert(0, %r); import dcmod; "
               "dcmod.run()" % str(tmp_path), args=[str(tmp_path / "r.json")],
               env=clean_env(PYSTATS_DIR=d))
    [dump] = dumps_in(d)
    with open(tmp_path / "r.json") as f:
        exp = json.load(f)
    rows, execs = site_rows(dump), site_executions(dump)
    # One key for both code objects, two records.
    assert exp["Point.__init__"]["key"] == exp["Line.__init__"]["key"]
    for qual in ("Point.__init__", "Line.__init__"):
        e = exp[qual]
        assert e["module"] == "dcmod"
        k = "%s:dcmod:%s" % (e["key"], qual)
        assert rows[k] == {int(o): v for o, v in e["rows"].items()}, k
        stores = [o for o, r in rows[k].items() if r[0] == "STORE_ATTR"]
        assert len(stores) == 2
        for o in stores:
            assert rows[k][o][1] == "backing_off"
            assert execs[k][o] == e["calls"]
    assert not any(k == exp["Point.__init__"]["key"] for k in rows)
    # The report: two rows per class, each named by its class.
    r = subprocess.run([CLI, "summarize", dump.path], capture_output=True,
                       text=True, check=True)
    table = r.stdout.split("## Sites that fail to specialize", 1)[1].split(
        "\n## ", 1)[0]
    body = [ln for ln in table.split("\n") if ln.startswith("| ")][2:]
    cells = [[c.strip() for c in ln.strip("|").split("|")] for ln in body]
    stores = [(c[1], c[5], c[6]) for c in cells if c[0] == "STORE_ATTR"]
    line = int(exp["Point.__init__"]["key"].split(":")[1])
    where = ["\\<string>:%d (generated, module dcmod)" % (line + d)
             for d in (1, 2)]
    assert sorted(stores) == sorted(
        [("1,000", w, "Line.\\_\\_init\\_\\_") for w in where]
        + [("3,000", w, "Point.\\_\\_init\\_\\_") for w in where]), cells
    # The JSON summary ranks them too, by executions, each named alike.
    r = subprocess.run([CLI, "summarize", dump.path, "--json", "-"],
                       capture_output=True, text=True, check=True)
    ranked = json.loads(r.stdout)["census"]["failing_sites"]
    execs_of = [f["executions"] for f in ranked]
    assert execs_of == sorted(execs_of, reverse=True)
    got = sorted((f["function"], f["module"], f["generated"], f["line"],
                  f["offset"], f["executions"], f["code"])
                 for f in ranked if f["family"] == "STORE_ATTR")
    want = []
    for qual in ("Point.__init__", "Line.__init__"):
        e = exp[qual]
        for o, row in e["rows"].items():
            if row[0] == "STORE_ATTR":
                want.append((qual, "dcmod", True, row[3], int(o), e["calls"],
                             e["key"]))
    assert got == sorted(want)
    # Read back, the JSON ranks the same sites; two copies add up.
    one = tmp_path / "one.json"
    one.write_text(r.stdout)
    back = [json.loads(subprocess.run(
        [CLI, "summarize"] + [str(one)] * k + ["--json", "-"],
        capture_output=True, text=True, check=True).stdout)
        ["census"]["failing_sites"] for k in (1, 2)]
    assert back[0] == ranked
    assert [f["executions"] for f in back[1]] == [2 * n for n in execs_of]
    assert [f["function"] for f in back[1]] == [f["function"] for f in ranked]
    # The hot code stays one entry per key, summed: the per-function
    # records are site records only.
    hot = json.loads(subprocess.run(
        [CLI, "summarize", dump.path, "--json", "-"], capture_output=True,
        text=True, check=True).stdout)["code"]
    inits = [k for k in hot if "__create_fn__" in k]
    assert inits == [exp["Point.__init__"]["key"]]
    assert hot[inits[0]]["calls"] == 4000
