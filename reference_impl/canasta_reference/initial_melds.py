"""The initial melds and going-out melds of several groups that the move generator lists whole
(items 3 of the equivalence documented in :mod:`canasta_reference.movegen`): a side's initial meld
of several ranks in which every group is needed, the melds that leave the player one card or none
and cannot begin with a listed step, and Modern American's initial meld, generated as a whole."""

from __future__ import annotations

from collections.abc import Iterator
from operator import add, le, mul, sub

from canasta_conformance.contract.model import WILD_MELD, Meld, MeldGroup

from .move_rules import cards_left_allowed, completes_canasta, concealed_exception, group_is_legal, reaches_minimum
from .position_facts import GROUP_ORDER, Facts, Part, WildVector


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
class _Group:
    """A candidate group of Modern American's initial meld (a legal new meld of one rank, or the
    wild-card meld), with what the checks of the initial meld read of it computed once."""

    __slots__ = ("cards", "part", "plain", "spare_alone", "tally", "value", "vector", "waits", "wilds")

    def __init__(self, f: Facts, part: Part, later: bool, vector: int = 0) -> None:
        """``later``: the group (with wild cards, of a natural rank) could be laid after the side's
        initial meld (see _later); ``vector``: the number of its wild-card vector."""
        rank = part.rank
        wild_meld = rank == WILD_MELD
        plain = not part.n_wilds and rank not in (WILD_MELD, "3")
        self.part = part
        self.value = part.value
        self.cards = part.cards
        self.wilds = part.wilds
        self.vector = vector
        self.plain = plain  # a meld of naturals only (not black threes)
        #: the group could be laid after the rest (modern.aces.wilds-initial-only, modern.meld.wild-after-five)
        self.waits = not part.n_wilds or wild_meld or later
        #: spare whenever the rest counts the minimum: the wild-card meld, black threes, wild cards a later meld takes
        self.spare_alone = wild_meld or rank == "3" or later
        self.tally: Tally = (
            part.value, part.cards, int(plain and part.k >= f.rules.meld_min_cards), part.cards if wild_meld else 0,
            int(bool(part.n_wilds) and not wild_meld), int(part.cards >= f.rules.canasta_min_cards), int(rank == "3"), int(plain),
        )


#: What the checks of an initial meld read of its groups, summed over them (the fields, in order):
#: the count, the cards laid, the natural melds, the cards of the wild-card meld, the other groups
#: with wild cards, the canastas, the groups of black threes, the groups of naturals only.
Tally = tuple[int, int, int, int, int, int, int, int]
_FIELDS = ("counted", "laid", "natural_melds", "wild_meld_cards", "wilded", "canastas", "threes", "plain")
COUNTED, LAID, NATURAL_MELDS, WILD_MELD_CARDS, WILDED, CANASTAS, THREES, PLAIN = range(len(_FIELDS))
_NO_TALLY: Tally = (0, 0, 0, 0, 0, 0, 0, 0)


class _Rank:
    """The candidate groups of one rank (or of the wild-card meld), in the order they are tried;
    and those of them that may join groups already counting the minimum without being spare at once
    (see :func:`_some_group_to_spare`): wild cards that only an initial meld may take, and, beside
    groups that hold no meld of naturals only, such a meld."""

    __slots__ = ("best_cards", "best_value", "groups", "natural_meld", "needed", "needed_or_plain")

    def __init__(self, f: Facts, groups: list[_Group]) -> None:
        self.groups = groups
        self.needed = [g for g in groups if not g.spare_alone and not g.plain]
        self.needed_or_plain = [g for g in groups if not g.spare_alone]
        self.best_value = max(g.part.k * f.natural_value(g.part.rank) for g in groups)  # its naturals at most
        self.best_cards = max(g.part.k for g in groups)
        self.natural_meld = any(g.tally[NATURAL_MELDS] for g in groups)


