"""The score sheet of a finished hand (score.*)."""

from __future__ import annotations

from canasta_conformance.model import ScoreSheet, SideScore

from .state import HandState


def score_hand(state: HandState) -> ScoreSheet:
    rules = state.rules
    sheets = []
    for side in range(rules.sides):
        melds = state.melds[side].values()
        canastas = 0
        for cards in melds:  # canasta.bonus
            if len(cards) >= rules.canasta_min_cards:
                natural = not any(rules.is_wild(c) for c in cards)
                canastas += rules.canasta_natural_bonus if natural else rules.canasta_mixed_bonus
        red_threes = red_three_score(state, side)
        going_out = 0
        ended = state.ended
        if ended is not None and ended.reason == "went_out" and ended.seat is not None and state.side_of(ended.seat) == side:
            going_out = rules.going_out_bonus + (rules.going_out_concealed_extra_bonus if ended.concealed else 0)  # out.bonus
        melded = sum(rules.value(c) for cards in melds for c in cards)  # score.melded-cards
        in_hand = -sum(rules.value(c) * n for seat in state.seats_of(side) for c, n in state.hands[seat].items())  # score.cards-in-hand
        total = canastas + red_threes + going_out + melded + in_hand  # score.structure
        sheets.append(SideScore(
            canastas=canastas, red_threes=red_threes, going_out=going_out, melded=melded, in_hand=in_hand, total=total,
            cumulative=state.scores[side] + total,
        ))
    return ScoreSheet(tuple(sheets), *game_result([s.cumulative for s in sheets], state))


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


def red_three_score(state: HandState, side: int) -> int:
    """score.red-threes: 100 each, all four together 800 (with more packs: each counts double from
    red_three.doubled_from_count on), minus for a side that has not melded."""
    rules = state.rules
    count = len(state.red_threes[side])
    if count == 0:
        return 0
    if count == rules.all_four:
        value = rules.red_three_all_four_total
    elif count >= rules.red_three_doubled_from_count:
        value = count * rules.red_three_bonus * 2
    else:
        value = count * rules.red_three_bonus
    if rules.red_three_negative_without_meld and not state.melds[side]:
        return -value
    return value
