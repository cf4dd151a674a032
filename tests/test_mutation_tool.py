"""The mutation-testing tool (tools/mutate.py) on a small fixed sample: its mutants are real
changes of the reference engine that the corpus notices, and the engine is restored after each."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from canasta_conformance.contract.paths import scenarios_dir
from canasta_conformance.contract.scenario import load_scenario
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.running.runner import run_scenario
from canasta_reference.engine import ReferenceEngine


@pytest.fixture(scope="module")
def mutate(root):
    spec = importlib.util.spec_from_file_location("mutate_tool", root / "tools" / "mutate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutate_tool"] = module
    spec.loader.exec_module(module)
    return module


def test_mutants_change_one_thing_and_never_messages(mutate):
    mutants = mutate.list_mutants(("pile",))
    assert len(mutants) > 30
    assert all(m.original != m.mutated for m in mutants)
    assert not any("Illegal(" in m.original for m in mutants if m.operator != "drop-raise")  # messages and rule IDs stay
    assert {"compare:0", "drop-raise", "boolop"} <= {m.operator for m in mutants}


# a fixed sample: removing the blocked-pile check, flipping the wild-card test of the frozen pile
SAMPLE = ("drop-raise", "check_top_not_blocked")


def test_a_sample_of_mutants_is_killed_and_the_engine_restored(mutate):
    mutants = [m for m in mutate.list_mutants(("pile",)) if m.function == SAMPLE[1] and m.operator == SAMPLE[0]]
    assert mutants
    mutate._init_worker()
    results = [mutate.run_mutant(m) for m in mutants[:2]]
    assert all(r["status"] == "killed" for r in results), results
    spec = load_spec()
    scenario = load_scenario(scenarios_dir() / "pile" / "pile-wild-top-blocks-take.yaml", spec)
    assert run_scenario(scenario, ReferenceEngine(spec)).status == "passed"  # the live code is the original again


def test_a_mutant_of_a_memoised_function_is_not_served_from_the_cache(mutate):
    """_wild_vectors memoises its answers in a module-level dict that the reference filled while
    the corpus ran: the tool empties it around each mutant, so the mutant's own answers count."""
    mutant = next(m for m in mutate.list_mutants(("position_facts",)) if m.function == "_wild_vectors" and m.operator == "compare:0")
    mutate._init_worker()
    mutate._CORPUS.first_failure()  # the reference fills the cache
    assert mutate.run_mutant(mutant)["status"] == "killed"


def test_a_mutant_of_a_default_argument_value_is_applied_and_restored(mutate):
    """A default value lives in the function object, not in its code: swapping the code alone ran
    the original for such a mutant. deal_hand's default hand number decides who sits out in
    five-player Classic, which setup-classic-5p-first-hand-seat-0-sits-out checks."""
    from canasta_reference import setup

    mutant = next(m for m in mutate.list_mutants(("setup",)) if m.function == "deal_hand" and m.original == "1" and m.mutated == "2")
    before = setup.deal_hand.__defaults__
    live, new = mutate.mutated_code(mutant)
    restore = mutate.swap_in(live, new)
    try:
        assert live.__defaults__ is not None and 2 in live.__defaults__ and live.__code__ is new
    finally:
        restore()
    assert setup.deal_hand.__defaults__ == before and setup.deal_hand.__code__ is not new
    mutate._init_worker()
    assert mutate.run_mutant(mutant)["status"] == "killed"
