"""Positions and actions drawn with cards: the table of a scenario and each step's action.

Everything here returns one line of HTML (no blank lines, no ``|``), so it can sit inside a
Markdown paragraph, list item or table cell.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from canasta_conformance.contract.cards import Card, card
from canasta_conformance.contract.model import (
    Action,
    Answer,
    Decline,
    Discard,
    Draw,
    Meld,
    MeldGroup,
    NextHand,
    Position,
    TakePile,
    meld_rank,
)
from canasta_conformance.contract.variant_rules import VariantRules

from .cards import back_html, cards_html, pile_html

#: stocks and decks longer than this are folded away behind a face-down card
FOLD_AFTER = 16


class Table:
    """How to draw cards under one variant's rules."""

    def __init__(self, rules: VariantRules) -> None:
        self.rules = rules
        self.wild = rules.cards_wild_ranks
        self.players = rules.players
        self.sides = rules.sides

    def red_threes_by_seat(self, entries: int) -> bool:
        """Whether a position's red threes are listed by seat rather than by side: where the
        variant keeps them per player (Regal) and so lists one entry per seat."""
        return entries == self.players and self.players != self.sides

    # ---- pieces

    def pile(self, pile: Sequence[Card]) -> str:
        return pile_html(pile, self.rules.freezes_pile)

    def meld(self, meld: Sequence[Card]) -> str:
        rank = meld_rank(meld, self.wild)
        tag = ""
        if self.rules.is_canasta(meld):
            kind = ("wild-card" if all(self.rules.is_wild(c) for c in meld)
                    else "natural" if self.rules.is_natural_canasta(meld) else "mixed")
            tag = f'<span class="cc-tag">{kind} canasta</span>'
        label = f"Meld of {_rank_name(rank)}, {len(meld)} cards"
        return f'<span class="cc-meld">{cards_html(meld, fan=True, label=label)}{tag}</span>'

    def melds(self, melds: Sequence[Sequence[Card]]) -> str:
        if not melds:
            return cards_html([])
        return f'<span class="cc-melds">{"".join(self.meld(m) for m in melds)}</span>'

    def stock(self, stock: Sequence[Card], *, what: str = "Stock") -> str:
        count = len(stock)
        if not count:
            return f'<span class="cc-stock">{_empty(what)}</span>'
        back = back_html(count, f"{what} of {count} card{'s' if count != 1 else ''}, face down")
        shown = cards_html(stock, label=f"{what}, top first")
        if count > FOLD_AFTER:
            shown = f"<details><summary>the {count} cards, top first</summary>{cards_html(stock, fan=True, label=f'{what}, top first')}</details>"
        else:
            shown = f"<span>top first:</span> {shown}"
        return f'<span class="cc-stock">{back}{shown}</span>'

    def turn_card(self, stock: Sequence[Card]) -> str:
        """modern.deal.turn-card: the card turned face up the given number of cards from the bottom
        of the stock (no talon is taken once it has been drawn); empty where the game has none."""
        place = self.rules.bonus_talon_turn_card_from_bottom
        if place is None:
            return ""
        where = f"{_ordinal(place)} card from the bottom of the stock, face up"
        if len(stock) < place:
            return f'<span class="cc-turn-card">drawn <small>(it was the {where}): no talon is taken any more</small></span>'
        turned = stock[len(stock) - place]  # the stock is listed top first
        drawn = cards_html([turned], label=f"Turn card, the {where}")
        return f'<span class="cc-turn-card">{drawn} <small>the {where}: talons are taken until it is drawn</small></span>'

    def talons(self, talons: Sequence[Sequence[Card]]) -> str:
        """The bonus talons not yet taken (Modern American), the next one first: each a face-down
        stack with its cards shown beside it."""
        if not talons:
            return f'<span class="cc-talons">{_empty("Talons")}</span>'
        out = []
        for index, talon in enumerate(talons):
            what = "Next talon" if index == 0 else f"Talon {index + 1}"
            back = back_html(len(talon), f"{what} of {len(talon)} card{'s' if len(talon) != 1 else ''}, face down")
            out.append(f'<span class="cc-talon">{back}{cards_html(talon, fan=True, label=f"{what}, its cards")}</span>')
        return f'<span class="cc-talons">{"".join(out)}</span>'

    def side_name(self, side: int) -> str:
        seats = [s for s in range(self.players) if s % self.sides == side]
        if len(seats) == 1:
            return f"Side {side} (seat {seats[0]})"
        return f"Side {side} (seats {_join([str(s) for s in seats])})"

    # ---- whole positions

    def position(self, position: Position, *, caption: str = "") -> str:
        rows: list[str] = []
        sides = len(position.melds)
        players = len(position.hands)
        if caption:
            rows.append(_head(caption))
        for side in range(sides):
            rows.append(_head(self.side_name(side)))
            rows.append(_row("Melds", self.melds(position.melds[side])))
            by_seat = self.red_threes_by_seat(len(position.red_threes))
            threes = position.red_threes[side] if not by_seat and side < len(position.red_threes) else ()
            if threes:
                rows.append(_row("Red threes", cards_html(threes, label="Red threes")))
            for seat in range(side, players, sides):
                rows.append(self._seat_row(position, seat))
                if by_seat and position.red_threes[seat]:
                    label = f"Seat {seat} red threes"
                    rows.append(_row(label, cards_html(position.red_threes[seat], label=label)))
        rows.append(_head("Centre"))
        rows.append(_row("Discard pile <small>bottom → top</small>", self.pile(position.pile)))
        rows.append(_row("Stock", self.stock(position.stock)))
        turn_card = self.turn_card(position.stock)
        if turn_card:
            rows.append(_row("Turn card", turn_card))
        talons = getattr(position, "talons", ())
        if talons:
            rows.append(_row("Talons <small>next first</small>", self.talons(talons)))
        rows.append(f'<div class="cc-facts">{self._facts(position)}</div>')
        return f'<div class="cc-table" role="group" aria-label="{escape(caption or "Position")}">{"".join(rows)}</div>'

    def _seat_row(self, position: Position, seat: int) -> str:
        marks = []
        turn = seat == position.turn and position.phase != "over"
        if turn:
            marks.append("to move")
        if position.dealer == seat:
            marks.append("dealer")
        label = f"Seat {seat} hand" + (f" <small>({', '.join(marks)})</small>" if marks else "")
        if turn:
            label = f'<span class="cc-turn">▶ {label}</span>'
        hand = position.hands[seat]
        return _row(label, cards_html(hand, fan=True, label=f"Seat {seat} hand, {len(hand)} cards"))

    def _facts(self, position: Position) -> str:
        parts = [f"<b>Phase</b> {escape(position.phase)}", f"<b>turn</b> seat {position.turn}"]
        if any(position.scores):
            parts.append("<b>scores before the hand</b> " + ", ".join(f"side {i}: {s}" for i, s in enumerate(position.scores)))
        facts = position.facts
        if facts.melded_seats:
            parts.append(f"<b>seats that melded earlier this hand</b> {_join([str(s) for s in facts.melded_seats])}")
        if facts.melded_ranks:
            parts.append(f"<b>melded this turn</b> {_ranks(facts.melded_ranks)}")
        if facts.new_ranks:
            parts.append(f"<b>new melds this turn</b> {_ranks(facts.new_ranks)}")
        if facts.took_pile:
            parts.append("<b>took the pile this turn</b>")
        if facts.question:
            parts.append(f"<b>may I go out?</b> {escape(facts.question)}")
        if position.ended is not None:
            end = position.ended
            how = "went out" + (" concealed" if end.concealed else "") if end.reason == "went_out" else "stock exhausted"
            special = getattr(end, "special_hand", None)
            if special:
                how += f" with a special hand ({escape(str(special).replace('_', ' '))})"
            parts.append(f"<b>hand ended</b> {how}" + (f" (seat {end.seat})" if end.seat is not None else ""))
        return " · ".join(parts)

    def expected(self, raw: Mapping[str, Any]) -> str:
        """A partial position of an expectation: only the keys it gives."""
        rows: list[str] = []
        for seat, hand in enumerate(raw.get("hands") or ()):
            if hand is not None:
                cards = _parse(hand)
                rows.append(_row(f"Seat {seat} hand", cards_html(cards, fan=True, label=f"Seat {seat} hand, {len(cards)} cards")))
        if "hand_counts" in raw:
            counts = ", ".join(f"seat {i}: {n}" for i, n in enumerate(raw["hand_counts"]) if n is not None)
            rows.append(_row("Cards in hand", escape(counts)))
        for side, melds in enumerate(raw.get("melds") or ()):
            if melds is not None:
                rows.append(_row(f"Side {side} melds", self.melds([_parse(m) for m in melds])))
        red_threes = raw.get("red_threes") or ()
        owner = "Seat" if self.red_threes_by_seat(len(red_threes)) else "Side"
        for index, threes in enumerate(red_threes):
            if threes is not None:
                label = f"{owner} {index} red threes"
                rows.append(_row(label, cards_html(_parse(threes), label=label)))
        if "pile" in raw:
            rows.append(_row("Discard pile <small>bottom → top</small>", self.pile(_parse(raw["pile"]))))
        if "pile_count" in raw:
            rows.append(_row("Cards in the pile", str(raw["pile_count"])))
        if "stock" in raw:
            rows.append(_row("Stock", self.stock(_parse(raw["stock"]))))
        if "stock" in raw and self.turn_card(_parse(raw["stock"])):
            rows.append(_row("Turn card", self.turn_card(_parse(raw["stock"]))))
        if "stock_count" in raw:
            rows.append(_row("Cards in the stock", str(raw["stock_count"])))
        if "talons" in raw:
            rows.append(_row("Talons <small>next first</small>", self.talons([_parse(t) for t in raw["talons"]])))
        facts = []
        for key in ("phase", "turn", "dealer"):
            if key in raw:
                facts.append(f"<b>{key}</b> {escape(_text(raw[key]))}")
        if "scores" in raw:
            facts.append("<b>scores</b> " + ", ".join(f"side {i}: {s}" for i, s in enumerate(raw["scores"])))
        for key, value in (raw.get("facts") or {}).items():
            facts.append(f"<b>{escape(key.replace('_', ' '))}</b> {escape(_text(value))}")
        if "ended" in raw:
            facts.append(f"<b>ended</b> {escape(_text(raw['ended']))}")
        if facts:
            rows.append(f'<div class="cc-facts">{" · ".join(facts)}</div>')
        return f'<div class="cc-table cc-expect" role="group" aria-label="Expected position">{"".join(rows)}</div>'

    # ---- actions

    def action(self, action: Action, *, before: Position | None = None) -> str:
        """What the player does, with the cards drawn."""
        if isinstance(action, Draw):
            count = self.rules.draw_count
            return f"draws {'a card' if count == 1 else f'{count} cards'} from the stock"
        if isinstance(action, TakePile):
            top = ""
            if before is not None and before.pile:
                top = f" (top card {cards_html([before.pile[-1]])})"
            with_cards = f"with {cards_html(action.cards, label='Cards from the hand')}" if action.cards else "adding the top card to the side's meld"
            extra = ""
            if action.melds:
                extra = " and lays " + self._groups(action.melds)
            return f"takes the discard pile{top} {with_cards}{extra}"
        if isinstance(action, Meld):
            return "melds " + self._groups(action.melds)
        if isinstance(action, Discard):
            return f"discards {cards_html([action.card])}"
        if isinstance(action, Answer):
            return f"answers “{'yes' if action.permit else 'no'}”: {'may go out' if action.permit else 'may not go out'}"
        if isinstance(action, Decline):
            return "declines the discard pile (the stock is exhausted)"
        if isinstance(action, NextHand):
            return f"deals the next hand from a deck of {len(action.deck)} cards {self.stock(action.deck, what='Deck')}"
        if action.type == "special_hand":
            kind = str(getattr(action, "kind", "")).replace("_", " ")
            discard = getattr(action, "discard", None)
            return (f"lays the whole hand down as a special hand ({escape(kind)})"
                    + (f" and discards {cards_html([discard])}" if discard is not None else ""))
        if action.type == "ask":
            return "asks partner: “may I go out?”"
        return escape(action.type)

    def _groups(self, groups: Sequence[MeldGroup]) -> str:
        out = []
        for group in groups:
            drawn = cards_html(group.cards, label="Meld group")
            if group.sequence:  # meld.sequences
                out.append(f"{drawn} <small>(a sequence)</small>")
            elif group.rank == "wild" or (group.rank is None and all(c.rank in self.wild for c in group.cards)):
                out.append(f"{drawn} <small>(the wild-card meld)</small>")
            else:
                out.append(f"{drawn} <small>(on the {_rank_name(group.rank)})</small>" if group.rank else drawn)
        return _join(out)


