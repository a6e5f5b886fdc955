"""The pyperf hook (python/pystats/pyperf_hook.py), for real: pystats
installed with pip into a fresh virtual environment with pyperf and
pyperformance, benchmarks run by pyperf with `--hook pystats_collector`
(worker processes, loop calibration and all), and the dumps compared
with the benchmark code's own counts, taken in-process with
pystats.measure():

- bench_func: every call of the benchmark function counts exactly the
  function's instructions: total = calls * per-call counts, per opcode
  and per pair, not one instruction of pyperf's;
- bench_time_func: the time function's counts are linear in `loops`
  (A + loops * B, checked), total = sum over calls;
- two of pyperformance's benchmarks (nbody: bench_time_func, nqueens:
  bench_func), run from pyperformance's own files the way pyperformance
  runs them;
- bench_async_func (scope "window"): the benchmark's signature
  instruction is counted exactly, pyperf's harness code (and asyncio's
  event loop) on top of it;
- the specialization census each dump carries on 3.12+, taken at the
  hook's teardown: a failing site's row (family, attempts, counter, file,
  line, function, source) is what CPython's backoff makes of that many
  executions and what a census of the same code read in a separate
  process says; the census walk is outside the timed calls (every value
  pyperf measured is far below the time of one walk, which the test
  measures) and counted nowhere (the counts stay exact).

Slow (it installs and benchmarks): PYSTATS_QUICK_TESTS=1 skips it."""
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from test_packaging import ROOT, dist, make_venv, pip, sh  # noqa: F401

pytestmark = pytest.mark.skipif(
    os.environ.get("PYSTATS_QUICK_TESTS", "") not in ("", "0"),
    reason="PYSTATS_QUICK_TESTS: pyperf runs skipped")


@pytest.fixture(scope="module")
def venv(tmp_path_factory, dist):
    """pyperf, pyperformance and the wheel test_packaging built."""
    v = make_venv(tmp_path_factory.mktemp("pyperf") / "venv")
    pip(v, "install", "pyperf", "pyperformance", dist["wheel"])
    return v


def vpy(venv):
    return os.path.join(venv, "bin", "python")


def py(venv, code, *args, cwd, **env):
    r = sh([vpy(venv), "-c", textwrap.dedent(code)] + list(args), venv=venv,
           cwd=cwd, **env)
    return json.loads(r.stdout)


def read_dumps(directory):
    """[(header, exec counts, pair counts)] of every dump in directory."""
    out = []
    for name in sorted(os.listdir(directory)):
        assert not name.startswith("."), "leftover " + name
        header, execs, pairs = {}, {}, {}
        with open(os.path.join(directory, name)) as f:
            for line in f.read().splitlines():
                key, _, value = line.rpartition(" : ")
                if key.startswith(("pystats.", "meta.")):
                    header[key] = value
                elif not key.startswith("opcode["):
                    continue    # other statistics (GC, ...)
                elif key.endswith(".execution_count"):
                    execs[key[7:-17]] = int(value)
                elif "].pair_count[" in key:
                    a, b = key[7:-1].split("].pair_count[")
                    pairs[a + " " + b] = int(value)
        out.append((header, execs, pairs))
    return out


def total(dumps):
    execs, pairs = {}, {}
    for _, e, p in dumps:
        for k, v in e.items():
            execs[k] = execs.get(k, 0) + v
        for k, v in p.items():
            pairs[k] = pairs.get(k, 0) + v
    return execs, pairs


# What pyperf did: every timed call, from its JSON (calibration runs
# included), and the hook's metadata.
RUNS = """
import json, sys, pyperf
bench = pyperf.Benchmark.load(sys.argv[1])
runs = []
for run in bench.get_runs():
    md = run.get_metadata()
    loops = [l for l, v in run.warmups or ()]
    loops += [md["loops"]] * len(run.values)
    runs.append({"loops": loops, "inner_loops": md.get("inner_loops", 1),
                 "md": {k: v for k, v in md.items()
                        if k.startswith("pystats_collector") or k == "hooks"}})
print(json.dumps({"name": bench.get_name(), "runs": runs}))
"""

# Counts of fn(*args) taken in-process with measure(), keyed as in
# read_dumps().
MEASURE = """
import importlib.util, json, sys, pystats
spec = importlib.util.spec_from_file_location("bm", sys.argv[1])
bm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bm)
out = []
for args in json.loads(sys.argv[3]):
    pystats.clear()
    pystats.measure(eval(sys.argv[2], vars(bm)), *args)
    s = pystats.snapshot()
    out.append([s["execution_count"],
                {a + " " + b: n for (a, b), n in s["pair_count"].items()}])
print(json.dumps(out))
"""


