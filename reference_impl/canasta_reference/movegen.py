"""The legal-move generator: every legal action of a position, generated from the rules.

The hand is read as count vectors (the naturals of each rank, in canonical suit order, and the
wild cards of each kind), which the state keeps up to date as the hand changes
(:mod:`canasta_reference.hand_view`); the position's facts (the side's melds, the minimum, the
frozen pile, whether the player could go out) are computed once; candidates are generated only
where the rules allow them and checked by the non-raising predicates of
:mod:`canasta_reference.move_rules`, one per obligation, each naming its rule. The position's
facts are :mod:`canasta_reference.position_facts`; the actions listed whole (initial melds of
several ranks, melds leaving one card or none, Modern American's initial meld) are generated in
:mod:`canasta_reference.initial_melds`. ``apply`` validates with messages every action it was not handed from
this very list (engine.py); the property tests hold the two to the same answers.

**What the list holds (the documented equivalence).** ``legal_actions()`` is never empty while the
hand is live, lists no illegal action, and lists every legal action up to:

1. *Suits* (``eq.suits.irrelevant``): cards of one rank-class are interchangeable, so an action
   takes the naturals of a rank in canonical suit order and the wild cards of each kind (jokers,
   twos) in canonical order; a discard is listed for every distinct card of the hand.
2. *Layout*: the cards an action lays on one rank form one group (groups of a rank merge anyway,
   ``meld.one-per-rank``), in canonical card order; the groups of an action come in canonical
   rank order; a group with no natural card names its rank, except the side's wild-card meld
   (Modern American), which names none and comes last.
3. *Steps of one turn*: a meld (or a take that makes the initial meld) laying several ranks at
   once is listed when no listed action can do part of it first. Otherwise it is the same as a
   listed action followed, in the same turn, by meld actions for the remaining ranks, which are
   then legal too (the same cards reach the same melds; the end of the turn is the same). Exactly:

   * a meld of one rank: every legal one (any number of naturals, any wild cards by kind);
   * the initial meld in several ranks (a meld, or the extra groups of a take): every legal one in
     which each group is needed to reach the minimum (dropping a whole group would fall short);
   * a meld of several ranks, or a take making the initial meld with further groups, that leaves
     the player at most one card (going out, or needing every canasta at once): every legal one
     that no listed action can begin (for a side with melds: no single group of it is legal on
     its own; for a side without: leaving out one group, or the black threes, falls short of the
     minimum);
   * a take by a side that has melded: every legal one (only the top card's group is allowed);
   * the initial meld where it differs from later melds (Modern American: wild cards in aces and
     in melds of fewer than five naturals only there, a natural meld required, the wild-card
     meld): every legal one none of whose groups could be laid later in the same turn with the
     same effect, i.e. every group is needed (without it the rest is no legal initial meld: the
     count, the natural meld, black threes only going out) or holds wild cards no later meld
     could take (aces, or fewer than five naturals);
   * the wild-card meld of a side that has melded: every legal one (started or added to, any
     number of wild cards by kind).

Sequences (``meld.sequences``) keep their suits, and the cards an action lays into one sequence
are one group; what is listed of them (and how one-rank groups beside them take their suits) is
documented in :mod:`canasta_reference.sequence_moves`.

Everything else (draw, decline, ask, answer, discard, end of turn, special hands: one per kind
and distinct discard) is listed exactly. Where the table's penalties are played
(``penalty.table_penalties``), ``apply`` also accepts some illegal actions in order to penalise
them; those irregularities are not legal actions and are not listed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from operator import attrgetter
from typing import TYPE_CHECKING

from canasta_conformance.contract.cards import Card
from canasta_conformance.contract.model import (
    WILD_MELD,
    Action,
    Answer,
    Ask,
    Decline,
    Discard,
    Draw,
    EndTurn,
    Meld,
    MeldGroup,
    SpecialHand,
    TakePile,
)
from canasta_conformance.contract.variant_rules import VariantRules

from . import memo
from .going_out import can_go_out
from .initial_melds import all_but_one, initial_meld_sets, modern_initial_melds
from .memo import ACTIONS_LIMIT, CODES, bounded, code
from .move_rules import (
    cards_left_allowed,
    completes_canasta,
    concealed_exception,
    discard_allowed,
    group_is_legal,
    hand_may_take,
    may_ask,
    may_decline,
    may_discard,
    pile_can_be_taken,
    reaches_minimum,
    take_cards_allowed,
)
from .pile import cards_into_hand, is_frozen_for
from .position_facts import GROUP_ORDER, SORT_KEY, Facts, Part, Spelled, WildVector, variant_facts
from .sequence_moves import sequence_melds
from .special_hands import is_special_hand, may_make_special_hand, special_hand_size

if TYPE_CHECKING:
    from .engine import ReferenceEngine
    from .state import HandState

ASK = Ask()
DRAW = Draw()
DECLINE = Decline()
END_TURN = EndTurn()
ANSWERS: tuple[Answer, Answer] = (Answer(True), Answer(False))
_DISCARDS: dict[Card, Discard] = {c: Discard(c) for c in SORT_KEY}  # actions are immutable values: share them

#: the actions laying one group by its cards: without a tag, and with one (a group of wild cards
#: alone on a meld of the side) by (cards, tag). (The meld holds its cards: keyed by them, a meld
#: without a tag costs no further object the garbage collector scans, see memo.)
_ONE_GROUP: dict[tuple[Card, ...], Meld] = memo.table()
_ONE_TAGGED_GROUP: dict[tuple[tuple[Card, ...], str], Meld] = memo.table()


def _one_group_meld(cards: tuple[Card, ...], tag: str | None = None) -> Meld:
    """The action laying one group (actions are immutable values: each is built once and shared)."""
    if tag is not None:
        meld = _ONE_TAGGED_GROUP.get((cards, tag))
        if meld is None:
            meld = bounded(_ONE_TAGGED_GROUP, ACTIONS_LIMIT)[(cards, tag)] = Meld((MeldGroup(cards, tag),))
        return meld
    meld = _ONE_GROUP.get(cards)
    if meld is None:
        meld = bounded(_ONE_GROUP, ACTIONS_LIMIT)[cards] = Meld((MeldGroup(cards),))
    return meld


_TAKES: dict[tuple[Card, ...], TakePile] = memo.table()


def _take(cards: tuple[Card, ...]) -> TakePile:
    """The take melding the top card with ``cards`` and nothing more (built once and shared)."""
    take = _TAKES.get(cards)
    if take is None:
        take = bounded(_TAKES, ACTIONS_LIMIT)[cards] = TakePile(cards)
    return take


# --- generation ---------------------------------------------------------------------------------
def legal_actions(engine: ReferenceEngine) -> list[Action]:
    state = engine.state
    if state is None or state.phase == "over":
        return []
    if state.question == "pending":
        return list(ANSWERS)
    out: list[Action] = [ASK] if may_ask(state) else []
    if state.phase == "draw":
        exhausted = state.stock_exhausted()  # (empty, or short of a full draw: draw.lone_last_card_full_draw)
        if not exhausted:
            out.append(DRAW)
        takes: list[TakePile] = []
        if pile_can_be_taken(state) and hand_may_take(state):
            listed = _table_takes(state)
            takes = list(_takes(Facts(state)) if listed is None else listed)
        if exhausted and may_decline(engine, state, bool(takes)):
            out.append(DECLINE)
        out += takes
    else:
        f = Facts(state)
        if state.last_card_red_three:
            out.append(END_TURN)  # stock.last-card.red-three: meld or not, then end the turn
        elif may_discard(f, state.question == "yes" and can_go_out(state)):
            if f.red_threes or (f.rules.discard_empty_pile_no_aces_sevens and not state.pile):
                out += [_DISCARDS[c] for c in f.distinct if discard_allowed(f, c)]
            else:  # discard_allowed holds for every card: no red three, no empty-pile restriction
                out += map(_DISCARDS.__getitem__, f.distinct)
        out += meld_actions(f)
        if f.rules.special_hands_enabled:
            out += special_hands(f)
        if state.rules.meld_sequences:
            out += sequence_melds(engine, f)
    return out


def meld_actions(f: Facts) -> list[Meld]:
    if f.initial_apart:
        return list(modern_initial_melds(f))
    out = one_rank_melds(f)
    if f.wild_avail and f.rules.meld_wild_only_melds:
        out += wild_meld_melds(f)
    if not f.melded:
        spelled: Spelled = {}  # (the sets share groups: each built once)
        out += (Meld.of(f.groups(parts, (), spelled)) for parts in initial_meld_sets(f, ()))
    several = all_but_one(f, None)  # (most positions: none at once)
    if several:
        out += (Meld.of(f.groups(parts)) for parts in several if len(parts) > 1)
    return out


def special_hands(f: Facts) -> list[SpecialHand]:
    """modern.special-hand.*: each special hand the hand makes without one of its cards, that card
    being the discard, while the side has not melded."""
    if not f.rules.special_hands_enabled:
        return []
    kinds = f.rules.special_hands
    if not kinds or f.melded or f.hand_size != special_hand_size(f.rules) + 1:
        return []
    state = f.state
    ranks: dict[str, int] = {}
    for c, n in state.hand.items():
        if n:
            ranks[c.rank] = ranks.get(c.rank, 0) + n
    possible = [kind for kind in kinds if may_make_special_hand(kind, ranks, f.rules)]
    out: list[SpecialHand] = []
    if not possible:
        return out
    # The shapes read the cards' ranks and red threes, not their suits: the hand without any card
    # of a rank (a red three apart) makes the same special hands, so each is tried once.
    made: dict[tuple[str, bool], list[str]] = {}
    for c in sorted(state.hand, key=SORT_KEY.__getitem__):
        if not state.hand[c]:
            continue
        key = (c.rank, c.is_red_three)
        kinds_made = made.get(key)
        if kinds_made is None:
            rest = state.hand.copy()
            rest[c] -= 1
            cards = list(rest.elements())
            kinds_made = made[key] = [kind for kind in possible if is_special_hand(kind, cards, f.rules)]
        out += (SpecialHand(kind, c) for kind in kinds_made)
    return out


def _rank_place(key: str) -> int:
    """A meld's place by rank (a sequence, which takes no wild card, after every rank)."""
    return GROUP_ORDER.get(key, len(GROUP_ORDER))


