"""Differential fuzzing: random games on the reference engine, mirrored step by step in the engine
under test.

The reference engine (the oracle, imported only by name like the default engine) deals a hand
from a random deck and lists its legal actions; a random player picks one (uniformly by kind, or
an "interesting" one: a take, a meld near the minimum, going out, the end of the stock). The
engine under test is started from the same deal (its ``deal`` feature) or from the oracle's
position (``load``), and at every step the two are compared:

* the verdict on the chosen action, and on a few near-miss illegal actions generated from the
  position (one card short, the wrong card, a wild card too many, the frozen pile, the wrong
  phase...);
* the observed position after each accepted action;
* the score sheet when the hand is over;
* where the engine declares ``legal_actions``, the two lists, up to suits (``eq.suits.irrelevant``):
  every action the engine lists must be legal, and the engine must list an action of every
  suit-class the oracle lists.

Verdicts compare legality first (accepted, rejected, malformed); the rule an engine cites is
compared only when :func:`citation_agrees` says the engine claims to cite this spec's rule IDs.

A disagreement is returned as a :class:`Finding` with what is needed to reproduce it: the
position (or deal) the game started from, the accepted actions before the differing check and
that check. :mod:`canasta_conformance.running.shrink` turns it into a minimal scenario file.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..contract.cards import Card, full_deck, sort_cards
from ..contract.defaults import DEFAULT_ENGINE
from ..contract.engine_protocol import CITES_RULES, Capabilities, DealSetup, Engine, OperationUnsupported, resolve_factory
from ..contract.equivalence import suit_class
from ..contract.errors import CanastaError
from ..contract.model import (
    Action,
    Ask,
    Decline,
    Discard,
    Draw,
    Meld,
    MeldGroup,
    NextHand,
    Outcome,
    Position,
    ScoreSheet,
    TakePile,
    format_action,
)
from ..contract.scenario import setup_problems
from ..contract.spec import Spec, load_spec
from ..contract.variant_rules import VariantRules
from .diff import full_position_diff, score_diff

Kind = Literal["start", "verdict", "citation", "position", "score", "legal_actions", "error"]
Start = Position | DealSetup

#: cumulative scores a game may start from: each row of the usual initial-meld tables, a
#: negative score, and one hand from the target (filled in per variant)
START_SCORE_CHOICES = (0, 0, 0, -150, 1495, 1500, 2995, 3000)
#: the natural ranks a meld may hold, lowest count first (threes apart)
_NATURAL_RANKS = ("4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")


def _card_kind(c: Card, rules: VariantRules) -> str:
    if rules.is_wild(c):
        return "wild"
    if c.rank == "3":
        return "red three" if c.is_red_three else "black three"
    return "natural"


@dataclass(frozen=True)
class FuzzSettings:
    variant: str = "classic"
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 0
    #: hands played in one game (the game also ends when the oracle says it is over)
    hands_per_game: int = 2
    #: near-miss illegal actions tried at each step
    near_misses: int = 3
    #: compare legal_actions lists (when the engine declares them) every this many steps (0: never)
    legal_actions_every: int = 1
    max_steps_per_hand: int = 4000
    #: the chance that a game starts from a loaded position with a short stock (end-of-stock play)
    short_stock: float = 0.25
    #: the chance that a game starts from non-zero cumulative scores
    odd_scores: float = 0.4
    #: the chance that the deal turns up a red three, a wild card or a black three as the upcard
    odd_upcard: float = 0.15
    #: the chance that a game starts from a dealt position rearranged to reach rare rules soon (see
    #: :meth:`Fuzzer._arranged`): sides that have melded, a red three under the pile, a hand that
    #: can go out concealed or holds a long low meld, a short stock
    arranged: float = 0.5


@dataclass(frozen=True)
class Probe:
    """One comparison of the two engines: ``start`` (their positions right after the start),
    ``apply`` (the verdict on ``action``, then the position, then the score sheet if the hand is
    over) or ``legal_actions`` (the two lists in the current position)."""

    check: Literal["start", "apply", "legal_actions"]
    action: Action | None = None


@dataclass(frozen=True)
class Difference:
    """What a probe found: its kind, a message and the evidence, and for an action both verdicts."""

    kind: Kind
    message: str
    details: tuple[str, ...] = ()
    expected: Outcome | None = None  # the oracle's verdict on the probed action
    actual: Outcome | None = None  # the engine's verdict

    @property
    def signature(self) -> tuple[str, ...]:
        """What makes two differences "the same bug" while shrinking."""
        return (self.kind, self.expected.status if self.expected else "-", self.actual.status if self.actual else "-")


@dataclass(frozen=True)
class Finding:
    """A difference with what it takes to reproduce it: load ``start`` (or deal it), play
    ``prefix`` (accepted by both engines), then run ``probe``."""

    difference: Difference
    probe: Probe
    start: Start
    prefix: tuple[Action, ...]
    #: the oracle's positions before each prefix action and before the probe (len(prefix) + 1)
    positions: tuple[Position, ...] = ()
    seed: int = 0
    game: int = 0
    step: int = 0
    variant: str = "classic"
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> Kind:
        return self.difference.kind

    @property
    def signature(self) -> tuple[str, ...]:
        return (*self.difference.signature, self.probe.check, self.probe.action.type if self.probe.action else "-")

    def report(self) -> str:
        d = self.difference
        head = f"{d.kind} disagreement (seed {self.seed}, game {self.game}, step {self.step}): {d.message}"
        return "\n".join([head, *(f"    {line}" for line in d.details)])


@dataclass
class FuzzStats:
    games: int = 0
    hands: int = 0
    steps: int = 0
    checks: int = 0
    started: float = field(default_factory=time.perf_counter)

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started

    def line(self, findings: int) -> str:
        rate = self.steps / self.seconds if self.seconds > 0 else 0.0
        return (
            f"fuzz: {self.games} games, {self.hands} hands, {self.steps} steps ({rate:.0f} steps/s), "
            f"{self.checks} checks, {findings} finding{'s' if findings != 1 else ''}"
        )


class EngineRaised(CanastaError):
    """The engine under test raised while the fuzzer drove it (not an oracle problem)."""

    def __init__(self, operation: str, error: BaseException) -> None:
        super().__init__(f"{operation} raised {error!r}")
        self.operation = operation
        self.error = error


def oracle_factory() -> Callable[[], Engine]:
    """The reference engine, by name (the harness never imports its internals)."""
    return resolve_factory(DEFAULT_ENGINE)


def citation_agrees(expected: str | None, actual: str | None, capabilities: Capabilities, spec: Spec) -> bool:
    """Whether the rule an engine's rejection cites agrees with the oracle's.

    Citations are judged only for an engine that declares it cites this spec's rule IDs
    (``cites_rules``), as the runner judges them: the same rule, or a broader rule that the
    oracle's narrows (the spec's ``narrows:`` relation)."""
    if CITES_RULES not in capabilities.features or expected is None or actual == expected:
        return True
    return spec.citation_agrees(actual, (expected,))


# ------------------------------------------------------------------------------------------------
# Comparing the two engines on one check


class Mirror:
    """The oracle and the engine under test, kept in the same position."""

    def __init__(
        self, oracle: Engine, engine: Engine, spec: Spec, capabilities: Capabilities | None = None,
        restart: Callable[[], Engine] | None = None,
    ) -> None:
        self.oracle = oracle
        self.engine = engine
        #: builds a fresh engine after one raised (an engine process that failed is not reused)
        self.restart = restart
        self.spec = spec
        self.capabilities = capabilities or engine.capabilities()
        self.lists_actions = "legal_actions" in self.capabilities.features
        self.deals = "deal" in self.capabilities.features
        #: the actions behind the last legal_actions difference (listed but illegal, or missing)
        self.offenders: list[Action] = []

    # --- guarded calls into the engine under test -------------------------------------------------
    def _call(self, operation: str, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except OperationUnsupported:
            raise
        except Exception as error:
            if self.restart is not None:
                self.engine = self.restart()
            raise EngineRaised(operation, error) from error

    def start(self, start: Start) -> list[str]:
        """Put both engines at ``start``; the differences between their positions (none: agreed)."""
        if isinstance(start, DealSetup):
            self.oracle.deal(start)  # type: ignore[attr-defined]
            if self.deals:
                self._call("deal", lambda: self.engine.deal(start))  # type: ignore[attr-defined]
            else:
                self._call("load", lambda: self.engine.load(self.oracle.observe()))
        else:
            self.oracle.load(start)
            self._call("load", lambda: self.engine.load(start))
        return self.position_differences()

    def position_differences(self) -> list[str]:
        expected = self.oracle.observe().normalized()
        actual = self._call("observe", self.engine.observe)
        if not isinstance(actual, Position):
            return [f"observe() must return a Position, got {actual!r}"]
        actual = actual.normalized()
        if actual == expected:
            return []
        return full_position_diff(expected, actual)

    def verdicts(self, action: Action) -> tuple[Outcome, Outcome]:
        expected = self.oracle.apply(action)
        actual = self._call("apply", lambda: self.engine.apply(action))
        if not isinstance(actual, Outcome):
            raise EngineRaised("apply", TypeError(f"apply() must return an Outcome, got {actual!r}"))
        return expected, actual

    def verdicts_agree(self, expected: Outcome, actual: Outcome) -> bool:
        return expected.status == actual.status

    def score_differences(self) -> list[str]:
        expected: ScoreSheet = self.oracle.score()
        try:
            actual = self._call("score", self.engine.score)
        except OperationUnsupported:
            return []
        if not isinstance(actual, ScoreSheet):
            return [f"score() must return a ScoreSheet, got {actual!r}"]
        lines = score_diff([side.to_json() for side in expected.sides], actual)
        if len(actual.sides) != len(expected.sides):
            lines.append(f"the engine's sheet has {len(actual.sides)} sides, expected {len(expected.sides)}")
        if (actual.game_over, actual.winner) != (expected.game_over, expected.winner):
            lines.append(f"game: expected over={expected.game_over} winner={expected.winner}, actual over={actual.game_over} winner={actual.winner}")
        return lines

    def legal_action_differences(self) -> list[str]:
        """The engine's legal_actions() against the oracle's, up to suits."""
        if not self.lists_actions:
            return []
        try:
            listed = list(self._call("legal_actions", self.engine.legal_actions))  # type: ignore[attr-defined]
        except OperationUnsupported:
            return []
        lines = []
        self.offenders = []
        for action in listed:
            outcome = check(self.oracle, action)
            if not outcome.accepted:
                self.offenders.append(action)
                lines.append(f"listed but illegal: {format_action(action)} (the reference: {outcome.status} {outcome.rule or ''})".rstrip())
        have = {suit_class(a) for a in listed}
        for action in self.oracle.legal_actions():  # type: ignore[attr-defined]
            if suit_class(action) not in have:
                self.offenders.append(action)
                lines.append(f"missing: {format_action(action)}")
        return lines[:12]

    def probe(self, probe: Probe) -> Difference | None:
        """Run one comparison; the difference found, or None when the engines agree."""
        try:
            if probe.check == "start":
                lines = self.position_differences()
                return Difference("start", "the positions differ at the start", tuple(lines)) if lines else None
            if probe.check == "legal_actions":
                lines = self.legal_action_differences()
                return Difference("legal_actions", "legal_actions() differs from the reference's", tuple(lines)) if lines else None
            action = probe.action
            assert action is not None
            expected, actual = self.verdicts(action)
            if not self.verdicts_agree(expected, actual):
                return Difference("verdict", verdict_message(action, expected, actual), (), expected, actual)
            if expected.status == "rejected" and not citation_agrees(expected.rule, actual.rule, self.capabilities, self.spec):
                return Difference("citation", verdict_message(action, expected, actual), (), expected, actual)
            lines = self.position_differences()
            if lines:
                what = f"after {format_action(action)} the positions differ" if expected.accepted else f"the rejected {format_action(action)} changed the position"
                return Difference("position", what, tuple(lines), expected, actual)
            if expected.accepted and self.oracle.observe().phase == "over":
                lines = self.score_differences()
                if lines:
                    return Difference("score", f"after {format_action(action)} the score sheets differ", tuple(lines), expected, actual)
        except EngineRaised as raised:
            return Difference("error", f"the engine's {raised.operation}() raised {raised.error!r}")
        return None


def check(oracle: Engine, action: Action) -> Outcome:
    """The oracle's verdict on ``action`` without playing it."""
    checker = getattr(oracle, "check", None)
    if callable(checker):
        return checker(action)  # type: ignore[no-any-return]
    before = oracle.observe()
    outcome = oracle.apply(action)
    oracle.load(before)
    return outcome