def measured(venv, script, fn, arg_lists, cwd):
    return py(venv, MEASURE, script, fn, json.dumps(arg_lists), cwd=cwd)


def scale(counts, k):
    return {key: v * k for key, v in counts.items()}


def linear(c1, c2, c3):
    """(A, B) with c(loops) = A + loops * B, checked against loops=3."""
    a, b = {}, {}
    for key in set(c1) | set(c2) | set(c3):
        b[key] = c2.get(key, 0) - c1.get(key, 0)
        a[key] = c1.get(key, 0) - b[key]
        assert c3.get(key, 0) == a[key] + 3 * b[key], key
    return a, b


def combine(*terms):
    out = {}
    for counts, k in terms:
        for key, v in counts.items():
            out[key] = out.get(key, 0) + v * k
    return {key: v for key, v in out.items() if v}


def run_pyperf(venv, tmp_path, script, *args, inherit=False,
               name="bench", **env):
    stats = str(tmp_path / ("stats-" + name))
    out = str(tmp_path / (name + ".json"))
    cmd = [vpy(venv), script, "--hook", "pystats_collector", "-o", out,
           "--quiet"] + list(args)
    if inherit:
        cmd += ["--inherit-environ", ",".join(["PYSTATS_DIR"] + list(env))]
    r = sh(cmd, venv=venv, cwd=str(tmp_path), PYSTATS_DIR=stats,
           timeout=900, **env)
    # The hook's one line: values timed with counting on, said by the
    # worker that calibrates the loops (none when --loops is given).
    # (A free-threaded CPython's own warning that importing the collector
    # turned the GIL on is CPython's line, not the hook's.)
    said = [ln for ln in r.stderr.splitlines() if "pystats" in ln and
            "The global interpreter lock (GIL) has been enabled" not in ln]
    timing = [ln for ln in said if ln.startswith(
        "pystats: pystats_collector: the values of ") and
        "are timed with counting on" in ln]
    assert said == timing, r.stderr
    assert len(timing) == (0 if any(a.startswith("--loops") for a in args)
                           else 1), r.stderr
    runs = py(venv, RUNS, out, cwd=str(tmp_path))
    dumps = read_dumps(stats)
    return runs, dumps, stats


# A census alongside counting: mode count on 3.12+.
CENSUS = sys.version_info >= (3, 12)


def check_dumps_and_metadata(runs, dumps, stats, name, scope, dir_from,
                             census=CENSUS):
    # Every worker wrote dumps, labelled with the benchmark's name.
    pids = {h["meta.process.pid"] for h, _, _ in dumps}
    assert len(pids) == len(runs["runs"]), (pids, runs)
    # The workers of one benchmark are one run (docs/CLI.md, "Runs"),
    # although pyperf passes its workers no PYSTATS_RUN_ID.
    ids = {h.get("meta.run.id") for h, _, _ in dumps}
    assert len(ids) == 1 and None not in ids, ids
    for h, _, _ in dumps:
        assert h["meta.label"] == name
        assert h["meta.dump.reason"] == "explicit"
        assert h["meta.collection.on_at_dump"] == "0"
        # The census of the hook's teardown, in scope count (3.12+).
        assert h.get("meta.census.scope") == ("count" if census else None)
    counted = 0
    for run in runs["runs"]:
        md = run["md"]
        assert md["hooks"] == "pystats_collector"
        assert md["pystats_collector_scope"] == scope
        assert md["pystats_collector_dir"] == stats
        assert md["pystats_collector_dir_from"].startswith(dir_from), md
        assert md["pystats_collector_label"] == name
        assert md["pystats_collector_census"] == (
            "count" if census else "none")
        assert md["pystats_collector_timing"] == \
            "counting inside the timed calls"
        counted += md["pystats_collector_instructions"]
    # What the metadata says was counted is what the dumps hold.
    assert counted == sum(sum(e.values()) for _, e, _ in dumps)


