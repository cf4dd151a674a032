"""Sequences (meld.sequences, the Canasta Palace custom option; Samba): a side's runs of natural
cards of one suit in consecutive rank order, keyed among the side's melds by ``seq:`` and their
lowest card (``seq:4H``). Every check raises :class:`Illegal` naming its rule."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from canasta_conformance.contract.cards import Card, format_cards
from canasta_conformance.contract.model import MeldGroup
from canasta_conformance.contract.sequences import is_sequence_key, sequence_key, span
from canasta_conformance.contract.variant_rules import VariantRules

from .errors import Illegal


@dataclass
class SequencePlan:
    """The side's sequences an action lays or extends."""

    #: key after the action -> the whole sequence
    result: dict[str, list[Card]] = field(default_factory=dict)
    #: keys of sequences started by the action
    new: set[str] = field(default_factory=set)
    #: (key before, key after) of sequences of the side extended downwards (their key changes)
    renamed: list[tuple[str, str]] = field(default_factory=list)


def touches(a: Sequence[Card], b: Sequence[Card], any_suit: bool = False) -> bool:
    """Two groups of one suit (``any_suit``: of any suits) overlap or meet end to end in rank
    order (meld.sequence.separate)."""
    if not any_suit and a[0].suit != b[0].suit:
        return False
    low_a, high_a = span(a)
    low_b, high_b = span(b)
    return low_a <= high_b + 1 and high_a >= low_b - 1


def side_sequences(side_melds: Mapping[str, list[Card]]) -> dict[str, list[Card]]:
    return {key: cards for key, cards in side_melds.items() if is_sequence_key(key)}


def plan_sequences(groups: Sequence[MeldGroup], rules: VariantRules, side_melds: Mapping[str, list[Card]]) -> SequencePlan:
    """eq.no-sequences, meld.sequence.*: lay the sequence groups of one action, in order. A group
    touching none of the side's sequences of its suit starts one; touching one, it extends it (at
    either end); touching two, it is refused (meld.sequence.separate)."""
    # every sequence of the side, as (key before the action or None if started by it, cards)
    working: list[tuple[str | None, list[Card]]] = [(key, list(cards)) for key, cards in side_sequences(side_melds).items()]
    changed: set[int] = set()
    for group in groups:
        cards = list(group.cards)
        if not rules.meld_sequences:
            raise Illegal("eq.no-sequences", f"this variant has no sequences: [{format_cards(cards)}]")
        if (fault := rules.sequence_cards_fault(cards)) is not None:
            raise Illegal(*fault)
        near = [i for i, (_, seq) in enumerate(working) if touches(cards, seq)]
        if len(near) > 1:
            keys = ", ".join(format_cards(working[i][1]) for i in near)
            raise Illegal("meld.sequence.separate", f"[{format_cards(cards)}] touches two sequences of the side ({keys}): it extends only one")
        if near:
            index = near[0]
            merged = [*working[index][1], *cards]
            if (merge_fault := rules.sequence_fault(merged, new=False)) is not None:
                raise Illegal(*merge_fault)
            working[index] = (working[index][0], merged)
        else:
            if (new_fault := rules.sequence_fault(cards, new=True)) is not None:
                other = [seq for _, seq in working if touches(cards, seq, any_suit=True)]
                if new_fault.rule == "meld.sequence.min-cards" and other:  # meant to extend, wrong suit
                    raise Illegal("meld.sequence.one-suit", f"[{format_cards(cards)}] is not of the suit of the sequence it meets: [{format_cards(other[0])}]")
                raise Illegal(*new_fault)
            working.append((None, cards))
            index = len(working) - 1
        changed.add(index)
    plan = SequencePlan()
    for index in sorted(changed):
        before, cards = working[index]
        key = sequence_key(cards)
        plan.result[key] = cards
        if before is None:
            plan.new.add(key)
        elif before != key:
            plan.renamed.append((before, key))
    return plan


def is_sequence_canasta(key: str, cards: Sequence[Card], rules: VariantRules) -> bool:
    """canasta.sequence: a sequence of a canasta's size."""
    return is_sequence_key(key) and len(cards) >= rules.canasta_min_cards


def check_take_lays_no_sequence(cards: Sequence[Card], groups: Sequence[MeldGroup], top: Card, rules: VariantRules) -> None:
    """meld.sequence.from-hand: the pile's top card never goes into a sequence, and taking the pile
    lays no sequence (the take stays as in Classic; sequences are laid by meld actions)."""
    if any(group.sequence for group in groups):
        raise Illegal("meld.sequence.from-hand", "taking the pile lays no sequence: sequences are laid from the hand by a meld")
    if rules.meld_sequences and any(rules.is_natural(c) and c.rank != top.rank for c in cards):
        raise Illegal("meld.sequence.from-hand", f"the top card {top.token} goes to a meld of its rank, never into a sequence: [{format_cards(cards)}]")
