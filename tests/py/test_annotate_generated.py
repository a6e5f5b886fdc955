"""pystats annotate of generated code (a function made by exec from a
string, as template engines do): its lines are keyed FILE:LINE:QUALNAME
and its site rows FILE:LINE:QUALNAME:MODULE:FUNCQUAL (docs/FORMAT.md
1.18); the view shows each line's sites, their states checked against
the adaptive bytecode as Python itself reads it (test_sites.READING, in
the child after the window closed)."""
import json
import os
import subprocess
import sys

from conftest import clean_env, dumps_in, run_python
from test_sites import READING, needs_segments

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CLI = os.path.join(ROOT, "build", "pystats")

PROGRAM = READING + r'''
import json, sys
import pystats


class O:
    def __init__(self):
        self.x = 1


SRC = ("def hot(o, n):\n"
       "    t = 0\n"
       "    for i in range(n):\n"
       "        t += o.x\n"
       "    return t\n")
ns = {"__name__": "genmod"}
exec(compile(SRC, "<gen>", "exec"), ns)
pystats.on()
ns["hot"](O(), 5000)
pystats.off()
with open(sys.argv[1], "w") as f:
    json.dump(reading(ns["hot"].__code__), f)
assert pystats.dump()
'''

WORDS = {"specialized": "specialized", "backing_off": "backing off",
         "never_tried": "never tried", "excluded": "not read"}


@needs_segments
def test_generated_code_shows_its_sites(tmp_path):
    d = str(tmp_path / "stats")
    run_python(PROGRAM, args=[str(tmp_path / "r.json")],
               env=clean_env(PYSTATS_DIR=d))
    [_] = dumps_in(d)
    with open(tmp_path / "r.json") as f:
        rows = json.load(f)
    p = subprocess.run([CLI, "annotate", d, "--function", "hot"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "No site states" not in p.stdout
    # Each line's site states: the line of the source view, then one
    # line of its sites ("specialized: A, B; never tried: C").
    shown = {}
    lines = p.stdout.splitlines()
    for i, l in enumerate(lines):
        parts = l.split()
        if len(parts) >= 2 and parts[1].isdigit() and i + 1 < len(lines) \
                and lines[i + 1].startswith("                    "):
            shown[int(parts[1])] = lines[i + 1].strip()
    want = {}
    for fam, state, detail, line, *_ in rows.values():
        name = detail if state == "specialized" else fam
        want.setdefault(int(line), []).append((WORDS[state], name))
    assert sorted(want) == sorted(shown), (want, p.stdout)
    for line, sites in want.items():
        for word, name in sites:
            part = [s for s in shown[line].split("; ")
                    if s.startswith(word + ": ")]
            assert part and name in part[0], (line, word, name, shown[line])
    # The loop's attribute load ran 5,000 times on one class: specialized.
    assert "LOAD_ATTR_INSTANCE_VALUE" in shown[4]
    assert sys.version_info >= (3, 12)
