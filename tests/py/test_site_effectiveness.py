"""Site executions by state (docs/FORMAT.md, "Site executions by
state"): a small program runs under mode count (3.12+, the census's
site rows with their executions); the expected figures are computed
here from the dump's own raw lines, `code[K].site[OFFSET]` rows and
`code[K].site_executions[OFFSET]` counts, with a parser of this file,
and compared with the JSON summary, with the same summary read back,
with the Markdown report and with `compare`'s JSON.

The program makes sites whose attribution is uncertain on purpose: 16
functions each run an attribute load 1000 times on one class (the site
specializes), then 44 to 59 times on a class whose attribute (a
property with a builtin getter) fails to specialize.  After the misses
the site is deoptimized and its attempts fail from the cool-down
counter: some read as never tried, some as backing off with fewer
attempts than 1000 executions allow.  Run three times with different
counts, the same sites have different states in different dumps."""
import json
import os
import re
import subprocess
import sys
import sysconfig
from collections import defaultdict

import pytest

from conftest import clean_env, dumps_in

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
CLI = os.path.join(ROOT, "build", "pystats")

pytestmark = [
    pytest.mark.skipif(not os.access(CLI, os.X_OK),
                       reason="build/pystats is not built"),
    pytest.mark.skipif(sys.version_info < (3, 12),
                       reason="site rows are 3.12+ (mode count's census)"),
]

PROGRAM = '''
import sys


class A:
    def __init__(self):
        self.x = 1


class D:
    x = property(id)


SRC = "\\n".join("def get%d(o):\\n    return o.x\\n" % k for k in range(16))
exec(compile(SRC, __file__ + "-gen", "exec"))
a, d = A(), D()
scale, shift = int(sys.argv[1]), int(sys.argv[2])
for k in range(16):
    f = globals()["get%d" % k]
    for i in range(1000 * scale):
        f(a)
    for i in range(44 + k + shift):
        f(d)
t = 0.0
for i in range(3000 * scale):
    t = t + i * 0.5
print(len([x for x in range(100) if x % 3]), t)
'''

SITE = re.compile(r"^code\[(.*)\]\.site\[(\d+)\] : (.*)$")
EXEC = re.compile(r"^code\[(.*)\]\.site_executions\[(\d+)\] : (\d+)$")
OPCODE = re.compile(r"^opcode\[([A-Z_0-9]+)\]\.execution_count : (\d+)$")
STATES = ("specialized", "backing_off", "never_tried", "excluded")
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def raw_lines(path):
    """A dump's site rows and executions by (code key, offset), and its
    opcode counts, from its lines alone."""
    rows, execs, ops = {}, {}, defaultdict(int)
    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines():
            m = SITE.match(line)
            if m:
                rows[(m.group(1), int(m.group(2)))] = m.group(3)
                continue
            m = EXEC.match(line)
            if m:
                execs[(m.group(1), int(m.group(2)))] = int(m.group(3))
                continue
            m = OPCODE.match(line)
            if m:
                ops[m.group(1)] += int(m.group(2))
    assert rows and set(execs) == set(rows)
    return rows, execs, ops


def credit(row):
    """What a row credits executions to: family, state, and the form of
    a specialized site."""
    family, state, detail = row.split(" | ")[:3]
    return family, state, detail if state == "specialized" else ""


def raw_figures(*paths):
    """Per family the expected figures of the dumps at paths, from their
    lines alone, and their instructions."""
    seen, execs, ops = defaultdict(list), defaultdict(int), defaultdict(int)
    for p in paths:
        r, e, o = raw_lines(p)
        for site, row in r.items():
            seen[site].append(row)
            execs[site] += e[site]
        for name, n in o.items():
            ops[name] += n
    fam = defaultdict(lambda: dict({s: 0 for s in STATES}, uncertain=0,
                                   sites=0, forms=defaultdict(int)))
    for site, rows in seen.items():
        # The row most dumps had (these runs have no ties).
        counts = defaultdict(int)
        for row in rows:
            counts[row] += 1
        best = max(counts.values())
        top = [row for row, c in counts.items() if c == best]
        assert len(top) == 1, (site, rows)
        family, state, form = credit(top[0])
        n = execs[site]
        e = fam[family]
        e[state] += n
        e["sites"] += 1
        if form:
            e["forms"][form] += n
        # A site at k failed attempts (never tried: 0), k < 11, ran at
        # most 2**(k+2) - 3 times since its warm-up in each dump (the
        # backoff counter of 3.12-3.14: its j-th attempt at execution
        # 2**(j+1) - 2), but on a free-threaded build, where each
        # thread's copy of the bytecode has its counter; rows that credit
        # differently are uncertain.
        k = {"never_tried": 0}.get(state, -1)
        if FREE_THREADED:
            k = -1
        if state == "backing_off" and not FREE_THREADED:
            k = int(top[0].split(" | ")[2])
        if len({credit(row) for row in rows}) > 1 or (
                0 <= k < 11 and n > (2 ** (k + 2) - 3) * best):
            e["uncertain"] += n
    for family, e in fam.items():
        e["forms"] = dict(e["forms"])
        if ops.get(family):
            e["family_executions"] = ops[family]
    return dict(fam), sum(ops.values())