# ------------------------------------------------------------------------------------------------
# Choosing actions


KIND_WEIGHTS = {"draw": 3.0, "take": 4.0, "decline": 1.0, "ask": 0.3, "answer": 1.0, "discard": 3.0, "meld": 3.0}


def hand_after(position: Position, action: Action) -> int:
    """Cards left in the mover's hand after ``action`` (for spotting a going out)."""
    hand = len(position.hands[position.turn])
    if isinstance(action, Meld):
        return hand - sum(len(g.cards) for g in action.melds)
    if isinstance(action, Discard):
        return hand - 1
    return hand


def choose(rng: random.Random, legal: Sequence[Action], position: Position, min_cards: int) -> Action:
    """A mix of uniform (by kind, then within the kind) and "interesting" choices."""
    if rng.random() < 0.35:
        interesting = _interesting(legal, position, min_cards)
        if interesting:
            return rng.choice(interesting)
    by_kind: dict[str, list[Action]] = {}
    for action in legal:
        by_kind.setdefault(action.type, []).append(action)
    kinds = sorted(by_kind)
    kind = rng.choices(kinds, [KIND_WEIGHTS.get(k, 1.0) for k in kinds])[0]
    return rng.choice(by_kind[kind])


def _interesting(legal: Sequence[Action], position: Position, min_cards: int) -> list[Action]:
    going_out: list[Action] = [a for a in legal if isinstance(a, (Meld, Discard)) and hand_after(position, a) == 0]
    if going_out:
        return going_out
    all_but_one: list[Action] = [a for a in legal if isinstance(a, Meld) and hand_after(position, a) == 1]
    if all_but_one:  # melding all but the card to discard: going out next (concealed, when first)
        return all_but_one
    takes: list[Action] = [a for a in legal if isinstance(a, TakePile)]
    if takes:
        return takes
    near_minimum: list[Action] = [a for a in legal if isinstance(a, Meld) and any(len(g.cards) == min_cards for g in a.melds)]
    if near_minimum:
        return near_minimum
    return [a for a in legal if isinstance(a, Decline)]


