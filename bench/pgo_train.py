#!/usr/bin/env python3
"""The training run of a profile-guided build of the collector (make
ext-pgo): the corpus of tests/py/workloads and the bundled example, run
with the extension built with -fprofile-generate, in each mode the
interpreter has (count and census first: count is what users run), a
dump after each, so that the profile covers the callbacks, the segment
fold, the census walk and the writer in the proportions real use has;
then the command (`python -m pystats`) summarizes, checks and annotates
the dumps, which trains it where it is built with the collector (a
wheel).

    PYTHONPATH=BUILD/pgo/pyX.Y python bench/pgo_train.py

Deterministic (no timing, no randomness); about 20 s plain on 3.13."""
import os
import runpy
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "py"))
OUT = tempfile.mkdtemp(prefix="pystats-pgo-")
os.environ["PYSTATS_DIR"] = OUT     # read when pystats is imported

import pystats  # noqa: E402
import workloads  # noqa: E402

# How often each workload runs per mode: mode count is weighed most, as
# it is the default and the one whose cost matters.
ROUNDS = {"count": 40, "census": 4, "instructions": 4}


def modes():
    if sys.version_info < (3, 12):
        return ["instructions"]
    return ["count", "census", "instructions"]


def main():
    mods = [workloads.load(name) for name in workloads.ALL]
    for mode in modes():
        pystats.on(mode=mode)
        for _ in range(ROUNDS[mode]):
            for mod in mods:
                mod.run()
        sys.argv = ["mixed.py", "1"]
        runpy.run_path(os.path.join(ROOT, "examples", "mixed.py"),
                       run_name="__main__")
        pystats.off()
        pystats.dump()
    n = len(os.listdir(OUT))
    # The command too, where it is built with the collector (a wheel):
    # the dumps read, summarized and checked in every output format.
    report = os.path.join(OUT, "report")
    for args in (["summarize", OUT, "--json", report + ".json", "--markdown",
                  report + ".md", "--html", report + ".html"],
                 ["check", OUT], ["annotate", OUT]):
        subprocess.run([sys.executable, "-m", "pystats"] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shutil.rmtree(OUT)
    print("pgo training: %d modes, %d dumps" % (len(modes()), n))


if __name__ == "__main__":
    main()
