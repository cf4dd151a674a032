"""`canasta validate`: every problem in every file, as file:line: path: message."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from canasta_conformance.tools.cli import main
from example_scenario import EXAMPLE


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(text)
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    target = tmp_path / "scenarios" / "pile"
    target.mkdir(parents=True)
    return target


def run(capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, list[str]]:
    code = main(["validate", *map(str, paths)])
    out = capsys.readouterr().out
    return code, [line for line in out.splitlines() if line]


def test_the_corpus_validates(capsys):
    code, lines = run(capsys)
    assert lines == []
    assert code == 0


def test_a_valid_file_passes(folder, capsys):
    write(folder, "good-one", EXAMPLE.format(id="good-one"))
    assert run(capsys, folder) == (0, [])


def test_a_bad_card_token_names_file_line_and_path(folder, capsys):
    text = EXAMPLE.format(id="bad-card").replace("[4D, 4H]", "[4D, 4X]")
    path = write(folder, "bad-card", text)
    code, lines = run(capsys, folder)
    assert code == 1
    assert len(lines) == 1
    assert lines[0].startswith(f"{path}:8: position.hands[1][1]: '4X' is not a card token")


def test_every_problem_of_every_file_is_reported(folder, capsys):
    write(folder, "good-one", EXAMPLE.format(id="good-one"))
    write(folder, "wrong-stem", EXAMPLE.format(id="other-id"))
    unknown = EXAMPLE.format(id="unknown-rule").replace("[pile.blocked.wild-top]", "[pile.no-such-rule]")
    write(folder, "unknown-rule", unknown)
    too_many = EXAMPLE.format(id="too-many").replace("[6C, 6D]", "[KH, KH, 6D]")
    write(folder, "too-many", too_many)
    code, lines = run(capsys, folder)
    assert code == 1
    text = "\n".join(lines)
    assert "wrong-stem.yaml:2: id: id 'other-id' must equal the file name 'wrong-stem'" in text
    assert "unknown-rule.yaml:4: rules[0]: unknown rule 'pile.no-such-rule'" in text
    assert "too-many.yaml:6: position: KH appears 3 times but the deck holds it 2 times" in text
    assert "good-one" not in text


def test_seats_must_fit_the_variant(folder, capsys):
    text = EXAMPLE.format(id="three-hands").replace("    - [7S, 7D]\n", "")
    write(folder, "three-hands", text)
    code, lines = run(capsys, folder)
    assert code == 1
    assert any("position.hands: the variant has 4 players but the position has 3 hands" in line for line in lines)


def test_melds_in_the_position_must_be_well_formed(folder, capsys):
    text = EXAMPLE.format(id="bad-meld").replace("[[KC, KD, KS]]", "[[KC, 2D, 2S], [QC, QD]]")
    write(folder, "bad-meld", text)
    code, lines = run(capsys, folder)
    assert code == 1
    assert any("position.melds[0][0]: a meld needs at least 2 natural cards" in line for line in lines)
    assert any("position.melds[0][1]: a meld needs at least 3 cards" in line for line in lines)


def test_yaml_syntax_errors_give_the_line(folder, capsys):
    path = write(folder, "broken-yaml", EXAMPLE.format(id="broken-yaml").replace("rules: [pile", "rules: [[pile"))
    code, lines = run(capsys, folder)
    assert code == 1
    assert lines[0].startswith(f"{path}:")
    assert "YAML syntax" in lines[0]


def test_violates_must_name_an_existing_rule_and_go_with_legal_false(folder, capsys):
    text = EXAMPLE.format(id="bad-expect").replace("{legal: false, violates: pile.blocked.wild-top}", "{legal: true, violates: pile.nothing}")
    write(folder, "bad-expect", text)
    code, lines = run(capsys, folder)
    assert code == 1
    assert any("steps[0].expect.violates: unknown rule 'pile.nothing'" in line for line in lines)
    assert any("steps[0].expect: 'violates' needs 'legal: false'" in line for line in lines)


def test_duplicate_ids_across_files_are_reported(tmp_path, capsys):
    for area in ("pile", "meld"):
        (tmp_path / area).mkdir()
        write(tmp_path / area, "same-id", EXAMPLE.format(id="same-id"))
    code, lines = run(capsys, tmp_path)
    assert code == 1
    assert any("duplicate scenario id 'same-id'" in line for line in lines)


def test_a_copy_of_the_corpus_with_one_broken_file_fails_and_names_it(tmp_path, capsys, root):
    copy = tmp_path / "scenarios"
    shutil.copytree(root / "scenarios", copy)
    victim = sorted(copy.rglob("*.yaml"))[0]
    victim.write_text(victim.read_text().replace("steps:", "stepz:", 1))
    code, lines = run(capsys, copy)
    assert code == 1
    assert lines and all(str(victim) in line for line in lines)
    assert any(": stepz" in line or "'steps' is a required property" in line for line in lines)


def test_an_unknown_source_is_reported_with_file_and_line(folder, capsys):
    text = EXAMPLE.format(id="bad-source").replace("\nrules:", "\nsource: seed-002\nrules:", 1)
    path = write(folder, "bad-source", text)
    line = text.splitlines().index("source: seed-002") + 1
    code, lines = run(capsys, folder)
    assert code == 1
    assert any(f"{path}:{line}: source: unknown source 'seed-002'" in entry for entry in lines), lines


NESTED_MELD = """\
  - action:
      type: meld
      melds:
        - {sequence: true, rank: '5', cards: [4H, 5H, 6H]}
    expect: {legal: false, violates: pile.blocked.wild-top}
"""


def test_a_problem_deep_inside_an_action_names_its_own_line_and_path(folder, capsys):
    """The error inside the action's meant branch is placed where it is (the meld group's line),
    not at the action with its inner path written into the message."""
    text = EXAMPLE.format(id="deep-action").replace(
        "  - action: {type: take, cards: [9H, 9S]}\n    expect: {legal: false, violates: pile.blocked.wild-top}\n", NESTED_MELD,
    )
    path = write(folder, "deep-action", text)
    group_line = text.splitlines().index("        - {sequence: true, rank: '5', cards: [4H, 5H, 6H]}") + 1
    code, lines = run(capsys, folder)
    assert code == 1 and len(lines) == 1, lines
    assert lines[0].startswith(f"{path}:{group_line}: steps[0].action.melds[0]: "), lines[0]