def _parse(tokens: Any) -> list[Card]:
    if isinstance(tokens, str):
        tokens = tokens.split()
    return [card(t) for t in tokens]


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value) or "none"
    if isinstance(value, Mapping):
        return ", ".join(f"{k.replace('_', ' ')} {_text(v)}" for k, v in value.items())
    return str(value)


_RANK_NAMES = {"A": "aces", "K": "kings", "Q": "queens", "J": "jacks", "T": "tens", "9": "nines", "8": "eights",
               "7": "sevens", "6": "sixes", "5": "fives", "4": "fours", "3": "threes"}


def _rank_name(rank: str | None) -> str:
    return _RANK_NAMES.get(rank or "", "wild cards")


def _ranks(ranks: Sequence[str]) -> str:
    """Ranks by name; a sequence's key (``seq:4H``, meld.sequences) as the sequence from its card."""
    return _join([f"the sequence from {r.partition(':')[2]}" if r.startswith("seq:") else _RANK_NAMES.get(r, r) for r in ranks])


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _join(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _head(text: str) -> str:
    return f'<div class="cc-head">{text}</div>'


def _row(label: str, content: str) -> str:
    return f'<div class="cc-lbl">{label}</div><div>{content}</div>'


def _empty(what: str) -> str:
    from .cards import empty_html

    return empty_html(f"{what}: empty")

