"""make bench-events (bench/events.py) tells each event kind's cost apart
by the callback functions callgrind names.  Every segment callback of the
built extension, a cb_*_vc function (the vectorcall sys.monitoring calls,
src/ext/seg_events.c), must map to an event kind: one it does not know is
left out of every table, and its events with it."""
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import events  # noqa: E402

pytestmark = pytest.mark.skipif(
    sys.version_info < (3, 12) or shutil.which("nm") is None,
    reason="segment callbacks are 3.12+; needs nm")


def callback_symbols():
    import pystats._collector as c
    out = subprocess.run(["nm", c.__file__], capture_output=True, text=True,
                         check=True).stdout
    return sorted(set(re.findall(r"\s[tT]\s(cb_\w+_vc)$", out, re.M)))


def test_every_segment_callback_has_an_event_kind():
    syms = callback_symbols()
    # PY_START, PY_RESUME, PY_RETURN, PY_YIELD, JUMP and a branch event at
    # least (3.14: BRANCH_LEFT and BRANCH_RIGHT).
    assert len(syms) >= 6, syms
    assert {s for s in syms if events.kind_of(s) is None} == set()
    kinds = {events.kind_of(s) for s in syms}
    assert {"start", "resume", "return", "yield", "jump",
            "branch"} <= kinds, kinds
