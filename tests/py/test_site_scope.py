"""Which code the ranked failing sites show is a report option
(summarize --code, --no-stdlib), not a collection choice: an installed
library's failing sites are in the report of a test suite that runs it
under `pystats run`, named by module, and the options keep or leave out
exactly the code they name.  The library is a real one from PyPI,
installed in the test's own environment (sortedcontainers, which
hypothesis requires); the standard library is told apart here by
Python's own sysconfig paths, independently of the command."""
import json
import os
import subprocess
import sys
import sysconfig

import pytest

from conftest import clean_env

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
CLI = os.path.join(ROOT, "build", "pystats")

pytestmark = [
    pytest.mark.skipif(not os.access(CLI, os.X_OK),
                       reason="build/pystats is not built"),
    pytest.mark.skipif(sys.version_info < (3, 12),
                       reason="site rows are 3.12+ (mode count's census)"),
]

# The library under test; an environment without it (the sanitizer run
# installs pytest alone) skips the module instead of failing its fixture.
pytest.importorskip("sortedcontainers")

SUITE = '''
from sortedcontainers import SortedDict, SortedKeyList, SortedList


def test_sorted_list():
    sl = SortedList()
    for i in range(3000):
        sl.add((i * 7919) % 1000)
    assert list(sl) == sorted(sl)
    for i in range(0, 1000, 3):
        sl.discard(i)
        assert sl.bisect_left(i) == sl.bisect_right(i - 0.5)


def test_key_list_and_dict():
    kl = SortedKeyList(key=lambda x: -x)
    sd = SortedDict()
    for i in range(2000):
        kl.add(i % 97)
        sd[i % 131] = i
    assert kl[0] == 96 and list(sd)[:3] == [0, 1, 2]
'''


def stdlib_dirs():
    p = sysconfig.get_paths()
    return {os.path.realpath(p[k]) + os.sep for k in ("stdlib", "platstdlib")}


def in_stdlib(path):
    if path.startswith("<frozen "):
        return True
    real = os.path.realpath(path)
    return ("site-packages" not in real and
            any(real.startswith(d) for d in stdlib_dirs()))


def summarize(run_dir, *opts):
    r = subprocess.run([CLI, "summarize", run_dir, "--json", "-"] +
                       list(opts), capture_output=True, text=True,
                       check=True, timeout=120)
    return json.loads(r.stdout)["census"].get("failing_sites", [])


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("scope")
    (tmp / "test_suite.py").write_text(SUITE)
    out = str(tmp / "run")
    r = subprocess.run([CLI, "run", "-o", out, "--", sys.executable, "-m",
                        "pytest", "-q", "-p", "no:cacheprovider",
                        str(tmp / "test_suite.py")],
                       capture_output=True, text=True, cwd=str(tmp),
                       env=clean_env(), timeout=300)
    assert r.returncode == 0, r.stderr + r.stdout
    return out


def test_an_installed_librarys_sites_are_named_by_module(run_dir):
    import sortedcontainers
    sites = summarize(run_dir)
    lib = [s for s in sites if s["file"].startswith("sortedcontainers.")]
    assert lib, sorted({s["file"] for s in sites})
    pkg = os.path.dirname(os.path.realpath(sortedcontainers.__file__))
    for s in lib:
        # Named by module; the dump's path is the installed file, whose
        # line (read here) is the row's source.
        assert os.path.realpath(s["path"]).startswith(pkg + os.sep), s
        mod = os.path.splitext(os.path.relpath(
            os.path.realpath(s["path"]), os.path.dirname(pkg)))[0]
        assert s["file"] == mod.replace(os.sep, ".")
        with open(s["path"], encoding="utf-8") as f:
            text = f.read().split("\n")[int(s["line"]) - 1]
        # Source lines are bounded (4 MiB a dump, hottest code first):
        # cold code may have none.
        if "source" in s:
            assert s["source"].strip() == text.strip(), s
        assert s["executions"] > 0
    assert "source" in lib[0]


def test_code_and_no_stdlib_keep_exactly_what_they_name(run_dir):
    every = summarize(run_dir)
    std = [s for s in every if in_stdlib(s.get("path", s["file"]))]
    assert std and len(std) < len(every)

    def ident(s):
        return (s["code"], s["offset"], s["executions"])

    only = summarize(run_dir, "--code", "sortedcontainers")
    assert [ident(s) for s in only] == [
        ident(s) for s in every if s["file"].startswith("sortedcontainers.")]
    no_std = summarize(run_dir, "--no-stdlib")
    assert [ident(s) for s in no_std] == [
        ident(s) for s in every if not in_stdlib(s.get("path", s["file"]))]
    # The report says what the option left out, and what the default
    # shows.
    md = subprocess.run([CLI, "summarize", run_dir, "--no-stdlib"],
                        capture_output=True, text=True, check=True).stdout
    assert ("Left out by this report's options: %s sites of the standard "
            "library (--no-stdlib)." % format(len(std), ",")) in md
    md = subprocess.run([CLI, "summarize", run_dir],
                        capture_output=True, text=True, check=True).stdout
    assert ("installed packages and the standard library (%s of these "
            "sites) included" % format(len(std), ",")) in md


