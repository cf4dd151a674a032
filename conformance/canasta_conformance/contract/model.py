"""Value types of the contract: positions, actions, outcomes and score sheets.

Every type is a frozen dataclass with a JSON round-trip (``to_json`` / ``from_json``) in the
exchange format that the scenario files and the JSON-lines protocol use. Cards inside are
:class:`~canasta_conformance.contract.cards.Card` values; multisets (hands, melds, red threes) are kept in
canonical order so that equal positions compare equal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeAlias

from .cards import Card, card, card_order, sort_cards
from .docpath import DocPath, format_path
from .errors import CanastaError
from .sequences import SEQUENCE_PREFIX, is_sequence_key, rank_order

Phase = Literal["draw", "play", "over"]
PHASES: tuple[str, ...] = ("draw", "play", "over")
Question = Literal["pending", "yes", "no"]
MELD_RANKS: tuple[str, ...] = ("A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3")
#: the name of a side's wild-card meld (a meld of wild cards only) where a rank is expected
WILD_MELD = "wild"
_RANK_INDEX = {rank: index for index, rank in enumerate((*MELD_RANKS, WILD_MELD))}
SPECIAL_HAND_KINDS: tuple[str, ...] = ("straight", "pairs", "pairs_with_wilds", "garbage")


class FormatError(CanastaError, ValueError):
    """Data that does not fit the exchange format: ``parts`` is where in the document (keys and
    indexes, for finding its line), ``path`` the same written for people (``action.cards[1]``)."""

    def __init__(self, message: str, parts: DocPath = ()) -> None:
        self.parts = parts
        self.path = format_path(parts)
        self.message = message
        super().__init__(f"{self.path}: {message}" if self.path else message)


def _cards(value: Any, path: DocPath) -> tuple[Card, ...]:
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, Sequence):
        raise FormatError("expected a list of cards", path)
    out = []
    for index, item in enumerate(value):
        try:
            out.append(card(item))
        except ValueError as error:
            raise FormatError(str(error), (*path, index)) from None
    return tuple(out)


def parse_cards(value: Any, path: DocPath) -> tuple[Card, ...]:
    """Cards from a list of tokens (or one space-separated string), in the given order."""
    return _cards(value, path)


def _sorted_cards(value: Any, path: DocPath) -> tuple[Card, ...]:
    return sort_cards(_cards(value, path))


def _tokens(items: Sequence[Card]) -> list[str]:
    return [c.token for c in items]


def _rank_text(value: Any, path: DocPath) -> str:
    text = str(value).upper() if isinstance(value, (str, int)) and not isinstance(value, bool) else None
    if text == "10":
        text = "T"
    if text == WILD_MELD.upper():
        text = WILD_MELD
    if text not in _RANK_INDEX:
        raise FormatError(f"{value!r} is not a meld rank (A K Q J T 9 8 7 6 5 4 3, or wild)", path)
    return text


def _fact_rank(value: Any, path: DocPath) -> str:
    """A rank in the turn facts, or a sequence's key (``seq:4H``, meld.sequences)."""
    if isinstance(value, str) and value.lower().startswith(SEQUENCE_PREFIX):
        token = value[len(SEQUENCE_PREFIX):]
        try:
            low = card(token)
        except ValueError:
            raise FormatError(f"{value!r} is not a sequence's key (seq: and its lowest card, e.g. seq:4H)", path) from None
        return SEQUENCE_PREFIX + low.token
    return _rank_text(value, path)


def fact_order(key: str) -> tuple[int, int, str]:
    """Ranks of the turn facts in meld order, then sequences' keys by their lowest card."""
    if is_sequence_key(key):
        low = key[len(SEQUENCE_PREFIX):]
        return (len(_RANK_INDEX), rank_order(low[0]), low)
    return (_RANK_INDEX[key], 0, "")


def meld_rank(cards: Sequence[Card], wild_ranks: frozenset[str] = frozenset({"JK", "2"})) -> str | None:
    """The rank of a meld: the rank of its natural cards (None if it has none or several)."""
    ranks = {c.rank for c in cards if c.rank not in wild_ranks}
    return ranks.pop() if len(ranks) == 1 else None


