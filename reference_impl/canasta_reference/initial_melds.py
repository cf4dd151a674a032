"""The initial melds and going-out melds of several groups that the move generator lists whole
(items 3 of the equivalence documented in :mod:`canasta_reference.movegen`): a side's initial meld
of several ranks in which every group is needed, the melds that leave the player one card or none
and cannot begin with a listed step, and Modern American's initial meld, generated as a whole."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from math import inf
from operator import mul
from typing import NamedTuple

from canasta_conformance.contract.cards import Card
from canasta_conformance.contract.model import WILD_MELD, Meld, MeldGroup

from . import memo
from .memo import bounded
from .move_rules import cards_left_allowed, completes_canasta, concealed_exception, group_is_legal, reaches_minimum
from .packed import GUARDS, MASK, at, capped, fields_of, pack, unpack
from .position_facts import GROUP_ORDER, Facts, Part, WildVector


def _meldable_ranks(f: Facts, exclude: str | None) -> list[tuple[str, int]]:
    """The ranks of naturals (not threes, nor ``exclude``) of which the hand holds enough for a new
    meld, each with how many it holds."""
    least = f.rules.meld_min_naturals
    return [(rank, len(cards)) for rank, cards in f.naturals.items() if rank != exclude and rank != "3" and len(cards) >= least]


def _new_meld_options(f: Facts, exclude: str | None) -> list[list[Part]]:
    """For a side without melds: the legal new melds of each rank of naturals (not threes)."""
    options = []
    for rank, count in _meldable_ranks(f, exclude):
        parts = _rank_new_melds(f, rank, count)
        if parts:
            options.append(parts)
    return options


def _rank_new_melds(f: Facts, rank: str, count: int) -> list[Part]:
    """The legal new melds of ``rank``, ``count`` of its naturals in hand."""
    choices = f.wild_choices(f.rules.meld_max_wilds)
    counts = range(len(f.wilds_by_count(f.rules.meld_max_wilds)))  # how many wild cards a choice holds
    value = f.natural_value(rank)
    parts: list[Part] = []
    for k in range(f.rules.meld_min_naturals, count + 1):
        legal = [group_is_legal(f, rank, k, n) for n in counts]  # (the rules read how many cards, not which)
        parts += [Part(rank, k, wilds, n, k * value + wild_value) for wilds, n, wild_value in choices if legal[n]]
    return parts


def _packed(parts: list[Part]) -> tuple[Part, ...]:
    """The parts, each with its wild cards packed (Part.packed), as initial_meld_sets' search reads them."""
    for part in parts:
        part.packed = pack(part.wilds)
    return tuple(parts)


#: the hand's wild cards (Facts.wild_key) -> (the variant's serial, rank, its naturals in hand, the
#: rank closed) -> the rank's new melds for a side without melds. (Keyed by the wild cards first,
#: as movegen.RankTables by the naturals: the same few come back, so the objects the garbage
#: collector scans, their key and dict, stop being made once the table is warm.)
_NEW_MELDS: dict[tuple[Card, ...], dict[tuple[int, str, int, bool], tuple[Part, ...]]] = memo.table()


def _new_meld_choices(f: Facts, exclude: str | None) -> list[tuple[Part, ...]]:
    """_new_meld_options, each part with its wild cards packed. For a side without melds, a rank's
    new melds depend only on the variant, how many naturals and which wild cards the hand holds,
    and whether the rank is closed: the same come back position after position, so they are kept
    (``memo.bounded``)."""
    if f.melds:
        return [_packed(parts) for parts in _new_meld_options(f, exclude)]
    options = []
    table = _NEW_MELDS.get(f.wild_key)
    if table is None:
        table = bounded(_NEW_MELDS)[f.wild_key] = {}
    for rank, count in _meldable_ranks(f, exclude):
        key = (f.serial, rank, count, rank in f.closed)
        choices = table.get(key)
        if choices is None:
            choices = bounded(table)[key] = _packed(_rank_new_melds(f, rank, count))  # (a bound of its own: bounded sees the outer keys only)
        if choices:
            options.append(choices)
    return options


