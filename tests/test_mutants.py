"""The strength check: every deliberately wrong engine fails a scenario tagged with the rule it
breaks (so the corpus would notice that mistake in a real engine)."""

from __future__ import annotations

import pytest

from canasta_conformance.data import scenarios_dir
from canasta_conformance.runner import run_scenario
from canasta_conformance.scenario import load_scenarios, scenario_files
from canasta_conformance.spec import load_spec
from mutants import MUTANTS

SPEC = load_spec()
SCENARIOS, _ = load_scenarios(scenario_files(scenarios_dir()), SPEC)


def test_there_are_at_least_20_mutants_and_each_breaks_known_rules():
    assert len(MUTANTS) >= 20
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)
    for mutant in MUTANTS:
        assert mutant.breaks and all(rule in SPEC.rules for rule in mutant.breaks), mutant.name


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_each_mutant_fails_a_scenario_tagged_with_the_rule_it_breaks(mutant):
    tagged = [s for s in SCENARIOS if set(mutant.breaks) & ({*s.rules} | {r for step in s.steps for r in step.expect.violates})]
    assert tagged, f"no scenario is tagged with {mutant.breaks}"
    engine = mutant.factory()()
    caught = [s.id for s in tagged if run_scenario(s, engine).status in ("failed", "error")]
    assert caught, f"{mutant.name} passes all {len(tagged)} scenarios tagged {', '.join(mutant.breaks)}"
