"""Running one scenario against one engine.

The runner never trusts the engine: every call is guarded, a rejection must leave the position
exactly as it was, and the result says which step failed, what was expected and what came back.

A scenario's ``legal_actions`` includes are compared up to suits and up to the steps of one turn
(docs/protocol.md): an engine may list a meld of several ranks as its parts, so an expected
action the list lacks still counts as listed when a listed action lays part of it and the rest is
then listed, which the runner finds out by playing that part of the expected action and putting
the engine back (loading the scenario again and replaying its steps).

Verdicts judge behaviour first (legality, positions, scores). A rejection's cited rule is judged
only when the engine declares ``cites_rules``; a citation that is neither an expected rule nor a
broader rule of one (``narrows:`` in the spec) makes the scenario ``rule-differs``, which is not a
failure unless the run is strict about rules, and never stops the later steps from being checked.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from ..contract.engine_protocol import CITES_RULES, Capabilities, DealSetup, Engine, EngineFault, OperationUnsupported
from ..contract.equivalence import cards_class, group_class, suit_class
from ..contract.errors import CanastaError
from ..contract.model import Action, Meld, MeldGroup, Outcome, Position, TakePile, format_action
from ..contract.scenario import Scenario, Step
from ..contract.spec import Spec, load_spec
from ..contract.tiers import Tier, scenario_tier
from .citations import Agreement as Agreement
from .citations import Citation as Citation
from .diff import full_position_diff, position_diff, score_diff

Status = Literal["passed", "failed", "error", "unsupported", "rule-differs"]


@dataclass(frozen=True)
class Judging:
    """How a run judges rule citations: ``strict_rules`` demands exactly an expected rule from an
    engine that cites rules (a broader rule or another rule fails the scenario); ``spec`` gives the
    rule relations and the tiers (default: the installed spec)."""

    strict_rules: bool = False
    spec: Spec | None = None

    @property
    def rules_spec(self) -> Spec:
        return self.spec if self.spec is not None else load_spec()


@dataclass(frozen=True)
class Result:
    scenario: str
    status: Status
    message: str = ""
    step: int | None = None
    action: str | None = None
    details: tuple[str, ...] = ()
    seconds: float = 0.0
    rules: tuple[str, ...] = field(default=())
    #: the rules the failing step expected a rejection to cite (its ``violates``)
    step_rules: tuple[str, ...] = ()
    #: judged citations that are not an expected rule, in step order (citing engines only)
    citations: tuple[Citation, ...] = ()
    tier: Tier | None = None

    @property
    def ok(self) -> bool:
        return self.status in ("passed", "unsupported", "rule-differs")

    @property
    def differing_citations(self) -> tuple[Citation, ...]:
        return tuple(c for c in self.citations if c.agreement == "differs")

    def report(self) -> str:
        """A readable multi-line report of a failure or error."""
        where = ""
        if self.step is not None:
            where = f"step {self.step + 1}" + (f" ({self.action})" if self.action else "")
        head = f"{where}: {self.message}" if where else self.message
        return "\n".join([head, *(f"    {line}" for line in self.details)])


class StepFailure(CanastaError):
    def __init__(self, message: str, details: list[str] | tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.details = tuple(details)


def unsupported_reason(scenario: Scenario, capabilities: Capabilities) -> str | None:
    variants, options, features = capabilities.declared
    if scenario.variant not in variants:
        return f"the engine does not support variant {scenario.variant!r}"
    if "*" not in options:
        missing = sorted(set(scenario.options) - options)
        if missing:
            return f"the engine does not support option(s) {', '.join(missing)}"
    missing_features = sorted(set(scenario.requires) - features)
    if scenario.deal is not None and "deal" not in features:
        missing_features = sorted({*missing_features, "deal"})
    if missing_features:
        return f"the engine does not declare {', '.join(missing_features)}"
    return None


class _CitationJudge:
    """Judges the citations of one scenario's rejections, keeping those that are not expected."""

    def __init__(self, cites_rules: bool, judging: Judging) -> None:
        self.cites_rules = cites_rules
        self.judging = judging
        self.citations: list[Citation] = []

    def judge(self, step: Step, outcome: Outcome) -> None:
        violates = step.expect.violates
        if not self.cites_rules or not violates or outcome.rule in violates:
            return
        agrees = self.judging.rules_spec.citation_agrees(outcome.rule, violates)
        citation = Citation(
            step.index, format_action(step.action) if step.action else None, violates, outcome.rule,
            "broader" if agrees else "differs",
        )
        if self.judging.strict_rules:
            why = "a broader rule; --canasta-strict-rules wants the scenario's own" if agrees else "another rule"
            raise StepFailure(
                f"expected a rejection citing {' or '.join(violates)}, the engine rejected citing {outcome.rule} ({why})",
                [f"engine's message: {outcome.message}"] if outcome.message else [],
            )
        self.citations.append(citation)


