"""The legal-move generator: every legal action of a position, generated from the rules.

The hand is read once per position as count vectors (the naturals of each rank, in canonical suit
order, and the wild cards of each kind); the position's facts (the side's melds, the minimum, the
frozen pile, whether the player could go out) are computed once; candidates are generated only
where the rules allow them and checked by the non-raising predicates below, one per obligation,
each naming its rule. ``apply`` still validates every action with messages (engine.py); the
property tests hold the two to the same answers.

**What the list holds (the documented equivalence).** ``legal_actions()`` is never empty while the
hand is live, lists no illegal action, and lists every legal action up to:

1. *Suits* (``eq.suits.irrelevant``): cards of one rank-class are interchangeable, so an action
   takes the naturals of a rank in canonical suit order and the wild cards of each kind (jokers,
   twos) in canonical order; a discard is listed for every distinct card of the hand.
2. *Layout*: the cards an action lays on one rank form one group (groups of a rank merge anyway,
   ``meld.one-per-rank``), in canonical card order; the groups of an action come in canonical
   rank order; a group with no natural card names its rank, except the side's wild-card meld
   (Modern American), which names none and comes last.
3. *Steps of one turn*: a meld (or a take that makes the initial meld) laying several ranks at
   once is listed when no listed action can do part of it first. Otherwise it is the same as a
   listed action followed, in the same turn, by meld actions for the remaining ranks, which are
   then legal too (the same cards reach the same melds; the end of the turn is the same). Exactly:

   * a meld of one rank: every legal one (any number of naturals, any wild cards by kind);
   * the initial meld in several ranks (a meld, or the extra groups of a take): every legal one in
     which each group is needed to reach the minimum (dropping a whole group would fall short);
   * a meld of several ranks, or a take making the initial meld with further groups, that leaves
     the player at most one card (going out, or needing every canasta at once): every legal one
     that no listed action can begin (for a side with melds: no single group of it is legal on
     its own; for a side without: leaving out one group, or the black threes, falls short of the
     minimum);
   * a take by a side that has melded: every legal one (only the top card's group is allowed);
   * the initial meld where it differs from later melds (Modern American: wild cards in aces and
     in melds of fewer than five naturals only there, a natural meld required, the wild-card
     meld): every legal one none of whose groups could be laid later in the same turn with the
     same effect, i.e. every group is needed (without it the rest is no legal initial meld: the
     count, the natural meld, black threes only going out) or holds wild cards no later meld
     could take (aces, or fewer than five naturals);
   * the wild-card meld of a side that has melded: every legal one (started or added to, any
     number of wild cards by kind).

Sequences (``meld.sequences``) keep their suits; what is listed of them is documented in
:mod:`canasta_reference.sequence_moves`.

Everything else (draw, decline, ask, answer, discard, end of turn, special hands: one per kind
and distinct discard) is listed exactly. Where the table's penalties are played
(``penalty.table_penalties``), ``apply`` also accepts some illegal actions in order to penalise
them; those irregularities are not legal actions and are not listed.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from itertools import chain, product
from operator import add, attrgetter, gt
from typing import TYPE_CHECKING

from canasta_conformance.contract.cards import _RANK_ORDER, RED_SUITS, TOKENS, Card, card, sort_key
from canasta_conformance.contract.model import (
    WILD_MELD,
    Action,
    Answer,
    Ask,
    Decline,
    Discard,
    Draw,
    EndTurn,
    Meld,
    MeldGroup,
    SpecialHand,
    TakePile,
)
from canasta_conformance.contract.variant_rules import VariantRules

from .going_out import can_go_out
from .memo import bounded
from .pile import is_frozen_for, one_card_rule_applies
from .sequence_moves import sequence_melds
from .sequences import side_sequences
from .special_hands import is_special_hand, special_hand_size
from .state import HandState

if TYPE_CHECKING:
    from .engine import ReferenceEngine

ASK = Ask()
DRAW = Draw()
DECLINE = Decline()
END_TURN = EndTurn()
ANSWERS: tuple[Answer, Answer] = (Answer(True), Answer(False))
_KEY: dict[Card, tuple[int, int]] = {card(token): sort_key(card(token)) for token in TOKENS}
_DISCARDS: dict[Card, Discard] = {c: Discard(c) for c in _KEY}  # actions are immutable values: share them
_ORDINAL: dict[Card, int] = {c: i for i, c in enumerate(sorted(_KEY, key=_KEY.__getitem__))}  # canonical order
_OF_RANK: dict[str, list[Card]] = {}  # rank -> its cards (every suit)
for _c in _KEY:
    _OF_RANK.setdefault(_c.rank, []).append(_c)
_ORDER: dict[str, int] = {**_RANK_ORDER, WILD_MELD: len(_RANK_ORDER)}  # the wild-card meld's group comes last

WildVector = tuple[int, ...]  # how many wild cards of each kind (in the order of Facts.wild_kinds)


class Part:
    """What an action lays on one rank: ``k`` naturals from the hand (and the pile's top card when
    ``top``) and ``wilds`` wild cards by kind; ``value`` counts the cards from the hand."""

    __slots__ = ("cards", "k", "n_wilds", "rank", "top", "value", "wilds")

    def __init__(self, rank: str, k: int, wilds: WildVector, n_wilds: int, value: int, top: bool = False) -> None:
        self.rank = rank
        self.k = k
        self.wilds = wilds
        self.n_wilds = n_wilds
        self.top = top
        self.value = value
        self.cards = k + n_wilds  # how many cards it takes from the hand


_VECTORS: dict[tuple[WildVector, int], list[tuple[WildVector, int]]] = {}


def _wild_vectors(avail: WildVector, cap: int) -> list[tuple[WildVector, int]]:
    """Every vector of at most ``avail`` cards of each kind, at most ``cap`` in all, fewest first."""
    vectors = _VECTORS.get((avail, cap))
    if vectors is None:
        ranges = [range(min(n, cap) + 1) for n in avail]
        vectors = sorted(((v, sum(v)) for v in product(*ranges) if sum(v) <= cap), key=lambda vn: vn[1])
        _VECTORS[(avail, cap)] = vectors
    return vectors


WildTable = tuple[list[tuple[WildVector, int, int]], list[list[tuple[WildVector, int, tuple[Card, ...]]]]]
_WILD_TABLES: dict[tuple[tuple[tuple[Card, ...], ...], tuple[int, ...], int], WildTable] = {}


def _wild_table(kinds: Sequence[Sequence[Card]], values: Sequence[int], cap: int) -> WildTable:
    """The choices of at most ``cap`` of the wild cards ``kinds`` (by kind, canonical order, each
    kind counting its value): as (vector, how many, their count), fewest first, and grouped by how
    many cards they hold as (vector, count, the canonical cards). The same wild cards come back
    hand after hand, so the table is built once for each."""
    key = (tuple(map(tuple, kinds)), tuple(values), cap)
    table = _WILD_TABLES.get(key)
    if table is None:
        avail = tuple(len(cards) for cards in kinds)
        choices = [(v, n, sum(k * w for k, w in zip(v, values, strict=True))) for v, n in _wild_vectors(avail, cap)]
        grouped: list[list[tuple[WildVector, int, tuple[Card, ...]]]] = [[] for _ in range(cap + 1)]
        for vector, n, value in choices:
            cards: tuple[Card, ...] = ()
            for i, k in enumerate(vector):
                if k:
                    cards += tuple(kinds[i][:k])
            grouped[n].append((vector, value, cards))
        table = _WILD_TABLES[key] = (choices, grouped)
    return table


_ONE_GROUP: dict[tuple[tuple[Card, ...], str | None], Meld] = {}


def _one_group_meld(cards: tuple[Card, ...], tag: str | None = None) -> Meld:
    """The action laying one group (actions are immutable values: each is built once and shared)."""
    meld = _ONE_GROUP.get((cards, tag))
    if meld is None:
        meld = _ONE_GROUP[(cards, tag)] = Meld((MeldGroup(cards, tag),))
    return meld


class Facts:
    """Everything the generator needs about a position, computed once: the hand as count vectors
    (naturals by rank, wild cards by kind, both in canonical card order) and the side's melds."""

    def __init__(self, state: HandState) -> None:
        rules = state.rules
        self.state = state
        self.rules = rules
        self.side = state.side
        self.melds = state.melds[self.side]
        self.melded = bool(self.melds)
        #: the side's sequences (meld.sequences), kept apart from its melds of one rank
        self.sequences: dict[str, list[Card]] = {}
        if rules.meld_sequences:
            self.sequences = side_sequences(self.melds)
            if self.sequences:
                self.melds = {rank: cards for rank, cards in self.melds.items() if rank not in self.sequences}
        self.minimum = 0 if self.melded else state.initial_minimum()
        hand = state.hand
        #: the hand's distinct cards in canonical order (sorted once; ranks come out grouped)
        counted = sorted([(_ORDINAL[c], c, n) for c, n in hand.items() if n])
        self.distinct: list[Card] = [c for _, c, _ in counted]
        self.naturals: dict[str, list[Card]] = {}  # rank -> the hand's naturals (black threes too)
        wild_cards: dict[str, list[Card]] = {}
        wild_ranks = rules.cards_wild_ranks
        red_threes = size = 0
        last = ""  # the rank of the group being filled (cards of a rank come together)
        same: list[Card] = []
        for _, c, n in counted:
            size += n
            rank = c.rank
            if rank == last:
                same += [c] * n
            elif rank == "3":  # red and black threes interleave in suit order
                if c.suit in RED_SUITS:
                    red_threes += n
                else:
                    self.naturals.setdefault(rank, []).extend([c] * n)
            else:
                last = rank
                same = [c] * n
                (wild_cards if rank in wild_ranks else self.naturals)[rank] = same
        self.red_threes = red_threes
        self.hand_size = size
        self.wild_kinds: list[list[Card]] = list(wild_cards.values())
        #: the hand's wild cards, in canonical order by kind
        self.wild_key: tuple[Card, ...] = tuple(chain.from_iterable(self.wild_kinds))
        self.wild_values: list[int] = [rules.value(cards[0]) for cards in self.wild_kinds]
        self.wild_avail: WildVector = tuple(map(len, self.wild_kinds))
        self.no_wilds: WildVector = (0,) * len(self.wild_kinds)
        self.wilds_first = not wild_cards or not self.naturals or _RANK_ORDER[[*wild_cards][-1]] < _RANK_ORDER[next(iter(self.naturals))]
        self.top_value = 0  # the pile's top card, when takes are generated
        self._choices: dict[int, list[tuple[WildVector, int, int]]] = {}
        self._by_count: dict[int, list[list[tuple[WildVector, int, tuple[Card, ...]]]]] = {}
        self._meld_wilds: dict[str, int] | None = None
        self._canastas: int | None = None
        # Modern American (each fact is empty or false where the variant lacks the rule)
        size = rules.canasta_min_cards
        self.max_cards = rules.meld_max_cards if rules.meld_max_cards is not None else sys.maxsize
        self.closed: frozenset[str] = frozenset(
            rank for melds in state.melds for rank, cards in melds.items() if len(cards) >= size
        ) if rules.meld_closed_rank_after_canasta else frozenset()
        wild_meld = self.melds.get(WILD_MELD)
        self.wild_meld_size = len(wild_meld) if wild_meld is not None else 0
        self.wild_meld_open = wild_meld is not None and len(wild_meld) < size  # modern.wild-meld.blocks-wilds
        self.talon_after = bool(state.talons) and not state.turn_card_drawn() and (state.talon_owed() or not self.melded)
        # the initial meld differs from later melds (modern.aces.wilds-initial-only, modern.meld.wild-after-five,
        # modern.initial.natural-meld, the wild-card meld): such an initial meld is generated as a whole
        #: the variant restricts where wild cards go (modern_wilds_allowed has something to check)
        self.wild_places_ruled = (
            rules.meld_wild_meld_blocks_wilds or rules.meld_sevens_no_wilds
            or rules.meld_aces_wilds_only_in_initial_meld or rules.meld_wild_add_min_naturals is not None
        )
        self.initial_apart = not self.melded and (
            rules.meld_aces_wilds_only_in_initial_meld or rules.meld_wild_add_min_naturals is not None
            or rules.initial_meld_natural_meld_required or rules.meld_wild_only_melds
        )

    @property
    def meld_wilds(self) -> dict[str, int]:
        if self._meld_wilds is None:
            wild = self.rules.cards_wild_ranks
            self._meld_wilds = {rank: sum(1 for c in cards if c.rank in wild) for rank, cards in self.melds.items()}
        return self._meld_wilds

    @property
    def canastas(self) -> int:
        if self._canastas is None:
            need = self.rules.canasta_min_cards
            self._canastas = sum(1 for melds in (self.melds, self.sequences) for cards in melds.values() if len(cards) >= need)
        return self._canastas

    def wild_choices(self, cap: int) -> list[tuple[WildVector, int, int]]:
        """Every choice of at most ``cap`` wild cards by kind from the hand, fewest first, as
        (vector, how many, their count)."""
        choices = self._choices.get(cap)
        if choices is None:
            choices = _wild_table(self.wild_kinds, self.wild_values, cap)[0]
            self._choices[cap] = choices
        return choices

    def wilds_by_count(self, cap: int) -> list[list[tuple[WildVector, int, tuple[Card, ...]]]]:
        """The wild-card choices of :meth:`wild_choices` grouped by how many cards they hold, each as
        (vector, count, the canonical cards)."""
        grouped = self._by_count.get(cap)
        if grouped is None:
            grouped = _wild_table(self.wild_kinds, self.wild_values, cap)[1]
            self._by_count[cap] = grouped
        return grouped

    def natural_value(self, rank: str) -> int:
        cards = self.naturals.get(rank)
        return self.rules.value(cards[0]) if cards else 0

    def part(self, rank: str, k: int, choice: tuple[WildVector, int, int], top: bool = False) -> Part:
        return Part(rank, k, choice[0], choice[1], k * self.natural_value(rank) + choice[2], top)

    def cards(self, rank: str, k: int, wilds: WildVector, offsets: Sequence[int] = ()) -> tuple[Card, ...]:
        """The canonical cards: the first ``k`` naturals of the rank, and wild cards of each kind
        from ``offsets`` on (those the action's earlier groups have not used)."""
        cards: list[Card] = []
        for i, n in enumerate(wilds):
            if n:
                start = offsets[i] if offsets else 0
                cards += self.wild_kinds[i][start:start + n]
        if k:
            cards += self.naturals[rank][:k]
        if not self.wilds_first:
            cards.sort(key=_KEY.__getitem__)
        return tuple(cards)

    def groups(self, parts: Sequence[Part], offsets: Sequence[int] = ()) -> tuple[MeldGroup, ...]:
        """The groups of an action in canonical rank order, each with its own wild cards."""
        used = list(offsets) if offsets else [0] * len(self.wild_kinds)
        out = []
        for part in sorted(parts, key=lambda p: _ORDER[p.rank]):
            tag = part.rank if part.k == 0 and not part.top and part.rank != WILD_MELD else None
            out.append(MeldGroup(self.cards(part.rank, part.k, part.wilds, used), tag))
            used = [u + n for u, n in zip(used, part.wilds, strict=True)]
        return tuple(out)


