"""Whether the player to move could still go out this turn (for out.ask.binding: after partner's
"yes" the player must go out, which only binds a player who is able to)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from operator import attrgetter
from typing import NamedTuple

from canasta_conformance.contract.cards import RANKS, Card
from canasta_conformance.contract.sequences import is_sequence_key, rank_order, sequence_key, span

from .sequences import touches
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
    as counts by rank: which card of a rank is kept for the discard does not matter."""
    rules = state.rules
    wild = rules.cards_wild_ranks
    naturals: dict[str, int] = {}
    wild_kinds: dict[str, int] = {}
    card_value: dict[str, int] = {}
    red_threes = 0
    value = 0
    counted = state.took_pile  # the count matters only for a side that took the pile (_fully_meldable)
    for card, n in state.hand.items():
        if not n:
            continue
        if counted:
            value += rules.value(card) * n
        rank = card.rank
        if rank == "3" and card.is_red_three:
            red_threes += n
            continue
        kinds = wild_kinds if rank in wild else naturals
        kinds[rank] = kinds.get(rank, 0) + n
        if counted:
            card_value[rank] = rules.value(card)
    wilds = sum(wild_kinds.values())
    canastas_needed = rules.going_out_canastas_required
    melds = state.melds[state.side]
    if rules.meld_sequences:
        # meld.sequences: the side's sequence canastas count; the hand's cards that extend them may
        # go there, and runs of the hand may start new sequences (each tried as one more way)
        sequences = {key: cards for key, cards in melds.items() if is_sequence_key(key)}
        extended = _with_sequences_extended(state, sequences)
        if extended is not None and can_go_out(extended):
            return True  # the hand's cards that extend the side's sequences laid there first
        if any(can_go_out(started) for started in _with_sequence_started(state, sequences)):
            return True
        canastas_needed -= sum(1 for cards in sequences.values() if len(cards) >= rules.canasta_min_cards)
        melds = {key: cards for key, cards in melds.items() if key not in sequences}
    if _canastas_within_reach(state, naturals, wilds, melds) < canastas_needed:
        return False  # out.requires-canasta: decided before any way of melding the hand is tried
    side = {rank: (len(cards), sum(map(wild.__contains__, map(_RANK_OF, cards)))) for rank, cards in melds.items()}
    if red_threes:  # a red three is never melded: it can only be the discard
        return red_threes == 1 and _fully_meldable(state, canastas_needed, naturals, wilds, value, side)
    # A rank that cannot start a meld (too few naturals and no meld of the side) stays in the hand:
    # only the discard can take it, so two such ranks (or one with two cards) mean no.
    stuck = [rank for rank, n in naturals.items() if rank not in side and (
        n < rules.meld_min_naturals or (rank == "3" and n < rules.meld_min_cards))]
    if len(stuck) > 1:
        return False
    if not stuck and not rules.going_out_final_discard == "required" and _fully_meldable(state, canastas_needed, naturals, wilds, value, side):
        return True
    for rank in stuck or naturals:
        n = naturals[rank]
        rest = {r: k for r, k in naturals.items() if r != rank}
        if n > 1:
            rest[rank] = n - 1
        if _fully_meldable(state, canastas_needed, rest, wilds, value - card_value.get(rank, 0), side):
            return True
    return not stuck and any(_fully_meldable(state, canastas_needed, naturals, wilds - 1, value - card_value.get(rank, 0), side) for rank in wild_kinds)


def _canastas_within_reach(state: HandState, naturals: dict[str, int], wilds: int, melds: dict[str, list[Card]]) -> int:
    """At most how many canastas the side can hold after melding from the hand: each is the meld
    of one rank reaching the canasta size with the hand's naturals of that rank and at most all
    its ``wilds`` wild cards (canasta.definition); ``melds`` are the side's melds of one rank."""
    size = state.rules.canasta_min_cards
    return sum(1 for rank in {*naturals, *melds} if len(melds.get(rank, ())) + naturals.get(rank, 0) + wilds >= size)