BENCH = """
import pyperf

def matchy():
    for i in range(40):
        match i:
            case int():
                pass

def timed(loops):
    range_it = range(loops)
    t0 = pyperf.perf_counter()
    for _ in range_it:
        matchy()
    return pyperf.perf_counter() - t0

async def amatchy():
    matchy()

if __name__ == "__main__":
    runner = pyperf.Runner()
    kind = KIND
    if kind == "func":
        runner.bench_func("matchy", matchy)
    elif kind == "time_func":
        runner.bench_time_func("timed", timed)
    else:
        runner.bench_async_func("async_matchy", amatchy)
"""


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """bench.py KIND: one script per kind (pyperf's workers run the
    script with pyperf's arguments only)."""
    d = tmp_path_factory.mktemp("bench")
    for kind in ("func", "time_func", "async"):
        (d / (kind + ".py")).write_text(BENCH.replace("KIND", repr(kind)))
    return lambda kind: str(d / (kind + ".py"))


def test_entry_points(venv, tmp_path):
    names = py(venv, """
        import json
        from importlib.metadata import entry_points
        print(json.dumps(sorted(e.name for e in
                                entry_points(group="pyperf.hook"))))
        """, cwd=str(tmp_path))
    # Ours, next to pyperf's own "pystats" (native builds).
    assert "pystats_collector" in names and "pystats" in names


def test_bench_func_counts_exactly_the_function(venv, tmp_path, bench):
    # Loop calibration on (a calibration worker, then value workers);
    # PYSTATS_DIR reaches the workers without --inherit-environ.
    runs, dumps, stats = run_pyperf(
        venv, tmp_path, bench("func"), "-p", "2", "-w", "1", "-n", "2",
        "--min-time", "0.002", name="func")
    check_dumps_and_metadata(runs, dumps, stats, "matchy", "function",
                             "PYSTATS_DIR of process")
    calls = sum(sum(r["loops"]) for r in runs["runs"])
    assert calls > 4
    [(e1, p1)] = measured(venv, bench("func"), "matchy", [[]], str(tmp_path))
    execs, pairs = total(dumps)
    assert execs["MATCH_CLASS"] == 40 * calls
    assert execs == scale(e1, calls)
    assert pairs == scale(p1, calls)


def test_bench_time_func_counts_exactly_the_time_function(venv, tmp_path,
                                                          bench):
    # PYSTATS_CENSUS=0, passed to the workers, leaves the census out.
    runs, dumps, stats = run_pyperf(
        venv, tmp_path, bench("time_func"), "-p", "2", "-w", "1", "-n", "2",
        "--min-time", "0.002", inherit=True, name="time_func",
        PYSTATS_CENSUS="0")
    check_dumps_and_metadata(runs, dumps, stats, "timed", "function",
                             "PYSTATS_DIR", census=False)
    loops = [l for r in runs["runs"] for l in r["loops"]]
    (e1, p1), (e2, p2), (e3, p3) = measured(
        venv, bench("func"), "timed", [[1], [2], [3]], str(tmp_path))
    ea, eb = linear(e1, e2, e3)
    pa, pb = linear(p1, p2, p3)
    execs, pairs = total(dumps)
    assert execs["MATCH_CLASS"] == 40 * sum(loops)
    assert execs == combine((ea, len(loops)), (eb, sum(loops)))
    assert pairs == combine((pa, len(loops)), (pb, sum(loops)))


def test_async_window_counts_the_benchmark_and_the_harness(venv, tmp_path,
                                                           bench):
    runs, dumps, stats = run_pyperf(
        venv, tmp_path, bench("async"), "-p", "1", "-w", "1", "-n", "2",
        "--loops", "3", name="async")
    check_dumps_and_metadata(runs, dumps, stats, "async_matchy", "window",
                             "PYSTATS_DIR of process")
    calls = sum(sum(r["loops"]) for r in runs["runs"])
    [(e1, p1)] = measured(venv, bench("func"), "matchy", [[]], str(tmp_path))
    execs, pairs = total(dumps)
    # Nothing of the benchmark is lost ...
    assert execs["MATCH_CLASS"] == 40 * calls
    for op, n in e1.items():
        assert execs[op] >= n * calls, op
    # ... and pyperf's own code is counted too (docs/COLLECTING.md, "pyperf").
    assert sum(execs.values()) > sum(e1.values()) * calls
    if CENSUS:
        # The census of each window is the code that ran in it: the code
        # objects with hot code (1.14), not the frames that enclose the
        # window (Runner._main, Runner._worker, the module's top level...).
        # A worker's first window imports asyncio, whose code objects may
        # share a hot-code key: the later ones are compared.
        later = {}
        for name in sorted(os.listdir(stats)):
            with open(os.path.join(stats, name)) as f:
                lines = f.read().splitlines()
            head = dict(l.split(" : ", 1) for l in lines
                        if l.startswith("meta."))
            later.setdefault(head["meta.process.pid"], []).append(
                (head["meta.time.end"], lines))
        compared = 0
        for worker in later.values():
            for _, lines in sorted(worker)[1:]:
                census = dict(l.split(" : ", 1) for l in lines
                              if l.startswith("census."))
                hot = [l for l in lines
                       if l.startswith("code[") and "].instructions : " in l]
                assert int(census["census.code_objects"]) + int(
                    census["census.dead_code_objects"]) == len(hot)
                compared += 1
        assert compared >= 1


