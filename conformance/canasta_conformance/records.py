"""Game records: a whole game as deck orders and actions, written as JSON and replayed in any
engine (through the engine protocol) to the same positions and score sheets."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .cards import Card
from .diff import full_position_diff, score_diff
from .engine import DealSetup, Engine
from .model import Action, NextHand, Position, ScoreSheet, action_from_json, format_action

RECORD_FORMAT = "canasta-game-record"


@dataclass
class HandRecord:
    dealer: int
    deck: tuple[Card, ...]
    first_player: int | None = None
    actions: list[Action] = field(default_factory=list)
    final: Position | None = None
    score: ScoreSheet | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "dealer": self.dealer, "deck": [c.token for c in self.deck], "first_player": self.first_player,
            "actions": [a.to_json() for a in self.actions],
            "final": self.final.to_json() if self.final else None,
            "score": self.score.to_json() if self.score else None,
        }


@dataclass
class GameRecord:
    variant: str
    options: dict[str, Any]
    seed: int
    hands: list[HandRecord] = field(default_factory=list)

    @property
    def final_sheet(self) -> ScoreSheet | None:
        return self.hands[-1].score if self.hands else None

    def to_json(self) -> dict[str, Any]:
        sheet = self.final_sheet
        return {
            "format": RECORD_FORMAT, "version": 1, "variant": self.variant, "options": self.options, "seed": self.seed,
            "hands": [h.to_json() for h in self.hands],
            "final_scores": [s.cumulative for s in sheet.sides] if sheet else [],
            "game_over": bool(sheet and sheet.game_over), "winner": sheet.winner if sheet else None,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        if not isinstance(data, dict):
            raise ValueError(f"a {RECORD_FORMAT} is a JSON object, not a {type(data).__name__}")
        if data.get("format") != RECORD_FORMAT:
            raise ValueError(f"not a {RECORD_FORMAT} (format {data.get('format')!r})")
        record = cls(data["variant"], dict(data.get("options") or {}), int(data.get("seed", 0)))
        for index, hand in enumerate(data["hands"]):
            deck = tuple(action_from_json({"type": "next_hand", "deck": hand["deck"]}).deck)  # type: ignore[union-attr]
            actions = [action_from_json(a, f"hands[{index}].actions[{i}]") for i, a in enumerate(hand["actions"])]
            final = Position.from_json(hand["final"]) if hand.get("final") else None
            score = ScoreSheet.from_json(hand["score"]) if hand.get("score") else None
            record.hands.append(HandRecord(int(hand["dealer"]), deck, hand.get("first_player"), actions, final, score))
        return record


class ReplayError(AssertionError):
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
