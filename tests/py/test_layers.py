"""The collector's files form layers (docs/ARCHITECTURE.md): no cycle in
who calls whom among the files of src/ext, and every function or
variable a file exports is declared in its own header (or in the
public header of the component it belongs to), so that a call upward
cannot hide behind a declaration put in a lower header.

The check reads the sources only (no compiler).  A .c file calls
another when it names a function or variable the other defines and
exports, or a static inline function of the other's header (an inline
call reaches whatever the inline body calls: the header's own file)."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXT = os.path.join(ROOT, "src", "ext")
# A header implemented by other files than its stem's .c: backend.h by
# the backend of the interpreter (monitoring.c on 3.12+, trace.c on
# 3.11), segments.h, the public face of segment counting, by the files
# of that component that implement its entry points, and census.h, the
# census's, likewise.
IMPLEMENTED_BY = {"backend": ("monitoring", "trace"),
                  "census": ("census", "census_registry", "census_take"),
                  "segments": ("segments", "seg_code", "seg_events")}
# What the interpreter or the dynamic linker calls, declared by nobody.
ENTRY_POINTS = {"PyInit__collector"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)\.h"', re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
# A definition at column 0, CPython style: "type\nname(" or, for a
# variable, "type name[...] = ...;" / "type name;".
FUNC_DEF = re.compile(r"^(?!static\b|typedef\b|extern\b|HOT\b)[A-Za-z_][\w \t*]*\n"
                      r"(?:__attribute__\(\(.*?\)\)\s*)?([A-Za-z_]\w*)\(", re.M)
FUNC_DEF_ATTR = re.compile(r"^__attribute__\(\(.*?\)\) (?!static\b)[\w \t*]*\n"
                           r"([A-Za-z_]\w*)\(", re.M)
VAR_DEF = re.compile(r"^(?!static\b|typedef\b|extern\b|return\b)"
                     r"(?:__thread\s+)?[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)"
                     r"(?:\[[^\]]*\])*\s*(?:__attribute__\(\(.*?\)\)\s*)?"
                     r"(?:=[^;]*)?;", re.M)


def strip(text):
    return STRING.sub('""', COMMENT.sub(" ", text))


def sources(d):
    out = {}
    for name in sorted(os.listdir(d)):
        if name.endswith((".c", ".h")):
            with open(os.path.join(d, name), encoding="utf-8") as f:
                out[name] = f.read()
    return out


def implementers(header_stem, files):
    if header_stem in IMPLEMENTED_BY:
        return tuple(s for s in IMPLEMENTED_BY[header_stem] if s + ".c" in files)
    return (header_stem,) if header_stem + ".c" in files else ()


INLINE_DEF = re.compile(r"^static\s+inline\b[^;{]*?\b(?!__attribute__\b)([A-Za-z_]\w*)\s*\([^;]*?\)\s*\{",
                        re.M | re.S)


def call_graph(files):
    """.c stem -> set of .c stems whose exports (or header inlines) it
    uses."""
    funcs, variables, own = {}, {}, {}
    for name, text in files.items():
        if name.endswith(".c"):
            stem, t = name[:-2], strip(text)
            fn = set(FUNC_DEF.findall(t)) | set(FUNC_DEF_ATTR.findall(t))
            own[stem] = exported(text) | fn
            for n in fn - ENTRY_POINTS:
                funcs.setdefault(n, set()).add(stem)
            for n in exported(text) - fn:
                variables.setdefault(n, set()).add(stem)
    # A header's static inline functions, except the stand-ins of a
    # function some .c defines (3.11's no-op segments.h entry points).
    for name, text in files.items():
        if name.endswith(".h"):
            for n in INLINE_DEF.findall(strip(text)):
                if n not in own.get(name[:-2], ()) and not any(
                        n in o for o in own.values()):
                    funcs.setdefault(n, set()).update(
                        implementers(name[:-2], files))
    graph = {}
    for name, text in files.items():
        if not name.endswith(".c"):
            continue
        stem = name[:-2]
        t = strip(text)
        called = set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", t)) - own[stem]
        named = set(re.findall(r"(?<![.>\w])([A-Za-z_]\w*)\b", t)) - own[stem]
        deps = graph.setdefault(stem, set())
        for n in called & set(funcs):
            deps |= funcs[n]
        for n in named & set(variables):
            deps |= variables[n]
        deps.discard(stem)
    return graph


def include_graph(files):
    """header -> headers it includes (the ones in src/ext)."""
    return {name: {inc + ".h" for inc in INCLUDE.findall(text)
                   if inc + ".h" in files and inc + ".h" != name}
            for name, text in files.items() if name.endswith(".h")}


def find_cycle(graph):
    """One cycle as a list of modules, or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def top_level_statements(text):
    """The statements of a header outside any braces (declarations)."""
    text = strip(text)
    text = re.sub(r"^\s*#.*?(?<!\\)$", " ", text, flags=re.M | re.S)
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            cur.append(ch)
            if ch == ";":
                out.append("".join(cur))
                cur = []
    return out


