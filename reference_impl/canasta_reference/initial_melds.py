"""The initial melds and going-out melds of several groups that the move generator lists whole
(items 3 of the equivalence documented in :mod:`canasta_reference.movegen`): a side's initial meld
of several ranks in which every group is needed, the melds that leave the player one card or none
and cannot begin with a listed step, and Modern American's initial meld, generated as a whole."""

from __future__ import annotations

from collections.abc import Iterator
from operator import add, gt

from canasta_conformance.contract.model import WILD_MELD

from .move_rules import cards_left_allowed, completes_canasta, concealed_exception, group_is_legal, reaches_minimum
from .position_facts import Facts, Part, WildVector


def _new_meld_options(f: Facts, exclude: str | None) -> list[list[Part]]:
    """For a side without melds: the legal new melds of each rank of naturals (not threes)."""
    options = []
    choices = f.wild_choices(f.rules.meld_max_wilds)
    for rank, cards in f.naturals.items():
        if rank == exclude or rank == "3":
            continue
        parts = [
            f.part(rank, k, choice) for k in range(f.rules.meld_min_naturals, len(cards) + 1) for choice in choices
            if group_is_legal(f, rank, k, choice[1])
        ]
        if parts:
            options.append(parts)
    return options


def initial_meld_sets(f: Facts, fixed: tuple[Part, ...], counted: int = 0, extra_cards: int = 0) -> Iterator[tuple[Part, ...]]:
    """Initial melds of several ranks (besides the ``fixed`` part of a take) in which every added
    group is needed to reach the minimum, leaving the player two cards or more (fewer: see
    all_but_one). ``extra_cards`` come to the hand with the take."""
    options = _new_meld_options(f, fixed[0].rank if fixed else None)
    avail = f.wild_avail
    need_parts = 1 if fixed else 2
    hand_cards = f.hand_size + extra_cards - sum(p.cards for p in fixed)

    def extend(index: int, chosen: tuple[Part, ...], total: int, used: int, wilds: WildVector) -> Iterator[tuple[Part, ...]]:
        for i in range(index, len(options)):
            for part in options[i]:
                spent = tuple(a + b for a, b in zip(wilds, part.wilds, strict=True))
                if any(s > a for s, a in zip(spent, avail, strict=True)):
                    continue
                now = total + part.value
                picked = (*chosen, part)
                if now < f.minimum:
                    yield from extend(i + 1, picked, now, used + part.cards, spent)
                elif len(picked) >= need_parts and hand_cards - used - part.cards >= 2 and all(now - p.value < f.minimum for p in picked):
                    yield (*fixed, *picked)

    yield from extend(0, (), counted, 0, fixed[0].wilds if fixed else f.no_wilds)


def _stuck_cards(f: Facts, skip: str | None) -> list[str | int]:
    """The card classes (ranks) of which some card fits no meld this turn; -1 for red threes."""
    rules = f.rules
    stuck: list[str | int] = [-1] * f.red_threes
    for rank, cards in f.naturals.items():
        if rank != skip and rank not in f.melds and len(cards) < rules.meld_min_naturals:
            stuck += [rank] * len(cards)
    return stuck


