"""The reference engine reads every rule number from the variant: change a parameter, and the
engine follows it."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest
import yaml

import canasta_reference
from canasta_conformance.contract.cards import cards, full_deck
from canasta_conformance.contract.engine_protocol import DealSetup
from canasta_conformance.contract.model import Discard, Meld, MeldGroup, Position
from canasta_conformance.contract.paths import spec_dir
from canasta_conformance.contract.spec import load_spec, read_spec
from canasta_reference.engine import ReferenceEngine

RULE_MODULES = ["engine", "melds", "pile", "scoring", "setup", "going_out", "state", "movegen", "position_facts", "move_rules", "initial_melds", "special_hands",
                "sequences", "sequence_moves"]


def test_the_rule_modules_hold_no_rule_numbers():
    root = Path(__import__("canasta_reference").__file__).parent
    contract = Path(__import__("canasta_conformance").__file__).parent
    found = []
    for path in [*(root / f"{name}.py" for name in RULE_MODULES), contract / "contract" / "variant_rules.py"]:
        name = path.name
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and type(node.value) is int and node.value not in (0, 1, 2):
                found.append(f"{name}:{node.lineno}: {node.value}")
    assert found == []


@pytest.fixture
def spec_copy(tmp_path: Path) -> Path:
    target = tmp_path / "spec"
    shutil.copytree(spec_dir(), target)
    return target


def set_overrides(spec_root: Path, variant: str, overrides: dict) -> None:
    path = spec_root / "variants" / f"{variant}.yaml"
    data = yaml.safe_load(path.read_text())
    data["parameters"].update(overrides)
    path.write_text(yaml.safe_dump(data))


POSITION = {
    "turn": 0, "phase": "play",
    "hands": [["9C", "9D", "9H", "9S", "9C", "2C", "2D", "JK", "5C", "5D", "4H"], [], [], []],
    "melds": [[["KC", "KD", "KS"]], []],
    "pile": ["4C"], "stock": ["AC", "AD"],
}


def meld_nines(engine: ReferenceEngine, variant: str = "classic", options: dict | None = None):
    engine.load(Position.from_json({**POSITION, "variant": variant, "options": options or {}}))
    return engine.apply(Meld((MeldGroup(cards("9C 9D 9H 9S 9C 2C 2D JK")),)))


def test_a_variant_file_change_is_followed(spec_copy):
    assert meld_nines(ReferenceEngine(load_spec())).accepted  # five nines, three wild cards: fine in Classic
    set_overrides(spec_copy, "classic", {"meld.max_wilds": 2})
    engine = ReferenceEngine(read_spec(spec_copy))
    outcome = meld_nines(engine)
    assert (outcome.status, outcome.rule) == ("rejected", "meld.max-wilds")


def test_a_scenario_option_is_followed():
    outcome = meld_nines(ReferenceEngine(), options={"meld.max_wilds": 2})
    assert outcome.rule == "meld.max-wilds"


def test_bonuses_and_card_values_follow_the_variant(spec_copy):
    overrides = {"canasta.mixed_bonus": 333, "going_out.bonus": 7 * 5, "card_value.joker": 45, "card_value.ace": 15}
    set_overrides(spec_copy, "classic", overrides)
    engine = ReferenceEngine(read_spec(spec_copy))
    position = {**POSITION, "hands": [["9C", "9D", "9H", "9S", "9C", "2C", "JK", "5C"], ["AS"], [], []],
                "facts": {"melded_seats": [0]}}  # melded before: an ordinary going out
    engine.load(Position.from_json(position))
    assert engine.apply(Meld((MeldGroup(cards("9C 9D 9H 9S 9C 2C JK")),))).accepted
    assert engine.apply(Discard(cards("5C")[0])).accepted
    sheet = engine.score()
    assert sheet.sides[0].canastas == 333
    assert sheet.sides[0].going_out == 35
    assert sheet.sides[0].melded == 5 * 10 + 20 + 45 + 3 * 10
    assert sheet.sides[1].in_hand == -15


def test_hand_size_and_seats_follow_the_variant():
    engine = ReferenceEngine()
    deck = full_deck()
    engine.deal(DealSetup("classic-2p", {}, 0, tuple(deck)))
    position = engine.observe()
    params = load_spec().variant_parameters("classic-2p")
    assert position.players == params["players"] == 2
    assert all(len(hand) == params["deal.hand_size"] for hand in position.hands)
    engine.deal(DealSetup("classic", {"deal.hand_size": 13}, 0, tuple(deck)))
    assert all(len(hand) == 13 for hand in engine.observe().hands)


def test_the_initial_meld_table_follows_the_variant(spec_copy):
    table = [{"from": None, "minimum": 10}, {"from": 0, "minimum": 70}]
    set_overrides(spec_copy, "classic", {"initial_meld.table": table})
    engine = ReferenceEngine(read_spec(spec_copy))
    position = {**POSITION, "melds": [[], []], "hands": [["KC", "KD", "KS", "QC", "QD", "QS", "JC", "5C"], [], [], []]}
    engine.load(Position.from_json(position))
    outcome = engine.apply(Meld((MeldGroup(cards("KC KD KS")), MeldGroup(cards("QC QD QS")))))
    assert (outcome.status, outcome.rule) == ("rejected", "initial.table")  # 60 < 70
    assert engine.apply(Meld((MeldGroup(cards("KC KD KS")), MeldGroup(cards("QC QD QS")), MeldGroup(cards("JC")), ))).status == "rejected"


def test_every_module_level_memo_table_of_the_engine_is_registered():
    """The mutation tool empties the engine's memo tables around each mutant through memo.clear_all:
    a module-level table made another way (an empty dict, a functools cache not handed to
    memo.on_clear) would serve a mutant the original's answers."""
    folder = Path(canasta_reference.__file__).parent
    unregistered = []
    for path in sorted(folder.glob("*.py")):
        if path.name == "memo.py":
            continue
        source = path.read_text(encoding="utf-8")
        for node in ast.parse(source).body:
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if isinstance(value, ast.Dict) and not value.keys:
                unregistered.append(f"{path.name}:{node.lineno} (an empty dict: use memo.table())")
            if isinstance(node, ast.FunctionDef) and any(
                "cache" in ast.unparse(d) for d in node.decorator_list
            ) and f"memo.on_clear({node.name}.cache_clear)" not in source:
                unregistered.append(f"{path.name}:{node.lineno} ({node.name}: memo.on_clear its cache_clear)")
    assert not unregistered
