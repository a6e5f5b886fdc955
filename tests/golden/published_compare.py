"""Compare the figures of CPython's own report of a published summary with
the same figures in the Markdown report of `pystats summarize`.

Usage: python3 published_compare.py [--exact] EXPECTED REPORT.md [LABEL]

EXPECTED holds the rows of CPython's report (summarize_stats.py's .md),
copied by hand: SECTION|KEY...|VALUES.  LABEL picks the group of a report
made with --by-label.  Prints how many figures were compared and every
difference; exits 1 if any differs.

Figures that depend only on the order in which equal counts are listed
(the cumulative share inside a run of equal counts, the row that makes a
top-N cut among equal counts) are counted apart, not compared: CPython
keeps its dictionaries' order there, pystats sorts by name when a group
comes from several files.  With --exact they are compared too (a group
read from one CPython summary keeps the file's order, as CPython does).
"""

import sys

MAIN = {"Execution counts", "Pair counts", "Predecessors and successors",
        "Specialization", "Specialization effectiveness", "Call stats",
        "Object stats", "GC stats", "Optimization (Tier 2) stats",
        "Rare events", "Meta"}


def pretty(name):
    return name.replace("_", " ").lower()


def cells(line):
    out, cur, i = [], "", 1
    line = line.rstrip()
    while i < len(line):
        ch = line[i]
        if ch == "\\" and i + 1 < len(line) and line[i + 1] in "|<>*_`[]\\":
            cur += line[i + 1]   # a Markdown escape: the character itself
            i += 2
            continue
        if ch == "|":
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
        i += 1
    return out


def parse(text, label):
    lines = text.split("\n")
    if label is not None:
        start = None
        for i, ln in enumerate(lines):
            if ln.startswith("## Group ") and f", label {label} (" in ln:
                start = i
            elif start is not None and ln.startswith("## "):
                lines = lines[start:i]
                break
        else:
            if start is None:
                raise SystemExit(f"no group with label {label}")
            lines = lines[start:]
    tables = {}
    sec = sub = None
    header = None
    for ln in lines:
        if ln.startswith("#"):
            title = ln.lstrip("#").strip()
            if title in MAIN:
                sec, sub = title, None
            else:
                sub = title
            header = None
            continue
        if not ln.startswith("|"):
            header = None
            continue
        row = cells(ln)
        if "-" in ln and all(c.replace(":", "").replace("-", "") == "" for c in row):
            continue
        if header is None:
            header = row
            tables.setdefault((sec, sub), []).append((header, []))
            continue
        tables[(sec, sub)][-1][1].append(row)
    return tables


def table(tables, sec, sub, first):
    for header, rows in tables.get((sec, sub), []):
        if header and header[0] == first:
            return header, rows
    return None, []


