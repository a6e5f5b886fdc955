"""make bench's 3.14t section: mode count with threads on free-threaded
CPython 3.14, where $PYTHON314T names one (skipped with one line
otherwise).  Run alone: `python bench/ft_threads.py`.

1. Callgrind instructions (valgrind runs one thread at a time: the
   threads are serialised, so these are the instructions all threads
   executed, not their overlap), N2 minus N1 iterations per thread, for
   1 and 8 threads running the loops of overhead_workload.py at once
   (threads_workload.py): count/plain, quiet/plain (noop-quiet: exactly
   the events count receives, callbacks doing nothing) and count/quiet.
   "x8/x1" is count/plain with 8 threads over count/plain with 1: per
   instruction, counting should cost the same however many threads run
   (target <= 1.15).  The GIL is on in every run (importing the
   collector enables it, plain included).
2. Wall time, medians of REPS runs of WALL_N iterations per thread:
   count/plain with the GIL on, and plain with the GIL forced off
   (PYTHON_GIL=0) over plain with it on:
   what the GIL the collector needs costs the threads.
3. The GIL forced off (PYTHON_GIL=0), where mode instructions is the
   one that counts (each thread into its own shard): callgrind
   instructions/plain with 1 and 8 threads and its growth "x8/x1"
   (target <= 1.15), and wall time: instructions with the GIL off over
   plain with it off, and count with the GIL on over plain with it off
   (what counting costs threads that truly run in parallel, and what
   the GIL mode count needs would cost them).
4. What one sys.monitoring.DISABLE costs CPython (bench/ft_disable.py,
   no collector): mode count returns DISABLE at a quiet jump's first
   hit, and a free-threaded CPython stops the world for each one; wall
   microseconds with 1 and 8 threads (the others looping in Python), on
   the default 3.14 where $PYTHON314 names one, on 3.14t with the GIL on
   and with it off; "per local set" is one set_local_events() (also one
   stop: what disabling ahead of time, per code object, would take);
   then callgrind instructions with 1 thread, of a DISABLE and of the
   JUMP event it turns off (its first and only hit: the callback, the
   code's instrumentation, its share of the call).
"""
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOAD = os.path.join(ROOT, "bench", "threads_workload.py")
DISABLE = os.path.join(ROOT, "bench", "ft_disable.py")
N1, N2 = 2000, 12000
WALL_N, REPS = 200000, 5
THREADS = (1, 8)
KINDS = ("tight", "attrs", "gen")
TARGET = 1.15


def env_for(path, **extra):
    env = dict(os.environ, PYTHONPATH=path, PYTHONHASHSEED="0",
               PYSTATS_DIR="/nonexistent-bench-dir", **extra)
    env.pop("PYTHONSTATS", None)
    return env


def run(cmd, env, what):
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("bench: %s failed:\n%s" % (what, r.stderr[-2000:]))
    return r


def instructions(python, path, mode, kind, n, threads, **extra):
    r = run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
             python, "-W", "ignore", WORKLOAD, mode, kind, str(n),
             str(threads)], env_for(path, **extra),
            "%s %s %d x%d" % (mode, kind, n, threads))
    return int(re.search(r"Collected : (\d+)", r.stderr).group(1))


def wall(python, path, mode, kind, threads, **extra):
    r = run([python, "-W", "ignore", WORKLOAD, mode, kind, str(WALL_N),
             str(threads)], env_for(path, **extra), "wall %s %s" % (mode,
                                                                    kind))
    return float(r.stdout.split()[-1])


def callgrind_table(python, path):
    print("  callgrind instructions, N=%d minus N=%d per thread" % (N2, N1))
    print("  %-6s %7s %11s %11s %11s %11s" % (
        "loop", "threads", "count/plain", "quiet/plain", "count/quiet",
        "x8/x1"))
    worst = 0.0
    for kind in KINDS:
        per = {}
        for t in THREADS:
            cost = {m: instructions(python, path, m, kind, N2, t) -
                    instructions(python, path, m, kind, N1, t)
                    for m in ("plain", "count", "noop-quiet")}
            per[t] = cost["count"] / cost["plain"]
            growth = per[t] / per[THREADS[0]]
            worst = max(worst, growth)
            print("  %-6s %7d %10.2fx %10.2fx %10.2fx %10.2fx" % (
                kind, t, per[t], cost["noop-quiet"] / cost["plain"],
                cost["count"] / cost["noop-quiet"], growth))
    return worst


def wall_table(python, path):
    print("  wall time, median of %d runs of N=%d per thread" % (REPS, WALL_N))
    print("  %-6s %7s %11s %11s %11s" % ("loop", "threads", "plain ms",
                                          "count/plain", "nogil/plain"))
    for kind in KINDS:
        for t in THREADS:
            got = {"plain": [], "count": [], "nogil": []}
            for _ in range(REPS):
                got["plain"].append(wall(python, path, "plain", kind, t))
                got["count"].append(wall(python, path, "count", kind, t))
                got["nogil"].append(wall(python, path, "plain", kind, t,
                                         PYTHON_GIL="0"))
            med = {m: statistics.median(v) for m, v in got.items()}
            print("  %-6s %7d %11.1f %10.2fx %10.2fx" % (
                kind, t, 1e3 * med["plain"], med["count"] / med["plain"],
                med["nogil"] / med["plain"]))


