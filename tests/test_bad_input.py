"""The bad-input corpus: every file of tests/bad_input gives exactly the problem line expected of it
(tests/bad_input/expected.yaml), never a traceback, and one bad file never stops the others."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from canasta_conformance.contract import paths as data
from canasta_conformance.contract import schemas
from canasta_conformance.contract import spec as spec_module
from canasta_conformance.contract.paths import scenarios_dir, spec_dir
from canasta_conformance.contract.scenario import load_scenarios, scenario_files
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.tools.cli import main
from example_scenario import EXAMPLE

CORPUS = Path(__file__).parent / "bad_input"
EXPECTED: dict[str, str] = yaml.safe_load((CORPUS / "expected.yaml").read_text(encoding="utf-8"))
SCENARIO_CASES = sorted(p.name for p in (CORPUS / "scenario").iterdir())
SPEC_CASES = sorted(p.name for p in (CORPUS / "spec").iterdir())


def test_the_corpus_has_at_least_40_files_each_with_its_expected_line():
    assert len(SCENARIO_CASES) + len(SPEC_CASES) >= 40
    assert sorted(EXPECTED) == sorted([f"scenario/{n}" for n in SCENARIO_CASES] + [f"spec/{n}" for n in SPEC_CASES])


@pytest.mark.parametrize("name", SCENARIO_CASES)
def test_a_bad_scenario_file_gives_its_problem_line(name, monkeypatch):
    monkeypatch.chdir(CORPUS / "scenario")
    scenarios, problems = load_scenarios([Path(name)], load_spec())
    lines = [str(p) for p in problems]
    assert scenarios == []
    assert EXPECTED[f"scenario/{name}"] in lines
    assert all(len(line) < 400 for line in lines)  # a message quotes an excerpt, never the whole value


@pytest.fixture
def spec_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the spec that data.spec_dir() and data.schema_dir() point to."""
    shutil.copytree(spec_dir(), tmp_path / "spec")
    (tmp_path / "scenarios").symlink_to(scenarios_dir())
    monkeypatch.setattr(data, "_root", lambda: tmp_path)
    monkeypatch.chdir(tmp_path)
    _clear_caches()
    yield tmp_path / "spec"
    monkeypatch.undo()
    _clear_caches()


def _clear_caches() -> None:
    for cached in (schemas.schema, schemas._registry, schemas.validator, schemas.definition_validator, spec_module.load_spec):
        cached.cache_clear()


@pytest.mark.parametrize("name", SPEC_CASES)
def test_a_bad_spec_file_gives_its_problem_line_in_validate_spec_and_coverage(name, spec_copy, capsys):
    for overlay in (CORPUS / "spec" / name).rglob("*"):
        if overlay.is_file():
            target = spec_copy / overlay.relative_to(CORPUS / "spec" / name)
            if target.name.endswith(".delete"):
                target.with_suffix("").unlink()
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(overlay, target)
    expected = EXPECTED[f"spec/{name}"]
    assert main(["validate", str(scenarios_dir() / "pile")]) == 1
    out, err = capsys.readouterr()
    assert expected in out.splitlines()
    assert "Traceback" not in out + err
    assert main(["spec", "list"]) == 1
    out, err = capsys.readouterr()
    assert f"  {expected}" in err.splitlines() and "Traceback" not in out + err
    assert main(["coverage", str(scenarios_dir() / "pile")]) == 1
    out, err = capsys.readouterr()
    assert expected in err.splitlines() and "Traceback" not in out + err


