"""Special hands of Modern American Canasta (modern.special-hand.*): the shape of each kind.

A special hand is the whole hand but its discard. Its size is the size of a hand after the draw
less the discard: the dealt hand plus the draw count less one (fourteen in Modern American).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from canasta_conformance.contract.cards import Card
from canasta_conformance.contract.model import MELD_RANKS
from canasta_conformance.contract.variant_rules import VariantRules

from .errors import Illegal


def special_hand_size(rules: VariantRules) -> int:
    return rules.deal_hand_size + rules.draw_count - 1


def _is_straight(cards: Sequence[Card], rules: VariantRules) -> bool:
    """One card of each rank from ace to two (the two may be any two) and one joker."""
    ranks = Counter(c.rank for c in cards)
    wanted = Counter({rank: 1 for rank in (*MELD_RANKS, *sorted(rules.cards_wild_ranks))})
    return ranks == wanted


def _pairs(cards: Sequence[Card], rules: VariantRules) -> list[str] | None:
    """The ranks of the pairs the cards make (a rank may make several pairs), or None."""
    ranks = Counter(c.rank for c in cards)
    if any(n % 2 for n in ranks.values()) or any(c.is_red_three for c in cards):
        return None
    return [rank for rank, n in ranks.items() for _ in range(n // 2)]


def _is_pairs(cards: Sequence[Card], rules: VariantRules) -> bool:
    """Pairs of natural cards only."""
    pairs = _pairs(cards, rules)
    return pairs is not None and all(rank not in rules.cards_wild_ranks and rank != "3" for rank in pairs)


def _is_pairs_with_wilds(cards: Sequence[Card], rules: VariantRules) -> bool:
    """Pairs, at least one of twos or of jokers, the others of natural cards."""
    pairs = _pairs(cards, rules)
    if pairs is None or any(rank == "3" for rank in pairs):
        return False
    return any(rank in rules.cards_wild_ranks for rank in pairs)


def _is_garbage(cards: Sequence[Card], rules: VariantRules) -> bool:
    """Natural cards of as many ranks as the variant's garbage shape, so many of each
    (special_hands.garbage_groups: Modern American's two fours and two threes of a kind)."""
    if any(not rules.is_natural(c) for c in cards):
        return False
    return sorted(Counter(c.rank for c in cards).values()) == sorted(rules.special_hands_garbage_groups)


_SHAPES: dict[str, Callable[[Sequence[Card], VariantRules], bool]] = {
    "straight": _is_straight,
    "pairs": _is_pairs,
    "pairs_with_wilds": _is_pairs_with_wilds,
    "garbage": _is_garbage,
}


def _straight_possible(ranks: Mapping[str, int], rules: VariantRules) -> bool:
    """The hand holds a card of every rank of the straight."""
    return all(rank in ranks for rank in (*MELD_RANKS, *rules.cards_wild_ranks))


def _pairs_possible(ranks: Mapping[str, int], rules: VariantRules) -> bool:
    """One rank only has an odd number of cards (the discard's): every other rank makes pairs."""
    return sum(n % 2 for n in ranks.values()) == 1


def _garbage_possible(ranks: Mapping[str, int], rules: VariantRules) -> bool:
    """The hand holds at most one rank more than the garbage shape (the discard's)."""
    return len(ranks) <= len(rules.special_hands_garbage_groups) + 1


_POSSIBLE: dict[str, Callable[[Mapping[str, int], VariantRules], bool]] = {
    "straight": _straight_possible,
    "pairs": _pairs_possible,
    "pairs_with_wilds": _pairs_possible,
    "garbage": _garbage_possible,
}


def may_make_special_hand(kind: str, ranks: Mapping[str, int], rules: VariantRules) -> bool:
    """Whether some card of a hand of these rank counts (``ranks``: rank -> how many) could be the
    discard that leaves a special hand of ``kind``: a necessary condition on the whole hand, read
    once a position so that the hand is tried without each of its cards only when it can succeed."""
    return _POSSIBLE[kind](ranks, rules)


def is_special_hand(kind: str, cards: Sequence[Card], rules: VariantRules) -> bool:
    """modern.special-hand.shape: the cards (the hand without its discard) make a special hand of ``kind``."""
    return len(cards) == special_hand_size(rules) and _SHAPES[kind](cards, rules)


def check_special_hand(kind: str, cards: Sequence[Card], rules: VariantRules) -> None:
    """modern.special-hand.shape (modern.special-hand.kinds defines the shapes)."""
    size = special_hand_size(rules)
    if len(cards) != size:
        raise Illegal("modern.special-hand.shape", f"a special hand is {size} cards besides the discard; the hand has {len(cards)}")
    if not _SHAPES[kind](cards, rules):
        raise Illegal("modern.special-hand.shape", f"the hand without its discard is not a {kind.replace('_', ' ')}")
