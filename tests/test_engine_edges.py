"""Edge cases of the reference engine found in review, pinned down."""

from __future__ import annotations

from canasta_conformance.contract.cards import card, cards, full_deck
from canasta_conformance.contract.engine_protocol import DealSetup
from canasta_conformance.contract.model import NextHand, Position
from canasta_reference.engine import ReferenceEngine


def deck_with(seat_hands: dict[int, list[str]], dealer: int, players: int = 4, hand_size: int = 11) -> tuple:
    """A full deck whose deal gives ``seat_hands`` (other cards in canonical order)."""
    rest = list(full_deck())
    hands: dict[int, list] = {}
    for seat, tokens in seat_hands.items():
        hands[seat] = [card(t) for t in tokens]
        for c in hands[seat]:
            rest.remove(c)
    for seat in range(players):
        while len(hands.setdefault(seat, [])) < hand_size:
            hands[seat].append(rest.pop())
    order = [(dealer + k) % players for k in range(1, players + 1)]
    dealt = [hands[seat][i] for i in range(hand_size) for seat in order]
    return tuple(dealt + rest)


def test_hoyle_red_threes_are_laid_down_by_the_actual_first_player():
    deck = deck_with({2: ["3H"]}, dealer=3)
    engine = ReferenceEngine()
    engine.deal(DealSetup("hoyle-bicycle", {"deal.first_player": "random"}, 3, deck, first_player=2))
    position = engine.observe()
    assert position.turn == 2
    assert card("3H") not in position.hands[2]
    assert card("3H") in position.red_threes[0]


def test_a_next_hand_deck_with_too_many_copies_is_malformed():
    engine = ReferenceEngine()
    engine.load(Position.from_json({
        "phase": "over", "ended": {"reason": "went_out", "seat": 0}, "dealer": 3,
        "hands": [[], ["5C"], [], []], "melds": [[["KC", "KC", "KD", "KD", "KH", "KH", "KS"]], []],
        "pile": ["9C"], "stock": [],
    }))
    outcome = engine.apply(NextHand(cards("KH") * 60))
    assert outcome.status == "malformed" and "KH" in outcome.message
