"""Scenario files: loading, schema validation and semantic checks.

A scenario file holds one scenario (``scenarios/<area>/<id>.yaml``). ``load_scenario`` returns a
:class:`Scenario` or raises :class:`ScenarioError` carrying every problem as
``file:line: path: message``; one broken file never stops the others from loading.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cards import Card, excess_cards
from .docpath import format_path
from .engine_protocol import DealSetup
from .errors import CanastaError
from .locations import SCENARIO_SUFFIXES
from .model import WILD_MELD, Action, FormatError, Position, action_from_json, meld_rank, parse_cards
from .sequences import is_sequence_key, sequence_key
from .spec import Spec, VariantError
from .suggest import did_you_mean
from .variant_rules import VariantRules
from .yamlio import Problem, YamlDocument, YamlError, display_path, excerpt, read_yaml


class ScenarioError(CanastaError, ValueError):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


@dataclass(frozen=True)
class Expect:
    legal: bool | None = None
    violates: tuple[str, ...] = ()
    malformed: bool = False
    position: Mapping[str, Any] | None = None
    hand_over: bool | None = None
    score: tuple[Mapping[str, int], ...] | None = None
    game: Mapping[str, Any] | None = None
    legal_includes: tuple[Action, ...] = ()
    legal_excludes: tuple[Action, ...] = ()

    @property
    def outcome(self) -> str:
        if self.malformed:
            return "malformed"
        return "rejected" if self.legal is False else "accepted"


@dataclass(frozen=True)
class Step:
    index: int
    action: Action | None
    expect: Expect
    note: str | None = None


@dataclass(frozen=True)
class Deal:
    dealer: int
    deck: tuple[Card, ...]
    scores: tuple[int, ...] = ()
    first_player: int | None = None


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    rules: tuple[str, ...]
    variant: str
    options: Mapping[str, Any]
    requires: tuple[str, ...]
    steps: tuple[Step, ...]
    path: Path
    position: Position | None = None
    deal: Deal | None = None
    source: str | None = None
    notes: str | None = None
    area: str = field(default="")
    #: (tier, reason) when the scenario overrides the tier computed from the spec (see tiers.py)
    tier_override: tuple[str, str] | None = None

    @property
    def rule_areas(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(rule.split(".")[0] for rule in self.rules))


def scenario_files(root: Path, problems: list[Problem] | None = None) -> list[Path]:
    """Every YAML file under ``root`` (a folder given as a scenario folder), sorted. Symlinked
    folders are followed once: a link back to a folder already walked (a loop) is not walked again.
    Folders that cannot be listed are added to ``problems`` when given."""
    found: list[Path] = []
    walked: set[str] = set()

    def unreadable(error: OSError) -> None:
        if problems is not None:
            problems.append(Problem(str(error.filename or root), 0, None, f"cannot list the folder: {error.strerror or error}"))

    for folder, subfolders, names in os.walk(root, onerror=unreadable, followlinks=True):
        real = os.path.realpath(folder)
        if real in walked:
            subfolders[:] = []
            continue
        walked.add(real)
        subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
        found.extend(Path(folder, name) for name in names if Path(name).suffix in SCENARIO_SUFFIXES)
    return sorted(found)


def load_scenario(path: Path, spec: Spec) -> Scenario:
    # JSON Schema loads with the first file parsed: a scenario read back from the cache needs none of it
    from .schemas import SchemaFileError, schema_errors

    try:
        document = read_yaml(path)
    except YamlError as error:
        raise ScenarioError(error.problems) from None
    try:
        problems = [document.problem(p, m) for p, m in schema_errors("scenario", document.data)]
    except SchemaFileError as error:
        raise ScenarioError([error.problem]) from None
    if problems:
        raise ScenarioError(problems)
    scenario, problems = _build(document, spec)
    if problems or scenario is None:
        raise ScenarioError(problems)
    return scenario


def load_scenarios(
    paths: Iterable[Path], spec: Spec, loader: Callable[[Path, Spec], Scenario] | None = None,
) -> tuple[list[Scenario], list[Problem]]:
    """Load many scenarios; also checks that ids are unique. Returns (scenarios, problems).
    ``loader`` loads one file (default :func:`load_scenario`; the harness's scenario cache,
    ``running.scenario_cache.load_scenario_cached``, answers the same for an unchanged file)."""
    load = loader or load_scenario
    loaded: list[Scenario] = []
    problems: list[Problem] = []
    seen: dict[str, Path] = {}
    for path in paths:
        try:
            scenario = load(path, spec)
        except ScenarioError as error:
            problems.extend(error.problems)
            continue
        except Exception as error:  # noqa: BLE001 - e.g. a spec with problems: this file only, the others go on
            problems.append(Problem(display_path(path), 0, None, f"cannot be checked: {type(error).__name__}: {excerpt(str(error), 200)}"))
            continue
        if scenario.id in seen:
            document = read_yaml(path)
            problems.append(document.problem(["id"], f"duplicate scenario id {scenario.id!r} (also {seen[scenario.id]})"))
            continue
        seen[scenario.id] = path
        loaded.append(scenario)
    return loaded, problems


def _build(doc: YamlDocument, spec: Spec) -> tuple[Scenario | None, list[Problem]]:
    data = doc.data
    problems: list[Problem] = []

    def problem(path: list[Any], message: str) -> None:
        problems.append(doc.problem(path, message))

    if data["id"] != doc.path.stem:
        problem(["id"], f"id {data['id']!r} must equal the file name {doc.path.stem!r}")
    for index, rule_id in enumerate(data["rules"]):
        if rule_id not in spec.rules:
            problem(["rules", index], f"unknown rule {rule_id!r}{did_you_mean(rule_id, spec.rules)}")
    source = data.get("source")
    if source is not None and spec.sources and source not in spec.sources:
        problem(["source"], f"unknown source {source!r} (sources are listed in spec/sources.yaml)")
    variant = data.get("variant", spec.default_variant)
    options = data.get("options") or {}
    rules: VariantRules | None = None
    if variant not in spec.variants:
        problem(["variant"], f"unknown variant {variant!r}{did_you_mean(variant, spec.variants)} (known: {', '.join(sorted(spec.variants))})")
    else:
        faulty = False
        for key, value in options.items():
            parameter = spec.parameters.get(key)
            if parameter is None:
                problem(["options", key], f"unknown parameter {key!r}{did_you_mean(key, spec.parameters)}")
            elif (why := parameter.check(value)) is not None:
                problem(["options", key], why)
            else:
                continue
            faulty = True
        try:
            rules = spec.variant_rules(variant, options)
        except VariantError as error:
            rules = None
            if not faulty:  # each option is allowed, but not together with the rule set's other values
                problem(["options"], str(error))

    position = None
    deal = None
    try:
        if "position" in data:
            raw = dict(data["position"])
            raw.setdefault("variant", variant)
            raw.setdefault("options", options)
            position = Position.from_json(raw)
        else:
            raw_deal = data["deal"]
            deal = Deal(
                int(raw_deal["dealer"]), parse_cards(raw_deal["deck"], ("deal", "deck")), tuple(raw_deal.get("scores", ())),
                raw_deal.get("first_player"),
            )
    except FormatError as error:
        problem(list(error.parts), error.message)

    if rules is not None and position is not None:
        for path, message in position_problems(position, rules):
            problem(["position", *path], message)
    if rules is not None and deal is not None:
        problems.extend(doc.problem(["deal", *p], m) for p, m in deal_problems(deal, rules))

    steps = []
    for index, raw_step in enumerate(data["steps"]):
        where: list[Any] = ["steps", index]
        action = None
        if "action" in raw_step:
            try:
                action = action_from_json(raw_step["action"], (*where, "action"))
            except FormatError as error:
                problem(list(error.parts), error.message)
        expect_raw = raw_step["expect"]
        violates = expect_raw.get("violates", ())
        violates = (violates,) if isinstance(violates, str) else tuple(violates)
        for rule_id in violates:
            if rule_id not in spec.rules:
                problem([*where, "expect", "violates"], f"unknown rule {rule_id!r}{did_you_mean(rule_id, spec.rules)}")
        if violates and expect_raw.get("legal") is not False:
            problem([*where, "expect"], "'violates' needs 'legal: false'")
        if expect_raw.get("legal") is False and not violates:
            problem([*where, "expect"], "an illegal action names the rule it breaks in 'violates'")
        if expect_raw.get("malformed") and "legal" in expect_raw:
            problem([*where, "expect"], "an action is either malformed or legal/illegal, not both")
        if action is None and any(k in expect_raw for k in ("legal", "violates", "malformed")):
            problem([*where, "expect"], "legal, violates and malformed describe an action: add 'action'")
        includes: tuple[Action, ...] = ()
        excludes: tuple[Action, ...] = ()
        legal_actions = expect_raw.get("legal_actions")
        if legal_actions:
            if "legal_actions" not in data.get("requires", ()):
                problem([*where, "expect", "legal_actions"], "a legal_actions expectation needs 'requires: [legal_actions]'")
            try:
                listed = (*where, "expect", "legal_actions")
                includes = tuple(action_from_json(a, (*listed, "includes", i)) for i, a in enumerate(legal_actions.get("includes", ())))
                excludes = tuple(action_from_json(a, (*listed, "excludes", i)) for i, a in enumerate(legal_actions.get("excludes", ())))
            except FormatError as error:
                problem(list(error.parts), error.message)
        steps.append(Step(index, action, Expect(
            legal=expect_raw.get("legal"), violates=violates, malformed=bool(expect_raw.get("malformed", False)),
            position=expect_raw.get("position"), hand_over=expect_raw.get("hand_over"),
            score=tuple(expect_raw["score"]) if "score" in expect_raw else None,
            game=expect_raw.get("game"),
            legal_includes=includes, legal_excludes=excludes,
        ), raw_step.get("note")))
    if problems:
        return None, problems
    area = doc.path.parent.name
    return Scenario(
        id=data["id"], title=data["title"], rules=tuple(data["rules"]), variant=variant, options=dict(options),
        requires=tuple(data.get("requires", ())), steps=tuple(steps), path=doc.path, position=position, deal=deal,
        source=data.get("source"), notes=data.get("notes"), area=area,
        tier_override=(data["tier"]["tier"], data["tier"]["reason"]) if "tier" in data else None,
    ), []


def position_problems(position: Position, rules: VariantRules) -> Iterator[tuple[list[Any], str]]:
    """Structural problems of a position under a variant's rules (not rule legality)."""
    players, sides = rules.players, rules.sides
    if position.players != players:
        yield ["hands"], f"the variant has {players} players but the position has {position.players} hands"
    if position.sides != sides:
        yield ["melds"], f"the variant has {sides} sides but the position has melds for {position.sides}"
    if rules.red_three_per_player:  # red threes kept by seat (the Regal all-four bonus needs one player)
        if len(position.red_threes) != players and any(position.red_threes):
            yield ["red_threes"], f"this variant keeps red threes per player: red_threes has one entry per seat ({players}), not {len(position.red_threes)}"
    elif len(position.red_threes) != sides:
        yield ["red_threes"], f"the variant has {sides} sides but red_threes has {len(position.red_threes)} entries"
    if len(position.scores) != sides:
        yield ["scores"], f"the variant has {sides} sides but scores has {len(position.scores)} entries"
    if not 0 <= position.turn < players:
        yield ["turn"], f"seat {position.turn} does not exist with {players} players"
    if position.dealer is not None and not 0 <= position.dealer < players:
        yield ["dealer"], f"seat {position.dealer} does not exist with {players} players"
    counts = Counter(position.all_cards())
    for card, seen, allowed in excess_cards(counts, rules.deck_packs, rules.deck_jokers):
        yield [], f"{card.token} appears {seen} times but the deck holds it {allowed} times"
    pooled = yield from _lone_hand_problems(position, rules)
    meld_ranks: set[str] = set()  # of every side, for the turn facts below
    for side_index, side in enumerate(position.melds):
        ranks_seen: set[str] = set()
        for meld_index, meld in enumerate(side):
            where = ["melds", side_index, meld_index]
            rank = meld_rank(meld, rules.cards_wild_ranks)
            naturals = sum(1 for c in meld if not rules.is_wild(c))
            if rank is None and rules.meld_sequences and naturals > 1 and len({c.rank for c in meld}) > 1:
                # meld.sequences: a meld of several ranks must be a sequence of one suit
                if (fault := rules.sequence_fault(meld, new=True)) is not None:
                    yield where, f"{fault.message} ({fault.rule})"
                meld_ranks.add(sequence_key(meld))
                continue
            if rank is None and naturals == 0 and rules.meld_wild_only_melds:
                rank = WILD_MELD  # the side's wild-card meld
            elif rank is None:
                yield where, "a meld needs natural cards of one rank" + (
                    "" if naturals or rules.meld_wild_only_melds else " (this variant has no wild-card melds)"
                )
                continue
            if rank == "3" and any(c.is_red_three for c in meld):
                yield where, "red threes are never melded"
            if rank in ranks_seen:
                yield where, f"the side has two melds of rank {rank}"
            ranks_seen.add(rank)
            meld_ranks.add(rank)
            if rules.meld_max_cards is not None and len(meld) > rules.meld_max_cards:
                yield where, f"a meld has at most {rules.meld_max_cards} cards"
            if rank == WILD_MELD:
                if len(meld) < rules.meld_min_cards:
                    yield where, f"a meld needs at least {rules.meld_min_cards} cards"
            elif (fault := rules.meld_shape_fault(meld)) is not None and not (
                side_index == pooled and fault.rule in ("meld.max-wilds", "meld.wild-ratio")
            ):  # two partners' melds of one rank merged when the lone hand formed may hold more wild cards
                yield where, f"{fault.message} ({fault.rule})"
    for fact in ("melded_ranks", "new_ranks"):  # ranks the player laid this turn are on the table
        for rank in getattr(position.facts, fact):
            if rank not in meld_ranks:
                yield ["facts", fact], f"no meld {'' if is_sequence_key(rank) else 'of rank '}{rank} is on the table"
    talon_sizes = rules.talon_sizes
    if position.talons and not talon_sizes:
        yield ["talons"], "this variant has no bonus talons"
    elif len(position.talons) > len(talon_sizes):
        yield ["talons"], f"this variant has {len(talon_sizes)} bonus talons, the position lists {len(position.talons)}"
    if rules.red_three_dealt_timing == "before_play":
        for seat, hand in enumerate(position.hands):
            if any(c.is_red_three for c in hand):
                yield ["hands", seat], "red threes are laid face up at once: no hand holds one (red_threes lists them)"
    elif position.phase == "play" and 0 <= position.turn < len(position.hands) and any(
        c.is_red_three for c in position.hands[position.turn]
    ):
        yield ["hands", position.turn], "the player to move laid down dealt red threes when the turn began: the hand holds none"
    if (
        rules.end_of_stock_mode == "end_hand" and position.phase == "draw" and not position.stock
        and position.ended is None
    ):
        yield ["stock"], "in this variant the hand ends with the turn that empties the stock: a turn never begins with an empty stock"
    for side_index, threes in enumerate(position.red_threes):
        for index, c in enumerate(threes):
            if not c.is_red_three:
                yield ["red_threes", side_index, index], f"{c.token} is not a red three"
    if len(position.sitting_out) != rules.table_sit_out:
        yield ["sitting_out"], f"the variant has {rules.table_sit_out} player(s) sitting out each hand, the position {len(position.sitting_out)}"
    if rules.table_sit_out and len(position.sitting_out) == rules.table_sit_out:
        # setup.sit-out: the rotation is fixed by the hand number (what the deal of that hand sets),
        # so a position cannot name other seats: the next hand would repeat or skip a player
        seats = [[s for s in range(rules.players) if s % rules.sides == side] for side in range(rules.sides)]
        larger = max(seats, key=len)
        start = (position.hand_number - 1) * rules.table_sit_out
        expected = sorted(larger[(start + k) % len(larger)] for k in range(rules.table_sit_out))
        if sorted(position.sitting_out) != expected:
            yield ["sitting_out"], (
                f"in hand {position.hand_number} the rotation has seat(s) {expected} sitting out, "
                f"not {sorted(position.sitting_out)} (hand_number sets who sits out)"
            )
    for seat in position.sitting_out:
        if not 0 <= seat < len(position.hands):
            yield ["sitting_out"], f"seat {seat} does not exist"
        elif position.hands[seat]:
            yield ["hands", seat], f"seat {seat} sits out this hand and holds no cards"
        if seat == position.turn and position.phase != "over":
            yield ["turn"], f"seat {seat} sits out this hand and has no turn"
    if position.facts.covered_black_three and not any(c.is_black_three for c in position.pile):
        yield ["facts", "covered_black_three"], "the pile holds no black three"
    if position.phase == "over" and position.ended is None:
        yield ["ended"], "a position in phase 'over' says how the hand ended"
    if position.facts.question == "pending" and rules.sides >= rules.players and position.lone_hand is None:
        # (once the three-player lone hand has formed, the two others are partners)
        yield ["facts", "question"], "there is no partner to answer in this variant"


