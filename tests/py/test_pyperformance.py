"""pyperformance itself, end to end, the way docs/COLLECTING.md's steps
run it (`make test-full` only: PYSTATS_FULL_TESTS=1; a few minutes):
one directory for this interpreter, pyperformance and the pystats wheel
(built once) installed in a virtual environment of its own, the
benchmarks' environment created by `pyperformance venv create`, the same
wheel installed into it, then two `pyperformance run`s of nbody
(bench_time_func), richards (bench_func with an argument) and generators
(bench_time_func, generators), one with `--debug-single-value` (one call
per value) and one with `--fast` (loops calibrated by pyperf):

- every dump's census (3.12+) holds the benchmark's own code objects
  only, with the sites dis finds in them: the code a profile of one call
  of the benchmark reaches, in a process without pystats, and nothing of
  pyperf's or of the benchmark module's top level;
- the calls each dump says it covers add up to the loops pyperf's own
  JSON says it ran;
- `compare --by-label` of the two runs gives each benchmark's calls,
  instructions, instructions per call, per-call change and the geometric
  mean of the per-call ratios as computed here from the raw dumps.

Where pyperformance cannot be installed (no network), skipped with a
line saying so."""
import glob
import json
import math
import os
import shutil

import pytest

from test_packaging import dist, make_venv, pip, sh  # noqa: F401
from test_pyperf import (CENSUS, PYSTATS_CLI, RUNS, cli,
                         labelled, py, read_dumps,
                         check_census_is_the_benchmark, check_dumps_and_metadata,
                         pyperformance_bench)

pytestmark = [
    pytest.mark.skipif(os.environ.get("PYSTATS_FULL_TESTS") != "1",
                       reason="pyperformance runs only in make test-full "
                              "(PYSTATS_FULL_TESTS=1)"),
    pytest.mark.skipif(not os.access(PYSTATS_CLI, os.X_OK),
                       reason="build/pystats not built"),
]

BENCHMARKS = ["generators", "nbody", "richards"]

# What a profile of one call of each benchmark runs: its callable, as
# run_benchmark.py hands it to pyperf, evaluated in the module's
# namespace, and the arguments of one call.
CALLABLES = {
    "nbody": ("bench_nbody", [1, "sun", 20000]),
    "richards": ("Richards().run", [1]),
    "generators": ("bench_generators", [1]),
}


@pytest.fixture(scope="module")
def here(tmp_path_factory, dist):
    """This interpreter's directory, set up as docs/COLLECTING.md says:
    v (pyperformance and pystats), wheels/ (the wheel, built once),
    venv/ (the benchmarks' environment, with the same wheel)."""
    d = tmp_path_factory.mktemp("pyperformance")
    wheels = d / "wheels"
    wheels.mkdir()
    shutil.copy(dist["wheel"], wheels)
    [wheel] = glob.glob(str(wheels / "*.whl"))
    v = make_venv(d / "v")
    try:
        pip(v, "install", "pyperformance", wheel)
    except AssertionError as e:
        pytest.skip("pyperformance cannot be installed here: %s" %
                    str(e).strip().splitlines()[-1])
    sh([os.path.join(v, "bin", "pyperformance"), "venv", "create", "-b",
        ",".join(BENCHMARKS)], venv=v, cwd=str(d), timeout=900)
    # One directory per interpreter: its venv/* is this interpreter's
    # environment, and only that.
    [bench_py] = glob.glob(str(d / "venv" / "*" / "bin" / "python"))
    sh([bench_py, "-m", "pip", "install", "-q",
        "--disable-pip-version-check", wheel], venv=v, cwd=str(d))
    return {"dir": d, "v": v}


def pyperformance_run(here, name, *options):
    d, v = here["dir"], here["v"]
    stats, out = str(d / ("stats-" + name)), str(d / (name + ".json"))
    sh([os.path.join(v, "bin", "pyperformance"), "run"] + list(options) +
       ["-b", ",".join(BENCHMARKS), "--hook", "pystats_collector",
        "--inherit-environ", "PYSTATS_DIR", "-o", out],
       venv=v, cwd=str(d), PYSTATS_DIR=stats, timeout=1200)
    return stats, out


