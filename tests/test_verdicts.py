"""Verdicts judge behaviour first: rule citations are a declared extra, related rules agree,
and scenarios are split into the core and the readings (issue 10's proof).

The engines here are the reference engine with only its citations changed (verdict_engines.py),
or with one confidence-C rule read differently (a mutant): the assertions say what an engine
author must see from them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

import corpus_once
from canasta_conformance.contract.model import Outcome
from canasta_conformance.contract.paths import spec_dir
from canasta_conformance.contract.scenario import Scenario, load_scenario
from canasta_conformance.contract.schemas import schema_errors
from canasta_conformance.contract.spec import load_spec, read_spec
from canasta_conformance.contract.tiers import DESIGN_NOTE, scenario_tier
from canasta_conformance.running.messages import failure_lines
from canasta_conformance.running.report import ReportEntry, build_report, render_matrix
from canasta_conformance.running.runner import Judging, Result, run_scenario
from mutants import Mutant
from verdict_engines import UNRELATED_RULE, BroadestCitations, NoCitations, UnrelatedCitations, broadest

SPEC = load_spec()
SCENARIOS = corpus_once.SCENARIOS
BY_ID = {s.id: s for s in SCENARIOS}


def run_all(engine, scenarios=SCENARIOS, judging: Judging | None = None) -> dict[str, Result]:
    capabilities = engine.capabilities()
    return {s.id: run_scenario(s, engine, capabilities, judging) for s in scenarios}


def rejecting(scenario: Scenario) -> bool:
    return any(step.expect.violates for step in scenario.steps)


@pytest.fixture(scope="module")
def broadest_results() -> dict[str, Result]:
    return run_all(BroadestCitations())


# --------------------------------------------------------------------------------------------
# (a) an engine that cites no rule passes everything, in both tiers


def test_an_engine_that_cites_no_rule_passes_every_scenario_of_both_tiers():
    results = run_all(NoCitations())
    assert {sid: r.message for sid, r in results.items() if r.status != "passed"} == {}
    tiers = Counter(r.tier.name for r in results.values() if r.tier)
    assert tiers["core"] > 100 and tiers["reading"] > 0
    assert sum(rejecting(BY_ID[sid]) for sid in results) > 100  # the rejections really were judged without a rule
    assert all(not r.citations for r in results.values())


def test_a_rejection_without_a_rule_passes_the_protocol_check(pytester, monkeypatch):
    """Over JSON lines with --canasta-check-protocol, a rule-less rejection is no protocol error."""
    folder = pytester.path / "scenarios"
    folder.mkdir()
    for sid in ("pile-black-three-top-blocks-take", "meld-two-new-groups-merged-over-wild-limit", "pile-frozen-two-wilds-rejected"):
        shutil.copy(BY_ID[sid].path, folder / BY_ID[sid].path.name)
    tests = str(Path(__file__).parent)
    monkeypatch.setenv("PYTHONPATH", tests + ":" + os.environ.get("PYTHONPATH", ""))
    command = f"{sys.executable} -m canasta_conformance serve --engine verdict_engines:NoCitations"
    result = pytester.runpytest("--canasta-engine-cmd", command, "--canasta-check-protocol", "-p", "no:randomly")
    result.assert_outcomes(passed=3)


# --------------------------------------------------------------------------------------------
# (b) an engine that cites the most general related rule agrees; strict rules fail it; an
#     unrelated citation is rule-differs, never a failure


def test_citing_the_most_general_related_rule_agrees(broadest_results):
    failing = {sid: r.message for sid, r in broadest_results.items() if r.status not in ("passed",)}
    assert failing == {}
    broader = {sid: r.citations for sid, r in broadest_results.items() if r.citations}
    assert len(broader) >= 10  # the relations of spec/rules are in use: these would be false alarms without them
    for sid, citations in broader.items():
        for citation in citations:
            assert citation.agreement == "broader", (sid, citation)
            assert citation.cited not in citation.expected
            assert any(citation.cited in SPEC.broader_rules(rule) for rule in citation.expected)
    named = {c.cited for cs in broader.values() for c in cs}
    assert {"pile.frozen.take-with-natural-pair", "meld.max-wilds", "initial.table"} <= named


def test_strict_rules_fail_exactly_the_scenarios_citing_a_broader_rule(broadest_results):
    engine = BroadestCitations()
    broader = sorted(sid for sid, r in broadest_results.items() if r.citations)
    exact = [s for s in SCENARIOS if rejecting(s) and s.id not in broader][:15]
    strict = run_all(engine, [BY_ID[sid] for sid in broader] + exact, Judging(strict_rules=True))
    assert sorted(sid for sid, r in strict.items() if r.status == "failed") == broader
    assert all(strict[s.id].status == "passed" for s in exact)
    one = strict[broader[0]]
    assert "a broader rule; --canasta-strict-rules wants the scenario's own" in one.message


def test_an_unrelated_citation_is_rule_differs_and_never_hides_a_behaviour_failure():
    engine = UnrelatedCitations()
    chosen = [s for s in SCENARIOS if rejecting(s)][:25]
    results = run_all(engine, chosen)
    assert {r.status for r in results.values()} == {"rule-differs"}
    for sid, result in results.items():
        assert result.ok
        assert all(c.cited == UNRELATED_RULE and c.agreement == "differs" for c in result.citations)
        assert len(result.citations) == sum(bool(step.expect.violates) for step in BY_ID[sid].steps)
    strict = run_all(engine, chosen, Judging(strict_rules=True))
    assert {r.status for r in strict.values()} == {"failed"}
    # a behaviour failure after a differing citation is still the verdict
    scenario = BY_ID["pile-black-three-top-blocks-take"]

    class AlsoDrawsWrong(UnrelatedCitations):
        def observe(self):
            position = self.inner.observe()
            return position if position.phase != "play" else type(position).from_json({**position.to_json(), "stock": []})

    result = run_scenario(scenario, AlsoDrawsWrong())
    assert result.status == "failed" and result.step == 1
    assert [c.step for c in result.citations] == [0]


def test_an_engine_that_cites_no_rule_while_declaring_cites_rules_differs():
    class Silent(UnrelatedCitations):
        def cite(self, rule):
            return None

    result = run_scenario(BY_ID["pile-black-three-top-blocks-take"], Silent())
    assert result.status == "rule-differs"
    assert result.citations[0].describe() == "step 1: cited no rule, the scenario expects pile.blocked.black3-top"


def test_the_broadest_rule_follows_narrows_upward():
    assert broadest(SPEC, "pile.frozen.no-wild-in-pair") == "pile.frozen.take-with-natural-pair"
    assert broadest(SPEC, "stock.empty.one-card-exception") == "pile.one-card-rule"
    assert broadest(SPEC, "pile.blocked.wild-top") == "pile.blocked.wild-top"


# --------------------------------------------------------------------------------------------
# (c) an engine that reads one confidence-C rule differently fails only in the reading column


def test_reading_one_confidence_c_rule_differently_fails_only_readings():
    assert SPEC.rules["game.tie"].confidence == "C"
    tie_is_a_draw = Mutant("tie-is-a-draw", ("game.tie",), {"game_tie": "draw"})
    results = run_all(tie_is_a_draw.factory()())
    assert {sid: r.message for sid, r in results.items() if r.status == "error"} == {}
    failed = {sid: r for sid, r in results.items() if r.status == "failed"}
    assert failed, "the mutant reads game.tie differently: some scenario must show it"
    assert {r.tier.name for r in failed.values() if r.tier} == {"reading"}
    assert all(r.status == "passed" for r in results.values() if r.tier and r.tier.name == "core")
    sid, result = next(iter(failed.items()))
    text = "\n".join(failure_lines(BY_ID[sid], result, SPEC))
    assert "your engine reads game.tie differently (confidence C: the sources do not settle it); the sources: " in text


def test_the_tiers_come_from_the_spec():
    tie = scenario_tier(BY_ID["game-tie-at-target-another-hand"], SPEC)
    assert tie.name == "reading" and [r.rule for r in tie.reasons] == ["game.tie"]
    assert scenario_tier(BY_ID["pile-black-three-top-blocks-take"], SPEC).name == "core"
    readings = [s for s in SCENARIOS if scenario_tier(s, SPEC).name == "reading"]
    for scenario in readings:
        tier = scenario_tier(scenario, SPEC)
        assert tier.override or tier.reasons
        for reason in tier.reasons:
            rule = SPEC.rules[reason.rule]
            assert rule.confidence == "C" or "conflict" in reason.why or all(s["source"] == DESIGN_NOTE for s in rule.sources)
    for scenario in SCENARIOS:
        if scenario_tier(scenario, SPEC).name == "core" and scenario.tier_override is None:
            rules = {*scenario.rules, *(r for step in scenario.steps for r in step.expect.violates)}
            assert all(SPEC.rules[r].confidence in (None, "A", "B") for r in rules), scenario.id
    assert DESIGN_NOTE in SPEC.sources  # the tier of design-note rules depends on this id


def test_a_scenario_may_override_its_tier_with_a_reason(tmp_path):
    text = BY_ID["game-tie-at-target-another-hand"].path.read_text()
    path = tmp_path / "game-tie-at-target-another-hand.yaml"
    path.write_text(text.replace("\nsteps:", "\ntier: {tier: core, reason: every source that speaks of ties plays on}\nsteps:", 1))
    tier = scenario_tier(load_scenario(path, SPEC), SPEC)
    assert tier.name == "core" and tier.override == "every source that speaks of ties plays on"
    assert [r.rule for r in tier.reasons] == ["game.tie"]  # still shown
    data = yaml.safe_load(text)
    data["tier"] = {"tier": "core"}
    assert any("reason" in message for _, message in schema_errors("scenario", data))


# --------------------------------------------------------------------------------------------
# rule relations are data, checked by canasta validate


def test_citation_agreement_follows_narrows_upward_only():
    assert SPEC.citation_agrees("pile.frozen.take-with-natural-pair", ("pile.frozen.no-wild-in-pair",))
    assert SPEC.citation_agrees("meld.max-wilds", ("meld.merge-wild-limit",))
    assert SPEC.citation_agrees("pile.one-card-rule", ("stock.empty.one-card-exception",))
    assert not SPEC.citation_agrees("pile.frozen.no-wild-in-pair", ("pile.frozen.take-with-natural-pair",))
    assert not SPEC.citation_agrees("meld.max-wilds", ("pile.one-card-rule",))
    assert not SPEC.citation_agrees(None, ("pile.one-card-rule",))


def test_every_relation_joins_rules_a_scenario_lists_together_or_the_reference_cites():
    """A relation is backed by the corpus: some rejection step lists both rules, or expects the
    narrow one where the reference engine's citation is that rule."""
    lists = [set(step.expect.violates) for s in SCENARIOS for step in s.steps if step.expect.violates]
    expected = set().union(*lists)
    for rule in SPEC.rules.values():
        for broader in rule.narrows:
            assert rule.id in expected, f"{rule.id} narrows {broader} but no scenario expects {rule.id}"


