"""One pass over Markdown: code, links and tags kept, card shortcodes drawn, names linked.

Every page and every sentence of the spec goes through :func:`scan` once. One regular expression
finds, left to right, the next fenced code block, inline code span, card shortcode, Markdown link,
HTML tag or attribute list, or dotted name (a rule ID, a parameter name) or conflict ID; each
kind goes to its own callback, and the text in between to ``plain``. Whatever comes first wins, so
a name inside code or inside a link is never touched twice.
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: a rule ID (``pile.take.whole``), a parameter name (``cards.wild_ranks``) or a conflict ID (``C07``)
NAME = r"[a-z][a-z0-9_]*(?:\.[a-z0-9_]+(?:-[a-z0-9_]+)*)+|C\d{2}"

TOKEN = re.compile(
    r"(?P<fence>^[ \t]*(?P<fc>`{3,}|~{3,})[^\n]*(?:\n.*?)?(?:\n[ \t]*(?P=fc)[ \t]*(?=\n|\Z)|\Z))"
    r"|(?P<code>(?P<ticks>`+)(?P<body>.+?)(?P=ticks))"
    r"|(?P<shortcode><!--\s*(?P<kind>cards|fan|pile):(?P<cards>.*?)-->)"
    r"|(?P<keep>\[[^\]\n]*\]\([^)\n]*\)|<[^>\n]+>|\{[#.][^}\n]*\})"
    r"|(?P<name>(?<![\w.`/#\[-])(?:" + NAME + r")(?![\w`/-]|\]\(|\.[a-z0-9]))",
    re.MULTILINE | re.DOTALL,
)

Replace = Callable[[str], str]


def _same(text: str) -> str:
    return text


def scan(
    text: str,
    *,
    name: Replace | None = None,
    code: Callable[[str, str], str] | None = None,
    shortcode: Callable[[str, str], str] | None = None,
    plain: Replace = _same,
    keep: Replace = _same,
) -> str:
    """``text`` with each token replaced by its callback (a missing callback leaves it as it is).

    ``code(body, span)`` gets an inline code span's content and the whole span; ``shortcode(kind,
    cards)`` a card shortcode; ``name`` a bare name; ``keep`` fenced code, links, tags and
    attribute lists; ``plain`` everything else."""
    out: list[str] = []
    last = 0
    for match in TOKEN.finditer(text):
        out.append(plain(text[last:match.start()]))
        last = match.end()
        whole = match.group(0)
        if match.group("code") is not None:
            out.append(code(match.group("body"), whole) if code else plain(whole))
        elif match.group("shortcode") is not None:
            out.append(shortcode(match.group("kind"), match.group("cards")) if shortcode else keep(whole))
        elif match.group("name") is not None:
            out.append(name(whole) if name else plain(whole))
        else:  # fenced code, a link, a tag, an attribute list
            out.append(keep(whole))
    out.append(plain(text[last:]))
    return "".join(out)
