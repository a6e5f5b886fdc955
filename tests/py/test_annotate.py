"""pystats annotate end to end: a program run under the collector, its
source view read back from the page in headless Chromium, against
independent sources: each line's count against the pure-Python reference
collector (reference.py), each site's state against the adaptive bytecode
as Python itself reads it (test_sites.READING, in the child after the
window closed, so that nothing ran in between)."""
import json
import os
import re
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


def run_program(tmp_path, mode):
    """The program run under the collector in mode: (program, dump
    directory, the reference's per-line counts, Python's reading of the
    sites by code key)."""
    prog = tmp_path / "viewed.py"
    prog.write_text(PROGRAM)
    out = tmp_path / "dumps"
    states = tmp_path / "states.json"
    run_python(CHILD, args=[str(prog), str(states), mode],
               env=clean_env(PYSTATS_DIR=str(out)))
    with open(states) as f:
        return prog, out, reference_lines(str(prog)), json.load(f)


def check_section(s, lines, want_sites, mode, texts=True):
    """One function's section (JS_PAGE) against the reference's counts of
    its lines and Python's reading of its sites; the sites checked."""
    qual = s["qual"]
    src = PROGRAM.splitlines()
    rows = dict(s["rows"])
    want = {str(k): v for k, v in lines.items() if k is not None}
    assert {k: v for k, v in rows.items() if k != "none"} == want, qual
    assert s["noLine"] == lines.get(None, 0), qual
    assert s["instructions"] == sum(lines.values()), qual
    for line, text in s["shown"] if texts else ():
        if line >= 1:
            assert text == src[line - 1], (qual, line)
    if V < (3, 12) or mode != "count":
        return 0
    exp = {int(off): row[:3] for off, row in want_sites.items()}
    shown = {off: [fam, st, det] for off, fam, st, det in s["sites"]}
    # A site with no position is not marked in the source.
    exp_placed = {off: r for off, r in exp.items() if want_sites[str(off)][3] != "-"}
    assert shown == exp_placed, qual
    return len(shown)


def pystats(*args):
    r = subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr


def read_page(b, path, *scripts):
    """The value of each script on the page at path (loaded cleanly)."""
    p = b.open("file://" + str(path))
    assert not p.errors, p.errors
    got = [p.eval(js) for js in scripts]
    return p, got


def section_key(s):
    return "%s:%d:%s" % (s["file"], s["first"], s["qual"])


@pytest.mark.skipif(cdp.find_chromium() is None, reason="no chromium")
@pytest.mark.skipif(not os.access(CLI, os.X_OK), reason="build/pystats not built")
@pytest.mark.parametrize("mode", ["count", "instructions"])
def test_page_reads_back_the_reference_counts_and_site_states(tmp_path, mode):
    prog, out, want_lines, want_sites = run_program(tmp_path, mode)
    page = tmp_path / "view.html"
    # --read-files: texts the dumps hold no copy of (mode instructions,
    # 3.11) from the program itself, which the test wrote.
    pystats("annotate", out, "--html", page, "--top", "100", "--read-files")
    with cdp.Browser(width=1400) as b:
        p, [got] = read_page(b, page, JS_PAGE)
        if mode == "count" and V == (3, 12):
            p.screenshot(os.path.join(ROOT, "build", "annotate.png"))
        b.close_page(p)
    checked = sites_checked = 0
    for key, lines in want_lines.items():
        file, first, qual = key.split(":", 2)
        if file != str(prog):
            continue
        # The page names the file relative to the working directory or
        # as it is; the test's file is absolute, outside the cwd.
        [s] = [s for s in got if s["qual"] == qual and s["first"] == int(first)]
        sites_checked += check_section(s, lines, want_sites.get(key, {}), mode)
        checked += 1
    assert checked >= 4          # work, its comprehensions, norm, the wrapper
    if V >= (3, 12) and mode == "count":
        assert sites_checked > 10
        states_seen = {st for s in got for _, _, st, _ in s["sites"]}
        assert {"specialized", "backing_off"} <= states_seen