def census_of(directory):
    """[census.* lines as a dict] of every dump in directory."""
    out = []
    for name in sorted(os.listdir(directory)):
        lines = {}
        with open(os.path.join(directory, name)) as f:
            for line in f.read().splitlines():
                key, _, value = line.partition(" : ")
                if key.startswith(("census.", "meta.census.")):
                    lines[key] = value
        out.append(lines)
    return out


def sites_in(census, filename, qualname):
    """The census.site rows of one function, split into their fields."""
    rows = []
    for key, value in census.items():
        if key.startswith("census.site["):
            row = value.split(" | ")
            if row[3] == filename and row[5] == qualname:
                rows.append(row)
    return rows


# The code objects one call of fn(*args) runs (a profile of the call, in
# a process without pystats), and their sites by family as dis reads them
# (base opcodes: independent of the adaptive bytecode the census reads),
# those of the families named in argv[4] apart.
RAN_CODE = """
import dis, importlib.util, json, opcode, sys
spec = importlib.util.spec_from_file_location("bm", sys.argv[1])
bm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bm)
fn = eval(sys.argv[2], vars(bm))
args = json.loads(sys.argv[3])
excluded = set(sys.argv[4].split(","))
codes = {}
def profile(frame, event, arg):
    if event == "call":
        codes[frame.f_code] = None
sys.setprofile(profile)
fn(*args)
sys.setprofile(None)
sites, left_out = {}, {}
for co in codes:
    for ins in dis.get_instructions(co):
        if ins.opname not in opcode._specializations:
            continue
        if ins.opname == "JUMP_BACKWARD" and sys.version_info >= (3, 14):
            continue                    # no site (docs/FORMAT.md 1.10)
        into = left_out if ins.opname in excluded else sites
        into[ins.opname] = into.get(ins.opname, 0) + 1
print(json.dumps({"names": sorted(co.co_qualname for co in codes),
                  "code_objects": len(codes), "sites": sites,
                  "excluded": left_out}))
"""


def census_reading(census):
    """What a dump's census read: code objects, sites by family, sites
    of the families left out (those with sites)."""
    sites = {k[len("census.family["):-len("].sites")]: int(v)
             for k, v in census.items()
             if k.startswith("census.family[") and k.endswith("].sites")}
    excl = {k[len("census.excluded_family["):-1]: int(v)
            for k, v in census.items()
            if k.startswith("census.excluded_family[") and int(v)}
    return {"code_objects": int(census["census.code_objects"]),
            "sites": sites, "excluded": excl}


def check_census_is_the_benchmark(venv, tmp_path, stats, script, fn, args):
    """Every dump's census (scope function) reads the benchmark's own code
    objects, and nothing of pyperf's or of the benchmark module's top
    level (docs/FORMAT.md 1.10): those a profile of one call of the
    benchmark sees, with the sites dis finds in them."""
    censuses = census_of(stats)
    excluded = sorted(k[len("census.excluded_family["):-1]
                      for k in censuses[0]
                      if k.startswith("census.excluded_family["))
    want = py(venv, RAN_CODE, script, fn, json.dumps(args),
              ",".join(excluded), cwd=str(tmp_path))
    names = want.pop("names")
    assert "<module>" not in names and len(names) == want["code_objects"]
    for census in censuses:
        assert census["census.dead_code_objects"] == "0"
        assert census_reading(census) == want, names
    return names


# A site that fails to specialize and backs off, at a known line: LOAD_ATTR
# of an attribute the class lacks, answered by __getattr__ (3.14: a C
# type's getset descriptor, as tests/py/test_census.py explains).
CENSUS_BENCH = """
import sys
import pyperf

class Lazy:
    def __getattr__(self, name):
        return 5

if sys.version_info >= (3, 14):
    class Lazy(complex):
        y = complex.real

OBJS = [Lazy() for _ in range(100)]

def work():
    t = 0
    for o in OBJS:
        t += o.y
    return t

if __name__ == "__main__":
    pyperf.Runner().bench_func("census_work", work)
"""