def meld_sort_key(meld: Sequence[Card]) -> tuple[int, tuple[int, ...]]:
    """Melds in rank order; a meld without natural cards (a wild-card meld) comes last (then by
    their cards in canonical order)."""
    rank = meld_rank(meld)
    return (_RANK_INDEX.get(rank, len(MELD_RANKS)) if rank else len(MELD_RANKS), tuple(map(card_order, meld)))


def sorted_melds(melds: Iterable[Sequence[Card]]) -> tuple[tuple[Card, ...], ...]:
    """A side's melds in canonical order: each meld's cards sorted, the melds by :func:`meld_sort_key`."""
    return tuple(sorted((sort_cards(m) for m in melds), key=meld_sort_key))


# --------------------------------------------------------------------------------------------
# Positions


@dataclass(frozen=True)
class TurnFacts:
    """Facts about the hand and the current turn that rules need and the cards do not show."""

    #: seats that have melded (laid or added cards) in an earlier turn of this hand
    melded_seats: tuple[int, ...] = ()
    #: ranks of the side's melds the player to move has laid or added to in this turn (a sequence,
    #: meld.sequences, is named by its key: ``seq:`` and its lowest card, e.g. ``seq:4H``)
    melded_ranks: tuple[str, ...] = ()
    #: the subset of melded_ranks that the player started as new melds in this turn
    new_ranks: tuple[str, ...] = ()
    #: whether the player to move took the discard pile in this turn
    took_pile: bool = False
    #: "Partner, may I go out?" in this turn: None (not asked), pending, yes or no
    question: Question | None = None
    #: a black three turned as the upcard and covered is still in the discard pile (it freezes the
    #: pile where upcard.covered_black_three_freezes)
    covered_black_three: bool = False
    #: the player to move drew a red three as the last stock card where red_three.last_stock_card
    #: is may_meld: the player may meld but not discard, and end_turn ends the hand
    last_card_red_three: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "melded_seats": list(self.melded_seats),
            "melded_ranks": list(self.melded_ranks),
            "new_ranks": list(self.new_ranks),
            "took_pile": self.took_pile,
            "question": self.question,
            "covered_black_three": self.covered_black_three,
            "last_card_red_three": self.last_card_red_three,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None, path: DocPath = ("facts",)) -> TurnFacts:
        data = data or {}
        question = data.get("question")
        if question not in (None, "pending", "yes", "no"):
            raise FormatError(f"{question!r} is not one of null, pending, yes, no", (*path, "question"))
        return cls(
            melded_seats=tuple(sorted(int(s) for s in data.get("melded_seats", ()))),
            melded_ranks=tuple(sorted((_fact_rank(r, (*path, "melded_ranks")) for r in data.get("melded_ranks", ())), key=fact_order)),
            new_ranks=tuple(sorted((_fact_rank(r, (*path, "new_ranks")) for r in data.get("new_ranks", ())), key=fact_order)),
            took_pile=bool(data.get("took_pile", False)),
            question=question,
            covered_black_three=bool(data.get("covered_black_three", False)),
            last_card_red_three=bool(data.get("last_card_red_three", False)),
        )


@dataclass(frozen=True)
class HandEnd:
    """How a finished hand ended."""

    reason: Literal["went_out", "stock_exhausted"]
    seat: int | None = None  # who went out, or whose turn ended the hand
    concealed: bool = False
    #: the kind of special hand the player went out with (Modern American); its cards stay in
    #: that player's hand in the position, shown rather than melded
    special_hand: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"reason": self.reason, "seat": self.seat, "concealed": self.concealed}
        if self.special_hand is not None:
            out["special_hand"] = self.special_hand
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any], path: DocPath = ("ended",)) -> HandEnd:
        reason = data.get("reason")
        if reason not in ("went_out", "stock_exhausted"):
            raise FormatError(f"{reason!r} is not one of went_out, stock_exhausted", (*path, "reason"))
        special = data.get("special_hand")
        if special is not None and special not in SPECIAL_HAND_KINDS:
            raise FormatError(f"{special!r} is not a special hand ({', '.join(SPECIAL_HAND_KINDS)})", (*path, "special_hand"))
        return cls(reason=reason, seat=data.get("seat"), concealed=bool(data.get("concealed", False)), special_hand=special)