# --- the obligations, as predicates (apply raises the same rules, with messages) -----------------
def may_ask(state: HandState) -> bool:
    """out.ask.optional, out.ask.window: asked once a turn, before melding or taking the pile."""
    if state.rules.going_out_ask_partner != "optional" or state.question is not None or state.partner_of(state.turn) is None:
        return False
    return not (state.phase == "play" and (state.melded_ranks or state.took_pile))


def group_is_legal(f: Facts, rank: str, naturals: int, wilds: int, initial: bool = False) -> bool:
    """meld.min-cards, meld.min-naturals, meld.max-wilds, meld.wild-ratio (a new meld);
    meld.merge-wild-limit (an addition); black3.meld.no-wild; and Modern American's
    modern.meld.max-seven, modern.meld.closed-rank, modern.sevens.no-wilds,
    modern.aces.wilds-initial-only, modern.meld.wild-after-five and modern.wild-meld.blocks-wilds
    (the side's wild-card meld open before the action and after it). ``initial``: the action makes
    the side's initial meld."""
    rules = f.rules
    existing = f.melds.get(rank)
    size = len(existing) if existing is not None else 0
    if rank == WILD_MELD:  # modern.wild-meld.allowed: wild cards only, three to seven
        return not naturals and wilds > 0 and rules.meld_min_cards <= size + wilds <= f.max_cards
    if wilds and rank == "3":
        return False
    if size + naturals + wilds > f.max_cards or rank in f.closed:
        return False
    if wilds and f.wild_places_ruled and not modern_wilds_allowed(
        f, rank, size - (f.meld_wilds[rank] if existing is not None else 0) + naturals, initial
    ):
        return False
    if existing is None:
        if naturals < rules.meld_min_naturals or naturals + wilds < rules.meld_min_cards or wilds > rules.meld_max_wilds:
            return False
        return not (wilds > naturals and rules.meld_wilds_not_more_than_naturals)
    if not wilds:
        return naturals > 0
    total = f.meld_wilds[rank] + wilds
    if total > rules.meld_max_wilds:
        return False
    return not (rules.meld_wilds_not_more_than_naturals and 2 * total > len(existing) + naturals + wilds)