def _fully_meldable(state: HandState, canastas_needed: int, naturals: dict[str, int], wilds: int, value: int, side: dict[str, tuple[int, int]]) -> bool:
    """Whether the naturals (by rank) and ``wilds`` wild cards, counting ``value``, can all be melded,
    given the side's melds as (cards, wild cards) by rank, leaving the side ``canastas_needed`` canastas."""
    rules = state.rules
    if not side and state.took_pile and value < state.initial_minimum():
        return False
    targets: list[_Target] = []
    for rank, n in naturals.items():
        size, ex_wilds = side.get(rank, (0, 0))
        if not size and (n < rules.meld_min_naturals or (rank == "3" and n < rules.meld_min_cards)):
            return False
        need = 0 if size else max(0, rules.meld_min_cards - n)
        cap = 0 if rank == "3" else rules.meld_max_wilds - ex_wilds
        if rules.meld_wilds_not_more_than_naturals:
            cap = min(cap, n + size - 2 * ex_wilds)
        if need > cap:
            return False
        targets.append(_Target(size + n, need, cap))
    for rank, (size, ex_wilds) in side.items():
        if rank not in naturals:
            cap = rules.meld_max_wilds - ex_wilds
            if rules.meld_wilds_not_more_than_naturals:
                cap = min(cap, size - 2 * ex_wilds)
            targets.append(_Target(size, 0, max(0, cap)))
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


def _with_sequences_extended(state: HandState, sequences: dict[str, list[Card]]) -> HandState | None:
    """The hand after laying on the side's sequences every card that extends one at either end
    (meld.sequence.extend: one card of each rank, up to a canasta's size; never a card that would
    also touch another sequence of its suit, meld.sequence.separate); None when no card does."""
    rules = state.rules
    hand = state.hand.copy()
    side = dict(state.melds[state.side])
    laid = False
    runs = {key: list(cards) for key, cards in sequences.items()}
    for key, run in runs.items():
        suit = run[0].suit
        low, high = span(run)
        size = len(run)
        for step, start in ((-1, low - 1), (1, high + 1)):
            order = start
            while len(run) < rules.canasta_min_cards and order in _RANK_AT:
                c = Card(_RANK_AT[order], suit)
                if not hand[c] or not rules.is_natural(c) or any(touches([c], other) for k, other in runs.items() if k != key):
                    break
                hand[c] -= 1
                run.append(c)
                order += step
        if len(run) > size:
            laid = True
            del side[key]
            side[sequence_key(run)] = run
    return _after_laying(state, hand, side) if laid else None


def _with_sequence_started(state: HandState, sequences: dict[str, list[Card]]) -> Iterator[HandState]:
    """The hand after starting one new sequence of the side with a run of its cards (meld.sequence.*:
    three to seven natural cards of one suit in consecutive rank order, touching no sequence of
    the side of that suit, meld.sequence.separate). A side that took the pile without having
    melded is left to the checks above (its initial meld counts the whole laying)."""
    rules = state.rules
    if state.took_pile and not state.has_melded(state.side):
        return
    held: dict[str, set[int]] = {}
    for c, n in state.hand.items():
        if n and c.suit is not None and rules.is_natural(c):
            held.setdefault(c.suit, set()).add(rank_order(c.rank))
    for suit, orders in held.items():
        for low in sorted(orders):
            run = [Card(_RANK_AT[low], suit)]
            while len(run) < rules.canasta_min_cards:
                nxt = rank_order(run[-1].rank) + 1
                if nxt not in orders:
                    break
                run.append(Card(_RANK_AT[nxt], suit))
                if rules.sequence_fault(run, new=True) is None and not any(touches(run, seq) for seq in sequences.values()):
                    hand = state.hand.copy()
                    hand.subtract(run)
                    yield _after_laying(state, hand, {**state.melds[state.side], sequence_key(run): list(run)})


def _after_laying(state: HandState, hand: Counter[Card], side_melds: dict[str, list[Card]]) -> HandState:
    """A copy of the position in which the player to move holds ``hand`` and the side's melds are
    ``side_melds`` (for trying a way of going out; the position itself is not changed)."""
    hands = list(state.hands)
    hands[state.turn] = +hand
    melds = list(state.melds)
    melds[state.side] = side_melds
    return replace(state, hands=hands, melds=melds)