# The same code, run the same number of times in a plain process, then a
# census read there (mode census: nothing was instrumented).
SEPARATE_CENSUS = """
import importlib.util, sys, pystats
spec = importlib.util.spec_from_file_location("bm", sys.argv[1])
bm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bm)
for _ in range(int(sys.argv[2])):
    bm.work()
pystats.on(mode="census")
pystats.off()
pystats.dump()
"""


@pytest.mark.skipif(not CENSUS, reason="a census alongside counting is 3.12+")
def test_census_at_teardown_is_right(venv, tmp_path):
    script = tmp_path / "census_bench.py"
    script.write_text(CENSUS_BENCH)
    # One worker, one series of 3 calls: 300 executions of the site.
    runs, dumps, stats = run_pyperf(
        venv, tmp_path, str(script), "-p", "1", "-w", "0", "-n", "1",
        "--loops", "3", name="census")
    check_dumps_and_metadata(runs, dumps, stats, "census_work", "function",
                             "PYSTATS_DIR of process")
    calls = sum(sum(r["loops"]) for r in runs["runs"])
    assert calls == 3
    [census] = census_of(stats)
    assert census["meta.census.scope"] == "count"
    # The families segment counting instruments are left out, and said so.
    assert "census.excluded_family[FOR_ITER]" in census
    line = str(CENSUS_BENCH.splitlines().index("        t += o.y") + 1)
    [row] = sites_in(census, str(script), "work")
    # 300 executions: attempts at executions 2, 6, 14, 30, 62, 126, 254
    # (CPython's backoff doubles the wait after each failure), 7 failures;
    # 255 - 46 - 7 = 202 left on the counter (tests/py/test_census.py).
    assert row == ["LOAD_ATTR", "7", "202", str(script), line, "work",
                   "t += o.y"]
    assert int(census["census.family[LOAD_ATTR].backing_off"]) >= 1
    # What a census of the same code, run as often, reads elsewhere.
    separate = tmp_path / "separate"
    sh([vpy(venv), "-c", SEPARATE_CENSUS, str(script), str(calls)],
       venv=venv, cwd=str(tmp_path), PYSTATS_DIR=str(separate))
    [other] = census_of(str(separate))
    assert other["meta.census.scope"] == "census"
    assert sites_in(other, str(script), "work") == [row]
    # The walk counted nothing: the counts are the calls' own.
    [(e1, p1)] = measured(venv, str(script), "work", [[]], str(tmp_path))
    execs, pairs = total(dumps)
    assert execs == scale(e1, calls)
    assert pairs == scale(p1, calls)


# Many code objects make one census walk slow: 60,000 functions.
SLOW_CENSUS_BENCH = """
import pyperf

NS = {}
exec("\\n".join("def f%d():\\n    return %d" % (i, i) for i in range(60000)),
     NS)

class Plain:
    x = 1

# Scope count reads the code that ran: work() is quick, and has 60,000
# sites the census reads (a branch never taken).
exec("def work():\\n    if Plain.x:\\n        return 1\\n"
     + "    Plain.x\\n" * 60000)

if __name__ == "__main__":
    pyperf.Runner().bench_func("slow_census", work)
"""

TIME_A_CENSUS = """
import importlib.util, json, sys, time, pystats
spec = importlib.util.spec_from_file_location("bm", sys.argv[1])
bm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bm)
times = []
for _ in range(3):
    pystats.on(mode="census")
    pystats.off()
    t0 = time.perf_counter()
    pystats.dump()
    times.append(time.perf_counter() - t0)
print(json.dumps(min(times)))
"""


