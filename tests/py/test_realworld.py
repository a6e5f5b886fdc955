"""Code nobody here wrote, under collection in every mode: CPython's own
test suite modules and a third-party library's tests (more-itertools,
from its sdist on PyPI, cached under build/cache).  `pystats run` must
end trusted (check: no error, no warning), the wrapped suite must pass,
and what the summary says must agree with the sources themselves:
every census site's source line is the line of its file, as linecache
reads it.

Two tiers: the quick one runs in `make test`; PYSTATS_FULL_TESTS=1
(`make test-full`) adds more modules and the library's whole suite.
Slow: PYSTATS_QUICK_TESTS=1 skips it.
"""
import importlib.util
import json
import linecache
import os
import re
import shutil
import subprocess
import sys
import tarfile

import pytest

from conftest import clean_env

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")
CACHE = os.path.join(ROOT, "build", "cache")
FULL = os.environ.get("PYSTATS_FULL_TESTS") == "1"
V = sys.version_info[:2]

pytestmark = [
    pytest.mark.skipif(not os.access(PYSTATS_CLI, os.X_OK),
                       reason="build/pystats is not built"),
    pytest.mark.skipif(os.environ.get("PYSTATS_QUICK_TESTS", "") not in ("", "0"),
                       reason="PYSTATS_QUICK_TESTS: real-world suites skipped"),
]

MORE_ITERTOOLS = "more_itertools-11.2.1"

# CPython test modules that run in seconds and do not drive
# sys.monitoring or trace functions themselves (doctest does: see
# test_doctest_settrace_is_reported).
QUICK_MODULES = ["test_dataclasses", "test_re"]
FULL_MODULES = QUICK_MODULES + ["test_collections", "test_functools",
                                "test_textwrap", "test_asyncio.test_tasks"]
MODES = ["count", "census", "instructions"]


def pystats_run(tmp_path, mode, cmd, cwd=None, expect_ok=True):
    out = str(tmp_path / ("run-" + mode))
    summary = str(tmp_path / ("summary-" + mode + ".json"))
    p = subprocess.run([PYSTATS_CLI, "run", "-o", out, "--mode", mode, "--quiet",
                        "--json", summary, "--"] + cmd,
                       env=clean_env(), cwd=cwd, capture_output=True, text=True,
                       timeout=1200)
    c = subprocess.run([PYSTATS_CLI, "check", out, "--json", "-"],
                       capture_output=True, text=True)
    report = json.loads(c.stdout)
    if not expect_ok:
        return p, report
    assert p.returncode == 0, (p.returncode, p.stdout[-3000:], p.stderr[-3000:])
    bad = [(f.get("check"), f.get("severity"), f.get("title"))
           for f in report["findings"] if f.get("severity") != "note"]
    assert c.returncode == 0 and report["verdict"] == "ok" and not bad, bad
    with open(summary, encoding="utf-8") as f:
        return json.load(f)


def groups(summary):
    return summary.get("groups", [summary])


def assert_sources_match(summary):
    """Every census site's source is its file's line, stripped."""
    n = 0
    for g in groups(summary):
        for s in g.get("census", {}).get("sites", []):
            f = s.get("path", s["file"])    # "file" is portable (a module)
            if not os.path.isfile(f):
                continue
            want = linecache.getline(f, int(s["line"])).strip()
            assert s["source"] == want, s
            n += 1
    return n


def assert_counts_consistent(summary):
    for g in groups(summary):
        total = g["meta"]["total_execution_count"]
        assert total > 0
        ops = sum(int(o.get("execution_count", 0)) for o in g["opcodes"].values())
        assert ops == total
        code = sum(int(e["instructions"]) for e in g.get("code", {}).values())
        assert code <= total


def instructions_subset(mode, items):
    # Mode instructions costs ~6x: a subset of the quick tier.
    return items[:1] if mode == "instructions" and not FULL else items


@pytest.mark.parametrize("mode", MODES)
def test_cpython_test_modules(tmp_path, mode):
    modules = instructions_subset(mode, FULL_MODULES if FULL else QUICK_MODULES)
    summary = pystats_run(tmp_path, mode, [sys.executable, "-m", "test"] + modules)
    if mode != "census":
        assert_counts_consistent(summary)
    else:
        assert_sources_match(summary)


# Library code whose own tests drive it the same way in every run: its
# per-code figures must be mode instructions' exactly.  The harness's own
# code is not (it walks sys.modules and the import caches, which differ
# from run to run), nor is code under test_recursion (on 3.13 the
# recursion limit is met two calls later in one mode than in the other:
# py_scanstring's calls, each one PY_START event in both modes, differ,
# so the program itself ran differently) or test_tool (subprocesses,
# polled).
LIBRARY_TESTS = ["test_textwrap", "test_difflib", "test_json", "test_argparse",
                 "test_configparser", "test_ipaddress", "test_fractions",
                 "test_tomllib",
                 "--ignore", "*test_recursion*", "--ignore", "*test_tool*"]
