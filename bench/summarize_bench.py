#!/usr/bin/env python3
"""Throughput of `pystats summarize` against `cat` on the same files.

Generates N dump files (default 8,000) by copying and perturbing the
native fixtures (every counter value changed per variant), warms the page
cache, then times `cat FILES > /dev/null` and `pystats summarize FILES
--json` over them.  Prints files/s, MB/s, peak RSS and the ratio to cat,
and checks the totals the program computed against the totals known from
generation, so a fast wrong answer fails.

Exit status: 0 if the totals match (and, with --enforce, the targets of
ratio <= 2 and peak RSS < 32 MB are met), 1 otherwise.
"""

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIXTURES = os.path.join(ROOT, "tests", "golden", "native")


def fixture_files():
    out = []
    for d in sorted(os.listdir(FIXTURES)):
        if not d.startswith("cpython-"):
            continue
        minor = d.split(".")[1]
        for f in sorted(os.listdir(os.path.join(FIXTURES, d))):
            out.append(("3." + minor, os.path.join(FIXTURES, d, f)))
    return out


def perturb(text, rng):
    """Change every counter value; return the new text and its totals."""
    lines = []
    exec_total = 0
    for line in text.splitlines(keepends=True):
        key, sep, val = line.rpartition(":")
        v = val.strip()
        if sep and v.isdigit() and not key.strip().endswith("specializable"):
            n = int(v) + rng.randrange(0, 5)
            if key.strip().endswith("execution_count") and key.strip().startswith("opcode"):
                exec_total += n
            line = "%s: %d\n" % (key.rstrip(), n) if not key.endswith(" ") else "%s: %d\n" % (key, n)
        lines.append(line)
    return "".join(lines), exec_total


TIME = "/usr/bin/time"


def run_timed(argv, stdout):
    """Run argv; return (seconds, peak RSS in KiB of that program).

    The peak RSS comes from /usr/bin/time where it exists: a child forked
    from this (large) Python process would report the parent's memory as
    its own high-water mark."""
    rss_file = None
    cmd = argv
    if os.access(TIME, os.X_OK):
        fd, rss_file = tempfile.mkstemp()
        os.close(fd)
        cmd = [TIME, "-f", "%M", "-o", rss_file] + argv
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=stdout)
    _, status, ru = os.wait4(p.pid, 0)
    t1 = time.perf_counter()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit("%s failed with %d" % (argv[0], code))
    rss = ru.ru_maxrss
    if rss_file:
        with open(rss_file) as f:
            rss = int(f.read().split()[-1])
        os.unlink(rss_file)
    return t1 - t0, rss


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=8000)
    ap.add_argument("--variants", type=int, default=40, help="perturbed variants per fixture")
    ap.add_argument("--pystats", default=os.path.join(ROOT, "build", "pystats"))
    ap.add_argument("--repeat", type=int, default=3, help="best of N timings")
    ap.add_argument("--jobs", type=int, default=0, help="pystats --jobs (0: its default)")
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    ap.add_argument("--enforce", action="store_true", help="fail unless ratio <= 2 and RSS < 32 MB")
    args = ap.parse_args()

    rng = random.Random(42)
    tmp = tempfile.mkdtemp(prefix="pystats-bench-")
    try:
        variants = []
        for ver, path in fixture_files():
            with open(path) as f:
                text = f.read()
            for _ in range(args.variants):
                variants.append((ver,) + perturb(text, rng))
        dump_dir = os.path.join(tmp, "dumps")
        os.mkdir(dump_dir)
        expected = {}
        nbytes = 0
        for i in range(args.files):
            ver, text, total = variants[i % len(variants)]
            name = os.path.join(dump_dir, "%040x.txt" % rng.getrandbits(160))
            with open(name, "w") as f:
                f.write(text)
            nbytes += len(text)
            files, t = expected.get(ver, (0, 0))
            expected[ver] = (files + 1, t + total)
        del variants
        paths = sorted(os.path.join(dump_dir, n) for n in os.listdir(dump_dir))
        out_json = os.path.join(tmp, "summary.json")

        # Warm the page cache, then best of N for each.
        subprocess.run(["cat"] + paths, stdout=subprocess.DEVNULL, check=True)
        with open(os.devnull, "w") as null:
            cat_t = min(run_timed(["cat"] + paths, null)[0] for _ in range(args.repeat))
            cmd = [args.pystats, "summarize", dump_dir, "--json", out_json, "--quiet"]
            if args.jobs:
                cmd += ["--jobs", str(args.jobs)]
            runs = [run_timed(cmd, null)
                    for _ in range(args.repeat)]
        ps_t = min(r[0] for r in runs)
        rss_kib = max(r[1] for r in runs)

        with open(out_json) as f:
            summary = json.load(f)
        got = {}
        for g in summary.get("groups", [summary]):
            m = g["meta"]
            got[m["python_version"]] = (m["files"], m["total_execution_count"])
        ok = got == expected

        mb = nbytes / 1e6
        ratio = ps_t / cat_t
        print("files: %d, %.1f MB" % (args.files, mb))
        print("cat:     %.3f s  %8.0f files/s  %7.1f MB/s" % (cat_t, args.files / cat_t, mb / cat_t))
        print("pystats: %.3f s  %8.0f files/s  %7.1f MB/s  peak RSS %.1f MB"
              % (ps_t, args.files / ps_t, mb / ps_t, rss_kib / 1024))
        print("ratio to cat: %.2fx (target <= 2x); peak RSS target < 32 MB" % ratio)
        print("totals: %s" % ("match" if ok else "MISMATCH: expected %r, got %r" % (expected, got)))
        if not ok:
            return 1
        if args.enforce and (ratio > 2 or rss_kib >= 32 * 1024):
            print("targets not met")
            return 1
        return 0
    finally:
        if args.keep:
            print("kept in %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
