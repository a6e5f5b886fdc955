#!/usr/bin/env python3
"""The collector's site executions by state against the interpreter's own
counters, in one process of a CPython built with --enable-pystats.

One process runs the work once with both counting: the collector (backend
"own", mode count, with the census alongside) and the native counters
(sys._stats_on()).  Both are switched on and off in C, around exactly the
work: measure(list, map(operator.call, (sys._stats_on, work,
sys._stats_off))) runs no bytecode of its own, so the collector counts
work's instructions and the native counters count the same ones, and
both see the same specialization decisions (the collector's events, which
instrument FOR_ITER and RESUME, are on for both).  Then the census is
taken, the collector's dump written (PYSTATS_DIR) and the native one
(CPython writes it to /tmp/py_stats; it is moved beside the collector's).

Then, per family and per specialized form (docs/FORMAT.md 1.18, "Checked
against a --enable-pystats build"):

  native     a form's execution count (3.13 counts hits and misses per
             family only: a form's executions are its hits plus its
             misses); per family, the executions of the base instruction
             and every form, INSTRUMENTED_<base> included, less one per
             specialization attempt (the instruction runs again after
             each);
  collector  `pystats summarize --json`'s census.site_executions: the
             executions at sites in that form, per family the sum over
             every state;
  sites      the collector's site rows in that form: each such site ran
             in its base form before it specialized (once, at the least:
             a site attempts at its second execution), which the
             collector credits to the form and the native build to the
             base instruction (3.14's JUMP_BACKWARD: none, its first
             execution is counted in both forms and is no attempt).

Usage (on a CPython built with --enable-pystats, 3.13; the extension
built for it with `make ext PYTHON=...`):

  python3 tools/native_effectiveness.py --python NATIVE [--ext DIR]
      [--benchmarks DIR] [--only a,b] [--json FILE]

prints the whole table for the 14 pyperformance benchmarks of `make
bench-real` (bench/real_workloads.py; pyperformance 1.14.0 installed into
build/bench-real/venv-<version>-native as bench/real.py does, unless
--benchmarks names its benchmarks directory).
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NATIVE_DIR = "/tmp/py_stats"   # fixed by CPython

# Run by the native interpreter: argv[1] the output directory, argv[2] a
# module path and argv[3] the name of a function in it that returns
# work() (argv[4:] its arguments).
RUNNER = r'''
import glob, importlib.util, json, opcode, operator, os, shutil, sys
import pystats
from pystats import _census
out, path, fn = sys.argv[1:4]
spec = importlib.util.spec_from_file_location("_ne_work", path)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
work = getattr(mod, fn)(*sys.argv[4:])
pystats.set_backend("own")
sys._stats_off()
sys._stats_clear()
pystats.clear()
_census.setup()
pystats.measure(list, map(operator.call,
                          (sys._stats_on, work, sys._stats_off)))
_census.take("count")
# CPython's own files, not the dumps other processes' collectors write
# there by default (pystats-PID-*.txt).
def natives():
    return {p for p in glob.glob(NATIVE_DIR + "/*.txt")
            if not os.path.basename(p).startswith("pystats-")}
before = natives()
sys._stats_dump()
new = sorted(natives() - before)
if len(new) != 1:
    raise SystemExit("native dumps written: %r" % new)
shutil.move(new[0], os.path.join(out, "native.txt"))
assert pystats.dump()
with open(os.path.join(out, "families.json"), "w") as f:
    json.dump({"version": "%d.%d" % sys.version_info[:2],
               "families": opcode._specializations}, f)
'''.replace("NATIVE_DIR", repr(NATIVE_DIR))


def cli_path():
    return os.environ.get("PYSTATS_CLI") or os.path.join(ROOT, "build",
                                                         "pystats")


def run_one(python, ext_dir, out, path, fn, *args, timeout=600):
    """Run work (fn(*args) of the module at path) in one process of
    `python` with both counting; the dumps go into `out`."""
    coll = os.path.join(out, "collector")
    os.makedirs(coll, exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHONSTATS", "PYSTATS_"))}
    env.update(PYTHONPATH=ext_dir, PYSTATS_DIR=coll, PYTHONHASHSEED="0")
    p = subprocess.run([python, "-c", RUNNER, out, path, fn] + list(args),
                       env=env, capture_output=True, text=True,
                       timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("%s %s: %s" % (path, fn, p.stderr[-3000:]))
    return read_run(out)


_NATIVE_KEY = re.compile(
    r"opcode\[(\w+)\]\.(execution_count|specialization\.(\w+))$")
_ROW = re.compile(r"^code\[.*\]\.site\[\d+\] : (\w+) \| (\w+) \| (\w*) \|")


def read_native(path):
    """{opcode: executions}, {opcode: {success, failure, hit, miss, ...}}
    of a native dump."""
    exe, spec = {}, {}
    with open(path) as f:
        for line in f:
            key, _, val = line.strip().rpartition(":")
            m = _NATIVE_KEY.match(key.strip())
            if not m:
                continue
            if m.group(3) is None:
                exe[m.group(1)] = exe.get(m.group(1), 0) + int(val)
            else:
                d = spec.setdefault(m.group(1), {})
                d[m.group(3)] = d.get(m.group(3), 0) + int(val)
    return exe, spec


def read_rows(directory):
    """{form: sites}: the collector's site rows in each specialized form,
    read from its dumps' own lines."""
    sites = {}
    for path in glob.glob(os.path.join(directory, "*.txt")):
        with open(path) as f:
            for line in f:
                m = _ROW.match(line)
                if m and m.group(2) == "specialized":
                    sites[m.group(3)] = sites.get(m.group(3), 0) + 1
    return sites