def modern_wilds_allowed(f: Facts, rank: str, naturals_after: int, initial: bool) -> bool:
    """Whether wild cards may join the meld of ``rank`` (``naturals_after`` naturals with this
    action's): modern.wild-meld.blocks-wilds, modern.sevens.no-wilds, modern.aces.wilds-initial-only,
    modern.meld.wild-after-five."""
    rules = f.rules
    if f.wild_meld_open and rules.meld_wild_meld_blocks_wilds:
        return False
    if rules.meld_sevens_no_wilds and rank == "7":
        return False
    if initial:
        return True
    if rules.meld_aces_wilds_only_in_initial_meld and rank == "A":
        return False
    need = rules.meld_wild_add_min_naturals
    return need is None or naturals_after >= need


def completes_canasta(f: Facts, rank: str, added: int) -> bool:
    """canasta.definition: the meld of ``rank`` reaches the canasta size with ``added`` cards."""
    before = len(f.melds.get(rank, ()))
    return before < f.rules.canasta_min_cards <= before + added


def reaches_minimum(f: Facts, counted: int) -> bool:
    """initial.table: the action that makes the side's initial meld counts at least the minimum."""
    return f.melded or counted >= f.minimum


def concealed_exception(f: Facts, cards_left: int, canastas_after: int, new_canasta: bool) -> bool:
    """initial.concealed-exception: below the minimum only to go out concealed after a draw, with
    a canasta among the new melds."""
    state = f.state
    if cards_left > 1 or state.took_pile or state.turn in state.melded_seats or not new_canasta:
        return False
    return canastas_after >= max(1, f.rules.going_out_canastas_required)


