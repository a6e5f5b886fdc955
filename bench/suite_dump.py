#!/usr/bin/env python3
"""What the census and the site rows with their executions cost a dump
on a real test suite (docs/FORMAT.md 1.18, "Cost"): the suite run
in-process under pytest in mode count, then the window closed (which
takes the census and selects the site rows) and one dump written; the
CPU and wall-clock times of both, the dump's size, its site rows and
source lines.  The libraries the suite runs (site-packages, the
standard library) are counted as its own code is.

    python bench/suite_dump.py [--no-census] -- PYTEST_ARGS...

--no-census: the same without the census (PYSTATS_CENSUS=0's
collection), the figures without it.  Prints one line of JSON.
"""
import json
import os
import sys
import tempfile
import time

OUT = tempfile.mkdtemp(prefix="suite-dump-")
os.environ["PYSTATS_DIR"] = OUT     # read when pystats is imported
import pystats  # noqa: E402
import pytest  # noqa: E402


def main():
    args = sys.argv[1:]
    census = True
    if args and args[0] == "--no-census":
        census, args = False, args[1:]
    if args and args[0] == "--":
        args = args[1:]
    pystats.on(census=census)
    rc = pytest.main(["-q", "-p", "no:cacheprovider"] + args)
    c0, w0 = time.process_time(), time.perf_counter()
    pystats.off()
    c1, w1 = time.process_time(), time.perf_counter()
    assert pystats.dump()
    c2, w2 = time.process_time(), time.perf_counter()
    [name] = os.listdir(OUT)
    path = os.path.join(OUT, name)
    rows = lines = execs = 0
    size = {"site_rows": 0, "site_executions": 0, "source_lines": 0}
    with open(path, encoding="utf-8") as f:
        for line in f:
            n = len(line.encode("utf-8", "surrogatepass"))
            if line.startswith("source["):
                lines += 1
                size["source_lines"] += n
            elif line.startswith("code[") and "].site[" in line:
                rows += 1
                size["site_rows"] += n
            elif line.startswith("code[") and "].site_executions[" in line:
                execs += 1
                size["site_executions"] += n
    print(json.dumps({
        "python": "%d.%d" % sys.version_info[:2], "census": census,
        "tests_exit": int(rc), "close_cpu_ms": round(1000 * (c1 - c0), 1),
        "close_wall_ms": round(1000 * (w1 - w0), 1),
        "dump_cpu_ms": round(1000 * (c2 - c1), 1),
        "dump_wall_ms": round(1000 * (w2 - w1), 1),
        "dump_mb": round(os.path.getsize(path) / 1e6, 2),
        "site_rows": rows, "site_executions": execs, "source_lines": lines,
        "mb": {k: round(v / 1e6, 2) for k, v in size.items()}}))
    os.unlink(path)
    os.rmdir(OUT)


if __name__ == "__main__":
    main()