def nogil_table(python, path):
    """The GIL forced off (PYTHON_GIL=0): mode instructions, each thread
    counting into its own shard.  Callgrind: instructions/plain with 1
    and 8 threads and its growth; wall: the threads truly in parallel."""
    print("  the GIL off (PYTHON_GIL=0), mode instructions: callgrind "
          "instructions, N=%d minus N=%d per thread" % (N2, N1))
    print("  %-6s %7s %11s %11s" % ("loop", "threads", "instr/plain",
                                    "x8/x1"))
    worst = 0.0
    for kind in KINDS:
        per = {}
        for t in THREADS:
            cost = {m: instructions(python, path, m, kind, N2, t,
                                    PYTHON_GIL="0") -
                    instructions(python, path, m, kind, N1, t,
                                 PYTHON_GIL="0")
                    for m in ("plain", "instructions")}
            per[t] = cost["instructions"] / cost["plain"]
            growth = per[t] / per[THREADS[0]]
            worst = max(worst, growth)
            print("  %-6s %7d %10.2fx %10.2fx" % (kind, t, per[t], growth))
    print("  wall time, median of %d runs of N=%d per thread (%d cores)" % (
        REPS, WALL_N, os.cpu_count() or 1))
    print("  %-6s %7s %14s %18s %18s" % (
        "loop", "threads", "plain ms, off", "instr off/plain off",
        "count on/plain off"))
    for kind in KINDS:
        for t in THREADS:
            got = {"plain": [], "instructions": [], "count": []}
            for _ in range(REPS):
                for m in got:
                    extra = {} if m == "count" else {"PYTHON_GIL": "0"}
                    got[m].append(wall(python, path, m, kind, t, **extra))
            med = {m: statistics.median(v) for m, v in got.items()}
            print("  %-6s %7d %14.1f %17.2fx %17.2fx" % (
                kind, t, 1e3 * med["plain"],
                med["instructions"] / med["plain"],
                med["count"] / med["plain"]))
    return worst


def disable_table(python):
    print("  one sys.monitoring.DISABLE, CPython alone (bench/ft_disable.py):"
          " microseconds")
    print("  %-20s %7s %9s %12s %16s" % ("interpreter", "threads", "disables",
                                       "per DISABLE", "per local set"))
    rows = [("3.14t, GIL on", python, "1", t, 200) for t in THREADS]
    rows += [("3.14t, PYTHON_GIL=0", python, "0", t, 200 if t == 1 else 20)
             for t in THREADS]
    default = os.environ.get("PYTHON314")
    if default:
        rows = [("3.14 (default)", default, None, t, 200)
                for t in THREADS] + rows
    for label, exe, gil, t, f in rows:
        extra = {"PYTHON_GIL": gil} if gil else {}
        r = run([exe, DISABLE, "--threads", str(t), "--functions", str(f),
                 "--reps", "3"], dict(os.environ, **extra), "ft_disable")
        d = json.loads(r.stdout)
        print("  %-20s %7d %9d %12.3f %16.3f" % (
            label, t, d["disables"], d["us_per_disable"],
            d["us_per_set_local_events"]))
    print("  callgrind instructions, 1 thread: %-11s %9s %12s" % (
        "", "DISABLE", "JUMP event"))
    for label, exe, gil in ([("3.14 (default)", default, "1")] if default
                            else []) + [("3.14t, GIL on", python, "1"),
                                        ("3.14t, PYTHON_GIL=0", python, "0")]:
        per, event = disable_instructions(exe, gil)
        print("  %-44s %9.0f %12.0f" % (label, per, event))


def disable_instructions(exe, gil):
    """Callgrind instructions of one DISABLE, one thread (ft_disable.py's
    --only runs, F=50 and F=250 functions of 20 jumps)."""
    def cg(variant, f):
        r = run(["valgrind", "--tool=callgrind",
                 "--callgrind-out-file=/dev/null", exe, DISABLE, "--only",
                 variant, "--functions", str(f)],
                dict(os.environ, PYTHONHASHSEED="0", PYTHON_GIL=gil),
                "ft_disable --only")
        return int(re.search(r"Collected : (\d+)", r.stderr).group(1))
    d = cg("disable", 250) - cg("disable", 50)
    n = cg("none", 250) - cg("none", 50)
    return (d - n) / 4000.0, n / 4000.0


def section(build):
    """The section; returns {"3.14t x8/x1": worst} (empty when skipped)."""
    python = os.environ.get("PYTHON314T")
    if not python:
        print("CPython 3.14t threads: skipped (PYTHON314T names no "
              "interpreter)")
        return {}
    r = subprocess.run(["make", "-s", "-C", ROOT, "ext", "PYTHON=" + python,
                        "BUILD=" + build], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(r.stderr)
    path = os.path.join(build, "py3.14t")
    print("CPython 3.14t threads (%s), the GIL on (the collector enables it)"
          % python)
    worst = callgrind_table(python, path)
    wall_table(python, path)
    worst_nogil = nogil_table(python, path)
    disable_table(python)
    return {"x8/x1": (worst, TARGET), "nogil x8/x1": (worst_nogil, TARGET)}


if __name__ == "__main__":
    BUILD = os.path.abspath(os.environ.get("BUILD") or
                            os.path.join(ROOT, "build"))
    res = section(BUILD)
    ok = all(v <= t for v, t in res.values())
    for what, (v, t) in res.items():
        print("  3.14t %-10s worst %.2fx (target <= %.2f): %s" % (
            what, v, t, "met" if v <= t else "NOT MET"))
    sys.exit(0 if ok else 1)