@dataclass(frozen=True)
class Penalty:
    """A table penalty charged in this hand (penalty.table_penalties): the offending ``seat``, the
    ``rule`` of the offence (a penalty.* rule ID), the ``points`` its side loses, and how much the
    side's initial-meld minimum rises for the rest of the hand (``minimum_increase``)."""

    seat: int
    rule: str
    points: int = 0
    minimum_increase: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "rule": self.rule, "points": self.points}
        if self.minimum_increase:
            out["minimum_increase"] = self.minimum_increase
        return out

    @classmethod
    def from_json(cls, data: Any, path: DocPath = ("penalty",)) -> Penalty:
        if not isinstance(data, Mapping) or "seat" not in data or "rule" not in data:
            raise FormatError("a penalty is a mapping with 'seat', 'rule' and 'points'", path)
        return cls(int(data["seat"]), str(data["rule"]), int(data.get("points", 0)), int(data.get("minimum_increase", 0)))


@dataclass(frozen=True)
class Position:
    """A complete hand in progress, like a FEN for Canasta.

    Seats are numbered 0..players-1 in turn order; seat ``s`` belongs to side ``s % sides``.
    Cards the position does not mention are out of play.
    """

    variant: str
    hands: tuple[tuple[Card, ...], ...]
    melds: tuple[tuple[tuple[Card, ...], ...], ...]
    red_threes: tuple[tuple[Card, ...], ...]
    pile: tuple[Card, ...]  # bottom to top
    stock: tuple[Card, ...]  # top first
    turn: int = 0
    phase: Phase = "draw"
    dealer: int | None = None
    scores: tuple[int, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    facts: TurnFacts = TurnFacts()
    ended: HandEnd | None = None
    hand_number: int = 1  # hands of the game so far, this one included
    #: bonus talons not yet taken (Modern American), the next one to be taken first
    talons: tuple[tuple[Card, ...], ...] = ()
    #: seats sitting out this hand (five-player game, table.sit_out): no cards, no turn
    sitting_out: tuple[int, ...] = ()
    #: the seat playing alone in the three-player game (three_player.lone_hand) once someone has
    #: taken the discard pile; the two others are partners and pool their melds (None: not formed)
    lone_hand: int | None = None
    #: table penalties charged in this hand (penalty.table_penalties), in the order they arose
    penalties: tuple[Penalty, ...] = ()

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def sides(self) -> int:
        return len(self.melds)

    def side_of(self, seat: int) -> int:
        return seat % self.sides

    @property
    def top(self) -> Card | None:
        return self.pile[-1] if self.pile else None

    def all_cards(self) -> list[Card]:
        """Every card the position holds, wherever it is."""
        out: list[Card] = [*self.pile, *self.stock]
        for hand in self.hands:
            out.extend(hand)
        for side in self.melds:
            for meld in side:
                out.extend(meld)
        for threes in self.red_threes:
            out.extend(threes)
        for talon in self.talons:
            out.extend(talon)
        return out

    def normalized(self) -> Position:
        """The same position with every multiset in canonical order."""
        return replace(
            self,
            hands=tuple(sort_cards(h) for h in self.hands),
            melds=tuple(sorted_melds(side) for side in self.melds),
            red_threes=tuple(sort_cards(r) for r in self.red_threes),
            talons=tuple(sort_cards(t) for t in self.talons),
            facts=replace(
                self.facts,
                melded_seats=tuple(sorted(self.facts.melded_seats)),
                melded_ranks=tuple(sorted(self.facts.melded_ranks, key=fact_order)),
                new_ranks=tuple(sorted(self.facts.new_ranks, key=fact_order)),
            ),
        )

    def to_json(self) -> dict[str, Any]:
        out = self._core_json()
        if self.talons:  # written only where the variant has talons, so other positions stay as they were
            out["talons"] = [_tokens(t) for t in self.talons]
        if self.lone_hand is not None:  # written only in the three-player game once formed
            out["lone_hand"] = self.lone_hand
        if self.penalties:  # written only when a table penalty was charged
            out["penalties"] = [p.to_json() for p in self.penalties]
        return out

    def _core_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "options": dict(self.options),
            "dealer": self.dealer,
            "turn": self.turn,
            "phase": self.phase,
            "hands": [_tokens(h) for h in self.hands],
            "melds": [[_tokens(m) for m in side] for side in self.melds],
            "red_threes": [_tokens(r) for r in self.red_threes],
            "pile": _tokens(self.pile),
            "stock": _tokens(self.stock),
            "scores": list(self.scores),
            "facts": self.facts.to_json(),
            "ended": self.ended.to_json() if self.ended else None,
            "hand_number": self.hand_number,
            "sitting_out": list(self.sitting_out),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], path: DocPath = ("position",)) -> Position:
        if not isinstance(data, Mapping):
            raise FormatError("expected a mapping", path)
        try:
            hands = tuple(_sorted_cards(h, (*path, "hands", i)) for i, h in enumerate(data["hands"]))
            melds = tuple(
                sorted_melds([_cards(m, (*path, "melds", s, i)) for i, m in enumerate(side)])
                for s, side in enumerate(data["melds"])
            )
        except KeyError as missing:
            raise FormatError(f"missing {missing.args[0]!r}", path) from None
        sides = len(melds)
        red_threes = data.get("red_threes") or [[] for _ in range(sides)]
        scores = data.get("scores") or [0] * sides
        phase = data.get("phase", "draw")
        if phase not in PHASES:
            raise FormatError(f"{phase!r} is not one of {', '.join(PHASES)}", (*path, "phase"))
        ended = data.get("ended")
        return cls(
            variant=str(data.get("variant", "classic")),
            options=dict(data.get("options") or {}),
            dealer=data.get("dealer"),
            turn=int(data.get("turn", 0)),
            phase=phase,
            hands=hands,
            melds=melds,
            red_threes=tuple(_sorted_cards(r, (*path, "red_threes", i)) for i, r in enumerate(red_threes)),
            pile=_cards(data.get("pile", ()), (*path, "pile")),
            stock=_cards(data.get("stock", ()), (*path, "stock")),
            scores=tuple(int(s) for s in scores),
            facts=TurnFacts.from_json(data.get("facts"), (*path, "facts")),
            ended=HandEnd.from_json(ended, (*path, "ended")) if ended else None,
            hand_number=int(data.get("hand_number", 1)),
            talons=tuple(_sorted_cards(t, (*path, "talons", i)) for i, t in enumerate(data.get("talons") or ())),
            sitting_out=tuple(sorted(int(s) for s in data.get("sitting_out") or ())),
            lone_hand=None if data.get("lone_hand") is None else int(data["lone_hand"]),
            penalties=tuple(Penalty.from_json(p, (*path, "penalties", i)) for i, p in enumerate(data.get("penalties") or ())),
        )


