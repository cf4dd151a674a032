"""Differential fuzzing: deliberately wrong engines are found, and each finding shrinks into a
small valid scenario that fails on the wrong engine and passes on the reference."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from canasta_conformance.contract.cards import cards
from canasta_conformance.contract.equivalence import suit_class
from canasta_conformance.contract.model import Discard, Meld, MeldGroup
from canasta_conformance.contract.scenario import load_scenario
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.running.fuzz import Fuzzer, FuzzSettings, Probe, oracle_factory
from canasta_conformance.running.runner import run_scenario
from canasta_conformance.running.shrink import shrink_and_write
from canasta_conformance.tools.cli import main
from mutants import MUTANTS

SPEC = load_spec()
BY_NAME = {m.name: m for m in MUTANTS}

# (mutant, seed, kind of disagreement, cards in play at most): fixed seeds with which a few games
# find the mutant; the kinds differ on purpose
CASES = [
    ("two-card-melds", 1, "verdict", 12),
    ("wild-ratio-always", 1, "verdict", 12),
    ("six-card-canastas", 4, "verdict", 12),
    ("draw-two", 3, "position", 12),
    ("canasta-bonus-swapped", 1, "score", 12),
]


@pytest.mark.parametrize(("name", "seed", "kind", "most"), CASES, ids=[c[0] for c in CASES])
def test_fuzzing_finds_a_mutant_and_shrinks_it_into_a_small_scenario(name, seed, kind, most, tmp_path):
    engine = BY_NAME[name].factory()()
    fuzzer = Fuzzer(engine, FuzzSettings(seed=seed), spec=SPEC)
    findings = fuzzer.run(range(5))
    assert findings, f"{name} not found in 5 games of seed {seed}"
    finding = findings[0]
    assert finding.kind == kind
    written = shrink_and_write(finding, fuzzer, SPEC, f"tests.mutants:{name}", tmp_path)
    assert not written.problems
    scenario = load_scenario(tmp_path / f"{written.id}.yaml", SPEC)  # what `canasta validate` checks
    assert scenario.id == written.id and scenario.position is not None
    assert len(scenario.position.all_cards()) <= most
    assert run_scenario(scenario, oracle_factory()()).status == "passed"
    assert run_scenario(scenario, BY_NAME[name].factory()()).status == "failed"
    assert f"seed {seed}" in (scenario.notes or "") and "variant classic" in (scenario.notes or "")


# (mutant, seed, game, kind): mutants random play seldom reaches, found from an arranged start (a
# forced take at the exhausted stock, a canasta below the minimum, a concealed going out, a red
# three under the pile, a new canasta laid while going out by a side that has melded); game g of
# seed s is always the same game, so one game each suffices
RARE = [
    ("no-forced-take", 0, 7, "verdict"),
    ("bonuses-count-toward-minimum", 0, 20, "verdict"),
    ("no-concealed-bonus", 0, 50, "score"),
    ("red-three-upcard-does-not-freeze", 0, 9, "verdict"),
    ("concealed-whenever-canasta", 0, 16, "position"),
]


@pytest.mark.parametrize(("name", "seed", "game", "kind"), RARE, ids=[c[0] for c in RARE])
def test_arranged_starts_reach_the_rare_rules(name, seed, game, kind, tmp_path):
    fuzzer = Fuzzer(BY_NAME[name].factory()(), FuzzSettings(seed=seed), spec=SPEC)
    findings = fuzzer.run([game])
    assert findings and findings[0].kind == kind, f"{name} not found in game {game} of seed {seed}"
    written = shrink_and_write(findings[0], fuzzer, SPEC, f"tests.mutants:{name}", tmp_path)
    assert written.confirmed and not written.problems
    assert written.cards_in_play is not None and written.cards_in_play <= 12


def test_the_reference_against_itself_agrees():
    fuzzer = Fuzzer(oracle_factory()(), FuzzSettings(seed=7, hands_per_game=1), spec=SPEC)
    assert fuzzer.run(range(1)) == []
    assert fuzzer.stats.steps > 20 and fuzzer.stats.checks > fuzzer.stats.steps


def test_an_arranged_start_for_a_hand_holding_nearly_every_rank_plays():
    """Game 12 of seed 21 arranges melds for the side of a player whose hand holds all but one or
    two of the natural ranks: the ranks to meld are drawn from those the hand does not hold (the
    fuzzer crashed here, sampling more ranks than were left)."""
    fuzzer = Fuzzer(oracle_factory()(), FuzzSettings(seed=21), spec=SPEC)
    assert fuzzer.run([12]) == []
    assert fuzzer.stats.steps > 0


def test_games_are_reproducible_from_their_seed():
    def first_finding() -> tuple[object, ...]:
        fuzzer = Fuzzer(BY_NAME["wild-ratio-always"].factory()(), FuzzSettings(seed=1), spec=SPEC)
        finding = fuzzer.run(range(3))[0]
        return finding.game, finding.step, finding.probe, finding.prefix

    assert first_finding() == first_finding()


def test_legal_action_lists_compare_up_to_suits():
    assert suit_class(Discard(cards("5H")[0])) == suit_class(Discard(cards("5S")[0]))
    assert suit_class(Discard(cards("3H")[0])) != suit_class(Discard(cards("3S")[0]))  # red and black threes differ
    assert suit_class(Meld((MeldGroup(cards("KH KS 2D")),))) == suit_class(Meld((MeldGroup(cards("KC KD 2S")),)))
    assert suit_class(Meld((MeldGroup(cards("KH KS 2D")),))) != suit_class(Meld((MeldGroup(cards("KH KS JK")),)))


def test_the_cli_writes_a_valid_scenario_and_exits_1(tmp_path, capsys):
    code = main(["fuzz", "--engine", "tests.mutants:two_card_melds", "--games", "3", "--seed", "1", "--out", str(tmp_path), "--quiet"])
    out = capsys.readouterr().out
    assert code == 1
    written = list(tmp_path.glob("fuzz-*.yaml"))
    assert len(written) == 1, out
    assert "confirmed (reference: passed; engine: failed)" in out
    assert main(["validate", str(written[0])]) == 0


def test_the_cli_finds_nothing_in_the_reference_and_exits_0(capsys):
    assert main(["fuzz", "--games", "1", "--hands", "1", "--seed", "2", "--quiet"]) == 0
    assert "0 findings" in capsys.readouterr().out


def test_the_cli_fuzzes_an_engine_program(tmp_path, capsys, root: Path):
    command = shlex.join([sys.executable, "-m", "canasta_conformance", "serve", "--engine", "tests.mutants:one_natural_is_enough"])
    code = main(["fuzz", "--engine-cmd", command, "--games", "3", "--seed", "1", "--out", str(tmp_path), "--quiet"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "confirmed (reference: passed; engine: failed)" in out


def test_an_unknown_variant_is_a_usage_error(capsys):
    assert main(["fuzz", "--variant", "no-such-variant", "--games", "1"]) == 2
    assert "no-such-variant" in capsys.readouterr().err


def test_a_probe_names_its_check():
    assert Probe("legal_actions").action is None


def test_pytest_items_partition_the_games_and_report_findings(pytester, tmp_path):
    out = tmp_path / "found"
    result = pytester.runpytest_inprocess(
        "--canasta-fuzz", "2", "--canasta-fuzz-seed", "1", "--canasta-engine", "mutants:two_card_melds",  # tests/ is on sys.path (conftest), the repo root may not be
        "--canasta-fuzz-out", str(out), "-p", "no:randomly", "-p", "no:xdist", "-v",
    )
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*canasta-fuzz?seed1-game0? FAILED*", "*canasta-fuzz?seed1-game1? FAILED*", "*canasta fuzz: 2/2 games*2 findings*"])
    written = sorted(out.glob("fuzz-*.yaml"))
    assert len(written) == 2
    assert main(["validate", *map(str, written)]) == 0


def test_pytest_items_on_the_reference_pass(pytester):
    result = pytester.runpytest_inprocess("--canasta-fuzz", "1", "--canasta-fuzz-seed", "5", "-p", "no:randomly", "-p", "no:xdist", "-q")
    result.assert_outcomes(passed=1)


def test_a_citing_engine_is_held_to_the_rule_it_cites(tmp_path):
    name = "wild-top-does-not-block"  # refuses the same takes as the reference, citing another rule
    fuzzer = Fuzzer(BY_NAME[name].factory()(), FuzzSettings(seed=0), spec=SPEC)
    assert "cites_rules" in fuzzer.mirror.capabilities.features
    finding = fuzzer.run(range(5))[0]
    assert finding.kind == "citation"
    written = shrink_and_write(finding, fuzzer, SPEC, name, tmp_path)
    assert written.confirmed and written.engine is not None and written.engine.status == "rule-differs"
    assert "violates: pile.blocked.wild-top" in written.text


class _TerseObserver:
    """The reference, observed as an engine may answer: no red threes given as one empty list per
    side (what a position that leaves `red_threes` out reads as, in Regal too, where they are kept
    per seat), the seats sitting out in another order."""

    def __init__(self) -> None:
        self.inner = oracle_factory()()

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def observe(self):  # type: ignore[no-untyped-def]
        from dataclasses import replace

        position = self.inner.observe()
        if not any(position.red_threes):
            position = replace(position, red_threes=tuple(() for _ in position.melds))
        return replace(position, sitting_out=tuple(reversed(position.sitting_out)))


def test_positions_compare_as_the_scenarios_compare_them():
    """A Regal position left without its empty red threes (kept per seat there) is the same position
    (docs/guides/writing-a-runner.md, Comparing: a seat or side the engine does not have counts as
    empty): no finding, as no scenario fails it."""
    fuzzer = Fuzzer(_TerseObserver(), FuzzSettings(variant="regal", seed=0, hands_per_game=2), spec=SPEC)  # type: ignore[arg-type]
    assert fuzzer.run(range(3)) == []
