#!/usr/bin/env python3
"""make bench: the collector's overhead, per Python version, as ratios of
callgrind instruction counts (repeatable on a shared, noisy machine).

Each figure is the cost of N2 iterations minus the cost of N1, so that
interpreter start-up, imports and exit cancel out and the ratio is that
of the loops themselves.  Reported per workload:
  count/plain   what counting costs against an uninstrumented run
  noop/plain    the floor: the same events with a do-nothing callback
  count/noop    what the collector adds over the floor (target <= 1.25)
  ref/count     how much cheaper than the pure-Python reference (>= 4)
Then the command-line tool's throughput benchmark, if built.
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from pythons import find_pythons  # noqa: E402

WORKLOAD = os.path.join(ROOT, "bench", "overhead_workload.py")
N1, N2 = 2000, 12000
KINDS = ("tight", "attrs", "gen")
MODES = ("plain", "noop", "count", "reference")


def instructions(python, pythonpath, mode, kind, n):
    env = dict(os.environ, PYTHONPATH=pythonpath, PYTHONHASHSEED="0",
               PYSTATS_DIR="/nonexistent-bench-dir")
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


def main():
    if not shutil.which("valgrind"):
        raise SystemExit("bench: valgrind is needed (apt-get install valgrind)")
    worst = {}
    for python in find_pythons():
        r = subprocess.run(["make", "-s", "-C", ROOT, "ext", "PYTHON=" + python],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(r.stderr)
        ver = subprocess.run([python, "-c", "import sys; print('%d.%d' % "
                              "sys.version_info[:2])"], capture_output=True,
                             text=True).stdout.strip()
        path = os.path.join(ROOT, "build", "py" + ver)
        print("CPython %s (%s), callgrind instructions, N=%d minus N=%d" % (
            ver, python, N2, N1))
        print("  %-6s %11s %11s %11s %11s" % (
            "loop", "count/plain", "noop/plain", "count/noop", "ref/count"))
        for kind in KINDS:
            cost = {m: instructions(python, path, m, kind, N2) -
                    instructions(python, path, m, kind, N1) for m in MODES}
            row = (cost["count"] / cost["plain"], cost["noop"] / cost["plain"],
                   cost["count"] / cost["noop"],
                   cost["reference"] / cost["count"])
            print("  %-6s %10.2fx %10.2fx %10.2fx %10.2fx" % ((kind,) + row))
            worst[(ver, "count/noop")] = max(worst.get((ver, "count/noop"), 0),
                                             row[2])
            worst[(ver, "ref/count")] = min(worst.get((ver, "ref/count"), 1e9),
                                            row[3])
    print()
    ok = True
    for (ver, what), v in sorted(worst.items()):
        target = "<= 1.25" if what == "count/noop" else ">= 4"
        met = v <= 1.25 if what == "count/noop" else v >= 4
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
