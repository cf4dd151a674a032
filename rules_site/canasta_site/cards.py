"""Playing cards drawn as accessible HTML (styled by ``cards.css``), and the card shortcodes.

Every card is a ``span`` with ``role="img"`` and an ``aria-label`` ("King of Hearts"); its face
shows the rank (``10`` for the token ``T``) and the suit symbol followed by U+FE0E so that phones
do not swap in colour emoji. Hearts and diamonds are red, jokers are drawn differently from every
other card, and duplicates are simply drawn twice.

Shortcodes usable in any Markdown page of the site::

    <!-- cards: KH KD JK -->      a row of cards
    <!-- fan: 9H 9S KH 5C -->     the same cards overlapped like a hand
    <!-- pile: 9D 2C 4H -->       a discard pile, bottom to top, freezing cards crosswise
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from html import escape
from importlib import resources

from canasta_conformance.contract.cards import Card, CardError, card
from canasta_conformance.contract.errors import CanastaError
from canasta_conformance.contract.spec import load_spec

from .markup import scan

SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
#: VARIATION SELECTOR-15: ask for the text (not the emoji) presentation of the suit symbols
TEXT_STYLE = "\ufe0e"
STAR = "\u2605"


def display_rank(rank: str) -> str:
    """The rank as people read it: ``10`` for the token's ``T``."""
    return "10" if rank == "T" else rank


def suit_symbol(suit: str) -> str:
    return SUIT_SYMBOLS[suit] + TEXT_STYLE


def _as_card(item: Card | str) -> Card:
    return item if isinstance(item, Card) else card(item)


def card_html(item: Card | str, *, cross: bool = False, why: str = "") -> str:
    """One card. ``cross`` lays it crosswise (a card that freezes the discard pile)."""
    c = _as_card(item)
    label = c.name + (f", crosswise ({why})" if cross and why else ", crosswise" if cross else "")
    if c.is_joker:
        face = (
            f'<span class="cc-i"><span>J</span><span>K</span></span>'
            f'<span class="cc-p">{STAR}</span><span class="cc-w">JOKER</span>'
        )
        classes = "cc-card cc-joker"
    else:
        rank, suit = display_rank(c.rank), suit_symbol(c.suit or "")
        face = f'<span class="cc-i"><span>{rank}</span><span>{suit}</span></span><span class="cc-p">{suit}</span>'
        classes = f"cc-card {'cc-red' if c.is_red else 'cc-black'}" + (" cc-ten" if c.rank == "T" else "")
    html = f'<span class="{classes}" role="img" aria-label="{escape(label)}" data-card="{c.token}">{face}</span>'
    return f'<span class="cc-cross">{html}</span>' if cross else html


def cards_html(
    items: Iterable[Card | str],
    *,
    fan: bool = False,
    cross: Callable[[Card], bool] | None = None,
    why: str = "",
    label: str | None = None,
    extra_class: str = "",
) -> str:
    """A row of cards (``fan``: overlapped like a hand); ``cross`` picks the cards laid crosswise."""
    parts = []
    for item in items:
        c = _as_card(item)
        parts.append(card_html(c, cross=bool(cross and cross(c)), why=why))
    classes = "cc-cards" + (" cc-fan" if fan else "") + (f" {extra_class}" if extra_class else "")
    aria = f' aria-label="{escape(label)}" role="group"' if label else ""
    if not parts:
        return f'<span class="{classes} cc-none"{aria}>none</span>'
    return f'<span class="{classes}"{aria}>{"".join(parts)}</span>'


def back_html(count: int, label: str = "") -> str:
    """A face-down card with a count on it (the stock)."""
    text = label or f"{count} card{'s' if count != 1 else ''} face down"
    return (
        f'<span class="cc-card cc-back" role="img" aria-label="{escape(text)}">'
        f'<span class="cc-n">{count}</span></span>'
    )


def empty_html(label: str) -> str:
    """The outline of an empty place (an empty pile or stock)."""
    return f'<span class="cc-card cc-empty" role="img" aria-label="{escape(label)}"><span class="cc-n">0</span></span>'


def default_freezes(c: Card) -> bool:
    """Whether ``c`` freezes the discard pile in the spec's default variant."""
    spec = load_spec()
    return spec.variant_rules(spec.default_variant).freezes_pile(c)


def pile_html(items: Iterable[Card | str], freezes: Callable[[Card], bool] | None = None) -> str:
    """A discard pile, bottom to top, with the cards that freeze it (``freezes``: under the
    variant's rules, by default the default variant's) crosswise."""
    pile = [_as_card(item) for item in items]
    if not pile:
        return empty_html("Empty discard pile")
    freezes = freezes or default_freezes
    return cards_html(pile, fan=True, cross=freezes, why="it freezes the pile", extra_class="cc-pile",
                      label=f"Discard pile of {len(pile)} card{'s' if len(pile) != 1 else ''}, bottom to top")


# --------------------------------------------------------------------------------------------
# Shortcodes



class ShortcodeError(CanastaError, ValueError):
    """A card shortcode that names something other than cards."""


def render_shortcode(kind: str, body: str) -> str:
    try:
        tokens = [card(t) for t in body.replace(",", " ").split()]
    except CardError as error:
        raise ShortcodeError(f"<!-- {kind}:{body}-->: {error}") from None
    if not tokens:
        raise ShortcodeError(f"<!-- {kind}:{body}-->: no cards")
    if kind == "pile":
        return pile_html(tokens)
    return cards_html(tokens, fan=kind == "fan")


def expand_shortcodes(markdown: str, keep: Callable[[str], str] = lambda html: html) -> str:
    """Replace every card shortcode outside code by its HTML (passed through ``keep``, which may
    stash it and return a placeholder); raises :class:`ShortcodeError`."""
    return scan(markdown, shortcode=lambda kind, body: keep(render_shortcode(kind, body)))


@cache
def stylesheet() -> str:
    """The CSS that draws the cards and the table (``cards.css`` of this package)."""
    return resources.files(__package__).joinpath("cards.css").read_text(encoding="utf-8")