def initial_meld_sets(f: Facts, fixed: tuple[Part, ...], counted: int = 0, extra_cards: int = 0) -> list[tuple[Part, ...]]:
    """Initial melds of several ranks (besides the ``fixed`` part of a take) in which every added
    group is needed to reach the minimum, leaving the player two cards or more (fewer: see
    all_but_one). ``extra_cards`` come to the hand with the take."""
    search = _SetSearch(
        _new_meld_choices(f, fixed[0].rank if fixed else None),
        pack(f.wild_avail) | GUARDS, f.minimum, 1 if fixed else 2, f.hand_size + extra_cards - sum(p.cards for p in fixed), fixed, [],
    )
    _extend_set(search, 0, (), counted, 0, pack(fixed[0].wilds) if fixed else 0, inf)
    return search.found


class _SetSearch(NamedTuple):
    """What initial_meld_sets' search reads (passed along, not closed over: a closure calling
    itself is a reference cycle, left for the garbage collector), and the sets it finds."""

    options: list[tuple[Part, ...]]  # each rank's parts, with their wild cards packed
    guarded: int  # the hand's wild cards by kind (packed), every field's top bit set (see packed.GUARDS)
    minimum: int
    need_parts: int  # how many parts the set adds at least
    hand_cards: int  # the cards in hand besides the fixed part's, those of the take included
    fixed: tuple[Part, ...]
    found: list[tuple[Part, ...]]  # the sets found, in the order of the search


def _extend_set(search: _SetSearch, index: int, chosen: tuple[Part, ...], total: int, used: int, spent: int,
                least: float) -> None:
    """initial_meld_sets' sets adding parts of the ranks from ``index`` on to the ``chosen`` ones:
    ``spent``, the wild cards of the chosen parts by kind (packed); ``least``, the lowest count of
    a chosen part."""
    options, guarded, minimum, need_parts, hand_cards, fixed, found = search
    for i in range(index, len(options)):
        for part in options[i]:
            spending = spent + part.packed
            if guarded - spending & GUARDS != GUARDS:
                continue  # more wild cards of a kind than the hand holds (packed.GUARDS)
            value = part.value
            now = total + value
            lowest = value if value < least else least
            if now < minimum:
                _extend_set(search, i + 1, (*chosen, part), now, used + part.cards, spending, lowest)
            elif len(chosen) >= need_parts - 1 and hand_cards - used - part.cards >= 2 and now - lowest < minimum:
                found.append((*fixed, *chosen, part))  # every part needed: without the lowest, the rest falls short


def _stuck_cards(f: Facts, skip: str | None) -> list[str | int]:
    """The card classes (ranks) of which some card fits no meld this turn; -1 for red threes."""
    rules = f.rules
    stuck: list[str | int] = [-1] * f.red_threes
    for rank, cards in f.naturals.items():
        if rank != skip and rank not in f.melds and len(cards) < rules.meld_min_naturals:
            stuck += [rank] * len(cards)
    return stuck


def all_but_one(f: Facts, top: Part | None, rest: int = 0) -> Iterable[tuple[Part, ...]]:
    """The legal melds of several ranks (or takes with the top card's part ``top``, ``rest`` more
    cards of the pile coming to the hand) that leave the player at most one card and that cannot
    be split into a listed first step and a later rest (see :func:`_can_begin`): every card of the
    hand but at most one is laid, the wild cards spread over the melds in every allowed way."""
    if f.state.question == "no":
        return ()  # out.ask.binding: no going out, so no action may leave one card or none
    threes_wait = f.rules.black_three_meld_only_going_out
    if f.melded and top is None and f.hand_size > 2 and (
        not threes_wait or len(f.naturals.get("3", ())) != 1 or sum(1 for rank in f.naturals if rank != "3") > 1
    ):
        # two groups or more from three cards or more: the smallest leaves two cards or more when
        # laid first, which any legal group may (the "splittable" test below)
        return ()
    if f.melded and top is None and (f.hand_size < 2 or (
        f.hand_size == 2 and cards_left_allowed(f, 1, f.canastas, False, False) and cards_left_allowed(f, 1, f.canastas, False, False, True)
    )):
        # one card is one group; two cards in two groups: either laid first leaves one card, which
        # the side may keep (it needs no more canastas for it), so the other group can go later
        return ()
    return _all_but_one(f, top, rest, threes_wait)


def _all_but_one(f: Facts, top: Part | None, rest: int, threes_wait: bool) -> Iterator[tuple[Part, ...]]:
    """all_but_one past its quick answers."""
    rules = f.rules
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
    yield from _place([choices[cap] for cap in caps], [sum(caps[i:]) for i in range(len(caps))], 0, avail)


