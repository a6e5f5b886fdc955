#!/usr/bin/env python3
"""Run every test suite, against every CPython 3.11-3.14 found, and end
with one line for the whole run: "N passed, N failed, N skipped".

Interpreters: $PYTHONS (space-separated paths) if set; otherwise each of
3.11, 3.12, 3.13, 3.14 found under `pyenv root` or on PATH as pythonX.Y;
$PYTHON314 adds a CPython 3.14 (tools/pythons.py).
First the C unit tests, the command-line golden tests and the style
check of src/ (`make test-format`). Then each interpreter gets a virtual
environment under build/ with pytest, the collector installed into it by
`make install-ext` (built with -Werror), and the suite in tests/py run
inside it; and the Python suite runs once more against the extension
built with ASan, UBSan and its asserts on (`make test-asan`, DEBUG=1),
and the HTML and fuzz suites. These run side by side, one per core: each
in a process of its own (a test's process has no thread but its own:
allocation and GC counts are the test's), its output printed whole when
it ends.

PYSTATS_QUICK=1 (`make test-quick`) is the loop of a change in
progress, about two minutes of CPU, not a substitute for the whole run:
the C units, the golden tests of the native and own fixtures with the
usage, annotate and overview parts (GOLDEN_PARTS), the style check, and
with the newest interpreter only the Python tests of QUICK_TESTS: the
API, mode count against mode instructions on the corpus, the reference
collector on one workload and on threads, hot code per function, a dump
read back and round-tripped, threads counted exactly, exit and fork
dumps, `pystats run`, the census and the source view.
"""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
sys.path.insert(0, os.path.join(ROOT, "tools"))
from pythons import find_pythons  # noqa: E402


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT, **kw)


def venv_for(python):
    ver = subprocess.run([python, "-c", "import sys, sysconfig; print('%d.%d' "
                          "% sys.version_info[:2] + ('t' if sysconfig."
                          "get_config_var('Py_GIL_DISABLED') else ''))"],
                         capture_output=True, text=True,
                         check=True).stdout.strip()
    venv = os.path.join(BUILD, "venv-" + ver)
    vpy = os.path.join(venv, "bin", "python")
    if not os.path.exists(vpy):
        run([python, "-m", "venv", venv], check=True)
    probe = subprocess.run([vpy, "-c", "import pytest, hypothesis, coverage"],
                           capture_output=True)
    if probe.returncode != 0:
        run([vpy, "-m", "pip", "install", "-q", "--disable-pip-version-check",
             "pytest", "hypothesis", "coverage"], check=True)
    return ver, vpy


QUICK_TESTS = [
    "tests/py/test_api.py",
    "tests/py/test_segments.py::test_measure_identical_in_both_modes",
    "tests/py/test_segments.py::test_window_with_threads_counts_every_thread",
    "tests/py/test_corpus.py::test_measure_matches_reference[generators]",
    "tests/py/test_corpus.py::test_window_in_threads_matches_reference",
    "tests/py/test_hotcode.py",
    "tests/py/test_roundtrip.py::test_round_trip",
    "tests/py/test_threads_exact.py::test_parallel_equals_sequential",
    "tests/py/test_process.py::test_x_pystats_counts_the_main_module",
    "tests/py/test_process.py::test_written_at_exit_although_off",
    "tests/py/test_process.py::test_fork_child_starts_from_zero",
    "tests/py/test_run.py::test_headline_and_reports",
    "tests/py/test_census.py::test_failing_site_backs_off",
    "tests/py/test_census.py::test_count_dump_has_the_census_and_exact_counts",
    "tests/py/test_lines.py::test_annotate_shows_reference_counts",
]
GOLDEN_QUICK_PARTS = "usage annotate overview"
# How many suites run side by side.
JOBS = int(os.environ.get("JOBS") or os.cpu_count() or 1)


def pytest_suite(python, quick=False):
    """The suite of one interpreter, made ready (its venv, the collector
    installed): a function that runs it and returns its result, and the
    lines it printed; or its failed build's result."""
    ver, vpy = venv_for(python)
    r = run(["make", "-s", "install-ext", "WERROR=1", "PYTHON=" + vpy])
    if r.returncode != 0:
        return "py%s-build" % ver, 0, 1, 0
    xml = os.path.join(BUILD, "junit-%s.xml" % ver)
    if os.path.exists(xml):
        os.unlink(xml)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    tests = ["tests/py"]
    if quick:
        tests = QUICK_TESTS
        env.setdefault("PYSTATS_ROUNDTRIP_EXAMPLES", "2")
    cmd = ([vpy, "-m", "pytest", "-q", "-p", "no:cacheprovider"] + tests +
           ["--junitxml", xml] + sys.argv[1:])

    def suite():
        out = captured(cmd, env)
        return junit_result(ver, xml), out
    suite.__name__ = "py" + ver
    return suite


def captured(cmd, env=None):
    """Run cmd in the tree; its output (stdout and stderr as they came),
    headed by the command line."""
    r = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return "+ %s\n%s" % (" ".join(cmd), r.stdout), r.returncode