def modern_initial_melds(f: Facts) -> Iterator[Meld]:
    """The initial melds of a side whose initial meld differs from its later melds (Modern
    American). Every group of the action is one that could not be laid later in the same turn
    with the same effect: dropping it makes the rest no legal initial meld (the count, the natural
    meld, black threes only going out), or it holds wild cards a later meld could not take
    (modern.aces.wilds-initial-only, modern.meld.wild-after-five). Each group is any legal new meld
    (any number of naturals, any wild cards by kind), the wild-card meld included."""
    options, vectors = _modern_options(f)
    if options:
        # The groups come in canonical rank order (the wild-card meld last), so each takes its wild
        # cards after those of the groups before it: each group's cards are read once per offset.
        built: dict[tuple[_Group, WildVector], MeldGroup] = {}
        for groups in _modern_search(f, options, vectors):
            offsets = f.no_wilds
            laid = []
            for g in groups:
                group = built.get((g, offsets))
                if group is None:
                    part = g.part
                    tag = part.rank if part.k == 0 and part.rank != WILD_MELD else None
                    group = built[(g, offsets)] = MeldGroup(f.cards(part.rank, part.k, part.wilds, offsets), tag)
                laid.append(group)
                offsets = tuple(map(add, offsets, g.wilds))
            yield Meld(tuple(laid))
    yield from (Meld(f.groups(parts)) for parts in _initial_with_threes(f))


def _modern_options(f: Facts) -> tuple[list[_Rank], list[WildVector]]:
    """The candidate groups of each rank (canonical rank order, the wild-card meld last): every
    legal new meld of an initial meld; none when no rank makes a natural meld
    (modern.initial.natural-meld). And the groups' wild-card vectors, by their number."""
    rules = f.rules
    if rules.initial_meld_natural_meld_required and not any(
        rank != "3" and len(cards) >= rules.meld_min_cards for rank, cards in f.naturals.items()
    ):
        return [], []
    vectors: dict[WildVector, int] = {}  # the wild-card vectors of the groups, each numbered once
    choices = f.wild_choices(rules.meld_max_wilds)
    options: list[_Rank] = []
    for rank in sorted(f.naturals, key=GROUP_ORDER.__getitem__):
        if rank == "3" and rules.black_three_meld_only_going_out:
            continue  # black threes: only going out, see _initial_with_threes
        groups = []
        for k in range(rules.meld_min_naturals, len(f.naturals[rank]) + 1):
            ruled: dict[int, tuple[bool, bool]] = {}  # how many wild cards -> (a legal group now, legal later too)
            for choice in choices:
                n = choice[1]
                if n not in ruled:
                    now = group_is_legal(f, rank, k, n, True)
                    ruled[n] = (now, n > 0 and now and group_is_legal(f, rank, k, n, False))
                legal, later = ruled[n]
                if legal:
                    groups.append(_Group(f, f.part(rank, k, choice), later, vectors.setdefault(choice[0], len(vectors))))
        if groups:
            options.append(_Rank(f, groups))
    if rules.meld_wild_only_melds:
        groups = [
            _Group(f, Part(WILD_MELD, 0, v, n, value), False, vectors.setdefault(v, len(vectors)))
            for v, n, value in f.wild_choices(min(f.max_cards, sum(f.wild_avail))) if group_is_legal(f, WILD_MELD, 0, n)
        ]
        if groups:
            options.append(_Rank(f, groups))
    return options, list(vectors)


def _modern_search(f: Facts, options: list[_Rank], wild_vectors: list[WildVector]) -> list[tuple[_Group, ...]]:
    """Every set of groups (at most one of each rank) that is a legal initial meld none of whose
    groups could be laid later (see modern_initial_melds), in the order of the options."""
    # What the groups still to choose can add at most: their naturals (the most of each rank), and
    # the wild cards not yet spent (each wild card goes to one group only).
    reach_value = [sum(o.best_value for o in options[i:]) for i in range(len(options) + 1)]
    reach_cards = [sum(o.best_cards for o in options[i:]) for i in range(len(options) + 1)]
    #: whether options[i:] still offer a natural meld (modern.initial.natural-meld)
    naturals_left = [any(o.natural_meld for o in options[i:]) for i in range(len(options) + 1)]
    #: whether options[i:] hold groups that may join groups counting the minimum (see _Rank)
    needed_after = [any(o.needed for o in options[i:]) for i in range(len(options) + 1)]
    needed_or_plain_after = [any(o.needed_or_plain for o in options[i:]) for i in range(len(options) + 1)]
    natural_meld = f.rules.initial_meld_natural_meld_required
    avail = f.wild_avail
    values = f.wild_values
    minimum = f.minimum
    found: list[tuple[_Group, ...]] = []
    fits_after: dict[WildVector, list[bool]] = {}  # wild cards spent -> by vector number: the hand still holds them

    def extend(index: int, chosen: tuple[_Group, ...], tally: Tally, wilds: WildVector) -> None:
        if natural_meld and not tally[NATURAL_MELDS] and not naturals_left[index]:
            return  # modern.initial.natural-meld can no longer be met
        reached = tally[COUNTED] >= minimum  # every further group is spare unless it is needed (see _Rank)
        if not reached:
            unspent = tuple(map(sub, avail, wilds))
            if tally[COUNTED] + reach_value[index] + sum(map(mul, unspent, values)) < minimum and (
                f.hand_size - tally[LAID] - reach_cards[index] - sum(unspent) > 1
            ):
                return  # neither the minimum nor a concealed going out can be reached any more
        fits = fits_after.get(wilds)
        if fits is None:
            unspent = tuple(map(sub, avail, wilds))
            fits = fits_after[wilds] = [all(map(le, v, unspent)) for v in wild_vectors]
        for i in range(index, len(options)):
            option = options[i]
            for group in (option.groups if not reached else option.needed if tally[PLAIN] else option.needed_or_plain):
                if not fits[group.vector]:
                    continue
                picked = (*chosen, group)
                if _some_group_to_spare(picked, tally[COUNTED] + group.value, tally[PLAIN] + group.plain, minimum):
                    continue  # so in every action containing these groups
                now = tuple(map(add, tally, group.tally))
                if _initial_is_legal(f, now) and _every_group_needed(f, picked, now):
                    found.append(picked)
                if now[COUNTED] < minimum or (needed_after if now[PLAIN] else needed_or_plain_after)[i + 1]:
                    extend(i + 1, picked, now, tuple(map(add, wilds, group.wilds)))

    extend(0, (), _NO_TALLY, f.no_wilds)
    return found