def _place(choices: list[list[tuple[WildVector, int, int]]], room: list[int], i: int, left: WildVector) -> Iterator[list[WildVector]]:
    """_spread's ways to lay the wild cards ``left`` over the targets from ``i`` on: ``choices``,
    each target's choices of wild cards; ``room``, how many the targets from each on take at most."""
    if i == len(choices):
        if not any(left):
            yield []
        return
    if sum(left) > room[i]:
        return
    for wilds, _, _ in choices[i]:
        if any(w > a for w, a in zip(wilds, left, strict=True)):
            continue
        rest = tuple(a - w for a, w in zip(left, wilds, strict=True))
        for tail in _place(choices, room, i + 1, rest):
            yield [wilds, *tail]


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
    wild-card meld), with what the checks of the initial meld read of it computed once. (It keeps
    its part's rank, naturals and wild cards, not the part: one object fewer for the collector to
    scan in the table that keeps the groups, _RANK_OPTIONS.)"""

    __slots__ = ("k", "kinds", "n_wilds", "natural_meld", "plain", "rank", "spare_alone", "tally", "value", "waits", "wild_code", "wilds")

    def __init__(self, f: Facts, rank: str, k: int, wilds: WildVector, n_wilds: int, value: int, later: bool) -> None:
        """The group of ``k`` naturals of ``rank`` and the wild cards ``wilds`` by kind (``n_wilds``
        in all), counting ``value`` (as a Part's fields). ``later``: the group (with wild cards, of
        a natural rank) could be laid after the side's initial meld (see _later)."""
        wild_meld = rank == WILD_MELD
        plain = not n_wilds and rank not in (WILD_MELD, "3")
        cards = k + n_wilds
        rules = f.rules
        self.rank = rank
        self.k = k
        self.wilds = wilds
        self.n_wilds = n_wilds
        self.value = value
        self.wild_code = pack(wilds)  # its wild cards by kind, packed
        #: the fields of the kinds of wild cards it holds (the wild cards spent before it that its cards depend on)
        self.kinds = fields_of(wilds)
        self.plain = plain  # a meld of naturals only (not black threes)
        self.natural_meld = plain and k >= rules.meld_min_cards  # modern.initial.natural-meld
        #: the group could be laid after the rest (modern.aces.wilds-initial-only, modern.meld.wild-after-five)
        self.waits = not n_wilds or wild_meld or later
        #: spare whenever the rest counts the minimum: the wild-card meld, black threes, wild cards a later meld takes
        self.spare_alone = wild_meld or rank == "3" or later
        self.tally = pack((
            value, cards, self.natural_meld, plain, cards if wild_meld else 0,
            bool(n_wilds) and not wild_meld, cards >= rules.canasta_min_cards, rank == "3",
        ))


#: the groups of a rank that fit some wild cards, by which are tried (see _Rank.fit)
_Fitting = tuple[tuple[_Group, ...], ...]


#: The tally of some groups: what the checks of an initial meld read of them, summed over them and
#: packed in one int (see packed.py), so that adding or taking away a group is one addition. Its
#: fields: the count, the cards laid, the natural melds, the groups of naturals only, the cards of
#: the wild-card meld, the other groups with wild cards, the canastas, the groups of black threes.
#: Each name below is its field's shift: ``tally >> COUNTED & MASK`` is the count.
_FIELDS = ("counted", "laid", "natural_melds", "plain", "wild_meld_cards", "wilded", "canastas", "threes")
COUNTED, LAID, NATURAL_MELDS, PLAIN, WILD_MELD_CARDS, WILDED, CANASTAS, THREES = (at(i) for i in range(len(_FIELDS)))


