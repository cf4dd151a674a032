"""Vectors of small non-negative counts packed into one int (no rule lives here).

The search of Modern American's initial melds (:mod:`canasta_reference.initial_melds`) sums, for
every set of groups it tries, a few counts of each group and the wild cards it spends by kind.
Packed, adding a group or taking it away again is one integer operation instead of a tuple built
field by field. Each count has ``FIELD_BITS`` bits, the top one kept clear: a sum never goes
negative (only a group that was added is taken away) and stays far below ``1 << (FIELD_BITS - 1)``
(:func:`pack` refuses a count that large; a hand's counts add up to a few hundred at most)."""

from __future__ import annotations

from functools import lru_cache

from . import memo

FIELD_BITS = 24
MASK = (1 << FIELD_BITS) - 1
MAX_FIELDS = 8
#: the top bit of every field: set in a packed vector, it is borrowed from by a field that goes below
#: zero, so ``(large | GUARDS) - small & GUARDS == GUARDS`` says that every field of ``small`` is at
#: most the same field of ``large`` (one integer operation, written out where a search tests it)
GUARDS = sum(1 << (i * FIELD_BITS + FIELD_BITS - 1) for i in range(MAX_FIELDS))


def at(index: int) -> int:
    """The shift of field ``index``: field ``i`` of ``packed`` is ``packed >> at(i) & MASK``."""
    return index * FIELD_BITS


@lru_cache(maxsize=4096)
def pack(counts: tuple[int, ...]) -> int:
    """The counts packed (the same few vectors come back position after position: kept)."""
    if len(counts) > MAX_FIELDS:
        raise ValueError(f"{len(counts)} counts: at most {MAX_FIELDS} are packed")
    packed = 0
    for index, count in enumerate(counts):
        if not 0 <= count < 1 << (FIELD_BITS - 1):
            raise ValueError(f"field {index}: {count} does not fit in {FIELD_BITS - 1} bits")
        packed |= count << at(index)
    return packed


@lru_cache(maxsize=4096)
def fields_of(counts: tuple[int, ...]) -> int:
    """Every bit of the fields where ``counts`` is not zero (``packed & fields_of(counts)`` keeps
    those fields of ``packed``)."""
    return sum(MASK << at(index) for index, count in enumerate(counts) if count)


@lru_cache(maxsize=4096)
def capped(packed: int, size: int, most: int) -> int:
    """The first ``size`` fields of ``packed``, each at most ``most``."""
    return pack(tuple(min(count, most) for count in unpack(packed, size)))


@lru_cache(maxsize=4096)
def unpack(packed: int, size: int) -> tuple[int, ...]:
    """The first ``size`` fields."""
    return tuple(packed >> at(index) & MASK for index in range(size))


memo.on_clear(pack.cache_clear)
memo.on_clear(unpack.cache_clear)
memo.on_clear(fields_of.cache_clear)
memo.on_clear(capped.cache_clear)
