"""Every printf-family call of src/cli that writes to a terminal stream
(stderr, stdout) with a %s: none may pass an argument that looks like a
text from the inputs (a path, a name, a key, a line...): those go
through the one escaper, cli_fput_esc() / cli_esc().  Prints each
offending call as FILE:LINE: ARGUMENT, nothing if there is none.

Usage: python3 printf_audit.py SRC_CLI_DIR"""
import glob
import os
import re
import sys

NAMES = re.compile(r"\b(\w*(?:path|dir|file|name|key|text|line|arg|base|sub|qual|"
                   r"family|label|func|source|val|cmd|word)\w*)\b", re.I)
# Arguments that are the command's own text, not an input's.
OURS = {
    "*": {"strerror", "psf_dir_strerror", "cli_count_str"},
    "subcmd.c": {"names", "argv"},  # its option table; argv[0] is a known subcommand
    "suggest.c": {"cmd"},           # a known subcommand
    "util.c": {"name"},             # an option's name from the table
    "run_why.c": {"ename"},         # an errno value's name (strerrorname_np)
}


def calls(src):
    for m in re.finditer(r"(?<![\w])(fprintf\s*\(\s*(?:stderr|stdout)\s*,|printf\s*\()", src):
        i, depth = m.end(), 1
        while depth and i < len(src):
            c = src[i]
            if c == '"':
                i += 1
                while src[i] != '"':
                    i += 2 if src[i] == "\\" else 1
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            i += 1
        yield src.count("\n", 0, m.start()) + 1, src[m.end():i - 1]


def main(d):
    for fn in sorted(glob.glob(os.path.join(d, "*.c"))):
        base = os.path.basename(fn)
        for line, call in calls(open(fn).read()):
            fmt = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', call))
            if "%s" not in fmt and "%.*s" not in fmt:
                continue
            rest = re.sub(r'"((?:[^"\\]|\\.)*)"', '""', call)
            for a in NAMES.findall(rest):
                if a.isupper() or a in OURS["*"] or a in OURS.get(base, ()):
                    continue
                print("%s:%d: %s" % (fn, line, a))


main(sys.argv[1])