def cards_left_allowed(
    f: Facts, cards_left: int, canastas_after: int, black_threes: bool, going_out_now: bool, wild_meld_open_after: bool = False,
) -> bool:
    """black3.meld.going-out-only; out.ask.binding (after a "no"); turn.keep-a-card; and, for a
    player melding every card, out.requires-canasta and turn.discard.required; Modern American's
    modern.talon.no-card-to-hold (a talon follows the discard) and modern.out.unfinished-wild-meld
    (``wild_meld_open_after``: the side's wild-card meld is not a canasta after the action);
    stock.last-card.red-three (no discard follows)."""
    rules = f.rules
    if cards_left > 1:
        return not (black_threes and rules.black_three_meld_only_going_out)
    if f.state.question == "no" or (going_out_now and rules.going_out_final_discard == "required"):
        return False
    if f.state.last_card_red_three and not going_out_now:
        return True
    if not going_out_now and f.talon_after:
        return True
    if wild_meld_open_after and rules.going_out_unfinished_wild_meld_blocks:
        return False
    return canastas_after >= rules.going_out_canastas_required


def may_discard(f: Facts, going_out_possible: bool) -> bool:
    """out.requires-canasta and modern.out.unfinished-wild-meld (the last card goes out, unless a
    talon follows: modern.talon.after-discard); out.ask.binding (after a "yes" a player who can go
    out must; after a "no" the player may not); stock.last-card.red-three (no discard)."""
    state = f.state
    if state.last_card_red_three:
        return False
    if f.hand_size == 1:
        if state.talon_owed():
            return True
        if f.wild_meld_open and f.rules.going_out_unfinished_wild_meld_blocks:
            return False
        return f.canastas >= f.rules.going_out_canastas_required and state.question != "no"
    return not (state.question == "yes" and going_out_possible)


def discard_allowed(f: Facts, c: Card) -> bool:
    """red3.never-in-hand; modern.discard.empty-pile-aces-sevens: no ace or seven onto an empty
    pile while the hand holds another natural card."""
    if c.is_red_three:
        return False
    rules = f.rules
    if not rules.discard_empty_pile_no_aces_sevens or f.state.pile or c.rank not in _ACES_SEVENS:
        return True
    return all(rank in _ACES_SEVENS or rank == "3" for rank in f.naturals)


_ACES_SEVENS = ("A", "7")


def pile_can_be_taken(state: HandState) -> bool:
    """pile.empty, pile.blocked.wild-top, pile.blocked.black3-top, pile.take.top-card-first (a red
    three on top), pile.one-card-rule, modern.pile.after-initial-meld."""
    pile = state.pile
    if not pile:
        return False
    top = pile[-1]
    if top.rank in state.rules.cards_wild_ranks or top.rank == "3":
        return False
    if state.rules.initial_meld_from_hand_only and not state.has_melded(state.side):
        return False
    return not one_card_rule_applies(state)


def take_cards_allowed(
    rules: VariantRules, side_melds: Mapping[str, object], rank: str, naturals: int, wilds: int, frozen_for_side: bool,
) -> bool:
    """pile.frozen.take-with-natural-pair (and initial.pile-natural-pair): a natural pair when the
    pile is frozen against the side; otherwise one of the variant's ways (pile.unfrozen.*,
    pile.no-two-wilds)."""
    if frozen_for_side:
        return naturals >= 2
    ways = rules.pile_take_unfrozen_with
    if naturals >= 2 and "natural_pair" in ways:
        return True
    if naturals == 1 and wilds and "natural_and_wild" in ways:
        return True
    return rank in side_melds and "add_to_meld" in ways


def hand_may_take(state: HandState) -> bool:
    """take_cards_allowed for the most the hand allows (a natural pair, a natural and a wild card,
    or nothing from the hand): whether the hand holds the cards of some way of taking the top card
    at all, read without building the position's facts (most hands cannot take the pile). The
    cards of the hand are counted only as far as the answer needs them."""
    rules = state.rules
    rank = state.pile[-1].rank
    frozen = is_frozen_for(state, state.side)
    side_melds = state.melds[state.side]
    if take_cards_allowed(rules, side_melds, rank, 0, 0, frozen):
        return True  # nothing from the hand (the top card joins a meld of the side)
    get = state.hand.get
    naturals = 0
    for c in _OF_RANK[rank]:
        naturals += get(c, 0)
    if not naturals:
        return False  # with no natural of the rank, every way needs what (0, 0) needed
    if take_cards_allowed(rules, side_melds, rank, min(naturals, 2), 0, frozen):
        return True
    wilds = 0
    for wild in rules.cards_wild_ranks:
        for c in _OF_RANK[wild]:
            wilds += get(c, 0)
    return take_cards_allowed(rules, side_melds, rank, 1, min(wilds, rules.meld_max_wilds, 1), frozen)


def may_decline(engine: ReferenceEngine, state: HandState, some_take: bool) -> bool:
    """turn.start.choice (only with the stock exhausted), stock.empty.forced-take, out.ask.binding."""
    if engine._forced_take(state):
        return False
    return not (some_take and state.question == "yes" and engine._could_go_out_by_taking(state))


# --- generation ---------------------------------------------------------------------------------
def legal_actions(engine: ReferenceEngine) -> list[Action]:
    state = engine.state
    if state is None or state.phase == "over":
        return []
    if state.question == "pending":
        return list(ANSWERS)
    out: list[Action] = [ASK] if may_ask(state) else []
    if state.phase == "draw":
        if state.stock:
            out.append(DRAW)
        takes = list(take_actions(Facts(state))) if pile_can_be_taken(state) and hand_may_take(state) else []
        if not state.stock and may_decline(engine, state, bool(takes)):
            out.append(DECLINE)
        out += takes
    else:
        f = Facts(state)
        if state.last_card_red_three:
            out.append(END_TURN)  # stock.last-card.red-three: meld or not, then end the turn
        elif may_discard(f, state.question == "yes" and can_go_out(state)):
            if f.red_threes or (f.rules.discard_empty_pile_no_aces_sevens and not state.pile):
                out += [_DISCARDS[c] for c in f.distinct if discard_allowed(f, c)]
            else:  # discard_allowed holds for every card: no red three, no empty-pile restriction
                out += [_DISCARDS[c] for c in f.distinct]
        out += meld_actions(f)
        out += special_hands(f)
        if state.rules.meld_sequences:
            out += sequence_melds(engine, f)
    return out