@pytest.fixture
def spec_copy(tmp_path: Path) -> Path:
    target = tmp_path / "spec"
    shutil.copytree(spec_dir(), target)
    return target


@pytest.mark.parametrize("narrows, message", [
    ("[pile.no-such-rule]", "unknown rule 'pile.no-such-rule'"),
    ("[pile.take.whole]", "rule 'pile.take.whole' cannot narrow itself"),
])
def test_validate_reports_unknown_and_self_relations(spec_copy, narrows, message):
    path = spec_copy / "rules" / "pile.yaml"
    path.write_text(path.read_text().replace("    kind: obligation\n", f"    kind: obligation\n    narrows: {narrows}\n", 1))
    problems = [str(p) for p in read_spec(spec_copy).problems]
    assert len(problems) == 1 and "rules/pile.yaml:" in problems[0] and "rules[0].narrows[0]" in problems[0] and message in problems[0]


def test_validate_reports_a_cycle_of_relations(spec_copy):
    path = spec_copy / "rules" / "pile.yaml"
    text = path.read_text()
    marker = "  - id: pile.frozen.take-with-natural-pair\n"
    start = text.index(marker)
    kind = text.index("    kind: permission\n", start)
    text = text[:kind] + "    narrows: [pile.frozen.no-wild-in-pair]\n" + text[kind:]
    path.write_text(text)
    problems = [str(p) for p in read_spec(spec_copy).problems]
    assert problems and all("cycle" in p for p in problems)
    assert any("'pile.frozen.no-wild-in-pair' already narrows 'pile.frozen.take-with-natural-pair'" in p for p in problems)