def exported(text):
    text = strip(text)
    names = set(FUNC_DEF.findall(text)) | set(FUNC_DEF_ATTR.findall(text))
    names |= {n for n in VAR_DEF.findall(text) if not n.isupper()}
    return names - ENTRY_POINTS


def misplaced_declarations(files):
    """(file, name, headers declaring it) for each export not declared in
    its own header."""
    declared = {}
    for name, text in files.items():
        if name.endswith(".h"):
            for st in top_level_statements(text):
                for ident in re.findall(
                        r"\b([A-Za-z_]\w*)\s*(?:\(|\[|;|$|\s__attribute__)", st):
                    declared.setdefault(ident, set()).add(name)
    bad = []
    for name, text in files.items():
        if not name.endswith(".c"):
            continue
        mod = name[:-2]
        allowed = {mod + ".h"} | {h + ".h" for h, impls in
                                  IMPLEMENTED_BY.items() if mod in impls}
        for ident in sorted(exported(text)):
            where = declared.get(ident, set())
            if not where & allowed:
                bad.append((name, ident, sorted(where)))
    return bad


def test_no_call_cycle():
    files = sources(EXT)
    graph = call_graph(files)
    assert {"collector", "codeinfo", "seg_events", "lifecycle"} <= set(graph)
    # The bottom calls nothing of the extension's.
    assert graph["collector"] == set(), graph["collector"]
    assert "segments" in graph["lifecycle"] and "collector" in graph["codeinfo"]
    cycle = find_cycle(graph)
    assert cycle is None, "call cycle: " + " -> ".join(cycle)


# Rows of the layer table (docs/ARCHITECTURE.md) whose files form an
# order: a file calls only files before its own.
ORDERS = (("census_read", "census", "census_registry", "census_take",
           "census_sites"),
          ("trace_lines_plan", "trace_lines", "trace"))


def order_violations(graph, orders):
    """(a, b) for each file a that calls a file b after it in its order."""
    return [(a, b) for order in orders for i, a in enumerate(order)
            for b in order[i + 1:] if b in graph.get(a, ())]


def test_components_keep_their_order():
    graph = call_graph(sources(EXT))
    assert {f for order in ORDERS for f in order} <= set(graph)
    bad = order_violations(graph, ORDERS)
    assert not bad, "\n".join("%s calls %s, after it in its row" % t
                              for t in bad)


def test_no_include_cycle():
    graph = include_graph(sources(EXT))
    assert "compat.h" in graph["collector.h"]
    cycle = find_cycle(graph)
    assert cycle is None, "include cycle: " + " -> ".join(cycle)


def test_exports_declared_in_their_own_header():
    files = sources(EXT)
    bad = misplaced_declarations(files)
    assert not bad, "\n".join("%s: %s declared in %s, not its own header"
                              % (f, n, ", ".join(w) or "no header")
                              for f, n, w in bad)


def test_checks_see_what_they_check():
    """The checks on a made-up tree: a call cycle, an include cycle and a
    declaration put in a lower header are found."""
    files = {
        "collector.h": '#include "compat.h"\nint pc_clear(void);\n',
        "collector.c": '#include "collector.h"\n#include "census.h"\n'
                       "int\npc_clear(void)\n{\n    return pc_census_x();\n}\n",
        "census.h": '#include "collector.h"\nint pc_census_x(void);\n'
                    "static inline int\npc_census_y(void)\n{\n    return 1;\n}\n",
        "census.c": '#include "census.h"\nint pc_census_n;\n'
                    "int\npc_census_x(void)\n{\n    return pc_g;\n}\n",
        "compat.h": '#include "census.h"\n',
        "lifecycle.c": '#include "collector.h"\nint pc_g;\nvoid\npc_late(void)\n'
                       "{\n    pc_census_y();\n}\n",
    }
    calls = call_graph(files)
    assert calls["collector"] == {"census"}
    assert calls["census"] == {"lifecycle"}         # the variable pc_g
    assert calls["lifecycle"] == {"census"}         # the inline pc_census_y
    assert find_cycle(calls) is not None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert order_violations({"a": {"c"}, "b": {"a"}, "c": set()},
                            (("a", "b", "c"),)) == [("a", "c")]
    assert find_cycle(include_graph(files)) is not None
    bad = misplaced_declarations(files)
    assert ("census.c", "pc_census_n", []) in bad
    assert ("lifecycle.c", "pc_late", []) in bad
    assert ("lifecycle.c", "pc_g", []) in bad
    assert not [b for b in bad if b[1] in ("pc_clear", "pc_census_x")]


