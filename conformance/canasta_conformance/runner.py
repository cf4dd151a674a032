"""Running one scenario against one engine.

The runner never trusts the engine: every call is guarded, a rejection must leave the position
exactly as it was, and the result says which step failed, what was expected and what came back.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from typing import Literal

from .diff import full_position_diff, position_diff, score_diff
from .engine import Capabilities, DealSetup, Engine, EngineFault, OperationUnsupported
from .model import Action, Outcome, format_action
from .scenario import Scenario, Step

Status = Literal["passed", "failed", "error", "unsupported"]


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

    @property
    def ok(self) -> bool:
        return self.status in ("passed", "unsupported")

    def report(self) -> str:
        """A readable multi-line report of a failure or error."""
        where = ""
        if self.step is not None:
            where = f"step {self.step + 1}" + (f" ({self.action})" if self.action else "")
        head = f"{where}: {self.message}" if where else self.message
        return "\n".join([head, *(f"    {line}" for line in self.details)])


class StepFailure(Exception):
    def __init__(self, message: str, details: list[str] | tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.details = tuple(details)


def unsupported_reason(scenario: Scenario, capabilities: Capabilities) -> str | None:
    if scenario.variant not in capabilities.variants:
        return f"the engine does not support variant {scenario.variant!r}"
    if "*" not in capabilities.options:
        missing = sorted(set(scenario.options) - set(capabilities.options))
        if missing:
            return f"the engine does not support option(s) {', '.join(missing)}"
    missing_features = sorted(set(scenario.requires) - set(capabilities.features))
    if scenario.deal is not None and "deal" not in capabilities.features:
        missing_features = sorted({*missing_features, "deal"})
    if missing_features:
        return f"the engine does not declare {', '.join(missing_features)}"
    return None


def run_scenario(scenario: Scenario, engine: Engine, capabilities: Capabilities | None = None) -> Result:
    started = time.perf_counter()

    def result(status: Status, message: str = "", step: Step | None = None, details: tuple[str, ...] = ()) -> Result:
        return Result(
            scenario=scenario.id, status=status, message=message,
            step=step.index if step else None,
            action=format_action(step.action) if step and step.action else None,
            details=details, seconds=time.perf_counter() - started, rules=scenario.rules,
        )

    try:
        capabilities = capabilities or engine.capabilities()
    except Exception as error:  # noqa: BLE001 - an engine may raise anything
        message, details = describe_error(error, "capabilities() raised")
        return result("error", message, details=details)
    reason = unsupported_reason(scenario, capabilities)
    if reason:
        return result("unsupported", reason)
    try:
        start_scenario(scenario, engine)
    except OperationUnsupported as error:
        return result("unsupported", f"the engine does not support {'deal' if scenario.deal else 'load'}: {error}")
    except Exception as error:  # noqa: BLE001
        message, details = describe_error(error, "the engine could not load the starting position:")
        return result("error", message, details=details)
    for step in scenario.steps:
        try:
            _run_step(step, engine)
        except StepFailure as failure:
            return result("failed", failure.message, step, failure.details)
        except OperationUnsupported as error:
            return result("unsupported", f"the engine does not support a step of this scenario: {error}", step)
        except Exception as error:  # noqa: BLE001
            message, details = describe_error(error, "the engine raised")
            return result("error", message, step, details)
    return result("passed")


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


def _run_step(step: Step, engine: Engine) -> None:
    expect = step.expect
    if step.action is not None:
        before = engine.observe() if expect.outcome != "accepted" else None
        outcome = engine.apply(step.action)
        if not isinstance(outcome, Outcome):
            raise StepFailure(f"apply() must return an Outcome, got {outcome!r}")
        _check_outcome(step.action, expect.outcome, expect.violates, outcome)
        if before is not None:
            after = engine.observe()
            if after != before:
                raise StepFailure("the rejected action changed the position", full_position_diff(before, after))
    if expect.position is not None or expect.hand_over is not None:
        position = engine.observe()
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
        listed = set(engine.legal_actions())  # type: ignore[attr-defined]
        missing = [format_action(a) for a in expect.legal_includes if a not in listed]
        wrong = [format_action(a) for a in expect.legal_excludes if a in listed]
        if missing or wrong:
            raise StepFailure("legal_actions() differs", [*(f"missing: {m}" for m in missing), *(f"listed but illegal: {w}" for w in wrong)])


def _check_outcome(action: Action, expected: str, violates: tuple[str, ...], outcome: Outcome) -> None:
    if expected == "accepted" and outcome.status != "accepted":
        raise StepFailure(f"expected the action to be accepted, the engine {_describe(outcome)}")
    if expected == "rejected":
        if outcome.status != "rejected":
            raise StepFailure(f"expected a rejection citing {' or '.join(violates)}, the engine {_describe(outcome)}")
        if violates and outcome.rule not in violates:
            raise StepFailure(
                f"expected a rejection citing {' or '.join(violates)}, the engine rejected citing {outcome.rule}",
                [f"engine's message: {outcome.message}"] if outcome.message else [],
            )
    if expected == "malformed" and outcome.status != "malformed":
        raise StepFailure(f"expected the action to be reported malformed, the engine {_describe(outcome)}")