def one_rank_melds(f: Facts) -> list[Meld]:
    """Every legal meld of one rank: any number of its naturals with any wild cards by kind (or
    wild cards alone on a meld of the side). The rules depend on how many cards of each sort are
    laid, so each (naturals, wild cards) count is checked once, then spelled out by wild kind.

    For a side that has melded, a rank's melds depend only on the rank's naturals in hand, its
    meld (size, wild cards, closed), the hand's wild cards and whether the wild-card meld is open,
    as long as every meld leaves the player two cards or more: those lists are kept in a table
    (the same ranks come back position after position). For a side without melds, the same holds
    with the side's minimum in place of the meld."""
    by_count = f.wilds_by_count(f.rules.meld_max_wilds)
    wild_counts = range(len(by_count))  # how many wild cards one group can hold
    melds = f.melds
    naturals = f.naturals
    # (a rank without a meld of the side needs meld_min_naturals naturals; a meld of the side with
    # no natural in hand takes wild cards alone, so only when the hand holds some)
    min_naturals = f.rules.meld_min_naturals
    ranks: list[tuple[str, Sequence[Card]]] = list(naturals.items())
    if f.wild_key and melds:  # in rank order, not the order the side laid its melds: a reloaded position lists alike
        ranks += [(rank, ()) for rank in sorted(melds.keys() - naturals.keys() - {WILD_MELD}, key=_rank_place)]
    out: list[Meld] = []
    tables = _rank_table(f)
    roomy = f.hand_size - len(by_count)  # a rank with fewer naturals leaves two cards or more
    closed = f.closed
    codes = CODES.get
    if f.melded:
        table = tables.melds
        wild_key = bool(f.wild_key)
        wild = f.rules.cards_wild_ranks
        for rank, cards in ranks:
            existing = melds.get(rank)
            if existing is None and len(cards) < min_naturals:
                continue
            if len(cards) >= roomy:
                out += _rank_melds(f, rank, cards, by_count, wild_counts)
                continue
            hand_cards = tuple(cards)
            key = (rank, codes(hand_cards) or code(hand_cards), -1 if existing is None else len(existing),  # (the meld's wild cards, as _wilds_in)
                   wild_key and existing is not None and sum(map(wild.__contains__, map(_RANK_OF, existing))), rank in closed)
            listed = table.get(key)
            if listed is None:  # the same counts may have come with other cards: their groups, spelled with these
                shape = (f.serial, rank, len(cards), *key[2:], len(by_count) - 1, f.wild_meld_open)
                counted = _COUNTED.get(shape)
                if counted is None:  # (flat: a tuple of tuples stays scanned one pass longer, see memo)
                    counted = bounded(_COUNTED)[shape] = tuple(chain.from_iterable((k, n) for k, n, _, _, _ in _rank_counts(f, rank, cards, wild_counts)))
                listed = bounded(table)[key] = tuple(
                    _spelled(f, cards, (k, wilds, None if k else rank))  # (the tag, as _rank_counts)
                    for k, n in zip(counted[::2], counted[1::2], strict=True) for _, _, wilds in by_count[n]
                )
            out += listed
        return out
    initial = tables.initial  # (a side without melds: no meld to key; its minimum instead)
    for rank, cards in ranks:
        if len(cards) < min_naturals:
            continue
        if len(cards) >= roomy:
            out += _rank_melds(f, rank, cards, by_count, wild_counts)
            continue
        hand_cards = tuple(cards)
        start = (rank, codes(hand_cards) or code(hand_cards), f.minimum, rank in closed)
        listed = initial.get(start)
        if listed is None:
            listed = bounded(initial)[start] = tuple(_rank_melds(f, rank, cards, by_count, wild_counts))
        out += listed
    return out