def run_scenario(
    scenario: Scenario, engine: Engine, capabilities: Capabilities | None = None, judging: Judging | None = None,
    tier: Tier | None = None,
) -> Result:
    """Run ``scenario`` on ``engine`` and judge it; ``tier``: the scenario's tier when the caller
    has computed it already (else it is computed here)."""
    started = time.perf_counter()
    judging = judging or Judging()
    judge: _CitationJudge | None = None

    def result(status: Status, message: str = "", step: Step | None = None, details: tuple[str, ...] = ()) -> Result:
        citations = tuple(judge.citations) if judge else ()
        if status == "passed" and any(c.agreement == "differs" for c in citations):
            first = next(c for c in citations if c.agreement == "differs")
            status, message = "rule-differs", f"the engine's citations differ from the scenario's ({first.describe()})"
        return Result(
            scenario=scenario.id, status=status, message=message,
            step=step.index if step else None,
            action=format_action(step.action) if step and step.action else None,
            details=details, seconds=time.perf_counter() - started, rules=scenario.rules,
            step_rules=step.expect.violates if step else (), citations=citations,
            tier=tier if tier is not None else _tier(scenario, judging),
        )

    try:
        capabilities = capabilities or engine.capabilities()
    except Exception as error:  # noqa: BLE001 - an engine may raise anything
        message, details = describe_error(error, "capabilities() raised")
        return result("error", message, details=details)
    reason = unsupported_reason(scenario, capabilities)
    if reason:
        return result("unsupported", reason)
    judge = _CitationJudge(CITES_RULES in capabilities.features, judging)
    try:
        start_scenario(scenario, engine)
    except OperationUnsupported as error:
        return result("unsupported", f"the engine does not support {'deal' if scenario.deal else 'load'}: {error}")
    except Exception as error:  # noqa: BLE001
        message, details = describe_error(error, "the engine could not load the starting position:")
        return result("error", message, details=details)
    for step in scenario.steps:
        try:
            _run_step(step, engine, judge, partial(_replay, scenario, engine, step.index))
        except StepFailure as failure:
            return result("failed", failure.message, step, failure.details)
        except OperationUnsupported as error:
            return result("unsupported", f"the engine does not support a step of this scenario: {error}", step)
        except Exception as error:  # noqa: BLE001
            message, details = describe_error(error, "the engine raised")
            return result("error", message, step, details)
    return result("passed")


def _tier(scenario: Scenario, judging: Judging) -> Tier | None:
    try:
        return scenario_tier(scenario, judging.rules_spec)
    except Exception:  # noqa: BLE001 - a broken spec must not hide the engine's verdict
        return None


def describe_error(error: BaseException, prefix: str) -> tuple[str, tuple[str, ...]]:
    """(message, details) of an engine's exception: an :class:`EngineFault` states itself and
    carries its evidence; any other exception is shown with its type and traceback."""
    if isinstance(error, EngineFault):
        return error.message, error.details
    return f"{prefix} {error!r}", _traceback(error)


def start_scenario(scenario: Scenario, engine: Engine) -> None:
    """Put ``engine`` in the scenario's starting position: load it, or deal from the deck order."""
    if scenario.deal is not None:
        deal = scenario.deal
        setup = DealSetup(scenario.variant, dict(scenario.options), deal.dealer, deal.deck, deal.scores, deal.first_player)
        engine.deal(setup)  # type: ignore[attr-defined]
    else:
        assert scenario.position is not None
        engine.load(scenario.position)


def _replay(scenario: Scenario, engine: Engine, last: int) -> None:
    """Put ``engine`` back where the scenario stands after its step ``last``: its start again, then
    the actions of the steps up to that one (a rejected one is rejected again, changing nothing)."""
    start_scenario(scenario, engine)
    for step in scenario.steps[: last + 1]:
        if step.action is not None:
            engine.apply(step.action)


def _traceback(error: BaseException) -> tuple[str, ...]:
    lines = traceback.format_exception(type(error), error, error.__traceback__)
    return tuple("".join(lines).rstrip().splitlines()[-12:])


def _describe(outcome: Outcome) -> str:
    if outcome.status == "accepted":
        return "accepted"
    text: str = outcome.status
    if outcome.rule:
        text += f" citing {outcome.rule}"
    if outcome.message:
        text += f" ({outcome.message})"
    return text