# ------------------------------------------------------------------------------------------------
# Near-miss illegal actions


def near_miss_candidates(position: Position, legal: Sequence[Action], rules: VariantRules, rng: random.Random) -> list[Action]:
    """Actions close to legal ones: the wrong card, one card short, a wild card too many, a
    natural replaced by a wild card (the frozen pile), the wrong phase, the wrong rank."""
    wild_ranks = rules.cards_wild_ranks
    hand = list(position.hands[position.turn]) if position.phase != "over" else []
    wilds = [c for c in hand if c.rank in wild_ranks]
    naturals = [c for c in hand if c.rank not in wild_ranks and not c.is_red_three]
    out: list[Action] = [Draw(), Decline(), Ask()]
    if hand:
        out.append(Discard(rng.choice(hand)))
    top = position.top
    if top is not None:
        same = [c for c in naturals if c.rank == top.rank]
        out.append(TakePile(()))
        if same:
            out.append(TakePile(sort_cards(same[:1])))
            if wilds:
                out.append(TakePile(sort_cards([same[0], wilds[0]])))  # the frozen pile
            if len(same) >= 2:
                out.append(TakePile(sort_cards(same[:2])))
        if len(wilds) >= 2:
            out.append(TakePile(sort_cards(wilds[:2])))
    by_rank: dict[str, list[Card]] = {}
    for c in naturals:
        by_rank.setdefault(c.rank, []).append(c)
    for cards in by_rank.values():
        out.append(Meld((MeldGroup(sort_cards(cards[:2])),)))  # one card short of a new meld
        if len(cards) >= rules.meld_min_cards:
            out.append(Meld((MeldGroup(sort_cards(cards)),)))  # every natural of the rank (a canasta below the minimum)
        if wilds:
            out.append(Meld((MeldGroup(sort_cards([cards[0], *wilds[: rules.meld_max_wilds + 1]])),)))
    if wilds:
        out.append(Meld((MeldGroup((wilds[0],), rng.choice(sorted(by_rank) or ["A"])),)))
    grouped = [a for a in legal if isinstance(a, (Meld, TakePile))]
    for action in rng.sample(grouped, min(4, len(grouped))):
        out.extend(_variations(action, naturals, wilds, rng))
    return out


