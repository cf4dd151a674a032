"""The discard pile: when it is blocked or frozen, and how its top card may be taken (pile.*)."""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from canasta_conformance.contract.cards import Card
from canasta_conformance.contract.variant_rules import VariantRules

from .errors import Illegal
from .state import BLACK_THREES, RED_THREES, HandState

_RANK_OF = attrgetter("rank")


def frozen_by_contents(state: HandState) -> bool:
    """pile.frozen.by-wild, pile.frozen.by-red3-upcard (and the variants' always-frozen pile and
    freezing black threes): the pile is frozen for everyone (read once a position)."""
    derived = state.derived
    if derived.pile_frozen is None:
        derived.pile_frozen = _frozen_by_contents(state)
    return derived.pile_frozen


def _frozen_by_contents(state: HandState) -> bool:
    rules = state.rules
    if rules.upcard_covered_black_three_freezes and state.covered_black_three:  # upcard.black-three
        return True
    if rules.pile_always_frozen:
        return True
    ranks = set(map(_RANK_OF, state.pile))  # (only wild cards and threes can freeze it)
    if rules.pile_frozen_by_wild and not ranks.isdisjoint(rules.cards_wild_ranks):
        return True
    return "3" in ranks and rules.pile_frozen_by(c for c in state.pile if c.rank == "3")


def is_frozen_for(state: HandState, side: int) -> bool:
    """Frozen for everyone, or (pile.frozen.unmelded-side) against a side without its initial meld."""
    unmelded = state.rules.pile_frozen_for_unmelded_side and not state.has_melded(side)
    return unmelded or frozen_by_contents(state)


def check_top_not_blocked(top: Card, rules: VariantRules) -> None:
    """pile.blocked.wild-top and pile.blocked.black3-top."""
    if rules.is_wild(top):
        raise Illegal("pile.blocked.wild-top", f"the top card {top.token} is wild: the pile cannot be taken")
    if top in BLACK_THREES:
        raise Illegal("pile.blocked.black3-top", f"the top card {top.token} is a black three: the pile cannot be taken")
    if top in RED_THREES:
        raise Illegal("pile.take.top-card-first", f"the top card {top.token} cannot be melded")


def cards_into_hand(pile: Sequence[Card]) -> int:
    """How many cards a take of the pile adds to the hand besides those melded with its top card:
    every card under the top but the red threes, laid face up (red3.from-pile; the top card is
    never a red three)."""
    return len(pile) - 1 - sum(map(pile.count, RED_THREES))


def one_card_rule_applies(state: HandState) -> bool:
    """pile.one-card-rule (and stock.empty.one-card-exception): one card in hand, one in the pile."""
    return state.rules.pile_one_card_rule and len(state.pile) == 1 and state.hand_size() == 1


def check_one_card_rule(state: HandState) -> None:
    """pile.one-card-rule: a one-card hand may not take a one-card pile."""
    if one_card_rule_applies(state):
        raise Illegal("pile.one-card-rule", "a player holding one card may not take a pile of one card")


def check_take_cards(state: HandState, top: Card, cards: Sequence[Card]) -> None:
    """How the top card is melded: with a natural pair when the pile is frozen against the side
    (pile.frozen.*); otherwise as the variant allows (pile.unfrozen.*)."""
    rules = state.rules
    rank, wild = top.rank, rules.cards_wild_ranks
    naturals = wilds = 0  # the cards of the top card's rank, and the wild cards (rules.is_wild)
    for c in cards:
        if c.rank == rank:
            naturals += 1
        if c.rank in wild:
            wilds += 1
    has_meld = top.rank in state.melds[state.side]
    if is_frozen_for(state, state.side):
        if naturals >= 2:
            return
        if not frozen_by_contents(state):
            raise Illegal("initial.pile-natural-pair", f"the side has not melded: the pile is taken only with two natural {top.rank}s from the hand")
        if wilds and naturals == 1:
            raise Illegal("pile.frozen.no-wild-in-pair", "the pile is frozen: a wild card cannot stand in for a natural")
        if not cards and has_meld:
            raise Illegal("pile.frozen.add-not-enough", "the pile is frozen: adding the top card to a meld is not enough")
        raise Illegal("pile.frozen.take-with-natural-pair", f"the pile is frozen: it is taken only with two natural {top.rank}s from the hand")
    ways = rules.pile_take_unfrozen_with
    if naturals >= 2 and "natural_pair" in ways:
        return
    if naturals == 1 and wilds >= 1 and "natural_and_wild" in ways:
        return
    if has_meld and "add_to_meld" in ways:
        return
    if naturals == 0 and wilds >= 2:
        raise Illegal("pile.no-two-wilds", "the top card cannot be taken with wild cards alone")
    if naturals == 1 and wilds >= 1:
        raise Illegal("pile.unfrozen.natural-plus-wild", "in this game a natural and a wild card do not take the pile")
    if has_meld:
        raise Illegal("pile.unfrozen.add-to-meld", "in this game adding the top card to a meld does not take the pile")
    raise Illegal("pile.take.top-card-first", f"the top card {top.token} must be melded with cards from the hand")
