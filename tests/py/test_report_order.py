"""The summary leads to what to act on: in the Markdown report and on the
page, the overview, then hot code, the failing sites and the source
view, before the long instruction and pair tables; on the page every
"Where to look" entry links to a section that exists, the one its words
name.  Inputs: the golden fixtures (own dumps with hot code and a census,
CPython's native dumps); the page read with html.parser."""
import os
import re
import subprocess
from html.parser import HTMLParser

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.join(ROOT, "build", "pystats")
GOLDEN = os.path.join(ROOT, "tests", "golden")

pytestmark = pytest.mark.skipif(not os.access(CLI, os.X_OK),
                                reason="build/pystats is not built")

FIXTURES = ["census-count", "sitefx", "hotcode-real",
            "native/cpython-3.13.5-whole", "native/cpython-3.14.7-whole"]
ACT_ON = ("Hot code", "Sites that fail to specialize", "Site executions by state",
          "Source view")
LONG_TABLES = ("Execution counts", "Pair counts", "Predecessors and successors")
# What each kind of entry names, and the heading it must lead to.
LEADS = {"Hot code": "Hot code",
         "Fails to specialize": "Sites that fail to specialize",
         "Runs unspecialized": "Specialization effectiveness"}


class Page(HTMLParser):
    """Headings (level, id, text) in order, the ids of all elements, and
    the items of the list after "Where to look:" (their links, text)."""

    def __init__(self):
        super().__init__()
        self.headings, self.ids, self.items = [], set(), []
        self.h = None
        self.where = False
        self.li = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if re.fullmatch(r"h[1-6]", tag):
            self.h = [int(tag[1]), a.get("id"), ""]
        elif tag == "li" and self.where:
            self.li = [[], ""]
        elif tag == "a" and self.li is not None:
            self.li[0].append(a.get("href", ""))

    def handle_endtag(self, tag):
        if self.h and tag == "h%d" % self.h[0]:
            self.headings.append(tuple(self.h))
            self.h = None
        elif tag == "li" and self.li is not None:
            self.items.append(tuple(self.li))
            self.li = None
        elif tag == "ul":
            self.where = False

    def handle_data(self, data):
        if self.h:
            self.h[2] += data
        if self.li is not None:
            self.li[1] += data
        if "Where to look:" in data:
            self.where = True


def report(fixture, tmp_path):
    page = tmp_path / "r.html"
    p = subprocess.run([CLI, "summarize", os.path.join(GOLDEN, fixture), "--quiet",
                        "--markdown", "-", "--html", str(page)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    parsed = Page()
    parsed.feed(page.read_text())
    return p.stdout, parsed


def first(titles, names):
    found = [i for i, t in enumerate(titles) if t in names]
    return min(found) if found else None


@pytest.mark.parametrize("fixture", FIXTURES)
def test_what_to_act_on_comes_before_the_long_tables(fixture, tmp_path):
    md, page = report(fixture, tmp_path)
    md_titles = [line.lstrip("#").strip() for line in md.splitlines()
                 if line.startswith("#")]
    page_titles = [t for _, _, t in page.headings]
    for titles in (md_titles, page_titles):
        act, long_ = first(titles, ACT_ON), first(titles, LONG_TABLES)
        assert long_ is not None
        if act is not None:
            assert act < long_, titles
            last_act = max(i for i, t in enumerate(titles) if t in ACT_ON)
            assert last_act < long_, titles
        assert titles.index("Overview") < long_


@pytest.mark.parametrize("fixture", FIXTURES)
def test_every_where_to_look_entry_links_to_its_section(fixture, tmp_path):
    _, page = report(fixture, tmp_path)
    by_id = {hid: text for _, hid, text in page.headings}
    assert page.items, "no Where to look entries in %s" % fixture
    for hrefs, text in page.items:
        lead = text.split(":", 1)[0].strip()
        assert lead in LEADS, text
        assert len(hrefs) == 1 and hrefs[0].startswith("#"), (hrefs, text)
        target = hrefs[0][1:]
        assert target in page.ids, (target, text)
        assert by_id.get(target) == LEADS[lead], (target, by_id.get(target), text)
