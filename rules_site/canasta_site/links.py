"""Where each thing of the spec lives on the site, and links to it from any page.

Pages are addressed by their Markdown path (``rules/pile.md``); links are relative Markdown
links (``../rules/pile.md#pile.take.whole``) so that MkDocs checks every one of them.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from .cards import map_outside_code

RULE_ID_TEXT = r"[a-z][a-z0-9]*(?:\.[a-z0-9]+(?:-[a-z0-9]+)*)+"
#: a rule ID in backticks that is not already the text of a link
_BACKTICKED = re.compile(r"(?<!\[)`(" + RULE_ID_TEXT + r")`(?!\]\()")
#: a bare rule ID in running text (not inside a word, a path, a link or code)
_BARE = re.compile(r"(?<![\w.`/#\[-])(" + RULE_ID_TEXT + r")(?![\w`/-]|\]\(|\.[a-z0-9])")
_CODE_SPAN = re.compile(r"(`+)(?:.+?)\1|\[[^\]]*\]\([^)]*\)|<[^>]+>")

RULES_INDEX = "rules/index.md"
VARIANTS = "variants.md"
PARAMETERS = "parameters.md"
CONFLICTS = "conflicts.md"
SOURCES = "sources.md"
SCENARIOS_INDEX = "scenarios/index.md"
REPORT = "reference/conformance-report.md"
SCHEMAS_INDEX = "reference/index.md"


def rel(target: str, source: str) -> str:
    """The relative link from page ``source`` to ``target`` (both docs-relative paths, anchors kept)."""
    path, _, anchor = target.partition("#")
    link = posixpath.relpath(path, posixpath.dirname(source) or ".") if path else ""
    return link + (f"#{anchor}" if anchor else "")


def page_url(path: str, directory_urls: bool = True) -> str:
    """The URL of a page relative to the site root, as MkDocs writes it (``rules/pile/``)."""
    if not path.endswith(".md"):
        return path
    stem = path[:-3]
    if directory_urls:
        if stem == "index":
            return ""
        if stem.endswith("/index"):
            return stem[: -len("index")]
        return stem + "/"
    return stem + ".html"


def href(target: str, source: str, directory_urls: bool = True) -> str:
    """The relative URL from page ``source`` to ``target`` for raw HTML, where MkDocs does not
    rewrite links (both are docs-relative Markdown paths; an anchor is kept)."""
    path, _, anchor = target.partition("#")
    if not path or path == source:
        return f"#{anchor}" if anchor else "./"
    to, here = page_url(path, directory_urls), page_url(source, directory_urls)
    base = here.rstrip("/") if here.endswith("/") else posixpath.dirname(here)
    link = posixpath.relpath(to.rstrip("/") or ".", base or ".")
    if to.endswith("/") or not to:
        link = "./" if link == "." else link + "/"
    return link + (f"#{anchor}" if anchor else "")


def rule_page(area: str) -> str:
    return f"rules/{area}.md"


def scenario_page(area: str, scenario_id: str) -> str:
    return f"scenarios/{area}/{scenario_id}.md"


def scenario_area_page(area: str) -> str:
    return f"scenarios/{area}/index.md"


def schema_page(name: str) -> str:
    return f"reference/{name}.md"


def parameter_anchor(name: str) -> str:
    return "p-" + name.replace(".", "-").replace("_", "-")


class Linker:
    """Turns rule IDs into links to their anchors, from any page."""

    def __init__(self, rule_areas: dict[str, str]) -> None:
        #: rule ID -> area
        self.rule_areas = rule_areas

    def rule_target(self, rule_id: str) -> str:
        return f"{rule_page(self.rule_areas[rule_id])}#{rule_id}"

    def rule_link(self, rule_id: str, page: str) -> str:
        """A Markdown link to a rule, its ID as code (an unknown ID stays plain code)."""
        if rule_id not in self.rule_areas:
            return f"`{rule_id}`"
        return f"[`{rule_id}`]({rel(self.rule_target(rule_id), page)})"

    def rule_links(self, rule_ids: Iterable[str], page: str, sep: str = ", ") -> str:
        return sep.join(self.rule_link(r, page) for r in rule_ids)

    def link_backticked(self, markdown: str, page: str) -> str:
        """Link every backticked rule ID outside fenced code blocks (hand-written pages)."""
        def one(match: re.Match[str]) -> str:
            rule_id = match.group(1)
            return self.rule_link(rule_id, page) if rule_id in self.rule_areas else match.group(0)

        return map_outside_code(markdown, lambda text: _BACKTICKED.sub(one, text))

    def link_text(self, text: str, page: str) -> str:
        """Link rule IDs in a sentence of the spec (backticked or bare), leaving code, links and tags alone."""
        text = _BACKTICKED.sub(lambda m: self.rule_link(m.group(1), page) if m.group(1) in self.rule_areas else m.group(0), text)
        out: list[str] = []
        last = 0
        for protected in _CODE_SPAN.finditer(text):
            out.append(self._link_bare(text[last:protected.start()], page))
            out.append(protected.group(0))
            last = protected.end()
        out.append(self._link_bare(text[last:], page))
        return "".join(out)

    def _link_bare(self, text: str, page: str) -> str:
        return _BARE.sub(lambda m: self.rule_link(m.group(1), page) if m.group(1) in self.rule_areas else m.group(0), text)


def table_cell(text: str) -> str:
    """Text for one cell of a Markdown table: pipes outside code escaped, on one line."""
    out, in_code = [], False
    for ch in text:
        if ch == "`":
            in_code = not in_code
        out.append("\\|" if ch == "|" and not in_code else ch)
    return "".join(out).replace("\n", " ")
