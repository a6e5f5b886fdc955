"""Sites of one family on one line are told apart in "Where to look" and
in the failing-sites table: by their column and the source they span,
or by their offset where the dumps give them one position.  Expected
values come from the dumps' own site rows."""
import json
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLI = os.path.join(ROOT, "build", "pystats")
SITEFX = os.path.join(ROOT, "tests", "golden", "sitefx")

pytestmark = pytest.mark.skipif(not os.access(CLI, os.X_OK), reason="build/pystats not built")

ROW = re.compile(r"^code\[[^]]*\]\.site\[(\d+)\] : (\w+) \| (\w+) \| (\w*) \| (\d+) \| (\d+) \| "
                 r"(\d+) \| (\d+)$")
EXE = re.compile(r"^code\[[^]]*\]\.site_executions\[(\d+)\] : (\d+)$")
LINE = "    return obj.alpha + obj.beta + obj.gamma + obj.delta + obj.epsilon"


def ranked(paths):
    """{offset: (executions, col, end_col)} of the LOAD_ATTR sites backing
    off or never tried, from the dumps' rows (summed executions)."""
    rows, n = {}, {}
    for p in paths:
        for line in open(p, encoding="utf-8"):
            m = ROW.match(line.rstrip("\n"))
            if m and m.group(2) == "LOAD_ATTR":
                rows[int(m.group(1))] = (m.group(3), int(m.group(6)), int(m.group(8)))
            m = EXE.match(line.rstrip("\n"))
            if m:
                n[int(m.group(1))] = n.get(int(m.group(1)), 0) + int(m.group(2))
    return {off: (n.get(off, 0), col, end) for off, (state, col, end) in rows.items()
            if state in ("backing_off", "never_tried") and n.get(off, 0)}