class _Rank:
    """The candidate groups of one rank (or of the wild-card meld), in the order they are tried;
    and those of them that may join groups already counting the minimum without being spare at once
    (see _modern_search's spare_from): wild cards that only an initial meld may take, and, beside
    groups that hold no meld of naturals only, such a meld. Kept with the rank's groups (see
    _rank_option), it keeps which of them fit in each set of wild cards left (see fit)."""

    __slots__ = ("best_cards", "best_value", "fits", "groups", "natural_meld", "needed", "needed_or_plain", "wild_meld")

    def __init__(self, f: Facts, groups: list[_Group]) -> None:
        self.groups = groups
        self.wild_meld = groups[0].rank == WILD_MELD  # (its groups may hold more wild cards of a kind than meld.max_wilds)
        self.needed = [g for g in groups if not g.spare_alone and not g.plain]
        self.needed_or_plain = [g for g in groups if not g.spare_alone]
        self.best_cards = max(g.k for g in groups)
        self.best_value = self.best_cards * f.natural_value(groups[0].rank)  # its naturals at most (one rank)
        self.natural_meld = any(g.natural_meld for g in groups)
        self.fits: dict[int, _Fitting] = {}

    def fit(self, unspent: int) -> _Fitting:
        """The groups whose wild cards the wild cards ``unspent`` (packed by kind) hold: all of
        them, the needed ones, the needed or plain ones (in the order of _TRIED), then the natural
        melds of each (at NATURAL_MELDS_OF + its index). The same few sets of wild cards come back:
        each is worked out once."""
        fitting = self.fits.get(unspent)
        if fitting is None:
            fit: list[_Group] = []
            needed: list[_Group] = []
            needed_or_plain: list[_Group] = []
            natural_melds: list[_Group] = []
            natural_needed_or_plain: list[_Group] = []
            guarded = unspent | GUARDS
            for g in self.groups:  # (one pass, each list in the order of the groups)
                if guarded - g.wild_code & GUARDS != GUARDS:
                    continue  # (packed.GUARDS)
                fit.append(g)
                if g.natural_meld:
                    natural_melds.append(g)
                if not g.spare_alone:
                    needed_or_plain.append(g)
                    if g.natural_meld:
                        natural_needed_or_plain.append(g)
                    if not g.plain:
                        needed.append(g)
            fitting = self.fits[unspent] = (
                tuple(fit), tuple(needed), tuple(needed_or_plain), tuple(natural_melds), (), tuple(natural_needed_or_plain),
            )  # (no needed group is a natural meld, those being plain: that one stays empty, kept for the indexes)
        return fitting  # (tuples: an empty one is shared, and these are kept across positions)


_TRIED = ("all", "needed", "needed or plain")
ALL, NEEDED, NEEDED_OR_PLAIN = range(len(_TRIED))  # which groups of a rank are tried (see _Rank)
NATURAL_MELDS_OF = len(_TRIED)  # added to one of them: only its natural melds (see _Rank.fit)


class _WildsLeft:
    """The wild cards the hand still holds once some are spent (``spent``, packed by kind): how
    many, what they count, and for each rank its groups whose wild cards they hold (all of them,
    the needed ones, the needed or plain ones: see _Rank). The same wild cards are left at many
    steps of the search, so each is built once, and each rank's groups when the search needs them."""

    __slots__ = ("cards", "fitting", "options", "spelled", "unspent", "unspent_capped", "value")

    def __init__(self, f: Facts, options: list[_Rank], spent: int) -> None:
        self.unspent = pack(f.wild_avail) - spent  # (field by field: none goes below zero)
        unspent = unpack(self.unspent, len(f.wild_avail))
        # (as many of a kind as a group of a rank may hold fit the same groups as more)
        self.unspent_capped = capped(self.unspent, len(unspent), f.rules.meld_max_wilds)
        self.value = sum(map(mul, unspent, f.wild_values))
        self.cards = sum(unspent)
        self.options = options
        self.fitting: list[_Fitting | None] = [None] * len(options)
        self.spelled: dict[_Group, MeldGroup] = {}  # each group's cards with these wild cards left (see _modern_search's spell)

    def fit(self, index: int) -> _Fitting:
        """The groups of rank ``index`` that fit (read through ``fitting``, which keeps them)."""
        option = self.options[index]
        fitting = self.fitting[index] = option.fit(self.unspent if option.wild_meld else self.unspent_capped)
        return fitting


def modern_initial_melds(f: Facts) -> list[Meld]:
    """The initial melds of a side whose initial meld differs from its later melds (Modern
    American). Every group of the action is one that could not be laid later in the same turn
    with the same effect: dropping it makes the rest no legal initial meld (the count, the natural
    meld, black threes only going out), or it holds wild cards a later meld could not take
    (modern.aces.wilds-initial-only, modern.meld.wild-after-five). Each group is any legal new meld
    (any number of naturals, any wild cards by kind), the wild-card meld included."""
    options = _modern_options(f)
    melds = _modern_search(f, options) if options else []
    melds += (Meld.of(f.groups(parts)) for parts in _initial_with_threes(f))
    return melds