# --------------------------------------------------------------------------------------------
# Actions


@dataclass(frozen=True)
class MeldGroup:
    """Cards laid down together as one meld: a new meld, or an addition to the side's meld of
    ``rank``. ``rank`` is needed only when the cards hold no natural card (a lone wild card); a
    group of wild cards without a rank (or with rank ``wild``) is the side's wild-card meld, where
    the variant allows one. A ``sequence`` group (meld.sequences) starts a sequence of its suit, or
    extends the side's sequence of that suit that its cards touch; it names no rank."""

    cards: tuple[Card, ...]
    rank: str | None = None
    sequence: bool = False

    def to_json(self) -> list[str] | dict[str, Any]:
        if self.sequence:
            return {"sequence": True, "cards": _tokens(self.cards)}
        if self.rank is None:
            return _tokens(self.cards)
        return {"rank": self.rank, "cards": _tokens(self.cards)}

    @classmethod
    def of(cls, cards: tuple[Card, ...], rank: str | None = None) -> MeldGroup:
        """``MeldGroup(cards, rank)``, made as :meth:`Meld.of` makes a meld (for a move generator
        that spells thousands of groups): ``sequence`` is the class's default. Equal to
        ``MeldGroup(cards, rank)``, with the same hash, repr and JSON."""
        group = object.__new__(cls)
        object.__setattr__(group, "cards", cards)
        object.__setattr__(group, "rank", rank)
        return group

    @classmethod
    def from_json(cls, data: Any, path: DocPath) -> MeldGroup:
        if isinstance(data, Mapping):
            rank = data.get("rank")
            sequence = data.get("sequence", False)
            if not isinstance(sequence, bool):
                raise FormatError("'sequence' is true or false", (*path, "sequence"))
            if sequence and rank is not None:
                raise FormatError("a sequence group names no rank", (*path, "rank"))
            cards = _sorted_cards(data.get("cards", ()), (*path, "cards"))
            return cls(cards, _rank_text(rank, (*path, "rank")) if rank is not None else None, sequence)
        return cls(_sorted_cards(data, path))


