"""Comparing an expected partial position with an engine's position, in card notation."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..contract.cards import Card, card, format_cards, sort_cards
from ..contract.model import SCORE_ITEMS, Penalty, Position, ScoreSheet, meld_sort_key


def _cards(items: Sequence[str]) -> tuple[Card, ...]:
    return tuple(card(t) for t in items)


def _multiset_diff(label: str, expected: Sequence[Card], actual: Sequence[Card]) -> list[str]:
    want, got = Counter(expected), Counter(actual)
    if want == got:
        return []
    missing = format_cards((want - got).elements()) or "-"
    extra = format_cards((got - want).elements()) or "-"
    return [
        f"{label}: expected {format_cards(expected) or '(none)'}",
        f"{' ' * len(label)}  actual   {format_cards(actual) or '(none)'}",
        f"{' ' * len(label)}  missing {missing}; unexpected {extra}",
    ]


def _sequence_diff(label: str, expected: Sequence[Card], actual: Sequence[Card]) -> list[str]:
    if tuple(expected) == tuple(actual):
        return []
    return [
        f"{label}: expected {' '.join(c.token for c in expected) or '(empty)'}",
        f"{' ' * len(label)}  actual   {' '.join(c.token for c in actual) or '(empty)'}",
    ]


def _melds_text(melds: Sequence[Sequence[Card]]) -> str:
    return " ".join(f"[{format_cards(m)}]" for m in sorted((sort_cards(m) for m in melds), key=meld_sort_key)) or "(none)"


def _melds_diff(label: str, expected: Sequence[Sequence[Card]], actual: Sequence[Sequence[Card]]) -> list[str]:
    def key(melds: Sequence[Sequence[Card]]) -> Counter[tuple[Card, ...]]:
        return Counter(sort_cards(m) for m in melds)

    if key(expected) == key(actual):
        return []
    return [f"{label}: expected {_melds_text(expected)}", f"{' ' * len(label)}  actual   {_melds_text(actual)}"]


def _scalar(label: str, expected: Any, actual: Any) -> list[str]:
    return [] if expected == actual else [f"{label}: expected {expected!r}, actual {actual!r}"]


def position_diff(expected: Mapping[str, Any], actual: Position) -> list[str]:
    """Lines describing every difference; empty when ``actual`` matches the partial ``expected``."""
    lines: list[str] = []
    for key, want in expected.items():
        if key in ("hands", "red_threes"):  # a multiset per seat (red threes: per side, or per seat in Regal)
            held: tuple[tuple[Card, ...], ...] = getattr(actual, key)
            for index, cards in enumerate(want):
                if cards is not None:
                    lines += _multiset_diff(f"{key}[{index}]", _cards(cards), held[index] if index < len(held) else ())
        elif key == "melds":
            for side, melds in enumerate(want):
                if melds is not None:
                    got_melds = actual.melds[side] if side < len(actual.melds) else ()
                    lines += _melds_diff(f"melds[{side}]", [_cards(m) for m in melds], got_melds)
        elif key == "talons":
            got_talons = actual.talons
            if len(want) != len(got_talons):
                lines.append(f"talons: expected {len(want)} talons, actual {len(got_talons)}")
            for index, (talon, got) in enumerate(zip(want, got_talons, strict=False)):  # a count that differs is reported above
                lines += _multiset_diff(f"talons[{index}]", _cards(talon), got)
        elif key in ("pile", "stock"):
            lines += _sequence_diff(key, _cards(want), getattr(actual, key))
        elif key == "hand_counts":
            got_counts = [len(h) for h in actual.hands]
            for seat, count in enumerate(want):
                if count is not None and (seat >= len(got_counts) or got_counts[seat] != count):
                    lines.append(f"hand_counts[{seat}]: expected {count}, actual {got_counts[seat] if seat < len(got_counts) else 'no seat'}")
        elif key == "stock_count":
            lines += _scalar(key, want, len(actual.stock))
        elif key == "pile_count":
            lines += _scalar(key, want, len(actual.pile))
        elif key == "scores":
            lines += _scalar(key, list(want), list(actual.scores))
        elif key == "sitting_out":
            lines += _scalar(key, sorted(want), sorted(actual.sitting_out))
        elif key == "lone_hand":
            lines += _scalar(key, want, actual.lone_hand)
        elif key == "penalties":
            got_penalties = [p.to_json() for p in actual.penalties]
            lines += _scalar(key, [Penalty.from_json(p).to_json() for p in want], got_penalties)
        elif key == "facts":
            got_facts = actual.facts.to_json()
            for fact, value in want.items():
                got_value = got_facts.get(fact)
                if isinstance(value, list):  # a set of texts: order and repeats say nothing
                    lines += _scalar(f"facts.{fact}", sorted(set(map(str, value))), sorted(set(map(str, got_value or []))))
                else:
                    lines += _scalar(f"facts.{fact}", value, got_value)
        elif key == "ended":
            got_end = actual.ended.to_json() if actual.ended else None
            if want is None or got_end is None:
                lines += _scalar("ended", want, got_end)
            else:
                for item, value in want.items():
                    lines += _scalar(f"ended.{item}", value, got_end.get(item))
        else:
            lines += _scalar(key, want, getattr(actual, key))
    return lines


def full_position_diff(before: Position, after: Position) -> list[str]:
    """Every difference between two whole positions (a rejection that changed the position, the
    fuzzer's mirror, a replay): as a scenario compares positions (multisets in any order, a seat or
    side left out holding no cards), and the variant and options besides."""
    lines = position_diff(_as_expectation(before), after)
    if (after.variant, dict(after.options)) != (before.variant, dict(before.options)):
        lines.append(f"variant and options: expected {before.variant} {dict(before.options)}, actual {after.variant} {dict(after.options)}")
    return lines


def _as_expectation(position: Position) -> dict[str, Any]:
    data = position.to_json()
    data.pop("variant")
    data.pop("options")
    return data


def score_diff(expected: Sequence[Mapping[str, int]], actual: ScoreSheet) -> list[str]:
    lines = []
    for side, want in enumerate(expected):
        if side >= len(actual.sides):
            lines.append(f"score[{side}]: the engine's sheet has no side {side}")
            continue
        got = {item: getattr(actual.sides[side], item) for item in (*SCORE_ITEMS, "cumulative")}  # lines left out count 0
        for item, value in want.items():
            if got.get(item) != value:
                lines.append(f"score[{side}].{item}: expected {value}, actual {got.get(item)}")
    return lines
