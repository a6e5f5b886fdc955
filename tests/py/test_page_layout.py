"""The compare page and the source view as a reader sees them, in
headless Chromium at a 1400 px wide window: compare's header table keeps
both sides in the window whatever a build's configure arguments, its
headline comes first; every source-view line that ran has a visible bar,
and every site badge stays in the window, whatever the length of a line.
The lines expected come from the dumps' own rows, the long value from
the test's own input."""
import glob
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import clean_env

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLI = os.path.join(ROOT, "build", "pystats")
OWN = os.path.join(ROOT, "tests", "golden", "own")
sys.path.insert(0, os.path.join(ROOT, "tests", "html"))
import cdp  # noqa: E402

V = sys.version_info[:2]
WIDTH = 1400

pytestmark = [
    pytest.mark.skipif(cdp.find_chromium() is None, reason="no chromium"),
    pytest.mark.skipif(not os.access(CLI, os.X_OK), reason="build/pystats not built"),
]

# Configure arguments of a build as long as real ones get, without a
# space for 150 bytes (a path), so no line break can hide them.
LONG_ARGS = ("'--prefix=/opt/" + "very-long-directory-name/" * 6 + "python' "
             "'--enable-optimizations' '--with-lto' 'CFLAGS=-O3 -march=native "
             "-fno-semantic-interposition' 'LDFLAGS=-Wl,-rpath,/opt/lib -Wl,--as-needed' "
             "'--with-system-expat' '--enable-loadable-sqlite-extensions'")


def pystats(*args):
    r = subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r


def shot(page, name):
    """A screenshot of the page for a reader, outside the tests' asserts."""
    out = os.path.join(ROOT, "build", "html")
    os.makedirs(out, exist_ok=True)
    page.screenshot(os.path.join(out, name))


JS_HEADER = """(() => {
  const t = document.querySelector('main table');
  const w = document.documentElement.clientWidth;
  const head = Array.from(t.tHead.rows[0].cells);
  const rows = Array.from(t.tBodies[0].rows);
  const lines = c => { const r = document.createRange(); r.selectNodeContents(c);
    return new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top))).size; };
  return {
    width: w,
    head: head.map(c => [c.textContent.trim(), c.getBoundingClientRect().right]),
    cells: rows.map(r => Array.from(r.cells).map(c => c.getBoundingClientRect().right)),
    labels: rows.map(r => [r.cells[0].textContent, lines(r.cells[0])]),
    titles: Array.from(t.querySelectorAll('span.short')).map(s => [s.title, s.textContent]),
    firstH2: document.querySelector('main h2').textContent,
    headlineBeforeTable: !!(document.querySelector('main h2').compareDocumentPosition(t)
                            & Node.DOCUMENT_POSITION_FOLLOWING),
  };
})()"""


def test_compare_header_keeps_both_sides_in_the_window(tmp_path):
    base, head = tmp_path / "base", tmp_path / "head"
    shutil.copytree(OWN, base)
    shutil.copytree(OWN, head)
    changed = 0
    for f in glob.glob(str(head / "*")):
        text = open(f, encoding="utf-8").read()
        text, n = re.subn(r"(?m)^meta\.python\.config_args : .*$",
                          "meta.python.config_args : " + LONG_ARGS.replace("\\", "\\\\"), text)
        assert n <= 1
        changed += n
        open(f, "w", encoding="utf-8").write(text)
    assert changed == 1
    page, md = tmp_path / "c.html", tmp_path / "c.md"
    pystats("compare", base, head, "--html", page, "--markdown", md, "--quiet")
    # The Markdown keeps the whole value.
    assert LONG_ARGS in md.read_text()
    with cdp.Browser(width=WIDTH) as b:
        p = b.open("file://" + str(page))
        assert not p.errors, p.errors
        got = p.eval(JS_HEADER)
        shot(p, "compare-long-build.png")
        b.close_page(p)
    w = got["width"]
    assert [h[0] for h in got["head"]] == ["", "Base", "Head"]
    assert got["head"][2][1] <= w, got["head"]
    bad = [(i, k, x) for i, r in enumerate(got["cells"]) for k, x in enumerate(r) if x > w]
    assert not bad, (w, bad)
    # Each label on one line, none broken inside a word.
    assert [l for l in got["labels"] if l[1] != 1] == []
    # The long value is shortened where it stands, whole on hover.
    whole = [t for t in got["titles"] if t[0] == LONG_ARGS]
    assert len(whole) == 1, got["titles"]
    assert whole[0][1].endswith("\u2026") and LONG_ARGS.startswith(whole[0][1][:-1])
    # The headline first, before the header table.
    assert got["firstH2"] == "Headline" and got["headlineBeforeTable"]
    heads = [l for l in md.read_text().split("\n") if l.startswith("## ")]
    assert heads[0] == "## Headline"
    assert md.read_text().index("## Headline") < md.read_text().index("\n|")