def meld_actions(f: Facts) -> Iterator[Meld]:
    if f.initial_apart:
        yield from (Meld(f.groups(parts)) for parts in modern_initial_melds(f))
        return
    yield from one_rank_melds(f)
    yield from wild_meld_melds(f)
    if not f.melded:
        yield from (Meld(f.groups(parts)) for parts in initial_meld_sets(f, ()))
    yield from (Meld(f.groups(parts)) for parts in all_but_one(f, None) if len(parts) > 1)


def special_hands(f: Facts) -> Iterator[SpecialHand]:
    """modern.special-hand.*: each special hand the hand makes without one of its cards, that card
    being the discard, while the side has not melded."""
    kinds = f.rules.special_hands
    if not kinds or f.melded or f.hand_size != special_hand_size(f.rules) + 1:
        return
    state = f.state
    for c in sorted(state.hand, key=_KEY.__getitem__):
        if not state.hand[c]:
            continue
        rest = state.hand.copy()
        rest[c] -= 1
        cards = list(rest.elements())
        for kind in kinds:
            if is_special_hand(kind, cards, f.rules):
                yield SpecialHand(kind, c)


def one_rank_melds(f: Facts) -> Iterator[Meld]:
    """Every legal meld of one rank: any number of its naturals with any wild cards by kind (or
    wild cards alone on a meld of the side). The rules depend on how many cards of each sort are
    laid, so each (naturals, wild cards) count is checked once, then spelled out by wild kind.

    For a side that has melded, a rank's melds depend only on the rank's naturals in hand, its
    meld (size, wild cards, closed), the hand's wild cards and whether the wild-card meld is open,
    as long as every meld leaves the player two cards or more: those lists are kept in a table
    (the same ranks come back position after position)."""
    by_count = f.wilds_by_count(f.rules.meld_max_wilds)
    wild_counts = [n for n in range(len(by_count)) if by_count[n]]  # how many wild cards one group can hold
    melds = f.melds
    # (a rank without a meld of the side needs meld_min_naturals naturals; a meld of the side with
    # no natural in hand takes wild cards alone, so only when the hand holds some)
    min_naturals = f.rules.meld_min_naturals
    ranks = [rank for rank, cards in f.naturals.items() if len(cards) >= min_naturals or rank in melds]
    if f.wild_key:
        ranks += [rank for rank in melds if rank not in f.naturals and rank != WILD_MELD]
    if f.melded:
        table = _rank_table(f)
        roomy = f.hand_size - wild_counts[-1] - 1  # a rank with fewer naturals leaves two cards or more
        wild_key = bool(f.wild_key)
        closed = f.closed
        for rank in ranks:
            cards = f.naturals.get(rank, ())
            if len(cards) >= roomy:
                yield from _rank_melds(f, rank, cards, by_count, wild_counts)
                continue
            existing = melds.get(rank)
            key = (rank, tuple(cards), -1 if existing is None else len(existing),
                   wild_key and existing is not None and _wilds_in(f, existing), rank in closed)
            listed = table.get(key)
            if listed is None:
                listed = table[key] = tuple(_rank_melds(f, rank, cards, by_count, wild_counts))
            yield from listed
        return
    for rank in ranks:
        yield from _rank_melds(f, rank, f.naturals.get(rank, ()), by_count, wild_counts)


_RANK_TABLES: dict[tuple[int, tuple[Card, ...], bool], tuple[VariantRules, dict[object, tuple[Meld, ...]]]] = {}


def _rank_table(f: Facts) -> dict[object, tuple[Meld, ...]]:
    """The table of one-rank melds for the variant, the hand's wild cards and the state of the
    side's wild-card meld (built as positions come; dropped whole when it grows large)."""
    key = (id(f.rules), f.wild_key, f.wild_meld_open)
    entry = _RANK_TABLES.get(key)
    if entry is None or entry[0] is not f.rules:
        entry = bounded(_RANK_TABLES)[key] = (f.rules, {})
    return bounded(entry[1])


def _wilds_in(f: Facts, cards: Sequence[Card]) -> int:
    """How many wild cards a meld holds."""
    wild = f.rules.cards_wild_ranks
    return sum(map(wild.__contains__, map(_RANK_OF, cards)))


_RANK_OF = attrgetter("rank")


def _rank_melds(f: Facts, rank: str, cards: Sequence[Card], by_count: list[list[tuple[WildVector, int, tuple[Card, ...]]]],
                wild_counts: list[int]) -> Iterator[Meld]:
    """The legal melds of one rank (see one_rank_melds)."""
    rules = f.rules
    melds = f.melds
    hand_size = f.hand_size
    canastas = f.canastas
    initial = not f.melded
    open_after = f.wild_meld_open  # one group of a natural rank does not change the wild-card meld
    value = f.natural_value(rank) if initial else 0  # (only the initial meld counts)
    if initial:
        best_wilds = max((value for _, _, value in f.wild_choices(rules.meld_max_wilds)), default=0)
        if len(cards) * value + best_wilds < f.minimum and hand_size - len(cards) - sum(f.wild_avail) > 1:
            return  # initial.table: this rank cannot reach the minimum, nor go out concealed
    counts = wild_counts[:1] if rank == "3" else wild_counts
    for k in range(0 if rank in melds else rules.meld_min_naturals, len(cards) + 1):
        naturals = tuple(cards[:k])
        tag = rank if k == 0 else None
        for n in counts:
            if not group_is_legal(f, rank, k, n, initial):
                continue
            left = hand_size - k - n
            canasta = completes_canasta(f, rank, k + n)
            if not cards_left_allowed(f, left, canastas + canasta, rank == "3", left == 0, open_after):
                continue
            for _, wild_value, wilds in by_count[n]:
                if initial and not reaches_minimum(f, k * value + wild_value) and not concealed_exception(
                    f, left, canastas + canasta, canasta
                ):
                    continue  # (a side that has melded has no minimum to reach)
                yield _one_group_meld(wilds + naturals if f.wilds_first else _in_order(f, wilds + naturals), tag)


def wild_meld_melds(f: Facts) -> Iterator[Meld]:
    """modern.wild-meld.allowed: a side that has melded starts its wild-card meld (three wild cards
    or more) or adds to it, up to the meld's size limit, with any wild cards by kind."""
    if not f.rules.meld_wild_only_melds or not f.wild_avail:
        return
    size = f.wild_meld_size
    by_count = f.wilds_by_count(min(f.max_cards - size, sum(f.wild_avail)))
    for n in range(1, len(by_count)):
        if not by_count[n] or not group_is_legal(f, WILD_MELD, 0, n):
            continue
        left = f.hand_size - n
        canasta = completes_canasta(f, WILD_MELD, n)
        if cards_left_allowed(f, left, f.canastas + canasta, False, left == 0, size + n < f.rules.canasta_min_cards):
            for _, _, wilds in by_count[n]:
                yield _one_group_meld(_in_order(f, wilds))


