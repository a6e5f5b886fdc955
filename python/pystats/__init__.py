"""pystats: exact execution statistics for stock CPython.

    import pystats
    pystats.on(); work(); pystats.off()     # a window
    pystats.clear()                         # forget what was counted
    pystats.dump()                          # write now (then clear)
    pystats.is_on()
    pystats.snapshot()                      # the counts a dump would write
    pystats.measure(fn, *args, **kwargs)    # exactly fn's work

`python -X pystats` or `PYTHONSTATS=1` collect for the whole program
(PYTHONSTATS also in subprocesses); dumps go to `-X pystats_dir=DIR`,
`PYSTATS_DIR` or /tmp/py_stats (/tmp/py_stats-UID when another user owns
/tmp/py_stats).  See README.md and docs/FORMAT.md.
"""
import os
import sys

from ._collector import (  # noqa: F401  (the API is the C functions)
    MECHANISM,
    __version__,
    clear,
    dump,
    is_on,
    measure,
    off,
    on,
    snapshot,
)
from . import _collector

__all__ = ["on", "off", "clear", "dump", "is_on", "snapshot", "measure",
           "set_backend", "backend", "output_directory", "MODES",
           "OptionError"]



def _env(name):
    """An environment variable, unless -E/-I told Python to ignore them."""
    if sys.flags.ignore_environment:
        return None
    return os.environ.get(name)


def _absolute(d):
    """d made absolute now, before the program can chdir(); as given if
    the working directory is gone (the dump then says what failed)."""
    try:
        return os.path.abspath(d)
    except OSError:
        return d


# The default directory: CPython's own /tmp/py_stats (PYSTATS_TMPDIR, for
# the tests, moves its base).  When that is not the user's, the collector
# writes to DEFAULT_DIR-UID instead, and says so.
DEFAULT_DIR = os.path.join(_absolute(_env("PYSTATS_TMPDIR") or "/tmp"),
                           "py_stats")


# The modes -X pystats=MODE and PYTHONSTATS=MODE accept: on()'s
# (src/ext/module.c; the segment modes need sys.monitoring, 3.12+); "1"
# (and a bare -X pystats) is the default mode (count; instructions on a
# free-threaded interpreter running without the GIL), "0" off.
MODES = ("count", "instructions", "census", "noop") + (
    ("noop-segments", "noop-quiet") if MECHANISM == "monitoring" else ())


class OptionError(ValueError):
    """A bad value of one of the collector's -X options or environment
    variables.  The message is one line: the option, the value, the
    valid values.  The startup hook prints it and exits with status 2
    before the program runs."""


def _bad(option, value, valid):
    return OptionError("pystats: bad value %r for %s (valid: %s)" % (
        value, option, valid))


def _mode_of(option, value):
    if value in ("", "1"):
        return _collector.DEFAULT_MODE
    if value == "0":
        return None
    if value in MODES:
        return value
    raise _bad(option, value,
               "%s; 1 is %s, 0 is off" % (", ".join(MODES),
                                          _collector.DEFAULT_MODE))


def requested_mode():
    """The mode asked for by -X pystats[=MODE] or PYTHONSTATS=MODE, or
    None.  '0' and an empty PYTHONSTATS mean no; -X pystats wins over
    PYTHONSTATS.  OptionError for a mode that does not exist."""
    x = sys._xoptions.get("pystats")
    if x is not None:
        return (_collector.DEFAULT_MODE if x is True
                else _mode_of("-X pystats", x))
    e = _env("PYTHONSTATS")
    if e and e != "0":
        return _mode_of("PYTHONSTATS", e)
    return None


def requested_census():
    """False if -X pystats_census=0 or PYSTATS_CENSUS=0 leaves the
    specialization census out of mode count (3.12+), else None: the
    mode's default.  OptionError for a value other than 0 and 1."""
    x = sys._xoptions.get("pystats_census")
    if x is not None:
        option, v = "-X pystats_census", ("1" if x is True else x)
    else:
        option, v = "PYSTATS_CENSUS", _env("PYSTATS_CENSUS")
    if v in (None, "", "1"):
        return None
    if v == "0":
        return False
    raise _bad(option, v, "0 leaves the census out, 1 takes it")


def _directory():
    """(directory, whether it is the default): -X pystats_dir=DIR, else
    PYSTATS_DIR, else DEFAULT_DIR; a relative name is made absolute at
    the import of pystats (at startup for -X pystats and PYTHONSTATS)."""
    d = sys._xoptions.get("pystats_dir")
    if not (isinstance(d, str) and d):
        d = _env("PYSTATS_DIR")
    if not d:
        return DEFAULT_DIR, True
    return _absolute(d), False


_configured = None     # _directory() as it was at the import


