"""Table penalties (penalty.table_penalties): a physical table's answer to some irregularities.

Where a variant models the table (the PAIRS classic game), a meld that breaks a meld rule is not
refused: the cards go back to the hand and the side is charged penalty.illegal_meld
(penalty.illegal-meld); a retracted insufficient first meld may instead raise the side's minimum
for the rest of the hand (penalty.initial-meld.insufficient), and going out without the required
canasta may cost penalty.out_without_canasta (penalty.out-without-canasta). A penalty of 0 means
the table has no such penalty: the action is refused as in every other variant. The offence is
recorded in the position (``penalties``) and each side's score sheet subtracts its points.

A red three is never left undeclared here: the engine lays red threes down itself, so
penalty.red_three_undeclared (penalty.red3.undeclared) is never charged.
"""

from __future__ import annotations

from canasta_conformance.contract.model import Outcome, Penalty

from .errors import Illegal
from .state import HandState

#: rules whose breach at the table is going out without the required canastas
GOING_OUT_RULES = frozenset({"out.requires-canasta", "turn.keep-a-card"})
#: rules broken by something that is no meld offence (out of turn, the partner's binding answer)
NOT_MELD_OFFENCES = frozenset({"turn.phase", "out.ask.answer-by-partner", "out.ask.binding", "out.ask.window"})


def table_penalty(state: HandState, offence: Illegal) -> Penalty | None:
    """The penalty a table charges for ``offence`` by the player to move, or None (refused)."""
    rules = state.rules
    if not rules.penalty_table_penalties or offence.rule in NOT_MELD_OFFENCES:
        return None
    if offence.rule in GOING_OUT_RULES:
        points = rules.penalty_out_without_canasta
        return Penalty(state.turn, "penalty.out-without-canasta", points) if points else None
    if offence.rule == "initial.table" and rules.penalty_insufficient_initial_increment:
        return Penalty(state.turn, "penalty.initial-meld.insufficient", 0, rules.penalty_insufficient_initial_increment)
    points = rules.penalty_illegal_meld
    return Penalty(state.turn, "penalty.illegal-meld", points) if points else None


class PenaltyCommit:
    """Charging a table penalty: the offending cards stay in (or go back to) the hand, the turn
    goes on, and the offence is recorded. Its outcome is an acceptance that names the penalty."""

    def __init__(self, state: HandState, penalty: Penalty, offence: Illegal) -> None:
        self.state = state
        self.penalty = penalty
        what = f"{penalty.points} points" if penalty.points else f"the minimum rises by {penalty.minimum_increase}"
        self.outcome = Outcome("accepted", None, f"table penalty {penalty.rule} ({what}) for {offence.rule}: {offence.message}")

    def __call__(self) -> None:
        self.state.penalties.append(self.penalty)


def penalise_or_raise(state: HandState, offence: Illegal) -> PenaltyCommit:
    """penalty.*: where the table charges a penalty for ``offence``, the commit that charges it;
    elsewhere the offence is raised again (the action is refused)."""
    penalty = table_penalty(state, offence)
    if penalty is None:
        raise offence
    return PenaltyCommit(state, penalty, offence)