def all_but_one(f: Facts, top: Part | None, rest: int = 0) -> Iterator[tuple[Part, ...]]:
    """The legal melds of several ranks (or takes with the top card's part ``top``, ``rest`` more
    cards of the pile coming to the hand) that leave the player at most one card and that cannot
    be split into a listed first step and a later rest (see :func:`_can_begin`): every card of the
    hand but at most one is laid, the wild cards spread over the melds in every allowed way."""
    rules = f.rules
    if f.state.question == "no":
        return  # out.ask.binding: no going out, so no action may leave one card or none
    threes_wait = rules.black_three_meld_only_going_out
    if f.melded and top is None and f.hand_size - 1 > 2 and (
        not threes_wait or len(f.naturals.get("3", ())) != 1 or sum(1 for rank in f.naturals if rank != "3") > 1
    ):
        return  # more than two cards laid: some group can go first (the "splittable" test below)
    stuck = _stuck_cards(f, top.rank if top else None)
    if len(stuck) + rest > 1 or -1 in stuck:
        return
    keeps: list[str | int | None] = [None] if rest or not stuck else []
    if not rest:
        keeps += stuck or [*f.naturals, *range(len(f.wild_kinds))]
    for keep in keeps:
        naturals = {rank: len(cards) - (keep == rank) for rank, cards in f.naturals.items()}
        avail = tuple(n - (keep == i) for i, n in enumerate(f.wild_avail))
        kept = 0 if keep is None else 1
        if top is not None:
            if naturals.pop(top.rank, 0) != top.k or any(w > a for w, a in zip(top.wilds, avail, strict=True)):
                continue
            avail = tuple(a - w for a, w in zip(avail, top.wilds, strict=True))
        if any(n and rank not in f.melds and n < rules.meld_min_naturals for rank, n in naturals.items()):
            continue
        laid = f.hand_size - kept
        if f.melded:
            # Splittable unless every group that may go first would leave at most one card.
            threes = naturals.get("3", 0) if threes_wait else 0
            free = sum(1 for rank, n in naturals.items() if n and not (threes_wait and rank == "3"))
            if laid > 2 and not (threes and threes <= 1 - kept and free <= 1):
                continue
        elif top is None:
            counted = sum(n * f.natural_value(r) for r, n in naturals.items() if r != "3")
            counted += sum(n * v for n, v in zip(avail, f.wild_values, strict=True))
            if counted >= 2 * f.minimum:
                continue  # some group could be left for later
        targets = [(rank, n) for rank, n in naturals.items() if n]
        targets += [(rank, 0) for rank in f.melds if not naturals.get(rank) and rank != "3" and (top is None or rank != top.rank)]
        for spread in _spread(f, targets, avail):
            parts = [
                Part(rank, n, wilds, sum(wilds), n * f.natural_value(rank) + sum(a * b for a, b in zip(wilds, f.wild_values, strict=True)))
                for (rank, n), wilds in zip(targets, spread, strict=True) if n or any(wilds)
            ]
            if top is not None:
                parts.insert(0, top)
            if len(parts) < 2 or not all(group_is_legal(f, p.rank, p.k + p.top, p.n_wilds) for p in parts):
                continue
            if _can_begin(f, parts, parts, rest, top) and not any(
                _can_begin(f, parts, first, rest, top) for first in _first_steps(f, parts, top)
            ):
                yield tuple(parts)


def _first_steps(f: Facts, parts: list[Part], top: Part | None) -> Iterator[list[Part]]:
    """The sub-actions that could be laid first: one group (a side with melds), or all but one
    group, or all but the black threes (an initial meld; a take keeps its top card's group)."""
    if f.melded:
        yield from ([p] for p in parts)
        return
    for drop in parts:
        if drop is not top:
            yield [p for p in parts if p is not drop]
    if any(p.rank == "3" for p in parts):
        yield [p for p in parts if p.rank != "3"]


def _can_begin(f: Facts, parts: list[Part], first: list[Part], rest: int, top: Part | None) -> bool:
    """Whether ``first`` (a part of the action ``parts``, or all of it) is legal on its own."""
    if not first:
        return False
    left = f.hand_size - sum(p.cards for p in first) + rest
    made = [completes_canasta(f, p.rank, p.k + p.top + p.n_wilds) for p in first]
    canastas = f.canastas + sum(made)
    counted = sum(p.value for p in first)
    if top is not None:
        if not reaches_minimum(f, counted + (f.top_value if f.rules.initial_meld_pile_top_counts else 0)):
            return False
    elif not reaches_minimum(f, counted) and not concealed_exception(
            f, left, canastas, any(m and p.rank not in f.melds for m, p in zip(made, first, strict=True))):
        return False
    wild_meld = f.wild_meld_size + sum(p.cards for p in first if p.rank == WILD_MELD)
    open_after = 0 < wild_meld < f.rules.canasta_min_cards
    return cards_left_allowed(f, left, canastas, any(p.rank == "3" for p in first), left == 0, open_after)


def _spread(f: Facts, targets: list[tuple[str, int]], avail: WildVector) -> Iterator[list[WildVector]]:
    """Every way to lay all ``avail`` wild cards over the targets (none on threes), at most the
    wild-card limit on each (the wild-card meld: up to its size limit)."""
    caps = [_wild_cap(f, rank) for rank, _ in targets]
    if sum(avail) > sum(caps):
        return
    choices = {cap: f.wild_choices(cap) for cap in set(caps)}

    def place(i: int, left: WildVector) -> Iterator[list[WildVector]]:
        if i == len(targets):
            if not any(left):
                yield []
            return
        if sum(left) > sum(caps[i:]):
            return
        for wilds, _, _ in choices[caps[i]]:
            if any(w > a for w, a in zip(wilds, left, strict=True)):
                continue
            rest = tuple(a - w for a, w in zip(left, wilds, strict=True))
            for tail in place(i + 1, rest):
                yield [wilds, *tail]

    yield from place(0, avail)