def read_run(out):
    coll = os.path.join(out, "collector")
    summary = os.path.join(out, "summary.json")
    p = subprocess.run([cli_path(), "summarize", coll, "--json", summary],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("pystats summarize: " + p.stderr[-2000:])
    with open(summary) as f:
        doc = json.load(f)
    sx = doc["census"]["site_executions"]
    # Each family's executions, every form, from the collector's opcode
    # counts: the figure of a family the census has no sites of.
    fam_exec = {}
    for op in doc["opcodes"].values():
        f = op.get("family")
        if f:
            fam_exec[f] = fam_exec.get(f, 0) + op.get("execution_count", 0)
    with open(os.path.join(out, "families.json")) as f:
        fam = json.load(f)
    exe, spec = read_native(os.path.join(out, "native.txt"))
    return {"version": fam["version"], "families": fam["families"],
            "native_exe": exe, "native_spec": spec,
            "collector": sx, "family_exec": fam_exec,
            "sites": read_rows(coll)}


STATES = ("specialized", "backing_off", "never_tried", "excluded")


def compare(run):
    """Rows of the comparison: one per family (form None), then one per
    form that either side executed.  Each row: family, form, native,
    collector, sites (forms only), the two as percentages of the family's
    executions (each side's own total) and their difference in
    percentage points; a family row's figures are its executions, all
    forms' executions (native_forms) and the collector's by state."""
    exe, spec, sx = run["native_exe"], run["native_spec"], run["collector"]
    version = tuple(int(x) for x in run["version"].split("."))
    rows = []
    for base, forms in run["families"].items():
        st = spec.get(base, {})
        attempts = st.get("success", 0) + st.get("failure", 0)
        # Executions per site in form F that the collector credits to F
        # and the native build to the base instruction: the one before
        # the site's attempt (at its second execution).
        warm = 1
        if base == "JUMP_BACKWARD" and version >= (3, 14):
            # 3.14: a JUMP_BACKWARD's first execution rewrites it into
            # its form and dispatches it again, with no statistic
            # (_SPECIALIZE_JUMP_BACKWARD): every base execution is one
            # such rewrite, and the form counts that execution too.
            attempts += exe.get(base, 0)
            warm = 0
        native = (exe.get(base, 0) + exe.get("INSTRUMENTED_" + base, 0) +
                  sum(exe.get(f, 0) for f in forms) - attempts)
        c = sx.get(base, {})
        coll = sum(c.get(s, 0) for s in STATES)
        if base not in sx:
            # No site rows (3.14's JUMP_BACKWARD, whose counter is the
            # JIT's, not specialization state): its executions only.
            coll = run["family_exec"].get(base, 0)
        if not native and not coll:
            continue
        nforms = sum(exe.get(f, 0) for f in forms)
        fam = {"family": base, "form": None, "native": native,
               "successes": st.get("success", 0),
               "collector": coll, "native_forms": nforms,
               "hits": st.get("hit", 0), "misses": st.get("miss", 0),
               "attempts": attempts, "failures": st.get("failure", 0),
               "uncertain": c.get("uncertain", 0), "rows": base in sx,
               "native_pct": pct(nforms, native),
               "collector_pct": pct(c.get("specialized", 0), coll)}
        fam.update({s: c.get(s, 0) for s in STATES})
        fam["diff_pp"] = fam["collector_pct"] - fam["native_pct"]
        rows.append(fam)
        if base not in sx:
            continue
        cforms = c.get("forms", {})
        for f in forms:
            n, k = exe.get(f, 0), cforms.get(f, 0)
            if not n and not k:
                continue
            row = {"family": base, "form": f, "native": n, "collector": k,
                   "sites": run["sites"].get(f, 0), "warm": warm,
                   "native_pct": pct(n, native),
                   "collector_pct": pct(k, coll)}
            row["diff_pp"] = row["collector_pct"] - row["native_pct"]
            row["residual"] = k - n - warm * row["sites"]
            rows.append(row)
    return rows


def pct(part, whole):
    return 100.0 * part / whole if whole else 0.0


def table(rows, title=None):
    """The rows as a Markdown table."""
    out = []
    if title:
        out.append("### " + title)
        out.append("")
    out.append("| family | form | native hits+misses | collector specialized"
               " | sites | native % | collector % | diff pp |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        if r["form"] is None:
            out.append("| **%s** | all forms (family: native %d, collector %d"
                       "%s) | %d | %d | | %.2f | %.2f | %+.2f |" % (
                           r["family"], r["native"], r["collector"],
                           ", excluded" if r["excluded"] else
                           ", no site rows" if not r["rows"] else
                           "; backing off %d, never tried %d, uncertain %d;"
                           " native misses %d, failures %d" % (
                               r["backing_off"], r["never_tried"],
                               r["uncertain"], r["misses"], r["failures"]),
                           r["native_forms"], r["specialized"],
                           r["native_pct"], r["collector_pct"],
                           r["diff_pp"]))
        else:
            out.append("| %s | %s | %d | %d | %d | %.2f | %.2f | %+.2f |" % (
                r["family"], r["form"], r["native"], r["collector"],
                r["sites"], r["native_pct"], r["collector_pct"],
                r["diff_pp"]))
    return "\n".join(out)


BENCH_MODULE = r'''
import os, sys
def work(bench_dir, name, units):
    sys.path.insert(0, BENCH)
    import real_workloads
    w = real_workloads.load(name, bench_dir)
    return lambda: w(int(units))
'''


def benchmarks_dir(python):
    """pyperformance's benchmarks directory, installed as bench/real.py
    installs it (its virtual environment for `python`)."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import real
    interp = real.Interpreter(python, True)
    os.makedirs(real.WORK, exist_ok=True)
    interp.setup()
    return interp.vpython, interp.benchmarks


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=os.environ.get("NATIVE_PYTHON"),
                    help="a CPython built with --enable-pystats "
                    "(default: $NATIVE_PYTHON)")
    ap.add_argument("--ext", help="the collector built for it (default: "
                    "make print-ext-dir PYTHON=...)")
    ap.add_argument("--benchmarks", help="pyperformance's benchmarks "
                    "directory (default: installed as bench/real.py does)")
    ap.add_argument("--only", help="benchmarks, comma-separated")
    ap.add_argument("--units", type=int, default=1,
                    help="units of work per benchmark (bench/real_workloads"
                    ".py's sizes)")
    ap.add_argument("--json", help="write every row here too")
    args = ap.parse_args()
    if not args.python:
        raise SystemExit("native_effectiveness: --python or NATIVE_PYTHON "
                         "(a CPython built with --enable-pystats)")
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from real_workloads import NAMES
    names = args.only.split(",") if args.only else list(NAMES)
    ext = args.ext or subprocess.run(
        ["make", "-s", "-C", ROOT, "print-ext-dir", "PYTHON=" + args.python],
        capture_output=True, text=True, check=True).stdout.strip()
    python = args.python
    if args.benchmarks:
        bench = args.benchmarks
    else:
        python, bench = benchmarks_dir(args.python)
    tmp = tempfile.mkdtemp(prefix="native-effectiveness-")
    module = os.path.join(tmp, "bench_work.py")
    with open(module, "w") as f:
        f.write(BENCH_MODULE.replace("BENCH", repr(os.path.join(ROOT,
                                                                "bench"))))
    every = {}
    try:
        for name in names:
            out = os.path.join(tmp, name)
            run = run_one(python, ext, out, module, "work", bench, name,
                          str(args.units))
            rows = compare(run)
            every[name] = rows
            print(table(rows, "%s (CPython %s)" % (name, run["version"])))
            print(flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(every, f, indent=1)


if __name__ == "__main__":
    main()