def _groups(data: Any, path: DocPath) -> tuple[MeldGroup, ...]:
    if not isinstance(data, Sequence) or isinstance(data, str):
        raise FormatError("expected a list of meld groups", path)
    return tuple(MeldGroup.from_json(g, (*path, i)) for i, g in enumerate(data))


@dataclass(frozen=True)
class Draw:
    """Draw from the stock (as many cards as the variant's draw count)."""

    type: Literal["draw"] = "draw"

    def to_json(self) -> dict[str, Any]:
        return {"type": "draw"}


@dataclass(frozen=True)
class TakePile:
    """Take the discard pile: meld its top card with ``cards`` from the hand (none when the top
    card is added to the side's meld of its rank); when this take makes the side's initial meld,
    ``melds`` are the further groups from the hand laid in the same action."""

    cards: tuple[Card, ...] = ()
    melds: tuple[MeldGroup, ...] = ()
    type: Literal["take"] = "take"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "take", "cards": _tokens(self.cards)}
        if self.melds:
            out["melds"] = [g.to_json() for g in self.melds]
        return out


@dataclass(frozen=True)
class Meld:
    """Lay down one or more groups at once (new melds and additions)."""

    melds: tuple[MeldGroup, ...]
    type: Literal["meld"] = "meld"

    def to_json(self) -> dict[str, Any]:
        return {"type": "meld", "melds": [g.to_json() for g in self.melds]}

    @classmethod
    def of(cls, melds: tuple[MeldGroup, ...]) -> Meld:
        """``Meld(melds)``, made in about half the time for a move generator that makes thousands:
        the frozen class's ``__init__`` sets each field through ``object.__setattr__``; this sets
        ``melds`` alone, ``type`` being the class's default. Equal to ``Meld(melds)``, with the
        same hash, repr and JSON."""
        meld = object.__new__(cls)
        object.__setattr__(meld, "melds", melds)
        return meld


@dataclass(frozen=True)
class Discard:
    card: Card
    type: Literal["discard"] = "discard"

    def to_json(self) -> dict[str, Any]:
        return {"type": "discard", "card": self.card.token}


@dataclass(frozen=True)
class Ask:
    """Ask partner "may I go out?"."""

    type: Literal["ask"] = "ask"

    def to_json(self) -> dict[str, Any]:
        return {"type": "ask"}


@dataclass(frozen=True)
class Answer:
    """The partner's binding answer to :class:`Ask`."""

    permit: bool
    type: Literal["answer"] = "answer"

    def to_json(self) -> dict[str, Any]:
        return {"type": "answer", "permit": self.permit}