# --------------------------------------------------------------------------------------------
# reports carry the tiers and the citations


def test_the_json_report_and_the_matrix_show_tiers_and_citations():
    scenario = BY_ID["pile-black-three-top-blocks-take"]
    result = run_scenario(scenario, UnrelatedCitations())
    tie = run_scenario(BY_ID["game-tie-at-target-another-hand"], Mutant("t", ("game.tie",), {"game_tie": "draw"}).factory()())
    entries = [
        ReportEntry.from_result(BY_ID[r.scenario], r, tier=scenario_tier(BY_ID[r.scenario], SPEC)) for r in (result, tie)
    ]
    # the entry crosses pytest-xdist as its JSON: it comes back whole
    assert [ReportEntry.from_json(json.loads(json.dumps(e.to_json()))) for e in entries] == entries
    header = {"engine": {"name": "e", "version": "1"}, "spec": {}, "harness": {}, "started": "2026-01-01T00:00:00+00:00"}
    report = build_report(header, entries)
    assert list(schema_errors("report", report)) == []
    summary = report["summary"]
    assert summary["rule-differs"] == 1 and summary["failed"] == 1
    assert summary["by_tier"]["core"]["rule-differs"] == 1 and summary["by_tier"]["reading"]["failed"] == 1
    assert summary["citations"] == {"broader": 0, "differs": 1}
    entry = next(e for e in report["results"] if e["id"] == scenario.id)
    assert entry["citations"] == [{"step": 1, "action": "take [8H 8S]", "expected": ["pile.blocked.black3-top"], "cited": UNRELATED_RULE, "agreement": "differs"}]
    text = render_matrix({"engine": {"name": "e", "version": "1"}}, entries)
    assert "| core | 0 | 0 | 0 | 0 | 1 | - |" in text
    assert "| reading | 0 | 1 | 0 | 0 | 0 | 0% |" in text
    assert "- `game-tie-at-target-another-hand`: reads `game.tie` (confidence C" in text
    assert f"- `{scenario.id}` (rule-differs): step 1: cited `{UNRELATED_RULE}`, expects `pile.blocked.black3-top`" in text