@pytest.mark.skipif(not CENSUS, reason="a census alongside counting is 3.12+")
def test_census_is_outside_the_timed_calls(venv, tmp_path):
    script = tmp_path / "slow_census_bench.py"
    script.write_text(SLOW_CENSUS_BENCH)
    runs, dumps, stats = run_pyperf(
        venv, tmp_path, str(script), "-p", "1", "-w", "1", "-n", "3",
        "--loops", "1", name="slow")
    check_dumps_and_metadata(runs, dumps, stats, "slow_census", "function",
                             "PYSTATS_DIR of process")
    # Every teardown's census read work()'s 60,000 sites ...
    for census in census_of(stats):
        assert int(census["census.family[LOAD_ATTR].sites"]) > 60000
    # ... which takes this long (a census of the same code, timed here) ...
    walk = py(venv, TIME_A_CENSUS, str(script), cwd=str(tmp_path))
    assert walk > 0.01, walk
    # ... while every value pyperf measured (one call each) is a small
    # fraction of it: no walk happened inside a timed call.
    # (The warmup, work()'s first call, also has sys.monitoring
    # instrument its 60,000 lines, which takes as long as reading them:
    # the values compared are the timed ones after it.)
    values = py(venv, """
        import json, sys, pyperf
        b = pyperf.Benchmark.load(sys.argv[1])
        print(json.dumps([[v for r in b.get_runs() for v in r.values],
                          [v for r in b.get_runs()
                           for _, v in r.warmups or ()]]))
        """, str(tmp_path / "slow.json"), cwd=str(tmp_path))
    values, warmups = values
    assert len(values) == 3 and len(warmups) == 1
    assert max(values) < walk / 5, (values, walk)


def pyperformance_bench(venv, tmp_path, name):
    files = py(venv, """
        import json, os, pyperformance
        print(json.dumps(os.path.join(os.path.dirname(
            pyperformance.__file__), "data-files", "benchmarks")))
        """, cwd=str(tmp_path))
    script = os.path.join(files, "bm_" + name, "run_benchmark.py")
    assert os.path.exists(script), glob.glob(os.path.join(files, "*"))
    return script


def test_pyperformance_nbody(venv, tmp_path):
    """bench_time_func, run as pyperformance runs it: `python -u
    run_benchmark.py ... --inherit-environ ...`."""
    script = pyperformance_bench(venv, tmp_path, "nbody")
    runs, dumps, stats = run_pyperf(
        venv, tmp_path, script, "--iterations", "300", "-p", "2", "-w", "1",
        "-n", "1", "--min-time", "0.001", inherit=True, name="nbody")
    check_dumps_and_metadata(runs, dumps, stats, "nbody", "function",
                             "PYSTATS_DIR")
    loops = [l for r in runs["runs"] for l in r["loops"]]
    (e1, p1), (e2, p2), (e3, p3) = measured(
        venv, script, "bench_nbody",
        [[1, "sun", 300], [2, "sun", 300], [3, "sun", 300]], str(tmp_path))
    ea, eb = linear(e1, e2, e3)
    pa, pb = linear(p1, p2, p3)
    execs, pairs = total(dumps)
    assert execs == combine((ea, len(loops)), (eb, sum(loops)))
    assert pairs == combine((pa, len(loops)), (pb, sum(loops)))
    if CENSUS:
        names = check_census_is_the_benchmark(
            venv, tmp_path, stats, script, "bench_nbody", [1, "sun", 300])
        assert names == ["advance", "bench_nbody", "offset_momentum",
                         "report_energy"]


def test_pyperformance_nqueens(venv, tmp_path):
    """bench_func with an argument (functools.partial)."""
    script = pyperformance_bench(venv, tmp_path, "nqueens")
    runs, dumps, stats = run_pyperf(
        venv, tmp_path, script, "-p", "2", "-w", "0", "-n", "1",
        "--loops", "1", name="nqueens")
    check_dumps_and_metadata(runs, dumps, stats, "nqueens", "function",
                             "PYSTATS_DIR of process")
    calls = sum(sum(r["loops"]) for r in runs["runs"])
    assert calls == 2
    [(e1, p1)] = measured(venv, script, "bench_n_queens", [[8]],
                          str(tmp_path))
    execs, pairs = total(dumps)
    assert execs == scale(e1, calls)
    assert pairs == scale(p1, calls)


