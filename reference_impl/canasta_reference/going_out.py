"""Whether the player to move could still go out this turn (for out.ask.binding: after partner's
"yes" the player must go out, which only binds a player who is able to)."""

from __future__ import annotations

from collections.abc import Iterator
from operator import add, attrgetter
from typing import NamedTuple

from canasta_conformance.contract.cards import RANKS
from canasta_conformance.contract.model import WILD_MELD
from canasta_conformance.contract.sequences import is_sequence_key, rank_order, span
from canasta_conformance.contract.variant_rules import VariantRules

from .move_rules import wilds_may_join
from .state import HandState

_RANK_OF = attrgetter("rank")
#: the rank at each place of a sequence's rank order
_RANK_AT = {rank_order(rank): rank for rank in RANKS}


class _Target(NamedTuple):
    """A meld the remaining cards could go to: its size with the hand's naturals, the wild cards
    it needs to be a legal new meld, and how many wild cards it can take."""

    size: int
    need: int
    cap: int


def can_go_out(state: HandState) -> bool:
    """Some set of meld actions empties the hand, or leaves one card to discard, and leaves the
    side with enough canastas (wild cards placed as well as the limits allow). The hand is read
    as counts by rank: which card of a rank is kept for the discard does not matter.

    With meld.sequences the natural cards may also go to sequences: every way of laying them in
    sequences (sequence_layouts) is tried, each read as the ranks it takes out of the hand and the
    sequence canastas the side then holds. (Read once a position: the listing and the discard
    both ask.)"""
    derived = state.derived
    if derived.can_go_out is None:
        derived.can_go_out = _can_go_out(state)
    return derived.can_go_out


def _can_go_out(state: HandState) -> bool:
    rules = state.rules
    hand = _Hand(state)
    if rules.meld_sequences and not (state.took_pile and not state.has_melded(state.side)):
        if hand.unplaceable(rules) + _stranded(state, hand) > 1:
            return False  # more cards than the one discard that no meld and no sequence can take
        return any(_by_ranks(state, hand, removed, canastas) for removed, canastas in sequence_layouts(state))
    # (a side that took the pile without having melded: its initial meld counts the whole laying)
    return _by_ranks(state, hand, {}, 0)


class _Hand:
    """The hand read once by rank: naturals and wild cards by rank, red threes, and (for a side
    that took the pile, whose count matters in _fully_meldable) its count and each rank's value."""

    def __init__(self, state: HandState) -> None:
        rules = state.rules
        wild = rules.cards_wild_ranks
        view = state.view(state.turn)  # (the hand read by rank, kept by the state: hand_view)
        self.naturals: dict[str, int] = {rank: len(cards) for rank, cards in view.naturals.items()}
        self.wild_kinds: dict[str, int] = {rank: len(cards) for rank, cards in view.wilds.items()}
        self.card_value: dict[str, int] = {}
        self.red_threes = view.red_threes
        self.value = 0
        if state.took_pile:  # (red threes count nothing)
            for kinds in (view.naturals, view.wilds):
                for rank, cards in kinds.items():
                    self.card_value[rank] = rules.value(cards[0])
                    self.value += sum(map(rules.value, cards))
        self.wilds = sum(self.wild_kinds.values())
        #: the side's melds of one rank
        self.melds = state.melds[state.side]
        if rules.meld_sequences:
            self.melds = {key: cards for key, cards in self.melds.items() if not is_sequence_key(key)}
        self._wild = wild
        self._side: dict[str, tuple[int, int]] | None = None
        #: ranks no card may join (modern.meld.closed-rank) and the most cards a meld holds
        #: (modern.meld.max-seven; None: no limit)
        self.closed = state.closed_ranks()
        self.max_cards = rules.meld_max_cards
        #: the side's wild-card meld, in cards (modern.wild-meld.allowed; 0: none)
        self.wild_meld = len(self.melds.get(WILD_MELD, ()))
        #: whatever the player lays makes the side's initial meld (where wild cards may go differs:
        #: modern.aces.wilds-initial-only, modern.meld.wild-after-five)
        self.initial = not state.has_melded(state.side)

    @property
    def side(self) -> dict[str, tuple[int, int]]:
        """The side's melds of one rank, each as (cards, wild cards) (read once, when needed; the
        wild-card meld apart)."""
        if self._side is None:
            wild = self._wild
            self._side = {
                rank: (len(cards), sum(map(wild.__contains__, map(_RANK_OF, cards))))
                for rank, cards in self.melds.items() if rank != WILD_MELD
            }
        return self._side

    def unplaceable(self, rules: VariantRules) -> int:
        """How many cards stay in the hand however the rest is laid: red threes, and black threes
        too few to meld with no meld of threes (no sequence takes a three)."""
        threes = self.naturals.get("3", 0)
        stuck = threes if 0 < threes < rules.meld_min_cards and "3" not in self.side else 0
        return self.red_threes + stuck