def _variations(action: Meld | TakePile, naturals: list[Card], wilds: list[Card], rng: random.Random) -> Iterator[Action]:
    groups = [MeldGroup(action.cards)] if isinstance(action, TakePile) else list(action.melds)
    for index, group in enumerate(groups):
        cards = list(group.cards)
        variants: list[list[Card]] = []
        if cards:
            variants.append(cards[:-1])  # one card short
            wrong = [c for c in naturals if all(c.rank != g.rank for g in cards)]
            if wrong:
                variants.append([*cards[:-1], rng.choice(wrong)])  # the wrong card
            spare = [w for w in wilds if cards.count(w) < wilds.count(w)]
            if spare:
                variants.append([*cards, spare[0]])  # a wild card too many
                first_natural = next((c for c in cards if c not in wilds), None)
                if first_natural is not None:
                    swapped = list(cards)
                    swapped.remove(first_natural)
                    variants.append([*swapped, spare[0]])  # a natural replaced by a wild card
        for variant in variants:
            new_group = MeldGroup(sort_cards(variant), group.rank)
            if isinstance(action, TakePile):
                yield TakePile(new_group.cards, action.melds)
            elif variant:
                yield Meld(tuple(new_group if i == index else g for i, g in enumerate(groups)))
    if isinstance(action, TakePile) and action.melds:
        yield TakePile(action.cards, action.melds[:-1])  # a further group short of the minimum
    if isinstance(action, Meld) and len(action.melds) > 1:
        yield Meld(action.melds[:-1])  # the initial meld one group short