def newest_python():
    """Whether this is the newest of the Pythons `make test` runs."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        from pythons import find_pythons
    finally:
        del sys.path[0]
    versions = []
    # Asked as a plain user would: not under this run's sanitizer
    # (LD_PRELOAD, PYTHONMALLOC=malloc, which 3.14t refuses).
    plain = {k: v for k, v in os.environ.items()
             if k not in ("LD_PRELOAD", "PYTHONMALLOC")}
    for exe in find_pythons():
        r = subprocess.run([exe, "-c", "import sys; print(sys.version_info[1])"],
                           env=plain, capture_output=True, text=True,
                           check=True)
        versions.append(int(r.stdout))
    return not versions or sys.version_info[1] >= max(versions)


@pytest.mark.skipif(
    os.environ.get("PYSTATS_PYPERFORMANCE") != "all" and not newest_python(),
    reason="a whole pyperformance run (a minute) only with the newest "
           "Python, unless PYSTATS_PYPERFORMANCE=all")
def test_pyperformance_run(venv, tmp_path, dist):
    """The pyperformance recipe of docs/COLLECTING.md: pyperformance creates the
    benchmark's virtual environment, pystats is installed into it, then
    `pyperformance run --hook pystats_collector`."""
    bindir = os.path.join(venv, "bin")
    cwd = str(tmp_path)
    sh([os.path.join(bindir, "pyperformance"), "venv", "create", "-b",
        "nbody"], venv=venv, cwd=cwd)
    [bench_py] = glob.glob(os.path.join(cwd, "venv", "*", "bin", "python"))
    sh([bench_py, "-m", "pip", "install", "-q",
        "--disable-pip-version-check", dist["wheel"]], venv=venv, cwd=cwd)
    stats, out = str(tmp_path / "stats"), str(tmp_path / "out.json")
    sh([os.path.join(bindir, "pyperformance"), "run", "-b", "nbody",
        "--debug-single-value", "--hook", "pystats_collector",
        "--inherit-environ",
        "PYSTATS_DIR", "-o", out], venv=venv, cwd=cwd, PYSTATS_DIR=stats,
       timeout=900)
    runs = py(venv, RUNS.replace("pyperf.Benchmark.load(sys.argv[1])",
                                 "pyperf.BenchmarkSuite.load(sys.argv[1])"
                                 ".get_benchmark('nbody')"), out, cwd=cwd)
    dumps = read_dumps(stats)
    check_dumps_and_metadata(runs, dumps, stats, "nbody", "function",
                             "PYSTATS_DIR")
    loops = [l for r in runs["runs"] for l in r["loops"]]
    script = pyperformance_bench(venv, tmp_path, "nbody")
    (e1, p1), (e2, p2) = measured(
        venv, script, "bench_nbody", [[1, "sun", 20000], [2, "sun", 20000]],
        cwd)
    eb = {k: e2.get(k, 0) - e1.get(k, 0) for k in e2}
    ea = {k: e1[k] - eb.get(k, 0) for k in e1}
    execs, _ = total(dumps)
    assert execs == combine((ea, len(loops)), (eb, sum(loops)))


# ---- compare --by-label: benchmark against benchmark, per call -------------

PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")

SUITE = """
import pyperf

def matchy():
    for i in range(40):
        match i:
            case int():
                pass

def timed(loops):
    range_it = range(loops)
    t0 = pyperf.perf_counter()
    for _ in range_it:
        matchy()
    return pyperf.perf_counter() - t0

if __name__ == "__main__":
    runner = pyperf.Runner()
    for name in NAMES:
        if name == "matchy":
            runner.bench_func("matchy", matchy)
        else:
            runner.bench_time_func("timed", timed)