def test_a_failure_names_the_failing_steps_rule_its_source_and_the_notes():
    scenario = BY_ID["pile-black-three-top-blocks-where-threes-meld-freely"]

    class ForgetsTheBlock(NoCitations):
        def apply(self, action):
            outcome = self.inner.apply(action)
            return Outcome.accept() if outcome.rule == "pile.blocked.black3-top" else outcome

    result = run_scenario(scenario, ForgetsTheBlock())
    lines = failure_lines(scenario, result, SPEC)
    assert lines[1] == "the failing step expects a rejection by:"
    assert lines[2].startswith("  pile.blocked.black3-top: " + SPEC.rules["pile.blocked.black3-top"].title + " (")
    assert '"' in lines[2]  # a short quote of a source
    assert lines[3].startswith("notes: With black_three.meld_only_going_out off")
    assert lines[4] == "step 1 (take [3C 3C]): expected a rejection citing pile.blocked.black3-top, the engine accepted"
    assert not any(line.startswith("rules: ") for line in lines)  # not every rule of the scenario


def test_run_tier_option_selects_one_tier_and_junit_has_the_tier(pytester):
    folder = pytester.path / "scenarios"
    folder.mkdir()
    for sid in ("game-tie-at-target-another-hand", "pile-black-three-top-blocks-take"):
        shutil.copy(BY_ID[sid].path, folder / BY_ID[sid].path.name)
    result = pytester.runpytest("--canasta-tier", "core", "-p", "no:randomly")
    result.assert_outcomes(passed=1, deselected=1)
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest("--canasta-tier", "reading", f"--junitxml={junit}", "-p", "no:randomly")
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(["  core * 0 * 0 * 0 * 0 * 0", "  reading * 1 * 0 * 0 * 0 * 0"])
    assert '<property name="canasta_tier" value="reading"' in junit.read_text()
    assert "game.tie" in json.dumps(junit.read_text())