def report(*inputs):
    r = subprocess.run([CLI, "summarize", *inputs, "--quiet"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def table_where(md):
    """(executions, Where) of each LOAD_ATTR row of the failing sites."""
    sec = md.split("\n## Sites that fail to specialize\n", 1)[1].split("\n## ", 1)[0]
    out = []
    for line in sec.split("\n"):
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        if line.startswith("| LOAD_ATTR |"):
            out.append((int(cells[1].replace(",", "")), cells[5]))
    return out


def overview_where(md):
    return re.findall(r"^- Fails to specialize: LOAD_ATTR at (.*) in `f`: ([\d,]+) executions",
                      md, re.M)


def test_one_position_told_apart_by_offset():
    paths = sorted(os.path.join(SITEFX, f) for f in os.listdir(SITEFX))
    want = ranked(paths)
    # The fixture gives every site the one position: only offsets differ.
    assert len(want) >= 3 and len({(c, e) for _, c, e in want.values()}) == 1
    md = report(SITEFX)
    rows = table_where(md)
    assert sorted(rows) == sorted((n, "app.py:5, offset %d" % off) for off, (n, _, _) in
                                  want.items())
    items = overview_where(md)
    assert items and len({w for w, _ in items}) == len(items)
    for w, n in items:
        off = int(w.rsplit("offset ", 1)[1])
        assert want[off][0] == int(n.replace(",", ""))


def test_columns_and_source_tell_sites_apart(tmp_path):
    """The first fixture with a column and a source line of its own."""
    text = open(os.path.join(SITEFX, "pystats-1-a.txt"), encoding="utf-8").read()
    words = iter(["obj.alpha", "obj.beta", "obj.gamma", "obj.delta", "obj.epsilon"])

    def place(m):
        w = next(words)
        c = LINE.index(w)
        return "%s | 5 | %d | 5 | %d" % (m.group(1), c, c + len(w))
    text = re.sub(r"^(code\[[^]]*\]\.site\[\d+\] : LOAD_ATTR \| (?:backing_off|never_tried) "
                  r"\| \w*) \| 5 \| 8 \| 5 \| 14$", place, text, flags=re.M)
    # A leading blank is written %20 (the format trims around ' : ').
    text += "source[/nonexistent/app/app.py].line[5] : %20" + LINE[1:] + "\n"
    dump = tmp_path / "a.txt"
    dump.write_text(text, encoding="utf-8")
    want = ranked([dump])
    assert len(want) == 5 and len({c for _, c, _ in want.values()}) == 5
    md = report(dump)
    expect = sorted((n, "app.py:5, column %d `%s`" % (c, LINE[c:e])) for n, c, e in want.values())
    assert sorted(table_where(md)) == expect
    items = overview_where(md)
    assert items
    for w, n in items:
        assert (int(n.replace(",", "")), w) in expect


def test_a_site_alone_on_its_line_reads_as_before():
    """Other families' sites on the line, or one site of the family: no
    column or offset added (the native fixtures have no site rows; the
    census golden's sites are one per line)."""
    md = report(os.path.join(ROOT, "tests", "golden", "census-count"))
    sec = md.split("\n## Sites that fail to specialize\n", 1)[1].split("\n## ", 1)[0]
    assert "offset" not in sec and ", column" not in sec


@pytest.mark.skipif(sys.version_info < (3, 12),
                    reason="ranked sites come with mode count's census, 3.12+")
def test_run_headline_tells_apart_sites_on_one_line(tmp_path):
    """`pystats run`'s headline names its failing site as the report does:
    the example's line 69 holds two BINARY_OP sites (3.12, 3.13), and the headline's
    column and span are the site's own, as CPython's co_positions() of
    the example's code gives them at the offset the summary names."""
    example = os.path.join(ROOT, "examples", "mixed.py")
    out = str(tmp_path / "run")
    r = subprocess.run([CLI, "run", "-o", out, "--", sys.executable, example],
                       capture_output=True, text=True, timeout=300,
                       env={k: v for k, v in os.environ.items()
                            if not k.startswith("PYSTATS")})
    assert r.returncode == 0, r.stderr
    with open(os.path.join(out, "report", "summary.json")) as f:
        fs = json.load(f)["census"]["failing_sites"]
    top = fs[0]
    twins = [s for s in fs if s is not top and s["code"] == top["code"] and
             s["line"] == top["line"] and s["family"] == top["family"]]
    line = [x for x in r.stderr.splitlines() if "fails to specialize:" in x][0]
    if not twins:
        # 3.14 specializes one of line 69's two BINARY_OPs: alone on its
        # line, the site reads as before.
        assert sys.version_info >= (3, 14), fs[:4]
        assert (":%s in " % top["line"]) in line and ", column" not in line, line
        return
    code = compile(open(example).read(), example, "exec")
    fn = [c for c in code.co_consts if hasattr(c, "co_name") and
          c.co_name == top["code_function"]][0]
    pos = {off * 2: p for off, p in enumerate(fn.co_positions())}[top["offset"]]
    _, _, col, end = pos
    text = open(example).read().splitlines()[int(top["line"]) - 1]
    assert (":%s, column %d `%s` in " % (top["line"], col, text[col:end])) in line, (
        line, pos)


@pytest.mark.skipif(sys.version_info < (3, 12),
                    reason="site states come with mode count's census, 3.12+")
def test_annotate_tells_apart_sites_that_read_alike(tmp_path):
    """`pystats annotate`'s text lists a line's sites by state; two of one
    family in one state (the example's `"w%d" % (i % 97)`) are each
    followed by the source they span, which is the span CPython's
    co_positions() gives an instruction of that family on that line."""
    import dis
    example = os.path.join(ROOT, "examples", "mixed.py")
    out = str(tmp_path / "run")
    r = subprocess.run([CLI, "run", "-o", out, "--quiet", "--", sys.executable, example],
                       capture_output=True, text=True, timeout=300,
                       env={k: v for k, v in os.environ.items()
                            if not k.startswith("PYSTATS")})
    assert r.returncode == 0, r.stderr
    text = subprocess.run([CLI, "annotate", out, "--top", "20"], capture_output=True,
                          text=True, check=True).stdout.split("\n")
    src = open(example).read()
    lines = src.splitlines()
    spans = {}      # (line, family) -> spans of that family's instructions on it
    todo = [compile(src, example, "exec")]
    while todo:
        co = todo.pop()
        todo += [c for c in co.co_consts if hasattr(c, "co_code")]
        for ins in dis.get_instructions(co):
            p = ins.positions
            if p and p.lineno and p.lineno == p.end_lineno and p.col_offset is not None:
                spans.setdefault((p.lineno, ins.opname), set()).add(
                    lines[p.lineno - 1][p.col_offset:p.end_col_offset])
    seen = 0
    for i, row in enumerate(text):
        m = re.match(r"^ +[\d,]* +(\d+) ", row)
        if not m or i + 1 >= len(text):
            continue
        for fam, span in re.findall(r"(\w+) \(\d+ attempts\) `([^`]*)`", text[i + 1]):
            assert span in spans.get((int(m.group(1)), fam), ()), (row, text[i + 1])
            seen += 1
    assert seen >= 2, "\n".join(text)
