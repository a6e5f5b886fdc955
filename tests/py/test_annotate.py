"""pystats annotate end to end: a program run under the collector, its
source view read back from the page in headless Chromium, against
independent sources: each line's count against the pure-Python reference
collector (reference.py), each site's state against the adaptive bytecode
as Python itself reads it (test_sites.READING, in the child after the
window closed, so that nothing ran in between)."""
import json
import os
import subprocess
import sys

import pytest

from conftest import clean_env, run_python
from reference import Reference, code_key
from test_sites import READING

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLI = os.path.join(ROOT, "build", "pystats")
sys.path.insert(0, os.path.join(ROOT, "tests", "html"))
import cdp  # noqa: E402

V = sys.version_info[:2]

PROGRAM = '''
import functools


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


class Lazy:
    def __getattr__(self, name):
        return 2


if __import__("sys").version_info >= (3, 14):
    class Lazy(complex):
        y = complex.real


def logged(f):
    @functools.wraps(f)
    def wrapper(*a):
        return f(*a)
    return wrapper


@logged
def norm(p):
    return (p.x * p.x
            + p.y * p.y)


def work(n):
    pts = [Point(i, i + 1) for i in range(n)]
    lazy = Lazy()
    total = 0
    for p in pts:
        try:
            total += norm(p)
            total += lazy.y
            if total < 0:
                raise ValueError(total)
        except ValueError:
            total = 0
        finally:
            total -= 1
    return total, sum(x % 7 for x in range(n))
'''

CHILD = READING + '''
import json, sys
import pystats
ns = {"__name__": "viewed"}
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), ns)
pystats.on(mode=sys.argv[3])
ns["work"](300)
pystats.off()
codes = {}
def walk(co):
    codes[key(co)] = reading(co) if sys.version_info >= (3, 12) else {}
    for c in co.co_consts:
        if hasattr(c, "co_code"):
            walk(c)
import gc, types
for o in gc.get_objects():
    if isinstance(o, types.FunctionType) and o.__code__.co_filename == sys.argv[1]:
        walk(o.__code__)
with open(sys.argv[2], "w") as f:
    json.dump(codes, f)
'''

JS_PAGE = """(() => [...document.querySelectorAll('section.fn')].map(s => ({
    qual: s.dataset.qual, file: s.dataset.file, first: +s.dataset.first,
    instructions: +s.dataset.instructions, noLine: +s.dataset.noLine,
    rows: [...s.querySelectorAll('tr[data-count]')].map(r =>
        [r.dataset.line, +r.dataset.count]),
    sites: [...s.querySelectorAll('span.site')].map(x =>
        [+x.dataset.offset, x.dataset.family, x.dataset.state, x.dataset.detail]),
    shown: [...s.querySelectorAll('tr[data-line]')].filter(r => r.dataset.line != 'none')
        .map(r => { const c = r.querySelector('td.code').cloneNode(true);
                    c.querySelectorAll('.badge').forEach(x => x.remove());
                    return [+r.dataset.line, c.textContent]; }),
})))()"""


def reference_lines(path):
    ns = {"__name__": "viewed"}
    exec(compile(open(path).read(), path, "exec"), ns)
    ns["work"](300)         # warm, as the child's code was compiled and ran
    ref = Reference()
    ref.measure(ns["work"], 300)
    return ref.line_counts


@pytest.mark.skipif(cdp.find_chromium() is None, reason="no chromium")
@pytest.mark.skipif(not os.access(CLI, os.X_OK), reason="build/pystats not built")
@pytest.mark.parametrize("mode", ["count", "instructions"])
def test_page_reads_back_the_reference_counts_and_site_states(tmp_path, mode):
    prog = tmp_path / "viewed.py"
    prog.write_text(PROGRAM)
    out = tmp_path / "dumps"
    states = tmp_path / "states.json"
    run_python(CHILD, args=[str(prog), str(states), mode],
               env=clean_env(PYSTATS_DIR=str(out)))
    page = tmp_path / "view.html"
    r = subprocess.run([CLI, "annotate", str(out), "--html", str(page), "--top", "100"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    want_lines = reference_lines(str(prog))
    with open(states) as f:
        want_sites = json.load(f)
    with cdp.Browser(width=1400) as b:
        p = b.open("file://" + str(page))
        assert not p.errors, p.errors
        got = p.eval(JS_PAGE)
        if mode == "count" and V == (3, 12):
            p.screenshot(os.path.join(ROOT, "build", "annotate.png"))
        b.close_page(p)
    by_key = {"%s:%d:%s" % (s["file"], s["first"], s["qual"]): s for s in got}
    src = PROGRAM.splitlines()
    checked = sites_checked = 0
    for key, lines in want_lines.items():
        file, first, qual = key.split(":", 2)
        if file != str(prog):
            continue
        # The page names the file relative to the working directory or
        # as it is; the test's file is absolute, outside the cwd.
        [s] = [s for s in got if s["qual"] == qual and s["first"] == int(first)]
        rows = dict(s["rows"])
        want = {("none" if k is None else str(k)): v for k, v in lines.items() if k is not None}
        assert {k: v for k, v in rows.items() if k != "none"} == want, qual
        assert s["noLine"] == lines.get(None, 0), qual
        assert s["instructions"] == sum(lines.values()), qual
        for line, text in s["shown"]:
            if line >= 1:
                assert text == src[line - 1], (qual, line)
        checked += 1
        if V >= (3, 12) and mode == "count":
            exp = {int(off): row[:3] for off, row in want_sites[key].items()}
            shown = {off: [fam, st, det] for off, fam, st, det in s["sites"]}
            # A site with no position is not marked in the source.
            exp_placed = {off: r for off, r in exp.items()
                          if want_sites[key][str(off)][3] != "-"}
            assert shown == exp_placed, qual
            sites_checked += len(shown)
    assert checked >= 4          # work, its comprehensions, norm, the wrapper
    if V >= (3, 12) and mode == "count":
        assert sites_checked > 10
        states_seen = {st for s in got for _, _, st, _ in s["sites"]}
        assert {"specialized", "backing_off"} <= states_seen
    del by_key
