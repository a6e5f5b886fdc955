"""CPython's own threaded test modules run in mode count, with
sys.setswitchinterval(1e-6) so that threads are preempted at as many
points as the interpreter allows: every dump must be trusted by `pystats
check` (no desync, no pair that cannot happen), whatever the
interleaving.  A desync, if any, is reported with where it happened
(meta.collection.inexact_cause).

Two tiers: test_queue and test_threading_local run in `make test`;
PYSTATS_FULL_TESTS=1 (`make test-full`) adds test_threading, test_thread
and the thread pool tests of test_concurrent_futures.

These suites never run the same instructions twice (threads, timeouts),
so there is no second run to compare counts with; the exactness of
counts against an oracle is test_threads_end.py's, on scripted
interleavings."""
import json
import os
import subprocess
import sys

import pytest

from conftest import clean_env, decode_text, dumps_in

FULL = os.environ.get("PYSTATS_FULL_TESTS") == "1"
FREE_THREADED = bool(__import__("sysconfig").get_config_var("Py_GIL_DISABLED"))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")

pytestmark = [
    pytest.mark.skipif(sys.version_info < (3, 12),
                       reason="segment counting is 3.12+"),
    pytest.mark.skipif(FREE_THREADED,
                       reason="segment counting needs the GIL"),
]

RUNNER = """
import sys, unittest
sys.setswitchinterval(1e-6)
import pystats
pystats.on(mode="count")
names = sys.argv[1:]
loader = unittest.defaultTestLoader
suite = unittest.TestSuite()
for name in names:
    mod = __import__(name, fromlist=["*"])
    suite.addTests(loader.loadTestsFromModule(mod))
with open("/dev/null", "w") as devnull:
    r = unittest.TextTestRunner(stream=devnull, verbosity=0).run(suite)
print(r.testsRun, len(r.failures) + len(r.errors), len(r.skipped))
"""

QUICK = ["test.test_queue", "test.test_threading_local"]
MORE = ["test.test_threading", "test.test_thread",
        "test.test_concurrent_futures.test_thread_pool"]


def have(module):
    return subprocess.run([sys.executable, "-c", "import " + module],
                          capture_output=True).returncode == 0


@pytest.mark.parametrize("module", QUICK + [
    pytest.param(m, marks=pytest.mark.skipif(not FULL,
                                             reason="PYSTATS_FULL_TESTS"))
    for m in MORE])
def test_threaded_suite_is_trusted(tmp_path, module):
    if not have(module):
        pytest.skip(module + " is not installed with this interpreter")
    out = tmp_path / "dumps"
    p = subprocess.run([sys.executable, "-c", RUNNER, module],
                       env=clean_env(PYSTATS_DIR=out), capture_output=True,
                       text=True, timeout=1800)
    assert p.returncode == 0, p.stderr[-2000:]
    tests, bad, skipped = map(int, p.stdout.split()[-3:])
    assert tests > 0
    dumps = dumps_in(str(out))
    assert dumps
    desync = {d.path: (d.header["meta.collection.desync"], decode_text(
        d.header.get("meta.collection.inexact_cause", "")))
        for d in dumps if "meta.collection.desync" in d.header}
    c = subprocess.run([PYSTATS_CLI, "check", str(out), "--json", "-"],
                       capture_output=True, text=True, timeout=600)
    assert c.returncode in (0, 6), c.stderr
    errors = [f for f in json.loads(c.stdout)["findings"]
              if f["severity"] == "error"]
    leftover = sum(int(d.header.get("meta.collection.leftover_bound", 0))
                   for d in dumps)
    print("%s: %d tests (%d failed, %d skipped), %d dumps, %d desync, "
          "leftover bound %d instructions" % (
              module, tests, bad, skipped, len(dumps), len(desync), leftover))
    assert not desync, "\n".join("%s: desync %s; %s" % (p, n, where)
                                  for p, (n, where) in desync.items())
    assert not errors, errors