def _by_ranks(state: HandState, hand: _Hand, removed: dict[str, int], sequence_canastas: int) -> bool:
    """can_go_out for the melds of one rank: the ``hand`` without the naturals ``removed`` (by
    rank, laid in sequences), the side holding ``sequence_canastas`` sequence canastas."""
    rules = state.rules
    naturals = dict(hand.naturals)
    wild_kinds = hand.wild_kinds
    card_value = hand.card_value
    red_threes = hand.red_threes
    value = hand.value
    for rank, n in removed.items():
        naturals[rank] -= n
        value -= n * card_value.get(rank, 0)
        if not naturals[rank]:
            del naturals[rank]
    wilds = hand.wilds
    canastas_needed = rules.going_out_canastas_required - sequence_canastas
    if _canastas_within_reach(state, naturals, wilds, hand) < canastas_needed:
        return False  # out.requires-canasta: decided before any way of melding the hand is tried
    if red_threes:  # a red three is never melded: it can only be the discard
        return red_threes == 1 and _fully_meldable(state, canastas_needed, naturals, wilds, value, hand)
    # A rank that cannot start a meld (too few naturals and no meld of the side) stays in the hand:
    # only the discard can take it, so two such ranks (or one with two cards) mean no.
    melds = hand.melds  # (a natural rank's meld: the melds' shapes, hand.side, are read only when needed)
    stuck = [rank for rank, n in naturals.items() if rank in hand.closed or (rank not in melds and (
        n < rules.meld_min_naturals or (rank == "3" and n < rules.meld_min_cards)))]
    if len(stuck) > 1:
        return False
    if not stuck and not rules.going_out_final_discard == "required" and _fully_meldable(state, canastas_needed, naturals, wilds, value, hand):
        return True
    for rank in stuck or naturals:
        n = naturals[rank]
        rest = {r: k for r, k in naturals.items() if r != rank}
        if n > 1:
            rest[rank] = n - 1
        if _fully_meldable(state, canastas_needed, rest, wilds, value - card_value.get(rank, 0), hand):
            return True
    return not stuck and any(_fully_meldable(state, canastas_needed, naturals, wilds - 1, value - card_value.get(rank, 0), hand) for rank in wild_kinds)


def _canastas_within_reach(state: HandState, naturals: dict[str, int], wilds: int, hand: _Hand) -> int:
    """At most how many canastas the side can hold after melding from the hand: each is a meld of
    the side (of one rank, or its wild-card meld) reaching the canasta size with the hand's naturals
    of that rank and at most all its ``wilds`` wild cards, or a new wild-card meld of them
    (canasta.definition, modern.wild-meld.allowed)."""
    rules = state.rules
    size = rules.canasta_min_cards
    melds = hand.melds
    within = 0  # (each rank of the hand's naturals, then each meld of another rank)
    for rank, n in naturals.items():
        if len(melds.get(rank, ())) + n + wilds >= size:
            within += 1
    for rank, cards in melds.items():
        if rank not in naturals and len(cards) + wilds >= size:
            within += 1
    return within + (rules.meld_wild_only_melds and not hand.wild_meld and wilds >= size)


def _fully_meldable(state: HandState, canastas_needed: int, naturals: dict[str, int], wilds: int, value: int, hand: _Hand) -> bool:
    """Whether the naturals (by rank) and ``wilds`` wild cards, counting ``value``, can all be melded,
    given the side's melds (``hand.side``: cards, wild cards by rank) and the ranks closed to every
    side, leaving the side ``canastas_needed`` canastas."""
    rules = state.rules
    side, closed, max_cards, initial = hand.side, hand.closed, hand.max_cards, hand.initial
    if not hand.melds and state.took_pile and value < state.initial_minimum():
        return False
    targets: list[_Target] = []
    for rank, n in naturals.items():
        size, ex_wilds = side.get(rank, (0, 0))
        if rank in closed:
            return False  # modern.meld.closed-rank: no card joins a closed rank
        if not size and (n < rules.meld_min_naturals or (rank == "3" and n < rules.meld_min_cards)):
            return False
        need = 0 if size else max(0, rules.meld_min_cards - n)
        room = 0 if rank == "3" or not wilds_may_join(rules, rank, size - ex_wilds + n, initial) else rules.meld_max_wilds - ex_wilds
        cap = _wild_room(rules, room, size + n, n + size - 2 * ex_wilds, max_cards)
        if need > cap:
            return False
        targets.append(_Target(size + n, need, cap))
    for rank, (size, ex_wilds) in side.items():
        if rank in closed:  # takes no card, but a canasta of the side still counts
            targets.append(_Target(size, 0, 0))
        elif rank not in naturals:
            room = rules.meld_max_wilds - ex_wilds if wilds_may_join(rules, rank, size - ex_wilds, initial) else 0
            targets.append(_Target(size, 0, max(0, _wild_room(rules, room, size, size - 2 * ex_wilds, max_cards))))
    if not rules.meld_wild_only_melds:
        return _wilds_placed(rules, targets, wilds, canastas_needed)
    no_room = [t._replace(cap=0) for t in targets]
    return any(
        _wilds_placed(rules, targets if others_take else no_room, wilds - laid, canastas_needed - canasta)
        for laid, canasta, others_take in _wild_meld_ways(rules, hand, wilds)
    )


