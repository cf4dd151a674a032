"""Replaying a game record in any engine (through the engine protocol) to the same positions and
score sheets."""

from __future__ import annotations

from ..contract.engine_protocol import DealSetup, Engine
from ..contract.errors import CanastaError
from ..contract.model import NextHand, format_action
from ..contract.records import GameRecord
from .diff import full_position_diff, score_diff


class ReplayError(CanastaError):
    pass


def replay(record: GameRecord, engine: Engine) -> int:
    """Replay every hand of ``record`` in ``engine``; raise ReplayError at the first difference.
    Returns the number of actions replayed."""
    actions = 0
    for number, hand in enumerate(record.hands, 1):
        if number == 1:
            engine.deal(DealSetup(record.variant, dict(record.options), hand.dealer, hand.deck, (), hand.first_player))  # type: ignore[attr-defined]
        else:
            outcome = engine.apply(NextHand(hand.deck, hand.first_player))
            if not outcome.accepted:
                raise ReplayError(f"hand {number}: the engine refused to deal the next hand: {outcome}")
        for index, action in enumerate(hand.actions, 1):
            outcome = engine.apply(action)
            if not outcome.accepted:
                raise ReplayError(f"hand {number}, action {index} ({format_action(action)}): {outcome.status} {outcome.rule or ''} {outcome.message}")
            actions += 1
        position = engine.observe()
        if hand.final is not None and position != hand.final:
            raise ReplayError(f"hand {number}: the final position differs:\n" + "\n".join(full_position_diff(hand.final, position)))
        if hand.score is not None:
            sheet = engine.score()
            lines = score_diff([s.to_json() for s in hand.score.sides], sheet)
            if lines or sheet.game_over != hand.score.game_over or sheet.winner != hand.score.winner:
                raise ReplayError(f"hand {number}: the score sheet differs:\n" + "\n".join(lines))
    return actions
