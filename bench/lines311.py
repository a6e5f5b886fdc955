"""3.11's mode count: opcode events against line events (PYSTATS_TRACE_LINES),
as count/plain ratios of callgrind instruction counts, each the cost of N2
iterations minus that of N1 (bench/run.py's method).

    python3 bench/lines311.py PYTHON [N1 N2]

PYTHON: a 3.11 interpreter with pystats installed (make install-ext).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import instructions  # noqa: E402

KINDS = ("tight", "attrs", "gen")


def cost(python, mode, kind, n, lines):
    return instructions(python, None, mode, kind, n,
                        PYSTATS_TRACE_LINES=lines)


def main():
    python = sys.argv[1]
    n1, n2 = (int(x) for x in sys.argv[2:4]) if len(sys.argv) > 3 else (
        2000, 12000)
    print("callgrind instructions, N=%d minus N=%d" % (n2, n1))
    print("  %-6s %12s %12s %12s" % ("kind", "opcodes", "lines", "ratio"))
    for kind in KINDS:
        d = {}
        for mode, lines in (("plain", "0"), ("count", "0"), ("count", "1")):
            d[mode, lines] = (cost(python, mode, kind, n2, lines) -
                              cost(python, mode, kind, n1, lines))
        plain = d["plain", "0"]
        a, b = d["count", "0"] / plain, d["count", "1"] / plain
        print("  %-6s %11.2fx %11.2fx %11.2fx" % (kind, a, b, a / b))


if __name__ == "__main__":
    main()