def _wild_meld_ways(rules: VariantRules, hand: _Hand, wilds: int) -> Iterator[tuple[int, bool, bool]]:
    """The ways the side's wild-card meld can end the turn, given ``wilds`` wild cards in hand: how
    many of them it takes, whether it is then a canasta, and whether the other melds may take wild
    cards too. modern.wild-meld.allowed (a new one holds three cards or more, at most
    meld.max_cards), modern.out.unfinished-wild-meld (no going out while it is short of a canasta)
    and modern.wild-meld.blocks-wilds (while a wild-card meld from before the turn is short of a
    canasta, no other meld takes a wild card; one started this turn may follow the others')."""
    before = hand.wild_meld
    size = rules.canasta_min_cards
    if before >= size:
        yield 0, True, True
        return
    most = wilds if hand.max_cards is None else min(wilds, hand.max_cards - before)
    for laid in range(most + 1):
        after = before + laid
        if not after:
            yield 0, False, True
        elif before or laid >= rules.meld_min_cards:
            canasta = after >= size
            if canasta or not rules.going_out_unfinished_wild_meld_blocks:
                yield laid, canasta, canasta or not before or not rules.meld_wild_meld_blocks_wilds


def _wilds_placed(rules: VariantRules, targets: list[_Target], wilds: int, canastas_needed: int) -> bool:
    """Whether ``wilds`` wild cards can all go to the ``targets`` (each its need at least, its cap at
    most) leaving the side ``canastas_needed`` canastas among them."""
    needed = sum(t.need for t in targets)
    if needed > wilds or wilds > sum(t.cap for t in targets):
        return False  # every wild card must find a meld with room for it
    # The spare wild cards complete as many canastas as they can: cheapest completions first (any
    # spare left over fits somewhere, since the total room was checked above).
    canastas, costs = 0, []
    for t in targets:
        short = rules.canasta_min_cards - (t.size + t.need)
        if short <= 0:
            canastas += 1
        elif t.need + short <= t.cap:
            costs.append(short)
    spare = wilds - needed
    for cost in sorted(costs):
        if cost > spare:
            break
        spare -= cost
        canastas += 1
    return canastas >= canastas_needed


def _wild_room(rules: VariantRules, cap: int, size: int, ratio_room: int, max_cards: int | None) -> int:
    """How many wild cards a meld of ``size`` cards may still take: ``cap`` by meld.max-wilds, no
    more than ``ratio_room`` by meld.wild-ratio, and none past modern.meld.max-seven (a meld
    already past it takes no card: -1)."""
    if rules.meld_wilds_not_more_than_naturals:
        cap = min(cap, ratio_room)
    if max_cards is not None:
        cap = min(cap, max_cards - size)
    return cap


def _stranded(state: HandState, hand: _Hand) -> int:
    """How many natural cards (threes apart) no meld can take however the rest is laid: a card of a
    rank that cannot start a meld (too few naturals, or closed) nor join one of the side, and that
    no sequence can take either (meld.sequence.*): the hand's cards of its suit make no run of
    three or more through it, nor reach a sequence of the side. Trying every layout of the
    sequences answers the same; this necessary condition is read at once, even from a large hand."""
    rules = state.rules
    held, existing = _sequence_material(state)
    wild, closed, side = rules.cards_wild_ranks, hand.closed, hand.side
    stranded = 0
    for card, n in state.hand.items():
        rank = card.rank
        if not n or rank == "3" or rank in wild:
            continue
        if rank not in closed and (rank in side or hand.naturals.get(rank, 0) >= rules.meld_min_naturals):
            continue  # a meld of its rank may take it
        orders = held.get(card.suit or "", set())
        order = rank_order(rank)
        if order in orders:
            low = high = order
            while low - 1 in orders:
                low -= 1
            while high + 1 in orders:
                high += 1
            if high - low + 1 >= rules.meld_min_cards or any(high + 1 == a or low - 1 == b for a, b in existing.get(card.suit or "", ())):
                continue  # a sequence may take it
        stranded += n
    return stranded


