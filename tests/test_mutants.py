"""The strength check: every deliberately wrong engine fails a scenario tagged with the rule it
breaks, by what it does (so the corpus would notice that mistake in a real engine that cites no
rule at all). A mutant that differs only in its citations is listed in CITATION_ONLY and must be
caught by its citation alone (a citing engine under --canasta-strict-rules) and by nothing else."""

from __future__ import annotations

from dataclasses import replace

import pytest

import corpus_once
from canasta_conformance.contract.engine_protocol import CITES_RULES
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.running.runner import Judging, run_scenario
from mutants import CITATION_ONLY, MUTANTS

SPEC = load_spec()
SCENARIOS = corpus_once.SCENARIOS


def test_there_are_at_least_20_mutants_and_each_breaks_known_rules():
    assert len(MUTANTS) >= 20
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)
    for mutant in MUTANTS:
        assert mutant.breaks and all(rule in SPEC.rules for rule in mutant.breaks), mutant.name
    assert set(CITATION_ONLY) <= {m.name for m in MUTANTS}


def _tagged(mutant):
    tagged = [s for s in SCENARIOS if set(mutant.breaks) & ({*s.rules} | {r for step in s.steps for r in step.expect.violates})]
    assert tagged, f"no scenario is tagged with {mutant.breaks}"
    return tagged


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_each_mutant_fails_a_scenario_tagged_with_the_rule_it_breaks_by_behaviour(mutant):
    tagged = _tagged(mutant)
    engine = mutant.factory()()
    capabilities = engine.capabilities()
    silent = replace(capabilities, features=tuple(f for f in capabilities.features if f != CITES_RULES))
    results = {s.id: run_scenario(s, engine, silent) for s in tagged}
    assert all(r.status != "error" for r in results.values()), {i: r.message for i, r in results.items() if r.status == "error"}
    caught = [sid for sid, r in results.items() if r.status == "failed"]
    if mutant.name in CITATION_ONLY:
        assert not caught, f"{mutant.name} is caught by behaviour in {caught}: remove it from CITATION_ONLY"
        strict = [s.id for s in tagged if run_scenario(s, engine, capabilities, Judging(strict_rules=True)).status == "failed"]
        assert strict, f"{mutant.name} is not caught even by its citations"
    else:
        assert caught, f"{mutant.name} passes all {len(tagged)} scenarios tagged {', '.join(mutant.breaks)} when citations are ignored"