RankGroup = tuple[int, tuple[Card, ...], str | None]


class RankTables:
    """What the listing keeps for one variant, one set of wild cards in hand and one state of the
    side's wild-card meld (see one_rank_melds and _takes). Keys name the naturals of a rank in hand
    by memo.code: a key of atomic values only, which the garbage collector forgets (see memo); a
    new entry leaves it only its list to scan (and the actions new to it)."""

    __slots__ = ("initial", "melds", "takes")

    def __init__(self) -> None:
        #: a side's one-rank melds by (rank, its naturals in hand, its meld: size, wild cards, closed)
        self.melds: dict[object, tuple[Meld, ...]] = {}
        #: a side's takes by (the top card's rank, its naturals in hand, its meld, closed, frozen)
        self.takes: dict[object, tuple[TakePile, ...]] = {}
        #: the one-rank melds of a side without melds by (rank, its naturals, the minimum, closed)
        self.initial: dict[object, tuple[Meld, ...]] = {}


#: by (the variant's serial, the hand's wild cards as Facts.wild_key, the wild-card meld open)
_RANK_TABLES: dict[tuple[int, tuple[Card, ...], bool], RankTables] = memo.table()
#: the (naturals, wild cards) counts of a melded side's legal groups of one rank, one pair after
#: the other, by (the variant's serial, rank, how many naturals in hand, its meld: size, wild
#: cards, closed; how many wild cards a group may take from the hand, the wild-card meld open):
#: the rules read counts, never which cards
_COUNTED: dict[tuple[object, ...], tuple[int, ...]] = memo.table()


