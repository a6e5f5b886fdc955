#!/usr/bin/env python3
"""make bench: the collector's overhead, per Python version, as ratios of
callgrind instruction counts (repeatable on a shared, noisy machine).

Each figure is the cost of N2 iterations minus the cost of N1, so that
interpreter start-up, imports and exit cancel out and the ratio is that
of the loops themselves.  Reported per workload, for each exact mode
against a plain run and against its own do-nothing floor (the same
events, callbacks that return at once):
  count/plain     the default mode: segment events on 3.12+ (trace on 3.11)
  nseg/plain      its floor: the segment events, callbacks doing nothing
  count/nseg      segment counting against its floor (target <= 1.15)
  quiet/plain     exactly the events count receives (it turns off the
                  events of most unconditional jumps after their first
                  one; so does this floor), callbacks doing nothing
  count/quiet     what counting adds to each event it receives: the
                  stricter measure (same target)
  instr/plain     mode "instructions": one event per instruction
  noop/plain      its floor: the same events, callbacks doing nothing
  instr/noop      what per-instruction counting adds (target <= 1.25)
On 3.11 count and instructions are the same trace mechanism and there is
no segment floor.  --reference adds the pure-Python reference collector
(ref/count, target >= 4).  Then, where $PYTHON314T names a free-threaded
3.14, mode count with 1 and 8 threads there (ft_threads.py; skipped with
one line otherwise), and the command-line tool's throughput benchmark,
if built.
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from pythons import find_pythons  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "bench"))
import ft_threads  # noqa: E402

WORKLOAD = os.path.join(ROOT, "bench", "overhead_workload.py")
N1, N2 = 2000, 12000
KINDS = ("tight", "attrs", "gen")
TARGETS = {"count/nseg": 1.15, "count/quiet": 1.15, "instr/noop": 1.25}
BUILD = os.path.abspath(os.environ.get("BUILD") or os.path.join(ROOT, "build"))


def instructions(python, pythonpath, mode, kind, n, **extra):
    """Callgrind instructions of one run of the workload; pythonpath:
    where the collector is (None: the interpreter's own); extra: more
    environment."""
    env = dict(os.environ, PYTHONHASHSEED="0",
               PYSTATS_DIR="/nonexistent-bench-dir", **extra)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    env.pop("PYTHONSTATS", None)
    r = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         python, WORKLOAD, mode, kind, str(n)],
        env=env, capture_output=True, text=True)
    m = re.search(r"Collected : (\d+)", r.stderr)
    if r.returncode != 0 or not m:
        raise SystemExit("bench: %s %s %s failed:\n%s" % (mode, kind, n,
                                                          r.stderr[-2000:]))
    return int(m.group(1))


def modes_for(ver, reference):
    segments = tuple(int(x) for x in ver.rstrip("t").split(".")) >= (3, 12)
    modes = ["plain", "count", "noop"]
    if segments:
        modes += ["noop-segments", "noop-quiet", "instructions"]
    if reference:
        modes.append("reference")
    return modes, segments


def main():
    reference = "--reference" in sys.argv[1:]
    if not shutil.which("valgrind"):
        raise SystemExit("bench: valgrind is needed (apt-get install valgrind)")
    worst = {}
    for python in find_pythons():
        r = subprocess.run(["make", "-s", "-C", ROOT, "ext", "PYTHON=" + python,
                            "BUILD=" + BUILD], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(r.stderr)
        # "3.14t" for a free-threaded build: its own build directory.
        ver = subprocess.run([python, "-c", "import sys, sysconfig; print("
                              "'%d.%d' % sys.version_info[:2] + ('t' if "
                              "sysconfig.get_config_var('Py_GIL_DISABLED') "
                              "else ''))"], capture_output=True,
                             text=True).stdout.strip()
        path = os.path.join(BUILD, "py" + ver)
        modes, segments = modes_for(ver, reference)
        print("CPython %s (%s), callgrind instructions, N=%d minus N=%d" % (
            ver, python, N2, N1))
        cols = ["count/plain"]
        if segments:
            cols += ["nseg/plain", "count/nseg", "quiet/plain", "count/quiet",
                     "instr/plain", "noop/plain", "instr/noop"]
        else:
            cols += ["noop/plain", "count/noop"]
        if reference:
            cols.append("ref/count")
        print("  %-6s" % "loop" + "".join(" %11s" % c for c in cols))
        for kind in KINDS:
            cost = {m: instructions(python, path, m, kind, N2) -
                    instructions(python, path, m, kind, N1) for m in modes}
            ratio = {
                "count/plain": cost["count"] / cost["plain"],
                "noop/plain": cost["noop"] / cost["plain"],
                "count/noop": cost["count"] / cost["noop"],
            }
            if segments:
                ratio.update({
                    "nseg/plain": cost["noop-segments"] / cost["plain"],
                    "count/nseg": cost["count"] / cost["noop-segments"],
                    "quiet/plain": cost["noop-quiet"] / cost["plain"],
                    "count/quiet": cost["count"] / cost["noop-quiet"],
                    "instr/plain": cost["instructions"] / cost["plain"],
                    "instr/noop": cost["instructions"] / cost["noop"],
                })
            else:
                # 3.11: count is the per-instruction trace mechanism.
                ratio["instr/noop"] = ratio["count/noop"]
            if reference:
                ratio["ref/count"] = cost["reference"] / cost["count"]
            print("  %-6s" % kind + "".join(" %10.2fx" % ratio[c]
                                            for c in cols))
            for what in TARGETS:
                if what in ratio:
                    worst[(ver, what)] = max(worst.get((ver, what), 0),
                                             ratio[what])
            if reference:
                worst[(ver, "ref/count")] = min(
                    worst.get((ver, "ref/count"), 1e9), ratio["ref/count"])
    print()
    for what, (v, target) in ft_threads.section(BUILD).items():
        worst[("3.14t", what)] = v
        TARGETS[what] = target
    print()
    ok = True
    for (ver, what), v in sorted(worst.items()):
        if what == "ref/count":
            target, met = ">= 4", v >= 4
        else:
            target, met = "<= %.2f" % TARGETS[what], v <= TARGETS[what]
        ok &= met
        print("  %s %-10s worst %.2fx (target %s): %s" % (
            ver, what, v, target, "met" if met else "NOT MET"))
    other = os.path.join(ROOT, "bench", "summarize_bench.py")
    if os.path.exists(other) and os.path.exists(os.path.join(ROOT, "build",
                                                             "pystats")):
        print()
        subprocess.run([sys.executable, other], cwd=ROOT)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
