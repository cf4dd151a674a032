"""`canasta coverage`: every testable rule has a scenario; every testable prohibition a rejecting one."""

from __future__ import annotations

import shutil
from pathlib import Path

from canasta_conformance.contract.paths import scenarios_dir
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.tools.cli import main
from canasta_conformance.tools.coverage import compute_coverage
from corpus_once import PROBLEMS, SCENARIOS

SPEC = load_spec()


def test_every_testable_rule_has_a_scenario_and_every_prohibition_a_rejecting_one():
    scenarios, problems = SCENARIOS, PROBLEMS
    assert problems == []
    coverage = compute_coverage(SPEC, scenarios)
    assert [c.rule for c in coverage.uncovered] == []
    assert [c.rule for c in coverage.missing_rejection] == []
    assert [c.rule for c in coverage.missing_allowed] == []


def test_the_corpus_has_the_families_the_suite_promises():
    scenarios = SCENARIOS
    assert len(scenarios) >= 300
    whole_hands = [s for s in scenarios if s.deal is not None and any(step.expect.score for step in s.steps)]
    assert len(whole_hands) >= 15


def test_coverage_command_prints_totals_and_exits_zero(capsys):
    assert main(["coverage"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert "0 uncovered" in last and "testable prohibitions" in last


def test_coverage_command_fails_when_a_testable_rule_loses_its_scenarios(tmp_path: Path, capsys):
    copy = tmp_path / "scenarios"
    shutil.copytree(scenarios_dir(), copy)
    for path in copy.rglob("*.yaml"):
        if "game.tie" in path.read_text():
            path.unlink()
    assert main(["coverage", str(copy)]) == 1
    out = capsys.readouterr().out
    assert any(line.strip().startswith("game.tie") and "UNCOVERED" in line for line in out.splitlines())
