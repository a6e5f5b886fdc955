"""How many first-hit JUMP events (each a DISABLE in mode count, each a
stop of the world on a free-threaded build) a program has per code
object that runs: `python bench/ft_jumps.py`.  A pure-Python tool counts
the distinct code objects that start (PY_START) and the distinct jump
sites that fire JUMP, returning DISABLE for both (an upper bound on the
collector's quiet jumps: it keeps the back edges of loops without a test
inside), over the collector's test corpus (tests/py/workloads) and some
standard-library work (json, re, difflib, textwrap, pprint, dataclasses).
Disabling ahead of time, one stop per code object, would replace
jumps/code stops by one."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "py"))
MON = sys.monitoring
TOOL = 4


def stdlib_work():
    import dataclasses
    import difflib
    import json
    import pprint
    import re
    import textwrap
    data = {"k%d" % i: [i, str(i) * 3, {"x": i / 7}] for i in range(300)}
    json.loads(json.dumps(data, indent=1, sort_keys=True))
    pattern = re.compile(r"(?P<w>\w+)\s*=\s*(\d+|'[^']*')")
    pattern.findall("a = 1 b = 'x' " * 50)
    a = ["line %d %s" % (i, "x" * (i % 7)) for i in range(200)]
    b = [s.replace("3", "4") for s in a]
    list(difflib.unified_diff(a, b))
    textwrap.fill(" ".join(a), 60)
    pprint.pformat(data)
    P = dataclasses.make_dataclass("P", [("x", int), ("y", int, 0)])
    sorted([P(i, -i) for i in range(50)], key=lambda p: p.y)


def main():
    import workloads
    codes, jumps = set(), set()

    def start(code, off):
        codes.add(code)
        return MON.DISABLE

    def jump(code, src, dst):
        jumps.add((code, src))
        return MON.DISABLE

    MON.use_tool_id(TOOL, "ft_jumps")
    MON.register_callback(TOOL, MON.events.PY_START, start)
    MON.register_callback(TOOL, MON.events.JUMP, jump)
    MON.set_events(TOOL, MON.events.PY_START | MON.events.JUMP)
    for name in workloads.ALL:
        if name != "threads":
            workloads.load(name).run()
    stdlib_work()
    MON.set_events(TOOL, 0)
    with_jumps = len({c for c, _ in jumps})
    print("%d code objects ran, %d jump sites fired JUMP (%d code objects "
          "with one): %.2f per code object, %.2f per code object with one" % (
              len(codes), len(jumps), with_jumps, len(jumps) / len(codes),
              len(jumps) / max(with_jumps, 1)))


if __name__ == "__main__":
    main()