def test_the_report_of_a_real_run_carries_citations_and_tiers_through_xdist(tmp_path):
    import subprocess

    folder = tmp_path / "scenarios"
    folder.mkdir()
    for sid in ("game-tie-at-target-another-hand", "pile-black-three-top-blocks-take", "pile-frozen-two-wilds-rejected"):
        shutil.copy(BY_ID[sid].path, folder / BY_ID[sid].path.name)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent) + ":" + os.environ.get("PYTHONPATH", "")}
    report, matrix = tmp_path / "report.json", tmp_path / "matrix.md"
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "scenarios", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:hypothesispytest", "-q", "-n", "2",
         "--canasta-engine", "verdict_engines:UnrelatedCitations", "--canasta-report", str(report), "--canasta-matrix", str(matrix)],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600,
    )
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    data = json.loads(report.read_text())
    assert list(schema_errors("report", data)) == []
    results = {r["id"]: r for r in data["results"]}
    assert {sid: r["status"] for sid, r in results.items()} == dict.fromkeys(results, "rule-differs") and len(results) == 3
    assert results["pile-black-three-top-blocks-take"]["citations"][0]["cited"] == UNRELATED_RULE
    assert results["game-tie-at-target-another-hand"]["tier"] == "reading"
    assert results["game-tie-at-target-another-hand"]["tier_reasons"][0]["rule"] == "game.tie"
    assert data["summary"]["by_tier"]["core"]["rule-differs"] == 2 and data["summary"]["by_tier"]["reading"]["rule-differs"] == 1
    assert data["summary"]["citations"]["differs"] >= 3
    assert data["header"]["engine"]["name"] == "unrelated-citations"
    text = matrix.read_text()
    assert "## Rule citations" in text and "## Core and readings" in text


def test_spec_show_and_coverage_tell_the_relations_and_the_tiers(capsys):
    from canasta_conformance.tools.cli import main

    assert main(["spec", "show", "pile.frozen.no-wild-in-pair"]) == 0
    shown = capsys.readouterr().out
    assert "narrows: pile.frozen.take-with-natural-pair (a citation of those agrees with this rule)" in shown
    assert main(["spec", "show", "pile.frozen.take-with-natural-pair"]) == 0
    assert "narrowed by: " in capsys.readouterr().out
    assert main(["coverage"]) == 0
    readings = sum(scenario_tier(s, SPEC).name == "reading" for s in SCENARIOS)
    assert f"scenarios by tier: {len(SCENARIOS) - readings} core, {readings} reading" in capsys.readouterr().out


def test_canasta_run_takes_the_tier_and_strict_rules_options(tmp_path):
    import subprocess

    folder = tmp_path / "scenarios"
    folder.mkdir()
    for sid in ("game-tie-at-target-another-hand", "pile-black-three-top-blocks-take"):
        shutil.copy(BY_ID[sid].path, folder / BY_ID[sid].path.name)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent) + ":" + os.environ.get("PYTHONPATH", "")}
    completed = subprocess.run(
        [sys.executable, "-m", "canasta_conformance", "run", "--scenarios", str(folder), "--engine", "verdict_engines:UnrelatedCitations",
         "--canasta-tier", "core", "-p", "no:hypothesispytest"],
        cwd=tmp_path, capture_output=True, text=True, env=env,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "1 passed, 1 deselected" in completed.stdout
    assert "  core                  0            0            0            0            1" in completed.stdout
    completed = subprocess.run(
        [sys.executable, "-m", "canasta_conformance", "run", "--scenarios", str(folder), "--engine", "verdict_engines:UnrelatedCitations",
         "--canasta-tier", "core", "--canasta-strict-rules", "-p", "no:hypothesispytest"],
        cwd=tmp_path, capture_output=True, text=True, env=env,
    )
    assert completed.returncode == 1
    rerun = next(line for line in completed.stdout.splitlines() if line.startswith("rerun just this scenario: "))
    assert "scenarios/pile-black-three-top-blocks-take.yaml" in rerun and "--canasta-strict-rules" in rerun
    assert rerun.startswith("rerun just this scenario: PYTHONPATH=")
    bare = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the command carries the import path itself
    again = subprocess.run(rerun.removeprefix("rerun just this scenario: "), shell=True, cwd=tmp_path, capture_output=True, text=True, env=bare)
    assert again.returncode == 1 and "1 failed" in again.stdout, again.stdout + again.stderr


# --- legal_actions compared up to suits (contract.equivalence) -------------------------------------

_SAME_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}


