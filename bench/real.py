#!/usr/bin/env python3
"""make bench-real: what collection costs on real programs.

Fourteen pyperformance benchmarks (the `pyperformance` package from
PyPI, its benchmark modules and their data; bench/real_workloads.py
calls each one's work function with pyperf replaced by its clock), per
interpreter found, each mode's cost as a ratio to a plain run of the
same interpreter:

  count            the default mode
  count-nocensus   count without the specialization census (3.12+)
  census           mode census
  instructions     one event per instruction (3.12+; on 3.11 it is the
                   same trace function as count, and not measured twice)
  noop, noop-segments, noop-quiet
                   the cost floors: the events of instructions, of count,
                   exactly those count receives, callbacks doing nothing
                   (the last two 3.12+)
  native           with NATIVE_PYTHON set to a CPython built with
                   --enable-pystats (3.12+): its own statistics on
                   (sys._stats_on()) against off, the same work

Costs are callgrind instruction counts, repeatable on a shared, noisy
machine.  Each run is one process per mode and group of benchmarks: for
each benchmark, the mode switched on, one unit of work to warm up
(specialization, the collector's first instrumentation), then UNITS units
between two marker calls at which callgrind starts a new part
(--dump-before=getpgrp): that part is exactly the measured units, with
start-up, imports, the benchmark's setup, the warm-up and on() outside
it.  It is the difference of two run lengths, taken in one process.  A
third part, off() and the dump (the census walk included), is reported
in instructions: it is paid once per dump, not per instruction.

Then a wall-clock view (--no-wall leaves it out): pyperf itself times the
same work with and without collection (PYTHONSTATS=count in every pyperf
process), plain and count one after the other per benchmark.  Dispatch
cost is partly cache misses and branch prediction, which instruction
counts do not see; the timings are noisy on a shared machine.

The tables are printed and saved in build/bench-real.md (raw counts in
build/bench-real.json); `--last` prints the saved summary (make bench).
Virtual environments, one per interpreter, and pip's download cache are
under build/bench-real/.
"""
import argparse
import concurrent.futures
import glob
import json
import math
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from pythons import find_pythons  # noqa: E402
from real_workloads import NAMES  # noqa: E402

BUILD = os.path.abspath(os.environ.get("BUILD") or os.path.join(ROOT, "build"))
WORK = os.path.join(BUILD, "bench-real")
TABLE = os.path.join(BUILD, "bench-real.md")
RAW = os.path.join(BUILD, "bench-real.json")
WORKLOADS = os.path.join(ROOT, "bench", "real_workloads.py")
WALL = os.path.join(ROOT, "bench", "real_wall.py")
PACKAGES = ("pyperformance==1.14.0", "pyperf==2.11.0")

# Units of work measured per benchmark: about 30 million instructions of
# a plain run on 3.12 each (real_workloads.SIZES says what one unit is).
UNITS = {
    "nbody": 2, "richards": 1, "float": 1, "deltablue": 1, "go": 1,
    "json_loads": 5, "hexiom": 1, "chaos": 1, "raytrace": 1,
    "generators": 5, "coroutines": 8, "regex_effbot": 2,
    "unpack_sequence": 6, "spectral_norm": 1,
}
WARMUP = 1

# Rough cost of each mode against plain, to start the longest runs first.
WEIGHT = {"plain": 1, "count": 3, "count-nocensus": 3, "census": 1.2,
          "instructions": 8, "noop": 6, "noop-segments": 2,
          "noop-quiet": 2, "native": 1.2}

COLUMNS = [("count", "count"), ("count-nocensus", "count, no census"),
           ("census", "census"), ("instructions", "instructions"),
           ("noop", "noop"), ("noop-segments", "noop-segments"),
           ("noop-quiet", "noop-quiet")]


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise SystemExit("bench-real: %s failed (exit %d):\n%s%s" % (
            " ".join(cmd), r.returncode, r.stdout[-2000:], r.stderr[-3000:]))
    return r.stdout


