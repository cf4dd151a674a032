"""What the site tests read from a built HTML page: its ids, links, loaded resources and the rule IDs
written in ``<code>`` outside links and code blocks.

Two readers give the same answer: :class:`PageParser` (the standard library's ``HTMLParser``, the
reference) and :func:`scan_page`, a tokenizer that finds the same tags with one regular expression
per tag; it reads the built site (about 40 MB) several times faster, and ``test_site.py`` checks
that both agree on sample pages. Both treat ``<script>`` and ``<style>`` content as text (never as
tags), skip comments and declarations, unescape character references in attribute values and text,
and read tag and attribute names in lower case.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser


@dataclass
class PageFacts:
    ids: set[str] = field(default_factory=set)
    links: list[str] = field(default_factory=list)
    resources: list[str] = field(default_factory=list)
    unlinked_codes: list[str] = field(default_factory=list)


class _Reader:
    """Turns start tags, end tags and text into :class:`PageFacts` (shared by both readers)."""

    def __init__(self, rule_ids: Container[str]) -> None:
        self.facts = PageFacts()
        self._rule_ids = rule_ids
        self._a = 0
        self._pre = 0
        self._code: list[str] | None = None

    def start(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        facts = self.facts
        if values.get("id"):
            facts.ids.add(values["id"] or "")
        if tag == "a":
            self._a += 1
            if values.get("href"):
                facts.links.append(values["href"] or "")
        if tag in ("script", "img", "iframe") and values.get("src"):
            facts.resources.append(values["src"] or "")
        if tag == "link" and values.get("href"):
            facts.resources.append(values["href"] or "")
        if tag == "pre":
            self._pre += 1
        if tag == "code" and not self._a and not self._pre:
            self._code = []

    def end(self, tag: str) -> None:
        if tag == "a":
            self._a -= 1
        if tag == "pre":
            self._pre -= 1
        if tag == "code" and self._code is not None:
            text = "".join(self._code)
            if text in self._rule_ids:
                self.facts.unlinked_codes.append(text)
            self._code = None

    def data(self, text: str) -> None:
        if self._code is not None:
            self._code.append(text)


class PageParser(HTMLParser):
    """The reference reader: the standard library's HTML parser."""

    def __init__(self, rule_ids: Container[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.reader = _Reader(rule_ids)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.reader.start(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        self.reader.end(tag)

    def handle_data(self, data: str) -> None:
        self.reader.data(data)


def parse_page(text: str, rule_ids: Container[str]) -> PageFacts:
    parser = PageParser(rule_ids)
    parser.feed(text)
    parser.close()
    return parser.reader.facts


# a comment, a declaration or processing instruction, an end tag, or a start tag (attribute values
# quoted with " or ' may hold '>'; a quote opens a value only right after '=', as for the HTML
# parser; the loop is possessive, so a tag that never closes costs no backtracking)
_TOKEN = re.compile(
    r"<!--.*?(?:-->|\Z)|<[!?][^>]*>|</([a-zA-Z][^\s/>]*)[^>]*>|<([a-zA-Z][^\s/>]*)((?:=\s*\"[^\"]*\"|=\s*'[^']*'|[^>])*+)>",
    re.S,
)
_ATTRIBUTE = re.compile(r"""((?<=['"\s/])[^\s/>][^\s/=>]*)(\s*=+\s*('[^']*'|"[^"]*"|(?!['"])[^>\s]*))?""")
_RAW_TEXT = {"script": re.compile(r"</script", re.I), "style": re.compile(r"</style", re.I)}


def _attributes(text: str) -> list[tuple[str, str | None]]:
    found: list[tuple[str, str | None]] = []
    for match in _ATTRIBUTE.finditer(" " + text):
        name, has_value, value = match.group(1), match.group(2), match.group(3)
        if not has_value:
            found.append((name.lower(), None))
            continue
        if value[:1] == value[-1:] and value[:1] in ("'", '"') and len(value) > 1:
            value = value[1:-1]
        found.append((name.lower(), unescape(value)))
    return found


_NAMED = frozenset({"a", "pre", "code", "script", "img", "iframe", "link"})  # the tags :class:`_Reader` reads by name


def scan_page(text: str, rule_ids: Container[str]) -> PageFacts:
    """The facts :func:`parse_page` finds, found faster: only the tags the reader reads by name and
    the tags with an ``id`` have their attributes read, and text is read only inside ``<code>``."""
    reader = _Reader(rule_ids)
    position: int | None = 0
    while position is not None:
        start, resume = position, None
        for match in _TOKEN.finditer(text, start):
            if reader._code is not None and match.start() > start:
                reader.data(unescape(text[start:match.start()]))
            start = match.end()
            closing, opening = match.group(1), match.group(2)
            if closing is not None:
                reader.end(closing.lower())
                continue
            if opening is None:
                continue  # a comment or a declaration
            tag, attributes = opening.lower(), match.group(3)
            if tag in _NAMED or "id" in attributes.lower():
                reader.start(tag, _attributes(attributes))
            if attributes.rstrip().endswith("/"):
                reader.end(tag)  # <tag ... />: the parser calls both
            elif tag in _RAW_TEXT:  # the text up to its end tag is text, never tags
                raw_end = _RAW_TEXT[tag].search(text, start)
                resume = len(text) if raw_end is None else raw_end.start()
                if reader._code is not None and resume > start:
                    reader.data(text[start:resume])
                break
        else:
            if reader._code is not None and start < len(text):
                reader.data(unescape(text[start:]))
        position = resume
    return reader.facts
