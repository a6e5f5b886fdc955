"""3.11's mode count on pyperformance work (bench/real_workloads.py):
opcode events against line events (PYSTATS_TRACE_LINES), each as
count/plain of the callgrind instructions of the measured units (the part
between bench/real.py's getpgrp() markers).

    python3 bench/lines311_real.py PYTHON [NAME ...]

PYTHON: a 3.11 interpreter with pystats, pyperformance==1.14.0 and
pyperf==2.11.0 installed.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
WORKLOADS = os.path.join(ROOT, "bench", "real_workloads.py")
UNITS = {"nbody": 2, "richards": 1, "float": 1, "deltablue": 1, "go": 1,
         "json_loads": 5, "hexiom": 1, "chaos": 1, "raytrace": 1,
         "generators": 5, "coroutines": 8, "regex_effbot": 2,
         "unpack_sequence": 6, "spectral_norm": 1}


def measured(python, benchmarks, mode, name, lines):
    tmp = tempfile.mkdtemp(prefix="lines311-")
    try:
        out = os.path.join(tmp, "callgrind.out")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PYTHONSTATS", "PYSTATS_"))}
        env.update(PYTHONHASHSEED="0", PYSTATS_DIR=os.path.join(tmp, "d"),
                   PYSTATS_TRACE_LINES=lines)
        r = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
             "--dump-before=getpgrp", "--dump-instr=no", python, WORKLOADS,
             mode, benchmarks, "%s:1:%d" % (name, UNITS[name])],
            env=env, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(r.stderr[-3000:])
        with open(out + ".2") as f:
            return int(re.search(r"^totals: (\d+)", f.read(), re.M).group(1))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    python = sys.argv[1]
    names = sys.argv[2:] or ["richards", "nbody", "generators", "raytrace"]
    benchmarks = subprocess.run(
        [python, "-c", "import importlib.util, os; print(os.path.join("
         "importlib.util.find_spec('pyperformance')."
         "submodule_search_locations[0], 'data-files', 'benchmarks'))"],
        capture_output=True, text=True, check=True).stdout.strip()
    print("  %-12s %10s %10s" % ("benchmark", "opcodes", "lines"))
    for name in names:
        plain = measured(python, benchmarks, "plain", name, "0")
        a = measured(python, benchmarks, "count", name, "0") / plain
        b = measured(python, benchmarks, "count", name, "1") / plain
        print("  %-12s %9.2fx %9.2fx" % (name, a, b))


if __name__ == "__main__":
    main()
