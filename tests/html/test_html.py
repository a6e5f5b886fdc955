#!/usr/bin/env python3
"""Render the HTML reports in a real (headless) Chromium and check them.

Usage: python3 tests/html/test_html.py [path/to/pystats] [output dir]

For each report: it loads without console errors or exceptions, its
script ran, it has every table of the Markdown report with the same
number of rows, the charts have the expected bars and cells with the
expected values (read back from the page and compared with the JSON
output of the same run), sorting works, and a screenshot is saved in the
output directory (default build/html).  A generated input with thousands
of rows checks that the pages stay fast.  Ends with the line
"html: N passed, N failed".
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import cdp  # noqa: E402

NAT = os.path.join(ROOT, "tests", "golden", "native")
OWN = os.path.join(ROOT, "tests", "golden", "own")

passed = 0
failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   " + name)
    else:
        failed += 1
        print("FAIL %s%s" % (name, ": " + detail if detail else ""))
    return ok


def pystats(*args, ok=(0,)):
    r = subprocess.run([PYSTATS] + list(args), capture_output=True, text=True)
    if r.returncode not in ok:
        raise RuntimeError("pystats %s: exit %d\n%s" % (" ".join(args), r.returncode, r.stderr))
    return r


def md_tables(md):
    """Row counts of each Markdown table, in order."""
    lines = md.split("\n")
    out = []
    i = 0
    while i < len(lines):
        if (lines[i].startswith("|") and i + 1 < len(lines)
                and re.match(r"^\|( *:?-+:? *\|)+ *$", lines[i + 1])):
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            out.append(j - i - 2)
            i = j
        else:
            i += 1
    return out


JS_TABLES = "Array.from(document.querySelectorAll('table.sortable')).map(t => t.tBodies[0].rows.length)"

JS_EXEC = """Array.from(document.querySelectorAll('svg[data-chart=exec]')).map(svg =>
  Array.from(svg.querySelectorAll('g.bar')).map(g => ({
    family: g.dataset.family, count: Number(g.dataset.count),
    text: g.querySelector('text.val').textContent,
    segs: Array.from(g.querySelectorAll('rect.seg')).map(r => ({
      name: r.dataset.name, count: Number(r.dataset.count),
      width: r.getBBox().width, title: r.querySelector('title').textContent}))})))"""

JS_PAIRS = """Array.from(document.querySelectorAll('svg[data-chart=pairs]')).map(svg => ({
  rows: Array.from(svg.querySelectorAll('text.row')).map(t => t.textContent),
  cells: Array.from(svg.querySelectorAll('rect.cell')).map(r => [r.dataset.from, r.dataset.to,
    Number(r.dataset.count), r.getAttribute('fill')])}))"""

JS_SPEC = """Array.from(document.querySelectorAll('svg[data-chart=spec]')).map(svg =>
  Array.from(svg.querySelectorAll('g.fam')).map(g => ({
    family: g.dataset.family,
    segs: Array.from(g.querySelectorAll('rect.seg')).map(r => ({kind: r.dataset.kind,
      count: Number(r.dataset.count), width: r.getBBox().width,
      title: r.querySelector('title').textContent}))})))"""

JS_DIV = """Array.from(document.querySelectorAll('svg[data-chart=diverging]')).map(svg => ({
  section: svg.dataset.section,
  bars: Array.from(svg.querySelectorAll('rect.div')).map(r => ({name: r.dataset.name,
    change: Number(r.dataset.change), width: r.getBBox().width, x: r.getBBox().x,
    fill: r.getAttribute('fill')}))}))"""


def js_sort(table_index, col_name):
    """Click a column header of the table_index-th sortable table that has
    such a column; return the column's texts and the header's aria-sort."""
    return """(() => {
  const t = Array.from(document.querySelectorAll('table.sortable')).filter(t =>
    Array.from(t.tHead.rows[0].cells).some(c => c.textContent.trim() === %s))[%d];
  const th = Array.from(t.tHead.rows[0].cells).find(c => c.textContent.trim() === %s);
  const t0 = performance.now();
  th.click();
  const ms = performance.now() - t0;
  const col = th.cellIndex;
  return {ms: ms, sort: th.getAttribute('aria-sort'),
          values: Array.from(t.tBodies[0].rows).map(r => r.cells[col].textContent.trim())};
})()""" % (json.dumps(col_name), table_index, json.dumps(col_name))


def num(t):
    t = t.replace(",", "").replace("%", "").replace(" pp", "")
    return float(t)


def families(summary):
    fam = {}
    for name, o in summary["opcodes"].items():
        n = o.get("execution_count", 0)
        if n:
            fam.setdefault(o.get("family", name), {})[name] = n
    return fam


JS_NAV = """(() => ({
  toc: Array.from(document.querySelectorAll('nav.toc a')).map(a => ({href: a.getAttribute('href'),
    text: a.textContent, target: (document.getElementById(a.getAttribute('href').slice(1)) || {}).tagName,
    targetText: (document.getElementById(a.getAttribute('href').slice(1)) || {}).textContent})),
  ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),
  details: Array.from(document.querySelectorAll('details')).map(d => ({open: d.open,
    after: d.previousElementSibling ? d.previousElementSibling.textContent : '',
    tables: d.querySelectorAll('table').length})),
  badge: Array.from(document.querySelectorAll('span.badge')).map(b => [b.className, b.textContent]),
  short: Array.from(document.querySelectorAll('span.short')).map(s => [s.title, s.textContent]),
  tocRight: (document.querySelector('nav.toc') || {getBoundingClientRect: () => ({right: 0})})
    .getBoundingClientRect().right,
  mainLeft: document.querySelector('main').getBoundingClientRect().left}))()"""


def md_text(t):
    """A Markdown heading's text as the page shows it: backslash escapes
    and code marks gone."""
    return re.sub(r"\\(.)", r"\1", t).replace("`", "").replace("**", "")


def check_navigation(page, name, md):
    """The table of contents lists the Markdown's h2 and h3 headings, each
    link reaching a heading of that text with a named anchor; long tables
    collapsed; the verdict a badge of its word; shortened cells keep the
    whole on hover; the contents do not cover the text (1400 px)."""
    nav = page.eval(JS_NAV)
    want, hidden = [], 0
    for l in md.split("\n"):
        m = re.match(r"^(#+) (.*)$", l)
        if not m:
            continue
        level = len(m.group(1))
        if hidden and level <= hidden:
            hidden = 0
        if hidden or level not in (2, 3):
            continue
        want.append(md_text(m.group(2)))
        if m.group(2) == "Predecessors and successors":
            hidden = level      # collapsed: its tables are not listed
    got = [a["text"] for a in nav["toc"]]
    check("%s: contents list the report's sections (%d)" % (name, len(want)), got == want,
          "page %s, markdown %s" % (got[:6], want[:6]))
    bad = [a for a in nav["toc"] if a["target"] not in ("H2", "H3") or a["targetText"] != a["text"]]
    check("%s: every contents link reaches its heading" % name, not bad, str(bad[:3]))
    check("%s: anchors are named, unique" % name,
          not any(re.match(r"^h\d+$", i) for i in nav["ids"]) and len(set(nav["ids"])) == len(nav["ids"]),
          str(nav["ids"][:8]))
    if "## Predecessors and successors" in md or "### Predecessors and successors" in md:
        d = [x for x in nav["details"] if x["after"].startswith("Predecessors and successors")]
        check("%s: predecessors and successors collapsed" % name,
              len(d) >= 1 and not any(x["open"] for x in d) and all(x["tables"] > 0 for x in d), str(d))
    m = re.search(r"^\| Verdict \| \*\*(\w+)\*\* \|$", md, re.M)
    if m:
        check("%s: the verdict a badge of its word" % name,
              ["badge " + m.group(1), m.group(1)] in nav["badge"], str(nav["badge"]))
    bad = [x for x in nav["short"] if not (
        (x[1].startswith("\u2026") and x[0].endswith(x[1][1:])) or
        (x[1].endswith("\u2026") and x[0].startswith(x[1][:-1])))]
    check("%s: shortened cells keep the whole on hover (%d)" % (name, len(nav["short"])),
          not bad, str(bad[:3]))
    legends = page.eval("Array.from(document.querySelectorAll('svg[data-chart=exec]')).map(svg => "
                        "[Array.from(svg.querySelectorAll('rect.seg title')).some(t => "
                        "t.textContent.includes('(specialized)')), "
                        "svg.nextElementSibling.textContent.includes('specialized forms')])")
    check("%s: the execution legend names specialized forms only where the chart has some" % name,
          all(drawn == named for drawn, named in legends), str(legends))
    scale = page.eval("Array.from(document.querySelectorAll('svg[data-chart=pairs]')).map(svg => "
                      "[Math.max(...Array.from(svg.querySelectorAll('rect.cell')).map(r => "
                      "Number(r.dataset.count))), svg.nextElementSibling.querySelector('.scale-max')"
                      ".textContent])")
    check("%s: the heatmap's scale ends at its largest cell" % name,
          all("{:,}".format(mx) == txt for mx, txt in scale), str(scale))
    right = page.eval("[Math.max(...Array.from(document.querySelectorAll('table')).map(t => "
                      "t.getBoundingClientRect().right)), document.documentElement.clientWidth]")
    check("%s: every table fits the window (%.0f <= %.0f px)" % (name, right[0], right[1]),
          right[0] <= right[1], str(right))
    check("%s: the contents do not cover the report" % name, nav["tocRight"] <= nav["mainLeft"] + 1,
          "%s > %s" % (nav["tocRight"], nav["mainLeft"]))


def check_common(page, name, md, shot):
    check("%s: loads without console errors" % name, not page.errors, "; ".join(page.errors)[:500])
    check("%s: its script ran" % name,
          page.eval("document.documentElement.getAttribute('data-ready')") == "1")
    check_navigation(page, name, md)
    want = md_tables(md)
    got = page.eval(JS_TABLES)
    check("%s: every Markdown table, same rows (%d tables)" % (name, len(want)), want == got,
          "markdown %s, page %s" % (want[:12], got[:12]))
    page.screenshot(shot)
    with open(shot, "rb") as f:
        head = f.read(8)
    check("%s: screenshot %s" % (name, os.path.relpath(shot, ROOT)),
          head == b"\x89PNG\r\n\x1a\n" and os.path.getsize(shot) > 10000)


def check_exec(name, bars, summary):
    fam = families(summary)
    total = summary["meta"]["total_execution_count"]
    order = sorted(fam, key=lambda f: (-sum(fam[f].values()), f))[:25]
    check("%s: execution chart has the %d most executed families, in order" % (name, len(order)),
          [b["family"] for b in bars] == order,
          "page %s, expected %s" % ([b["family"] for b in bars][:5], order[:5]))
    bad = []
    maxc = max(b["count"] for b in bars)
    for b in bars:
        want = fam.get(b["family"], {})
        if b["count"] != sum(want.values()):
            bad.append("%s total %d != %d" % (b["family"], b["count"], sum(want.values())))
        if {s["name"]: s["count"] for s in b["segs"]} != want:
            bad.append("%s segments differ" % b["family"])
        for s in b["segs"]:
            if abs(s["width"] - 600.0 * s["count"] / maxc) > 0.6:
                bad.append("%s width %.2f for %d" % (s["name"], s["width"], s["count"]))
            if "{:,}".format(s["count"]) not in s["title"]:
                bad.append("%s title %r" % (s["name"], s["title"]))
        if not b["text"].startswith("{:,}".format(b["count"])) or \
                "(%.1f%%)" % (100.0 * b["count"] / total) not in b["text"]:
            bad.append("%s label %r" % (b["family"], b["text"]))
    check("%s: every bar and stacked form has the summary's count and width" % name, not bad,
          "; ".join(bad[:5]))


def check_pairs(name, hm, summary):
    ops = sorted(((o.get("execution_count", 0), n) for n, o in summary["opcodes"].items()
                  if o.get("execution_count", 0)), key=lambda x: (-x[0], x[1]))
    top = [n for _, n in ops[:20]]
    check("%s: heatmap rows are the %d most executed instructions" % (name, len(top)),
          hm["rows"] == top, "%s" % hm["rows"][:5])
    check("%s: heatmap has %d x %d cells" % (name, len(top), len(top)),
          len(hm["cells"]) == len(top) ** 2)
    bad = [c for c in hm["cells"]
           if c[2] != summary["opcodes"][c[0]].get("pair_count", {}).get(c[1], 0)]
    check("%s: every heatmap cell has the pair count" % name, not bad, str(bad[:3]))
    nz = [c for c in hm["cells"] if c[2]]
    darkest = max(nz, key=lambda c: c[2]) if nz else None
    check("%s: the largest pair is the darkest cell" % name,
          darkest is not None and darkest[3] == "#08306b", str(darkest))


def check_spec(name, fams, summary):
    bad = []
    for f in fams:
        s = summary["opcodes"][f["family"]]["specialization"]
        segs = {x["kind"]: x for x in f["segs"]}
        for k in ("hit", "miss", "deferred"):
            if segs.get(k, {}).get("count", 0) != s.get(k, 0):
                bad.append("%s %s" % (f["family"], k))
        if s.get("success", 0) + s.get("failure", 0):
            if segs.get("success", {}).get("count") != s.get("success", 0):
                bad.append("%s success" % f["family"])
            kinds = {k[len("failure: "):]: x["count"] for k, x in segs.items()
                     if k.startswith("failure: ")}
            # The chart shows CPython's labels ("mutable class"), the JSON
            # the SPEC_FAIL_ names they come from ("ATTR_MUTABLE_CLASS"):
            # each label is the end of its name, with the same count.
            left = dict(kinds)
            for name, n in s.get("failure_kinds", {}).items():
                pretty = name.replace("_", " ").lower()
                match = [lab for lab, c in left.items()
                         if c == n and (pretty == lab or pretty.endswith(" " + lab))]
                if match:
                    del left[max(match, key=len)]
                else:
                    left[name] = None
            if left:
                bad.append("%s failure kinds %s != %s" % (f["family"], kinds, s.get("failure_kinds")))
            for k, x in segs.items():
                if k.startswith("failure: ") and k[len("failure: "):] not in x["title"]:
                    bad.append("%s: hover title %r" % (f["family"], x["title"]))
            w = sum(x["width"] for k, x in segs.items() if k == "success" or k.startswith("failure"))
            if abs(w - 480) > 1:
                bad.append("%s attempts bar width %.1f" % (f["family"], w))
    check("%s: specialization chart: %d families, hit/miss/deferred and failure kinds match"
          % (name, len(fams)), fams and not bad, "; ".join(bad[:5]))


def check_sorting(page, name, table, col, numeric=True):
    r = page.eval(js_sort(table, col))
    vals = [v for v in r["values"] if v and not v.startswith("\u2014")]
    key = [num(v) for v in vals] if numeric else vals
    ok1 = r["sort"] == ("descending" if numeric else "ascending") and \
        key == sorted(key, reverse=numeric)
    r2 = page.eval(js_sort(table, col))
    vals2 = [v for v in r2["values"] if v and not v.startswith("\u2014")]
    key2 = [num(v) for v in vals2] if numeric else vals2
    ok2 = r2["sort"] == ("ascending" if numeric else "descending") and \
        key2 == sorted(key2, reverse=not numeric)
    check("%s: sorting table %d by '%s' both ways" % (name, table, col), ok1 and ok2,
          "%s %s / %s %s" % (r["sort"], vals[:4], r2["sort"], vals2[:4]))
    return max(r["ms"], r2["ms"])


def div_value(sec, row):
    if sec["kind"] == "share":
        return None if row["change"] is None else row["change"] * 100
    if sec["normalized"]:
        # Per million instructions; an unchanged count has no bar.
        if row.get("base") is not None and row.get("base") == row.get("head"):
            return 0
        return row.get("change_pm")
    return row["change"]


def check_diverging(name, charts, comp):
    bad = []
    for ch in charts:
        sec = comp["sections"][ch["section"]]
        rows = [r for r in sec["rows"] if not r["folded"]]
        want = []
        for r in rows:
            v = div_value(sec, r)
            if v is not None and v != 0:
                want.append((r["name"], v))
            if len(want) == 20:
                break
        got = [(b["name"], b["change"]) for b in ch["bars"]]
        if [w[0] for w in want] != [g[0] for g in got]:
            bad.append("%s: bars %s != %s" % (ch["section"], [g[0] for g in got][:4],
                                             [w[0] for w in want][:4]))
            continue
        mx = max(abs(w[1]) for w in want)
        for (n, v), b in zip(want, ch["bars"]):
            if abs(b["change"] - v) > 1e-4 * max(1, abs(v)):
                bad.append("%s %s: %g != %g" % (ch["section"], n, b["change"], v))
            if abs(b["width"] - 300 * abs(v) / mx) > 0.6:
                bad.append("%s %s: width %.2f" % (ch["section"], n, b["width"]))
            if (b["fill"] == "#e15759") != (v < 0):
                bad.append("%s %s: colour %s for %g" % (ch["section"], n, b["fill"], v))
    check("%s: %d diverging charts: the largest changes, values, widths, colours"
          % (name, len(charts)), charts and not bad, "; ".join(bad[:5]))


def write_big(d, seed, nops=400, succ=10, other=3000):
    """One own-format dump with thousands of counters."""
    rnd = random.Random(seed)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "big.txt"), "w") as f:
        f.write("pystats.format : 1\npystats.collector : pystats 0.1.0\n"
                "pystats.counts : base-instructions\nmeta.python.version : 3.13.0\n")
        for i in range(nops):
            f.write("opcode[OP_%03d].execution_count : %d\n" % (i, rnd.randint(1, 10 ** 6)))
            for j in rnd.sample(range(nops), succ):
                f.write("opcode[OP_%03d].pair_count[OP_%03d] : %d\n" % (i, j, rnd.randint(1, 10 ** 5)))
        for k in range(other):
            f.write("opcode[OP_%03d].hot_code[f:%d] : %d\n" % (k % nops, k, rnd.randint(1, 999)))


def main():
    global PYSTATS
    PYSTATS = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "pystats"))
    out = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "build", "html"))
    os.makedirs(out, exist_ok=True)
    if cdp.find_chromium() is None:
        check("chromium installed (Debian package 'chromium', or set CHROMIUM)", False)
        return
    tmp = tempfile.mkdtemp(prefix="pystats-html.")

    def summarize(tag, *inputs, extra=()):
        html, js, md = (os.path.join(out, tag + ext) for ext in (".html", ".json", ".md"))
        pystats("summarize", *inputs, "--html", html, "--json", js, "--markdown", md, *extra)
        return html, json.load(open(js)), open(md).read()

    def compare(tag, base, head, extra=()):
        html, js, md = (os.path.join(out, tag + ext) for ext in (".html", ".json", ".md"))
        pystats("compare", base, head, "--html", html, "--json", js, "--markdown", md, "--quiet",
                *extra)
        return html, json.load(open(js)), open(md).read()

    with cdp.Browser(width=1400) as b:
        # ---- summarize: one native group ---------------------------------
        html, summ, md = summarize("summary-3.13", os.path.join(NAT, "cpython-3.13.5-whole"))
        page = b.open("file://" + html)
        name = "summary 3.13"
        check_common(page, name, md, os.path.join(out, "summary-3.13.png"))
        execs = page.eval(JS_EXEC)
        check("%s: one execution chart" % name, len(execs) == 1)
        check_exec(name, execs[0], summ)
        pairs = page.eval(JS_PAIRS)
        check("%s: one heatmap" % name, len(pairs) == 1)
        check_pairs(name, pairs[0], summ)
        spec = page.eval(JS_SPEC)
        check("%s: one specialization chart" % name, len(spec) == 1)
        check_spec(name, spec[0], summ)
        check_sorting(page, name, 0, "Count")
        check_sorting(page, name, 0, "Name", numeric=False)
        b.close_page(page)

        # ---- summarize: two groups (3.11 and 3.13) -------------------------
        html, summ, md = summarize("summary-mixed", os.path.join(NAT, "cpython-3.11.2-whole"),
                                   os.path.join(NAT, "cpython-3.13.5-whole"))
        page = b.open("file://" + html)
        name = "summary 3.11 + 3.13"
        check_common(page, name, md, os.path.join(out, "summary-mixed.png"))
        execs = page.eval(JS_EXEC)
        check("%s: one execution chart per group" % name, len(execs) == len(summ["groups"]) == 2)
        for g, bars in zip(summ["groups"], execs):
            check_exec("%s, group %s" % (name, g["meta"]["python_version"]), bars, g)
        for g, fams in zip(summ["groups"], page.eval(JS_SPEC)):
            check_spec("%s, group %s" % (name, g["meta"]["python_version"]), fams, g)
        b.close_page(page)

        # ---- summarize: this project's dumps (base instructions) -----------
        html, summ, md = summarize("summary-own", OWN)
        page = b.open("file://" + html)
        name = "summary own"
        check_common(page, name, md, os.path.join(out, "summary-own.png"))
        execs = page.eval(JS_EXEC)
        check_exec(name, execs[0], summ)
        check("%s: no specialization chart without specialization data" % name,
              page.eval(JS_SPEC) == [])
        b.close_page(page)

        # ---- compare: whole program against a window ------------------------
        html, comp, md = compare("compare-whole-windowed", os.path.join(NAT, "cpython-3.13.5-whole"),
                                 os.path.join(NAT, "cpython-3.13.5-windowed"))
        page = b.open("file://" + html)
        name = "compare whole/windowed"
        check_common(page, name, md, os.path.join(out, "compare-whole-windowed.png"))
        charts = page.eval(JS_DIV)
        check_diverging(name, charts, comp)
        check("%s: a diverging chart for families and for specialization" % name,
              {"family", "specialization"} <= {c["section"] for c in charts},
              str([c["section"] for c in charts]))
        check_sorting(page, name, 2, "Share of change")
        b.close_page(page)

        # ---- compare: 3.11 against 3.13 -------------------------------------
        html, comp, md = compare("compare-3.11-3.13", os.path.join(NAT, "cpython-3.11.2-whole"),
                                 os.path.join(NAT, "cpython-3.13.5-whole"))
        page = b.open("file://" + html)
        name = "compare 3.11/3.13"
        check_common(page, name, md, os.path.join(out, "compare-3.11-3.13.png"))
        check_diverging(name, page.eval(JS_DIV), comp)
        check("%s: the header warns about the versions" % name,
              "different Python versions" in page.eval("document.body.textContent"))
        b.close_page(page)

        # ---- thousands of rows stay fast ----------------------------------------
        write_big(os.path.join(tmp, "big1"), 1)
        write_big(os.path.join(tmp, "big2"), 2)
        html, summ, md = summarize("summary-big", os.path.join(tmp, "big1"),
                                   extra=("--top-pairs", "5000"))
        page = b.open("file://" + html)
        name = "summary, thousands of rows"
        check_common(page, name, md, os.path.join(out, "summary-big.png"))
        rows = page.eval(JS_TABLES)
        check("%s: the pair table has 4,000 rows" % name, 4000 in rows, str(sorted(rows)[-3:]))
        # Guards against a page that hangs, not speed targets (a shared
        # machine's load moves these by several times).
        check("%s: loads, under 60 s (%.2f s)" % (name, page.load_seconds), page.load_seconds < 60)
        big = rows.index(max(rows))
        col = page.eval("document.querySelectorAll('table.sortable')[%d].tHead.rows[0].cells[1]"
                        ".textContent" % big)
        ms = check_sorting(page, name, big, col)
        check("%s: sorting %d rows ends, under 30 s (%.0f ms)" % (name, max(rows), ms), ms < 30000)
        b.close_page(page)

        html, comp, md = compare("compare-big", os.path.join(tmp, "big1"), os.path.join(tmp, "big2"),
                                 extra=("--top", "100000", "--min-change", "0"))
        page = b.open("file://" + html)
        name = "compare, thousands of rows"
        check_common(page, name, md, os.path.join(out, "compare-big.png"))
        rows = page.eval(JS_TABLES)
        # Guards against a page that hangs, not speed targets (a shared
        # machine's load moves these by several times).
        check("%s: loads, under 60 s (%.2f s)" % (name, page.load_seconds), page.load_seconds < 60)
        big = rows.index(max(rows))
        ms = check_sorting(page, name, big, "Change")
        check("%s: sorting %d rows ends, under 30 s (%.0f ms)" % (name, max(rows), ms), ms < 30000)
        check_diverging(name, page.eval(JS_DIV), comp)
        b.close_page(page)


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # a crash is a failure, never a silent pass
        import traceback
        traceback.print_exc()
        check("the test ran to the end", False, repr(e))
    print("html: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