def _rank_table(f: Facts) -> RankTables:
    """The tables of one-rank melds for the variant, the hand's wild cards and the state of the
    side's wild-card meld (built as positions come; dropped whole when they grow large: the caller
    adds to them through bounded)."""
    key = (f.serial, f.wild_key, f.wild_meld_open)
    tables = _RANK_TABLES.get(key)
    if tables is None:
        tables = bounded(_RANK_TABLES)[key] = RankTables()
    return tables


def _wilds_in(rules: VariantRules, cards: Sequence[Card]) -> int:
    """How many wild cards a meld holds."""
    wild = rules.cards_wild_ranks
    return sum(map(wild.__contains__, map(_RANK_OF, cards)))


_RANK_OF = attrgetter("rank")


def _rank_melds(f: Facts, rank: str, cards: Sequence[Card], by_count: list[list[tuple[WildVector, int, tuple[Card, ...]]]],
                wild_counts: Sequence[int]) -> Iterator[Meld]:
    """The legal melds of one rank (see one_rank_melds)."""
    for group in _rank_groups(f, rank, cards, by_count, wild_counts):
        yield _spelled(f, cards, group)


def _spelled(f: Facts, cards: Sequence[Card], group: RankGroup) -> Meld:
    """The meld laying the group: its wild cards and the first of the rank's naturals ``cards``."""
    k, wilds, tag = group
    laid = wilds + tuple(cards[:k])
    return _one_group_meld(laid if f.wilds_first else _in_order(f, laid), tag)


