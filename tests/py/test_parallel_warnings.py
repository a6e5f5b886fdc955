"""Readers in parallel (--jobs) warn one whole line at a time: a
directory of hundreds of bad files, read by 8 readers at once, gives one
well-formed line per problem on stderr, each naming its own file,
never two messages run into each other."""
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")

pytestmark = pytest.mark.skipif(not os.access(PYSTATS_CLI, os.X_OK),
                                reason="build/pystats is not built")

N = 300


def test_warnings_of_parallel_readers_are_whole_lines(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    for i in range(N):
        (d / ("empty%03d.txt" % i)).write_bytes(b"")
        (d / ("nul%03d.txt" % i)).write_bytes(b"a : 1\n\0\n")
    for attempt in range(3):
        p = subprocess.run([PYSTATS_CLI, "summarize", str(d), "--jobs", "8",
                            "--json", os.devnull], capture_output=True,
                           text=True, timeout=120)
        warnings = [l for l in p.stderr.splitlines()
                    if "empty" in l or "NUL" in l]
        pattern = re.compile(
            r"pystats: warning: %s/(empty(\d{3})\.txt: empty file, not counted|"
            r"nul(\d{3})\.txt:2: binary data \(NUL byte\), file not counted)"
            % re.escape(str(d)))
        torn = [l for l in warnings if not pattern.fullmatch(l)]
        assert not torn, torn[:3]
        named = sorted(l.split("/")[-1].split(":")[0] for l in warnings)
        assert named == sorted(os.listdir(d)), attempt