def _other_suits(action):  # type: ignore[no-untyped-def]
    """The same move with every card but the jokers in the other suit of its colour (so red and
    black threes stay apart): physically other cards, the same move under eq.suits.irrelevant.
    A sequence group (meld.sequences) is left as it is: its suit is part of the move."""
    from canasta_conformance.contract.model import action_from_json

    def walk(value):  # type: ignore[no-untyped-def]
        if isinstance(value, str) and re.fullmatch(r"[2-9TJQKA][CDHS]", value):
            return value[0] + _SAME_COLOUR[value[1]]
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict) and value.get("sequence") is True:
            return value
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    return action_from_json(walk(action.to_json()))


def _listing_scenarios() -> list[Scenario]:
    return [s for s in SCENARIOS if any(step.expect.legal_includes or step.expect.legal_excludes for step in s.steps)]


def test_an_engine_listing_its_moves_with_other_suits_passes_every_listing_scenario():
    from canasta_reference.engine import ReferenceEngine

    class OtherSuits(ReferenceEngine):
        def legal_actions(self):  # type: ignore[no-untyped-def]
            return [_other_suits(a) for a in super().legal_actions()]

    engine = OtherSuits()
    scenarios = _listing_scenarios()
    assert len(scenarios) >= 50
    results = {s.id: run_scenario(s, engine, engine.capabilities()) for s in scenarios}
    assert {i: r.message for i, r in results.items() if r.status != "passed"} == {}


def test_an_engine_listing_a_sequence_in_another_suit_fails():
    """A sequence's suit is part of the move: hearts 4-5-6 listed as diamonds 4-5-6 is another meld."""
    from canasta_conformance.contract.model import action_from_json
    from canasta_reference.engine import ReferenceEngine

    def swap_sequences(action):  # type: ignore[no-untyped-def]
        data = action.to_json()
        for group in data.get("melds", ()):
            if isinstance(group, dict) and group.get("sequence") is True:
                group["cards"] = [c[0] + _SAME_COLOUR[c[1]] for c in group["cards"]]
        return action_from_json(data)

    class SwappedSequences(ReferenceEngine):
        def legal_actions(self):  # type: ignore[no-untyped-def]
            return [swap_sequences(a) for a in super().legal_actions()]

    engine = SwappedSequences()
    scenarios = [s for s in _listing_scenarios() if s.options.get("meld.sequences")]
    assert scenarios
    results = [run_scenario(s, engine, engine.capabilities()) for s in scenarios]
    assert any(r.status == "failed" and "legal_actions" in r.message for r in results)


def test_an_engine_that_lists_no_meld_fails_the_listing_scenarios_that_include_one():
    from canasta_reference.engine import ReferenceEngine

    class NoMelds(ReferenceEngine):
        def legal_actions(self):  # type: ignore[no-untyped-def]
            return [a for a in super().legal_actions() if a.type != "meld"]

    engine = NoMelds()
    with_meld = [s for s in _listing_scenarios() if any(a.type == "meld" for step in s.steps for a in step.expect.legal_includes)]
    assert with_meld
    results = [run_scenario(s, engine, engine.capabilities()) for s in with_meld]
    assert all(r.status == "failed" and any(d.startswith("missing: meld") for d in r.details) for r in results), [
        (r.status, r.message, r.details) for r in results]


