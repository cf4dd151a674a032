"""The legal sequence melds of a position (meld.sequences), for the move generator.

Suits matter in a sequence, so its cards are listed as they are (eq.suits.irrelevant does not
apply to them). The equivalence of :mod:`canasta_reference.movegen` reads, for an action with
sequence groups:

* *Sequence groups*: the cards an action lays into one sequence (a new one, or one of the side's,
  at one end or both) form one group: laying 4H-5H-6H and 7H in one action is laying 4H-5H-6H-7H,
  and laying 4H and 8H on the side's 5H-6H-7H is laying the group [4H 8H]. The groups come after the
  groups of one rank, in the order of their cards' tokens.
* *One-rank groups beside sequences*: their cards are taken in canonical suit order from the hand
  *without* the cards the same action lays in sequences. So every suit choice a sequence of the
  action depends on is listed: with 5H 5H 5S 6H 7H, a joker and an initial meld needing both, the
  action [5H 5S JK] [seq 5H 6H 7H] is listed (the fives left once the run is laid), and [5H 5H JK]
  alone where it is legal. Which suits a one-rank meld leaves in the hand for *later* actions is
  not distinguished (eq.suits.irrelevant, as in the protocol: a driver may name any suits to
  ``apply``; laying a run first, then the one-rank meld, keeps the suits the run needs).
* *Steps of one turn*, as for melds of one rank: an action is listed when no part of it (some of
  its groups) is legal on its own first; otherwise it is that part followed by the rest.

What is listed, exactly:

* a side with melds: every legal meld of one sequence group (a new sequence of three to seven
  cards of one suit in consecutive rank order, or an extension of one of the side's sequences at
  one end or both); and every legal going out in two groups, one of them a sequence group and one
  a single card, neither legal alone (the only way a meld of several groups with a sequence has no
  legal first part: any group leaving two cards or more is legal alone);
* a side yet to meld (initial.table, the sequences counting their cards): every legal initial meld
  of sequence groups and melds of one rank in which every one-rank group is needed (without any one
  of them the rest counts less than the minimum), whether or not its sequences are: a one-rank meld
  laid first would be listed in the canonical suits of the whole hand, maybe taking a card a
  sequence needs (with 8C 8D 8S, a joker and 6D 7D, [JK 8C 8D] reaches the minimum alone, and
  [JK 8C 8S] [seq 6D 7D 8D] is listed); of sequence groups alone: every legal one in which every
  group is needed; and every legal one leaving one card or none whose groups other than black
  threes count less than the minimum (with black threes: they may only go out; without: going out
  concealed, initial.concealed-exception). Any other part of an initial meld that could go first
  would leave three cards or more and count the minimum, so it is legal on its own.

The sets of sequences tried are bounded by the rules: an initial meld's sequences are added while
their count is short of the minimum (a sequence added after it is reached is not needed), and a
going out lays every card but at most one.

Each candidate is judged by non-raising predicates where its form is plain (one sequence group of
a side with melds: sequence_group_is_legal; an initial meld of legal new sequences and one-rank
new melds counting the minimum and leaving two cards or more: _new_runs_legal and _plainly_legal),
by ``apply``'s own checks (``is_legal``) otherwise; the lists are the same either way.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from canasta_conformance.contract.cards import Card, sort_cards
from canasta_conformance.contract.model import WILD_MELD, Meld, MeldGroup
from canasta_conformance.contract.sequences import rank_order, span

from .hand_view import HandView
from .initial_melds import _new_meld_options, _spread
from .move_rules import cards_left_allowed, group_is_legal
from .position_facts import Facts, Part, WildVector
from .sequences import touches

if TYPE_CHECKING:
    from .engine import ReferenceEngine


def _runs_in_hand(f: Facts) -> dict[str, dict[int, Card]]:
    """The hand's natural cards by suit, one card of each rank order (two of a card are alike)."""
    out: dict[str, dict[int, Card]] = {}
    for rank, cards in f.naturals.items():
        for c in cards:
            if f.rules.is_natural(c) and c.suit is not None:
                out.setdefault(c.suit, {})[rank_order(rank)] = c
    return out


def _intervals(held: dict[int, Card], low: int, high: int, max_len: int) -> Iterator[tuple[int, int]]:
    """Every interval [a, b] of rank orders within [low, high], at most ``max_len`` long, whose
    every rank the hand holds."""
    for a in range(low, high + 1):
        b = a
        while b <= high and b in held and b - a < max_len:
            yield a, b
            b += 1


