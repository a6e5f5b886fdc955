"""What summarize prints to a terminal: the Markdown report with the
text taken from the inputs (qualified names, file names) as it is, not
escaped for a Markdown renderer nobody runs there; to a pipe or a file,
Markdown as the goldens keep it; --md-style forces either.  Expected
output: the reviewed golden report (tests/golden/expected), unescaped by
this file's own reading of Markdown's backslash escapes."""
import os
import pty
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.join(ROOT, "build", "pystats")
GOLDEN = os.path.join(ROOT, "tests", "golden")
DUMPS = os.path.join(GOLDEN, "census-count")
# Run from GOLDEN with the dumps named as the golden report was made
# (tests/golden/own_keys.sh): its findings name the files as given.
DUMPS_ARG = "census-count"
EXPECTED = os.path.join(GOLDEN, "expected", "census-count.md")

pytestmark = pytest.mark.skipif(not os.access(CLI, os.X_OK),
                                reason="build/pystats is not built")


def on_a_terminal(args):
    """stdout of the command run with a pseudo-terminal as its stdout
    (stderr to /dev/null), its exit status."""
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen([CLI] + args, stdout=slave, cwd=GOLDEN,
                             stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:      # EIO: the other side is closed
                break
            if not data:
                break
            chunks.append(data)
        status = p.wait(timeout=60)
    finally:
        os.close(master)
    # The terminal's line discipline writes \n as \r\n.
    return b"".join(chunks).decode().replace("\r\n", "\n"), status


def piped(args):
    p = subprocess.run([CLI] + args, capture_output=True, text=True, timeout=60, cwd=GOLDEN)
    return p.stdout, p.returncode


def unescaped(markdown):
    """Markdown's backslash escapes of punctuation undone."""
    return re.sub(r"\\([\\`*_<>&|~\[\]()#+.!-])", r"\1", markdown)


def test_a_terminal_gets_the_names_as_they_are():
    with open(EXPECTED) as f:
        golden = f.read()
    assert "\\<string>" in golden and "\\|" not in golden.replace(" \\| ", "")
    out, status = on_a_terminal(["summarize", DUMPS_ARG])
    assert status == 0
    assert out == unescaped(golden)
    assert "`Lazy.__getattr__` (<string>:5)" in out


def test_a_pipe_gets_markdown_and_the_style_can_be_forced():
    with open(EXPECTED) as f:
        golden = f.read()
    out, status = piped(["summarize", DUMPS_ARG])
    assert (out, status) == (golden, 0)
    out, status = on_a_terminal(["summarize", DUMPS_ARG, "--md-style", "markdown"])
    assert (out, status) == (golden, 0)
    out, status = piped(["summarize", DUMPS_ARG, "--md-style", "terminal"])
    assert (out, status) == (unescaped(golden), 0)


def test_a_terminal_is_never_sent_control_characters(tmp_path):
    """A qualified name holding an escape sequence (a planted dump) is
    shown escaped on the terminal too."""
    d = tmp_path / "d"
    d.mkdir()
    src = os.path.join(DUMPS, sorted(os.listdir(DUMPS))[0])
    with open(src, encoding="utf-8") as f:
        text = f.read()
    assert "Lazy.__getattr__" in text
    (d / os.path.basename(src)).write_text(
        text.replace("Lazy.__getattr__", "Lazy.\x1b[2J__getattr__"))
    out, status = on_a_terminal(["summarize", str(d)])
    assert status == 0
    assert "\x1b" not in out
    assert "Lazy.\\x1b[2J__getattr__" in out


def test_a_bad_style_is_a_usage_error():
    out, status = piped(["summarize", DUMPS_ARG, "--md-style", "fancy"])
    assert status == 2 and out == ""