def _new_meld_options(f: Facts, exclude: str | None) -> list[list[Part]]:
    """For a side without melds: the legal new melds of each rank of naturals (not threes)."""
    options = []
    choices = f.wild_choices(f.rules.meld_max_wilds)
    for rank, cards in f.naturals.items():
        if rank == exclude or rank == "3":
            continue
        parts = [
            f.part(rank, k, choice) for k in range(f.rules.meld_min_naturals, len(cards) + 1) for choice in choices
            if group_is_legal(f, rank, k, choice[1])
        ]
        if parts:
            options.append(parts)
    return options


def initial_meld_sets(f: Facts, fixed: tuple[Part, ...], counted: int = 0, extra_cards: int = 0) -> Iterator[tuple[Part, ...]]:
    """Initial melds of several ranks (besides the ``fixed`` part of a take) in which every added
    group is needed to reach the minimum, leaving the player two cards or more (fewer: see
    all_but_one). ``extra_cards`` come to the hand with the take."""
    options = _new_meld_options(f, fixed[0].rank if fixed else None)
    avail = f.wild_avail
    need_parts = 1 if fixed else 2
    hand_cards = f.hand_size + extra_cards - sum(p.cards for p in fixed)

    def extend(index: int, chosen: tuple[Part, ...], total: int, used: int, wilds: WildVector) -> Iterator[tuple[Part, ...]]:
        for i in range(index, len(options)):
            for part in options[i]:
                spent = tuple(a + b for a, b in zip(wilds, part.wilds, strict=True))
                if any(s > a for s, a in zip(spent, avail, strict=True)):
                    continue
                now = total + part.value
                picked = (*chosen, part)
                if now < f.minimum:
                    yield from extend(i + 1, picked, now, used + part.cards, spent)
                elif len(picked) >= need_parts and hand_cards - used - part.cards >= 2 and all(now - p.value < f.minimum for p in picked):
                    yield (*fixed, *picked)

    yield from extend(0, (), counted, 0, fixed[0].wilds if fixed else f.no_wilds)


def _stuck_cards(f: Facts, skip: str | None) -> list[str | int]:
    """The card classes (ranks) of which some card fits no meld this turn; -1 for red threes."""
    rules = f.rules
    stuck: list[str | int] = [-1] * f.red_threes
    for rank, cards in f.naturals.items():
        if rank != skip and rank not in f.melds and len(cards) < rules.meld_min_naturals:
            stuck += [rank] * len(cards)
    return stuck


def all_but_one(f: Facts, top: Part | None, rest: int = 0) -> Iterator[tuple[Part, ...]]:
    """The legal melds of several ranks (or takes with the top card's part ``top``, ``rest`` more
    cards of the pile coming to the hand) that leave the player at most one card and that cannot
    be split into a listed first step and a later rest (see :func:`_can_begin`): every card of the
    hand but at most one is laid, the wild cards spread over the melds in every allowed way."""
    rules = f.rules
    if f.state.question == "no":
        return  # out.ask.binding: no going out, so no action may leave one card or none
    threes_wait = rules.black_three_meld_only_going_out
    if f.melded and top is None and f.hand_size - 1 > 2 and (
        not threes_wait or len(f.naturals.get("3", ())) != 1 or sum(1 for rank in f.naturals if rank != "3") > 1
    ):
        return  # more than two cards laid: some group can go first (the "splittable" test below)
    stuck = _stuck_cards(f, top.rank if top else None)
    if len(stuck) + rest > 1 or -1 in stuck:
        return
    keeps: list[str | int | None] = [None] if rest or not stuck else []
    if not rest:
        keeps += stuck or [*f.naturals, *range(len(f.wild_kinds))]
    for keep in keeps:
        naturals = {rank: len(cards) - (keep == rank) for rank, cards in f.naturals.items()}
        avail = tuple(n - (keep == i) for i, n in enumerate(f.wild_avail))
        kept = 0 if keep is None else 1
        if top is not None:
            if naturals.pop(top.rank, 0) != top.k or any(w > a for w, a in zip(top.wilds, avail, strict=True)):
                continue
            avail = tuple(a - w for a, w in zip(avail, top.wilds, strict=True))
        if any(n and rank not in f.melds and n < rules.meld_min_naturals for rank, n in naturals.items()):
            continue
        laid = f.hand_size - kept
        if f.melded:
            # Splittable unless every group that may go first would leave at most one card.
            threes = naturals.get("3", 0) if threes_wait else 0
            free = sum(1 for rank, n in naturals.items() if n and not (threes_wait and rank == "3"))
            if laid > 2 and not (threes and threes <= 1 - kept and free <= 1):
                continue
        elif top is None:
            counted = sum(n * f.natural_value(r) for r, n in naturals.items() if r != "3")
            counted += sum(n * v for n, v in zip(avail, f.wild_values, strict=True))
            if counted >= 2 * f.minimum:
                continue  # some group could be left for later
        targets = [(rank, n) for rank, n in naturals.items() if n]
        targets += [(rank, 0) for rank in f.melds if not naturals.get(rank) and rank != "3" and (top is None or rank != top.rank)]
        for spread in _spread(f, targets, avail):
            parts = [
                Part(rank, n, wilds, sum(wilds), n * f.natural_value(rank) + sum(a * b for a, b in zip(wilds, f.wild_values, strict=True)))
                for (rank, n), wilds in zip(targets, spread, strict=True) if n or any(wilds)
            ]
            if top is not None:
                parts.insert(0, top)
            if len(parts) < 2 or not all(group_is_legal(f, p.rank, p.k + p.top, p.n_wilds) for p in parts):
                continue
            if _can_begin(f, parts, parts, rest, top) and not any(
                _can_begin(f, parts, first, rest, top) for first in _first_steps(f, parts, top)
            ):
                yield tuple(parts)


def _first_steps(f: Facts, parts: list[Part], top: Part | None) -> Iterator[list[Part]]:
    """The sub-actions that could be laid first: one group (a side with melds), or all but one
    group, or all but the black threes (an initial meld; a take keeps its top card's group)."""
    if f.melded:
        yield from ([p] for p in parts)
        return
    for drop in parts:
        if drop is not top:
            yield [p for p in parts if p is not drop]
    if any(p.rank == "3" for p in parts):
        yield [p for p in parts if p.rank != "3"]


