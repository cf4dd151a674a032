"""Shrinking a fuzz finding into a minimal scenario file.

A :class:`~canasta_conformance.running.fuzz.Finding` is reproduced as: load a position (or deal), play
some accepted actions, run the probe that differed. Shrinking first looks for the latest position
of the game from which the disagreement still reproduces (ideally the position just before the
differing step, so no action is replayed), then removes cards from that position (whole places
first: the stock, the pile, a hand, a meld; then halves; then single cards) and resets the
scores and turn facts, keeping each change while the position stays valid and the same kind of
disagreement persists. The result becomes a scenario whose expectations are what the reference
engine does, checked by loading it back (``canasta validate``) and running it on both engines.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from ..contract.engine_protocol import DealSetup, Engine, OperationUnsupported
from ..contract.equivalence import suit_class
from ..contract.model import WILD_MELD, Action, Meld, Outcome, Position, TakePile, TurnFacts, format_action, meld_rank
from ..contract.scenario import Scenario, ScenarioError, load_scenario, position_problems
from ..contract.sequences import looks_like_sequence, sequence_key
from ..contract.spec import Spec
from .fuzz import Difference, EngineRaised, Finding, Fuzzer, Mirror, Probe, Start, check, oracle_factory
from .runner import Result, run_scenario

#: for editors: the file is meant to live in scenarios/<area>/ of the project
MODELINE = "# yaml-language-server: $schema=../../spec/schema/scenario.schema.json"
#: a rule each kind of action exercises, for a scenario whose action the reference accepts
ACTION_RULES = {
    "draw": "turn.draw.count", "take": "pile.take.whole", "meld": "turn.meld.any-number", "discard": "turn.discard.any-card",
    "ask": "out.ask.optional", "answer": "out.ask.answer-by-partner", "decline": "stock.empty.end",
    "next_hand": "setup.dealer.rotation",
}
KIND_RULES = {"score": "score.structure", "legal_actions": "turn.phase", "start": "setup.deal.count"}


@dataclass(frozen=True)
class Reproduction:
    start: Start
    prefix: tuple[Action, ...]
    probe: Probe
    difference: Difference
    tries: int = 0

    @property
    def cards_in_play(self) -> int | None:
        return len(self.start.all_cards()) if isinstance(self.start, Position) else None


def reproduce(mirror: Mirror, start: Start, prefix: Sequence[Action], probe: Probe) -> Difference | None:
    """Replay ``start`` + ``prefix`` and run ``probe``: the difference it finds, or None (also when
    the oracle refuses the start or an action of the prefix, or the engines differ earlier)."""
    try:
        if isinstance(start, DealSetup):
            mirror.oracle.deal(start)  # type: ignore[attr-defined]
        else:
            mirror.oracle.load(start)
    except (ValueError, KeyError):
        return None
    try:
        lines = mirror.start(start)
    except OperationUnsupported:
        return None
    except EngineRaised as raised:
        if probe.check == "start":
            return Difference("error", f"the engine's {raised.operation}() raised {raised.error!r}")
        return None
    if probe.check == "start":
        return Difference("start", "the positions differ at the start", tuple(lines)) if lines else None
    if lines:
        return None
    for action in prefix:
        if not check(mirror.oracle, action).accepted or mirror.probe(Probe("apply", action)) is not None:
            return None
    return mirror.probe(probe)


class Shrinker:
    def __init__(self, mirror: Mirror, spec: Spec, max_tries: int = 3000) -> None:
        self.mirror = mirror
        self.spec = spec
        self.max_tries = max_tries
        self.tries = 0

    def shrink(self, finding: Finding) -> Reproduction:
        wanted = finding.difference.signature

        def same(start: Start, prefix: Sequence[Action]) -> Difference | None:
            self.tries += 1
            difference = reproduce(self.mirror, start, prefix, finding.probe)
            return difference if difference is not None and difference.signature == wanted else None

        start, prefix = finding.start, finding.prefix
        found = same(start, prefix)
        if found is None:  # not reproducible from its own start: report it as it was seen
            return Reproduction(start, prefix, finding.probe, finding.difference, self.tries)
        if finding.probe.check != "start":
            for index in _latest_first(len(finding.positions) - 1):
                later = same(finding.positions[index], prefix[index:])
                if later is not None:
                    start, prefix, found = finding.positions[index], prefix[index:], later
                    break
        probe = finding.probe
        if probe.action is not None and probe.check == "apply":
            for action in _smaller_actions(probe.action):
                self.tries += 1
                difference = reproduce(self.mirror, start, prefix, Probe("apply", action))
                if difference is not None and difference.signature == wanted:
                    probe, found = Probe("apply", action), difference
                    break

        def same_with_probe(start: Start, prefix: Sequence[Action]) -> Difference | None:
            """Like ``same``, with the smallest probe found."""
            self.tries += 1
            difference = reproduce(self.mirror, start, prefix, probe)
            return difference if difference is not None and difference.signature == wanted else None

        if isinstance(start, Position) and probe.check != "start":
            start, found = self._remove_cards(start, prefix, found, same_with_probe)
            start, found = self._simplify(start, prefix, found, same_with_probe)
        return Reproduction(start, tuple(prefix), probe, found, self.tries)

    def _valid(self, position: Position) -> bool:
        """A valid position that play could reach in shape: while the hand is on, nobody's hand
        is empty (an empty hand has gone out)."""
        if position.phase != "over" and not all(position.hands):
            return False
        rules = self.spec.variant_rules(position.variant, dict(position.options))
        return not any(True for _ in position_problems(position, rules))

    def _facts_on_table(self, position: Position) -> Position:
        """The position with the turn facts forgetting the ranks of melds that were removed (the
        player cannot have laid cards this turn on a meld that is not on the table)."""
        rules = self.spec.variant_rules(position.variant, dict(position.options))
        ranks = {meld_rank(meld, rules.cards_wild_ranks) or WILD_MELD for side in position.melds for meld in side}
        if rules.meld_sequences:  # a sequence is named by its key (meld.sequences)
            ranks |= {sequence_key(meld) for side in position.melds for meld in side if looks_like_sequence(meld, rules.is_natural)}
        facts = position.facts
        kept = replace(
            facts, melded_ranks=tuple(r for r in facts.melded_ranks if r in ranks),
            new_ranks=tuple(r for r in facts.new_ranks if r in ranks),
        )
        return position if kept == facts else replace(position, facts=kept)

    def _remove_cards(self, position: Position, prefix: Sequence[Action], found: Difference, same: Any) -> tuple[Position, Difference]:
        changed = True
        while changed and self.tries < self.max_tries:
            changed = False
            for candidate in _removals(position):
                if self.tries >= self.max_tries:
                    break
                candidate = self._facts_on_table(candidate)
                if not self._valid(candidate):
                    continue
                difference = same(candidate, prefix)
                if difference is not None:
                    position, found, changed = candidate, difference, True
                    break
        return position, found

    def _simplify(self, position: Position, prefix: Sequence[Action], found: Difference, same: Any) -> tuple[Position, Difference]:
        simpler: list[Callable[[Position], Position]] = [
            lambda p: replace(p, scores=(0,) * len(p.scores)),
            lambda p: replace(p, dealer=None),
            lambda p: replace(p, hand_number=1),
            lambda p: replace(p, facts=replace(p.facts, melded_seats=())),
            lambda p: replace(p, facts=TurnFacts()),
        ]
        for simplify in simpler:
            candidate = simplify(position)
            if candidate != position and self.tries < self.max_tries and self._valid(candidate):
                difference = same(candidate, prefix)
                if difference is not None:
                    position, found = candidate, difference
        return position, found


def _smaller_actions(action: Action) -> Iterator[Action]:
    """The action with one group fewer (a meld), or without its further groups (a take): smallest first."""
    if isinstance(action, Meld) and len(action.melds) > 1:
        for group in action.melds:
            yield Meld((group,))
        for index in range(len(action.melds)):
            yield Meld(_drop(action.melds, index, index + 1))
    if isinstance(action, TakePile) and action.melds:
        yield TakePile(action.cards)
        for index in range(len(action.melds)):
            yield TakePile(action.cards, _drop(action.melds, index, index + 1))


def _latest_first(last: int) -> Iterator[int]:
    """last, last-1, last-2, last-4, ... 0."""
    seen = set()
    step = 1
    index = last
    while index > 0:
        if index not in seen:
            seen.add(index)
            yield index
        index = last - step
        step *= 2
    if 0 not in seen:
        yield 0


def _chunks(count: int) -> Iterator[tuple[int, int]]:
    """(start, stop) slices: everything, halves, quarters..., single items."""
    size = count
    while size >= 1:
        for begin in range(0, count, size):
            yield begin, min(count, begin + size)
        if size == 1:
            break
        size = max(1, size // 2)


def _drop(items: Sequence[Any], begin: int, stop: int) -> tuple[Any, ...]:
    return (*items[:begin], *items[stop:])


def _removals(position: Position) -> Iterator[Position]:
    """Smaller positions: whole places emptied first, then halves, then single cards."""
    for begin, stop in _chunks(len(position.stock)):
        yield replace(position, stock=_drop(position.stock, begin, stop))
    for begin, stop in _chunks(len(position.pile)):
        yield replace(position, pile=_drop(position.pile, begin, stop))
    for seat, hand in enumerate(position.hands):
        for begin, stop in _chunks(len(hand)):
            yield replace(position, hands=tuple(_drop(h, begin, stop) if s == seat else h for s, h in enumerate(position.hands)))
    for side, melds in enumerate(position.melds):
        for index in range(len(melds)):
            yield replace(position, melds=tuple(_drop(m, index, index + 1) if s == side else m for s, m in enumerate(position.melds)))
        for index, meld in enumerate(melds):
            for begin in range(len(meld)):
                smaller = tuple(_drop(meld, begin, begin + 1) if i == index else m for i, m in enumerate(melds))
                yield replace(position, melds=tuple(smaller if s == side else m for s, m in enumerate(position.melds)))
    for side, threes in enumerate(position.red_threes):
        for begin, stop in _chunks(len(threes)):
            yield replace(position, red_threes=tuple(_drop(t, begin, stop) if s == side else t for s, t in enumerate(position.red_threes)))


# ------------------------------------------------------------------------------------------------
# Writing the scenario


@dataclass(frozen=True)
class WrittenScenario:
    id: str
    text: str
    path: Path | None
    reference: Result | None = None  # the scenario run on the reference engine (must pass)
    engine: Result | None = None  # ... and on the engine under test (must fail)
    problems: str = ""
    cards_in_play: int | None = None  # in the scenario's starting position

    @property
    def confirmed(self) -> bool:
        return (
            not self.problems and self.reference is not None and self.reference.status == "passed"
            and self.engine is not None and self.engine.status in ("failed", "error", "rule-differs")
        )


def scenario_data(reproduction: Reproduction, finding: Finding, mirror: Mirror, spec: Spec, engine_label: str) -> dict[str, Any]:
    """The scenario as YAML data, its expectations taken from the oracle on one more replay."""
    start, prefix, probe = reproduction.start, reproduction.prefix, reproduction.probe
    difference = reproduce(mirror, start, prefix, probe)  # both engines now stand after the probe
    difference = difference or reproduction.difference
    oracle = mirror.oracle
    action = probe.action
    steps: list[dict[str, Any]] = [{"action": a.to_json(), "expect": {"legal": True}} for a in prefix]
    rules: list[str] = []
    expect: dict[str, Any] = {}
    requires: list[str] = []
    if probe.check == "legal_actions":
        requires.append("legal_actions")
        expect["legal_actions"] = _legal_expectation(mirror)
        rules.append(KIND_RULES["legal_actions"])
    elif probe.check == "start":
        expect["position"] = _partial(oracle.observe(), _engine_position(mirror))
        rules.append(KIND_RULES["start"])
    if action is not None:
        expected = difference.expected or check_after(oracle, action)
        if expected.status == "rejected" and expected.rule:
            expect["legal"] = False
            expect["violates"] = expected.rule
            rules.append(expected.rule)
        elif expected.status == "malformed":
            expect["malformed"] = True
        else:
            expect["legal"] = True
        actual = difference.actual
        if actual is not None and actual.rule and actual.rule in spec.rules:
            rules.append(actual.rule)
        rules.append(ACTION_RULES.get(action.type, "turn.phase"))
        if difference.kind == "position" or (difference.kind == "verdict" and expected.accepted):
            after = oracle.observe()
            engine_after = _engine_position(mirror)
            partial = _partial(after, engine_after) if engine_after is not None and difference.kind == "position" else {}
            if not partial and isinstance(start, Position):
                partial = _partial(after, _position_before(mirror, start, prefix))
            if partial:
                expect["position"] = partial
        if difference.kind == "score":
            sheet = oracle.score()
            expect["hand_over"] = True
            expect["score"] = [s.to_json() for s in sheet.sides]
            if sheet.game_over:
                expect["game"] = {"over": True, "winner": sheet.winner}
            rules.append(KIND_RULES["score"])
    steps.append({**({"action": action.to_json()} if action is not None else {}), "expect": expect})
    body = {"start": _start_json(start), "steps": steps}
    digest = hashlib.sha1(yaml.safe_dump(body, sort_keys=True).encode()).hexdigest()[:8]
    action_text = format_action(action) if action is not None else "legal_actions"
    data: dict[str, Any] = {
        "id": f"fuzz-{difference.kind.replace('_', '-')}-{(action.type if action else probe.check).replace('_', '-')}-{digest}",
        "title": _title(difference, action, expect)[:120],
        "rules": list(dict.fromkeys(rules)),
        "variant": finding.variant,
    }
    if finding.options:
        data["options"] = dict(finding.options)
    if isinstance(start, DealSetup):
        requires.append("deal")
    if requires:
        data["requires"] = requires
    cards = reproduction.cards_in_play
    data["notes"] = (
        f"Found by canasta fuzz (seed {finding.seed}, game {finding.game}, step {finding.step}, variant {finding.variant}"
        + (f", options {dict(finding.options)}" if finding.options else "")
        + f") against {engine_label}: {difference.message}. Shrunk in {reproduction.tries} replays"
        + (f" to {cards} cards in play" if cards is not None else "")
        + f". Expectations are what the reference engine does; check them against the rules before adding this to the corpus ({action_text})."
    )
    if isinstance(start, DealSetup):
        data["deal"] = _start_json(start)
    else:
        data["position"] = _start_json(start)
    data["steps"] = steps
    return data


def check_after(oracle: Engine, action: Action) -> Outcome:
    return check(oracle, action)


def _engine_position(mirror: Mirror) -> Position | None:
    try:
        observed = mirror.engine.observe()
    except Exception:  # noqa: BLE001 - a broken engine: expectations come from the oracle alone
        return None
    return observed.normalized() if isinstance(observed, Position) else None


def _position_before(mirror: Mirror, start: Position, prefix: Sequence[Action]) -> Position:
    """The oracle's position before the probe (replayed on a side copy is not possible through
    the protocol, so the oracle is replayed and put back where it was)."""
    oracle = mirror.oracle
    after = oracle.observe()
    oracle.load(start)
    for action in prefix:
        oracle.apply(action)
    before = oracle.observe()
    oracle.load(after)
    return before


def _legal_expectation(mirror: Mirror) -> dict[str, Any]:
    oracle = mirror.oracle
    listed: list[Action] = []
    try:
        listed = list(mirror.engine.legal_actions())  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001
        pass
    excludes = [a for a in listed if not check(oracle, a).accepted][:3]
    have = {suit_class(a) for a in listed}
    includes = [a for a in oracle.legal_actions() if suit_class(a) not in have][:3]  # type: ignore[attr-defined]
    out: dict[str, Any] = {}
    if includes:
        out["includes"] = [a.to_json() for a in includes]
    if excludes:
        out["excludes"] = [a.to_json() for a in excludes]
    if not out:  # e.g. the engine raised: pin one legal action
        out["includes"] = [a.to_json() for a in oracle.legal_actions()[:1]]  # type: ignore[attr-defined]
    return out


def _partial(expected: Position, actual: Position | None) -> dict[str, Any]:
    """The keys of ``expected`` where ``actual`` differs, as a partial position (per-seat and
    per-side lists with null where they agree)."""
    want = expected.normalized().to_json()
    got = actual.normalized().to_json() if actual is not None else {}
    out: dict[str, Any] = {}
    for key in ("hands", "melds", "red_threes"):
        if key in got and len(got[key]) == len(want[key]):
            entries = [w if w != g else None for w, g in zip(want[key], got[key], strict=True)]
        else:
            entries = list(want[key])
        if any(e is not None for e in entries):
            out[key] = entries
    for key in ("pile", "stock", "turn", "phase", "scores", "dealer", "hand_number", "ended"):
        if want[key] != got.get(key) and not (key == "dealer" and want[key] is None):
            out[key] = want[key]
    facts = {k: v for k, v in want["facts"].items() if v != got.get("facts", {}).get(k)}
    if facts:
        out["facts"] = facts
    return out


def _start_json(start: Start) -> dict[str, Any]:
    if isinstance(start, DealSetup):
        out: dict[str, Any] = {"dealer": start.dealer, "deck": [c.token for c in start.deck]}
        if start.scores:
            out["scores"] = list(start.scores)
        if start.first_player is not None:
            out["first_player"] = start.first_player
        return out
    data = start.normalized().to_json()
    data.pop("variant")
    data.pop("options")
    defaults: Mapping[str, Any] = {
        "dealer": None, "turn": 0, "phase": "draw", "ended": None, "hand_number": 1,
        "scores": [0] * start.sides, "red_threes": [[] for _ in range(start.sides)],
    }
    for key, value in defaults.items():
        if data.get(key) == value:
            data.pop(key)
    facts = {k: v for k, v in data["facts"].items() if v not in (None, False, [])}
    if facts:
        data["facts"] = facts
    else:
        data.pop("facts")
    return data


def _title(difference: Difference, action: Action | None, expect: Mapping[str, Any]) -> str:
    if action is None:
        return "The legal actions listed in this position are exactly the legal ones" if difference.kind != "start" else "The position right after the deal is as the rules say"
    text = format_action(action)
    if difference.kind == "score":
        return f"The score sheet after {text} ends the hand is as the rules say"
    if difference.kind == "position":
        return f"{text} leaves the position as the rules say"
    if expect.get("legal") is False:
        return f"{text} is illegal here ({expect['violates']})"
    if expect.get("malformed"):
        return f"{text} is not an action of this position"
    return f"{text} is legal here"


def to_yaml(data: Mapping[str, Any]) -> str:
    class Dumper(yaml.SafeDumper):
        pass

    def represent_list(dumper: yaml.SafeDumper, items: list[Any]) -> yaml.Node:
        flow = all(not isinstance(i, dict) and not (isinstance(i, list) and any(isinstance(j, (dict, list)) for j in i)) for i in items)
        return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=flow)

    def represent_dict(dumper: yaml.SafeDumper, items: dict[str, Any]) -> yaml.Node:
        flat = all(not isinstance(v, dict) and not (isinstance(v, list) and any(isinstance(i, (dict, list)) for i in v)) for v in items.values())
        return dumper.represent_mapping("tag:yaml.org,2002:map", items, flow_style=flat and len(items) <= 8 and "id" not in items)

    Dumper.add_representer(list, represent_list)
    Dumper.add_representer(dict, represent_dict)
    text = yaml.dump(dict(data), Dumper=Dumper, sort_keys=False, width=110, allow_unicode=True)
    return f"{MODELINE}\n{text}"


def write_scenario(
    reproduction: Reproduction, finding: Finding, mirror: Mirror, spec: Spec, engine_label: str, out: Path,
    reference_factory: Any,
) -> WrittenScenario:
    """Write the scenario to ``out/<id>.yaml``, load it back (the checks of ``canasta validate``)
    and run it on a fresh reference engine (must pass) and on the engine under test (must fail)."""
    data = scenario_data(reproduction, finding, mirror, spec, engine_label)
    text = to_yaml(data)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{data['id']}.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        scenario: Scenario = load_scenario(path, spec)
    except ScenarioError as error:
        return WrittenScenario(data["id"], text, path, problems=str(error), cards_in_play=reproduction.cards_in_play)
    reference = run_scenario(scenario, reference_factory())
    engine = run_scenario(scenario, mirror.engine, mirror.capabilities)
    return WrittenScenario(data["id"], text, path, reference, engine, cards_in_play=reproduction.cards_in_play)


def shrink_and_write(finding: Finding, fuzzer: Fuzzer, spec: Spec, label: str, out: Path) -> WrittenScenario:
    """Shrink ``finding`` and write its scenario to ``out`` (for tests and the pytest items)."""
    reproduction = Shrinker(fuzzer.mirror, spec).shrink(finding)
    return write_scenario(reproduction, finding, fuzzer.mirror, spec, label, out, oracle_factory())