def sequence_groups(f: Facts) -> Iterator[MeldGroup]:
    """Candidate sequence groups: new runs of three to seven cards, and the extensions of each
    sequence of the side at one end or both (judged by sequence_group_is_legal, or with the rest of
    an initial meld by _new_runs_legal, else by apply's checks)."""
    rules = f.rules
    size = rules.canasta_min_cards
    held_by_suit = _runs_in_hand(f)
    seen: set[tuple[Card, ...]] = set()

    def group(orders: list[int], held: dict[int, Card]) -> MeldGroup | None:
        cards = tuple(sort_cards([held[o] for o in orders]))
        if cards in seen:
            return None
        seen.add(cards)
        return MeldGroup(cards, None, True)

    for suit, held in held_by_suit.items():
        orders = sorted(held)
        for a, b in _intervals(held, orders[0], orders[-1], size):
            if b - a + 1 >= rules.meld_min_cards and (g := group(list(range(a, b + 1)), held)) is not None:
                yield g
        for key in sorted(f.sequences):  # (by key, not in the order the side laid them: a reloaded position lists alike)
            cards = f.sequences[key]
            if cards[0].suit != suit:
                continue
            low, high = span(cards)
            room = size - len(cards)
            below = [0] + [n for n in range(1, room + 1) if all(low - i in held for i in range(1, n + 1))]
            above = [0] + [n for n in range(1, room + 1) if all(high + i in held for i in range(1, n + 1))]
            for n_below in below:
                for n_above in above:
                    if 0 < n_below + n_above <= room:
                        picked = [*range(low - n_below, low), *range(high + 1, high + n_above + 1)]
                        if (g := group(picked, held)) is not None:
                            yield g


def in_order(runs: Iterable[MeldGroup]) -> tuple[MeldGroup, ...]:
    """Sequence groups in the order of an action: by their cards' tokens."""
    return tuple(sorted(runs, key=lambda g: [c.token for c in g.cards]))


def sequence_melds(engine: ReferenceEngine, f: Facts) -> Iterator[Meld]:
    """The listed sequence melds (see the module's documentation)."""
    if not f.melded:
        yield from _initial_melds(engine, f)
        return
    for g in sequence_groups(f):
        if sequence_group_is_legal(f, g):
            yield Meld((g,))
    yield from _going_out_in_two(engine, f)


def sequence_group_is_legal(f: Facts, g: MeldGroup) -> bool:
    """A meld of the one sequence group ``g`` (natural cards of the hand) by a side that has
    melded, judged as ``apply`` judges it (plan_sequences, then the cards left) without raising:
    meld.sequence.separate (it touches one sequence of the side at most); the sequence it starts
    or extends (meld.sequence.*: see VariantRules.sequence_fault; it holds the group's cards, so
    what apply asks of them alone, meld.sequence.naturals-only, .one-suit and .consecutive, it asks
    of the whole); then cards_left_allowed, a sequence of a canasta's size counting as a canasta
    (canasta.sequence)."""
    rules = f.rules
    cards = g.cards
    near = [seq for seq in f.sequences.values() if touches(cards, seq)]
    if len(near) > 1:
        return False  # meld.sequence.separate
    after = [*near[0], *cards] if near else list(cards)
    if rules.sequence_fault(after, new=not near) is not None:
        return False
    size = rules.canasta_min_cards
    made = len(after) >= size and not (near and len(near[0]) >= size)
    left = f.hand_size - len(cards)
    return cards_left_allowed(f, left, f.canastas + made, False, left == 0, f.wild_meld_open)


# --- a side yet to meld -------------------------------------------------------------------------
def _initial_melds(engine: ReferenceEngine, f: Facts) -> Iterator[Meld]:
    """initial.table with sequences: for each set of the hand's runs (_run_sets), the one-rank
    melds of the rest of the hand that reach the minimum (_rank_sets) or lay all of it but one card
    at most (_whole_rest), kept when no part of the action could go first."""
    runs = [(g, f.rules.count(g.cards)) for g in sequence_groups(f)]
    seen: set[Meld] = set()
    for chosen in _run_sets(f, runs):
        counted = sum(value for _, value in chosen)
        rest = _without(f, [g for g, _ in chosen])
        if counted >= f.minimum:
            layouts: Iterable[tuple[Part, ...]] = [()]
        else:
            layouts = (*_rank_sets(rest, counted), *_whole_rest(rest))
        seqs = in_order(g for g, _ in chosen)
        new_runs = _new_runs_legal(f, seqs)
        for parts in layouts:
            ranks = [p.value for p in parts if p.rank != "3"]
            total = counted + sum(ranks)
            if any(p.rank == "3" for p in parts):
                if total >= f.minimum:
                    continue  # the groups but the black threes make an initial meld first
            elif any(total - value >= f.minimum for value in ranks or [value for _, value in chosen]):
                continue  # a group not needed: laid by a later meld of the turn
            laid = Meld((*rest.groups(parts), *seqs))
            if laid not in seen and ((new_runs and _plainly_legal(rest, parts, counted)) or engine.is_legal(laid)):
                seen.add(laid)
                yield laid