@dataclass(frozen=True)
class Decline:
    """With the stock exhausted, decline to take the discard pile (ends the hand)."""

    type: Literal["decline"] = "decline"

    def to_json(self) -> dict[str, Any]:
        return {"type": "decline"}


@dataclass(frozen=True)
class NextHand:
    """After a hand is over: deal the next hand of the game from ``deck`` (top first); the deal
    rotates and the cumulative scores carry over."""

    deck: tuple[Card, ...]
    first_player: int | None = None  # for variants that choose the first player at random
    type: Literal["next_hand"] = "next_hand"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "next_hand", "deck": _tokens(self.deck)}
        if self.first_player is not None:
            out["first_player"] = self.first_player
        return out


@dataclass(frozen=True)
class SpecialHand:
    """Lay the whole hand down as a special hand of ``kind`` (Modern American) and discard
    ``discard``: every other card of the hand makes up the special hand; the hand ends."""

    kind: str
    discard: Card
    type: Literal["special_hand"] = "special_hand"

    def to_json(self) -> dict[str, Any]:
        return {"type": "special_hand", "kind": self.kind, "discard": self.discard.token}


@dataclass(frozen=True)
class EndTurn:
    """End the turn without a discard, where a rule allows it (red_three.last_stock_card may_meld:
    after a red three drawn as the last stock card the player may meld, then the hand ends)."""

    type: Literal["end_turn"] = "end_turn"

    def to_json(self) -> dict[str, Any]:
        return {"type": "end_turn"}


Action: TypeAlias = Draw | TakePile | Meld | Discard | Ask | Answer | Decline | NextHand | SpecialHand | EndTurn
ACTION_TYPES: tuple[str, ...] = (
    "draw", "take", "meld", "discard", "ask", "answer", "decline", "next_hand", "special_hand", "end_turn",
)


def action_from_json(data: Any, path: DocPath = ("action",)) -> Action:
    if not isinstance(data, Mapping):
        raise FormatError("an action is a mapping with a 'type'", path)
    kind = data.get("type")
    if kind == "draw":
        return Draw()
    if kind == "take":
        return TakePile(_sorted_cards(data.get("cards", ()), (*path, "cards")), _groups(data.get("melds", ()), (*path, "melds")))
    if kind == "meld":
        return Meld(_groups(data.get("melds", ()), (*path, "melds")))
    if kind == "discard":
        if "card" not in data:
            raise FormatError("a discard names its 'card'", path)
        return Discard(_cards([data["card"]], (*path, "card"))[0])
    if kind == "ask":
        return Ask()
    if kind == "answer":
        permit = data.get("permit")
        if not isinstance(permit, bool):
            raise FormatError("an answer has 'permit': true or false", (*path, "permit"))
        return Answer(permit)
    if kind == "decline":
        return Decline()
    if kind == "end_turn":
        return EndTurn()
    if kind == "next_hand":
        first = data.get("first_player")
        return NextHand(_cards(data.get("deck", ()), (*path, "deck")), None if first is None else int(first))
    if kind == "special_hand":
        special = data.get("kind")
        if special not in SPECIAL_HAND_KINDS:
            raise FormatError(f"{special!r} is not a special hand ({', '.join(SPECIAL_HAND_KINDS)})", (*path, "kind"))
        if "discard" not in data:
            raise FormatError("a special hand names its 'discard'", path)
        return SpecialHand(special, _cards([data["discard"]], (*path, "discard"))[0])
    raise FormatError(f"{kind!r} is not an action type ({', '.join(ACTION_TYPES)})", (*path, "type"))


def format_action(action: Action) -> str:
    """A short human-readable form: ``take [9H 9S] + [KH KD KS]``, ``discard 5C``."""
    if isinstance(action, TakePile):
        extra = "".join(f" + [{_group_text(g)}]" for g in action.melds)
        return f"take [{' '.join(_tokens(action.cards))}]{extra}"
    if isinstance(action, Meld):
        return "meld " + " ".join(f"[{_group_text(g)}]" for g in action.melds)
    if isinstance(action, Discard):
        return f"discard {action.card.token}"
    if isinstance(action, Answer):
        return f"answer {'yes' if action.permit else 'no'}"
    if isinstance(action, NextHand):
        return f"next_hand ({len(action.deck)} cards)"
    if isinstance(action, SpecialHand):
        return f"special_hand {action.kind}, discard {action.discard.token}"
    return action.type