def _some_group_to_spare(groups: tuple[_Group, ...], counted: int, plain: int, minimum: int) -> bool:
    """A group that every legal initial meld containing these groups (they hold no black threes;
    ``counted``: their count, ``plain`` of them naturals only) could lay later: the rest still
    counts the minimum, holds a natural meld, and the group is a natural meld beside another one,
    the wild-card meld, or wild cards a later meld may take."""
    for g in groups:
        if counted - g.value >= minimum and (g.spare_alone or (g.plain and plain > 1)):
            return True
    return False


def _later(f: Facts, part: Part) -> bool:
    """Whether a group of a natural rank could be laid after the side's initial meld as it is."""
    return group_is_legal(f, part.rank, part.k, part.n_wilds, False)


def _every_group_needed(f: Facts, groups: tuple[_Group, ...], tally: Tally) -> bool:
    """No group of the initial meld ``groups`` (of ``tally``) could be left for later in the turn."""
    if len(groups) > 1:
        for g in groups:
            if _deferrable(f, tally, g):
                return False
    return True


def _deferrable(f: Facts, tally: Tally, group: _Group) -> bool:
    """The initial meld of ``tally`` is the same as its groups without ``group`` followed by a
    meld of ``group`` in the same turn: the rest is a legal initial meld and the group may follow it."""
    return group.waits and _initial_is_legal(f, tally, group.tally)


def _initial_is_legal(f: Facts, tally: Tally, without: Tally = _NO_TALLY) -> bool:
    """The action laying the groups of ``tally`` (each a legal new meld; ``without``: but those of
    this tally) as the side's initial meld: initial.table (or initial.concealed-exception),
    modern.initial.natural-meld, modern.wild-meld.blocks-wilds, then the cards left
    (cards_left_allowed). The fields are read as the checks need them (most fail on the first)."""
    rules = f.rules
    counted = tally[COUNTED] - without[COUNTED]
    left = f.hand_size - tally[LAID] + without[LAID]
    canastas = tally[CANASTAS] - without[CANASTAS]
    if counted < f.minimum and not concealed_exception(f, left, canastas, canastas > 0):
        return False
    if rules.initial_meld_natural_meld_required and tally[NATURAL_MELDS] == without[NATURAL_MELDS]:
        return False
    wild_meld = tally[WILD_MELD_CARDS] - without[WILD_MELD_CARDS]
    wild_open = 0 < wild_meld < rules.canasta_min_cards
    if wild_open and rules.meld_wild_meld_blocks_wilds and tally[WILDED] > without[WILDED]:
        return False
    return cards_left_allowed(f, left, canastas, tally[THREES] > without[THREES], left == 0, wild_open)


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
            if not all(group_is_legal(f, p.rank, p.k, p.n_wilds, True) for p in parts):
                continue
            groups = [_Group(f, p, bool(p.n_wilds) and p.rank != WILD_MELD and _later(f, p)) for p in parts]
            tally: Tally = tuple(map(sum, zip(*(g.tally for g in groups), strict=True)))  # type: ignore[assignment]
            if _initial_is_legal(f, tally) and not any(_deferrable(f, tally, g) for g in groups if len(groups) > 1):
                yield parts