def _wild_cap(f: Facts, rank: str) -> int:
    """How many wild cards one action may lay on ``rank`` at most (before the finer checks)."""
    if rank == "3" or (rank == "7" and f.rules.meld_sevens_no_wilds):
        return 0
    if rank == WILD_MELD:
        return min(f.max_cards - f.wild_meld_size, sum(f.wild_avail))
    return f.rules.meld_max_wilds


# --- Modern American's initial meld ------------------------------------------------------------------
def modern_initial_melds(f: Facts) -> Iterator[tuple[Part, ...]]:
    """The initial melds of a side whose initial meld differs from its later melds (Modern
    American). Every group of the action is one that could not be laid later in the same turn
    with the same effect: dropping it makes the rest no legal initial meld (the count, the natural
    meld, black threes only going out), or it holds wild cards a later meld could not take
    (modern.aces.wilds-initial-only, modern.meld.wild-after-five). Each group is any legal new meld
    (any number of naturals, any wild cards by kind), the wild-card meld included."""
    rules = f.rules
    natural_meld = rules.initial_meld_natural_meld_required
    if natural_meld and not any(rank != "3" and len(cards) >= rules.meld_min_cards for rank, cards in f.naturals.items()):
        return  # modern.initial.natural-meld: no rank of the hand makes a natural meld, so no initial meld
    options: list[list[Part]] = []
    for rank, cards in f.naturals.items():
        if rank == "3" and rules.black_three_meld_only_going_out:
            continue  # black threes: only going out, see _initial_with_threes
        parts = [
            f.part(rank, k, choice) for k in range(rules.meld_min_naturals, len(cards) + 1)
            for choice in f.wild_choices(rules.meld_max_wilds) if group_is_legal(f, rank, k, choice[1], True)
        ]
        if parts:
            options.append(parts)
    if rules.meld_wild_only_melds:
        parts = [
            Part(WILD_MELD, 0, v, n, value) for v, n, value in f.wild_choices(min(f.max_cards, sum(f.wild_avail)))
            if group_is_legal(f, WILD_MELD, 0, n)
        ]
        if parts:
            options.append(parts)
    # What the groups still to choose can add at most: their naturals (the most of each rank), and
    # the wild cards not yet spent (each wild card goes to one group only).
    best_value = [max(p.k * f.natural_value(p.rank) for p in parts) for parts in options]
    best_cards = [max(p.k for p in parts) for parts in options]
    reach_value = [sum(best_value[i:]) for i in range(len(options) + 1)]
    reach_cards = [sum(best_cards[i:]) for i in range(len(options) + 1)]
    #: whether options[i:] still offer a natural meld (modern.initial.natural-meld)
    naturals_left = [any(not p.n_wilds and p.k >= rules.meld_min_cards and p.rank != WILD_MELD for q in options[i:] for p in q)
                     for i in range(len(options) + 1)]
    avail = f.wild_avail
    values = f.wild_values

    def extend(index: int, chosen: tuple[Part, ...], counted: int, laid: int, wilds: WildVector, natural: bool) -> Iterator[tuple[Part, ...]]:
        if natural_meld and not natural and not naturals_left[index]:
            return  # modern.initial.natural-meld can no longer be met
        wild_value = sum((a - w) * v for a, w, v in zip(avail, wilds, values, strict=True))
        wild_cards = sum(avail) - sum(wilds)
        if counted + reach_value[index] + wild_value < f.minimum and f.hand_size - laid - reach_cards[index] - wild_cards > 1:
            return  # neither the minimum nor a concealed going out can be reached any more
        for i in range(index, len(options)):
            for part in options[i]:
                spent = tuple(map(add, wilds, part.wilds))
                if any(map(gt, spent, avail)):
                    continue
                picked = (*chosen, part)
                now = counted + part.value
                if _some_group_to_spare(f, picked, now):
                    continue  # so in every action containing these groups
                if _initial_is_legal(f, picked) and not any(_deferrable(f, picked, g) for g in picked):
                    yield picked
                yield from extend(i + 1, picked, now, laid + part.cards, spent,
                                  natural or (not part.n_wilds and part.k >= rules.meld_min_cards and part.rank != WILD_MELD))

    yield from extend(0, (), 0, 0, f.no_wilds, False)
    yield from _initial_with_threes(f)