def describe(python):
    out = run([python, "-c", "import sys, platform, sysconfig; print("
               "'%d.%d' % sys.version_info[:2] + ('t' if sysconfig."
               "get_config_var('Py_GIL_DISABLED') else ''), "
               "platform.python_version(), "
               "int(hasattr(sys, '_stats_on')))"])
    ver, full, native = out.split()
    return ver, full, native == "1"


class Interpreter:
    """One interpreter, its virtual environment under build/bench-real
    with pyperformance and pyperf (and the collector, unless it is the
    native build), and the modes measured on it."""

    def __init__(self, python, native):
        self.python = python
        self.ver, self.full, self.has_stats_on = describe(python)
        self.native = native
        self.key = self.ver + ("-native" if native else "")
        self.venv = os.path.join(WORK, "venv-" + self.key)
        self.vpython = os.path.join(self.venv, "bin", "python")
        self.modes = self.modes_for()

    def modes_for(self):
        if self.native:
            return ["plain", "native"] if self.has_stats_on else []
        if tuple(map(int, self.ver.rstrip("t").split("."))) < (3, 12):
            # instructions is count's mechanism on 3.11 (the same trace
            # function): not measured twice.
            return ["plain", "count", "census", "noop"]
        return ["plain"] + [m for m, _ in COLUMNS]

    def setup(self):
        if not os.path.exists(self.vpython):
            log("bench-real: creating %s" % self.venv)
            run([self.python, "-m", "venv", self.venv])
        want = dict(p.split("==") for p in PACKAGES)
        have = run([self.vpython, "-c", "import importlib.metadata as m\n"
                    "for p in %r:\n"
                    "    try: print(p, m.version(p))\n"
                    "    except Exception: pass" % (tuple(want),)])
        if dict(line.split() for line in have.splitlines()) != want:
            log("bench-real: installing %s into %s" % (" ".join(PACKAGES),
                                                       self.venv))
            run([self.vpython, "-m", "pip", "install", "-q",
                 "--disable-pip-version-check", "--cache-dir",
                 os.path.join(WORK, "pip-cache")] + list(PACKAGES))
        if not self.native:
            run(["make", "-s", "-C", ROOT, "install-ext",
                 "PYTHON=" + self.vpython, "BUILD=" + BUILD])
        self.benchmarks = run([self.vpython, "-c",
                               "import importlib.util, os; print(os.path.join("
                               "importlib.util.find_spec('pyperformance')."
                               "submodule_search_locations[0], 'data-files', "
                               "'benchmarks'))"]).strip()


def env_for(tmp, **extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHONSTATS", "PYSTATS_"))}
    env.update(PYTHONHASHSEED="0", PYSTATS_DIR=os.path.join(tmp, "dumps"))
    env.update(extra)
    return env


def callgrind(interp, mode, names, units):
    """({name: instructions of its `units[name]` units}, {name:
    instructions of the mode's off() and dump after them}) for each
    benchmark in `names`, one process under callgrind."""
    tmp = tempfile.mkdtemp(prefix="cg-", dir=WORK)
    try:
        out = os.path.join(tmp, "callgrind.out")
        args = ["%s:%d:%d" % (n, WARMUP, units[n]) for n in names]
        r = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
             "--dump-before=getpgrp", "--dump-instr=no",
             interp.vpython, WORKLOADS, mode, interp.benchmarks] + args,
            env=env_for(tmp), capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("bench-real: %s %s (%s) failed:\n%s" % (
                interp.key, mode, " ".join(names), r.stderr[-3000:]))
        parts = {}
        for path in glob.glob(out + ".*"):
            part = int(path.rsplit(".", 1)[1])
            with open(path) as f:
                m = re.search(r"^totals: (\d+)", f.read(), re.M)
            parts[part] = int(m.group(1))
        if sorted(parts) != list(range(1, 3 * len(names) + 1)):
            raise SystemExit(
                "bench-real: %s %s: callgrind wrote parts %s, expected 1..%d "
                "(three markers per benchmark): something else called "
                "getpgrp()" % (interp.key, mode, sorted(parts),
                               3 * len(names)))
        return ({n: parts[3 * i + 2] for i, n in enumerate(names)},
                {n: parts[3 * i + 3] for i, n in enumerate(names)})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def geomean(xs):
    xs = list(xs)
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def ratios(counts):
    """{mode: {name: cost per unit / plain's}} of one interpreter."""
    plain = counts["plain"]
    return {mode: {n: per[n] / plain[n] for n in per}
            for mode, per in counts.items() if mode != "plain"}


