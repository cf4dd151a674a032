"""Whether the player to move could still go out this turn (for out.ask.binding: after partner's
"yes" the player must go out, which only binds a player who is able to)."""

from __future__ import annotations

from dataclasses import dataclass

from .state import HandState


@dataclass(frozen=True)
class _Target:
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
    naturals: dict[str, int] = {}
    wild_kinds: dict[str, int] = {}
    card_value: dict[str, int] = {}
    red_threes = 0
    value = 0
    for card, n in state.hand.items():
        if not n:
            continue
        value += rules.value(card) * n
        if card.is_red_three:
            red_threes += n
            continue
        kinds = wild_kinds if card.rank in rules.cards_wild_ranks else naturals
        kinds[card.rank] = kinds.get(card.rank, 0) + n
        card_value[card.rank] = rules.value(card)
    wilds = sum(wild_kinds.values())
    if red_threes:  # a red three is never melded: it can only be the discard
        return red_threes == 1 and _fully_meldable(state, naturals, wilds, value)
    if not rules.going_out_final_discard == "required" and _fully_meldable(state, naturals, wilds, value):
        return True
    for rank, n in naturals.items():
        rest = {r: k for r, k in naturals.items() if r != rank}
        if n > 1:
            rest[rank] = n - 1
        if _fully_meldable(state, rest, wilds, value - card_value[rank]):
            return True
    return any(_fully_meldable(state, naturals, wilds - 1, value - card_value[rank]) for rank in wild_kinds)


def _fully_meldable(state: HandState, naturals: dict[str, int], wilds: int, value: int) -> bool:
    """Whether the naturals (by rank) and ``wilds`` wild cards, counting ``value``, can all be melded."""
    rules = state.rules
    side_melds = state.melds[state.side]
    if not side_melds and state.took_pile and value < rules.initial_minimum(state.scores[state.side]):
        return False
    targets: dict[str, _Target] = {}
    for rank, n in naturals.items():
        existing = side_melds.get(rank, [])
        ex_wilds = sum(1 for c in existing if rules.is_wild(c))
        total_naturals = n + len(existing) - ex_wilds
        if not existing:
            if n < rules.meld_min_naturals or (rank == "3" and n < rules.meld_min_cards):
                return False
        need = 0 if existing else max(0, rules.meld_min_cards - n)
        cap = 0 if rank == "3" else rules.meld_max_wilds - ex_wilds
        if rules.meld_wilds_not_more_than_naturals:
            cap = min(cap, total_naturals - ex_wilds)
        if need > cap:
            return False
        targets[rank] = _Target(len(existing) + n, need, cap)
    for rank, existing in side_melds.items():
        if rank not in targets:
            ex_wilds = sum(1 for c in existing if rules.is_wild(c))
            cap = rules.meld_max_wilds - ex_wilds
            if rules.meld_wilds_not_more_than_naturals:
                cap = min(cap, len(existing) - 2 * ex_wilds)
            targets[rank] = _Target(len(existing), 0, max(0, cap))
    needed = sum(t.need for t in targets.values())
    if needed > wilds or wilds > sum(t.cap for t in targets.values()):
        return False  # every wild card must find a meld with room for it
    # The spare wild cards complete as many canastas as they can: cheapest completions first (any
    # spare left over fits somewhere, since the total room was checked above).
    canastas, costs = 0, []
    for t in targets.values():
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
    return canastas >= rules.going_out_canastas_required