def output_directory():
    """-X pystats_dir=DIR, else PYSTATS_DIR, else /tmp/py_stats, made
    absolute when pystats was imported.  When the default is not the
    user's (another user owns it), the dumps go to DEFAULT_DIR-UID."""
    return (_configured or _directory())[0]


def _meta():
    import sysconfig
    v = sys.version_info
    ver = "%d.%d.%d" % v[:3]
    if v.releaselevel != "final":
        ver += {"alpha": "a", "beta": "b", "candidate": "rc"}[v.releaselevel]
        ver += str(v.serial)
    git = getattr(sys, "_git", None)
    try:
        cwd = os.getcwd()
    except OSError:         # the directory is gone: no relative names
        cwd = ""
    # sys.path made absolute (against cwd, as the import system does), so
    # that a reader can name code by module: docs/FORMAT.md 1.1.  Without
    # a working directory a relative entry stays as it is (readers skip
    # it): os.path.abspath would need the directory that is gone.
    path = [os.path.abspath(os.path.join(cwd, p)) if cwd else p
            for p in sys.path if isinstance(p, str)]
    return {
        "python_version": ver,
        "implementation": sys.implementation.name,
        "sys_version": sys.version,
        "git": "/".join(x for x in git if x) if git else "",
        "config_args": sysconfig.get_config_var("CONFIG_ARGS") or "",
        "cwd": cwd,
        "sys_path": path,
        "pystats_build": hasattr(sys, "_stats_on"),
        "free_threading": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
        "jit": "--enable-experimental-jit" in (
            sysconfig.get_config_var("CONFIG_ARGS") or ""),
    }


# A run is the dumps of one process tree: the first process that imports
# pystats makes the run id and exports it as PYSTATS_RUN_ID, so that its
# children (subprocess, multiprocessing, fork) write the same one into
# their dumps (docs/FORMAT.md 1.1, meta.run.id); the command reads the
# newest run of a directory, or the one asked for (docs/CLI.md, --run).
# Set it yourself to make several commands one run.
_RUN_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz"
                          "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:+-")
RUN_ID_MAX = 64


_run_id_inherited = False   # PYSTATS_RUN_ID was set for this process


def run_id_valid(v):
    """Whether v can be a run id (docs/FORMAT.md 1.1, meta.run.id)."""
    return 0 < len(v) <= RUN_ID_MAX and set(v) <= _RUN_ID_CHARS


def _run_id():
    """PYSTATS_RUN_ID if set (OptionError if it is not 1 to 64 letters,
    digits or ._:+-), else a new one, UTCTIME-PID-RANDOM
    (20261203T192416Z-4242-9f3a1c2e: sorts by start time, unique across
    machines and pid reuse), exported for the children."""
    global _run_id_inherited
    v = _env("PYSTATS_RUN_ID")
    if v:
        if not run_id_valid(v):
            raise _bad("PYSTATS_RUN_ID", v,
                       "1 to %d letters, digits or ._:+-" % RUN_ID_MAX)
        _run_id_inherited = True
        return v
    import time
    v = "%s-%d-%s" % (time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()),
                      os.getpid(), os.urandom(4).hex())
    os.environ["PYSTATS_RUN_ID"] = v
    return v


def backend():
    """'native' when the interpreter's own --enable-pystats counters are
    driven, 'own' when this package's collector counts."""
    return "native" if _collector._state()["native"] else "own"


def set_backend(name):
    """Choose 'own' (this collector) or 'native' (the counters of a
    CPython built with --enable-pystats; the default there)."""
    if name not in ("own", "native"):
        raise ValueError("backend must be 'own' or 'native'")
    _collector._set_native(name == "native")


_meta_run_id = [None]      # the run id this process writes


def _configure():
    global _configured
    _configured = directory, is_default = _directory()
    meta = _meta()
    meta["run_id"] = _run_id()
    _meta_run_id[0] = meta["run_id"]
    _collector._configure(meta=meta, directory=directory,
                          label=_env("PYSTATS_LABEL") or "",
                          default=is_default)
    # On a --enable-pystats build, drive its counters unless told not to.
    x = sys._xoptions.get("pystats_backend")
    option, wanted = (("-X pystats_backend", x) if isinstance(x, str) and x
                      else ("PYSTATS_BACKEND", _env("PYSTATS_BACKEND")))
    if wanted:
        if wanted not in ("own", "native"):
            raise _bad(option, wanted, "own, native")
        set_backend(wanted)
    elif hasattr(sys, "_stats_on"):
        set_backend("native")


# A free-threaded build (3.14t) runs with the GIL once the collector is
# imported (it does not declare Py_mod_gil, since mode count needs the
# GIL): CPython enables it then, unless PYTHON_GIL=0 or -X gil=0 force it
# off.  Then threads run in parallel, each counting into its own
# counters, the default mode is instructions (DEFAULT_MODE) and the
# segment modes are refused (src/ext/module.c).


