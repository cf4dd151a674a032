"""The score sheet of a finished hand (score.*)."""

from __future__ import annotations

from canasta_conformance.contract.cards import Card
from canasta_conformance.contract.model import WILD_MELD, ScoreSheet, SideScore
from canasta_conformance.contract.sequences import is_sequence_key
from canasta_conformance.contract.variant_rules import VariantRules

from .state import HandState


def score_hand(state: HandState) -> ScoreSheet:
    rules = state.rules
    sheets = []
    ended = state.ended
    special_side = state.side_of(ended.seat) if ended is not None and ended.special_hand and ended.seat is not None else None
    for side in range(rules.sides):
        # the entry of a side (in the three-player game: of a player, whose red threes and score
        # are personal, scoring the partnership's melds and hands once the lone hand has formed)
        area = state.side_of(side) if state.lone_hand is not None else side
        melds = state.melds[area]
        canastas = sum(canasta_bonus(rank, cards, rules) for rank, cards in melds.items())  # canasta.bonus
        red_threes = red_three_score(state, side, area)
        going_out = 0
        if ended is not None and ended.reason == "went_out" and ended.seat is not None and state.side_of(ended.seat) == area:
            going_out = rules.going_out_bonus + (rules.going_out_concealed_extra_bonus if ended.concealed else 0)  # out.bonus
        melded = sum(rules.value(c) for cards in melds.values() for c in cards)  # score.melded-cards
        if rules.score_melds_require_canasta and not any(len(cards) >= rules.canasta_min_cards for cards in melds.values()):
            melded = 0  # modern.score.melds-need-canasta
        in_hand = -sum(hand_value(c, rules) * n for seat in state.seats_of(area) for c, n in state.hands[seat].items())  # score.cards-in-hand
        special_hand = 0
        if area == special_side and ended is not None and ended.special_hand is not None:
            # modern.special-hand.score: the hand's value in place of the going-out bonus and card values
            special_hand, going_out, melded, in_hand = rules.special_hands[ended.special_hand], 0, 0, 0
        penalties = -sum(unfinished_penalty(rank, cards, rules) for rank, cards in melds.items())
        penalties -= sum(p.points for p in state.penalties if state.side_of(p.seat) == area)  # penalty.* (table penalties)
        total = canastas + red_threes + going_out + melded + in_hand + special_hand + penalties  # score.structure
        sheets.append(SideScore(
            canastas=canastas, red_threes=red_threes, going_out=going_out, melded=melded, in_hand=in_hand,
            special_hand=special_hand, penalties=penalties, total=total, cumulative=state.scores[side] + total,
        ))
    return ScoreSheet(tuple(sheets), *game_result([s.cumulative for s in sheets], state))


def hand_value(card: Card, rules: VariantRules) -> int:
    """score.cards-in-hand, modern.score.black-threes: a black three left in hand may cost more than its card value."""
    return rules.black_three_in_hand_value if card.is_black_three else rules.value(card)


def canasta_bonus(rank: str, cards: list[Card], rules: VariantRules) -> int:
    """canasta.bonus, canasta.sequence, modern.score.sevens-canasta, modern.score.aces-canasta,
    modern.score.wild-canasta."""
    if len(cards) < rules.canasta_min_cards:
        return 0
    if is_sequence_key(rank):  # canasta.sequence: a sequence of seven cards
        return rules.canasta_sequence_bonus
    wilds = [c for c in cards if rules.is_wild(c)]
    if rank == WILD_MELD:
        base = rules.canasta_wild_card_bonus or 0
        if all(not c.is_joker for c in cards) and rules.canasta_wild_card_all_twos_bonus is not None:
            return rules.canasta_wild_card_all_twos_bonus
        if sum(1 for c in cards if c.is_joker) >= rules.deck_jokers and rules.canasta_wild_card_four_jokers_bonus is not None:
            return rules.canasta_wild_card_four_jokers_bonus
        return base
    if wilds:
        return rules.canasta_mixed_bonus
    if rank == "7" and rules.canasta_sevens_bonus is not None:
        return rules.canasta_sevens_bonus
    if rank == "A" and rules.canasta_aces_bonus is not None:
        return rules.canasta_aces_bonus
    return rules.canasta_natural_bonus


def unfinished_penalty(rank: str, cards: list[Card], rules: VariantRules) -> int:
    """modern.score.unfinished-special: a meld of sevens, a natural meld of aces or a wild-card meld
    that is not a canasta when the hand ends."""
    if len(cards) >= rules.canasta_min_cards:
        return 0
    if rank == WILD_MELD:
        return rules.penalty_unfinished_wild_meld
    if rank == "7":
        return rules.penalty_unfinished_sevens
    if rank == "A" and not any(rules.is_wild(c) for c in cards):
        return rules.penalty_unfinished_aces
    return 0


def game_result(cumulative: list[int], state: HandState) -> tuple[bool, int | None]:
    """game.target, game.final-hand-played-out, game.rounds-limit, game.higher-total-wins,
    game.tie: the game ends after the hand in which a side reaches the target (or after the
    variant's last hand); the higher total wins; a tie at the top plays another hand, or is a
    draw (no winner) where the variant says so."""
    rules = state.rules
    best = max(cumulative)
    last_hand = rules.game_max_hands is not None and state.hand_number >= rules.game_max_hands
    if best < rules.game_target and not last_hand:
        return False, None
    leaders = [side for side, score in enumerate(cumulative) if score == best]
    if len(leaders) > 1:
        return (True, None) if rules.game_tie == "draw" else (False, None)
    return True, leaders[0]


def red_three_score(state: HandState, side: int, area: int | None = None) -> int:
    """score.red-threes: 100 each, all four together 800 (with more packs: each counts double from
    red_three.doubled_from_count on; where red_three.per_player, only if one player holds all four), minus for a side that has not melded (or, where
    red_three.positive_requires_canasta, that has no canasta), at most red_three.negative_cap.
    ``area`` is the meld area that decides plus or minus (in the three-player game the
    partnership's, while the red threes are the player's own)."""
    rules = state.rules
    area = side if area is None else area
    threes = state.side_red_threes(side)
    count = len(threes)
    if count == 0:
        return 0
    if rules.red_three_per_player and count == rules.all_four and not any(
        len(state.red_threes[seat]) == count for seat in range(rules.players)
    ):
        value = count * rules.red_three_bonus  # all four, but split between partners (Regal)
    elif count == rules.all_four:
        value = rules.red_three_all_four_total
    elif count >= rules.red_three_doubled_from_count:
        value = count * rules.red_three_bonus * 2
    else:
        value = count * rules.red_three_bonus
    ended = state.ended
    special = ended is not None and ended.special_hand is not None and ended.seat is not None and state.side_of(ended.seat) == area
    if rules.red_three_negative_without_meld and not state.melds[area] and not special:  # a special hand counts as a meld
        return _negative(value, rules.red_three_negative_cap)
    if rules.red_three_positive_requires_canasta and not state.canastas(area) and not special:
        return _negative(value, rules.red_three_negative_cap)  # house rule: plus only with a canasta
    return value


def _negative(value: int, cap: int | None) -> int:
    """Red threes counted minus, no more than red_three.negative_cap."""
    return -value if cap is None else -min(value, cap)
