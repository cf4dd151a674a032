"""The three-player game (three_player.lone_hand): the lone hand and the temporary partnership.

Everyone starts alone. The first player to take the discard pile plays alone for the rest of the
hand and the two others become partners (setup.three-player.lone-hand): from then on they pool
their melds, kept in the lower seat's meld area, where cards of one rank make one meld
(meld.one-per-rank), while red threes and cumulative scores stay with each player. A player who
goes out before anyone took the pile is the lone hand for the score (setup.three-player.out-first).
"""

from __future__ import annotations

from .state import HandState


def form_lone_hand(state: HandState, seat: int) -> None:
    """``seat`` plays alone; the two others pool their melds in the lower seat's area."""
    if not state.rules.three_player_lone_hand or state.lone_hand is not None:
        return
    partners = [s for s in range(state.rules.players) if s != seat]
    state.lone_hand = seat
    target = state.own_index(min(partners))
    for other in partners:
        area = state.own_index(other)
        if area == target:
            continue
        pooled = state.melds[target]
        for rank, cards in state.melds[area].items():
            pooled.setdefault(rank, []).extend(cards)  # meld.one-per-rank: one meld of a rank
        state.melds[area] = {}