def long_functions(files, limit=100):
    """(file, function, lines) for each function definition longer than
    limit lines, its return-type line and closing brace included."""
    out = []
    for name, text in files.items():
        lines = text.split("\n")
        for i, line in enumerate(lines):
            m = re.match(r"([A-Za-z_]\w*)\(", line)
            if not m or i == 0 or not lines[i - 1] or lines[i - 1][0] in " #/*}":
                continue
            j = i
            while j < len(lines) and lines[j] != "{" and not lines[j].endswith(";"):
                j += 1
            if j == len(lines) or lines[j] != "{":
                continue
            k = j
            while k < len(lines) and lines[k] != "}":
                k += 1
            n = k - (i - 1) + 1
            if n > limit:
                out.append((name, m.group(1), n))
    return out


def test_no_function_over_100_lines():
    files = sources(EXT)
    assert long_functions(files, 60), "the check sees no function at all"
    too_long = long_functions(files)
    assert not too_long, "\n".join("%s: %s is %d lines" % t for t in too_long)


# What only compat.h names (docs/ARCHITECTURE.md): the interpreter's
# version, whether the build has a GIL (the rest tests PC_FREE_THREADING),
# CPython's private names (_Py...: internals, and the prototypes of
# functions its headers keep for the core), and the error-fetch APIs,
# which differ between versions (pc_exc_save(), pc_exc_restore(),
# pc_exc_object()).
COMPAT_ONLY = re.compile(r"\b(PY_VERSION_HEX|PY_(?:MAJOR|MINOR|MICRO)_VERSION"
                         r"|Py_GIL_DISABLED|_Py\w*|PyErr_Fetch|PyErr_Restore"
                         r"|PyErr_NormalizeException|PyErr_GetRaisedException"
                         r"|PyErr_SetRaisedException)\b")


def compat_leaks(files):
    """(file, name) for each name only compat.h may use, used elsewhere
    in code (comments and strings aside)."""
    return sorted({(name, m.group(1)) for name, text in files.items()
                   if name != "compat.h"
                   for m in COMPAT_ONLY.finditer(strip(text))})


def test_versions_and_internals_only_in_compat():
    leaks = compat_leaks(sources(EXT))
    assert not leaks, "\n".join("%s: %s outside compat.h" % t for t in leaks)


def test_compat_check_sees_what_it_checks():
    files = {
        "compat.h": "#if PY_VERSION_HEX >= 0x030C0000\n#endif\n_PyFoo();\n",
        "census.h": "/* PY_VERSION_HEX, _PyCodeArray */\n"
                    "#if PY_VERSION_HEX >= 0x030E0000 && defined(Py_GIL_DISABLED)\n",
        "shard.c": "PyAPI_FUNC(void) _PyEval_StopTheWorld(PyInterpreterState *);\n"
                   'static const char *s = "PyErr_Fetch";\n',
        "rare.c": "    PyErr_Fetch(&t, &v, &tb);\n    PyErr_Restore(t, v, tb);\n"
                  "    x = PY_MINOR_VERSION;\n    PyErr_NormalizeException(&t, &v, &tb);\n",
    }
    assert compat_leaks(files) == [
        ("census.h", "PY_VERSION_HEX"), ("census.h", "Py_GIL_DISABLED"),
        ("rare.c", "PY_MINOR_VERSION"), ("rare.c", "PyErr_Fetch"),
        ("rare.c", "PyErr_NormalizeException"),
        ("rare.c", "PyErr_Restore"), ("shard.c", "_PyEval_StopTheWorld")]