def _some_group_to_spare(f: Facts, parts: tuple[Part, ...], counted: int) -> bool:
    """A group that every legal initial meld containing these groups (they hold no black threes)
    could lay later: the rest still counts the minimum, holds a natural meld, and the group is a
    natural meld beside another one, the wild-card meld, or wild cards a later meld may take."""
    naturals = [p for p in parts if not p.n_wilds and p.rank not in (WILD_MELD, "3")]
    for p in parts:
        if counted - p.value < f.minimum:
            continue
        if p.rank in (WILD_MELD, "3") or (p.n_wilds and _later(f, p)) or (not p.n_wilds and len(naturals) > 1):
            return True
    return False


def _later(f: Facts, part: Part) -> bool:
    """Whether a group of a natural rank could be laid after the side's initial meld as it is."""
    return group_is_legal(f, part.rank, part.k, part.n_wilds, False)


def _deferrable(f: Facts, parts: tuple[Part, ...], group: Part) -> bool:
    """The initial meld ``parts`` is the same as ``parts`` without ``group`` followed by a meld of
    ``group`` in the same turn: the rest is a legal initial meld and the group may follow it."""
    rest = tuple(p for p in parts if p is not group)
    if not rest or (group.n_wilds and group.rank != WILD_MELD and not _later(f, group)):
        return False
    return _initial_is_legal(f, rest)


def _initial_is_legal(f: Facts, parts: tuple[Part, ...]) -> bool:
    """The action laying ``parts`` (each a legal new meld) as the side's initial meld:
    modern.wild-meld.blocks-wilds, initial.table (or initial.concealed-exception),
    modern.initial.natural-meld, then the cards left (cards_left_allowed)."""
    rules = f.rules
    size = rules.canasta_min_cards
    wild_meld = next((p for p in parts if p.rank == WILD_MELD), None)
    wild_open = wild_meld is not None and wild_meld.cards < size
    if wild_open and rules.meld_wild_meld_blocks_wilds and any(p.n_wilds and p is not wild_meld for p in parts):
        return False
    if rules.initial_meld_natural_meld_required and not any(
        not p.n_wilds and p.rank not in (WILD_MELD, "3") and p.k >= rules.meld_min_cards for p in parts
    ):
        return False
    left = f.hand_size - sum(p.cards for p in parts)
    canastas = sum(1 for p in parts if p.cards >= size)
    if sum(p.value for p in parts) < f.minimum and not concealed_exception(f, left, canastas, canastas > 0):
        return False
    return cards_left_allowed(f, left, canastas, any(p.rank == "3" for p in parts), left == 0, wild_open)


def _initial_with_threes(f: Facts) -> Iterator[tuple[Part, ...]]:
    """Initial melds with black threes (black3.meld.going-out-only): every card of the hand but
    one is laid (any one kept), the wild cards spread over the melds in every allowed way; every
    other group is needed (without it the threes would stay), the threes when the rest is no
    legal initial meld."""
    rules = f.rules
    threes = len(f.naturals.get("3", ()))
    if threes < rules.meld_min_cards or not rules.black_three_meld_only_going_out:
        return
    keeps: list[str | int] = [*f.naturals, *range(len(f.wild_kinds))]
    for keep in keeps:
        naturals = {rank: len(cards) - (keep == rank) for rank, cards in f.naturals.items()}
        avail = tuple(n - (keep == i) for i, n in enumerate(f.wild_avail))
        if naturals["3"] < rules.meld_min_cards or any(0 < n < rules.meld_min_naturals for n in naturals.values()):
            continue
        targets = [(rank, n) for rank, n in naturals.items() if n]
        if rules.meld_wild_only_melds:
            targets.append((WILD_MELD, 0))
        for spread in _spread(f, targets, avail):
            parts = tuple(
                Part(rank, n, wilds, sum(wilds), n * f.natural_value(rank) + sum(a * b for a, b in zip(wilds, f.wild_values, strict=True)))
                for (rank, n), wilds in zip(targets, spread, strict=True) if n or any(wilds)
            )
            if all(group_is_legal(f, p.rank, p.k, p.n_wilds, True) for p in parts) and _initial_is_legal(f, parts) and not any(
                _deferrable(f, parts, g) for g in parts
            ):
                yield parts
