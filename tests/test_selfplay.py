"""canasta play on any engine: self-play drives the engine through the engine protocol only."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from canasta_conformance.contract.engine_protocol import Capabilities, DealSetup
from canasta_conformance.contract.model import Action, Outcome, Position, ScoreSheet
from canasta_conformance.contract.records import GameRecord
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.running.replay import replay
from canasta_conformance.tools.selfplay import SelfPlayError, play_game
from canasta_reference import create_engine

TESTS = Path(__file__).resolve().parent


class ProtocolOnly:
    """An engine seen only through the protocol's methods (no attribute of the reference engine's
    internals is reachable), counting the legal-action listings self-play asks for."""

    def __init__(self) -> None:
        self._engine = create_engine()
        self.listings = 0

    def capabilities(self) -> Capabilities:
        caps = self._engine.capabilities()
        return replace(caps, name="protocol-only")

    def load(self, position: Position) -> None:
        self._engine.load(position)

    def deal(self, setup: DealSetup) -> None:
        self._engine.deal(setup)

    def apply(self, action: Action) -> Outcome:
        return self._engine.apply(action)

    def observe(self) -> Position:
        return self._engine.observe()

    def score(self) -> ScoreSheet:
        return self._engine.score()

    def legal_actions(self) -> list[Action]:
        self.listings += 1
        return list(self._engine.legal_actions())


class NoListing:
    def __init__(self) -> None:
        self._engine = create_engine()

    def capabilities(self) -> Capabilities:
        return self._engine.capabilities()

    def deal(self, setup: DealSetup) -> None:
        self._engine.deal(setup)


def test_self_play_chooses_only_from_the_engines_list_and_the_record_replays_elsewhere() -> None:
    engine = ProtocolOnly()
    record = play_game(engine, load_spec(), seed=3, max_hands=2)  # type: ignore[arg-type]
    actions = sum(len(hand.actions) for hand in record.hands)
    assert len(record.hands) == 2 and actions > 0
    assert engine.listings == actions  # one listing per applied action: every choice came from the list
    again = GameRecord.from_json(json.loads(json.dumps(record.to_json())))
    assert replay(again, create_engine()) == actions  # identical positions and sheets in another engine


def test_the_same_seed_plays_the_same_game() -> None:
    first = play_game(ProtocolOnly(), load_spec(), seed=11, max_hands=1)  # type: ignore[arg-type]
    second = play_game(ProtocolOnly(), load_spec(), seed=11, max_hands=1)  # type: ignore[arg-type]
    assert first.to_json() == second.to_json()


def test_an_engine_that_cannot_list_its_actions_cannot_self_play() -> None:
    with pytest.raises(SelfPlayError, match="legal_actions"):
        play_game(NoListing(), load_spec(), seed=0)  # type: ignore[arg-type]


def test_canasta_play_plays_on_the_engine_it_is_given(tmp_path: Path) -> None:
    target = tmp_path / "game.json"
    command = [sys.executable, "-m", "canasta_conformance", "play", "--engine", "test_selfplay:ProtocolOnly", "--max-hands", "1", "--json", str(target)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=TESTS)
    assert completed.returncode == 0, completed.stderr
    assert "hand   1" in completed.stdout
    record = GameRecord.from_json(json.loads(target.read_text()))
    assert replay(record, create_engine()) == len(record.hands[0].actions)
    refused = subprocess.run([*command[:5], "test_selfplay:NoListing"], capture_output=True, text=True, timeout=300, cwd=TESTS)
    assert refused.returncode == 2 and "cannot self-play" in refused.stderr
