"""Hypothesis strategies for property tests of a Canasta engine.

Public API (``from canasta_conformance import strategies as cs``); needs Hypothesis
(``pip install "canasta-rules[hypothesis]"``), which the rest of the package never imports.

* :func:`deals`: whole dealt hands: a shuffled deck, a dealer, cumulative scores (a
  :class:`~canasta_conformance.contract.engine_protocol.DealSetup` for an engine's ``deal``);
* :func:`positions`: positions reachable in play: a deal, then some legal actions;
* :func:`legal_actions`: the legal actions of a position;
* :func:`near_misses`: illegal actions close to legal ones (one card short, the wrong card, a
  wild card too many, the frozen pile, the wrong phase);
* :func:`positions_and_actions`: a reachable position with one of its legal (or near-miss) actions.

Positions and verdicts come from the reference engine, used by name as the oracle. Everything
shrinks the Hypothesis way: a failing example becomes a short game from a simple deck.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from hypothesis import strategies as st

from ..contract.cards import full_deck
from ..contract.engine_protocol import DealSetup, Engine
from ..contract.model import Action, Position
from ..contract.spec import Spec, load_spec
from ..contract.variant_rules import VariantRules
from ..running.fuzz import check, oracle_factory
from ..running.fuzz import near_misses as _near_misses

__all__ = ["deals", "legal_actions", "near_misses", "positions", "positions_and_actions", "reference"]

#: cumulative scores a deal may start from: each row of the usual initial-meld tables, and below zero
SCORES = (0, -150, 1495, 1500, 2995, 3000)


@lru_cache(maxsize=1)
def _spec() -> Spec:
    return load_spec()


@lru_cache(maxsize=1)
def reference() -> Engine:
    """The reference engine the strategies consult (one per process; strategies reload it)."""
    return oracle_factory()()


def _rules(variant: str, options: Mapping[str, Any] | None) -> VariantRules:
    return _spec().variant_rules(variant, dict(options or {}))


def deals(variant: str = "classic", options: Mapping[str, Any] | None = None, scores: bool = True) -> st.SearchStrategy[DealSetup]:
    """Whole dealt hands of ``variant``: a shuffled deck (top first), a dealer, optionally
    non-zero cumulative scores, and the first player where the variant draws it at random."""
    rules = _rules(variant, options)
    deck = full_deck(rules.deck_packs, rules.deck_jokers)
    players, sides = rules.players, rules.sides
    side_scores = st.lists(st.sampled_from(SCORES), min_size=sides, max_size=sides).map(tuple) if scores else st.just(())
    first = st.integers(0, players - 1) if rules.deal_first_player == "random" else st.none()
    return st.builds(
        DealSetup, st.just(variant), st.just(dict(options or {})), st.integers(0, players - 1),
        st.permutations(deck).map(tuple), side_scores | st.just(()), first,
    )


@st.composite
def _positions(draw: st.DrawFn, variant: str, options: Mapping[str, Any] | None, max_steps: int) -> Position:
    engine = reference()
    setup = draw(deals(variant, options))
    engine.deal(setup)  # type: ignore[attr-defined]
    steps = draw(st.integers(0, max_steps))
    for _ in range(steps):
        actions = engine.legal_actions()  # type: ignore[attr-defined]
        if not actions:
            break
        index = draw(st.integers(0, len(actions) - 1))
        outcome = engine.apply(actions[index])
        assert outcome.accepted, (actions[index], outcome)
    return engine.observe()


def positions(variant: str = "classic", options: Mapping[str, Any] | None = None, max_steps: int = 60) -> st.SearchStrategy[Position]:
    """Positions reachable in play: a deal, then up to ``max_steps`` legal actions chosen by
    Hypothesis (the hand may be over)."""
    return _positions(variant, options, max_steps)


def legal_actions(position: Position) -> st.SearchStrategy[Action]:
    """A legal action of ``position`` (as the reference lists them: one per suit-class); nothing
    when the hand is over."""
    engine = reference()
    engine.load(position)
    actions = list(engine.legal_actions())  # type: ignore[attr-defined]
    return st.sampled_from(actions) if actions else st.nothing()


def near_misses(position: Position) -> st.SearchStrategy[Action]:
    """An illegal action of ``position`` close to a legal one (the reference rejects it, citing a rule)."""
    engine = reference()
    engine.load(position)
    legal = list(engine.legal_actions())  # type: ignore[attr-defined]
    rules = _rules(position.variant, dict(position.options))
    misses = _near_misses(engine, position, legal, rules, random.Random(0), count=12) if legal else []
    return st.sampled_from(misses) if misses else st.nothing()


def positions_and_actions(
    variant: str = "classic", options: Mapping[str, Any] | None = None, max_steps: int = 60, legal: bool = True,
) -> st.SearchStrategy[tuple[Position, Action]]:
    """A reachable position (hand not over) with one of its legal actions, or with a near-miss
    illegal action when ``legal`` is false."""
    pick = legal_actions if legal else near_misses
    return positions(variant, options, max_steps).filter(lambda p: p.phase != "over").flatmap(
        lambda p: st.tuples(st.just(p), pick(p))
    )


def verdict(position: Position, action: Action) -> Any:
    """The reference's outcome for ``action`` in ``position``."""
    engine = reference()
    engine.load(position)
    return check(engine, action)
