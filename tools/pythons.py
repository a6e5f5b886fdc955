"""Find the CPython 3.11-3.14 interpreters to build and test for, at run
time: $PYTHONS (space-separated paths) if set, else each version under
`pyenv root`, else pythonX.Y on PATH.  $PYTHON314 names a CPython 3.14
to use besides (or, with $PYTHONS, in addition to) those: 3.14 is tested
wherever such an interpreter is found.  $PYTHON314T likewise names a
free-threaded CPython 3.14 (3.14t), tested besides.

`python tools/pythons.py` prints them all, a line each; `--newest`
prints the newest one with a GIL ($PYTHON314T left out): the one the
bundled example and the sanitizer run use."""
import glob
import os
import re
import shutil
import subprocess

VERSIONS = ("3.11", "3.12", "3.13", "3.14")


def _add_python314(found):
    for var in ("PYTHON314", "PYTHON314T"):
        exe = os.environ.get(var)
        if exe and exe not in found:
            found.append(exe)
    return found


def find_pythons():
    if os.environ.get("PYTHONS"):
        return _add_python314(os.environ["PYTHONS"].split())
    try:
        root = subprocess.run(["pyenv", "root"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        root = None
    found = []
    for ver in VERSIONS:
        if ver == "3.14" and os.environ.get("PYTHON314"):
            continue
        cands = []
        if root:
            pat = os.path.join(root, "versions", ver + ".*", "bin", "python3")
            cands = [c for c in glob.glob(pat)
                     if re.search(r"/%s\.\d+/bin/" % re.escape(ver), c)]
            cands.sort(key=lambda c: int(c.split("/")[-3].split(".")[2]))
        exe = cands[-1] if cands else shutil.which("python" + ver)
        if exe:
            found.append(exe)
    return _add_python314(found)


if __name__ == "__main__":
    import sys

    found = find_pythons()
    if sys.argv[1:] == ["--newest"]:
        found = [p for p in found if p != os.environ.get("PYTHON314T")][-1:]
    print("\n".join(found))