#: the text form's prefix of a sequence group: ``[seq: 4H 5H 6H]``
SEQUENCE_TEXT = "seq"


def _group_text(group: MeldGroup) -> str:
    text = " ".join(_tokens(group.cards))
    if group.sequence:
        return f"{SEQUENCE_TEXT}: {text}"
    return f"{group.rank}: {text}" if group.rank else text


# --------------------------------------------------------------------------------------------
# The action text form: what messages print, read back

_BRACKETED = re.compile(r"\[([^\]]*)\]")


def action_text(action: Action) -> str:
    """The complete text form of an action, which :func:`parse_action` reads back (the same as
    :func:`format_action` except that a next_hand lists its whole deck)."""
    if isinstance(action, NextHand):
        first = "" if action.first_player is None else f" first_player={action.first_player}"
        return f"next_hand{first} [{' '.join(_tokens(action.deck))}]"
    return format_action(action)


def parse_action(text: str) -> Action:
    """An action from its text form (``take [9H 9S] + [KH KD KS]``, ``meld [2C: 2C] [7H 7D 7S]``,
    ``meld [seq: 4H 5H 6H]`` (a sequence group, meld.sequences),
    ``discard 5C``, ``answer yes``...): the same action as its JSON form. Raises
    :class:`FormatError` saying what is wrong."""
    return action_from_json(_text_to_json(text.strip()))


def _text_to_json(text: str) -> dict[str, Any]:
    kind, _, rest = text.partition(" ")
    rest = rest.strip()
    if kind in ("draw", "ask", "decline"):
        if rest:
            raise FormatError(f"{kind!r} takes nothing after it: {text!r}", ("action",))
        return {"type": kind}
    if kind == "discard":
        return {"type": "discard", "card": rest}
    if kind == "answer":
        if rest not in ("yes", "no"):
            raise FormatError(f"an answer is 'answer yes' or 'answer no', not {text!r}", ("action", "permit"))
        return {"type": "answer", "permit": rest == "yes"}
    if kind == "meld":
        return {"type": "meld", "melds": _bracketed(rest, text)}
    if kind == "take":
        first, *others = rest.split("+")
        cards = _bracketed(first, text)
        if len(cards) != 1 or not isinstance(cards[0], list):
            raise FormatError(f"a take names the hand cards in one bracket, e.g. 'take [9H 9S]': {text!r}", ("action", "cards"))
        return {"type": "take", "cards": cards[0], "melds": [g for part in others for g in _bracketed(part, text)]}
    if kind == "special_hand":
        name, _, discard = rest.partition(",")
        if not name.strip() or not discard.strip().startswith("discard "):
            raise FormatError(f"a special hand is 'special_hand KIND, discard CARD': {text!r}", ("action",))
        return {"type": "special_hand", "kind": name.strip(), "discard": discard.strip().removeprefix("discard ").strip()}
    if kind == "next_hand":
        out: dict[str, Any] = {"type": "next_hand"}
        if rest.startswith("first_player="):
            value, _, rest = rest.removeprefix("first_player=").partition(" ")
            if not value.isdigit():
                raise FormatError(f"first_player is a seat number: {text!r}", ("action", "first_player"))
            out["first_player"] = int(value)
        deck = _bracketed(rest, text)
        if len(deck) != 1 or not isinstance(deck[0], list):
            raise FormatError(f"a next_hand lists its whole deck in one bracket: {text!r}", ("action", "deck"))
        out["deck"] = deck[0]
        return out
    raise FormatError(f"unknown action {kind!r} (one of: {', '.join(ACTION_TYPES)})", ("action", "type"))


