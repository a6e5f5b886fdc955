"""A missing build tool or library is one line naming the package to
install, printed before anything is compiled (Makefile, "need-*"):
jansson and cmocka headers, clang-14 and its libFuzzer runtime for the
fuzz builds, a C compiler.  Each is made missing for real: a compiler
that searches no system include directory (-nostdinc), a clang name
that does not exist, a compiler without libFuzzer (gcc), a compiler
name that does not exist.  Builds go to a scratch BUILD directory."""
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

pytestmark = pytest.mark.skipif(
    shutil.which("make") is None or shutil.which("gcc") is None,
    reason="needs make and gcc")


def make(tmp_path, *args):
    build = tmp_path / "build"
    proc = subprocess.run(["make", "-s", "BUILD=%s" % build] + list(args),
                          cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    built = sorted(str(p.relative_to(build)) for p in build.rglob("*")
                   if p.is_file()) if build.exists() else []
    return proc, built


def one_line(proc, text):
    assert proc.returncode != 0, proc.stdout + proc.stderr
    mine = [l for l in proc.stderr.splitlines() if l.startswith("pystats:")]
    assert mine == [text], proc.stderr
    # Nothing else but make's own one line saying which target stopped.
    others = [l for l in proc.stderr.splitlines() if l not in mine]
    assert all(l.startswith("make") for l in others), proc.stderr


def test_missing_jansson_headers(tmp_path):
    proc, built = make(tmp_path, "cli", "CC=gcc -nostdinc")
    one_line(proc, "pystats: jansson.h not found: install libjansson-dev")
    assert not [b for b in built if b.endswith(".o")], built


def test_missing_cmocka_headers(tmp_path):
    proc, built = make(tmp_path, "need-cmocka", "CC=gcc -nostdinc")
    one_line(proc, "pystats: cmocka.h not found: install libcmocka-dev")


def test_missing_clang_for_the_fuzz_builds(tmp_path):
    proc, built = make(tmp_path, "test-fuzz", "FUZZ_CC=clang-no-such-version")
    one_line(proc, "pystats: no clang-no-such-version to build the "
                   "libFuzzer harnesses: install clang-14 libclang-rt-14-dev")
    assert built == []


def test_compiler_without_libfuzzer(tmp_path):
    proc, built = make(tmp_path, "fuzz-build", "FUZZ_CC=gcc")
    one_line(proc, "pystats: gcc cannot link libFuzzer: install "
                   "libclang-rt-14-dev")
    assert built == []


def test_missing_compiler(tmp_path):
    proc, built = make(tmp_path, "cli", "CC=cc-no-such-compiler")
    one_line(proc, "pystats: no C compiler cc-no-such-compiler: install "
                   "build-essential")
    assert built == []


@pytest.mark.skipif(shutil.which("clang-14") is None,
                    reason="clang-14 is not installed")
def test_present_tools_pass_the_checks(tmp_path):
    for target in ("need-jansson", "need-cmocka", "need-fuzzer", "need-asan"):
        proc, _ = make(tmp_path, target)
        assert proc.returncode == 0 and proc.stderr == "", (target,
                                                            proc.stderr)