def junit_result(ver, xml):
    if not os.path.exists(xml):
        return "py" + ver, 0, 1, 0
    root = ET.parse(xml).getroot()
    suites = [root] if root.tag == "testsuite" else list(root)
    tests = sum(int(s.get("tests", 0)) for s in suites)
    bad = sum(int(s.get("failures", 0)) + int(s.get("errors", 0))
              for s in suites)
    skipped = sum(int(s.get("skipped", 0)) for s in suites)
    return "py" + ver, tests - bad - skipped, bad, skipped


LINE = re.compile(r"^(\S+): (\d+) passed, (\d+) failed"
                  r"(?:, (\d+) skipped)?\s*$")
# What the Makefile says when a build tool is missing ("need-*"): one line
# naming the package to install, repeated in the summary.
MISSING = []


def make_suite(target):
    """A make target that ends with "<suite>: N passed, N failed[, N
    skipped]"."""
    r = run(["make", "-s", target, "WERROR=1"], capture_output=True,
            text=True)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    return make_result(target, r.stdout, r.stderr, r.returncode)


def make_result(target, stdout, stderr, returncode):
    MISSING.extend("%s: %s" % (target, line)
                   for line in stderr.splitlines()
                   if line.startswith("pystats: ") and ": install " in line)
    for line in reversed(stdout.splitlines()):
        m = LINE.match(line)
        if m:
            failed = int(m.group(3)) + (1 if returncode and
                                        not int(m.group(3)) else 0)
            return m.group(1), int(m.group(2)), failed, int(m.group(4) or 0)
    return target, 0, 1, 0


def make_suite_later(target):
    """make_suite(), to run beside others: its output kept whole."""
    def suite():
        out, rc = captured(["make", "-s", target, "WERROR=1"])
        return make_result(target, out, out, rc), (out, rc)
    return suite


def side_by_side(suites, names):
    """Run the suites JOBS at a time; each one's output printed whole as
    it ends, and every five minutes a line naming those still running;
    their results in the order given."""
    import concurrent.futures
    import time
    results = [None] * len(suites)
    t0 = time.monotonic()
    print("running side by side, %d at a time: %s" % (JOBS, ", ".join(names)),
          flush=True)
    with concurrent.futures.ThreadPoolExecutor(max(1, JOBS)) as pool:
        pending = {pool.submit(s): i for i, s in enumerate(suites)}
        while pending:
            done, _ = concurrent.futures.wait(
                pending, timeout=300,
                return_when=concurrent.futures.FIRST_COMPLETED)
            if not done:
                print("... %d min: %s still running" % (
                    (time.monotonic() - t0) // 60,
                    ", ".join(names[i] for f, i in pending.items()
                              if f.running())), flush=True)
            for f in done:
                i = pending.pop(f)
                result, (out, _) = f.result()
                sys.stdout.write(out if out.endswith("\n") else out + "\n")
                print("%s: ended after %d min" % (
                    names[i], (time.monotonic() - t0) // 60), flush=True)
                results[i] = result
    return results


def main():
    results = []
    pythons = find_pythons()
    if not pythons:
        print("tests/run.py: no CPython 3.11-3.14 found", file=sys.stderr)
        results.append(("find-python", 0, 1, 0))
    # faults: the fault-injection shim several files use (tests/faults)
    r = run(["make", "-s", "all", "faults", "WERROR=1"])
    if r.returncode != 0:
        results.append(("build", 0, 1, 0))
    quick = os.environ.get("PYSTATS_QUICK") == "1"
    if quick:
        pythons = pythons[-1:]
        os.environ.setdefault("GOLDEN_PARTS", GOLDEN_QUICK_PARTS)
    for target in ("test-c", "test-golden", "test-format"):
        results.append(make_suite(target))
    native = os.environ.get("NATIVE_PYTHON")
    if native:
        # A CPython built with --enable-pystats: tests/py/test_native.py
        # compares the collector with its own counters.
        r = run(["make", "-s", "ext", "WERROR=1", "PYTHON=" + native])
        if r.returncode != 0:
            results.append(("native-build", 0, 1, 0))
        else:
            out = subprocess.run(["make", "-s", "print-ext-dir",
                                  "PYTHON=" + native], cwd=ROOT,
                                 capture_output=True, text=True)
            os.environ["PYSTATS_NATIVE_BUILD"] = out.stdout.strip()
    # Each interpreter's suite made ready in turn (pip, the build), then
    # run side by side with the Python suite under ASan and UBSan (the
    # newest interpreter's).
    suites, names = [], []
    for py in pythons:
        s = pytest_suite(py, quick)
        if callable(s):
            suites.append(s)
            names.append(s.__name__)
        else:
            results.append(s)
    if pythons and not quick:
        suites.append(make_suite_later("test-asan"))
        names.append("test-asan")
    # The short ones last, filling the cores the long ones leave.
    if not quick:
        for target in ("test-html", "test-fuzz"):
            suites.append(make_suite_later(target))
            names.append(target)
    results.extend(side_by_side(suites, names))
    print()
    for line in MISSING:
        print(line)
    for name, p, f, sk in results:
        print("  %-14s %d passed, %d failed, %d skipped" % (name, p, f, sk))
    passed = sum(r[1] for r in results)
    failed = sum(r[2] for r in results)
    skipped = sum(r[3] for r in results)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