def _modern_options(f: Facts) -> list[_Rank]:
    """The candidate groups of each rank (canonical rank order, the wild-card meld last): every
    legal new meld of an initial meld; none when no rank makes a natural meld
    (modern.initial.natural-meld)."""
    rules = f.rules
    if rules.initial_meld_natural_meld_required and not any(
        rank != "3" and len(cards) >= rules.meld_min_cards for rank, cards in f.naturals.items()
    ):
        return []
    options: list[_Rank] = []
    # (a rank's groups hold at most meld.max_wilds wild cards: more of a kind in hand make no other group)
    wilds_key = (f.serial, tuple(n if n < rules.meld_max_wilds else rules.meld_max_wilds for n in f.wild_avail), tuple(f.wild_values))
    for rank in sorted(f.naturals, key=GROUP_ORDER.__getitem__):
        if rank == "3" and rules.black_three_meld_only_going_out:
            continue  # black threes: only going out, see _initial_with_threes
        option = _rank_option(f, rank, wilds_key)
        if option is not None:
            options.append(option)
    if rules.meld_wild_only_melds and f.wild_avail:
        wild_meld = _wild_meld_option(f)
        if wild_meld is not None:
            options.append(wild_meld)
    return options


#: (the variant's serial, the wild cards by kind and their counts) -> the wild-card meld's candidate groups
_WILD_MELD_OPTIONS: dict[tuple[int, WildVector, tuple[int, ...]], _Rank | None] = memo.table()


def _wild_meld_option(f: Facts) -> _Rank | None:
    """The candidate groups of the side's wild-card meld (modern.wild-meld.allowed): every legal
    one of the hand's wild cards, by kind. A side yet to meld has no wild-card meld, so they depend
    only on the variant and the hand's wild cards: kept, as the groups of the ranks are."""
    key = (f.serial, f.wild_avail, tuple(f.wild_values))
    if key not in _WILD_MELD_OPTIONS:  # (None is an answer: no wild-card meld)
        groups = [
            _Group(f, WILD_MELD, 0, v, n, value, False)
            for v, n, value in f.wild_choices(min(f.max_cards, sum(f.wild_avail))) if group_is_legal(f, WILD_MELD, 0, n)
        ]
        bounded(_WILD_MELD_OPTIONS)[key] = _Rank(f, groups) if groups else None
    return _WILD_MELD_OPTIONS[key]


#: (the variant's serial, the wild cards by kind (at most meld.max_wilds of each) and their
#: counts, rank, its naturals in hand, the rank closed) -> the rank's candidate groups
_RANK_OPTIONS: dict[tuple[int, WildVector, tuple[int, ...], str, int, bool], _Rank | None] = memo.table()


def _rank_option(f: Facts, rank: str, wilds_key: tuple[int, WildVector, tuple[int, ...]]) -> _Rank | None:
    """The candidate groups of ``rank`` for a side yet to meld: every legal new meld of any number
    of its naturals with any choice of wild cards by kind, its legality read once per (naturals,
    number of wild cards). They depend only on the variant, how many naturals and which wild cards
    the hand holds (of each kind, no more than a group may hold: ``wilds_key``, see
    _modern_options), and whether the rank is closed; the same come back position after position,
    so they are kept (``memo.bounded``)."""
    rules = f.rules
    key = (*wilds_key, rank, len(f.naturals[rank]), rank in f.closed)
    if key not in _RANK_OPTIONS:  # (None is an answer: no group of the rank)
        groups = []
        value = f.natural_value(rank)
        for k in range(rules.meld_min_naturals, len(f.naturals[rank]) + 1):
            ruled: dict[int, tuple[bool, bool]] = {}  # how many wild cards -> (a legal group now, legal later too)
            for wilds, n, wild_value in f.wild_choices(rules.meld_max_wilds):
                if n not in ruled:
                    now = group_is_legal(f, rank, k, n, True)
                    ruled[n] = (now, n > 0 and now and group_is_legal(f, rank, k, n, False))
                legal, later = ruled[n]
                if legal:
                    groups.append(_Group(f, rank, k, wilds, n, k * value + wild_value, later))  # (as f.part)
        bounded(_RANK_OPTIONS)[key] = _Rank(f, groups) if groups else None
    return _RANK_OPTIONS[key]