def test_a_variant_base_cycle_is_a_validate_problem(spec_copy, capsys):
    first, second = sorted((spec_copy / "variants").glob("*.yaml"))[:2]
    for this, other in ((first, second), (second, first)):
        this.write_text(this.read_text(encoding="utf-8") + f"base: {other.stem}\n", encoding="utf-8")
    assert main(["validate", str(scenarios_dir() / "pile")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert f"variants/{first.stem}.yaml: base: a cycle of bases: {first.stem} -> {second.stem} -> {first.stem}" in out


def test_every_bad_file_is_reported_and_the_valid_one_beside_them_still_loads(tmp_path, capsys):
    folder = tmp_path / "mixed"
    shutil.copytree(CORPUS / "scenario", folder)
    (folder / "fine-one.yaml").write_text(EXAMPLE.format(id="fine-one"), encoding="utf-8")
    (folder / "no-modeline.yaml").write_text(EXAMPLE.format(id="no-modeline").split("\n", 1)[1], encoding="utf-8")
    assert main(["validate", str(folder), str(tmp_path / "missing.yaml")]) == 2
    captured = capsys.readouterr()
    reported = {line.split(":")[0] for line in captured.out.splitlines()}
    assert f"{tmp_path / 'missing.yaml'}: no such file or folder" in captured.out.splitlines()
    assert {str(folder / name) for name in SCENARIO_CASES} <= {str(Path(r).resolve()) if not Path(r).is_absolute() else r for r in reported}
    assert f"{len(SCENARIO_CASES) + 2} scenario files: 2 valid, {len(SCENARIO_CASES)} with problems" in captured.err


def test_a_scenario_is_found_by_its_folder_and_extension_not_by_its_first_line(tmp_path):
    folder = tmp_path / "scenarios" / "pile"
    folder.mkdir(parents=True)
    (folder / "plain.yaml").write_text(EXAMPLE.format(id="plain").split("\n", 1)[1], encoding="utf-8")
    (folder / "with-bom.yml").write_bytes(b"\xef\xbb\xbf" + EXAMPLE.format(id="with-bom").encode())
    assert scenario_files(tmp_path / "scenarios") == [folder / "plain.yaml", folder / "with-bom.yml"]
    scenarios, problems = load_scenarios(scenario_files(tmp_path / "scenarios"), load_spec())
    assert [s.id for s in scenarios] == ["plain"]
    assert [p.message for p in problems] == ["the file starts with a byte-order mark (BOM): save it as UTF-8 without BOM"]


def test_a_symlinked_folder_loop_is_walked_once(tmp_path):
    folder = tmp_path / "scenarios" / "pile"
    folder.mkdir(parents=True)
    (folder / "looped.yaml").write_text(EXAMPLE.format(id="looped"), encoding="utf-8")
    (folder / "again").symlink_to(tmp_path / "scenarios")
    assert scenario_files(tmp_path / "scenarios") == [folder / "looped.yaml"]


def test_a_file_too_large_is_refused_unread(tmp_path):
    from canasta_conformance.contract.yamlio import MAX_FILE_BYTES

    path = tmp_path / "huge.yaml"
    path.write_bytes(b"# " + b"x" * MAX_FILE_BYTES + b"\n")
    _, problems = load_scenarios([path], load_spec())
    assert [p.message for p in problems] == [f"the file has {MAX_FILE_BYTES + 3} bytes, more than the {MAX_FILE_BYTES} a data file may have"]


def test_run_reports_every_bad_file_as_an_error_and_runs_the_valid_one(tmp_path):
    folder = tmp_path / "mixed"
    shutil.copytree(CORPUS / "scenario", folder)
    (folder / "fine-one.yaml").write_text(EXAMPLE.format(id="fine-one"), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "canasta_conformance", "run", "--scenarios", str(folder), "-p", "no:randomly", "-p", "no:hypothesispytest"],
        capture_output=True, text=True, timeout=600,
    )
    assert "Traceback" not in result.stdout + result.stderr
    assert f"1 passed, {len(SCENARIO_CASES)} errors" in result.stdout


def test_run_walks_a_symlinked_folder_loop_once(pytester):
    folder = pytester.path / "scenarios" / "pile"
    folder.mkdir(parents=True)
    (folder / "looped-run.yaml").write_text(EXAMPLE.format(id="looped-run"), encoding="utf-8")
    (folder / "again").symlink_to(pytester.path / "scenarios")
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=1)


def test_a_variant_breaking_a_parameters_requirement_is_a_validate_problem(spec_copy, capsys):
    # three_player.lone_hand requires a three-player table (spec/parameters.yaml: requires)
    variant = spec_copy / "variants" / "classic-3p.yaml"
    variant.write_text(variant.read_text(encoding="utf-8").replace("  players: 3\n", "  players: 4\n"), encoding="utf-8")
    assert main(["validate", str(scenarios_dir() / "pile")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "variants/classic-3p.yaml: parameters: variant 'classic-3p': three_player.lone_hand: true needs players: 3 (it has 4)" in out


def test_an_engine_asked_for_options_that_contradict_the_rule_set_refuses_them_by_name():
    from canasta_conformance.contract.spec import VariantError
    from canasta_reference.engine import ReferenceEngine

    engine = ReferenceEngine(load_spec())
    with pytest.raises(VariantError, match=r"three_player\.lone_hand: true needs players: 3 \(it has 4\), sides: 3 \(it has 2\)"):
        engine.rules_for("classic", {"three_player.lone_hand": True})
    assert engine.rules_for("classic", {"three_player.lone_hand": True, "players": 3, "sides": 3}).three_player_lone_hand
    # jokers that are not wild have no rank to play as (observe() raised KeyError('JK') mid-hand)
    with pytest.raises(VariantError, match=r'cards\.wild_ranks: \["2"\] leaves the deck\'s jokers without a rank \(deck\.jokers: 4\)'):
        engine.rules_for("classic", {"cards.wild_ranks": ["2"]})
    assert set(engine.rules_for("classic", {"cards.wild_ranks": ["2"], "deck.jokers": 0}).cards_wild_ranks) == {"2"}