# --- legal_actions includes up to the steps of one turn (docs/protocol.md) ------------------------

_TWO_RANKS = """
id: two-ranks-{name}
title: two ranks in one meld
rules: [turn.meld.any-number]
requires: [legal_actions]
position:
  turn: 0
  phase: play
  hands:
    - {hand}
    - [8D, 4C]
    - [4S, 6D]
    - [JC, 6H]
  melds:
    - [[KC, KD, KH]]
    - []
  pile: [7D]
  stock: [4D, 4H]
  facts: {{melded_seats: [0]}}
steps:
  - expect:
      legal_actions:
        includes:
          - {{type: meld, melds: [[9C, 9D, 9H], [5C, 5D, 5S]]}}
"""


def _two_ranks(tmp_path: Path, name: str, hand: str) -> Scenario:
    path = tmp_path / f"two-ranks-{name}.yaml"
    path.write_text(_TWO_RANKS.format(name=name, hand=hand))
    return load_scenario(path, load_spec())


def test_a_meld_of_two_ranks_counts_as_listed_when_its_parts_are_listed_one_after_the_other(tmp_path):
    from canasta_reference.engine import ReferenceEngine

    scenario = _two_ranks(tmp_path, "with-cards-left", "[9C, 9D, 9H, 5C, 5D, 5S, JD, 8C]")
    engine = ReferenceEngine()
    engine.load(scenario.position)
    listed = {json.dumps(a.to_json()) for a in engine.legal_actions()}
    assert '{"type": "meld", "melds": [["9C", "9D", "9H"], ["5C", "5D", "5S"]]}' not in listed  # listed in parts only
    result = run_scenario(scenario, engine, engine.capabilities())
    assert result.status == "passed", result.report()


def test_a_meld_of_two_ranks_whose_second_part_is_then_illegal_stays_missing(tmp_path):
    """The nines, then the fives, would empty the hand without a canasta: neither order is legal to
    the end, so the two-rank meld is not shown by its parts."""
    from canasta_reference.engine import ReferenceEngine

    engine = ReferenceEngine()
    result = run_scenario(_two_ranks(tmp_path, "emptying", "[9C, 9D, 9H, 5C, 5D, 5S]"), engine, engine.capabilities())
    assert result.status == "failed" and result.details == ("missing: meld [9C 9D 9H] [5C 5D 5S]",), result.report()


def test_a_part_the_engine_fails_to_play_shows_nothing_and_the_engine_is_put_back(tmp_path):
    from canasta_conformance.contract.model import Meld
    from canasta_reference.engine import ReferenceEngine

    class FailsOnParts(ReferenceEngine):
        def apply(self, action):  # type: ignore[no-untyped-def]
            if isinstance(action, Meld) and len(action.melds) == 1:
                raise RuntimeError("cannot play a part")
            return super().apply(action)

    scenario = _two_ranks(tmp_path, "failing-parts", "[9C, 9D, 9H, 5C, 5D, 5S, JD, 8C]")
    engine = FailsOnParts()
    result = run_scenario(scenario, engine, engine.capabilities())
    assert result.status == "failed" and result.details == ("missing: meld [9C 9D 9H] [5C 5D 5S]",), result.report()
    fresh = ReferenceEngine()
    fresh.load(scenario.position)
    assert engine.observe() == fresh.observe()


def test_an_engine_naming_the_rank_of_every_group_passes_every_listing_scenario():
    """A group that names the rank its natural cards give ({"rank": "K", "cards": [KC, KD, KH]}), or
    a group of wild cards alone named "wild", is the same group as the one that names nothing."""
    from canasta_conformance.contract.model import WILD_MELD, Meld, MeldGroup, TakePile
    from canasta_reference.engine import ReferenceEngine

    def named(group: MeldGroup) -> MeldGroup:
        if group.sequence or group.rank is not None:
            return group
        naturals = {c.rank for c in group.cards if c.rank not in ("JK", "2")}
        return MeldGroup(group.cards, naturals.pop() if len(naturals) == 1 else WILD_MELD)

    class NamedRanks(ReferenceEngine):
        def legal_actions(self):  # type: ignore[no-untyped-def]
            out = []
            for action in super().legal_actions():
                if isinstance(action, Meld):
                    action = Meld(tuple(named(g) for g in action.melds))
                elif isinstance(action, TakePile):
                    action = TakePile(action.cards, tuple(named(g) for g in action.melds))
                out.append(action)
            return out

    engine = NamedRanks()
    scenarios = _listing_scenarios()
    renamed = [a for s in scenarios for step in s.steps for a in step.expect.legal_includes if isinstance(a, Meld | TakePile) and a.melds]
    assert renamed  # the check below meets named groups
    results = {s.id: run_scenario(s, engine, engine.capabilities()) for s in scenarios}
    assert {i: r.message for i, r in results.items() if r.status != "passed"} == {}