def run(tmp, name, scale, shifts=(0,)):
    """The program run once per shift, its dumps in tmp/name: the
    directory and the dumps' paths."""
    prog = tmp / "prog.py"
    prog.write_text(PROGRAM)
    out = tmp / name
    for shift in shifts:
        r = subprocess.run([sys.executable, str(prog), str(scale),
                            str(shift)],
                           capture_output=True, text=True, timeout=120,
                           env=clean_env(PYTHONSTATS="count",
                                         PYTHONHASHSEED="0",
                                         PYSTATS_DIR=str(out)))
        assert r.returncode == 0, r.stderr
    dumps = dumps_in(str(out))
    assert len(dumps) == len(shifts), dumps
    return str(out), [x.path for x in dumps]


def cli(*args):
    r = subprocess.run([CLI] + list(args), capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sitefx")
    return [run(tmp, "base", 1), run(tmp, "head", 2)]


def test_dumps_that_disagree_are_summed_and_uncertain(tmp_path):
    # Three processes: in the third each site of the program's functions
    # runs 9 more times on the class that fails, so that its state there
    # differs from the other two's (specialized, never tried, backing
    # off).
    d, dumps = run(tmp_path, "three", 1, (0, 0, 9))
    want, _ = raw_figures(*dumps)
    assert summary_sx(d) == want
    single, _ = raw_figures(dumps[0])
    assert want["LOAD_ATTR"]["uncertain"] > max(
        1000, 3 * single["LOAD_ATTR"]["uncertain"])


def summary_sx(path):
    return json.loads(cli("summarize", path, "--json", "-"))["census"][
        "site_executions"]


def test_the_summary_has_the_dumps_own_sums(runs, tmp_path):
    (d, (dump,)), _ = runs
    want, _ = raw_figures(dump)
    got = summary_sx(d)
    assert got == want
    # The program's sites that specialized, then failed after
    # deoptimization: read as never tried or with too few attempts
    # (told from one dump on a build with the GIL only).
    assert want["LOAD_ATTR"]["uncertain"] >= (0 if FREE_THREADED else 1000)
    assert want["LOAD_ATTR"]["forms"]["LOAD_ATTR_INSTANCE_VALUE"] >= 1000
    assert want["FOR_ITER"]["excluded"] > 0
    # The JSON summary reads back to the same figures, and two of it to
    # twice them.
    js = tmp_path / "s.json"
    cli("summarize", d, "--json", str(js))
    assert summary_sx(str(js)) == want
    twice = json.loads(cli("summarize", str(js), str(js), "--json", "-"))
    two = twice["census"]["site_executions"]["LOAD_ATTR"]
    assert two["uncertain"] == 2 * want["LOAD_ATTR"]["uncertain"]
    assert two["specialized"] == 2 * want["LOAD_ATTR"]["specialized"]


def test_the_markdown_table_shows_them(runs):
    (d, (dump,)), _ = runs
    want, _ = raw_figures(dump)
    md = cli("summarize", d)
    sec = md[md.index("## Site executions by state"):]
    e = want["LOAD_ATTR"]
    total = sum(e[s] for s in STATES)
    row = "| LOAD_ATTR | {:,} | {:,} ({:.1f}%) |".format(
        total, e["specialized"], 100.0 * e["specialized"] / total)
    assert row in sec
    assert "| {:,} ({:.1f}%) | {} |".format(
        e["uncertain"], 100.0 * e["uncertain"] / total, e["sites"]) in sec
    form = want["BINARY_OP"]["forms"]
    assert "| BINARY_OP_ADD_FLOAT | BINARY_OP | {:,} |".format(
        form["BINARY_OP_ADD_FLOAT"]) in sec


def test_compare_has_them_per_million_instructions(runs):
    (bd, (bdump,)), (hd, (hdump,)) = runs
    base, btotal = raw_figures(bdump)
    head, htotal = raw_figures(hdump)
    out = json.loads(cli("compare", bd, hd, "--json", "-"))
    secs = out["sections"]
    rows = {r["name"]: r for r in secs["site_executions"]["rows"]}
    for fam in ("LOAD_ATTR", "BINARY_OP", "FOR_ITER"):
        for st in STATES + ("uncertain",):
            r = rows["%s.%s" % (fam, st)]
            assert (r["base"], r["head"]) == (base[fam][st], head[fam][st])
            assert r["base_pm"] == pytest.approx(1e6 * base[fam][st] / btotal)
            assert r["head_pm"] == pytest.approx(1e6 * head[fam][st] / htotal)
    forms = {r["name"]: r for r in secs["site_executions_forms"]["rows"]}
    r = forms["BINARY_OP_ADD_FLOAT"]
    assert (r["base"], r["head"]) == (
        base["BINARY_OP"]["forms"]["BINARY_OP_ADD_FLOAT"],
        head["BINARY_OP"]["forms"]["BINARY_OP_ADD_FLOAT"])
    shares = {r["name"]: r for r in secs["site_execution_shares"]["rows"]}
    e = base["LOAD_ATTR"]
    assert shares["LOAD_ATTR.uncertain"]["base"] == pytest.approx(
        e["uncertain"] / sum(e[s] for s in STATES))