# The summary page: its "Source view" section (the functions in it), where
# its heading is and what the contents link to, and the style of what is
# in it against the style of the report around it.
JS_SUMMARY = """(() => {
  const view = document.querySelector('div.srcview');
  const h = view ? view.previousElementSibling.previousElementSibling : null;
  const style = (sel, prop) => { const e = document.querySelector(sel);
                                 return e ? getComputedStyle(e)[prop] : null; };
  return {
    inView: view ? view.querySelectorAll('section.fn').length : -1,
    outside: document.querySelectorAll('section.fn').length,
    heading: h ? [h.tagName, h.id, h.textContent] : null,
    toc: [...document.querySelectorAll('nav.toc a')].map(a => a.getAttribute('href')),
    ids: [...document.querySelectorAll('[id]')].map(e => e.id),
    cellBorder: style('div.srcview table.src td', 'borderTopWidth'),
    reportCellBorder: style('table.sortable td', 'borderTopWidth'),
    badgeRadius: style('div.srcview span.badge', 'borderTopLeftRadius'),
    badgeDisplay: style('div.srcview span.badge', 'display'),
    verdictRadius: style('p.verdict span.badge', 'borderTopLeftRadius'),
    rowBackgrounds: [...document.querySelectorAll('div.srcview table.src tr')]
        .map(r => getComputedStyle(r).backgroundColor),
    thSticky: style('table.sortable th', 'position'),
  };
})()"""


@pytest.mark.skipif(cdp.find_chromium() is None, reason="no chromium")
@pytest.mark.skipif(not os.access(CLI, os.X_OK), reason="build/pystats not built")
def test_summary_page_shows_the_hottest_functions_as_annotate_does(tmp_path):
    mode = "count"
    prog, out, want_lines, want_sites = run_program(tmp_path, mode)
    page, summary = tmp_path / "view.html", tmp_path / "summary.html"
    md, js = tmp_path / "summary.md", tmp_path / "summary.json"
    pystats("annotate", out, "--html", page, "--quiet")
    pystats("summarize", out, "--html", summary, "--markdown", md, "--json", js, "--quiet")
    with cdp.Browser(width=1400) as b:
        p, [annotated] = read_page(b, page, JS_PAGE)
        b.close_page(p)
        p, [got, view] = read_page(b, summary, JS_PAGE, JS_SUMMARY)
        if V == (3, 12):
            p.screenshot(os.path.join(ROOT, "build", "summary-source-view.png"))
        b.close_page(p)
    # The five functions that executed the most, by the reference's counts
    # (every function that ran is the program's: the window holds only
    # work(300)).
    totals = sorted((sum(v.values()) for k, v in want_lines.items()
                     if k.startswith(str(prog) + ":")), reverse=True)
    assert len(totals) > 5 if V < (3, 14) else len(totals) >= 5   # 3.14: no __getattr__
    assert [s["instructions"] for s in got] == totals[:5]
    assert view["inView"] == view["outside"] == 5
    # As annotate's page shows them: the same functions in the same order,
    # the same rows and sites; the same texts where the dumps hold a copy
    # of the source (3.12+, with the census), none otherwise: a report
    # never reads a file the dumps name.
    if V >= (3, 12):
        assert got == annotated[:5]
    else:
        assert [dict(s, shown=None) for s in got] == \
            [dict(s, shown=None) for s in annotated[:5]]
        assert all(t == "" for s in got for _, t in s["shown"])
    sites_checked = 0
    for s in got:
        key = section_key(s)
        sites_checked += check_section(s, want_lines[key], want_sites.get(key, {}), mode,
                                       texts=V >= (3, 12))
    if V >= (3, 12):
        assert sites_checked > 5
    # A section of the page, listed in its contents, its functions' ids
    # under its anchor and unique on the page.
    assert view["heading"] == ["H2", "source-view", "Source view"]
    assert "#source-view" in view["toc"]
    assert len(set(view["ids"])) == len(view["ids"])
    assert all(("source-view-fn-%d" % i) in view["ids"] for i in range(1, 6))
    # Neither style reaches the other: the report's cells have borders and
    # its verdict is a round badge, the source view's are not; no zebra
    # rows in the source.
    assert view["cellBorder"] == "0px" and view["reportCellBorder"] == "1px"
    assert view["verdictRadius"] == "12px"
    if V >= (3, 12):
        assert view["badgeRadius"] == "3px" and view["badgeDisplay"] == "inline-block"
    assert set(view["rowBackgrounds"]) == {"rgba(0, 0, 0, 0)"}
    assert view["thSticky"] == "sticky"
    # The page only: the Markdown report and the JSON summary say nothing
    # of it.
    text = md.read_text()
    assert "Source view" not in text and "annotate" not in text
    assert "Source view" not in js.read_text()


