"""Site executions by state (docs/FORMAT.md 1.18) against the native
counters of a CPython built with --enable-pystats, in one process: the
collector (backend own, mode count, census alongside) and the
interpreter's own counters count the same work, switched on and off in
C around exactly it, so both see the same specialization decisions
(tools/native_effectiveness.py runs it and makes the rows).

The expected figures are the native build's: its execution count of
each form (its hits plus its misses), of each family (base, forms and
INSTRUMENTED_<base>, less one per specialization attempt, which runs
the instruction twice), and the collector's own site rows (how many
sites are in each form), read from its dump's lines.  The figures under
test are `pystats summarize --json`'s census.site_executions.

Skipped when NATIVE_PYTHON is not set.  tests/run.py builds the
extension for it into build/py<X.Y>-native and sets PYSTATS_NATIVE_BUILD.
"""
import copy
import os
import sys

import pytest

from conftest import HERE, native_stats_dir

ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import native_effectiveness as ne  # noqa: E402

NATIVE = os.environ.get("NATIVE_PYTHON")
BUILD = os.environ.get("PYSTATS_NATIVE_BUILD")
CLI = ne.cli_path()
pytestmark = [
    pytest.mark.skipif(not (NATIVE and BUILD),
                       reason="NATIVE_PYTHON not set"),
    pytest.mark.skipif(not os.access(CLI, os.X_OK),
                       reason="build/pystats not built"),
]

WORK = '''
import sys
def work(tests_py, name, runs):
    sys.path.insert(0, tests_py)
    import workloads
    run = workloads.load(name).run
    def work():
        for _ in range(int(runs)):
            run()
    return work
'''

# Not read while counting (instrumented by the collector's events): the
# census says "excluded", whatever the site did (a quiet FOR_ITER, whose
# events are off, specializes: only the family's total is compared).
EXCLUDED = ("RESUME", "FOR_ITER")


def problems(run):
    """What in the collector's figures disagrees with the native ones."""
    out = []
    clean = set()
    for r in ne.compare(run):
        fam = r["family"]
        if r["form"] is None:
            if fam == "RESUME":
                # Native runs a RESUME twice where the code's
                # instrumentation was out of date (once to bring it up
                # to date): at least the collector's count.
                if r["native"] < r["collector"]:
                    out.append("%s: native %d < collector %d" % (
                        fam, r["native"], r["collector"]))
                continue
            if fam == "LOAD_ATTR" and run["version"] == "3.14":
                # 3.14: an attempt on an attribute absent from the class
                # sets the cool-down and runs the instruction again with
                # no statistic (Python/specialize.c, ABSENT): native
                # counts one more for each, at sites that then read as
                # unspecialized.
                extra = r["native"] - r["collector"]
                if not 0 <= extra <= r["never_tried"] + r["backing_off"]:
                    out.append("%s: native %d, collector %d executions" % (
                        fam, r["native"], r["collector"]))
            # Every execution of the family, whatever its state: exact.
            elif r["native"] != r["collector"]:
                out.append("%s: native %d, collector %d executions" % (
                    fam, r["native"], r["collector"]))
            if not r["rows"]:
                pass  # no sites in the census: the total only
            elif fam in EXCLUDED:
                if r["collector"] != r["excluded"]:
                    out.append("%s: not excluded" % fam)
            elif not r["misses"] and not r["failures"]:
                clean.add(fam)
        elif fam in clean:
            # No miss and no failed attempt in the family: no site left
            # its form once it had one, and each specialized at its
            # second execution (CPython's warm-up: the attempt is at the
            # second execution), the first of which ran in base form.
            # The work's code first runs inside the window, so every
            # site in form F credits F exactly one execution more than
            # the native count of F.
            if r["collector"] != r["native"] + r["warm"] * r["sites"]:
                out.append("%s: collector %d, native %d + %d sites" % (
                    r["form"], r["collector"], r["native"], r["sites"]))
    return out, clean


def run_workload(tmp_path, name, runs=3):
    module = tmp_path / "work.py"
    module.write_text(WORK)
    with native_stats_dir():
        return ne.run_one(NATIVE, BUILD, str(tmp_path / "out"), str(module),
                          "work", HERE, name, str(runs))


# Workloads whose families mostly keep their forms (see problems()):
# the families where a site changed state (a miss or a failed attempt)
# are checked by their totals only, as no native figure says where such
# a site's executions went.
NAMES = ["loops", "attrs", "closures", "classes", "comprehensions",
         "strings", "dicts", "pp_generators", "pp_classes"]


@pytest.mark.parametrize("name", NAMES)
def test_site_executions_agree_with_native_counters(tmp_path, name):
    run = run_workload(tmp_path, name)
    out, clean = problems(run)
    assert out == []
    # Something was compared form by form: at least two families and
    # some tens of specialized executions.
    rows = [r for r in ne.compare(run) if r["form"] and r["family"] in clean]
    assert len(clean - set(EXCLUDED)) >= 2
    assert sum(r["collector"] for r in rows) > 40


def test_a_misattribution_is_caught(tmp_path):
    """The same comparison fails when one figure of the collector's is
    moved: executions from one form to another of its family, or from a
    form to backing off."""
    run = run_workload(tmp_path, "attrs")
    assert problems(run)[0] == []
    clean = problems(run)[1]
    fam = next(f for f in ("LOAD_ATTR", "BINARY_OP", "CALL")
               if f in clean and len(run["collector"][f]["forms"]) >= 2)
    forms = run["collector"][fam]["forms"]
    a, b = sorted(forms)[:2]
    moved = copy.deepcopy(run)
    moved["collector"][fam]["forms"][a] -= 1
    moved["collector"][fam]["forms"][b] += 1
    assert len(problems(moved)[0]) == 2
    backed = copy.deepcopy(run)
    backed["collector"][fam]["forms"][a] -= 1
    backed["collector"][fam]["specialized"] -= 1
    backed["collector"][fam]["backing_off"] += 1
    assert len(problems(backed)[0]) == 1


ABSENT = '''
class C:
    pass
def work(n):
    o = C()
    def work():
        for _ in range(int(n)):
            try:
                o.missing
            except AttributeError:
                pass
    return work
'''


def test_attribute_absent_attempts(tmp_path):
    """A LOAD_ATTR of an attribute that neither the class nor the
    instance has: 3.13 counts each attempt as a failure (the family
    totals agree); 3.14 sets the cool-down and runs the instruction again
    with no statistic (Python/specialize.c, ABSENT), so the native build
    counts one execution more per attempt: at the second execution, then
    every 53rd (CPython's cool-down, ADAPTIVE_COOLDOWN_VALUE 52 in
    Include/internal/pycore_code.h), and the site reads as never tried."""
    n = 200
    module = tmp_path / "absent.py"
    module.write_text(ABSENT)
    run = ne.run_one(NATIVE, BUILD, str(tmp_path / "out"), str(module),
                     "work", str(n))
    fam = next(r for r in ne.compare(run) if r["family"] == "LOAD_ATTR")
    assert fam["collector"] == n
    if run["version"] == "3.14":
        assert fam["native"] - fam["collector"] == 1 + (n - 2) // 53
        assert fam["never_tried"] == n
    else:
        assert fam["native"] == fam["collector"]
    assert problems(run)[0] == []
