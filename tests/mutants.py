"""Deliberately wrong engines: the reference engine with exactly one rule broken.

Each mutant names the rule IDs it breaks; the strength check (test_mutants.py) requires every
mutant to fail at least one scenario tagged with one of those rules by what it does (legality,
positions, scores), with its rule citations ignored. ``CITATION_ONLY`` lists the mutants whose
mistake no position of any implemented variant can show except through the cited rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from unittest.mock import patch

import pytest

from canasta_conformance.contract.variant_rules import InitialMeldRow, VariantRules, parameter_fields
from canasta_reference import build
from canasta_reference import engine as engine_module
from canasta_reference.engine import ReferenceEngine
from canasta_reference.melds import count


@dataclass(frozen=True)
class Mutant:
    name: str
    breaks: tuple[str, ...]
    rules_changes: dict[str, Any] = field(default_factory=dict)
    patches: dict[str, Callable[..., Any]] = field(default_factory=dict)
    methods: dict[str, Callable[..., Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = set(self.rules_changes) - {f.name for f in parameter_fields()}
        if unknown:  # a renamed or misspelt parameter field would otherwise only make every run an error
            raise ValueError(f"mutant {self.name}: no VariantRules field {', '.join(sorted(unknown))}")

    @property
    def patches_internals(self) -> bool:
        """It replaces a function of an engine module or a static method: code that a compiled build of
        the engine (tools/build_accelerated.py) calls directly, so this mutant exists only in the source."""
        return bool(self.patches) or any(isinstance(m, staticmethod) for m in self.methods.values())

    def factory(self) -> Callable[[], ReferenceEngine]:
        mutant = self
        if self.patches_internals and build() == "compiled":
            pytest.skip(f"mutant {self.name} patches engine internals, which the compiled engine calls directly")

        class MutantEngine(ReferenceEngine):
            def rules_for(self, variant: str, options: dict[str, Any]) -> VariantRules:
                base = super().rules_for(variant, options)  # not inside the comprehension: super() needs this frame
                changes = {k: (v(base) if callable(v) else v) for k, v in mutant.rules_changes.items()}
                return replace(base, **changes)

            def _plan(self, action):  # type: ignore[no-untyped-def]
                if not mutant.patches:
                    return super()._plan(action)
                with patch.multiple(engine_module, **mutant.patches):
                    return super()._plan(action)

        for name, method in mutant.methods.items():
            setattr(MutantEngine, name, method)
        MutantEngine.__name__ = f"Mutant_{self.name}"
        return MutantEngine


def _initial_meld_counts_bonuses(self: ReferenceEngine, state, plan, cards_left) -> None:  # type: ignore[no-untyped-def]
    """Counts canasta bonuses toward the minimum (they MUST NOT count)."""
    rules = state.rules
    bonus = sum(rules.canasta_mixed_bonus for cards in plan.result.values() if len(cards) >= rules.canasta_min_cards)
    if count(plan.laid, rules) + bonus < rules.initial_minimum(state.scores[state.side]):
        from canasta_reference.errors import Illegal

        raise Illegal("initial.table", "short of the minimum")


def _concealed_whenever_canasta(state) -> bool:  # type: ignore[no-untyped-def]
    """Calls every going out with a canasta made this turn concealed."""
    rules = state.rules
    return any(len(state.melds[state.side][r]) >= rules.canasta_min_cards for r in state.new_ranks)


def _answer_not_binding(self: ReferenceEngine, state, action):  # type: ignore[no-untyped-def]
    """Takes the partner's answer but lets it bind nothing."""
    self._check_hand_not_over(state)
    if state.question != "pending":
        from canasta_reference.errors import Illegal

        raise Illegal("out.ask.answer-by-partner", "nobody asked")
    return lambda: setattr(state, "question", None)


def _no_block(top, rules) -> None:  # type: ignore[no-untyped-def]
    """A wild card or black three on top does not block."""


def _only_wild_blocks(top, rules) -> None:  # type: ignore[no-untyped-def]
    if rules.is_wild(top):
        from canasta_reference.errors import Illegal

        raise Illegal("pile.blocked.wild-top", "wild on top")


def _only_black_three_blocks(top, rules) -> None:  # type: ignore[no-untyped-def]
    if top.is_black_three:
        from canasta_reference.errors import Illegal

        raise Illegal("pile.blocked.black3-top", "black three on top")


def _never_forced(state) -> bool:  # type: ignore[no-untyped-def]
    return False


def _keep_no_card(self: ReferenceEngine, state, cards_left, plan, going_out_now) -> None:  # type: ignore[no-untyped-def]
    """Lets a side without a canasta meld down to its last card."""
    if going_out_now:
        self._check_may_go_out(state, self._canastas_after(state, plan))


def _without(option: str) -> Callable[[VariantRules], frozenset[str]]:
    return lambda rules: rules.pile_take_unfrozen_with - {option}


