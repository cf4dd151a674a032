"""Starting a hand from an explicit deck order (setup.*, upcard.*, red3.dealt.*).

The deck is given top first, so any hand replays identically in every engine: the deal goes one
card at a time clockwise from the dealer's left, the next card is the upcard (covered while it is
a card of ``upcard.cover``), then every player, from the dealer's left, exposes the red threes
dealt to them and draws replacements, which may be red threes too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from canasta_conformance.contract.cards import Card, excess_cards
from canasta_conformance.contract.variant_rules import VariantRules

from .state import RED_THREES, HandState, turn_cycle


def upcard_is_covered(card: Card, rules: VariantRules) -> bool:
    """upcard.cover-special: a wild card or a red three (or any three, in some variants) is covered."""
    if rules.is_wild(card):
        return "wild" in rules.upcard_cover
    if card.is_red_three:
        return "red_three" in rules.upcard_cover
    if card.is_black_three:
        return "black_three" in rules.upcard_cover
    return False


def deal_hand(
    rules: VariantRules, variant: str, options: dict[str, Any], deck: Sequence[Card], dealer: int, scores: Sequence[int] = (),
    hand_number: int = 1, first_player: int | None = None,
) -> HandState:
    sitting_out = sitting_out_seats(rules, hand_number)
    order = deal_order(rules, dealer, sitting_out)
    if rules.deal_first_player == "random":  # setup.first-player: the deal says who was drawn
        if first_player is None or first_player not in order:
            raise ValueError("this variant chooses the first player at random: the deal names first_player (a seat in play)")
    elif first_player not in (None, order[0]):
        raise ValueError(f"in this variant the dealer's left (seat {order[0]}) plays first, not seat {first_player}")
    excess = excess_cards(Counter(deck), rules.deck_packs, rules.deck_jokers)
    if excess:
        card, seen, allowed = excess[0]
        raise ValueError(f"the deck holds {card.token} {seen} times, the variant's deck only {allowed}")
    needed = len(order) * rules.deal_hand_size + sum(rules.talon_sizes) + 1
    if len(deck) < needed:
        raise ValueError(f"the deal needs at least {needed} cards, the deck has {len(deck)}")
    stock = list(reversed(deck))  # top last, so pop() draws the top card
    hands: list[Counter[Card]] = [Counter() for _ in range(rules.players)]
    for _ in range(rules.deal_hand_size):
        for seat in order:
            hand, card = hands[seat], stock.pop()
            hand[card] = hand.get(card, 0) + 1  # (Counter's += calls its Python __missing__ for each new card)
    talons = [[stock.pop() for _ in range(size)] for size in rules.talon_sizes]  # modern.deal.talons
    pile: list[Card] = []
    if rules.upcard_enabled:  # upcard.turn
        pile.append(stock.pop())
        if rules.upcard_mode == "return_to_stock":
            # upcard.return-variant: a special upcard goes back under the stock and the next card
            # is turned, until a natural card appears (at most once round the stock)
            for _ in range(len(stock)):
                if not upcard_is_covered(pile[-1], rules):
                    break
                stock.insert(0, pile.pop())
                pile.append(stock.pop())
        while stock and upcard_is_covered(pile[-1], rules):
            pile.append(stock.pop())
    covered_black_three = any(c.is_black_three for c in pile[:-1])  # upcard.black-three
    state = HandState(
        rules=rules, variant=variant, options=dict(options), hands=hands, melds=[{} for _ in range(rules.sides)],
        red_threes=[[] for _ in range(rules.players if rules.red_three_per_player else rules.sides)], pile=pile, stock=stock,
        turn=order[0] if first_player is None else first_player, phase="draw",
        dealer=dealer, scores=list(scores) or [0] * rules.sides, hand_number=hand_number, talons=talons,
        covered_black_three=covered_black_three, sitting_out=sitting_out,
    )
    # red3.dealt.expose, red3.dealt.order: at once, seat by seat from the dealer's left, or (Hoyle)
    # on each player's first turn.
    for seat in order if rules.red_three_dealt_timing == "before_play" else [state.turn]:
        expose_red_threes(state, seat)
    return state


def deal_order(rules: VariantRules, dealer: int, sitting_out: frozenset[int]) -> list[int]:
    """setup.deal.method: one card at a time to the left, from the dealer's left round to the
    dealer; in a hand where a player sits out (setup.sit-out), round the hand's turn cycle,
    starting after the dealer (or, when the dealer sits out, with the first player in play to the
    dealer's left)."""
    if not sitting_out:
        return [(dealer + k) % rules.players for k in range(1, rules.players + 1)]
    cycle = turn_cycle(rules.players, rules.sides, sitting_out)
    if dealer in cycle:
        start = (cycle.index(dealer) + 1) % len(cycle)
    else:
        first = next(seat for seat in ((dealer + k) % rules.players for k in range(1, rules.players)) if seat in cycle)
        start = cycle.index(first)
    return [cycle[(start + k) % len(cycle)] for k in range(len(cycle))]


def sitting_out_seats(rules: VariantRules, hand_number: int) -> frozenset[int]:
    """table.sit-out: the larger side's players sit out in rotation, table.sit_out of them each
    hand: in hand n the ones from position (n - 1) * table.sit_out in the side's seat order."""
    if not rules.table_sit_out:
        return frozenset()
    sides = [[s for s in range(rules.players) if s % rules.sides == side] for side in range(rules.sides)]
    larger = max(sides, key=len)
    start = (hand_number - 1) * rules.table_sit_out
    return frozenset(larger[(start + k) % len(larger)] for k in range(rules.table_sit_out))


def expose_red_threes(state: HandState, seat: int) -> None:
    """A player lays down the red threes in hand and draws a replacement for each (red3.chain:
    a replacement that is a red three is laid down and replaced too)."""
    hand = state.hands[seat]
    threes = [c for c in hand.elements() if c in RED_THREES]
    while threes:
        for card in threes:
            state.remove_card(seat, card)
            state.red_threes[state.red_three_index(seat)].append(card)
            if state.stock:
                state.add_card(seat, state.stock.pop())
        threes = [c for c in hand.elements() if c in RED_THREES]
