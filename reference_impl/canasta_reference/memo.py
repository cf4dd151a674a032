"""Tables of computed values, for the move generator and the state (no rule lives here).

A table is a plain dict made by :func:`table`; :func:`bounded` drops it whole when it grows past
``LIMIT`` entries, so memory stays bounded however many positions are listed. Every table (and
every ``functools`` cache, through :func:`on_clear`) is registered here, so :func:`clear_all`
empties them all: the mutation tool runs each mutant on empty tables, or a mutant of a function
filling one would be served the original's answers (tests/test_engine_parameters.py checks that
no module-level table of the package is made otherwise).

**Keys and values the garbage collector forgets.** A table's entries outlive the listing that made
them, so CPython's collector scans every one that holds a tracked object (a card, a rule set, an
action, any object of a class) again at each pass of an older generation; a tuple or dict that
holds only atomic values (ints, strings, None, tuples of them) it stops tracking after its first
pass (a tuple inside a tuple keeps the outer one tracked one pass longer: keys and values are
flat). So a table keys a variant by :func:`serial` (an int), not by the rule set or its ``id``
(which another object may take once the rule set is gone, hence an entry holding the rule set to
check it), and a set of cards by :func:`code` (an int: the cards' tuple is kept once, in the table
of codes, however many entries name it)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from itertools import count
from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")

LIMIT = 4096
#: the limit of a table of actions (movegen's one-group melds): emptying it does not free the
#: actions the lists of other tables hold, so the next listings make them again, each a second
#: object for the collector to scan; kept four times longer
ACTIONS_LIMIT = 4 * LIMIT

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


def bounded(table: dict[K, V], limit: int = LIMIT) -> dict[K, V]:
    """The table, emptied first when it holds more than ``limit`` entries."""
    if len(table) > limit:
        table.clear()
    return table


#: id(an object) -> (the object, its serial): holding the object keeps its id from being reused
_SERIALS: dict[int, tuple[object, int]] = table()
_NEXT_SERIAL = count(1)


def serial(value: object) -> int:
    """A number for ``value`` (a variant's rules) that no other object is given in this process,
    to key tables by in place of the object. The same while ``value`` stays in the registry; once
    the registry is emptied (clear_all, or grown past ``LIMIT``), ``value`` gets a new one, so the
    entries made under the old one are never read again."""
    entry = _SERIALS.get(id(value))
    if entry is None or entry[0] is not value:
        entry = bounded(_SERIALS)[id(value)] = (value, next(_NEXT_SERIAL))
    return entry[1]


#: a value -> its code
CODES: dict[Hashable, int] = table()


def code(value: Hashable) -> int:
    """A number for ``value`` (a tuple of cards) that no unequal value is given in this process, to
    key tables by in place of the value (read ``CODES.get(value) or code(value)`` where it counts).
    The same while ``value`` stays in the table of codes (the same few sets of cards come back
    over and over: it stays small); once that is emptied, a new one, as for :func:`serial`."""
    found = CODES.get(value)
    if found is None:
        found = bounded(CODES)[value] = next(_NEXT_SERIAL)
    return found