def _rank_groups(f: Facts, rank: str, cards: Sequence[Card], by_count: list[list[tuple[WildVector, int, tuple[Card, ...]]]],
                 wild_counts: Sequence[int]) -> Iterator[RankGroup]:
    """The groups of the legal melds of one rank, as (how many of its naturals, the wild cards, the
    tag): the rules read only how many cards of each sort a group lays, never their suits."""
    canastas = f.canastas
    initial = not f.melded
    value = f.natural_value(rank) if initial else 0  # (only the initial meld counts)
    if initial:
        best_wilds = max((value for _, _, value in f.wild_choices(f.rules.meld_max_wilds)), default=0)
        if len(cards) * value + best_wilds < f.minimum and f.hand_size - len(cards) - sum(f.wild_avail) > 1:
            return  # initial.table: this rank cannot reach the minimum, nor go out concealed
    for k, n, tag, left, canasta in _rank_counts(f, rank, cards, wild_counts):
        for _, wild_value, wilds in by_count[n]:
            if initial and not reaches_minimum(f, k * value + wild_value) and not concealed_exception(
                f, left, canastas + canasta, canasta
            ):
                continue  # (a side that has melded has no minimum to reach)
            yield k, wilds, tag


def _rank_counts(f: Facts, rank: str, cards: Sequence[Card], wild_counts: Sequence[int]) -> Iterator[tuple[int, int, str | None, int, bool]]:
    """The legal groups of one rank by how many naturals and wild cards they lay (and their tag,
    the cards they leave in hand, whether they complete a canasta), before the initial meld's count."""
    rules = f.rules
    hand_size = f.hand_size
    canastas = f.canastas
    initial = not f.melded
    open_after = f.wild_meld_open  # one group of a natural rank does not change the wild-card meld
    counts = wild_counts[:1] if rank == "3" else wild_counts
    for k in range(0 if rank in f.melds else rules.meld_min_naturals, len(cards) + 1):
        tag = rank if k == 0 else None
        for n in counts:
            if not group_is_legal(f, rank, k, n, initial):
                continue
            left = hand_size - k - n
            canasta = completes_canasta(f, rank, k + n)
            if cards_left_allowed(f, left, canastas + canasta, rank == "3", left == 0, open_after):
                yield k, n, tag, left, canasta


def wild_meld_melds(f: Facts) -> Iterator[Meld]:
    """modern.wild-meld.allowed: a side that has melded starts its wild-card meld (three wild cards
    or more) or adds to it, up to the meld's size limit, with any wild cards by kind."""
    if not f.rules.meld_wild_only_melds or not f.wild_avail:
        return
    size = f.wild_meld_size
    by_count = f.wilds_by_count(min(f.max_cards - size, sum(f.wild_avail)))
    for n in range(1, len(by_count)):
        if not group_is_legal(f, WILD_MELD, 0, n):
            continue
        left = f.hand_size - n
        canasta = completes_canasta(f, WILD_MELD, n)
        if cards_left_allowed(f, left, f.canastas + canasta, False, left == 0, size + n < f.rules.canasta_min_cards):
            for _, _, wilds in by_count[n]:
                yield _one_group_meld(_in_order(f, wilds))

def take_actions(f: Facts) -> Iterator[TakePile]:
    """Every take of the pile (up to the equivalence in this module's docstring)."""
    if pile_can_be_taken(f.state):
        yield from _takes(f)


def _takes(f: Facts) -> Iterable[TakePile]:
    """take_actions once the pile can be taken (pile_can_be_taken holds).

    For a side that has melded, the takes depend only on the top card's rank, its naturals in hand,
    the side's meld of it (size, wild cards, closed), whether the pile is frozen against the side,
    the hand's wild cards and whether the wild-card meld is open, as long as every take leaves the
    player two cards or more: those lists are kept in a table, as the one-rank melds are."""
    state = f.state
    rules = f.rules
    pile = state.pile
    top = pile[-1]
    f.top_value = rules.value(top)
    frozen = is_frozen_for(state, f.side)
    rest = cards_into_hand(pile)
    rank = top.rank
    by_count = f.wilds_by_count(rules.meld_max_wilds)
    naturals = f.naturals.get(rank, ())
    if not f.melded:
        return _initial_takes(f, rank, naturals, by_count, frozen, rest)
    if f.hand_size - len(naturals) - (len(by_count) - 1) + rest < 2:
        return list(_melded_takes(f, rank, naturals, by_count, frozen, rest))
    key = _take_key(rules, rank, code(tuple(naturals)), f.melds.get(rank), bool(f.wild_key), rank in f.closed, frozen)
    table = _rank_table(f).takes
    listed = table.get(key)
    if listed is None:
        listed = bounded(table)[key] = tuple(_melded_takes(f, rank, naturals, by_count, frozen, rest))
    return listed


