#!/usr/bin/env python3
"""What per-line counts cost a dump (docs/FORMAT.md 1.18): a program of
N code objects (default 5,000 functions of 8 lines, each run once,
some several times, so that the hot code's order is defined), counted in
mode count; then pystats.dump() R times (each after the same work
again), its wall-clock time and the size of the file it wrote, and how
many lines of it are per-line counts.

    PYTHONPATH=build/py3.12 python3.12 bench/lines_dump.py [N] [R] [EXTRA]

EXTRA: that many more lines in each function (60: more line entries
than a dump writes, so that the bound applies).

Prints one line: N, the median dump time (wall clock, which includes
the fsync of the file, and CPU time of the process), the dump's size
(bytes), its lines, its code[..].line[..] lines and its hot-code
entries.
"""
import os
import statistics
import sys
import tempfile
import time

OUT = tempfile.mkdtemp(prefix="lines-dump-")
os.environ["PYSTATS_DIR"] = OUT     # read when pystats is imported
import pystats  # noqa: E402

BODY = """def f{k}(x):
    t = x
{extra}    for i in range(3):
        t += i * {k}
    if t % 2:
        t -= 1
    return t
"""


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    extra = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    body = "".join("    t += %d\n" % i for i in range(extra))
    ns = {}
    exec(compile("".join(BODY.format(k=k, extra=body) for k in range(n)),
                 "<lines_dump>", "exec"), ns)
    fns = [ns["f%d" % k] for k in range(n)]
    out = OUT
    times, cpu, sizes, last = [], [], [], None
    for _ in range(reps):
        pystats.clear()
        pystats.on()
        for k, f in enumerate(fns):
            for _ in range(1 + k % 7):
                f(k)
        pystats.off()
        before = set(os.listdir(out))
        t0, c0 = time.perf_counter(), time.process_time()
        pystats.dump()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        (new,) = set(os.listdir(out)) - before
        last = os.path.join(out, new)
        sizes.append(os.path.getsize(last))
    with open(last, encoding="utf-8") as fh:
        text = fh.read().splitlines()
    line_keys = sum(1 for t in text if t.startswith("code[") and "].line[" in t)
    entries = sum(1 for t in text if t.startswith("code[")
                  and "].instructions : " in t)
    omitted = [t for t in text if t.startswith("code_lines.omitted")]
    print("code objects %d: dump %.2f ms wall, %.2f ms CPU (medians of %d), "
          "%d bytes, %d lines, %d line entries, %d hot-code entries %s" % (
              n, 1000 * statistics.median(times), 1000 * statistics.median(cpu),
              reps, sizes[-1], len(text), line_keys, entries, omitted))


if __name__ == "__main__":
    main()