def fmt(x):
    return "-" if x is None else "%.2fx" % x


def worst(per, k=3):
    top = sorted(per.items(), key=lambda kv: -kv[1])[:k]
    return ", ".join("%s %.2fx" % (n, v) for n, v in top)


def detail_table(interp, counts, names, wall):
    r = ratios(counts)
    cols = [(m, t) for m, t in COLUMNS if m in r]
    if "native" in r:
        cols = [("native", "stats on")]
    lines = ["### CPython %s%s (`%s`)" % (
        interp.full, ", built with --enable-pystats" if interp.native else "",
        interp.python), ""]
    head = ["benchmark", "plain, M instr/unit"] + [t for _, t in cols]
    if wall:
        head.append("wall count/plain")
    lines.append("| " + " | ".join(head) + " |")
    lines.append("| " + " | ".join(["---"] * len(head)) + " |")
    for n in names:
        row = [n, "%.1f" % (counts["plain"][n] / UNITS[n] / 1e6)]
        row += [fmt(r[m][n]) for m, _ in cols]
        if wall:
            row.append(fmt(wall.get(n)))
        lines.append("| " + " | ".join(row) + " |")
    row = ["**geomean**", ""] + ["**%s**" % fmt(geomean(r[m].values()))
                                 for m, _ in cols]
    if wall:
        row.append("**%s**" % fmt(geomean(wall.values())))
    lines.append("| " + " | ".join(row) + " |")
    return lines


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2


def summary_table(interps, results, stops, walls):
    """The table docs/HACKING.md quotes (and the README in short): one column per interpreter."""
    own = [i for i in interps if not i.native]
    native = {i.ver: i for i in interps if i.native}
    lines = ["| | " + " | ".join(i.ver for i in own) + " |",
             "| --- |" + " --- |" * len(own)]

    def row(label, cell):
        lines.append("| %s | %s |" % (label, " | ".join(cell(i) for i in own)))

    def r_of(i, mode):
        return ratios(results[i.key]).get(mode)

    def gm(mode, with_worst=0):
        def cell(i):
            per = r_of(i, mode)
            if not per:
                return "-"
            s = fmt(geomean(per.values()))
            if with_worst:
                s += " (%s)" % worst(per, with_worst)
            return s
        return cell

    row("`count` geomean", gm("count"))
    row("`count` worst", lambda i: worst(r_of(i, "count"))
        if r_of(i, "count") else "-")
    row("`count` without census, geomean", gm("count-nocensus"))
    row("`census` geomean", gm("census", 2))
    row("`instructions` geomean", lambda i: "same as `count`"
        if i.ver.startswith("3.11") and "count" in i.modes
        else gm("instructions", 1)(i))
    row("floor `noop` (events of `instructions`)", gm("noop"))
    row("floor `noop-segments` (events of `count`)", gm("noop-segments"))
    row("floor `noop-quiet` (events `count` receives)", gm("noop-quiet"))

    def dump_cell(i):
        cells = []
        for mode, label in (("count", "count"),
                            ("count-nocensus", "no census"),
                            ("census", "census")):
            per = stops[i.key].get(mode)
            if per:
                cells.append("%s %.1f" % (label, median(per.values()) / 1e6))
        return ", ".join(cells) or "-"
    row("one `off()` and dump, M instructions (median)", dump_cell)

    def native_cell(i):
        n = native.get(i.ver)
        if n is None:
            return "-"
        if not n.modes:
            return "no on/off (counts always)"
        return "%s (%s)" % (fmt(geomean(r_of(n, "native").values())),
                            n.full)
    if native:
        row("CPython's own `--enable-pystats` build, stats on vs off",
            native_cell)
    if walls:
        row("wall clock, `count` vs plain (pyperf, noisy)",
            lambda i: fmt(geomean(walls[i.key].values()))
            if walls.get(i.key) else "-")
    return lines


