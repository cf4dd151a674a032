"""Vectors of small non-negative counts packed into one int (no rule lives here).

The search of Modern American's initial melds (:mod:`canasta_reference.initial_melds`) sums, for
every set of groups it tries, a few counts of each group and the wild cards it spends by kind.
Packed, adding a group or taking it away again is one integer operation instead of a tuple built
field by field. Each count has ``FIELD_BITS`` bits: a sum never goes negative (only a group that
was added is taken away) and stays far below ``1 << FIELD_BITS`` (:func:`pack` refuses a count
that large, and a hand's counts add up to a few hundred at most)."""

from __future__ import annotations

from collections.abc import Iterable

FIELD_BITS = 24
MASK = (1 << FIELD_BITS) - 1


def at(index: int) -> int:
    """The shift of field ``index``: field ``i`` of ``packed`` is ``packed >> at(i) & MASK``."""
    return index * FIELD_BITS


def pack(counts: Iterable[int]) -> int:
    packed = 0
    for index, count in enumerate(counts):
        if not 0 <= count <= MASK:
            raise ValueError(f"field {index}: {count} does not fit in {FIELD_BITS} bits")
        packed |= count << at(index)
    return packed


def unpack(packed: int, size: int) -> tuple[int, ...]:
    """The first ``size`` fields."""
    return tuple(packed >> at(index) & MASK for index in range(size))