def _modern_search(f: Facts, options: list[_Rank]) -> list[Meld]:
    """Every set of groups (at most one of each rank) that is a legal initial meld none of whose
    groups could be laid later (see modern_initial_melds), in the order of the options, as the
    action laying it (see _ModernSearch)."""
    search = _ModernSearch(f, options)
    search.extend(0, (), 0, 0, (), False, inf, inf)
    return search.found


#: what Meld.of does, inlined where the search lists an action (the call was about a tenth of it):
#: ``_set(_new(Meld), "melds", groups)`` equals ``Meld(groups)``, its type being the class default
_new = object.__new__
_set = object.__setattr__


class _ModernSearch:
    """The search of _modern_search: its sets grow one group at a time (extend), each spelled as
    it grows (its groups' cards, see spell), so the sets sharing the first groups share their
    spelling. (A class, not closures: a closure calling itself is a reference cycle, which would
    keep the search's tables alive until the garbage collector's next pass.)"""

    __slots__ = ("f", "found", "hand_size", "kinds", "left_after", "legal", "minimum", "natural_meld", "naturals_left",
                 "needed_after", "needed_end", "needed_or_plain_after", "needed_or_plain_end", "options", "reach_cards", "reach_value", "spellings",
                 "wild_cards")

    def __init__(self, f: Facts, options: list[_Rank]) -> None:
        self.f = f
        self.options = options
        # Each of these at i is about options[i:] (the last entry: none left), worked out from the end.
        # What the groups still to choose can add at most: their naturals (the most of each rank), and
        # the wild cards not yet spent (each wild card goes to one group only).
        self.reach_value = [0] * (len(options) + 1)
        self.reach_cards = [0] * (len(options) + 1)
        #: whether options[i:] still offer a natural meld (modern.initial.natural-meld)
        self.naturals_left = [False] * (len(options) + 1)
        #: whether options[i:] hold groups that may join groups counting the minimum (see _Rank)
        self.needed_after = [False] * (len(options) + 1)
        self.needed_or_plain_after = [False] * (len(options) + 1)
        for i in reversed(range(len(options))):
            o = options[i]
            self.reach_value[i] = self.reach_value[i + 1] + o.best_value
            self.reach_cards[i] = self.reach_cards[i + 1] + o.best_cards
            self.naturals_left[i] = self.naturals_left[i + 1] or o.natural_meld
            self.needed_after[i] = self.needed_after[i + 1] or bool(o.needed)
            self.needed_or_plain_after[i] = self.needed_or_plain_after[i + 1] or bool(o.needed_or_plain)
        #: past the last rank offering groups that may join groups counting the minimum (none tried
        #: there: the wild-card meld, for one, never joins them)
        self.needed_end = next((i + 1 for i in reversed(range(len(options))) if options[i].needed), 0)
        self.needed_or_plain_end = next((i + 1 for i in reversed(range(len(options))) if options[i].needed_or_plain), 0)
        self.natural_meld = f.rules.initial_meld_natural_meld_required
        self.minimum = f.minimum
        self.hand_size = f.hand_size
        self.found: list[Meld] = []
        self.left_after: dict[int, _WildsLeft] = {}  # wild cards spent (packed) -> what is left
        self.legal = _position_verdicts(f)  # tally -> verdict (see _VERDICTS)
        self.kinds = len(f.wild_avail)
        #: (a group, the wild cards of its kinds spent before it) -> its cards
        self.spellings: dict[tuple[_Group, int], MeldGroup] = {}
        #: (wild cards by kind (packed), the wild cards of those kinds spent before them) -> the cards (shared by the ranks' groups)
        self.wild_cards: dict[tuple[int, int], tuple[Card, ...]] = {}

    def spell(self, group: _Group, offsets: int) -> MeldGroup:
        """The group's cards: the first naturals of its rank and the first wild cards of each kind
        left once ``offsets`` (packed) of the kinds it holds are spent, kept in ``spellings``. The
        groups of an action come in canonical rank order (the wild-card meld last), each taking its
        wild cards after those of the groups before it."""
        key = (group, offsets)
        cards = self.spellings.get(key)
        if cards is None:
            f = self.f
            if group.wild_code:
                wild_key = (group.wild_code, offsets)
                wilds = self.wild_cards.get(wild_key)
                if wilds is None:
                    wilds = self.wild_cards[wild_key] = f.cards(WILD_MELD, 0, group.wilds, unpack(offsets, self.kinds))
                if not group.k:
                    laid = wilds
                elif f.wilds_first:
                    laid = (*wilds, *f.naturals[group.rank][:group.k])
                else:
                    laid = f.cards(group.rank, group.k, group.wilds, unpack(offsets, self.kinds))
            else:
                laid = tuple(f.naturals[group.rank][:group.k])
            cards = self.spellings[key] = _new(MeldGroup)  # (as MeldGroup.of: its sequence flag the class default)
            _set(cards, "cards", laid)
            _set(cards, "rank", group.rank if group.k == 0 and group.rank != WILD_MELD else None)
        return cards

    def extend(self, index: int, laid: tuple[MeldGroup, ...], tally: int, spent: int, waiting: tuple[int, ...], chosen_legal: bool,
               least_spare: float, least_plain: float) -> None:
        """Add groups of options[index:] to the chosen ones: ``laid`` spelled, of ``tally``, spending
        the wild cards ``spent``; ``waiting``: the tallies of those that could be laid later (see
        _every_group_needed); ``chosen_legal``: they make a legal initial meld; ``least_spare``,
        ``least_plain``: the lowest value of those spare alone, and of the other ones of naturals only."""
        naturals_left = self.naturals_left
        lacking = self.natural_meld and not tally >> NATURAL_MELDS & MASK  # modern.initial.natural-meld not met yet
        if lacking and not naturals_left[index]:
            return  # and it can no longer be
        f = self.f
        options = self.options
        left = self.left_after.get(spent)
        if left is None:
            left = self.left_after[spent] = _WildsLeft(f, options, spent)
        minimum = self.minimum
        hand_size = self.hand_size
        counted = tally >> COUNTED & MASK
        reached = counted >= minimum  # every further group is spare unless it is needed (see _Rank)
        if not reached and counted + self.reach_value[index] + left.value < minimum and (
            hand_size - (tally >> LAID & MASK) - self.reach_cards[index] - left.cards > 1
        ):
            return  # neither the minimum nor a concealed going out can be reached any more
        plain = tally >> PLAIN & MASK
        if not reached:
            which, end = ALL, len(options)
        elif plain:
            which, end = NEEDED, self.needed_end
        else:
            which, end = NEEDED_OR_PLAIN, self.needed_or_plain_end
        # From what value of an added group some chosen group (they hold no black threes) is one
        # that every legal initial meld containing them could lay later: the rest still counts the
        # minimum and holds a natural meld, the group being the wild-card meld or wild cards a later
        # meld may take (spare_from), or a natural meld beside another one (plain_spare_from, when
        # the groups then hold two natural melds). The added group itself is never spare: the
        # groups before it fell short of the minimum, or it is one that may join them (see _Rank).
        short = minimum - counted  # what the chosen groups lack of the minimum (negative: what they have over it)
        spare_from = least_spare + short
        plain_spare_from = least_plain + short
        needed_after = self.needed_after
        needed_or_plain_after = self.needed_or_plain_after
        legal = self.legal
        found = self.found
        fitting = left.fitting
        spelled = left.spelled
        for i in range(index, end):
            # (modern.initial.natural-meld: past the last rank offering one, only a natural meld can meet it)
            tried = which + NATURAL_MELDS_OF if lacking and not naturals_left[i + 1] else which
            for group in (fitting[i] or left.fit(i))[tried]:
                value = group.value
                group_plain = group.plain
                if value >= spare_from or (value >= plain_spare_from and plain + group_plain > 1):
                    continue  # a chosen group would be spare, so in every action containing these groups
                group_tally = group.tally
                now = tally + group_tally
                # (below the minimum only a concealed going out may count less: it lays all cards but one at most)
                if value >= short or hand_size - (now >> LAID & MASK) <= 1:
                    legal_now = legal.get(now)
                    if legal_now is None:
                        legal_now = _kept_verdict(f, legal, now)
                else:
                    legal_now = False
                waits = group.waits
                listed = legal_now and not (chosen_legal and waits)  # (_every_group_needed: the added group)
                if listed:
                    for t in waiting:
                        rest = now - t
                        legal_rest = legal.get(rest)
                        if legal_rest is None:
                            legal_rest = _kept_verdict(f, legal, rest)
                        if legal_rest:
                            listed = False  # a chosen group could be laid later
                            break
                if value < short:
                    further = True
                elif plain or group_plain:  # only needed groups may join, and each holds wild cards (see _Rank)
                    further = needed_after[i + 1] and left.cards > group.n_wilds
                else:
                    further = needed_or_plain_after[i + 1]
                if listed or further:
                    spelling = spelled.get(group)
                    if spelling is None:  # (spelled alike after other wild cards of kinds it does not hold)
                        spelling = spelled[group] = self.spell(group, spent & group.kinds)
                    cards = laid + (spelling,)  # noqa: RUF005 (two tuples: faster than unpacking into a new one)
                    if listed:
                        meld = _new(Meld)
                        _set(meld, "melds", cards)
                        found.append(meld)
                    if further:
                        spare_alone = group.spare_alone
                        self.extend(i + 1, cards, now, spent + group.wild_code, (*waiting, group_tally) if waits else waiting,
                                    legal_now, min(least_spare, value) if spare_alone else least_spare,
                                    min(least_plain, value) if group_plain and not spare_alone else least_plain)


