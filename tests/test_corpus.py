"""The scenario corpus: it validates, and every scenario passes on the reference engine."""

from __future__ import annotations

import pytest

from canasta_conformance.running.runner import run_scenario
from canasta_reference import create_engine
from corpus_once import FILES, PROBLEMS, SCENARIOS


def test_every_scenario_file_loads():
    assert [str(p) for p in PROBLEMS] == []
    assert len(SCENARIOS) == len(FILES)


@pytest.fixture(scope="module")
def engine():
    return create_engine()


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_scenario_passes_on_the_reference_engine(scenario, engine):
    result = run_scenario(scenario, engine)
    assert result.status == "passed", result.report()


def test_every_scenario_id_starts_with_its_folder():
    assert [s.id for s in SCENARIOS if not s.id.startswith(s.area + "-")] == []