def _sequence_material(state: HandState) -> tuple[dict[str, set[int]], dict[str, list[tuple[int, int]]]]:
    """By suit: the rank orders of the hand's cards a sequence may hold, and the side's sequences
    (lowest and highest order)."""
    rules = state.rules
    held: dict[str, set[int]] = {}
    for c, n in state.hand.items():
        if n and c.suit is not None and rules.sequence_cards_fault((c,)) is None:
            held.setdefault(c.suit, set()).add(rank_order(c.rank))
    existing: dict[str, list[tuple[int, int]]] = {}
    for key, cards in state.melds[state.side].items():
        if is_sequence_key(key):
            existing.setdefault(cards[0].suit or "", []).append(span(cards))
    return held, existing


def sequence_layouts(state: HandState) -> Iterator[tuple[dict[str, int], int]]:
    """Every way the hand's natural cards can lie in the side's sequences at the end of a turn
    (meld.sequence.*), as the naturals it takes by rank and how many sequence canastas the side
    then holds: in each suit, each sequence of the side extended at either end by the hand's
    cards of its suit (or not), and new sequences of three to seven of them, no two of the
    sequences touching (meld.sequence.separate). Ways taking the same ranks and making the same
    canastas are one (the melds of one rank do not see suits), so suits are combined by that.
    The ways are made as they are asked for, the last suit's last (a caller that stops at the first
    way that goes out does not pay for the thousands a large hand has)."""
    rules = state.rules
    held, existing = _sequence_material(state)
    width = len(_RANK_AT)
    none = (0,) * width
    by_suit = [
        [(tuple(1 if o in orders else 0 for o in range(width)), made)
         for orders, made in _suit_layouts(held.get(suit, set()), sorted(existing.get(suit, [])), rules.canasta_min_cards, rules.meld_min_cards)]
        for suit in sorted({*held, *existing})
    ] or [[(none, 0)]]
    seen: set[tuple[tuple[int, ...], int]] = {(none, 0)}  # (naturals taken by rank order, canastas)
    for layouts in by_suit[:-1]:
        seen = {(tuple(map(add, taken, vector)), canastas + made) for taken, canastas in seen for vector, made in layouts}
    given: set[tuple[tuple[int, ...], int]] = set()
    for taken, canastas in seen:
        for vector, made in by_suit[-1]:
            way = (tuple(map(add, taken, vector)), canastas + made)
            if way not in given:
                given.add(way)
                yield {_RANK_AT[order]: n for order, n in enumerate(way[0]) if n}, way[1]


def _suit_layouts(held: set[int], existing: list[tuple[int, int]], size: int, min_cards: int) -> set[tuple[frozenset[int], int]]:
    """The sequences of one suit at the end of a turn: the rank orders the hand lays in them and
    how many of them are canastas. ``existing``: the side's sequences of the suit (lowest and
    highest order, by lowest), each kept and maybe extended; new ones from the ``held`` orders.
    The sequences are chosen from the lowest up, each starting two orders or more above the
    previous one's end, so every layout comes once."""
    grown = []  # each existing sequence with every extension the hand allows
    for low, high in existing:
        room = size - (high - low + 1)
        below = [n for n in range(room + 1) if all(low - i in held for i in range(1, n + 1))]
        above = [n for n in range(room + 1) if all(high + i in held for i in range(1, n + 1))]
        grown.append([(low - b, high + a) for b in below for a in above if b + a <= room])
    new = [
        (a, b) for a in sorted(held) for b in range(a + min_cards - 1, a + size)
        if all(o in held for o in range(a, b + 1)) and not any(a <= high + 1 and b >= low - 1 for low, high in existing)
    ]
    out: set[tuple[frozenset[int], int]] = set()
    _place_runs(existing, grown, new, size, out, -2, 0, frozenset(), 0)
    return out


def _place_runs(existing: list[tuple[int, int]], grown: list[list[tuple[int, int]]], new: list[tuple[int, int]], size: int,
                out: set[tuple[frozenset[int], int]], after: int, index: int, laid: frozenset[int], canastas: int) -> None:
    """_suit_layouts' layouts from the existing sequence ``index`` on, the sequences laid so far
    ending at ``after`` (a module function, not a closure calling itself: that is a reference
    cycle, left for the garbage collector)."""
    if index == len(existing):
        out.add((laid, canastas))
    else:
        low, high = existing[index]
        for a, b in grown[index]:
            if a > after + 1:
                extra = frozenset(range(a, low)) | frozenset(range(high + 1, b + 1))
                _place_runs(existing, grown, new, size, out, b, index + 1, laid | extra, canastas + (b - a + 1 >= size))
    for a, b in new:
        if a > after + 1 and (index == len(existing) or b < existing[index][0] - 1):
            _place_runs(existing, grown, new, size, out, b, index, laid | frozenset(range(a, b + 1)), canastas + (b - a + 1 >= size))
