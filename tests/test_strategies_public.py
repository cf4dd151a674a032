"""The exported Hypothesis strategies (canasta_conformance.tools.strategies) and the property-testing
guide's example, run against the reference engine."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings

from canasta_conformance.contract.scenario import position_problems
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.tools import strategies as cs

SPEC = load_spec()
FEW = settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))


@FEW
@given(cs.positions(variant="classic-2p", max_steps=20))
def test_reachable_positions_are_valid(position):
    params = SPEC.variant_parameters(position.variant, dict(position.options))
    assert list(position_problems(position, SPEC.variant_rules(position.variant, dict(position.options)))) == []
    assert len(position.all_cards()) == params["deck.packs"] * 52 + params["deck.jokers"]  # a dealt hand holds the whole deck


@FEW
@given(cs.positions_and_actions(max_steps=20))
def test_legal_actions_are_accepted_by_the_reference(case):
    position, action = case
    assert cs.verdict(position, action).accepted


@FEW
@given(cs.positions_and_actions(max_steps=20, legal=False))
def test_near_misses_are_rejected_citing_a_rule(case):
    position, action = case
    outcome = cs.verdict(position, action)
    assert outcome.status == "rejected" and outcome.rule in SPEC.rules


@FEW
@given(cs.deals(variant="regal"))
def test_deals_hold_a_whole_deck(setup):
    params = SPEC.variant_parameters("regal")
    assert len(setup.deck) == params["deck.packs"] * 52 + params["deck.jokers"]
    assert 0 <= setup.dealer < params["players"]


def test_the_property_testing_guide_runs(pytester, root):
    testing = (root / "docs" / "guides" / "testing-your-engine.md").read_text(encoding="utf-8")
    guide = (root / "docs" / "guides" / "property-testing.md").read_text(encoding="utf-8")
    adapter = re.findall(r"```python\n(.*?)```", testing, re.S)[0]
    properties = re.findall(r"```python\n(.*?)```", guide, re.S)[0]
    pytester.makepyfile(my_engine=adapter, test_my_engine_properties=properties.replace("max_examples=25", "max_examples=2"))
    pytester.syspathinsert()
    result = pytester.runpytest_inprocess("-p", "no:randomly", "-p", "no:xdist", "-q")
    result.assert_outcomes(passed=4)