def cli_env():
    """The command's environment without a sanitizer's preloads (the
    suite's ASan run preloads libasan into every process, and ASan cannot
    reserve its shadow memory under a 1 GiB address-space limit; the
    command is not what that run checks)."""
    return {k: v for k, v in os.environ.items()
            if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")}


def limited_memory():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


@pytest.mark.skipif(not os.access(CLI, os.X_OK), reason="build/pystats not built")
def test_a_line_number_far_past_the_first_is_bounded_not_dropped(tmp_path):
    """A dump may name any line up to 999,999,999: a function's view holds
    its first 100,000 lines, and says how many instructions ran past
    them, on the summary's page, annotate's page and in the text, with
    1 GiB of memory."""
    fixture = os.path.join(ROOT, "tests", "golden", "annotate", "pystats-2-b.txt")
    text = open(fixture).read()
    far = "code[/nonexistent/app/app.py:4:f].line[5] : "
    count = int(text.split(far, 1)[1].split("\n", 1)[0])
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "dump.txt").write_text(text.replace(far, far.replace("[5]", "[999999999]")))
    pages = []
    for cmd in (["summarize", "--html"], ["annotate", "--html"]):
        page = tmp_path / (cmd[0] + ".html")
        r = subprocess.run([CLI, cmd[0], str(tmp_path / "d"), cmd[1], str(page)],
                           capture_output=True, text=True, timeout=60,
                           preexec_fn=limited_memory, env=cli_env())
        assert r.returncode == 0, r.stderr
        html = page.read_text()
        assert ('data-beyond="%d">%d instructions on lines past 100003,' % (count, count)) in html
        pages.append(html[html.index('<section class="fn"'):html.rindex("</section>")])
    # The same section but for its id and its heading's level.
    assert re.sub(r"(</?h)3>", r"\g<1>2>",
                  pages[0].replace('id="source-view-fn-', 'id="fn-')) == pages[1]
    r = subprocess.run([CLI, "annotate", str(tmp_path / "d")], capture_output=True, text=True,
                       timeout=60, preexec_fn=limited_memory, env=cli_env())
    assert r.returncode == 0, r.stderr
    assert "%d instructions on lines past 100003, the view's bound" % count in r.stdout


@pytest.mark.skipif(not os.access(CLI, os.X_OK), reason="build/pystats not built")
def test_a_source_file_that_is_a_fifo_is_not_waited_on(tmp_path):
    """The view reads a function's file where the dump names one: a FIFO
    (or a device) there is never opened for reading, and the dump's own
    copy of the lines is shown; summarize --html builds the view too."""
    fifo = tmp_path / "app.py"
    os.mkfifo(fifo)
    fixture = os.path.join(ROOT, "tests", "golden", "annotate", "pystats-2-b.txt")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "dump.txt").write_text(
        open(fixture).read().replace("/nonexistent/app/app.py", str(fifo)))
    for cmd in (["summarize", "--html", "-"], ["annotate", "--html", "-"], ["annotate"]):
        r = subprocess.run([CLI, cmd[0], str(tmp_path / "d")] + cmd[1:], capture_output=True,
                           text=True, timeout=20)
        assert r.returncode == 0, r.stderr
        assert "return x.y + 2" in re.sub(r"<[^>]*>", "", r.stdout), cmd


@pytest.mark.skipif(not os.access(CLI, os.X_OK), reason="build/pystats not built")
def test_summary_page_has_a_source_view_per_group(tmp_path):
    """Two groups (one program's dumps as 3.12 and as 3.13): a section
    per group under its heading, its functions' ids under the section's
    anchor, every id on the page once; nothing of it in the Markdown."""
    fixture = os.path.join(ROOT, "tests", "golden", "annotate", "pystats-2-b.txt")
    text = open(fixture).read()
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.txt").write_text(text)
    (tmp_path / "d" / "b.txt").write_text(
        text.replace("meta.python.version : 3.12.1", "meta.python.version : 3.13.0")
            .replace("meta.process.pid : 2", "meta.process.pid : 3"))
    page, md = tmp_path / "s.html", tmp_path / "s.md"
    pystats("summarize", tmp_path / "d", "--html", page, "--markdown", md, "--quiet")
    html = page.read_text()
    assert re.findall(r'<h3 id="(g\d-source-view)">Source view</h3>', html) == \
        ["g1-source-view", "g2-source-view"]
    assert re.findall(r'<section class="fn" id="([^"]*)"[^>]*><h4>1\. f ', html) == \
        ["g1-source-view-fn-1", "g2-source-view-fn-1"]
    assert re.findall(r'<a href="#(g\d-source-view)">', html) == \
        ["g1-source-view", "g2-source-view"]
    ids = re.findall(r' id="([^"]*)"', html)
    assert len(ids) == len(set(ids))
    assert "Source view" not in md.read_text()