def _run_step(step: Step, engine: Engine, judge: _CitationJudge, restore: Callable[[], None]) -> None:
    """Play ``step`` and check what it expects; ``restore`` puts the engine back where the step
    leaves it (after the legal-list check has tried actions on it)."""
    expect = step.expect
    after: Position | None = None  # the position observed after a rejection, checked below as well
    if step.action is not None:
        before = engine.observe() if expect.outcome != "accepted" else None
        outcome = engine.apply(step.action)
        if not isinstance(outcome, Outcome):
            raise StepFailure(f"apply() must return an Outcome, got {outcome!r}")
        _check_outcome(step.action, expect.outcome, expect.violates, outcome)
        if outcome.status == "rejected":
            judge.judge(step, outcome)
        if before is not None:
            after = engine.observe()
            lines = full_position_diff(before, after) if after != before else []  # equal up to the order of multisets is unchanged
            if lines:
                raise StepFailure("the rejected action changed the position", lines)
    if expect.position is not None or expect.hand_over is not None:
        position = after if after is not None else engine.observe()
        lines = position_diff(expect.position or {}, position)
        if expect.hand_over is not None and (position.phase == "over") != expect.hand_over:
            lines.append(f"hand_over: expected {expect.hand_over}, actual {position.phase == 'over'} (phase {position.phase!r})")
        if lines:
            raise StepFailure("the position differs from the expected one", lines)
    if expect.score is not None or expect.game is not None:
        sheet = engine.score()
        lines = score_diff(expect.score or (), sheet)
        for key, want in (expect.game or {}).items():
            got = sheet.game_over if key == "over" else sheet.winner
            if got != want:
                lines.append(f"game.{key}: expected {want!r}, actual {got!r}")
        if lines:
            raise StepFailure("the score sheet differs", lines)
    if expect.legal_includes or expect.legal_excludes:
        # up to suits (contract.equivalence): an engine may list any one of the moves that differ only by suit
        actions = list(engine.legal_actions())  # type: ignore[attr-defined]
        listed = {suit_class(a) for a in actions}
        missing = [
            format_action(a) for a in expect.legal_includes
            if suit_class(a) not in listed and not _listed_in_steps(a, actions, engine, restore)
        ]
        wrong = [format_action(a) for a in expect.legal_excludes if suit_class(a) in listed]
        if missing or wrong:
            raise StepFailure("legal_actions() differs", [*(f"missing: {m}" for m in missing), *(f"listed but illegal: {w}" for w in wrong)])


def _listed_in_steps(action: Action, listed: Sequence[Action], engine: Engine, restore: Callable[[], None]) -> bool:
    """Whether ``action``, a meld of several groups (or a take with further groups) absent from
    ``listed``, is a listed action followed, in the same turn, by a meld of its other groups that
    the engine then lists (the steps of one turn, docs/protocol.md). For each listed action laying
    a proper part of it (up to suits), that part of ``action`` is played, the rest looked for (in
    parts again) in the list that follows, and the engine is put back by ``restore`` after every
    try. A try the engine fails (a rejection, an exception) shows nothing. The part played is made of
    ``action``'s own cards, so listed actions that differ only by suits make the same try: it is
    made once."""
    if not isinstance(action, Meld | TakePile):
        return False
    tried: set[Action] = set()
    for first in listed:
        split = _split(action, first)
        if split is None or split[0] in tried:
            continue
        part, rest = split
        tried.add(part)
        try:
            if engine.apply(part).status != "accepted":
                continue
            after = list(engine.legal_actions())  # type: ignore[attr-defined]
            if suit_class(rest) in {suit_class(a) for a in after}:
                return True
            if _listed_in_steps(rest, after, engine, partial(_restore_then, restore, engine, part)):
                return True
        except Exception:  # noqa: BLE001 - a try the engine fails shows nothing; the item stays missing
            continue
        finally:
            restore()
    return False


def _restore_then(restore: Callable[[], None], engine: Engine, part: Action) -> None:
    restore()
    engine.apply(part)


def _split(action: Meld | TakePile, first: Action) -> tuple[Meld | TakePile, Meld] | None:
    """``action`` cut in two where ``first`` (a listed action of its kind; a take: with the same
    cards from the hand) lays a proper part of its groups, up to suits: that part, with the cards
    of ``action``, and a meld of the other groups; else None."""
    if type(first) is not type(action) or not isinstance(first, Meld | TakePile):
        return None
    if isinstance(first, Meld) and not first.melds:
        return None  # lays nothing: the rest would be the whole action again
    if isinstance(first, TakePile) and isinstance(action, TakePile) and cards_class(first.cards) != cards_class(action.cards):
        return None
    rest = list(action.melds)
    part = []
    for group in first.melds:
        match = next((g for g in rest if _part_class(g) == _part_class(group)), None)
        if match is None:
            return None
        rest.remove(match)
        part.append(match)
    if not rest:
        return None
    laid = TakePile(action.cards, tuple(part)) if isinstance(action, TakePile) else Meld(tuple(part))
    return laid, Meld(tuple(rest))


def _part_class(group: MeldGroup) -> tuple[Any, ...]:
    """A group as the parts of an action match: up to suits (:func:`group_class`), except a
    sequence group (meld.sequences), whose cards keep their suits."""
    return ("sequence", tuple(sorted(c.token for c in group.cards))) if group.sequence else group_class(group)


def _check_outcome(action: Action, expected: str, violates: tuple[str, ...], outcome: Outcome) -> None:
    if expected == "accepted" and outcome.status != "accepted":
        raise StepFailure(f"expected the action to be accepted, the engine {_describe(outcome)}")
    if expected == "rejected" and outcome.status != "rejected":
        raise StepFailure(f"expected a rejection citing {' or '.join(violates)}, the engine {_describe(outcome)}")
    if expected == "malformed" and outcome.status != "malformed":
        raise StepFailure(f"expected the action to be reported malformed, the engine {_describe(outcome)}")