"""


def labelled(directory):
    """{label: [benchmark.calls, instructions, {opcode: executions}]},
    summed over the dumps, read from the raw files."""
    out = {}
    for name in os.listdir(directory):
        label, calls, execs = None, 0, {}
        with open(os.path.join(directory, name)) as f:
            for line in f.read().splitlines():
                key, _, value = line.rpartition(" : ")
                if key == "meta.label":
                    label = value
                elif key == "benchmark.calls":
                    calls += int(value)
                elif key.startswith("opcode[") and \
                        key.endswith(".execution_count"):
                    execs[key[7:-17]] = int(value)
        s = out.setdefault(label, [0, 0, {}])
        s[0] += calls
        s[1] += sum(execs.values())
        for k, v in execs.items():
            s[2][k] = s[2].get(k, 0) + v
    return out


def cli(*args, check=True):
    r = subprocess.run([PYSTATS_CLI] + list(args), capture_output=True,
                       text=True, timeout=300)
    if check:
        assert r.returncode == 0, r.stderr
    return r


@pytest.mark.skipif(not os.access(PYSTATS_CLI, os.X_OK),
                    reason="build/pystats not built")
def test_compare_by_label_per_call(venv, tmp_path):
    """Two runs of a suite with different loops (base: 3 for both
    benchmarks; head: 7 for matchy, 2 for timed): compare --by-label gives
    each benchmark's instructions per call as computed from the raw dumps,
    the calls pyperf's own JSON says it ran, and the geometric mean of the
    per-call ratios; the whole comparison warns of the calls."""
    d = tmp_path / "scripts"
    d.mkdir()
    scripts = {}
    for name in ("matchy", "timed"):
        p = d / ("suite_%s.py" % name)
        p.write_text(SUITE.replace("NAMES", repr((name,))))
        scripts[name] = str(p)
    raw, dirs = {}, {}
    for side, loops in (("base", {"matchy": 3, "timed": 3}),
                        ("head", {"matchy": 7, "timed": 2})):
        dirs[side] = tmp_path / ("stats-" + side)
        dirs[side].mkdir()
        for name in ("matchy", "timed"):
            runs, _, stats = run_pyperf(
                venv, tmp_path, scripts[name], "--loops", str(loops[name]),
                "-p", "2", "-w", "1", "-n", "2", name=side + "-" + name)
            # The calls pyperf says it made: a warmup and two values in
            # each of two workers.
            pyperf_calls = sum(sum(r["loops"]) for r in runs["runs"])
            assert pyperf_calls == loops[name] * 3 * 2
            assert labelled(stats)[name][0] == pyperf_calls
            for f in os.listdir(stats):
                shutil.copy(os.path.join(stats, f), dirs[side] / f)
        raw[side] = labelled(dirs[side])
    base, head = str(dirs["base"]), str(dirs["head"])
    # matchy per call, measured in-process: the same on both sides.
    [(e1, _)] = measured(venv, scripts["matchy"], "matchy", [[]],
                         str(tmp_path))
    per_call = {side: {label: v[1] / v[0] for label, v in raw[side].items()}
                for side in raw}
    assert per_call["base"]["matchy"] == sum(e1.values())
    assert per_call["head"]["matchy"] == sum(e1.values())
    # timed per call depends on its loops (its own A + loops * B).
    assert per_call["base"]["timed"] != per_call["head"]["timed"]

    def check(report):
        assert report["schema"] == "comparison-by-label/1"
        labels = {x["label"]: x for x in report["labels"]}
        assert sorted(labels) == ["matchy", "timed"]
        for label, x in labels.items():
            for side in ("base", "head"):
                calls, instr, execs = raw[side][label]
                assert x[side]["calls"] == calls
                assert x[side]["instructions"] == instr
                assert x[side]["per_call"] == pytest.approx(
                    instr / calls, rel=1e-12)
            assert x["rel"] == pytest.approx(
                per_call["head"][label] / per_call["base"][label] - 1,
                rel=1e-9, abs=1e-12)
            rows = {r["name"]: r for r in x["rows"]}
            for op, n in raw["base"][label][2].items():
                assert rows[op]["base_per_call"] == pytest.approx(
                    n / raw["base"][label][0], rel=1e-12)
        assert labels["matchy"]["rel"] == 0
        ratios = [per_call["head"][k] / per_call["base"][k]
                  for k in ("matchy", "timed")]
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        assert report["geometric_mean"]["ratio"] == pytest.approx(geo,
                                                                  rel=1e-12)
        assert report["geometric_mean"]["labels"] == 2

    out = tmp_path / "by-label.json"
    cli("compare", "--by-label", base, head, "--json", str(out))
    check(json.loads(out.read_text()))
    md = cli("compare", "--by-label", base, head).stdout
    assert "| matchy | 18 | 42 | %s | %s | 0.0%% | 1.000x |" % (
        "{:,.1f}".format(sum(e1.values())),
        "{:,.1f}".format(sum(e1.values()))) in md, md
    # JSON summaries by label on both sides: the same comparison.
    for side, where in (("base", base), ("head", head)):
        cli("summarize", "--by-label", where, "--json",
            str(tmp_path / (side + ".json")))
    cli("compare", "--by-label", str(tmp_path / "base.json"),
        str(tmp_path / "head.json"), "--json", str(out))
    check(json.loads(out.read_text()))
    # The whole comparison: calls changed by 7/3 and 2/3, said so.
    r = cli("compare", base, head)
    assert "the benchmarks ran different numbers of calls" in r.stderr
    assert "'matchy' 18 and 42 calls" in r.stderr
    assert "'timed' 18 and 12 calls" in r.stderr
    # --fail-if does not apply to a suite.
    r = cli("compare", "--by-label", base, head, "--fail-if",
            "total.instructions > 0", check=False)
    assert r.returncode == 2 and "--by-label" in r.stderr