def near_misses(oracle: Engine, position: Position, legal: Sequence[Action], rules: VariantRules, rng: random.Random, count: int) -> list[Action]:
    """Up to ``count`` distinct near-miss actions that the oracle rejects as illegal."""
    candidates = list(dict.fromkeys(near_miss_candidates(position, legal, rules, rng)))
    rng.shuffle(candidates)
    if not position.stock and position.phase == "draw":  # the end of the stock: declining is the near miss that matters
        candidates.sort(key=lambda a: not isinstance(a, Decline))
    elif position.phase == "play":  # a canasta laid below the minimum: rare, and it tests what counts toward it
        candidates.sort(key=lambda a: not (isinstance(a, Meld) and len(a.melds) == 1 and len(a.melds[0].cards) >= rules.canasta_min_cards))
    chosen: list[Action] = []
    for action in candidates:
        if len(chosen) >= count:
            break
        if check(oracle, action).status == "rejected":
            chosen.append(action)
    return chosen


# ------------------------------------------------------------------------------------------------
# Playing games


class FuzzUnsupported(CanastaError):
    """The engine cannot be fuzzed with these settings (variant, options, or an operation)."""


class Fuzzer:
    """Plays games on the oracle, mirrored in the engine under test."""

    def __init__(
        self, engine: Engine, settings: FuzzSettings, *, oracle: Engine | None = None, spec: Spec | None = None,
        capabilities: Capabilities | None = None, restart: Callable[[], Engine] | None = None,
    ) -> None:
        self.settings = settings
        self.spec = spec or load_spec()
        self.oracle = oracle or oracle_factory()()
        self.mirror = Mirror(self.oracle, engine, self.spec, capabilities, restart)
        self.rules = self.spec.variant_rules(settings.variant, dict(settings.options))
        self.stats = FuzzStats()
        self.findings: list[Finding] = []

    def unsupported_reason(self) -> str | None:
        caps = self.mirror.capabilities
        if self.settings.variant not in caps.variants:
            return f"the engine does not support variant {self.settings.variant!r}"
        if "*" not in caps.options:
            missing = sorted(set(self.settings.options) - set(caps.options))
            if missing:
                return f"the engine does not support option(s) {', '.join(missing)}"
        return None

    def game_seed(self, game: int) -> int:
        return self.settings.seed * 1_000_003 + game

    def play_game(self, game: int) -> Finding | None:
        """Play game number ``game`` (its own seed: games are independent and reproducible)."""
        rng = random.Random(self.game_seed(game))
        self.stats.games += 1
        start = self._first_start(rng)
        try:
            self.mirror.start(start)
        except OperationUnsupported as error:
            raise FuzzUnsupported(f"the engine does not support {'deal' if isinstance(start, DealSetup) else 'load'}: {error}") from None
        except EngineRaised as raised:
            return self._finding(Difference("error", f"the engine's {raised.operation}() raised {raised.error!r}"), Probe("start"), start, [], [], game, 0)
        begin = self.oracle.observe()
        difference = self.mirror.probe(Probe("start"))
        if difference is not None:
            return self._finding(difference, Probe("start"), start, [], [begin], game, 0)
        for hand in range(self.settings.hands_per_game):
            finding = self._play_hand(rng, start, game)
            self.stats.hands += 1
            if finding is not None:
                return finding
            if self.oracle.score().game_over or hand + 1 == self.settings.hands_per_game:
                return None
            before = self.oracle.observe()
            probe = Probe("apply", NextHand(tuple(self._deck(rng)), self._first_player(rng)))
            try:
                difference = self.mirror.probe(probe)
            except OperationUnsupported:
                return None
            if difference is not None:
                return self._finding(difference, probe, before, [], [before], game, 0)
            start = self.oracle.observe()  # both engines dealt the next hand: replays load it
        return None

    def _deck(self, rng: random.Random) -> list[Card]:
        deck = full_deck(self.rules.deck_packs, self.rules.deck_jokers)
        rng.shuffle(deck)
        return deck

    def _first_player(self, rng: random.Random) -> int | None:
        return rng.randrange(self.rules.players) if self.rules.deal_first_player == "random" else None

    def _first_start(self, rng: random.Random) -> Start:
        players, sides = self.rules.players, self.rules.sides
        scores: tuple[int, ...] = ()
        if rng.random() < self.settings.odd_scores:
            target = self.rules.game_target
            scores = tuple(rng.choice([*START_SCORE_CHOICES, target - 50]) for _ in range(sides))
        deck = self._deck(rng)
        if rng.random() < self.settings.odd_upcard:  # a red three, wild card or black three turned up
            upcard = players * self.rules.deal_hand_size
            kind = rng.choice(("red three", "wild", "black three"))  # each as often: red threes are few
            odd = [i for i, c in enumerate(deck) if i != upcard and _card_kind(c, self.rules) == kind]
            if upcard < len(deck) and odd:
                swap = rng.choice(odd)
                deck[upcard], deck[swap] = deck[swap], deck[upcard]
        setup = DealSetup(
            self.settings.variant, dict(self.settings.options), rng.randrange(players), tuple(deck), scores,
            self._first_player(rng),
        )
        if rng.random() < self.settings.arranged:
            return self._arranged(rng, setup)
        if rng.random() < self.settings.short_stock:  # the end of the stock comes soon
            self.oracle.deal(setup)  # type: ignore[attr-defined]
            dealt = self.oracle.observe()
            return replace(dealt, stock=dealt.stock[: rng.randrange(0, 8)])
        return setup

    def _arranged(self, rng: random.Random, setup: DealSetup) -> Start:
        """The dealt position, rearranged so that rules random play seldom reaches come up at once
        (the cards stay the deck's: they only move between the stock, the hands, the melds and the
        pile). Most sides have melded one to three ranks (adding to melds, the frozen pile of a
        melded side), and one theme is chosen: the player to move holds seven naturals of a low
        rank and three of another (a concealed going out, a canasta that does not count toward the
        minimum); the same hand for a player whose side has melded (laying a new canasta while
        going out, which is then not concealed); a red three lies under the pile (the pile frozen
        by a red three upcard); the stock is exhausted with a top card that fits a meld of the side
        (the forced take); or the stock is short. Falls back to the deal when the result is not a
        valid position."""
        self.oracle.deal(setup)  # type: ignore[attr-defined]
        dealt = self.oracle.observe()
        if dealt.sitting_out or dealt.talons:
            return setup
        rules = self.rules
        stock = list(dealt.stock)
        hands = [list(h) for h in dealt.hands]
        melds = [list(side) for side in dealt.melds]
        pile = list(dealt.pile)
        ranks = [r for r in _NATURAL_RANKS]
        mover = dealt.turn

        def gather(rank: str, n: int, spare: int | None = None) -> list[Card]:
            """Up to ``n`` naturals of ``rank`` from the stock, then from hands other than the
            mover's (never emptying one)."""
            out: list[Card] = []
            for place in [stock, *(h for i, h in enumerate(hands) if i not in (mover, spare))]:
                for c in [c for c in place if c.rank == rank]:
                    if len(out) < n and (place is stock or len(place) > 1):
                        place.remove(c)
                        out.append(c)
            return out

        theme = rng.choice(("concealed", "canasta out", "red three", "stock end", "short stock"))
        if theme in ("concealed", "canasta out"):  # the player to move can go out concealed, or lay a long low meld
            stock.extend(hands[mover])
            hands[mover] = []
            low, other = rng.choice(ranks[:4]), rng.choice(ranks[4:])
            hand = gather(low, rules.canasta_min_cards) + gather(other, rules.meld_min_cards)
            if len(hand) < 2:
                return setup
            hands[mover] = hand
        for side, seats in enumerate(melds):
            own = side == mover % rules.sides
            if own and theme == "concealed":
                chance = 0.3  # mostly the side's initial meld: the minimum, and what counts toward it
            elif own and theme == "canasta out":
                chance = 1.0  # the side has melded: going out with a canasta laid this turn is not concealed
            else:
                chance = 1.0 if own and theme in ("red three", "stock end") else 0.7
            if rng.random() < chance:
                held = {c.rank for c in hands[mover]} if side == mover % rules.sides else set()
                free = [r for r in ranks if r not in held]  # (a hand may hold nearly every rank)
                for rank in rng.sample(free, min(len(free), rng.randint(1, 3))):
                    cards = gather(rank, rng.randint(rules.meld_min_cards, rules.canasta_min_cards - 1))
                    if len(cards) >= rules.meld_min_cards and len(cards) >= rules.meld_min_naturals:
                        seats.append(tuple(cards))
                    else:
                        stock.extend(cards)
        if theme == "red three":  # a red three turned up as the upcard, now under the pile
            threes = [c for c in stock if c.is_red_three]
            if threes:
                stock.remove(threes[0])
                pile.insert(0, threes[0])
        rng.shuffle(stock)
        side_ranks = [meld[0].rank for meld in melds[mover % rules.sides]]
        if theme == "stock end":  # the stock is exhausted, and the top card fits a meld of the side
            fits = [c for c in stock if c.rank in side_ranks]
            if fits:
                stock.remove(fits[0])
                pile.append(fits[0])
            stock = []
        elif theme == "short stock":
            stock = stock[: rng.randrange(0, 6)]
        # the seats of a side with melds melded in earlier turns: a going out that lays a canasta
        # now is then not concealed (in the concealed theme the mover's side has mostly not melded)
        melded_seats = tuple(seat for seat in range(len(hands)) if melds[seat % rules.sides])
        arranged = replace(
            dealt, hands=tuple(sort_cards(h) for h in hands), melds=tuple(tuple(side) for side in melds),
            pile=tuple(pile), stock=tuple(stock), facts=replace(dealt.facts, melded_seats=melded_seats),
        )
        if any(not h for h in arranged.hands) or setup_problems(arranged, self.spec):
            return setup
        return arranged

    def _play_hand(self, rng: random.Random, start: Start, game: int) -> Finding | None:
        oracle, mirror, settings = self.oracle, self.mirror, self.settings
        prefix: list[Action] = []
        positions: list[Position] = []
        for step in range(settings.max_steps_per_hand):
            position = oracle.observe()
            if position.phase == "over":
                return None
            positions.append(position)

            def found(difference: Difference, probe: Probe, step: int = step) -> Finding:  # this step's
                return self._finding(difference, probe, start, prefix, positions, game, step)

            legal = oracle.legal_actions()  # type: ignore[attr-defined]
            if not legal:
                raise RuntimeError(f"the reference lists no legal action in {position.to_json()}")
            probes = []
            if settings.legal_actions_every and step % settings.legal_actions_every == 0 and mirror.lists_actions:
                probes.append(Probe("legal_actions"))
            probes += [Probe("apply", miss) for miss in near_misses(oracle, position, legal, self.rules, rng, settings.near_misses)]
            for probe in probes:
                self.stats.checks += 1
                difference = mirror.probe(probe)
                if difference is not None:
                    if difference.kind == "legal_actions":
                        return self._verdict_behind(position, found) or found(difference, probe)
                    return found(difference, probe)
            action = choose(rng, legal, position, self.rules.meld_min_cards)
            self.stats.checks += 1
            difference = mirror.probe(Probe("apply", action))
            if difference is not None:
                return found(difference, Probe("apply", action))
            prefix.append(action)
            self.stats.steps += 1
        raise RuntimeError(f"the hand did not end within {settings.max_steps_per_hand} steps (game seed {self.game_seed(game)})")

    def _verdict_behind(self, position: Position, found: Callable[[Difference, Probe], Finding]) -> Finding | None:
        """A legal_actions difference often hides a verdict difference (the engine accepts what it
        wrongly lists, or rejects what it omits): the more basic finding, when there is one."""
        for action in self.mirror.offenders[:6]:
            try:
                self.mirror.start(position)
            except (OperationUnsupported, EngineRaised):
                return None
            difference = self.mirror.probe(Probe("apply", action))
            if difference is not None and difference.kind == "verdict":
                return found(difference, Probe("apply", action))
        return None

    def _finding(
        self, difference: Difference, probe: Probe, start: Start, prefix: Sequence[Action], positions: Sequence[Position],
        game: int, step: int,
    ) -> Finding:
        return Finding(
            difference, probe, start, tuple(prefix), tuple(positions), self.settings.seed, game, step,
            self.settings.variant, dict(self.settings.options),
        )

    def run(
        self, games: Sequence[int] | None = None, *, seconds: float | None = None, max_findings: int = 1,
        on_progress: Callable[[FuzzStats, int], None] | None = None, progress_every: float = 2.0,
    ) -> list[Finding]:
        """Play the given game numbers (or games 0, 1, 2... until ``seconds`` pass), collecting
        findings in ``self.findings`` (also after a KeyboardInterrupt); stops after ``max_findings``."""
        deadline = None if seconds is None else time.perf_counter() + seconds
        last = time.perf_counter()
        for game in (games if games is not None else itertools.count()):
            if deadline is not None and time.perf_counter() >= deadline:
                break
            finding = self.play_game(game)
            if finding is not None:
                self.findings.append(finding)
                if len(self.findings) >= max_findings:
                    break
            if on_progress is not None and time.perf_counter() - last >= progress_every:
                last = time.perf_counter()
                on_progress(self.stats, len(self.findings))
        return list(self.findings)


def verdict_message(action: Action, expected: Outcome, actual: Outcome) -> str:
    def describe(outcome: Outcome) -> str:
        text: str = outcome.status
        if outcome.rule:
            text += f" citing {outcome.rule}"
        return text + (f" ({outcome.message})" if outcome.message else "")

    return f"{format_action(action)}: the reference {describe(expected)}, the engine {describe(actual)}"