def _can_begin(f: Facts, parts: list[Part], first: list[Part], rest: int, top: Part | None) -> bool:
    """Whether ``first`` (a part of the action ``parts``, or all of it) is legal on its own."""
    if not first:
        return False
    left = f.hand_size - sum(p.cards for p in first) + rest
    made = [completes_canasta(f, p.rank, p.k + p.top + p.n_wilds) for p in first]
    canastas = f.canastas + sum(made)
    counted = sum(p.value for p in first)
    if top is not None:
        if not reaches_minimum(f, counted + (f.top_value if f.rules.initial_meld_pile_top_counts else 0)):
            return False
    elif not reaches_minimum(f, counted) and not concealed_exception(
            f, left, canastas, any(m and p.rank not in f.melds for m, p in zip(made, first, strict=True))):
        return False
    wild_meld = f.wild_meld_size + sum(p.cards for p in first if p.rank == WILD_MELD)
    open_after = 0 < wild_meld < f.rules.canasta_min_cards
    return cards_left_allowed(f, left, canastas, any(p.rank == "3" for p in first), left == 0, open_after)


def _spread(f: Facts, targets: list[tuple[str, int]], avail: WildVector) -> Iterator[list[WildVector]]:
    """Every way to lay all ``avail`` wild cards over the targets (none on threes), at most the
    wild-card limit on each (the wild-card meld: up to its size limit)."""
    caps = [_wild_cap(f, rank) for rank, _ in targets]
    if sum(avail) > sum(caps):
        return
    choices = {cap: f.wild_choices(cap) for cap in set(caps)}

    def place(i: int, left: WildVector) -> Iterator[list[WildVector]]:
        if i == len(targets):
            if not any(left):
                yield []
            return
        if sum(left) > sum(caps[i:]):
            return
        for wilds, _, _ in choices[caps[i]]:
            if any(w > a for w, a in zip(wilds, left, strict=True)):
                continue
            rest = tuple(a - w for a, w in zip(left, wilds, strict=True))
            for tail in place(i + 1, rest):
                yield [wilds, *tail]

    yield from place(0, avail)


def _wild_cap(f: Facts, rank: str) -> int:
    """How many wild cards one action may lay on ``rank`` at most (before the finer checks)."""
    if rank == "3" or (rank == "7" and f.rules.meld_sevens_no_wilds):
        return 0
    if rank == WILD_MELD:
        return min(f.max_cards - f.wild_meld_size, sum(f.wild_avail))
    return f.rules.meld_max_wilds


# --- Modern American's initial meld ------------------------------------------------------------------
def modern_initial_melds(f: Facts) -> Iterator[tuple[Part, ...]]:
    """The initial melds of a side whose initial meld differs from its later melds (Modern
    American). Every group of the action is one that could not be laid later in the same turn
    with the same effect: dropping it makes the rest no legal initial meld (the count, the natural
    meld, black threes only going out), or it holds wild cards a later meld could not take
    (modern.aces.wilds-initial-only, modern.meld.wild-after-five). Each group is any legal new meld
    (any number of naturals, any wild cards by kind), the wild-card meld included."""
    rules = f.rules
    natural_meld = rules.initial_meld_natural_meld_required
    if natural_meld and not any(rank != "3" and len(cards) >= rules.meld_min_cards for rank, cards in f.naturals.items()):
        return  # modern.initial.natural-meld: no rank of the hand makes a natural meld, so no initial meld
    options: list[list[Part]] = []
    for rank, cards in f.naturals.items():
        if rank == "3" and rules.black_three_meld_only_going_out:
            continue  # black threes: only going out, see _initial_with_threes
        parts = [
            f.part(rank, k, choice) for k in range(rules.meld_min_naturals, len(cards) + 1)
            for choice in f.wild_choices(rules.meld_max_wilds) if group_is_legal(f, rank, k, choice[1], True)
        ]
        if parts:
            options.append(parts)
    if rules.meld_wild_only_melds:
        parts = [
            Part(WILD_MELD, 0, v, n, value) for v, n, value in f.wild_choices(min(f.max_cards, sum(f.wild_avail)))
            if group_is_legal(f, WILD_MELD, 0, n)
        ]
        if parts:
            options.append(parts)
    # What the groups still to choose can add at most: their naturals (the most of each rank), and
    # the wild cards not yet spent (each wild card goes to one group only).
    best_value = [max(p.k * f.natural_value(p.rank) for p in parts) for parts in options]
    best_cards = [max(p.k for p in parts) for parts in options]
    reach_value = [sum(best_value[i:]) for i in range(len(options) + 1)]
    reach_cards = [sum(best_cards[i:]) for i in range(len(options) + 1)]
    #: whether options[i:] still offer a natural meld (modern.initial.natural-meld)
    naturals_left = [any(not p.n_wilds and p.k >= rules.meld_min_cards and p.rank != WILD_MELD for q in options[i:] for p in q)
                     for i in range(len(options) + 1)]
    avail = f.wild_avail
    values = f.wild_values

    def extend(index: int, chosen: tuple[Part, ...], counted: int, laid: int, wilds: WildVector, natural: bool) -> Iterator[tuple[Part, ...]]:
        if natural_meld and not natural and not naturals_left[index]:
            return  # modern.initial.natural-meld can no longer be met
        wild_value = sum((a - w) * v for a, w, v in zip(avail, wilds, values, strict=True))
        wild_cards = sum(avail) - sum(wilds)
        if counted + reach_value[index] + wild_value < f.minimum and f.hand_size - laid - reach_cards[index] - wild_cards > 1:
            return  # neither the minimum nor a concealed going out can be reached any more
        for i in range(index, len(options)):
            for part in options[i]:
                spent = tuple(map(add, wilds, part.wilds))
                if any(map(gt, spent, avail)):
                    continue
                picked = (*chosen, part)
                now = counted + part.value
                if _some_group_to_spare(f, picked, now):
                    continue  # so in every action containing these groups
                if _initial_is_legal(f, picked) and not any(_deferrable(f, picked, g) for g in picked):
                    yield picked
                yield from extend(i + 1, picked, now, laid + part.cards, spent,
                                  natural or (not part.n_wilds and part.k >= rules.meld_min_cards and part.rank != WILD_MELD))

    yield from extend(0, (), 0, 0, f.no_wilds, False)
    yield from _initial_with_threes(f)


