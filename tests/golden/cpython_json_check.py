"""Checks of `pystats summarize --cpython-json` against sources that are
not the program: CPython's own Tools/scripts/summarize_stats.py, run where
its tree is found, the script's output committed beside the fixtures, and
the script's summing re-done here from the raw dump lines.

    cpython_json_check.py sums OURS DIR        the raw keys summed, in order
    cpython_json_check.py file OURS EXPECTED   equal as JSON objects
    cpython_json_check.py script X.Y OURS DIR  the script of the X.Y tree
                                               ($CPYTHON_SRC_X_Y) run on DIR

Prints "equal", or what differs, or "skip: why" (script: no tree, or no
interpreter of that version whose opcode module is the tree's).
"""
import collections
import json
import os
import runpy
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))

META = ("_specialized_instructions", "_stats_defines", "_defines")


def script_sums(directory):
    """load_raw_data()'s loop of summarize_stats.py (3.13, 3.14), over
    the files in name order: every key summed, "uops[X" given its "_",
    __nfiles__ added after the first file."""
    stats = collections.Counter()
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name)) as fd:
            for line in fd:
                try:
                    key, value = line.split(":")
                except ValueError:
                    continue
                if key.startswith("uops[") and key[5:6] != "_":
                    key = "uops[_" + key[5:]
                stats[key.strip()] += int(value)
        stats["__nfiles__"] += 1
    return dict(stats)


def differences(ours, expected, ordered):
    out = []
    for k in list(expected) + [k for k in ours if k not in expected]:
        if ours.get(k) != expected.get(k):
            out.append("%s: ours %.60r, expected %.60r" % (k, ours.get(k), expected.get(k)))
    if not out and ordered and list(ours) != list(expected):
        out.append("same members, another order")
    return "; ".join(out[:5]) if out else "equal"


def load(path):
    with open(path) as f:
        return json.load(f)


def interpreter(minor, tree):
    """A python3.minor found as the tests find interpreters
    (tools/pythons.py: $PYTHONS, pyenv, PATH, $PYTHON314) whose
    opcode._specialized_opmap is the tree's (the script takes
    _specialized_instructions from the interpreter running it)."""
    try:
        want = list(runpy.run_path(os.path.join(tree, "Lib", "_opcode_metadata.py"))
                    ["_specialized_opmap"].items())
    except (OSError, KeyError, SyntaxError):
        return None
    import pythons
    cands = pythons.find_pythons()
    probe = ("import json, opcode, sys; print(json.dumps([list(sys.version_info[:2]),"
             " list(opcode._specialized_opmap.items())]))")
    for exe in cands:
        try:
            out = subprocess.run([exe, "-c", probe], capture_output=True, text=True,
                                 check=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        ver, opmap = json.loads(out)
        if "%d.%d" % tuple(ver) == minor and [tuple(x) for x in opmap] == want:
            return exe
    return None


def script(minor, ours, directory):
    var = "CPYTHON_SRC_" + minor.replace(".", "_")
    tree = os.environ.get(var)
    path = tree and os.path.join(tree, "Tools", "scripts", "summarize_stats.py")
    if not path or not os.path.isfile(path):
        return "skip: no CPython %s tree (set %s to one)" % (minor, var)
    exe = interpreter(minor, tree)
    if exe is None:
        return "skip: no CPython %s interpreter whose opcode module is %s's" % (minor, tree)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "script.json")
        subprocess.run([exe, path, directory, "--json-output", out], check=True,
                       stdout=subprocess.DEVNULL, timeout=600)
        return differences(ours, load(out), ordered=False)


def main(argv):
    if argv[0] == "sums":
        ours = {k: v for k, v in load(argv[1]).items() if k not in META}
        return differences(ours, script_sums(argv[2]), ordered=True)
    if argv[0] == "file":
        return differences(load(argv[1]), load(argv[2]), ordered=False)
    if argv[0] == "script":
        return script(argv[1], load(argv[2]), argv[3])
    raise SystemExit("usage: see the docstring")


if __name__ == "__main__":
    print(main(sys.argv[1:]))
