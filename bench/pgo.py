#!/usr/bin/env python3
"""What profile-guided optimisation (make ext-pgo) does to mode count's
cost, in CPU time: callgrind counts instructions, which PGO hardly
changes (it changes code layout and branch prediction), so this times.

For each benchmark of bench/real.py (default: the four with the most
events per instruction), rounds of three processes, one after the
other: plain, count with the extension as `make ext` builds it (-O2),
count with the one `make ext-pgo` builds; each times UNITS units of work
after one of warm-up with time.process_time() (the process's CPU time,
less disturbed by other work on the machine than wall time).  Prints
the minimum over the rounds of each, the two costs as ratios to plain,
and what PGO removed of count's extra time.

    python3 bench/pgo.py [--python PY] [--only a,b] [--rounds N]

Builds both extensions for the interpreter (make ext, make ext-pgo) and
uses bench/real.py's virtual environment (pyperformance) for the
benchmarks; PYTHONHASHSEED is pinned."""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import real  # noqa: E402
from pythons import find_pythons  # noqa: E402

WORST = ("generators", "hexiom", "richards", "deltablue")
TIMED = r'''
import sys, time
sys.path.insert(0, sys.argv[1])
import real_workloads as w
mode, bdir, name, units = sys.argv[2:6]
work = w.load(name, bdir)
w.start(mode)
work(1)
t0 = time.process_time()
work(int(units))
t1 = time.process_time()
w.stop(mode)
print(t1 - t0)
'''


def ext_dir(python, build):
    out = subprocess.run(["make", "-s", "--no-print-directory", "print-ext-dir",
                          "PYTHON=" + python, "BUILD=" + build], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return out.strip()


def timed(interp, mode, name, units, path):
    env = real.env_for(real.WORK)
    env["PYTHONPATH"] = path
    r = subprocess.run([interp.vpython, "-c", TIMED, os.path.join(ROOT, "bench"),
                        mode, interp.benchmarks, name, str(units)],
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("pgo: %s %s failed:\n%s" % (mode, name, r.stderr[-2000:]))
    return float(r.stdout.split()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", action="append")
    ap.add_argument("--only")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    names = tuple(args.only.split(",")) if args.only else WORST
    os.makedirs(real.WORK, exist_ok=True)
    for py in args.python or find_pythons():
        interp = real.Interpreter(py, False)
        if interp.ver.startswith("3.11"):
            continue        # mode count is 3.12+
        interp.setup()
        build = os.path.join(ROOT, "build")
        for target in ("ext", "ext-pgo"):
            subprocess.run(["make", "-s", target, "PYTHON=" + interp.python],
                           cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        o2 = ext_dir(interp.python, build)
        pgo = ext_dir(interp.python, os.path.join(build, "pgo"))
        print("### CPython %s: mode count, -O2 and PGO builds, CPU seconds "
              "(min of %d)" % (interp.full, args.rounds))
        print()
        print("| benchmark | plain | count -O2 | count PGO | -O2 / plain | "
              "PGO / plain | count's extra time removed |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for name in names:
            units = real.UNITS[name] * 10
            best = {"plain": [], "o2": [], "pgo": []}
            for _ in range(args.rounds):
                best["plain"].append(timed(interp, "plain", name, units, o2))
                best["o2"].append(timed(interp, "count", name, units, o2))
                best["pgo"].append(timed(interp, "count", name, units, pgo))
            p, a, b = (min(best[k]) for k in ("plain", "o2", "pgo"))
            print("| %s | %.3f | %.3f | %.3f | %.2fx | %.2fx | %.0f%% |" % (
                name, p, a, b, a / p, b / p, 100.0 * (a - b) / (a - p)))
            sys.stdout.flush()
        print()


if __name__ == "__main__":
    main()