COVERED = '''
import pystats


def f(o):
    return o.x


class A:
    x = 1


pystats.on()
for i in range(1000):
    f(A())
pystats.off()
assert pystats.dump()
'''


def test_code_hidden_by_another_tool_is_said(tmp_path):
    """Code coverage.py instruments (its sys.monitoring core) is skipped
    by the census: the site section says how much, from the dump's own
    census counters."""
    pytest.importorskip("coverage")
    from conftest import dumps_in
    script = tmp_path / "covered.py"
    script.write_text(COVERED)
    d = str(tmp_path / "stats")
    r = subprocess.run([sys.executable, "-m", "coverage", "run",
                        "--data-file", str(tmp_path / "cov"), str(script)],
                       env=clean_env(PYSTATS_DIR=d, COVERAGE_CORE="sysmon"),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    [dump] = dumps_in(d)
    inst = int(dump.extra["census.instrumented_code_objects"])
    read = (int(dump.extra["census.code_objects"]) +
            int(dump.extra["census.dead_code_objects"]))
    if inst == 0:
        pytest.skip("this coverage.py does not use sys.monitoring here")
    md = subprocess.run([CLI, "summarize", dump.path], capture_output=True,
                        text=True, check=True).stdout
    share = 100.0 * inst / (inst + read)
    said = ("%s of %s code objects (%.1f%%) were hidden from the census "
            "because another tool instrumented them (coverage, cProfile, a "
            "debugger): their sites are not here." % (inst, inst + read, share))
    assert said in md
    assert ("A large share: " + said in md) == (share >= 10)


def test_run_takes_the_same_options_for_its_reports(tmp_path):
    """pystats run --code/--no-stdlib: its reports and headline show the
    sites summarize shows of the same dumps with the same options, here
    only the library's."""
    (tmp_path / "test_suite.py").write_text(SUITE)
    out = str(tmp_path / "run")
    r = subprocess.run([CLI, "run", "-o", out, "--code", "sortedcontainers",
                        "--no-stdlib", "--", sys.executable, "-m", "pytest",
                        "-q", "-p", "no:cacheprovider",
                        str(tmp_path / "test_suite.py")],
                       capture_output=True, text=True, cwd=str(tmp_path),
                       env=clean_env(), timeout=300)
    assert r.returncode == 0, r.stderr + r.stdout
    with open(os.path.join(out, "report", "summary.json")) as f:
        own = json.load(f)["census"].get("failing_sites", [])
    assert own and all(s["file"].startswith("sortedcontainers.")
                       for s in own), own
    assert own == summarize(out, "--code", "sortedcontainers", "--no-stdlib")
    every = summarize(out)
    assert len(every) > len(own)
    # The headline's worst failing site is the report's first row.
    line = [x for x in r.stderr.splitlines() if "fails to specialize:" in x]
    assert line and ("at %s:%s " % (own[0]["file"], own[0]["line"])) in line[0], (
        line, own[0])


def code_instructions(run_dir):
    """{code key: instructions} summed over the run's dumps, read from
    their own code[K].instructions lines, and each key's file as the dump
    wrote it (FILE:LINE:QUALNAME, the file before the last two ':')."""
    from conftest import dumps_in
    out = {}
    for d in dumps_in(run_dir):
        with open(d.path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("code[") and "].instructions : " in line:
                    key, v = line[5:].rsplit("].instructions : ", 1)
                    out[key] = out.get(key, 0) + int(v)
    return {k: (v, k.rsplit(":", 2)[0]) for k, v in out.items()}


def hot_code_rows(md):
    """The Markdown report's hot code table: (where, instructions)."""
    part = md.split("\n## Hot code\n", 1)[1].split("\n## ", 1)[0]
    rows = [r.split(" | ") for r in part.splitlines()
            if r.startswith("| ") and not r.startswith("| Function")
            and not r.startswith("| :")]
    return [(r[1], int(r[2].replace(",", ""))) for r in rows]


def test_code_and_no_stdlib_keep_the_hot_code_they_name(run_dir):
    """--code and --no-stdlib choose the hot code too: the table holds the
    library's code objects, hottest first, as many as the dumps' own
    code[K].instructions lines say, and the report says how much it left
    out; where-to-look's hot code is the table's first rows."""
    import sortedcontainers
    pkg = os.path.dirname(os.path.realpath(sortedcontainers.__file__))
    code = code_instructions(run_dir)
    lib = sorted((v for v, f in code.values()
                  if os.path.realpath(f).startswith(pkg + os.sep)),
                 reverse=True)
    assert lib and len(lib) < len(code)
    md = subprocess.run([CLI, "summarize", run_dir, "--code",
                         "sortedcontainers"], capture_output=True, text=True,
                        check=True).stdout
    rows = hot_code_rows(md)
    assert [n for _, n in rows] == lib[:50]
    assert all(w.startswith("sortedcontainers") for w, _ in rows), rows
    out = sum(v for v, f in code.values()) - sum(lib)
    assert ("Left out by this report's options: %s code objects, %s "
            "instructions" % (format(len(code) - len(lib), ","),
                              format(out, ","))) in md
    look = md.split("Where to look:", 1)[1].split("\n## ", 1)[0]
    hot = [x for x in look.splitlines() if x.startswith("- Hot code:")]
    assert hot and all("(sortedcontainers" in x for x in hot), hot
    assert "%s instructions" % format(lib[0], ",") in hot[0]

    std = [v for v, f in code.values() if in_stdlib(f)]
    md = subprocess.run([CLI, "summarize", run_dir, "--no-stdlib"],
                        capture_output=True, text=True, check=True).stdout
    rows = hot_code_rows(md)
    kept = sorted((v for v, f in code.values() if not in_stdlib(f)),
                  reverse=True)
    assert std and [n for _, n in rows] == kept[:50]
    assert ("Left out by this report's options: %s code objects, %s "
            "instructions" % (format(len(std), ","),
                              format(sum(std), ","))) in md
    # Without the options every code object is a candidate.
    md = subprocess.run([CLI, "summarize", run_dir], capture_output=True,
                        text=True, check=True).stdout
    assert [n for _, n in hot_code_rows(md)] == sorted(
        (v for v, _ in code.values()), reverse=True)[:50]


LIB = '''
class P:
    def __init__(self, x):
        self.x = x


def work(n):
    t = 0
    for i in range(n):
        t += P(i).x * 2
    return t
'''


def test_code_names_a_package_run_from_the_working_directory(tmp_path):
    """A package imported from the working directory is named by its
    relative path (mylib/core.py), not by module: --code mylib takes it
    all the same, and only it."""
    (tmp_path / "mylib").mkdir()
    (tmp_path / "mylib" / "__init__.py").write_text("")
    (tmp_path / "mylib" / "core.py").write_text(LIB)
    (tmp_path / "mylibx.py").write_text("def f():\n    return sum(range(9))\n")
    (tmp_path / "main.py").write_text(
        "import json, mylib.core, mylibx\n"
        "for _ in range(10):\n"
        "    mylib.core.work(500); mylibx.f(); json.dumps(list(range(50)))\n")
    out = str(tmp_path / "run")
    r = subprocess.run([CLI, "run", "-o", out, "--", sys.executable,
                        "main.py"], capture_output=True, text=True,
                       cwd=str(tmp_path), env=clean_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    code = code_instructions(out)
    mine = sorted((v for v, f in code.values()
                   if f.startswith("mylib/") or
                   os.path.realpath(f).startswith(
                       str(tmp_path / "mylib") + os.sep)), reverse=True)
    assert len(mine) >= 3, code    # the package, core and its functions
    md = subprocess.run([CLI, "summarize", out, "--code", "mylib"],
                        capture_output=True, text=True, check=True).stdout
    rows = hot_code_rows(md)
    assert [n for _, n in rows] == mine, (rows, code)
    assert all(w.startswith("mylib/") for w, _ in rows), rows
    # annotate --code shows the same functions, and says what it left out.
    text = subprocess.run([CLI, "annotate", out, "--code", "mylib", "--top",
                           "50"], capture_output=True, text=True,
                          check=True).stdout
    shown = [int(x.split(": ", 1)[1].split(" instructions", 1)[0]
                 .replace(",", ""))
             for x in text.splitlines() if x.startswith("== ")]
    assert shown == mine, (text, mine)
    assert "%s code objects of other code left out" % format(
        len(code) - len(mine), ",") in text
    # compare --code: the hot code rows of both sides are the package's
    # (FILE:QUALNAME, without the line), and only those.
    cmp = json.loads(subprocess.run(
        [CLI, "compare", out, out, "--code", "mylib", "--json", "-", "--quiet"],
        capture_output=True, text=True, check=True).stdout)
    rows = cmp["sections"]["hot_code"]["rows"]
    lib = os.path.realpath(str(tmp_path / "mylib")) + os.sep
    want = sorted({"mylib/%s:%s" % (os.path.realpath(f)[len(lib):], k.rsplit(":", 1)[1])
                   for k, (v, f) in code.items()
                   if os.path.realpath(f).startswith(lib)})
    assert sorted(r["name"] for r in rows) == want, (rows, want)
    assert all(r["base"] == r["head"] for r in rows)