# Every environment variable the collector, the command and their tests
# and benchmarks read.  A PYSTATS_* or PYTHONSTATS_* variable not among
# them is a mistake (the DIR variable spelled with the switch's
# prefix): said once per process tree when collection starts
# (_warn_unknown_variables).
KNOWN_VARIABLES = frozenset((
    "PYTHONSTATS", "PYSTATS_DIR", "PYSTATS_LABEL", "PYSTATS_BACKEND",
    "PYSTATS_CENSUS", "PYSTATS_TMPDIR", "PYSTATS_TRACE_LINES",
    "PYSTATS_QUIET_BRANCHES", "PYSTATS_QUIET_RETURNS",
    "PYSTATS_MAX_FILE_SIZE", "PYSTATS_FAILURE_DIR", "PYSTATS_RUN_ID",
    # the tests' and benchmarks'
    "PYSTATS_QUICK", "PYSTATS_QUICK_TESTS", "PYSTATS_FULL_TESTS",
    "PYSTATS_ROUNDTRIP_EXAMPLES", "PYSTATS_NATIVE_BUILD",
    "PYSTATS_PYPERFORMANCE", "PYSTATS_CLI", "PYSTATS_ALLOC_WALK",
    "PYSTATS_TEST_DESYNC",
    # set by the collector itself once it has warned
    "PYSTATS_ENV_CHECKED",
))


def _unknown_variables(environ):
    """(name, the known variable meant or None) for every PYSTATS_* or
    PYTHONSTATS_* name in environ that nothing here reads."""
    import difflib
    out = []
    for name in sorted(environ):
        if not name.startswith(("PYSTATS_", "PYTHONSTATS_")) or \
                name in KNOWN_VARIABLES:
            continue
        # The switch's prefix on a variable of ours: PYSTATS_ was meant.
        alt = "PYSTATS_" + name[len("PYTHONSTATS_"):] \
            if name.startswith("PYTHONSTATS_") else name
        meant = alt if alt in KNOWN_VARIABLES else None
        if meant is None:
            close = difflib.get_close_matches(alt, sorted(KNOWN_VARIABLES), 1,
                                              0.8)
            meant = close[0] if close else None
        out.append((name, meant))
    return out


def _warn_unknown_variables():
    """One line per unknown variable, once per process tree: the first
    process that starts collection says it and marks the environment
    (PYSTATS_ENV_CHECKED) so that its children stay silent."""
    if sys.flags.ignore_environment or os.environ.get("PYSTATS_ENV_CHECKED"):
        return
    for name, meant in _unknown_variables(os.environ):
        sys.stderr.write("pystats: %s is not a variable pystats reads; it is "
                         "ignored%s\n" % (name, "; did you mean %s?" % meant
                                          if meant else ""))
    os.environ["PYSTATS_ENV_CHECKED"] = "1"


def _start_from_hook():
    """Called by the startup hook (pystats_startup) before __main__."""
    _warn_unknown_variables()
    mode = requested_mode()
    if mode is None or is_on():
        return
    try:
        if requested_census() is False and mode != "census":
            on(mode=mode, census=False)
        else:
            on(mode=mode)
    except RuntimeError as e:   # a mode this interpreter cannot count in
        sys.stderr.write("%s; nothing is collected\n" % e)


def _check_startup():
    """Imported explicitly: say so if collection was asked for but the
    startup hook could not run; silence would mean zero dumps."""
    if "pystats_startup" in sys.modules:
        return
    if sys._xoptions.get("pystats") is not None:
        why = ("python -S" if sys.flags.no_site else
               "pystats is not installed in this interpreter's "
               "site-packages (make install PYTHON=...)")
        sys.stderr.write(
            "pystats: -X pystats was given but the startup hook did not run "
            "(%s); collection starts now, at the import of pystats\n" % why)
        _start_from_hook()
    elif sys.flags.ignore_environment and os.environ.get(
            "PYTHONSTATS", "0") not in ("", "0"):
        sys.stderr.write(
            "pystats: PYTHONSTATS is set but Python ignores the environment "
            "(-E or -I): nothing is collected unless -X pystats is given or "
            "pystats.on() is called\n")
    elif os.environ.get("PYTHONSTATS", "0") not in ("", "0"):
        why = ("python -S" if sys.flags.no_site else
               "pystats is not installed in this interpreter's "
               "site-packages (make install PYTHON=...)")
        sys.stderr.write(
            "pystats: PYTHONSTATS is set but the startup hook did not run "
            "(%s); collection starts now, at the import of pystats\n" % why)
        _start_from_hook()


_configure()
_check_startup()
