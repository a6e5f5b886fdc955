"""Columns and tables that hold nothing measured are left out of the
summary (Markdown and the page alike), with a line saying so; measured
zeros stay, and the JSON keeps its keys.  What was measured is read here
from the dumps' own lines."""
import glob
import json
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLI = os.path.join(ROOT, "build", "pystats")
GOLDEN = os.path.join(ROOT, "tests", "golden")
sys.path.insert(0, os.path.join(ROOT, "tests", "html"))
import cdp  # noqa: E402

pytestmark = pytest.mark.skipif(not os.access(CLI, os.X_OK), reason="build/pystats not built")

MISS_LINE = "**Left out: Miss ratio.**"
WATCH_LINE = "**Left out: the table.**"


def lines(d):
    """Every 'key : value' line of the dumps of d, split at the last ':'."""
    out = []
    for p in sorted(glob.glob(os.path.join(d, "*"))):
        with open(p, encoding="utf-8", errors="replace") as f:
            for line in f:
                k, _, v = line.rstrip("\n").rpartition(":")
                out.append((k.strip(), v.strip()))
    return out


def summarize(d, tmp):
    md, js, page = tmp / "s.md", tmp / "s.json", tmp / "s.html"
    r = subprocess.run([CLI, "summarize", d, "--quiet", "--markdown", md, "--json", js,
                        "--html", page], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return open(md).read(), json.load(open(js)), page


def section(md, title):
    """The text of the '## title' section."""
    assert "\n## %s\n" % title in md, title
    return md.split("\n## %s\n" % title, 1)[1].split("\n## ", 1)[0]


def header_of_first_table(text):
    m = re.search(r"^(\|.*\|)\n\|( *:?-+:? *\|)+ *$", text, re.M)
    return [c.strip() for c in m.group(1).strip("|").split("|")] if m else None


@pytest.mark.parametrize("name", ["own", "hotcode", "census-count", "sitefx"])
def test_miss_ratio_left_out_of_collector_dumps(tmp_path, name):
    d = os.path.join(GOLDEN, name)
    kv = lines(d)
    # The collector's dumps count base instructions and no miss.
    assert any(k == "pystats.counts" and v == "base-instructions" for k, v in kv)
    assert not any(k.endswith(".specialization.miss") for k, _ in kv)
    md, js, _ = summarize(d, tmp_path)
    sec = section(md, "Execution counts")
    assert header_of_first_table(sec) == ["Name", "Count", "Self", "Cumulative"]
    assert sec.count(MISS_LINE) == 1
    # Each execution count is still there, as the dumps say.
    want = {}
    for k, v in kv:
        m = re.fullmatch(r"opcode\[([^]]*)\]\.execution_count", k)
        if m:
            want[m.group(1)] = want.get(m.group(1), 0) + int(v)
    for op, n in want.items():
        if n:
            assert re.search(r"^\| %s \| %s \| " % (op, format(n, ",")), sec, re.M), op


@pytest.mark.parametrize("name", ["cpython-3.13.5-windowed", "cpython-3.14.7-whole"])
def test_miss_ratio_kept_for_cpython_counters(tmp_path, name):
    md, _, _ = summarize(os.path.join(GOLDEN, "native", name), tmp_path)
    sec = section(md, "Execution counts")
    assert header_of_first_table(sec)[-1] == "Miss ratio"
    assert MISS_LINE not in md


def rare(d):
    out = {}
    for k, v in lines(d):
        if k.startswith("rare."):
            out[k[5:]] = out.get(k[5:], 0) + int(v)
    return out


def test_watcher_table_left_out_when_nothing_was_watched(tmp_path):
    d = os.path.join(GOLDEN, "census-count")
    got = rare(d)
    assert got and got["watched_dicts"] == got["watched_types"] == 0
    assert any(k == "meta.collection.mode" and v == "count" for k, v in lines(d))
    md, js, _ = summarize(d, tmp_path)
    sec = section(md, "Rare events (watchers, partial)")
    assert header_of_first_table(sec) is None
    assert sec.count(WATCH_LINE) == 1
    # The JSON keeps every key.
    assert js["rare_watchers"] == got


def test_watcher_table_kept_when_watchers_ran(tmp_path):
    d = os.path.join(GOLDEN, "census")
    got = rare(d)
    assert got["watched_dicts"] > 0 and got["func_modification"] == 0  # a measured zero
    md, _, _ = summarize(d, tmp_path)
    sec = section(md, "Rare events (watchers, partial)")
    assert WATCH_LINE not in sec
    for k, n in got.items():
        assert re.search(r"^\| %s \| %s \|$" % (k, format(n, ",")), sec, re.M), k


JS_HEADS = """(() => {
  const h = id => { const e = document.getElementById(id); let t = e;
    while (t && t.tagName !== 'TABLE') { t = t.nextElementSibling;
      if (t && t.tagName === 'DIV' && t.querySelector('table')) t = t.querySelector('table'); }
    return t ? [...t.querySelectorAll('th')].map(x => x.textContent.trim()) : null; };
  const text = [...document.querySelectorAll('p')].map(p => p.textContent);
  return {exec: h('execution-counts'),
          missLine: text.filter(t => t.startsWith('Left out: Miss ratio.')).length,
          watchLine: text.filter(t => t.startsWith('Left out: the table.')).length};
})()"""


@pytest.mark.skipif(cdp.find_chromium() is None, reason="no chromium")
def test_the_page_leaves_out_the_same(tmp_path):
    _, _, page = summarize(os.path.join(GOLDEN, "census-count"), tmp_path)
    with cdp.Browser(width=1400) as b:
        p = b.open("file://" + str(page))
        got = p.eval(JS_HEADS)
        b.close_page(p)
    assert got["exec"] is not None and "Miss ratio" not in got["exec"], got
    assert got["exec"][:4] == ["Name", "Count", "Self", "Cumulative"], got
    assert got["missLine"] == 1 and got["watchLine"] == 1, got