def _take_key(rules: VariantRules, rank: str, naturals: int, existing: list[Card] | None, wild_cards: bool,
              closed: bool, frozen: bool) -> tuple[object, ...]:
    """Where a side's takes are kept in its table (see _takes): the top card's rank, its naturals in
    hand (memo.code), the side's meld of it (size, and its wild cards when the hand holds some), the
    rank closed, the pile frozen against the side."""
    return (rank, naturals, -1 if existing is None else len(existing),
            wild_cards and existing is not None and _wilds_in(rules, existing), closed, frozen)


def _table_takes(state: HandState) -> tuple[TakePile, ...] | None:
    """The takes of a side that has melded when its table holds them already (see _takes), read
    from the hand without the position's facts; None when the table does not hold them or does
    not apply (a side without melds, a take that may leave one card or none, sequences)."""
    rules = state.rules
    side = state.side_of(state.turn)
    melds = state.melds[side]
    if not melds or rules.meld_sequences:
        return None
    view = state.view(state.turn)
    wild_facts = view.wild_facts  # (Facts.wild_key, when the view keeps it)
    wild_key: tuple[Card, ...] = wild_facts[0] if wild_facts is not None else tuple(chain.from_iterable(view.wilds.values()))
    wild_meld = melds.get(WILD_MELD)
    tables = _RANK_TABLES.get((variant_facts(rules)[0], wild_key, wild_meld is not None and len(wild_meld) < rules.canasta_min_cards))
    if tables is None:
        return None
    pile = state.pile
    rank = pile[-1].rank
    naturals = view.naturals.get(rank, ())
    if view.size - len(naturals) - min(rules.meld_max_wilds, len(wild_key)) + cards_into_hand(pile) < 2:
        return None
    key = _take_key(rules, rank, code(tuple(naturals)), melds.get(rank), bool(wild_key), rank in state.closed_ranks(), is_frozen_for(state, side))
    return tables.takes.get(key)


def _melded_takes(f: Facts, rank: str, naturals: Sequence[Card], by_count: list[list[tuple[WildVector, int, tuple[Card, ...]]]],
                  frozen: bool, rest: int) -> Iterator[TakePile]:
    """The takes of a side that has melded (the top card's group only: pile.take.initial-meld-groups)."""
    rules = f.rules
    for k in range(len(naturals) + 1):
        for n in range(len(by_count)):
            if not take_cards_allowed(rules, f.melds, rank, k, n, frozen) or not group_is_legal(f, rank, k + 1, n):
                continue
            left = f.hand_size - k - n + rest
            canasta = completes_canasta(f, rank, k + 1 + n)
            if cards_left_allowed(f, left, f.canastas + canasta, False, left == 0, f.wild_meld_open):
                for _, _, wild_cards in by_count[n]:
                    yield _take(_in_order(f, wild_cards + tuple(naturals[:k])))


def _initial_takes(f: Facts, rank: str, naturals: Sequence[Card], by_count: list[list[tuple[WildVector, int, tuple[Card, ...]]]],
                   frozen: bool, rest: int) -> Iterator[TakePile]:
    """The takes of a side that has not melded: each makes the initial meld, with further groups
    when the top card's group alone falls short (or lays all but one card)."""
    rules = f.rules
    top_counted = f.top_value if rules.initial_meld_pile_top_counts else 0
    for k in range(len(naturals) + 1):
        for n in range(len(by_count)):
            if not take_cards_allowed(rules, f.melds, rank, k, n, frozen) or not group_is_legal(f, rank, k + 1, n, True):
                continue
            left = f.hand_size - k - n + rest
            for wilds, wild_value, wild_cards in by_count[n]:
                cards = _in_order(f, wild_cards + tuple(naturals[:k]))
                part = Part(rank, k, wilds, n, k * f.natural_value(rank) + wild_value, True)
                counted = part.value + top_counted
                if counted >= f.minimum and left >= 2:
                    yield TakePile(cards)
                elif counted < f.minimum:
                    for parts in initial_meld_sets(f, (part,), counted, rest):
                        yield TakePile(cards, f.groups(parts[1:], wilds))
                if rest <= 1:
                    for parts in all_but_one(f, part, rest):
                        yield TakePile(cards, f.groups(parts[1:], wilds))


def _in_order(f: Facts, cards: tuple[Card, ...]) -> tuple[Card, ...]:
    """Cards in canonical order (wild cards come first unless a variant makes other ranks wild)."""
    return cards if f.wilds_first else tuple(sorted(cards, key=SORT_KEY.__getitem__))