def _new_runs_legal(f: Facts, runs: Sequence[MeldGroup]) -> bool:
    """The sequence groups ``runs`` of a side yet to meld are each a legal new sequence
    (VariantRules.sequence_fault) touching no other (meld.sequence.separate): as apply's
    plan_sequences judges them."""
    for i, run in enumerate(runs):
        if f.rules.sequence_fault(run.cards, new=True) is not None or any(touches(run.cards, other.cards) for other in runs[:i]):
            return False
    return True


def _plainly_legal(rest: Facts, parts: Sequence[Part], counted: int) -> bool:
    """Whether the initial meld laying the one-rank ``parts`` of the hand without its runs
    (``rest``) beside new sequences that are legal (_new_runs_legal) and count ``counted`` is legal,
    shown without the validating apply path for its plain form only: each part a legal new meld of
    a natural rank (group_is_legal: meld.min-cards, meld.min-naturals, meld.max-wilds... at most one
    a rank), no black threes (black3.meld.going-out-only), the whole counting at least the minimum
    (initial.table) where no natural meld is required, two cards or more left (turn.keep-a-card
    asks nothing more). False otherwise: apply's checks judge the action."""
    rules = rest.rules
    if rules.initial_meld_natural_meld_required:
        return False
    left = rest.hand_size - sum(p.cards for p in parts)
    if left < 2 or counted + sum(p.value for p in parts) < rest.minimum or len({p.rank for p in parts}) < len(parts):
        return False
    return all(p.rank not in ("3", WILD_MELD) and p.k and group_is_legal(rest, p.rank, p.k, p.n_wilds, True) for p in parts)


def _run_sets(f: Facts, runs: list[tuple[MeldGroup, int]]) -> Iterator[tuple[tuple[MeldGroup, int], ...]]:
    """Sets of the hand's runs laid as separate sequences (two of one suit never touch: touching,
    they are one run), added while their count is short of the minimum."""
    yield from _extend_runs(runs, f.minimum, 0, (), 0)


def _extend_runs(runs: list[tuple[MeldGroup, int]], minimum: int, start: int, chosen: tuple[tuple[MeldGroup, int], ...],
                 counted: int) -> Iterator[tuple[tuple[MeldGroup, int], ...]]:
    """_run_sets' sets adding runs from ``start`` on to the ``chosen`` ones, of count ``counted``
    (a module function, not a closure calling itself: that is a reference cycle, left for the
    garbage collector)."""
    for i in range(start, len(runs)):
        g, value = runs[i]
        if any(touches(g.cards, h.cards) for h, _ in chosen):
            continue
        picked = (*chosen, runs[i])
        yield picked
        if counted + value < minimum:
            yield from _extend_runs(runs, minimum, i + 1, picked, counted + value)


def _without(f: Facts, runs: list[MeldGroup]) -> Facts:
    """The facts of the position with the runs' cards out of the hand."""
    rest = f.state.hand.copy()
    for g in runs:
        rest.subtract(g.cards)
    view = HandView(rest, f.rules.cards_wild_ranks)
    view.wild_facts = f.state.view(f.state.turn).wild_facts  # (runs lay natural cards only: the wild cards are the hand's)
    return Facts(f.state, view)


def _rank_sets(f: Facts, counted: int) -> Iterator[tuple[Part, ...]]:
    """New melds of one rank (any legal form, at most one a rank) added to a count of ``counted``
    while it is short of the minimum, within the hand's wild cards."""
    options = _new_meld_options(f, None)
    best = [max(p.value for p in parts) for parts in options]
    reach = [sum(best[i:]) for i in range(len(options) + 1)]  # the most the ranks from i on add
    yield from _extend_ranks(f, options, reach, 0, (), counted, f.no_wilds)