def test_listed_actions_that_differ_only_by_suits_make_one_try(tmp_path):
    """An engine may list a group in every choice of suits; the part played is made of the
    expected action's own cards, so each of those listed actions would replay the same try (and,
    with more groups, multiply): each distinct part is played once."""
    import itertools

    from canasta_conformance.contract.model import Meld, MeldGroup
    from canasta_reference.engine import ReferenceEngine

    class EverySuit(ReferenceEngine):
        loads = 0

        def load(self, position):  # type: ignore[no-untyped-def]
            self.loads += 1
            return super().load(position)

        def legal_actions(self):  # type: ignore[no-untyped-def]
            position = self.observe()
            out = []
            for action in super().legal_actions():
                if isinstance(action, Meld) and len(action.melds) == 1 and len({c.rank for c in action.melds[0].cards}) == 1:
                    if position.facts.new_ranks:
                        continue  # wrong: lists no meld after a meld of this turn, so the check must fail
                    rank, size = action.melds[0].cards[0].rank, len(action.melds[0].cards)
                    held = sorted((c for c in position.hands[position.turn] if c.rank == rank), key=lambda c: c.token)
                    out += [Meld((MeldGroup(cards),)) for cards in itertools.combinations(held, size)]
                else:
                    out.append(action)
            return out

    scenario = _two_ranks(tmp_path, "every-suit", "[9C, 9D, 9H, 9S, 5C, 5D, 5S, 5H, JD, 8C]")
    engine = EverySuit()
    result = run_scenario(scenario, engine, engine.capabilities())
    assert result.status == "failed" and result.details == ("missing: meld [9C 9D 9H] [5C 5D 5S]",), result.report()
    assert engine.loads == 1 + 2  # the start, then one try for the nines and one for the fives


class _Reordering:
    """The reference engine observed as an in-process engine may answer: each observe gives the
    hands, the melds (and their cards), the red threes and the facts' lists in a new order. They
    are multisets (docs/protocol.md), so the position is the same."""

    def __init__(self) -> None:
        from canasta_reference import create_engine

        self.inner = create_engine()
        self.turns = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def _order(self, items):  # type: ignore[no-untyped-def]
        self.turns += 1
        items = tuple(items)
        return items[self.turns % max(len(items), 1):] + items[: self.turns % max(len(items), 1)]

    def observe(self):  # type: ignore[no-untyped-def]
        from dataclasses import replace

        p = self.inner.observe()
        facts = replace(p.facts, melded_seats=self._order(p.facts.melded_seats), melded_ranks=self._order(p.facts.melded_ranks))
        return replace(
            p, hands=tuple(self._order(h) for h in p.hands), melds=tuple(self._order(self._order(m) for m in side) for side in p.melds),
            red_threes=tuple(self._order(r) for r in p.red_threes), facts=facts,
        )


def test_a_rejection_leaves_the_position_unchanged_up_to_the_order_of_its_multisets():
    """A rejected action is checked by comparing two observations as whole positions: multisets in
    another order (an in-process engine's tuples) are the same position, not a change."""
    rejecting = [s for s in SCENARIOS if any(step.expect.outcome == "rejected" for step in s.steps)][:40]
    assert len(rejecting) == 40
    results = run_all(_Reordering(), rejecting)
    assert {r.status for r in results.values()} == {"passed"}, [r.message for r in results.values() if r.status != "passed"][:3]
