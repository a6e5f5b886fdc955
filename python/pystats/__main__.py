"""`python -m pystats ...` is the `pystats` command: the C program
installed with the package, found and run in this process's place (its
arguments, output and exit status are the command's own).

Where it is looked for, in order:

1. this interpreter's scripts directory (`pip install`: the wheel puts the
   command into the environment's `bin`), then the user scheme's (`pip
   install --user`);
2. the development build: `make` puts the package into
   `build/pyX.Y/pystats` and the command at `build/pystats`;
3. `pystats` on PATH (`make install` puts it into `$(PREFIX)/bin`).

If none is found: one line on stderr, exit status 1.
"""
import os
import re
import shutil
import sys
import sysconfig


def _scripts_dirs():
    dirs = []
    schemes = [None]
    user = "%s_user" % os.name
    if user in sysconfig.get_scheme_names():
        schemes.append(user)
    for scheme in schemes:
        try:
            d = (sysconfig.get_path("scripts") if scheme is None else
                 sysconfig.get_path("scripts", scheme))
        except KeyError:
            continue
        if d and d not in dirs:
            dirs.append(d)
    return dirs


def _executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def candidates():
    """[(path, where it comes from)] in the order they are tried."""
    out = [(os.path.join(d, "pystats"), "scripts directory")
           for d in _scripts_dirs()]
    pkg = os.path.dirname(os.path.abspath(__file__))
    build = os.path.dirname(os.path.dirname(pkg))
    if re.match(r"py\d+\.\d+t?(-native)?$",
                os.path.basename(os.path.dirname(pkg))):
        out.append((os.path.join(build, "pystats"), "development build"))
    return out


def find_command():
    """The path of the pystats command, or None."""
    for path, _ in candidates():
        if _executable(path):
            return path
    return shutil.which("pystats")


def main():
    path = find_command()
    if path is None:
        looked = ", ".join(p for p, _ in candidates())
        sys.stderr.write(
            "pystats: the pystats command is not installed (looked in %s "
            "and on PATH): install the cpython-pystats package with pip "
            "(pip install . in its source tree), or run make install "
            "there\n" % looked)
        return 1
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(path, [path] + sys.argv[1:])
    except OSError as e:
        sys.stderr.write("pystats: cannot run %s: %s\n" % (path, e.strerror))
        return 1


if __name__ == "__main__":
    sys.exit(main())
