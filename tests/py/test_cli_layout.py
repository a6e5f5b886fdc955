"""The command's layout (src/cli) stays a pipeline a newcomer can read:
no function over 100 lines, no two files that include each other (through
any chain), and no two object files that call each other (through any
chain), so that each arrow read -> ingest -> aggregate -> summary ->
renderers, and driver -> checks, points one way."""
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.join(ROOT, "src", "cli")
BUILD = os.path.join(ROOT, "build", "cli")
MAX_LINES = 100

# A definition: the return type on its own line, then NAME( at column 0,
# then "{" at column 0; it ends at the next "}" at column 0 (the house
# style of the project: docs/ARCHITECTURE.md).
DEF = re.compile(r"^([A-Za-z_]\w*)\(")


def long_functions(text, limit=MAX_LINES):
    """(name, first line, lines) of each function longer than limit."""
    out, cand, start, name = [], None, 0, None
    for n, line in enumerate(text.splitlines(), 1):
        m = DEF.match(line)
        if m:
            cand = (m.group(1), n)
        elif line.startswith("{") and cand:
            name, start = cand
        elif line.startswith("}") and name:
            if n - start + 1 > limit:
                out.append((name, start, n - start + 1))
            name, cand = None, None
    return out


def cycles(graph):
    """The strongly connected components of more than one node."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def sources(ext):
    return sorted(f for f in os.listdir(CLI) if f.endswith(ext))


def test_the_detectors_find_what_they_look_for():
    body = "\n".join("    x++;" for _ in range(99))
    assert long_functions("static int\nf(void)\n{\n%s\n}\n" % body) == [("f", 2, 102)]
    assert long_functions("int\ng(void)\n{\n    return 0;\n}\n") == []
    assert cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert cycles({"a": ["b"], "b": []}) == []


def test_no_function_over_100_lines():
    found = []
    for name in sources(".c"):
        with open(os.path.join(CLI, name), encoding="utf-8") as f:
            for fn, line, n in long_functions(f.read()):
                found.append("src/cli/%s:%d: %s is %d lines" % (name, line, fn, n))
    assert not found, "\n".join(found)


def test_no_include_cycle():
    graph = {}
    for name in sources(".c") + sources(".h"):
        with open(os.path.join(CLI, name), encoding="utf-8") as f:
            inc = re.findall(r'^#include "([^"/]+\.h)"', f.read(), re.M)
        graph[name] = [h for h in inc if os.path.exists(os.path.join(CLI, h))]
    assert "load.h" in graph["load.c"]
    assert not cycles(graph)


def test_no_two_files_call_each_other():
    """Each object file's undefined symbols, resolved to the object that
    defines them: a graph of who calls whom, with no cycle."""
    r = subprocess.run(["make", "-s", "cli"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    defs, uses = {}, {}
    for name in sources(".c"):
        obj = os.path.join(BUILD, name[:-2] + ".o")
        if not os.path.exists(obj):
            pytest.skip("%s not built here (another build directory?)" % obj)
        out = subprocess.run(["nm", "-g", obj], capture_output=True, text=True,
                             check=True).stdout
        uses[name] = set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBRC":
                defs[parts[2]] = name
            elif len(parts) == 2 and parts[0] == "U":
                uses[name].add(parts[1])
    graph = {n: sorted({defs[s] for s in u if s in defs and defs[s] != n})
             for n, u in uses.items()}
    assert "ingest.c" in graph["read_text.c"] and "cmd_summarize.c" in graph["main.c"]
    assert not cycles(graph), cycles(graph)


# The renderers: they read only the summary (summary.h, model.h) or the
# comparison (compare.h), never the aggregate either was built from.


def renderer_files():
    return [f for f in sources(".c")
            if f.startswith(("report_", "doc")) or f == "compare_report.c"]


AGG_NAME = re.compile(r'\b(agg|AGG)_\w*|^#include "agg\.h"', re.M)


def test_renderers_read_only_the_summary():
    files = renderer_files()
    assert {"report_json.c", "doc_md.c", "compare_report.c"} <= set(files)
    found = []
    for name in files:
        with open(os.path.join(CLI, name), encoding="utf-8") as f:
            text = f.read()
        for n, line in enumerate(text.splitlines(), 1):
            m = AGG_NAME.search(line)
            if m:
                found.append("src/cli/%s:%d: %s" % (name, n, m.group(0)))
    assert not found, "\n".join(found)
