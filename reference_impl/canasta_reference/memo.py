"""Tables of computed values, for the move generator and the state (no rule lives here).

A table is a plain dict made by :func:`table`; :func:`bounded` drops it whole when it grows past
``LIMIT`` entries, so memory stays bounded however many positions are listed. Every table (and
every ``functools`` cache, through :func:`on_clear`) is registered here, so :func:`clear_all`
empties them all: the mutation tool runs each mutant on empty tables, or a mutant of a function
filling one would be served the original's answers (tests/test_engine_parameters.py checks that
no module-level table of the package is made otherwise)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")

LIMIT = 4096

_TABLES: list[dict[Any, Any]] = []
_CLEARERS: list[Callable[[], None]] = []


def table() -> dict[Any, Any]:
    """A new, empty memo table, registered for :func:`clear_all`."""
    made: dict[Any, Any] = {}
    _TABLES.append(made)
    return made


def on_clear(clear: Callable[[], None]) -> None:
    """Register another cache's clear function (e.g. an ``lru_cache``'s ``cache_clear``)."""
    _CLEARERS.append(clear)


def clear_all() -> None:
    """Empty every registered table and cache."""
    for made in _TABLES:
        made.clear()
    for clear in _CLEARERS:
        clear()


def bounded(table: dict[K, V]) -> dict[K, V]:
    """The table, emptied first when it holds more than ``LIMIT`` entries."""
    if len(table) > LIMIT:
        table.clear()
    return table