def _lone_hand_problems(position: Position, rules: VariantRules) -> Generator[tuple[list[Any], str], None, int | None]:
    """The three-player lone hand (setup.three-player.lone-hand): a seat of the table, in a variant
    that has it; the partners' melds pooled in the lower partner's list. Returns that list's index."""
    lone = position.lone_hand
    if lone is None:
        return None
    if not rules.three_player_lone_hand:
        yield ["lone_hand"], "this variant has no lone hand (three_player.lone_hand is false)"
        return None
    if not 0 <= lone < len(position.hands):
        yield ["lone_hand"], f"seat {lone} does not exist"
        return None
    partners = [s for s in range(len(position.hands)) if s != lone]
    pooled = min(partners) % rules.sides
    for seat in partners:
        area = seat % rules.sides
        if area != pooled and area < len(position.melds) and position.melds[area]:
            yield ["melds", area], f"seat {seat} is a partner of seat {pooled}: their pooled melds are listed under seat {pooled}"
    return pooled


def deal_problems(deal: Deal, rules: VariantRules) -> Iterator[tuple[list[Any], str]]:
    counts = Counter(deal.deck)
    for card, seen, allowed in excess_cards(counts, rules.deck_packs, rules.deck_jokers):
        yield ["deck"], f"{card.token} appears {seen} times but the deck holds it {allowed} times"
    if not 0 <= deal.dealer < rules.players:
        yield ["dealer"], f"seat {deal.dealer} does not exist with {rules.players} players"
    needed = (rules.players - rules.table_sit_out) * rules.deal_hand_size + sum(rules.talon_sizes) + 1
    if len(deal.deck) < needed:
        yield ["deck"], f"the deal needs at least {needed} cards, the deck has {len(deal.deck)}"
    if rules.deal_first_player == "random" and deal.first_player is None:
        yield ["deal"], "this variant chooses the first player at random: the deal names first_player"
    if deal.first_player is not None and not 0 <= deal.first_player < rules.players:
        yield ["deal", "first_player"], f"seat {deal.first_player} does not exist with {rules.players} players"
    if deal.scores and len(deal.scores) != rules.sides:
        yield ["scores"], f"the variant has {rules.sides} sides but scores has {len(deal.scores)} entries"


def setup_problems(setup: Position | DealSetup, spec: Spec) -> list[str]:
    """What makes a position or a deal impossible under its variant, as ``canasta validate`` says it
    of a scenario (``path: message``): the checks every engine entry point applies to what it is given."""
    try:
        rules = spec.variant_rules(setup.variant, dict(setup.options))
    except VariantError as error:
        return [str(error)]
    if isinstance(setup, Position):
        found = list(position_problems(setup, rules))
    else:
        deal = Deal(setup.dealer, tuple(setup.deck), tuple(setup.scores), setup.first_player)
        found = list(deal_problems(deal, rules))
    return [f"{format_path(path)}: {message}" if path else message for path, message in found]


#: at most this many problems are named in the refusal of a position or a deal
SHOWN_PROBLEMS = 5


def impossible(what: str, problems: list[str]) -> str:
    """The message refusing a position or deal that cannot exist: its first problems, and how many more."""
    shown = "; ".join(problems[:SHOWN_PROBLEMS])
    more = len(problems) - SHOWN_PROBLEMS
    return f"{what} cannot exist: {shown}" + (f"; and {more} more" if more > 0 else "")
