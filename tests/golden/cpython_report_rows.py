"""Rows of a report CPython's Tools/scripts/summarize_stats.py wrote (the
.md of a published summary, its tables in HTML), in the form
published_compare.py reads: SECTION|KEY...|VALUES, as the report prints
them.  Only CPython's report is read: the figures are CPython's own.

Usage: python3 cpython_report_rows.py REPORT.md > EXPECTED
"""

import html
import re
import sys

CELL = re.compile(r"<t([dh])[^>]*>(.*?)</t[dh]>", re.S)
DETAILS = re.compile(r"<details>.*?</details>", re.S)
TAG = re.compile(r"<[^>]+>")


def text(cell):
    return html.unescape(TAG.sub("", DETAILS.sub("", cell))).strip()


def tables(md):
    """(section, subsection, header, rows) of every table, in order."""
    sec = sub = None
    out = []
    pos = 0
    heading = re.compile(r"^(#{2,3}) (.*)$", re.M)
    table = re.compile(r"<table>(.*?)</table>", re.S)
    events = [(m.start(), "h", m) for m in heading.finditer(md)]
    events += [(m.start(), "t", m) for m in table.finditer(md)]
    for _, kind, m in sorted(events, key=lambda e: e[0]):
        if kind == "h":
            if m.group(1) == "##":
                sec, sub = m.group(2).strip(), None
            else:
                sub = m.group(2).strip()
            continue
        body = m.group(1)
        head = [text(c) for t, c in CELL.findall(body.split("</thead>")[0]) if t == "h"]
        rows = []
        for tr in re.findall(r"<tr>(.*?)</tr>", body.split("</thead>")[-1], re.S):
            rows.append([text(c) for _, c in CELL.findall(tr)])
        out.append((sec, sub, head, rows))
    return out


def main():
    md = open(sys.argv[1], encoding="utf-8").read()
    print(f"# Figures of CPython's own report {sys.argv[1].rsplit('/', 1)[-1]},")
    print("# read by cpython_report_rows.py: SECTION|KEY...|VALUES.")
    for sec, sub, head, rows in tables(md):
        first = head[0] if head else ""
        for r in rows:
            if sec == "Execution counts":
                kind, key = "exec", r
            elif sec == "Pair counts":
                kind, key = "pair", r
            elif sec == "Predecessor/Successor Pairs":
                kind = "pred" if first.startswith("Predecessor") else "succ"
                key = [sub] + r
            elif sec == "Specialization stats":
                kind = {"Kind": "kind", "Success": "sf", "Failure kind": "fail"}[first]
                key = [sub] + r
            elif sec == "Specialization effectiveness":
                kind = {None: "eff", "Deferred by instruction": "deferred",
                        "Misses by instruction": "misses"}[sub]
                key = r
            elif sec == "Call stats":
                kind, key = "call", r
            elif sec == "Object stats":
                kind, key = "object", r
            elif sec == "GC stats":
                kind, key = "gc", r
            elif sec == "Optimization (Tier 2) stats":
                if sub is None and first == "":
                    kind, key = "opt", r
                elif sub == "JIT memory stats":
                    kind, key = "jit", r
                elif sub and sub.endswith(" histogram"):
                    kind, key = "hist", [sub[: -len(" histogram")]] + r
                else:
                    continue
            elif sec == "Rare events":
                kind, key = "rare", r
            elif sec == "Meta stats":
                kind, key = "meta", r
            else:
                continue
            print("|".join([kind] + key))


if __name__ == "__main__":
    main()