def _extend_ranks(f: Facts, options: list[list[Part]], reach: list[int], index: int, chosen: tuple[Part, ...], total: int,
                  wilds: WildVector) -> Iterator[tuple[Part, ...]]:
    """_rank_sets' sets adding parts of the ranks from ``index`` on to the ``chosen`` ones (as
    _extend_runs, a module function)."""
    if total >= f.minimum:
        yield chosen
        return
    if total + reach[index] < f.minimum:
        return
    for i in range(index, len(options)):
        for part in options[i]:
            spent = tuple(a + b for a, b in zip(wilds, part.wilds, strict=True))
            if all(s <= a for s, a in zip(spent, f.wild_avail, strict=True)):
                yield from _extend_ranks(f, options, reach, i + 1, (*chosen, part), total + part.value, spent)


def _whole_rest(f: Facts) -> Iterator[tuple[Part, ...]]:
    """The hand laid in melds of one rank (black threes included), all of it or all but one card
    (any one kept), the wild cards spread over the melds in every allowed way."""
    rules = f.rules
    short = [rank for rank, cards in f.naturals.items() if len(cards) < (rules.meld_min_cards if rank == "3" else rules.meld_min_naturals)]
    if len(short) > 1:
        return  # keeping one card leaves at least one of those ranks too short to meld (it mends one of a single card)
    keeps: list[str | int | None] = [None, *f.naturals, *range(len(f.wild_kinds))]
    for keep in keeps:
        naturals = {rank: len(cards) - (keep == rank) for rank, cards in f.naturals.items()}
        avail = tuple(n - (keep == i) for i, n in enumerate(f.wild_avail))
        if f.hand_size - sum(naturals.values()) - sum(avail) > 1:
            continue  # (red threes stay in the hand)
        if any(0 < n < (rules.meld_min_cards if rank == "3" else rules.meld_min_naturals) for rank, n in naturals.items()):
            continue
        targets = [(rank, n) for rank, n in naturals.items() if n]
        for spread in _spread(f, targets, avail):
            parts = tuple(
                Part(rank, n, wilds, sum(wilds), n * f.natural_value(rank) + sum(a * b for a, b in zip(wilds, f.wild_values, strict=True)))
                for (rank, n), wilds in zip(targets, spread, strict=True)
            )
            if all(group_is_legal(f, p.rank, p.k, p.n_wilds, True) for p in parts):
                yield parts


# --- a side with melds --------------------------------------------------------------------------
def _going_out_in_two(engine: ReferenceEngine, f: Facts) -> Iterator[Meld]:
    """Going out with every card in two groups, one a sequence group, one of them a single card,
    neither legal alone (each alone would leave one card without the canastas to go out)."""
    state = f.state
    if f.hand_size < 2 or state.question == "no":
        return
    hand = list(state.hand.elements())
    if len(f.naturals) > 2 and len({c.suit for c in hand}) > 2:
        return  # no card's rest is one group: of one natural rank (+ wild cards), or of one suit
    seen: set[Meld] = set()
    for last in f.distinct:
        rest = list(hand)
        rest.remove(last)
        for g in _one_group(f, rest):
            for h in _one_group(f, [last]):
                if not (g.sequence or h.sequence) or (g.sequence and h.sequence and touches(g.cards, h.cards)):
                    continue  # (no sequence: movegen's; two touching runs are one group)
                laid = Meld((*(x for x in (g, h) if not x.sequence), *in_order(x for x in (g, h) if x.sequence)))
                if laid in seen:
                    continue
                seen.add(laid)
                if engine.is_legal(laid) and not engine.is_legal(Meld((g,))) and not engine.is_legal(Meld((h,))):
                    yield laid


def _one_group(f: Facts, cards: list[Card]) -> Iterator[MeldGroup]:
    """The groups that could lay exactly these cards: a sequence group, or a group of one rank
    (wild cards alone: on any meld of one rank of the side)."""
    rules = f.rules
    ordered = sort_cards(cards)
    if rules.sequence_cards_fault(ordered) is None:
        yield MeldGroup(ordered, None, True)
    ranks = {c.rank for c in cards if not rules.is_wild(c)}
    if len(ranks) == 1:
        yield MeldGroup(ordered)
    elif not ranks:
        yield from (MeldGroup(ordered, rank) for rank in f.melds if rank != WILD_MELD)