def _bracketed(text: str, whole: str) -> list[Any]:
    """Groups in brackets, ``[KH KD KS] [2C: 2C]``, as JSON meld groups; nothing else may stand
    between them."""
    if _BRACKETED.sub("", text).strip():
        raise FormatError(f"cards are written in brackets, e.g. [KH KD KS]: {whole!r}", ("action",))
    groups: list[Any] = []
    for body in _BRACKETED.findall(text):
        rank, colon, tokens = body.rpartition(":")
        if colon and rank.strip().lower() == SEQUENCE_TEXT:
            groups.append({"sequence": True, "cards": tokens.split()})
        else:
            groups.append({"rank": rank.strip(), "cards": tokens.split()} if colon else tokens.split())
    return groups


# --------------------------------------------------------------------------------------------
# Outcomes and score sheets

Status = Literal["accepted", "rejected", "malformed"]


@dataclass(frozen=True)
class Outcome:
    """What an engine says about an action: accepted, rejected (illegal: ``rule`` may name the
    spec rule that forbids it; it is judged only for an engine that declares ``cites_rules``) or
    malformed (not an action of this position, e.g. a card not in the hand)."""

    status: Status
    rule: str | None = None
    message: str = ""

    @property
    def accepted(self) -> bool:
        return self.status == "accepted"

    @classmethod
    def accept(cls) -> Outcome:
        return _ACCEPTED

    @classmethod
    def reject(cls, rule: str | None = None, message: str = "") -> Outcome:
        return cls("rejected", rule, message)

    @classmethod
    def malformed(cls, message: str) -> Outcome:
        return cls("malformed", None, message)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status}
        if self.rule:
            out["rule"] = self.rule
        if self.message:
            out["message"] = self.message
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any], path: DocPath = ("outcome",)) -> Outcome:
        status = data.get("status") if isinstance(data, Mapping) else None
        if status not in ("accepted", "rejected", "malformed"):
            raise FormatError(f"{status!r} is not one of accepted, rejected, malformed", (*path, "status"))
        rule = data.get("rule")
        return cls(status, None if rule is None else str(rule), str(data.get("message", "")))


_ACCEPTED = Outcome("accepted")

SCORE_ITEMS: tuple[str, ...] = ("canastas", "red_threes", "going_out", "melded", "in_hand", "special_hand", "penalties", "total")
_OPTIONAL_ITEMS = frozenset({"special_hand", "penalties"})


@dataclass(frozen=True)
class SideScore:
    """One side's score for a hand. ``in_hand`` and ``penalties`` are zero or negative; ``total``
    is the sum. ``special_hand`` (the value of a special hand) is a Modern American line, zero
    elsewhere; ``penalties`` holds Modern American unfinished special melds and the table penalties
    of the side's players (penalty.table_penalties)."""

    canastas: int = 0
    red_threes: int = 0
    going_out: int = 0
    melded: int = 0
    in_hand: int = 0
    special_hand: int = 0
    penalties: int = 0
    total: int = 0
    cumulative: int = 0  # the side's game score after this hand

    def to_json(self) -> dict[str, int]:
        # the Modern lines are written only when they hold points, so other sheets read as before
        return {k: getattr(self, k) for k in (*SCORE_ITEMS, "cumulative") if k not in _OPTIONAL_ITEMS or getattr(self, k)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SideScore:
        return cls(**{k: int(data.get(k, 0)) for k in (*SCORE_ITEMS, "cumulative")})


@dataclass(frozen=True)
class ScoreSheet:
    """The sheet of a finished hand; ``game_over`` and ``winner`` (a side) say whether the game
    ended with it."""

    sides: tuple[SideScore, ...]
    game_over: bool = False
    winner: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"sides": [s.to_json() for s in self.sides], "game_over": self.game_over, "winner": self.winner}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ScoreSheet:
        if not isinstance(data, Mapping) or not isinstance(data.get("sides"), list):
            raise FormatError("a score sheet is a mapping with 'sides'", ("score",))
        winner = data.get("winner")
        return cls(tuple(SideScore.from_json(s) for s in data["sides"]), bool(data.get("game_over", False)), None if winner is None else int(winner))