def wall_view(interp, names):
    """{name: median time with count / plain}, pyperf timings."""
    tmp = tempfile.mkdtemp(prefix="wall-", dir=WORK)
    try:
        out = {}
        opts = ["--processes", "2", "--values", "3", "--warmups", "1",
                "--min-time", "0.1", "--quiet"]
        for n in names:
            t = {}
            for mode in ("plain", "count"):
                res = os.path.join(tmp, "%s-%s.json" % (n, mode))
                extra = {}
                cmd = [interp.vpython, WALL, "--benchmarks-dir",
                       interp.benchmarks, "--only", n, "-o", res] + opts
                if mode == "count":
                    extra["PYTHONSTATS"] = "count"
                    cmd += ["--inherit-environ",
                            "PYTHONSTATS,PYSTATS_DIR,PYTHONHASHSEED"]
                run(cmd, env=env_for(tmp, **extra))
                t[mode] = float(run([interp.vpython, "-c",
                                     "import pyperf, sys; print(pyperf."
                                     "Benchmark.load(sys.argv[1]).median())",
                                     res]))
            out[n] = t["count"] / t["plain"]
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def print_last():
    if not os.path.exists(TABLE):
        print("bench-real: no saved run (%s); make bench-real measures one"
              % os.path.relpath(TABLE, ROOT))
        return 0
    with open(TABLE) as f:
        text = f.read()
    summary = text.split("\n## ", 2)
    print("Last `make bench-real` (%s):" % os.path.relpath(TABLE, ROOT))
    print(summary[0].rstrip() if len(summary) < 2
          else ("## " + summary[1]).rstrip())
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--last", action="store_true",
                    help="print the summary of the last saved run and exit")
    ap.add_argument("--no-wall", action="store_true",
                    help="leave out the wall-clock view (pyperf)")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="callgrind processes at a time (default: up to 2)")
    ap.add_argument("--only", help="comma-separated benchmarks (default: all "
                    "14; the geomean is then of these)")
    ap.add_argument("--python", action="append",
                    help="an interpreter to measure (repeatable; default: "
                    "every CPython 3.11+ found, see tools/pythons.py)")
    ap.add_argument("--group", type=int, default=5,
                    help="benchmarks per callgrind process (default 5)")
    ap.add_argument("--modes", help="comma-separated modes to measure "
                    "besides plain (default: every mode of each "
                    "interpreter)")
    args = ap.parse_args()
    if args.last:
        return print_last()
    if not shutil.which("valgrind"):
        raise SystemExit("bench-real: valgrind is needed "
                         "(apt-get install valgrind)")
    names = NAMES
    if args.only:
        names = tuple(args.only.split(","))
        bad = [n for n in names if n not in NAMES]
        if bad:
            raise SystemExit("bench-real: unknown benchmark %s (known: %s)"
                             % (", ".join(bad), ", ".join(NAMES)))
    t0 = time.time()
    load0 = os.getloadavg()[0]
    os.makedirs(WORK, exist_ok=True)
    interps = [Interpreter(p, False) for p in (args.python or find_pythons())]
    if not interps:
        raise SystemExit("bench-real: no CPython 3.11+ found (PYTHONS=...)")
    if os.environ.get("NATIVE_PYTHON"):
        n = Interpreter(os.environ["NATIVE_PYTHON"], True)
        if not n.has_stats_on and tuple(
                map(int, n.ver.rstrip("t").split("."))) >= (3, 12):
            raise SystemExit("bench-real: NATIVE_PYTHON=%s has no "
                             "sys._stats_on: not built with --enable-pystats"
                             % n.python)
        interps.append(n)
    if args.modes:
        wanted = set(args.modes.split(","))
        known = set(WEIGHT)
        if wanted - known:
            raise SystemExit("bench-real: unknown mode %s (known: %s)" % (
                ", ".join(sorted(wanted - known)), ", ".join(sorted(known))))
        for i in interps:
            i.modes = [m for m in i.modes if m == "plain" or m in wanted]
    for i in interps:
        i.setup()
    log("bench-real: set up in %.0f s" % (time.time() - t0))

    groups = [names[k:k + args.group] for k in range(0, len(names),
                                                      args.group)]
    jobs = [(i, m, g) for i in interps for m in i.modes for g in groups]
    jobs.sort(key=lambda j: -WEIGHT[j[1]] * len(j[2]))
    results = {i.key: {m: {} for m in i.modes} for i in interps}
    stops = {i.key: {m: {} for m in i.modes} for i in interps}
    done = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futs = {pool.submit(callgrind, i, m, g, UNITS): (i, m, g)
                for i, m, g in jobs}
        for fut in concurrent.futures.as_completed(futs):
            i, m, g = futs[fut]
            try:
                window, stop = fut.result()
            except BaseException:
                for f in futs:      # a failure stops the run at once
                    f.cancel()
                raise
            results[i.key][m].update(window)
            stops[i.key][m].update(stop)
            done += 1
            log("bench-real: %d/%d %s %s (%s) at %.0f s" % (
                done, len(jobs), i.key, m, ",".join(g), time.time() - t0))
    t_cg = time.time() - t0

    walls = {}
    if not args.no_wall:
        for i in interps:
            if not i.native:
                walls[i.key] = wall_view(i, names)
                log("bench-real: wall clock %s at %.0f s" % (
                    i.key, time.time() - t0))
    elapsed = time.time() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = ru.ru_utime + ru.ru_stime

    with open(RAW, "w") as f:
        json.dump({"units": UNITS, "warmup": WARMUP, "seconds": elapsed,
                   "cpu_seconds": cpu,
                   "interpreters": {i.key: {"python": i.python,
                                            "version": i.full,
                                            "native": i.native}
                                    for i in interps},
                   "instructions": results, "off_and_dump": stops,
                   "wall": walls}, f, indent=1,
                  sort_keys=True)
    measured = [i for i in interps if i.modes]
    out = ["# make bench-real", "",
           "%d pyperformance benchmarks (pyperformance 1.14.0), per "
           "interpreter: each mode's callgrind instructions per unit of "
           "work over a plain run's (units measured after one of "
           "warm-up); geometric means over the benchmarks. Took %.0f s, "
           "%.0f s of CPU (callgrind %.0f s, %d at a time; load average "
           "%.1f at the start, %.1f at the end, %d cores: times on a shared "
           "machine are pessimistic, the instruction counts are not)." % (
               len(names), elapsed, cpu, t_cg, args.jobs, load0,
               os.getloadavg()[0], os.cpu_count() or 1), "",
           "## Summary", ""]
    out += summary_table(interps, results, stops, walls)
    out += ["", "## Per benchmark", ""]
    for i in measured:
        out += detail_table(i, results[i.key], names, walls.get(i.key))
        out.append("")
    for i in interps:
        if i.native and not i.modes:
            out += ["CPython %s built with --enable-pystats (`%s`) counts "
                    "every process from start to exit (no sys._stats_on): "
                    "no on/off ratio." % (i.full, i.python), ""]
    if walls:
        out += ["Wall clock: pyperf medians (2 processes x 3 values after "
                "a warm-up), the same work with PYTHONSTATS=count in every "
                "pyperf process against without, one after the other per "
                "benchmark; noisy on a shared machine.", ""]
    text = "\n".join(out)
    print(text)
    with open(TABLE, "w") as f:
        f.write(text)
    log("bench-real: saved %s and %s; %.0f s in all" % (
        os.path.relpath(TABLE, ROOT), os.path.relpath(RAW, ROOT), elapsed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
