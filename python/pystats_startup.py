"""Runs from pystats-startup.pth when -X pystats or PYTHONSTATS asks for
collection: turns it on before the main module runs.

When collection cannot start as asked, one line on stderr says why and
the process exits before the program runs, as CPython itself does for a
bad -X int_max_str_digits value:

- status 2: a bad value (-X pystats=bogus, PYTHONSTATS=bogus,
  PYSTATS_CENSUS, PYSTATS_BACKEND); the line names the valid ones;
- status 1: the collector cannot be imported, or `import pystats` finds
  a module that is not this collector (PyPI's unrelated "PyStats" also
  imports as pystats)."""
import os
import sys


def _asked():
    x = sys._xoptions.get("pystats")
    if x is not None:
        return "-X pystats" if x is True else "-X pystats=%s" % x
    return "PYTHONSTATS=%s" % os.environ.get("PYTHONSTATS", "")


def _fail(status, message):
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
    os._exit(status)


def _start():
    try:
        import pystats
    except ValueError as e:
        if type(e).__name__ == "OptionError":
            _fail(2, str(e))
        raise
    except ImportError as e:
        _fail(1, "pystats: %s asks for collection but the collector cannot "
                 "be imported (%s: %s)" % (_asked(), type(e).__name__, e))
    start = getattr(pystats, "_start_from_hook", None)
    if start is None:
        where = getattr(pystats, "__file__", None) or repr(pystats)
        _fail(1, "pystats: %s asks for collection but `import pystats` "
                 "finds %s, which is not this collector (PyPI's unrelated "
                 "PyStats? pip uninstall PyStats, or install "
                 "cpython-pystats where it comes first)" % (_asked(), where))
    try:
        start()
    except pystats.OptionError as e:
        _fail(2, str(e))


_start()