def main():
    args = [a for a in sys.argv[1:] if a != "--exact"]
    exact = len(args) != len(sys.argv) - 1
    exp_path, md_path = args[0], args[1]
    label = args[2] if len(args) > 2 else None
    t = parse(open(md_path, encoding="utf-8").read(), label)
    expected = []
    for ln in open(exp_path, encoding="utf-8"):
        ln = ln.rstrip("\n")
        if ln and not ln.startswith("#"):
            expected.append(ln.split("|"))
    compared, differ, ordered, skipped = 0, [], 0, 0

    def rows_by(sec, sub, first, key=lambda r: r[0]):
        _, rows = table(t, sec, sub, first)
        return {key(r): r for r in rows}, rows

    def cmp(what, exp, ours):
        nonlocal compared
        compared += 1
        if exp != ours:
            differ.append(f"{what}: CPython {exp!r}, pystats {ours!r}")

    # Runs of equal counts, for the order-dependent figures: inside a run
    # the cumulative share depends on the order of the run's rows; after
    # its last row it does not (the largest cumulative of the run's rows).
    def tie_info(section):
        rows = [e for e in expected if e[0] == section]
        info, run = {}, []
        for i, e in enumerate(rows):
            run.append(e[1])
            last_of_run = i + 1 == len(rows) or rows[i + 1][2] != e[2]
            info[e[1]] = (len(run) > 1 or not last_of_run, last_of_run, list(run))
            if last_of_run:
                run = []
        return info

    def pct(s):
        return float(s.rstrip("%").replace(",", "")) if s else -1.0

    exec_ties, pair_ties = tie_info("exec"), tie_info("pair")
    ex, _ = rows_by("Execution counts", None, "Name")
    pairs, pair_rows = rows_by("Pair counts", None, "Pair")
    for e in expected:
        kind = e[0]
        if kind in ("exec", "pair"):
            mine, ties = (ex, exec_ties) if kind == "exec" else (pairs, pair_ties)
            r = mine.get(e[1])
            if r is None:
                differ.append(f"{kind} {e[1]}: not in the pystats report")
                continue
            for col, (v, o) in enumerate(zip(e[2:], r[1:])):
                if v == "":
                    continue
                in_run, last, run = ties[e[1]]
                if col == 2 and in_run and not exact:
                    if not last:
                        ordered += 1
                        continue
                    # The end of the run: the largest of our cumulatives.
                    o = max((mine[n][3] for n in run if n in mine), key=pct)
                cmp(f"{kind} {e[1]} column {col + 2}", v, o)
        elif kind in ("pred", "succ"):
            _, rows = table(t, "Predecessors and successors", e[1],
                            "Predecessor")
            off = 0 if kind == "pred" else 3
            mine = {r[off]: r[off:off + 3] for r in rows if r[off]}
            r = mine.get(e[2])
            if r is None:
                counts = [x[1] for x in mine.values()]
                if not exact and len(mine) == 5 and e[3] == min(counts, key=lambda s: int(s.replace(",", ""))):
                    ordered += 2
                else:
                    differ.append(f"{kind} of {e[1]}: {e[2]} not in the pystats report")
                continue
            cmp(f"{kind} of {e[1]}: {e[2]} count", e[3], r[1])
            cmp(f"{kind} of {e[1]}: {e[2]} share", e[4], r[2])
        elif kind in ("kind", "sf", "fail"):
            first = {"kind": "Kind", "sf": "Specialization", "fail": "Failure kind"}[kind]
            mine, _ = rows_by("Specialization", e[1], first, key=lambda r: r[0].lower())
            r = mine.get(e[2].lower())
            if r is None:
                differ.append(f"{kind} {e[1]} {e[2]}: not in the pystats report")
                continue
            cmp(f"{kind} {e[1]} {e[2]} count", e[3], r[1])
            cmp(f"{kind} {e[1]} {e[2]} ratio", e[4], r[2])
        elif kind in ("eff", "deferred", "misses", "call", "object", "meta"):
            sec, sub, first = {
                "eff": ("Specialization effectiveness", None, "Instructions"),
                "deferred": ("Specialization effectiveness", "Deferred by instruction", "Name"),
                "misses": ("Specialization effectiveness", "Misses by instruction", "Name"),
                "call": ("Call stats", None, ""),
                "object": ("Object stats", None, ""),
                "meta": ("Meta", None, ""),
            }[kind]

            def call_label(name):
                if name.endswith("]") and "[" in name:
                    base, idx = name[:-1].split("[", 1)
                    return f"{base} ({pretty(idx)})"
                return name
            mine, _ = rows_by(sec, sub, first,
                              key=(lambda r: call_label(r[0])) if kind == "call" else (lambda r: r[0]))
            r = mine.get(e[1])
            if r is None:
                if kind in ("deferred", "misses") and e[2] == "0":
                    skipped += 1   # CPython lists zero rows, pystats leaves them out
                    continue
                differ.append(f"{kind} {e[1]}: not in the pystats report")
                continue
            for col, (v, o) in enumerate(zip(e[2:], r[1:])):
                if v != "":
                    cmp(f"{kind} {e[1]} column {col + 2}", v, o)
        elif kind == "gc":
            header, rows = table(t, "GC stats", None, "Generation")
            if header is None:
                differ.append("gc: no GC table in the pystats report")
                continue
            mine = {r[0]: dict(zip(header, r)) for r in rows}
            names = ["collections", "objects collected", "object visits",
                     "objects reachable from roots", "objects not reachable from roots"]
            r = mine.get(e[1])
            if r is None:
                differ.append(f"gc generation {e[1]}: not in the pystats report")
                continue
            for name, v in zip(names, e[2:]):
                cmp(f"gc {e[1]} {name}", v, r.get(name))
        elif kind == "opt":
            # CPython's optimization and optimizer tables, by its labels.
            sec = "Optimization (Tier 2) stats"
            rows = [r for _, rs in t.get((sec, None), []) for r in rs]
            mine = {r[0]: r for r in rows}
            r = mine.get(e[1])
            if r is None:
                differ.append(f"opt {e[1]}: not in the pystats report")
                continue
            for col, (v, o) in enumerate(zip(e[2:], r[1:])):
                cmp(f"opt {e[1]} column {col + 2}", v, o)
        elif kind == "jit":
            # CPython's JIT memory table (3.14 on), by its labels.
            mine, _ = rows_by("Optimization (Tier 2) stats", "JIT memory stats", "")
            r = mine.get(e[1])
            if r is None:
                differ.append(f"jit {e[1]}: not in the pystats report")
                continue
            for col, (v, o) in enumerate(zip(e[2:], r[1:])):
                cmp(f"jit {e[1]} column {col + 2}", v, o)
        elif kind == "hist":
            first = "Size (bytes)" if e[1].startswith("JIT") else "Range"
            _, rows = table(t, "Optimization (Tier 2) stats", e[1] + " histogram", first)
            mine = {r[0]: r for r in rows}
            r = mine.get(e[2])
            if r is None:
                differ.append(f"hist {e[1]} {e[2]}: not in the pystats report")
                continue
            for col, (v, o) in enumerate(zip(e[3:], r[1:])):
                cmp(f"hist {e[1]} {e[2]} column {col + 2}", v, o)
        elif kind == "rare":
            mine, _ = rows_by("Rare events", None, "Event", key=lambda r: pretty(r[0]))
            r = mine.get(e[1])
            if r is None:
                differ.append(f"rare {e[1]}: not in the pystats report")
                continue
            cmp(f"rare {e[1]}", e[2], r[1])
        else:
            raise SystemExit(f"{exp_path}: unknown section {kind!r}")
    for d in differ:
        print("DIFF", d)
    print(f"{compared} figures compared, {len(differ)} differ; "
          f"{ordered} depend on the order of equal counts only; "
          f"{skipped} zero rows CPython lists and pystats leaves out")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