def _some_group_to_spare(f: Facts, parts: tuple[Part, ...], counted: int) -> bool:
    """A group that every legal initial meld containing these groups (they hold no black threes)
    could lay later: the rest still counts the minimum, holds a natural meld, and the group is a
    natural meld beside another one, the wild-card meld, or wild cards a later meld may take."""
    naturals = [p for p in parts if not p.n_wilds and p.rank not in (WILD_MELD, "3")]
    for p in parts:
        if counted - p.value < f.minimum:
            continue
        if p.rank in (WILD_MELD, "3") or (p.n_wilds and _later(f, p)) or (not p.n_wilds and len(naturals) > 1):
            return True
    return False


def _later(f: Facts, part: Part) -> bool:
    """Whether a group of a natural rank could be laid after the side's initial meld as it is."""
    return group_is_legal(f, part.rank, part.k, part.n_wilds, False)


def _deferrable(f: Facts, parts: tuple[Part, ...], group: Part) -> bool:
    """The initial meld ``parts`` is the same as ``parts`` without ``group`` followed by a meld of
    ``group`` in the same turn: the rest is a legal initial meld and the group may follow it."""
    rest = tuple(p for p in parts if p is not group)
    if not rest or (group.n_wilds and group.rank != WILD_MELD and not _later(f, group)):
        return False
    return _initial_is_legal(f, rest)


def _initial_is_legal(f: Facts, parts: tuple[Part, ...]) -> bool:
    """The action laying ``parts`` (each a legal new meld) as the side's initial meld:
    modern.wild-meld.blocks-wilds, initial.table (or initial.concealed-exception),
    modern.initial.natural-meld, then the cards left (cards_left_allowed)."""
    rules = f.rules
    size = rules.canasta_min_cards
    wild_meld = next((p for p in parts if p.rank == WILD_MELD), None)
    wild_open = wild_meld is not None and wild_meld.cards < size
    if wild_open and rules.meld_wild_meld_blocks_wilds and any(p.n_wilds and p is not wild_meld for p in parts):
        return False
    if rules.initial_meld_natural_meld_required and not any(
        not p.n_wilds and p.rank not in (WILD_MELD, "3") and p.k >= rules.meld_min_cards for p in parts
    ):
        return False
    left = f.hand_size - sum(p.cards for p in parts)
    canastas = sum(1 for p in parts if p.cards >= size)
    if sum(p.value for p in parts) < f.minimum and not concealed_exception(f, left, canastas, canastas > 0):
        return False
    return cards_left_allowed(f, left, canastas, any(p.rank == "3" for p in parts), left == 0, wild_open)


def _initial_with_threes(f: Facts) -> Iterator[tuple[Part, ...]]:
    """Initial melds with black threes (black3.meld.going-out-only): every card of the hand but
    one is laid (any one kept), the wild cards spread over the melds in every allowed way; every
    other group is needed (without it the threes would stay), the threes when the rest is no
    legal initial meld."""
    rules = f.rules
    threes = len(f.naturals.get("3", ()))
    if threes < rules.meld_min_cards or not rules.black_three_meld_only_going_out:
        return
    keeps: list[str | int] = [*f.naturals, *range(len(f.wild_kinds))]
    for keep in keeps:
        naturals = {rank: len(cards) - (keep == rank) for rank, cards in f.naturals.items()}
        avail = tuple(n - (keep == i) for i, n in enumerate(f.wild_avail))
        if naturals["3"] < rules.meld_min_cards or any(0 < n < rules.meld_min_naturals for n in naturals.values()):
            continue
        targets = [(rank, n) for rank, n in naturals.items() if n]
        if rules.meld_wild_only_melds:
            targets.append((WILD_MELD, 0))
        for spread in _spread(f, targets, avail):
            parts = tuple(
                Part(rank, n, wilds, sum(wilds), n * f.natural_value(rank) + sum(a * b for a, b in zip(wilds, f.wild_values, strict=True)))
                for (rank, n), wilds in zip(targets, spread, strict=True) if n or any(wilds)
            )
            if all(group_is_legal(f, p.rank, p.k, p.n_wilds, True) for p in parts) and _initial_is_legal(f, parts) and not any(
                _deferrable(f, parts, g) for g in parts
            ):
                yield parts


def take_actions(f: Facts) -> Iterator[TakePile]:
    """Every take of the pile (up to the equivalence in this module's docstring)."""
    if not pile_can_be_taken(f.state):
        return
    state = f.state
    rules = f.rules
    top = state.pile[-1]
    f.top_value = rules.value(top)
    frozen = is_frozen_for(state, f.side)
    rest = len(state.pile) - 1 - sum(1 for c in state.pile[:-1] if c.rank == "3" and c.is_red_three)
    rank = top.rank
    top_counted = f.top_value if rules.initial_meld_pile_top_counts else 0
    by_count = f.wilds_by_count(rules.meld_max_wilds)
    naturals = f.naturals.get(rank, ())
    for k in range(len(naturals) + 1):
        for n in range(len(by_count)):
            if not by_count[n] or not take_cards_allowed(rules, f.melds, rank, k, n, frozen) or not group_is_legal(f, rank, k + 1, n, not f.melded):
                continue
            left = f.hand_size - k - n + rest
            canasta = completes_canasta(f, rank, k + 1 + n)
            if f.melded:
                if cards_left_allowed(f, left, f.canastas + canasta, False, left == 0, f.wild_meld_open):
                    for _, _, wild_cards in by_count[n]:
                        yield TakePile(_in_order(f, wild_cards + tuple(naturals[:k])))
                continue
            for wilds, wild_value, wild_cards in by_count[n]:
                cards = _in_order(f, wild_cards + tuple(naturals[:k]))
                part = Part(rank, k, wilds, n, k * f.natural_value(rank) + wild_value, True)
                counted = part.value + top_counted
                if counted >= f.minimum and left >= 2:
                    yield TakePile(cards)
                elif counted < f.minimum:
                    for parts in initial_meld_sets(f, (part,), counted, rest):
                        yield TakePile(cards, f.groups(parts[1:], wilds))
                if rest <= 1:
                    for parts in all_but_one(f, part, rest):
                        yield TakePile(cards, f.groups(parts[1:], wilds))


def _in_order(f: Facts, cards: tuple[Card, ...]) -> tuple[Card, ...]:
    """Cards in canonical order (wild cards come first unless a variant makes other ranks wild)."""
    return cards if f.wilds_first else tuple(sorted(cards, key=_KEY.__getitem__))
