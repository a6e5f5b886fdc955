"""A PyPI library's threaded tests under `pystats run --mode count`,
several times, each run against the same-process oracle of
test_threads_oracle.py (a second sys.monitoring tool counting every
instruction), with sys.setswitchinterval(1e-6).

The library is pebble (thread pools, threaded decorators, futures with
timeouts and cancellation: about 70 tests that start and stop threads
all the time, 15 seconds, mostly sleeping).  Its tests are in its
source distribution only: pip downloads that (pinned, so the counts
are of the same tests every time) and installs the package into a
directory of the test's own; with no network or no pip, the test is
skipped with a line saying so.

Each run must end with every dump trusted by `pystats check` (pystats
run's exit 0), 0 desyncs, and the per-opcode executions equal to the
oracle's (test_threads_oracle.py says what "equal" means, and why 3.12's
oracle and 3.14's collector under the oracle are expected failures).
Three runs, in `make test-full` only (a run takes about a minute with
the oracle, and pip needs the network)."""
import glob
import json
import os
import subprocess
import sys
import tarfile

import pytest

from conftest import clean_env, decode_text, dumps_in
from test_threads_oracle import ORACLE_LOSES, RUNNER, compare

FULL = os.environ.get("PYSTATS_FULL_TESTS") == "1"
FREE_THREADED = bool(__import__("sysconfig").get_config_var("Py_GIL_DISABLED"))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")
PACKAGE = "pebble==5.2.3"
MODULES = ["test_thread_pool", "test_concurrent_thread",
           "test_asynchronous_thread"]
RUNS = 3

pytestmark = [
    pytest.mark.skipif(sys.version_info < (3, 12),
                       reason="segment counting is 3.12+"),
    pytest.mark.skipif(not FULL, reason="PYSTATS_FULL_TESTS (a minute or "
                       "more per run, and the network)"),
]


@pytest.fixture(scope="module")
def pebble(tmp_path_factory):
    """(site directory with pebble installed, its tests directory)."""
    base = tmp_path_factory.mktemp("pebble")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    try:
        got = subprocess.run(
            pip + ["download", "--no-deps", "--no-binary", "pebble",
                   "-d", str(base / "sdist"), PACKAGE],
            capture_output=True, text=True, timeout=600)
        if got.returncode == 0:
            got = subprocess.run(
                pip + ["install", "--no-deps", "--target", str(base / "site"),
                       PACKAGE], capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip("pip could not fetch %s: %s" % (PACKAGE, e))
    if got.returncode != 0:
        pytest.skip("pip could not fetch %s (no network?): %s" % (
            PACKAGE, (got.stderr.strip().splitlines() or [""])[-1]))
    [sdist] = glob.glob(str(base / "sdist" / "*.tar.gz"))
    with tarfile.open(sdist) as tar:
        tar.extractall(base / "src", filter="data")
    [tests] = glob.glob(str(base / "src" / "*" / "test"))
    return str(base / "site"), tests


def test_pebble_threads_trusted_and_equal_to_the_oracle(tmp_path, pebble):
    site, tests = pebble
    extra = {"PYTHON_GIL": "1"} if FREE_THREADED else {}
    env = clean_env(**extra)
    env["PYTHONPATH"] = os.pathsep.join([tests, site, env["PYTHONPATH"]])
    bad = []
    for i in range(RUNS):
        out = tmp_path / ("run%d" % i)
        oracle = tmp_path / ("oracle%d.json" % i)
        p = subprocess.run([PYSTATS_CLI, "run", "-o", str(out), "--mode",
                            "count", "--quiet", "--", sys.executable, "-c",
                            RUNNER, str(oracle)] + MODULES,
                           env=env, cwd=tests, capture_output=True,
                           text=True, timeout=1800)
        report = json.load(open(oracle))
        dumps = dumps_in(str(out))
        desync = [(int(d.header["meta.collection.desync"]), decode_text(
            d.header.get("meta.collection.inexact_cause", "")))
            for d in dumps if "meta.collection.desync" in d.header]
        diff, total = compare(report, dumps)
        bound = sum(int(d.header.get("meta.collection.leftover_bound", 0))
                    for d in dumps)
        print("pebble run %d: %d tests (%d failed), %d dumps, %d desync, "
              "leftover bound %d, %d instructions, %d opcodes differ, "
              "pystats run exit %d"
              % (i, report["tests"], report["bad"], len(dumps),
                 sum(n for n, _ in desync), bound, total, len(diff),
                 p.returncode))
        assert report["tests"] > 50
        if ORACLE_LOSES:
            diff = {}
        if p.returncode or desync or diff:
            bad.append("run %d: exit %d (%s), desync %s, %d threads alive, "
                       "(collector, oracle) per opcode %s" % (
                           i, p.returncode, p.stderr[-500:], desync,
                           report["alive"], diff))
    assert not bad, "\n".join(bad)