def split_by_label(stats, into):
    """Each benchmark's dumps copied into a directory of its own."""
    dirs = {}
    for name in os.listdir(stats):
        with open(os.path.join(stats, name)) as f:
            label = next(value.rstrip("\n") for key, _, value in
                         (line.rpartition(" : ") for line in f)
                         if key == "meta.label")
        dirs.setdefault(label, os.path.join(into, label))
        os.makedirs(dirs[label], exist_ok=True)
        shutil.copy(os.path.join(stats, name), dirs[label])
    return dirs


def test_pyperformance_census_and_compare_by_label(here, tmp_path):
    d, v = here["dir"], here["v"]
    runs = {}
    for side, options in (("single", ["--debug-single-value"]),
                          ("fast", ["--fast"])):
        runs[side] = pyperformance_run(here, side, *options)
    raw = {side: labelled(stats) for side, (stats, _) in runs.items()}
    for side, (stats, out) in runs.items():
        assert sorted(raw[side]) == BENCHMARKS, sorted(raw[side])
        by_label = split_by_label(stats, str(tmp_path / side))
        for bench in BENCHMARKS:
            ran = py(v, RUNS.replace(
                "pyperf.Benchmark.load(sys.argv[1])",
                "pyperf.BenchmarkSuite.load(sys.argv[1])"
                ".get_benchmark(%r)" % bench), out, cwd=str(d))
            dumps = read_dumps(by_label[bench])
            check_dumps_and_metadata(ran, dumps, stats, bench, "function",
                                     "PYSTATS_DIR")
            # The calls the dumps cover are the loops pyperf ran.
            calls = sum(sum(r["loops"]) for r in ran["runs"])
            assert raw[side][bench][0] == calls
            if side == "single":
                assert calls == 1
            if CENSUS:
                script = pyperformance_bench(v, d, bench)
                fn, args = CALLABLES[bench]
                names = check_census_is_the_benchmark(
                    v, d, by_label[bench], script, fn, args)
                # pyperf's harness (Runner._main, WorkerTask.*, ...)
                # and the module's top level are not in it.
                assert not any(n.startswith(("Runner.", "WorkerTask."))
                               or n == "<module>" for n in names), names
                if bench == "nbody":
                    assert names == ["advance", "bench_nbody",
                                     "offset_momentum", "report_energy"]
    # pyperf calibrated more than one call per value with --fast.
    assert all(raw["fast"][b][0] > raw["single"][b][0] for b in BENCHMARKS)

    per_call = {side: {b: raw[side][b][1] / raw[side][b][0]
                       for b in BENCHMARKS} for side in raw}
    out = tmp_path / "by-label.json"
    cli("compare", "--by-label", runs["single"][0], runs["fast"][0],
        "--json", str(out))
    report = json.loads(out.read_text())
    assert report["schema"] == "comparison-by-label/1"
    labels = {x["label"]: x for x in report["labels"]}
    assert sorted(labels) == BENCHMARKS
    for bench, x in labels.items():
        for side, name in (("base", "single"), ("head", "fast")):
            calls, instructions, execs = raw[name][bench]
            assert x[side]["calls"] == calls
            assert x[side]["instructions"] == instructions
            assert x[side]["per_call"] == pytest.approx(
                instructions / calls, rel=1e-12)
        assert x["rel"] == pytest.approx(
            per_call["fast"][bench] / per_call["single"][bench] - 1,
            rel=1e-9, abs=1e-12)
        rows = {r["name"]: r for r in x["rows"]}
        for op, n in raw["fast"][bench][2].items():
            assert rows[op]["head_per_call"] == pytest.approx(
                n / raw["fast"][bench][0], rel=1e-12)
    ratios = [per_call["fast"][b] / per_call["single"][b] for b in BENCHMARKS]
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    assert report["geometric_mean"]["ratio"] == pytest.approx(geo, rel=1e-12)
    assert report["geometric_mean"]["labels"] == 3
    # The whole suite compared at once says so when the calls changed in
    # different proportions (with counting on, pyperf often calibrates
    # one loop per value for all three: then nothing to say).
    r = cli("compare", runs["single"][0], runs["fast"][0])
    uneven = len({raw["fast"][b][0] / raw["single"][b][0]
                  for b in BENCHMARKS}) > 1
    assert ("the benchmarks ran different numbers of calls" in r.stderr) \
        == uneven, r.stderr