LIBRARY_CODE = re.compile(
    r"^(code\[[^\]]*/(?:textwrap|difflib|json/[a-z_]+|argparse|configparser"
    r"|ipaddress|fractions|tomllib/[a-z_]+)\.py:[^\]]*\]"
    r"\.(?:instructions|calls|opcode\[[A-Z_]+\])) : (\d+)$", re.M)


def library_counts(tmp_path, mode):
    d = str(tmp_path / mode)
    env = clean_env(PYTHONSTATS=mode, PYSTATS_DIR=d, PYTHONHASHSEED=0)
    p = subprocess.run([sys.executable, "-m", "test"] + LIBRARY_TESTS,
                       env=env, capture_output=True, text=True, timeout=1200)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    # the test process's own dump (some tests start child processes)
    dump = max((os.path.join(d, f) for f in os.listdir(d)),
               key=os.path.getsize)
    with open(dump, encoding="utf-8") as f:
        return dict(LIBRARY_CODE.findall(f.read()))


@pytest.mark.skipif(V < (3, 12), reason="3.11's count is its instructions")
def test_library_code_counted_as_instructions(tmp_path):
    """textwrap, difflib, json, argparse, configparser, ipaddress,
    fractions and tomllib under CPython's own tests of them: every
    code object's instructions, calls and per-opcode counts the same in
    mode count (segments, quiet jumps, returns and branches) as in mode
    instructions (one event per instruction)."""
    if importlib.util.find_spec("test.test_textwrap") is None:
        pytest.skip("this CPython has no test package")
    count = library_counts(tmp_path, "count")
    ins = library_counts(tmp_path, "instructions")
    diff = {k: (count.get(k), ins.get(k)) for k in set(count) | set(ins)
            if count.get(k) != ins.get(k)}
    assert not diff
    assert len(count) > 500
    assert sum(int(v) for k, v in count.items()
               if k.endswith(".instructions")) > 10 ** 6


def more_itertools_tree(tmp_path):
    sdist = os.path.join(CACHE, MORE_ITERTOOLS + ".tar.gz")
    if not os.path.exists(sdist):
        # Into a directory of this test's own, then moved into the cache
        # whole: another interpreter's suite may be reading it meanwhile.
        got = tmp_path / "download"
        p = subprocess.run([sys.executable, "-m", "pip", "download", "-q",
                            "--no-deps", "--no-binary", ":all:", "-d",
                            str(got), "more-itertools==11.2.1"],
                           capture_output=True, text=True)
        fetched = got / os.path.basename(sdist)
        if p.returncode != 0 or not fetched.exists():
            pytest.skip("more-itertools 11.2.1 sdist not cached and not "
                        "downloadable: " + p.stderr[-300:])
        os.makedirs(CACHE, exist_ok=True)
        part = "%s.%d.part" % (sdist, os.getpid())
        shutil.copyfile(fetched, part)
        os.replace(part, sdist)
    with tarfile.open(sdist) as t:
        if hasattr(tarfile, "data_filter"):
            t.extractall(tmp_path, filter="data")
        else:
            t.extractall(tmp_path)
    return str(tmp_path / MORE_ITERTOOLS)


QUICK_SELECTION = ["tests/test_more.py", "-k",
                   "Chunked or Windowed or Peekable or Bucket or Spy or "
                   "Consecutive or Split"]


@pytest.mark.parametrize("mode", MODES)
def test_more_itertools_suite(tmp_path, mode):
    pytest.importorskip("pytest")
    tree = more_itertools_tree(tmp_path)
    sel = ["tests"] if FULL else QUICK_SELECTION
    if mode == "instructions" and not FULL:
        sel = ["tests/test_more.py", "-k", "Chunked or Windowed"]
    summary = pystats_run(tmp_path, mode, [sys.executable, "-m", "pytest", "-q",
                                           "-p", "no:cacheprovider"] + sel, cwd=tree)
    if mode == "census":
        # The library's own failing sites are listed, their sources those
        # of its files (colons, walrus, comparisons chains and all).
        assert assert_sources_match(summary) > 0
    else:
        assert_counts_consistent(summary)
        mine = [k for k, c in summary["code"].items()
                if c.get("path", c["file"]).startswith(os.path.join(tree, "more_itertools"))]
        assert mine, "no code of the library counted"


def test_doctest_settrace_keeps_the_run_trusted(tmp_path):
    """test_json runs doctests, and doctest restores sys.gettrace()'s None
    with sys.settrace(None) around every docstring: on 3.11 the
    collector's sys.settrace pass-through keeps its trace function in
    place (it used to be displaced, and the run ended untrusted); on
    3.12+ mode count (sys.monitoring) is not affected. Either way the run
    is trusted, and nothing is displaced."""
    p, report = pystats_run(tmp_path, "count", [sys.executable, "-m", "test", "test_json"],
                            expect_ok=False)
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert p.returncode == 0 and report["verdict"] == "ok" and not errors, report
    assert "displaced" not in json.dumps(report), report
