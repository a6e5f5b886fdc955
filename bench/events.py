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

    python3 bench/events.py [--python PY ...] [--only a,b]   (make bench-events)
    python3 bench/events.py --last       the saved tables (make bench)

Then, per benchmark, each event kind's share and the callback's
inclusive machine instructions per call (the collector's part of the
cost; the rest is CPython delivering the event), and how often the
callbacks' fast paths fell to their slow paths (start_other,
leave_other, jump_slow, jump_other, ...).  PYTHONHASHSEED is pinned.

Uses the virtual environments bench/real.py makes under
build/bench-real (run `make bench-real` once first, or this script
sets them up the same way).  Prints the tables and saves them in
build/bench-events.md.
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

# Callback function names (src/ext) -> the event kind they take.  Each
# is called through a vectorcall of its name and "_vc" (seg_events.c),
# which is the function callgrind sees: the suffix is taken off.
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
# The slow paths the callbacks' inline fast paths hand rare cases to
# (noinline in src/ext, so callgrind sees their calls).
SLOW = ("start_other", "leave_other", "jump_slow", "jump_other",
        "caller_stop_slow", "seg_walk_silent", "seg_stack_grow")
# callgrind_annotate --inclusive=yes --tree=caller: each function ("*"
# line, its inclusive cost first) after the lines of its callers ("<"
# lines), each with how often it called.
CALLER = re.compile(r"<\s.*\(([\d,]+)x\)")
FUNC = re.compile(r"^\s*([\d,]+)\s.*\*\s+\S*src/ext/\w+\.c:(\w+)")


def kind_of(name):
    """The event kind the callback function name takes; None if it is
    none of the callbacks."""
    if name.endswith("_vc"):
        name = name[:-3]
    return KINDS.get(name)


def callback_profile(annotation):
    """({kind: calls}, {kind: inclusive instructions}, {slow path:
    calls}) of the collector's callbacks and slow paths."""
    calls, incl, slow, pending, seen = {}, {}, {}, [], set()
    for line in annotation.splitlines():
        m = CALLER.search(line)
        if m and "<" in line.split("%)")[-1][:4]:
            pending.append(int(m.group(1).replace(",", "")))
            continue
        f = FUNC.search(line)
        name = f.group(2) if f else None
        if name and pending and name not in seen:
            if kind_of(name) is not None:
                seen.add(name)
                kind = kind_of(name)
                calls[kind] = calls.get(kind, 0) + sum(pending)
                incl[kind] = incl.get(kind, 0) + int(f.group(1).replace(",", ""))
            elif name in SLOW:
                seen.add(name)
                slow[name] = sum(pending)
        if line.strip() == "" or f:
            pending = []
    return calls, incl, slow


def callback_calls(annotation):
    """{kind: calls} of the collector's callbacks."""
    return callback_profile(annotation)[0]


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
        prof = ({}, {}, {})
        if keep:
            prof = callback_profile(subprocess.run(
                ["callgrind_annotate", "--inclusive=yes", "--tree=caller",
                 "--threshold=100", path], capture_output=True,
                text=True).stdout)
        return total, prof
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def per_kind_table(rows):
    """Markdown lines: per event kind over the benchmarks in rows, its
    share of the events, the callback's inclusive instructions per call
    (the collector's part), then CPython's delivery per event (the rest
    of count's extra instructions) and how often a slow path was taken."""
    calls, incl, slow, extra = {}, {}, {}, 0
    for _, count, plain, (c, i, s) in rows:
        extra += count - plain
        for k in c:
            calls[k] = calls.get(k, 0) + c[k]
            incl[k] = incl.get(k, 0) + i.get(k, 0)
        for k in s:
            slow[k] = slow.get(k, 0) + s[k]
    ev, own = sum(calls.values()), sum(incl.values())
    if not ev:
        return []
    out = ["| event kind | events | share | collector instr/call |",
           "| --- | ---: | ---: | ---: |"]
    for k in sorted(calls, key=lambda k: -incl[k]):
        out.append("| %s | %d | %.1f%% | %.0f |" % (
            k, calls[k], 100.0 * calls[k] / ev, incl[k] / calls[k]))
    out.append("| **all** | %d | 100%% | %.0f |" % (ev, own / ev))
    out.append("")
    out.append("CPython's delivery (count's extra instructions less the "
               "callbacks'): %.0f instructions per event." % ((extra - own) / ev))
    out.append("Slow paths per 1,000 events: " + (", ".join(
        "%s %.2f" % (k, 1000.0 * slow[k] / ev) for k in SLOW if k in slow)
        or "none taken") + ".")
    return out


SAVED = os.path.join(real.BUILD, "bench-events.md")


class Tee:
    """stdout, and the saved copy of the tables."""

    def __init__(self, path):
        self.f = open(path + ".tmp", "w")
        self.path = path

    def write(self, text):
        sys.__stdout__.write(text)
        self.f.write(text)

    def flush(self):
        sys.__stdout__.flush()
        self.f.flush()

    def close(self, keep):
        """The saved copy replaced by this run's, only whole."""
        self.f.close()
        if keep:
            os.replace(self.path + ".tmp", self.path)
        else:
            os.unlink(self.path + ".tmp")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", action="append")
    ap.add_argument("--only")
    ap.add_argument("--last", action="store_true",
                    help="print the tables of the last run and exit")
    args = ap.parse_args()
    if args.last:
        if not os.path.exists(SAVED):
            print("bench-events: no saved run (%s); make bench-events "
                  "measures one" % os.path.relpath(SAVED, ROOT))
            return
        with open(SAVED) as f:
            print("Last `make bench-events` (%s):\n" % os.path.relpath(SAVED, ROOT))
            print(f.read().rstrip())
        return
    os.makedirs(real.BUILD, exist_ok=True)
    tee = sys.stdout = Tee(SAVED)
    done = False
    try:
        measure(args)
        done = True
    finally:
        sys.stdout = sys.__stdout__
        tee.close(done)


def measure(args):
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
        rows = []
        for name in names:
            plain, _ = part2(interp, "plain", name, False)
            count, prof = part2(interp, "count", name, True)
            calls = prof[0]
            ev = sum(calls.values())
            rows.append((name, count, plain, prof))
            print("| %s | %d | %s | %s |" % (
                name, ev, " | ".join(str(calls.get(c, 0)) for c in COLS),
                "%.0f" % ((count - plain) / ev) if ev else "-"))
            sys.stdout.flush()
        print()
        for name, count, plain, prof in rows:
            lines = per_kind_table([(name, count, plain, prof)])
            if lines:
                print("#### %s: the callback's cost by event kind" % name)
                print()
                print("\n".join(lines))
                print()


if __name__ == "__main__":
    main()