def _later(f: Facts, part: Part) -> bool:
    """Whether a group of a natural rank could be laid after the side's initial meld as it is."""
    return group_is_legal(f, part.rank, part.k, part.n_wilds, False)


#: (the variant's serial, the side's minimum, the hand's size) -> a tally -> its verdict
#: (_initial_is_legal), for the tallies that leave the player two cards or more: their verdicts
#: read nothing else of the position (the concealed exception and the going-out checks concern one
#: card left or none), so the same tallies, which come back position after position, are judged once
_VERDICTS: dict[tuple[int, int, int], dict[int, bool]] = memo.table()


def _position_verdicts(f: Facts) -> dict[int, bool]:
    """The verdicts kept for the position's variant, minimum and hand size (see _VERDICTS)."""
    key = (f.serial, f.minimum, f.hand_size)
    verdicts = _VERDICTS.get(key)
    if verdicts is None:
        verdicts = bounded(_VERDICTS)[key] = {}
    return verdicts


def _kept_verdict(f: Facts, verdicts: dict[int, bool], tally: int) -> bool:
    """_initial_is_legal, kept in ``verdicts`` (see _VERDICTS) when the groups of ``tally`` leave
    the player two cards or more."""
    verdict = _initial_is_legal(f, tally)
    if f.hand_size - (tally >> LAID & MASK) > 1:
        bounded(verdicts)[tally] = verdict  # (a bound of its own: bounded sees _VERDICTS' keys only)
    return verdict


