"""Bounded tables of computed values, for the move generator (no rule lives here).

A table is a plain dict; it is dropped whole when it grows past ``LIMIT`` entries, so memory
stays bounded however many positions are listed."""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")

LIMIT = 4096


def bounded(table: dict[K, V]) -> dict[K, V]:
    """The table, emptied first when it holds more than ``LIMIT`` entries."""
    if len(table) > LIMIT:
        table.clear()
    return table
