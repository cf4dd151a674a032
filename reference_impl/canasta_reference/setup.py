"""Starting a hand from an explicit deck order (setup.*, upcard.*, red3.dealt.*).

The deck is given top first, so any hand replays identically in every engine: the deal goes one
card at a time clockwise from the dealer's left, the next card is the upcard (covered while it is
a card of ``upcard.cover``), then every player, from the dealer's left, exposes the red threes
dealt to them and draws replacements, which may be red threes too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from canasta_conformance.cards import Card

from .rules import Rules
from .state import HandState


def upcard_is_covered(card: Card, rules: Rules) -> bool:
    """upcard.cover-special: a wild card or a red three (or any three, in some variants) is covered."""
    if rules.is_wild(card):
        return "wild" in rules.upcard_cover
    if card.is_red_three:
        return "red_three" in rules.upcard_cover
    if card.is_black_three:
        return "black_three" in rules.upcard_cover
    return False


def deal_hand(
    rules: Rules, variant: str, options: dict, deck: Sequence[Card], dealer: int, scores: Sequence[int] = (),
    hand_number: int = 1,
) -> HandState:
    if rules.first_player != "dealer_left":
        raise ValueError("a deal from a deck order needs deal.first_player = dealer_left")
    needed = rules.players * rules.hand_size + 1
    if len(deck) < needed:
        raise ValueError(f"the deal needs at least {needed} cards, the deck has {len(deck)}")
    stock = list(reversed(deck))  # top last, so pop() draws the top card
    hands: list[Counter[Card]] = [Counter() for _ in range(rules.players)]
    order = [(dealer + k) % rules.players for k in range(1, rules.players + 1)]  # setup.deal.method
    for _ in range(rules.hand_size):
        for seat in order:
            hands[seat][stock.pop()] += 1
    pile: list[Card] = []
    if rules.upcard_enabled:  # upcard.turn
        pile.append(stock.pop())
        while stock and upcard_is_covered(pile[-1], rules):
            pile.append(stock.pop())
    red_threes: list[list[Card]] = [[] for _ in range(rules.sides)]
    for seat in order:  # red3.dealt.expose, red3.dealt.order
        hand = hands[seat]
        while stock and any(c.is_red_three for c in hand):
            for card in [c for c in hand.elements() if c.is_red_three]:
                hand[card] -= 1
                red_threes[seat % rules.sides].append(card)
                if stock:
                    hand[stock.pop()] += 1
            hand += Counter()  # drop zero counts
            hands[seat] = hand
    return HandState(
        rules=rules, variant=variant, options=dict(options), hands=hands, melds=[{} for _ in range(rules.sides)],
        red_threes=red_threes, pile=pile, stock=stock, turn=order[0], phase="draw", dealer=dealer,
        scores=list(scores) or [0] * rules.sides, hand_number=hand_number,
    )