def _every_group_needed(f: Facts, groups: Sequence[_Group], tally: int) -> bool:
    """No group of the initial meld ``groups`` (of ``tally``) could be left for later in the turn:
    the action is not the same as the rest followed by a meld of the group in the same turn (the
    rest a legal initial meld, and the group one that may follow it)."""
    if len(groups) > 1:
        for g in groups:
            if g.waits and _initial_is_legal(f, tally - g.tally):
                return False
    return True


def _initial_is_legal(f: Facts, tally: int) -> bool:
    """The action laying the groups of ``tally`` (each a legal new meld) as the side's initial
    meld: initial.table (or initial.concealed-exception), modern.initial.natural-meld,
    modern.wild-meld.blocks-wilds, then the cards left (cards_left_allowed). The fields are read
    as the checks need them (most fail on the first)."""
    rules = f.rules
    if tally >> COUNTED & MASK < f.minimum:
        canastas = tally >> CANASTAS & MASK
        if not concealed_exception(f, f.hand_size - (tally >> LAID & MASK), canastas, canastas > 0):
            return False
    if rules.initial_meld_natural_meld_required and not tally >> NATURAL_MELDS & MASK:
        return False
    left = f.hand_size - (tally >> LAID & MASK)
    canastas = tally >> CANASTAS & MASK
    wild_meld = tally >> WILD_MELD_CARDS & MASK
    wild_open = 0 < wild_meld < rules.canasta_min_cards
    if wild_open and rules.meld_wild_meld_blocks_wilds and tally >> WILDED & MASK:
        return False
    return cards_left_allowed(f, left, canastas, bool(tally >> THREES & MASK), left == 0, wild_open)


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
            groups = [
                _Group(f, p.rank, p.k, p.wilds, p.n_wilds, p.value, bool(p.n_wilds) and p.rank != WILD_MELD and _later(f, p)) for p in parts
            ]
            tally = sum(g.tally for g in groups)
            if _initial_is_legal(f, tally) and _every_group_needed(f, groups, tally):
                yield parts