MUTANTS: tuple[Mutant, ...] = (
    Mutant("wild-does-not-freeze", ("pile.frozen.by-wild",), {"pile_frozen_by_wild": False}),
    Mutant("red-three-upcard-does-not-freeze", ("pile.frozen.by-red3-upcard",), {"pile_frozen_by_red_three": False}),
    Mutant("unmelded-side-not-frozen", ("pile.frozen.unmelded-side", "initial.pile-natural-pair"), {"pile_frozen_for_unmelded_side": False}),
    Mutant("pile-always-frozen", ("pile.unfrozen.natural-plus-wild", "pile.unfrozen.add-to-meld"), {"pile_always_frozen": True}),
    Mutant("wild-cards-unlimited", ("meld.max-wilds",), {"meld_max_wilds": 8}),
    Mutant("one-natural-is-enough", ("meld.min-naturals",), {"meld_min_naturals": 1}),
    Mutant("two-card-melds", ("meld.min-cards",), {"meld_min_cards": 2}),
    Mutant("wild-ratio-always", ("meld.wild-ratio",), {"meld_wilds_not_more_than_naturals": True}),
    Mutant("black-threes-freeze", ("black3.does-not-freeze", "black3.block-next-player"), {"black_three_discard_effect": "freeze"}),
    Mutant("no-forced-take", ("stock.empty.forced-take",), patches={"take_is_forced": _never_forced}),
    Mutant("no-one-card-rule", ("pile.one-card-rule",), {"pile_one_card_rule": False}),
    Mutant("six-card-canastas", ("canasta.definition",), {"canasta_min_cards": 6}),
    Mutant("no-concealed-bonus", ("out.bonus", "score.going-out"), {"going_out_concealed_extra_bonus": 0}),
    Mutant("no-all-four-bonus", ("red3.all-four",), {"red_three_all_four_total": 400}),
    Mutant("red-threes-never-minus", ("red3.negative-without-meld",), {"red_three_negative_without_meld": False}),
    Mutant("final-discard-required", ("out.final-discard-optional",), {"going_out_final_discard": "required"}),
    Mutant("out-without-canasta", ("out.requires-canasta",), {"going_out_canastas_required": 0}),
    Mutant("flat-initial-minimum", ("initial.table",), {"initial_meld_table": (InitialMeldRow(None, 50),)}),
    Mutant("pile-top-does-not-count", ("initial.pile-top-counts",), {"initial_meld_pile_top_counts": False}),
    Mutant("no-natural-and-wild-take", ("pile.unfrozen.natural-plus-wild",), {"pile_take_unfrozen_with": _without("natural_and_wild")}),
    Mutant("no-add-to-meld-take", ("pile.unfrozen.add-to-meld",), {"pile_take_unfrozen_with": _without("add_to_meld")}),
    Mutant("draw-two", ("turn.draw.count",), {"draw_count": 2}),
    Mutant("stock-end-ends-hand", ("stock.empty.continue", "stock.empty.forced-take"), {"end_of_stock_mode": "end_hand"}),
    Mutant("bonuses-count-toward-minimum", ("initial.card-values-only", "canasta.bonus-not-initial"), methods={"_check_initial_meld": _initial_meld_counts_bonuses}),
    Mutant("concealed-whenever-canasta", ("out.concealed.definition", "out.concealed.own-canasta"), methods={"_is_concealed": staticmethod(_concealed_whenever_canasta)}),
    Mutant("answer-not-binding", ("out.ask.binding",), methods={"_answer": _answer_not_binding}),
    Mutant("nothing-blocks", ("pile.blocked.wild-top", "pile.blocked.black3-top"), patches={"check_top_not_blocked": _no_block}),
    Mutant("black-three-does-not-block", ("pile.blocked.black3-top", "black3.block-next-player"), patches={"check_top_not_blocked": _only_wild_blocks}),
    Mutant("wild-top-does-not-block", ("pile.blocked.wild-top",), patches={"check_top_not_blocked": _only_black_three_blocks}),
    Mutant("meld-down-to-last-card", ("turn.keep-a-card",), methods={"_check_cards_left": _keep_no_card}),
    Mutant("canasta-bonus-swapped", ("canasta.bonus", "score.natural-canasta"), {"canasta_natural_bonus": 300, "canasta_mixed_bonus": 500}),
    Mutant("red-three-bonus-50", ("red3.bonus", "score.red-threes"), {"red_three_bonus": 50}),
)

#: mutants that differ from the reference engine only in the rule a rejection cites, with why:
#: caught only by an engine that declares cites_rules, under --canasta-strict-rules
CITATION_ONLY: dict[str, str] = {
    "wild-top-does-not-block": (
        "a wild card on top can never be melded from the pile: without the block, the take is still "
        "refused (pile.take.top-card-first, or a meld rule), so only the citation differs"
    ),
}


def __getattr__(name: str) -> Callable[[], ReferenceEngine]:
    """Each mutant's engine factory by name, dashes as underscores: ``tests.mutants:two_card_melds``
    (for ``--engine``, ``--canasta-engine`` and ``canasta fuzz``)."""
    for mutant in MUTANTS:
        if mutant.name.replace("-", "_") == name:
            return mutant.factory()
    raise AttributeError(f"module {__name__!r} has no mutant {name!r}")
