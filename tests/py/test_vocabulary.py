"""Every key and header name of the dump format is defined once, in
src/format/psf_keys.h: neither the collector (src/ext) nor the command
(src/cli) spells one as a string literal of its own."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KEYS = os.path.join(ROOT, "src", "format", "psf_keys.h")
# A literal that is a whole key or key prefix of the collector's own
# format (messages and docstrings that merely mention one are prose).
LITERAL = re.compile(r'"((?:meta|pystats)\.[a-z_.]+|census\.[a-z_]+\[?|'
                     r'(?:code|gc|opcode)\[|(?:calls|objects|rare)\.[a-z_]*)"')


def defined():
    with open(KEYS) as f:
        return set(re.findall(r'#define PSF_\w+\s+"([^"]*)"', f.read()))


def test_no_key_spelled_outside_the_vocabulary():
    keys = defined()
    assert "meta.label" in keys and "census.site[" in keys
    found = []
    for sub in ("ext", "cli"):
        d = os.path.join(ROOT, "src", sub)
        for name in sorted(os.listdir(d)):
            if not name.endswith((".c", ".h")):
                continue
            with open(os.path.join(d, name), encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    for m in LITERAL.finditer(line):
                        if m.group(1) in keys:
                            found.append("src/%s/%s:%d: %s" % (sub, name, n, m.group(0)))
    assert not found, "\n".join(found)
