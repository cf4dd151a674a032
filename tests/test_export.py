"""`canasta export`: the corpus as JSON, run by a runner that knows nothing of this package."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from canasta_conformance.contract.paths import scenarios_dir
from canasta_conformance.contract.spec import load_spec
from corpus_once import PROBLEMS, SCENARIOS

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "examples" / "json-runner" / "run_corpus.py"
SPEC = load_spec()

#: an engine that differs from the reference engine in ways each comparison of the runner must
#: catch: it declares neither 'legal_actions' nor classic-2p, shows the stock in reverse, accepts
#: taking a blocked pile, cites an unrelated rule for one rejection and a broader rule for another
BROKEN_ENGINE = '''
from dataclasses import replace

from canasta_conformance.contract.model import Outcome, Position
from canasta_reference import create_engine as reference


class Broken:
    def __init__(self):
        self.inner = reference()

    def capabilities(self):
        caps = self.inner.capabilities()
        return replace(caps, variants=tuple(v for v in caps.variants if v != "classic-2p"),
                       features=tuple(f for f in caps.features if f != "legal_actions"))

    def load(self, position):
        self.inner.load(position)

    def apply(self, action):
        outcome = self.inner.apply(action)
        if outcome.status == "rejected" and outcome.rule == "pile.blocked.wild-top":
            return Outcome("accepted")
        if outcome.status == "rejected" and outcome.rule == "pile.frozen.add-not-enough":
            return Outcome("rejected", "turn.phase", outcome.message)  # another rule: rule-differs
        if outcome.status == "rejected" and outcome.rule == "pile.frozen.no-wild-in-pair":
            return Outcome("rejected", "pile.frozen.take-with-natural-pair", outcome.message)  # broader: agrees
        return outcome

    def observe(self):
        position = self.inner.observe()
        data = position.to_json()
        data["stock"] = list(reversed(data["stock"]))
        return Position.from_json(data)

    def score(self):
        return self.inner.score()

    def legal_actions(self):
        return self.inner.legal_actions()


def create_engine():
    return Broken()
'''


def env(*paths: Path) -> dict[str, str]:
    extra = [str(p) for p in paths]
    return {**os.environ, "PYTHONPATH": os.pathsep.join([*extra, *filter(None, [os.environ.get("PYTHONPATH")])])}


def export(target: Path, scenarios: Path | None = None) -> dict[str, object]:
    command = [sys.executable, "-m", "canasta_conformance", "export", str(target)]
    if scenarios is not None:
        command += ["--scenarios", str(scenarios)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env())
    assert done.returncode == 0, done.stderr
    return json.loads((target / "manifest.json").read_text(encoding="utf-8"))


def harness_statuses(engine: list[str], scenarios: Path, tmp: Path, *paths: Path) -> dict[str, str]:
    report = tmp / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "canasta_conformance", "run", *engine, "--scenarios", str(scenarios),
         "--canasta-report", str(report), "-p", "no:randomly", "-p", "no:hypothesispytest"],  # xdist stays loaded: the project's addopts name --dist
        capture_output=True, text=True, timeout=900, env=env(*paths), cwd=tmp,
    )
    assert report.is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    return {r["id"]: r["status"] for r in json.loads(report.read_text(encoding="utf-8"))["results"]}


def runner_statuses(corpus: Path, engine_cmd: str, tmp: Path, *paths: Path) -> dict[str, str]:
    out = tmp / "runner.json"
    # no PYTHONPATH for the runner itself: it must not need this project
    done = subprocess.run([sys.executable, str(RUNNER), str(corpus), "--engine-cmd", engine_cmd, "--json", str(out)],
                          capture_output=True, text=True, timeout=900, env=env(*paths), cwd=tmp)
    assert out.is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    return {sid: r["status"] for sid, r in json.loads(out.read_text(encoding="utf-8")).items()}


def serve(*arguments: str) -> str:
    return " ".join([sys.executable, "-m", "canasta_conformance", "serve", *arguments])


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    target = tmp_path_factory.mktemp("export")
    return target, export(target)


def test_the_manifest_lists_every_scenario_and_every_variant_resolved(corpus):
    target, manifest = corpus
    scenarios, problems = SCENARIOS, PROBLEMS
    assert problems == []
    entries = {e["id"]: e for e in manifest["scenarios"]}  # type: ignore[attr-defined]
    assert set(entries) == {s.id for s in scenarios}
    for scenario in scenarios:
        entry = entries[scenario.id]
        assert (target / entry["file"]).is_file()
        assert entry["variant"] == scenario.variant and entry["rules"] == list(scenario.rules)
        assert ("deal" in entry["requires"]) == (scenario.deal is not None or "deal" in scenario.requires)
    assert manifest["spec_version"] == SPEC.version and manifest["protocol"] == 1
    variants = manifest["variants"]  # type: ignore[index]
    assert set(variants) == set(SPEC.variants)
    for name, variant in variants.items():
        # every parameter of the catalogue, not only the variant file's overrides
        assert set(variant["parameters"]) == set(SPEC.parameters), name
    assert variants["classic-2p"]["parameters"]["players"] == 2 and variants["classic"]["parameters"]["players"] == 4


def test_a_scenario_file_is_what_a_runner_sends_and_compares(corpus):
    target, _ = corpus
    data = json.loads((target / "scenarios" / "pile" / "pile-wild-top-blocks-take.json").read_text(encoding="utf-8"))
    assert data["start"]["op"] == "load"
    position = data["start"]["position"]
    assert position["variant"] == "classic" and position["phase"] in ("draw", "play") and "facts" in position
    rejected = [s for s in data["steps"] if s["expect"]["outcome"] == "rejected"]
    assert rejected and rejected[0]["expect"]["violates"] == ["pile.blocked.wild-top"]
    assert data["tier"] in ("core", "reading")
    narrowing = json.loads((target / "scenarios" / "pile" / "pile-frozen-two-wilds-rejected.json").read_text(encoding="utf-8"))
    step = next(s for s in narrowing["steps"] if s["expect"].get("violates") == ["pile.frozen.no-wild-in-pair"])
    assert step["expect"]["agrees"] == ["pile.frozen.no-wild-in-pair", "pile.frozen.take-with-natural-pair"]
    assert rejected[0]["action"]["type"] == "take"


def test_the_runner_needs_only_the_standard_library():
    tree = ast.parse(RUNNER.read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported


def test_a_runner_reading_only_the_export_gets_the_results_of_canasta_run(corpus, tmp_path):
    target, _ = corpus
    expected = harness_statuses(["--engine-cmd", serve()], scenarios_dir(), tmp_path)
    got = runner_statuses(target, serve(), tmp_path)
    assert got == expected
    assert set(got.values()) == {"passed"} and len(got) > 300


def test_the_runner_and_canasta_run_fail_the_same_scenarios_of_a_broken_engine(tmp_path):
    (tmp_path / "broken_engine.py").write_text(BROKEN_ENGINE)
    target = tmp_path / "export"
    export(target, scenarios_dir() / "pile")
    expected = harness_statuses(["--engine", "broken_engine:create_engine"], scenarios_dir() / "pile", tmp_path, tmp_path)
    got = runner_statuses(target, serve("--engine", "broken_engine:create_engine"), tmp_path, tmp_path)
    assert got == expected
    counts = {status: sum(1 for s in got.values() if s == status) for status in set(got.values())}
    assert counts.get("failed", 0) >= 3 and counts.get("passed", 0) >= 10 and counts.get("unsupported", 0) >= 1
    assert counts.get("rule-differs", 0) >= 1
    assert got["pile-wild-top-blocks-take"] == "failed"


# --- the runner's comparison of listed actions agrees with the suite's ----------------------------

def _runner_module():  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location("run_corpus", RUNNER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Scripted:
    """An engine that accepts every part it is asked to play and then lists ``after``, spoken to
    as the runner speaks (``call``) and as the suite does (``apply``, ``legal_actions``)."""

    def __init__(self, after: list[dict[str, object]]) -> None:
        self.after = after

    def call(self, op: str, **fields: object) -> dict[str, object]:
        return {"outcome": {"status": "accepted"}} if op == "apply" else {"actions": self.after}

    def apply(self, action):  # type: ignore[no-untyped-def]
        from canasta_conformance.contract.model import Outcome

        return Outcome("accepted")

    def legal_actions(self):  # type: ignore[no-untyped-def]
        from canasta_conformance.contract.model import action_from_json

        return [action_from_json(a) for a in self.after]


@pytest.mark.parametrize(("expected", "listed", "after", "found"), [
    # a take listed with other suits of the same cards, its further group listed after it
    ({"type": "take", "cards": ["KC", "KD"], "melds": [["QC", "QD", "QH"], ["9C", "9D", "9H"]]},
     [{"type": "take", "cards": ["KD", "KS"], "melds": [["QC", "QD", "QS"]]}],
     [{"type": "meld", "melds": [["9C", "9D", "9S"]]}], True),
    # a meld with a sequence group (meld.sequences), in parts: the sequence group keeps its suit
    ({"type": "meld", "melds": [{"sequence": True, "cards": ["4H"]}, ["9C", "9D", "9S"]]},
     [{"type": "meld", "melds": [["9C", "9D", "9S"]]}],
     [{"type": "meld", "melds": [{"sequence": True, "cards": ["4H"]}]}], True),
    ({"type": "meld", "melds": [{"sequence": True, "cards": ["4H"]}, ["9C", "9D", "9S"]]},
     [{"type": "meld", "melds": [["9C", "9D", "9S"]]}],
     [{"type": "meld", "melds": [{"sequence": True, "cards": ["4D"]}]}], False),
    ({"type": "meld", "melds": [{"sequence": True, "cards": ["4H"]}, ["9C", "9D", "9S"]]},
     [{"type": "meld", "melds": [{"sequence": True, "cards": ["4D"]}]}],
     [{"type": "meld", "melds": [["9C", "9D", "9S"]]}], False),
])
def test_the_runner_finds_an_action_listed_in_parts_where_the_suite_does(expected, listed, after, found):
    from canasta_conformance.contract.model import action_from_json
    from canasta_conformance.running.runner import _listed_in_steps

    runner = _runner_module()
    engine = _Scripted(after)
    assert runner.listed_in_steps(engine, expected, listed, lambda: None) is found
    suite = _listed_in_steps(action_from_json(expected), [action_from_json(a) for a in listed], engine, lambda: None)  # type: ignore[arg-type]
    assert suite is found


@pytest.mark.parametrize(("listed", "expected"), [
    ({"rank": "3", "cards": ["3C", "3S", "3S"]}, ["3C", "3S", "3S"]),  # black threes melded going out
    ({"rank": "K", "cards": ["KC", "KD", "JK"]}, ["KC", "KD", "JK"]),
    ({"rank": "wild", "cards": ["JK", "2C", "2D"]}, ["JK", "2C", "2D"]),
])
def test_the_runner_compares_a_group_naming_its_natural_rank_as_the_suite(listed, expected):
    from canasta_conformance.contract.equivalence import suit_class
    from canasta_conformance.contract.model import action_from_json

    runner = _runner_module()
    named, unnamed = ({"type": "meld", "melds": [group]} for group in (listed, expected))
    assert suit_class(action_from_json(named)) == suit_class(action_from_json(unnamed))
    assert runner.canonical_action(named) == runner.canonical_action(unnamed)


def test_the_runner_tries_each_part_once_and_a_failed_try_shows_nothing():
    """As the suite: listed actions that differ only by suits make one try, and a try the engine
    answers with an error shows nothing (the runner goes on to the next listed action)."""
    runner = _runner_module()
    expected = {"type": "meld", "melds": [["9C", "9D", "9H"], ["5C", "5D", "5S"]]}
    listed = [{"type": "meld", "melds": [list(cards)]} for cards in (
        ("9C", "9D", "9H"), ("9C", "9D", "9S"), ("9C", "9H", "9S"), ("9D", "9H", "9S"),
        ("5C", "5D", "5S"), ("5C", "5D", "5H"), ("5C", "5H", "5S"), ("5D", "5H", "5S"))]

    class Counting(_Scripted):
        applied = 0

        def call(self, op: str, **fields: object) -> dict[str, object]:
            self.applied += op == "apply"
            return super().call(op, **fields)

    counting = Counting([])
    assert runner.listed_in_steps(counting, expected, listed, lambda: None) is False
    assert counting.applied == 2  # the nines once, the fives once

    class Failing(_Scripted):
        def call(self, op: str, **fields: object) -> dict[str, object]:
            if op == "apply" and fields["action"] == {"type": "meld", "melds": [["9C", "9D", "9H"]]}:
                raise runner.EngineError("the engine reported an error in apply")
            return super().call(op, **fields)

    # the nines fail, the fives then show the nines listed: found, as the suite finds it
    assert runner.listed_in_steps(Failing([{"type": "meld", "melds": [["9C", "9D", "9H"]]}]), expected, listed, lambda: None) is True


def test_the_runner_reads_optional_fields_left_out_as_the_suite():
    from canasta_conformance.contract.equivalence import suit_class
    from canasta_conformance.contract.model import action_from_json

    runner = _runner_module()
    for one, other in (
        ({"type": "take", "cards": ["KC", "KD"]}, {"type": "take", "cards": ["KD", "KS"], "melds": []}),
        ({"type": "next_hand", "deck": ["KC", "KD"]}, {"type": "next_hand", "deck": ["KS", "4C"], "first_player": None}),
    ):
        assert suit_class(action_from_json(one)) == suit_class(action_from_json(other))
        assert runner.canonical_action(one) == runner.canonical_action(other)


_FULL = {
    "variant": "canasta-palace", "options": {"meld.sequences": True}, "dealer": None, "turn": 0, "phase": "over",
    "hands": [[], ["QD", "QS"]], "melds": [[["5H", "6H", "7H"], ["KC", "KD", "KS"]], []], "red_threes": [[], []],
    "pile": ["8C"], "stock": ["6S"], "scores": [0, 0],
    "facts": {"melded_seats": [0, 1], "melded_ranks": ["K", "seq:5H"], "new_ranks": ["seq:5H"], "took_pile": False,
              "question": None, "covered_black_three": False, "last_card_red_three": False},
    "ended": {"reason": "went_out", "seat": 0, "concealed": False}, "hand_number": 1, "sitting_out": [],
}


def test_the_runner_reads_positions_spelled_as_the_protocol_allows_as_the_suite():
    """An engine may leave out a position's keys that hold their defaults, list any multiset in any
    order and the facts' lists (sets) in any order and with repeats, and spell a sequence's key or a rank as the schema allows
    (SEQ:5h, 10): the runner compares what the suite compares, and fails neither the expectation nor
    the check that a rejection left the position as it was."""
    from canasta_conformance.contract.model import Position
    from canasta_conformance.running.diff import full_position_diff, position_diff

    runner = _runner_module()
    terse = {
        "variant": "canasta-palace", "options": {"meld.sequences": True}, "turn": 0, "phase": "over",
        "hands": [[], ["QS", "QD"]], "melds": [[["KS", "KD", "KC"], ["7H", "6H", "5H"]], []],
        "pile": ["8C"], "stock": ["6S"],
        "facts": {"melded_seats": [1, 0], "melded_ranks": ["SEQ:5h", "K", "K"], "new_ranks": ["seq:5H", "SEQ:5H"]},
        "ended": {"reason": "went_out", "seat": 0},
    }
    expected = {key: value for key, value in _FULL.items() if key not in ("variant", "options")}
    assert position_diff(expected, Position.from_json(terse)) == []
    assert full_position_diff(Position.from_json(_FULL), Position.from_json(terse)) == []
    assert runner.position_differences(expected, terse) == []
    assert runner.same_position(_FULL, terse)
    reordered = {**_FULL, "facts": {**_FULL["facts"], "melded_seats": [1, 0], "melded_ranks": ["seq:5H", "K"]}}
    assert runner.same_position(_FULL, reordered)


def test_the_runner_reads_a_score_sheet_without_its_optional_keys_as_the_suite(tmp_path):
    """game_over and winner may be left out of a score sheet (false and null), as the suite reads it."""
    from canasta_conformance.contract.model import ScoreSheet

    sheet = {"sides": [{"total": 20, "cumulative": 20}, {"total": 0}]}
    assert ScoreSheet.from_json(sheet).game_over is False and ScoreSheet.from_json(sheet).winner is None
    runner = _runner_module()

    class Engine:
        def __init__(self) -> None:
            self.capabilities: dict[str, object] = {"features": []}

        def call(self, op: str, **fields: object) -> dict[str, object]:
            return {"score": sheet}

    step = {"action": None, "expect": {"outcome": "accepted", "score": [{"total": 20, "in_hand": 0}], "game": {"over": False, "winner": None}}}
    assert runner.run_step(Engine(), step, lambda: None) is True
