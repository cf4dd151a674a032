"""Game records: a whole game as deck orders and actions, written as JSON (replayed in any engine
by :mod:`canasta_conformance.running.replay`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .cards import Card
from .model import Action, Position, ScoreSheet, action_from_json

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
            actions = [action_from_json(a, ("hands", index, "actions", i)) for i, a in enumerate(hand["actions"])]
            final = Position.from_json(hand["final"]) if hand.get("final") else None
            score = ScoreSheet.from_json(hand["score"]) if hand.get("score") else None
            record.hands.append(HandRecord(int(hand["dealer"]), deck, hand.get("first_player"), actions, final, score))
        return record
