"""The statistics families of src/format/psf_stats.h, read from the
header itself: the tests' one list of each family (no second list
written out by hand).

families() -> {"CALLS": Family, "OBJECTS": ..., "GC": ..., "RARE": ...,
"CENSUS_FAMILY": ..., "NATIVE_OPT": ..., "NATIVE_CALLS": ...}, each Family's rows in the
header's order (the dump's, snapshot()'s and the reports' order), each
row a Stat: field (the C field and the snapshot() name; a NATIVE_
family's row id), key (after the prefix), kind ("EVENTS", "NS",
"LEVEL", "BYTES"; a census figure's "LEVEL"), label (what the report
shows), prefix and sep (a GC key is PREFIX G SEP KEY, a census figure's
PREFIX F SEP KEY, any other PREFIX KEY), table and den (CPython's
optimizer counters: its table; their and the census figures' den, the
field of the ratio's denominator or None; CPython's calls and objects:
the sums, PSF_NATIVE_SUMS, its count adds to and divides by, or None)."""
import collections
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FORMAT = os.path.join(ROOT, "src", "format")
STATS_H = os.path.join(FORMAT, "psf_stats.h")
KEYS_H = os.path.join(FORMAT, "psf_keys.h")

Stat = collections.namedtuple("Stat", "field key kind label prefix sep table den",
                              defaults=(0, None))
Family = collections.namedtuple("Family", "name rows")

_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|(\w+))')


def _defines(text):
    """{NAME: body} of every object-like #define, continuation lines
    joined, comments removed."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S).replace("\\\n", " ")
    out = {}
    for m in re.finditer(r"^#define\s+(\w+(?:\(\w+\))?)[ \t]*(.*)$", text, re.M):
        out[m.group(1)] = m.group(2).strip()
    return out


def _value(expr, defs):
    """A C expression of string literals and macros naming them (or a
    number), as the compiler would read it."""
    parts, pos = [], 0
    expr = expr.strip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if m is None or m.end() == pos:
            raise ValueError("cannot read %r" % expr)
        pos = m.end()
        if m.group(1) is not None:
            parts.append(m.group(1))
        elif m.group(2) in defs:
            parts.append(_value(defs[m.group(2)], defs))
        else:
            parts.append(m.group(2))
    return "".join(parts)


def _args(row):
    """The arguments of one X(...) row, split at top-level commas."""
    out, depth, cur, quoted = [], 0, "", False
    for ch in row:
        if ch == '"' and not cur.endswith("\\"):
            quoted = not quoted
        if not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [a.strip() for a in out]


def families():
    with open(KEYS_H) as f:
        defs = _defines(f.read())
    with open(STATS_H) as f:
        defs.update(_defines(f.read()))
    out = {}
    for macro, body in defs.items():
        m = re.match(r"PSF_(\w+)\(X\)$", macro)
        if m is None:
            continue
        name, rows = m.group(1), []
        if name == "NATIVE_SUMS":       # the names of CPython's sums, not a family
            continue
        for row in re.findall(r"X\(((?:[^()\"]|\"(?:[^\"\\]|\\.)*\")*)\)", body):
            a = _args(row)
            if name == "CENSUS_FAMILY":     # X(field, key, label, den)
                rows.append(Stat(a[0], _value(a[1], defs), "LEVEL", _value(a[2], defs),
                                 _value(defs["PSF_CENSUS_FAMILY_PREFIX"], defs),
                                 _value(defs["PSF_CENSUS_FAMILY_SEP"], defs),
                                 0, None if a[3] == "none" else a[3]))
                continue
            if name.startswith("NATIVE_"):  # X(id, key, label, table or part, den)
                table = int(a[3]) if a[3].isdigit() else None if a[3] == "none" else a[3]
                rows.append(Stat(a[0], _value(a[1], defs), "EVENTS", _value(a[2], defs),
                                 "", "", table, None if a[4] == "none" else a[4]))
                continue
            kind = a[2] if len(a) == 4 else a[4]
            assert kind.startswith("PSF_STAT_") and kind in defs, row
            kind = kind[len("PSF_STAT_"):]
            if len(a) == 4:     # X(field, key, kind, label)
                rows.append(Stat(a[0], _value(a[1], defs), kind, _value(a[3], defs),
                                 _value(defs["PSF_%s_PREFIX" % name], defs), ""))
            else:               # GC: X(field, prefix, sep, key, kind)
                key = _value(a[3], defs)
                rows.append(Stat(a[0], key, kind, key, _value(a[1], defs),
                                 _value(a[2], defs)))
        out[name] = Family(name, rows)
    return out


def dump_key(stat, gen=None):
    """The key a dump writes (generation gen for GC, family gen for the
    census's figures of a family)."""
    if stat.sep:
        return "%s%s%s%s" % (stat.prefix, gen, stat.sep, stat.key)
    return stat.prefix + stat.key
