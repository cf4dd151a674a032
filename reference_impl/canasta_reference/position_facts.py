"""What the move generator knows about a position, computed once: the hand as count vectors
(the naturals of each rank and the wild cards of each kind, in canonical card order), the side's
melds and the position's facts (minimum, closed ranks, the wild-card meld), and the parts an action
lays on one rank (:class:`Part`). The generator (:mod:`canasta_reference.movegen`) and its rule
predicates (:mod:`canasta_reference.move_rules`) read it."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from itertools import chain, product

from canasta_conformance.contract.cards import _RANK_ORDER, TOKENS, Card, card, sort_key
from canasta_conformance.contract.model import WILD_MELD, MeldGroup
from canasta_conformance.contract.variant_rules import VariantRules

from . import memo
from .hand_view import HandView
from .memo import bounded
from .sequences import side_sequences
from .state import HandState

SORT_KEY: dict[Card, tuple[int, int]] = {card(token): sort_key(card(token)) for token in TOKENS}
CANONICAL: list[Card] = sorted(SORT_KEY, key=SORT_KEY.__getitem__)  # every card, in canonical order
#: rank -> its cards (every suit)
CARDS_OF_RANK: dict[str, list[Card]] = {rank: [c for c in SORT_KEY if c.rank == rank] for rank in dict.fromkeys(c.rank for c in SORT_KEY)}
#: rank -> its cards (every suit), in canonical order
CANONICAL_OF_RANK: dict[str, list[Card]] = {rank: [c for c in CANONICAL if c.rank == rank] for rank in CARDS_OF_RANK}
GROUP_ORDER: dict[str, int] = {**_RANK_ORDER, WILD_MELD: len(_RANK_ORDER)}  # the wild-card meld's group comes last

WildVector = tuple[int, ...]  # how many wild cards of each kind (in the order of Facts.wild_kinds)


class Part:
    """What an action lays on one rank: ``k`` naturals from the hand (and the pile's top card when
    ``top``) and ``wilds`` wild cards by kind; ``value`` counts the cards from the hand."""

    __slots__ = ("cards", "k", "n_wilds", "packed", "rank", "top", "value", "wilds")
    #: ``wilds`` packed (packed.pack), set on the parts initial_meld_sets' search reads
    packed: int

    def __init__(self, rank: str, k: int, wilds: WildVector, n_wilds: int, value: int, top: bool = False) -> None:
        self.rank = rank
        self.k = k
        self.wilds = wilds
        self.n_wilds = n_wilds
        self.top = top
        self.value = value
        self.cards = k + n_wilds  # how many cards it takes from the hand


#: a listing's groups already built, by part and the wild cards of each kind the groups before it took (see Facts.groups)
Spelled = dict[tuple[Part, tuple[int, ...]], MeldGroup]


_VECTORS: dict[tuple[WildVector, int], list[tuple[WildVector, int]]] = memo.table()


def _wild_vectors(avail: WildVector, cap: int) -> list[tuple[WildVector, int]]:
    """Every vector of at most ``avail`` cards of each kind, at most ``cap`` in all, fewest first."""
    vectors = _VECTORS.get((avail, cap))
    if vectors is None:
        ranges = [range(min(n, cap) + 1) for n in avail]
        vectors = sorted(((v, sum(v)) for v in product(*ranges) if sum(v) <= cap), key=lambda vn: vn[1])
        _VECTORS[(avail, cap)] = vectors
    return vectors


WildTable = tuple[list[tuple[WildVector, int, int]], list[list[tuple[WildVector, int, tuple[Card, ...]]]]]
_WILD_TABLES: dict[tuple[tuple[Card, ...], tuple[int, ...], int], WildTable] = memo.table()


def _wild_table(kinds: Sequence[Sequence[Card]], values: Sequence[int], cap: int, every: tuple[Card, ...]) -> WildTable:
    """The choices of at most ``cap`` of the wild cards ``kinds`` (by kind, canonical order, each
    kind counting its value; ``every``: all of them, in that order): as (vector, how many, their
    count), fewest first, and grouped by how many cards they hold as (vector, count, the canonical
    cards), for every number the hand can lay (so no group is empty). The same wild cards come back
    hand after hand, so the table is built once for each."""
    key = (every, tuple(values), cap)
    table = _WILD_TABLES.get(key)
    if table is None:
        avail = tuple(len(cards) for cards in kinds)
        choices = [(v, n, sum(k * w for k, w in zip(v, values, strict=True))) for v, n in _wild_vectors(avail, cap)]
        grouped: list[list[tuple[WildVector, int, tuple[Card, ...]]]] = [[] for _ in range(min(cap, sum(avail)) + 1)]
        for vector, n, value in choices:
            cards: tuple[Card, ...] = ()
            for i, k in enumerate(vector):
                if k:
                    cards += tuple(kinds[i][:k])
            grouped[n].append((vector, value, cards))
        table = _WILD_TABLES[key] = (choices, grouped)
    return table


#: the choices of a hand without wild cards: none but the empty one
_NO_WILDS: WildTable = ([((), 0, 0)], [[((), 0, ())]])


_VARIANT_FACTS: dict[int, tuple[VariantRules, tuple[int, int, bool, bool]]] = memo.table()


def variant_facts(rules: VariantRules) -> tuple[int, int, bool, bool]:
    """What Facts reads of the variant alone, worked out once a variant: its serial, which the
    tables key it by (memo.serial: an int, which the garbage collector forgets); the most cards a meld
    holds (modern.meld.max-seven); whether the variant restricts where wild cards go
    (modern_wilds_allowed has something to check); whether a side's initial meld differs from its
    later melds (modern.aces.wilds-initial-only, modern.meld.wild-after-five,
    modern.initial.natural-meld, the wild-card meld), so that it is generated as a whole."""
    entry = _VARIANT_FACTS.get(id(rules))
    if entry is None or entry[0] is not rules:
        facts = (
            memo.serial(rules),
            rules.meld_max_cards if rules.meld_max_cards is not None else sys.maxsize,
            rules.meld_wild_meld_blocks_wilds or rules.meld_sevens_no_wilds
            or rules.meld_aces_wilds_only_in_initial_meld or rules.meld_wild_add_min_naturals is not None,
            rules.meld_aces_wilds_only_in_initial_meld or rules.meld_wild_add_min_naturals is not None
            or rules.initial_meld_natural_meld_required or rules.meld_wild_only_melds,
        )
        entry = bounded(_VARIANT_FACTS)[id(rules)] = (rules, facts)
    return entry[1]


class Facts:
    """Everything the generator needs about a position, computed once: the hand as count vectors
    (naturals by rank, wild cards by kind, both in canonical card order) and the side's melds."""

    def __init__(self, state: HandState, view: HandView | None = None) -> None:
        """``view``: a hand read in place of the player's (sequence_moves: the hand without the
        runs an action lays), the rest of the position as it is."""
        rules = state.rules
        self.state = state
        self.rules = rules
        self.side = state.side_of(state.turn)
        self.melds = state.melds[self.side]
        self.melded = bool(self.melds)
        #: the side's sequences (meld.sequences), kept apart from its melds of one rank
        self.sequences: dict[str, list[Card]] = {}
        if rules.meld_sequences:
            self.sequences = side_sequences(self.melds)
            if self.sequences:
                self.melds = {rank: cards for rank, cards in self.melds.items() if rank not in self.sequences}
        self.minimum = 0 if self.melded else state.initial_minimum()
        if view is None:
            view = state.view(state.turn)  # (the state keeps it as the hand changes: hand_view)
        #: the hand's distinct cards in canonical order (ranks come grouped)
        self.distinct: list[Card] = view.distinct
        #: rank -> the hand's naturals (black threes too), in canonical order
        self.naturals: dict[str, list[Card]] = view.naturals
        wild_cards = view.wilds
        self.red_threes = view.red_threes
        self.hand_size = view.size
        self.wild_kinds: list[list[Card]] = list(wild_cards.values())
        if wild_cards:
            wild_facts = view.wild_facts  # (kept by the view while the hand's wild cards stay)
            if wild_facts is None:
                wild_facts = view.wild_facts = (
                    tuple(chain.from_iterable(self.wild_kinds)), [rules.value(cards[0]) for cards in self.wild_kinds],
                    tuple(map(len, self.wild_kinds)), (0,) * len(self.wild_kinds), {},
                )
            self.wild_key, self.wild_values, self.wild_avail, self.no_wilds, self._tables = wild_facts
            self.wilds_first = not self.naturals or _RANK_ORDER[[*wild_cards][-1]] < _RANK_ORDER[next(iter(self.naturals))]
        # Modern American (each fact is empty or false where the variant lacks the rule)
        size = rules.canasta_min_cards
        self.serial, self.max_cards, self.wild_places_ruled, initial_ruled = variant_facts(rules)
        if rules.meld_closed_rank_after_canasta:
            self.closed = state.closed_ranks()
        wild_meld = self.melds.get(WILD_MELD)
        if wild_meld is not None:
            self.wild_meld_size = len(wild_meld)
            self.wild_meld_open = len(wild_meld) < size  # modern.wild-meld.blocks-wilds
        if state.talons:
            self.talon_after = not state.turn_card_drawn() and (state.talon_owed() or not self.melded)
        self.initial_apart = initial_ruled and not self.melded

    #: the hand's wild cards, in canonical order by kind (none unless the hand holds some)
    wild_key: tuple[Card, ...] = ()
    wild_values: Sequence[int] = ()
    wild_avail: WildVector = ()
    no_wilds: WildVector = ()
    wilds_first = True
    #: the pile's top card, when takes are generated
    top_value = 0
    #: the wild-card choices by cap (see _wild_table), shared by the positions of one set of wild cards
    _tables: dict[int, WildTable]
    _meld_wilds: dict[str, int] | None = None
    _canastas: int | None = None
    #: ranks in which some side has completed a canasta (modern.meld.closed-rank)
    closed: frozenset[str] = frozenset()
    #: the side's wild-card meld (Modern American): its size, and whether it is not a canasta yet
    wild_meld_size = 0
    wild_meld_open = False
    #: a bonus talon will follow this turn's discard (modern.talon.*)
    talon_after = False

    @property
    def meld_wilds(self) -> dict[str, int]:
        if self._meld_wilds is None:
            wild = self.rules.cards_wild_ranks
            self._meld_wilds = {rank: sum(1 for c in cards if c.rank in wild) for rank, cards in self.melds.items()}
        return self._meld_wilds

    @property
    def canastas(self) -> int:
        if self._canastas is None:
            need = self.rules.canasta_min_cards
            self._canastas = sum([len(cards) >= need for melds in (self.melds, self.sequences) for cards in melds.values()])
        return self._canastas

    def _table(self, cap: int) -> WildTable:
        if not self.wild_key:
            return _NO_WILDS  # (whatever the cap)
        table = self._tables.get(cap)
        if table is None:
            table = self._tables[cap] = _wild_table(self.wild_kinds, self.wild_values, cap, self.wild_key)
        return table

    def wild_choices(self, cap: int) -> list[tuple[WildVector, int, int]]:
        """Every choice of at most ``cap`` wild cards by kind from the hand, fewest first, as
        (vector, how many, their count)."""
        return self._table(cap)[0]

    def wilds_by_count(self, cap: int) -> list[list[tuple[WildVector, int, tuple[Card, ...]]]]:
        """The wild-card choices of :meth:`wild_choices` grouped by how many cards they hold, each as
        (vector, count, the canonical cards)."""
        return self._table(cap)[1]

    def natural_value(self, rank: str) -> int:
        cards = self.naturals.get(rank)
        return self.rules.value(cards[0]) if cards else 0

    def part(self, rank: str, k: int, choice: tuple[WildVector, int, int], top: bool = False) -> Part:
        return Part(rank, k, choice[0], choice[1], k * self.natural_value(rank) + choice[2], top)

    def cards(self, rank: str, k: int, wilds: WildVector, offsets: Sequence[int] = ()) -> tuple[Card, ...]:
        """The canonical cards: the first ``k`` naturals of the rank, and wild cards of each kind
        from ``offsets`` on (those the action's earlier groups have not used)."""
        cards: list[Card] = []
        for i, n in enumerate(wilds):
            if n:
                start = offsets[i] if offsets else 0
                cards += self.wild_kinds[i][start:start + n]
        if k:
            cards += self.naturals[rank][:k]
        if not self.wilds_first:
            cards.sort(key=SORT_KEY.__getitem__)
        return tuple(cards)

    def groups(self, parts: Sequence[Part], offsets: Sequence[int] = (), spelled: Spelled | None = None) -> tuple[MeldGroup, ...]:
        """The groups of an action in canonical rank order, each with its own wild cards.
        ``spelled`` (kept by the caller for the actions of one listing): the groups already built,
        by part and the wild cards the groups before it took, shared by the actions laying the
        same part after the same wild cards (fewer new objects in a long list)."""
        used = list(offsets) if offsets else [0] * len(self.wild_kinds)
        out = []
        for part in sorted(parts, key=lambda p: GROUP_ORDER[p.rank]):
            key = (part, tuple(used))
            group = spelled.get(key) if spelled is not None else None
            if group is None:
                tag = part.rank if part.k == 0 and not part.top and part.rank != WILD_MELD else None
                group = MeldGroup.of(self.cards(part.rank, part.k, part.wilds, used), tag)
                if spelled is not None:
                    spelled[key] = group
            out.append(group)
            used = [u + n for u, n in zip(used, part.wilds, strict=True)]
        return tuple(out)
