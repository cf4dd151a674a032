"""The text game record reads back to the same game, replays, and the log tells every turn."""

from __future__ import annotations

import pytest

from canasta_conformance.contract.model import FormatError, action_from_json
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.running.replay import replay
from canasta_conformance.tools.cli import main
from canasta_conformance.tools.game_text import game_log, record_from_text, record_to_text
from canasta_conformance.tools.selfplay import play_game
from canasta_reference import create_engine


@pytest.fixture(scope="module")
def record():
    return play_game(create_engine(), load_spec(), 3, "classic", max_hands=2)


def test_the_text_record_reads_back_to_the_same_game(record):
    again = record_from_text(record_to_text(record))
    assert (again.variant, again.options, again.seed) == (record.variant, record.options, record.seed)
    assert [(h.dealer, h.deck, h.first_player, h.actions) for h in again.hands] == [
        (h.dealer, h.deck, h.first_player, [action_from_json(a.to_json()) for a in h.actions]) for h in record.hands
    ]
    assert replay(again, create_engine()) == sum(len(h.actions) for h in record.hands)


def test_the_log_tells_every_turn_and_the_score_sheet(record):
    log = list(game_log(record, create_engine()))
    actions = sum(len(h.actions) for h in record.hands)
    assert sum(1 for line in log if line.startswith("  seat ")) == actions
    assert any(" draws " in line for line in log) and any(" discards " in line for line in log)
    assert any("takes the pile" in line for line in log) and any(" melds [" in line for line in log)
    assert sum(1 for line in log if line.startswith("  side ") and "(total" in line) == 2 * len(record.hands)


def test_a_bad_line_is_named():
    with pytest.raises(FormatError, match="line 4"):
        record_from_text('[Variant "classic"]\n[Hand "1"]\n[Deck "KH QH"]\nfly away\n')


def test_play_writes_a_text_record_that_replay_reads(tmp_path, capsys):
    path = tmp_path / "game.txt"
    assert main(["play", "--seed", "5", "--max-hands", "1", "--record", str(path), "--show"]) == 0
    shown = capsys.readouterr().out
    assert "Hand 1: dealer seat" in shown and " draws " in shown
    assert path.read_text().startswith('[Format "canasta-game-record 1"]')
    assert main(["play", "--replay", str(path)]) == 0
    assert "every action accepted" in capsys.readouterr().out


def test_the_log_names_the_seat_where_red_threes_are_kept_per_player():
    """Regal (red_three.per_player): the log says which seat laid a red three down; Classic's
    four-player log names the side."""
    regal = play_game(create_engine(), load_spec(), 11, "regal", max_hands=1)
    regal_lines = [line for line in game_log(regal, create_engine()) if "lays down red three" in line]
    classic = play_game(create_engine(), load_spec(), 11, "classic", max_hands=1)
    classic_lines = [line for line in game_log(classic, create_engine()) if "lays down red three" in line]
    assert regal_lines and all(line.startswith("    seat ") for line in regal_lines)
    assert classic_lines and all(line.startswith("    side ") for line in classic_lines)
