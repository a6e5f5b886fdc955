"""The source view page (pystats annotate --html) against the raw dumps
it was made from.  Expected figures are computed here from the dump
lines (docs/FORMAT.md 1.18): per function and line, the sum of
code[K].line[N] over the dumps; per site, the row most dumps had; per
line, the text of source[FILE].line[N] decoded (1.16).  The page is
read with html.parser, through the data-* attributes it promises.
Prints one "FAIL ..." line per difference, then "N compared".
Usage: annotate_page.py PAGE DUMP..."""
import collections
import html.parser
import re
import sys
import urllib.parse


def decode(field):
    return urllib.parse.unquote_to_bytes(field).decode("utf-8", "surrogatepass")


lines = collections.defaultdict(int)        # (qualname, line) -> count
instructions = collections.defaultdict(int)
sites = collections.defaultdict(collections.Counter)  # (qual, offset) -> rows
source = {}                                  # line -> text (one file here)
for path in sys.argv[2:]:
    for raw in open(path, encoding="utf-8"):
        key, sep, value = raw.rstrip("\n").rpartition(" : ")
        if not sep:
            key, value = raw.rstrip("\n").rstrip(" :"), ""
        m = re.fullmatch(r"code\[([^:]*):(\d+):([^\]]*)\]\.(\w+)(?:\[(.*)\])?", key)
        if m:
            qual, field, arg = decode(m.group(3)), m.group(4), m.group(5)
            if field == "line":
                lines[qual, arg] += int(value)
            elif field == "instructions":
                instructions[qual] += int(value)
            elif field == "site":
                sites[qual, int(arg)][value] += 1
            continue
        m = re.fullmatch(r"source\[([^\]]*)\]\.line\[(\d+)\]", key)
        if m:
            source[int(m.group(2))] = decode(value)


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.fn = None
        self.rows = {}      # (qual, line) -> count
        self.text = {}      # line -> text of its code cell, badges left out
        self.sites = {}     # (qual, offset) -> (family, state, detail)
        self.instructions = {}
        self.stack = []
        self.cell = None
        self.in_h2 = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class", "")
        self.stack.append((tag, cls))
        if tag == "section":
            self.fn = {"id": a["id"], "instructions": int(a["data-instructions"]),
                       "no_line": int(a["data-no-line"])}
        elif tag == "h2":
            self.in_h2, self.h2 = True, ""
        elif tag == "tr" and self.fn:
            self.line = a["data-line"]
            if "data-count" in a:
                self.rows[self.fn["qual"], self.line] = int(a["data-count"])
        elif tag == "td" and cls == "code":
            self.cell = ""
        elif tag == "span" and "data-state" in a and cls.startswith("site"):
            self.sites[self.fn["qual"], int(a["data-offset"])] = (
                a["data-family"], a["data-state"], a["data-detail"])

    def handle_endtag(self, tag):
        tag_, cls = self.stack.pop()
        if tag == "h2":
            self.in_h2 = False
            self.fn["qual"] = self.h2.split(". ", 1)[1].split(" ")[0]
            self.instructions[self.fn["qual"]] = self.fn["instructions"]
        elif tag == "td" and self.cell is not None:
            if self.line != "none":
                self.text[self.fn["qual"], int(self.line)] = self.cell
            self.cell = None

    def handle_data(self, data):
        if self.in_h2 and not self.stack[-1][0] == "small":
            self.h2 += data
        if self.cell is not None and not any(c.startswith("badge") for _, c in self.stack):
            self.cell += data


page = Page()
page.feed(open(sys.argv[1], encoding="utf-8").read())
n = 0


def same(what, want, got):
    global n
    n += 1
    if want != got:
        print("FAIL %s: expected %r, got %r" % (what, want, got))


for (qual, line), count in lines.items():
    same("%s line %s" % (qual, line), count, page.rows.get((qual, line)))
same("rows with a count", len(lines), len(page.rows))
for qual, count in instructions.items():
    same("%s instructions" % qual, count, page.instructions.get(qual))
for (qual, off), rows in sites.items():
    row = sorted(rows.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    f = row.split(" | ")
    same("%s site %d" % (qual, off), (f[0], f[1], f[2]), page.sites.get((qual, off)))
for (qual, line), text in page.text.items():
    if line in source:
        same("%s text of line %d" % (qual, line), source[line], text)
print("%d compared" % n)