# A function whose source is one long line, its sites specialized and
# failing (an attribute of four kinds of object), and a short one.
PROGRAM = '''
class A:
    a = 1
class B:
    def __init__(self): self.a = 2
class C:
    __slots__ = ("a",)
    def __init__(self): self.a = 3
class D(dict):
    a = 4
objs = [A(), B(), C(), D()] * 50
def oneline(xs): return sum(x.a + len(str(type(x).__name__)) * 2 + (x.a if isinstance(x, (A, B)) else -x.a) + max(x.a, 1) + min(x.a, 3) + abs(x.a - 2) + int(x.a > 1) + hash(type(x).__name__) % 7 + len([y for y in range(x.a)]) for x in xs)
def poly(xs):
    t = 0
    for x in xs:
        t += x.a + x.a * 2 + x.a * 3  # the same site sees four kinds of object
    return t
for _ in range(300):
    oneline(objs)
    poly(objs)
'''

JS_VIEW = """(() => {
  const w = document.documentElement.clientWidth;
  return {
    width: w,
    rows: Array.from(document.querySelectorAll('section.fn')).map(s =>
      Array.from(s.querySelectorAll('tr[data-count]')).filter(tr => tr.dataset.line !== 'none')
        .map(tr => { const bar = tr.querySelector('td.bar span');
          return [s.dataset.qual, Number(tr.dataset.line), Number(tr.dataset.count),
                  bar ? bar.getBoundingClientRect().width : 0, s.dataset.file]; })).flat(),
    badges: Array.from(document.querySelectorAll('section.fn span.badge')).map(b =>
      [b.textContent, b.getBoundingClientRect().right]),
    longest: Math.max(...Array.from(document.querySelectorAll('section.fn td.code'))
      .map(c => c.textContent.length)),
  };
})()"""


def dump_lines(out, file):
    """(qualname, line) -> count of file's code objects, from the dumps' rows."""
    got = {}
    for f in glob.glob(os.path.join(out, "*")):
        for line in open(f, encoding="utf-8", errors="replace"):
            m = re.match(r"^code\[(.*):(\d+):([^:]*)\]\.line\[(\d+)\] : (\d+)$", line.strip())
            if m and m.group(1) == file:
                key = (m.group(3), int(m.group(4)))
                got[key] = got.get(key, 0) + int(m.group(5))
    return got


@pytest.mark.parametrize("cmd", ["annotate", "summarize"])
def test_source_view_bars_and_badges_at_1400px(tmp_path, cmd):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    out = tmp_path / "dumps"
    subprocess.run([sys.executable, str(prog)], cwd=tmp_path, check=True, timeout=300,
                   env=clean_env(PYTHONSTATS="count", PYSTATS_DIR=str(out)))
    page = tmp_path / "p.html"
    if cmd == "annotate":
        # The files as they are now, where the dumps hold no copy (3.11's
        # collector writes none): these dumps are the test's own.
        pystats("annotate", out, "--html", page, "--top", "5", "--quiet", "--read-files")
    else:
        pystats("summarize", out, "--html", page, "--quiet")
    with cdp.Browser(width=WIDTH) as b:
        p = b.open("file://" + str(page))
        assert not p.errors, p.errors
        got = p.eval(JS_VIEW)
        if V >= (3, 12):
            shot(p, "source-view-%s.png" % cmd)
        b.close_page(p)
    want = dump_lines(out, str(prog))
    got["rows"] = [r[:4] for r in got["rows"] if r[4].endswith("prog.py")]
    # The 238-character line is shown (the summary's page shows the
    # dumps' own copies only, which 3.11's collector does not write).
    if cmd == "annotate" or V >= (3, 12):
        assert got["longest"] >= 238
    shown = {(r[0], r[1]) for r in got["rows"]}
    assert ("oneline.<locals>.<genexpr>", 12) in shown
    # Every line that ran (by the dumps' rows) has a bar of some width.
    ran = [r for r in got["rows"] if want.get((r[0], r[1]), 0) > 0]
    assert len(ran) >= 6
    assert [r for r in ran if r[2] != want[(r[0], r[1])]] == []
    assert [r for r in ran if not r[3] >= 1] == []
    if V >= (3, 12):
        assert len(got["badges"]) > 20
        assert any("\u00d7" in t for t, _ in got["badges"])     # a failing site
    assert [b for b in got["badges"] if b[1] > got["width"]] == []


def test_compare_of_two_versions_keeps_every_table_in_the_window(tmp_path):
    """Hot code has the widest tables (13 columns): across 3.12 and 3.13
    (tests/golden/moves), with moved rows' long names, they fit too."""
    moves = os.path.join(ROOT, "tests", "golden", "moves")
    page = tmp_path / "c.html"
    pystats("compare", os.path.join(moves, "3.12"), os.path.join(moves, "3.13"), "--html", page,
            "--quiet")
    with cdp.Browser(width=WIDTH) as b:
        p = b.open("file://" + str(page))
        assert not p.errors, p.errors
        got = p.eval("[document.documentElement.clientWidth, Array.from("
                     "document.querySelectorAll('table')).map(t => [t.rows[0].cells.length, "
                     "t.getBoundingClientRect().right])]")
        b.close_page(p)
    w, tables = got
    assert any(n == 13 for n, _ in tables)
    assert [t for t in tables if t[1] > w] == []
