#!/usr/bin/env python3
"""Events per unit of work: what mode count's cost is made of.

For each of bench/real.py's 14 benchmarks, one unit of its work (after
one of warm-up) in mode count under callgrind, and the number of calls
of each of the collector's callbacks in that part: each call is one
event CPython delivered (3.12+: sys.monitoring; 3.11: the trace
function), so the counts are the events per unit of work, by kind.
With the instructions of the same part (and of a plain run, from the
same kind of run), the cost per event follows: (count - plain) / events
machine instructions, CPython's delivery and the callback together.

    python3 bench/events.py [--python PY ...] [--only a,b]

Uses the virtual environments bench/real.py makes under
build/bench-real (run `make bench-real` once first, or this script
sets them up the same way).  Prints one table per interpreter.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import real  # noqa: E402
from pythons import find_pythons  # noqa: E402
from real_workloads import NAMES  # noqa: E402

# Callback function names (src/ext) -> the event kind they take.
KINDS = {
    "cb_start": "start", "cb_resume": "resume", "cb_return": "return",
    "cb_yield": "yield", "cb_jump": "jump", "cb_branch": "branch",
    "cb_branch_left": "branch", "cb_branch_right": "branch",
    "cb_raise": "exception", "cb_reraise": "exception",
    "cb_handled": "exception", "cb_unwind": "exception",
    "cb_throw": "exception", "trace_func": "trace",
}
COLS = ("start", "resume", "return", "yield", "jump", "branch", "exception",
        "trace")
# callgrind_annotate --tree=caller: each function ("*" line) after the
# lines of its callers ("<" lines), each with how often it called.
CALLER = re.compile(r"<\s.*\(([\d,]+)x\)")
FUNC = re.compile(r"\*\s+\S*src/ext/\w+\.c:(\w+)")


def callback_calls(annotation):
    """{kind: calls} of the collector's callbacks."""
    calls, pending, seen = {}, [], set()
    for line in annotation.splitlines():
        m = CALLER.search(line)
        if m and "<" in line.split("%)")[-1][:4]:
            pending.append(int(m.group(1).replace(",", "")))
            continue
        f = FUNC.search(line)
        if f and f.group(1) in KINDS and pending and f.group(1) not in seen:
            seen.add(f.group(1))
            kind = KINDS[f.group(1)]
            calls[kind] = calls.get(kind, 0) + sum(pending)
        if line.strip() == "" or f:
            pending = []
    return calls


def part2(interp, mode, name, keep):
    tmp = tempfile.mkdtemp(prefix="ev-", dir=real.WORK)
    try:
        out = os.path.join(tmp, "cg.out")
        r = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
             "--dump-before=getpgrp", "--dump-instr=no",
             interp.vpython, real.WORKLOADS, mode, interp.benchmarks,
             "%s:1:1" % name], env=real.env_for(tmp), capture_output=True,
            text=True)
        if r.returncode != 0:
            raise SystemExit("events: %s %s %s failed:\n%s" % (
                interp.key, mode, name, r.stderr[-2000:]))
        path = out + ".2"
        with open(path) as f:
            total = int(re.search(r"^totals: (\d+)", f.read(), re.M).group(1))
        calls = {}
        if keep:
            calls = callback_calls(subprocess.run(
                ["callgrind_annotate", "--inclusive=yes", "--tree=caller",
                 "--threshold=100", path], capture_output=True,
                text=True).stdout)
        return total, calls
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", action="append")
    ap.add_argument("--only")
    args = ap.parse_args()
    names = tuple(args.only.split(",")) if args.only else NAMES
    os.makedirs(real.WORK, exist_ok=True)
    for py in args.python or find_pythons():
        interp = real.Interpreter(py, False)
        interp.setup()
        print("### CPython %s, mode count: events per unit of work" %
              interp.full)
        print()
        print("| benchmark | events | " + " | ".join(COLS) +
              " | instr/event |")
        print("|" + " --- |" * (len(COLS) + 3))
        for name in names:
            plain, _ = part2(interp, "plain", name, False)
            count, calls = part2(interp, "count", name, True)
            ev = sum(calls.values())
            print("| %s | %d | %s | %s |" % (
                name, ev, " | ".join(str(calls.get(c, 0)) for c in COLS),
                "%.0f" % ((count - plain) / ev) if ev else "-"))
            sys.stdout.flush()
        print()


if __name__ == "__main__":
    main()
