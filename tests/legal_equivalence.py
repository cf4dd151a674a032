"""The equivalence up to which legal_actions() is complete (documented in canasta_reference.movegen),
written independently of the generator: canonical cards and layout, and steps of one turn."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from canasta_conformance.contract.cards import _RANK_ORDER, Card, sort_cards
from canasta_conformance.contract.model import WILD_MELD, Action, Meld, MeldGroup, Position, TakePile, meld_rank
from canasta_conformance.contract.sequences import rank_order
from canasta_reference.engine import ReferenceEngine

ORDER = {**_RANK_ORDER, WILD_MELD: len(_RANK_ORDER)}  # the wild-card meld's group comes last


def _class(card: Card) -> tuple[str, bool]:
    """Cards of one class are interchangeable (eq.suits.irrelevant; red threes are not black ones)."""
    return (card.rank, card.is_red_three)


def _canonical_cards(cards: list[Card], hand: list[Card]) -> list[Card]:
    """The same number of cards of each rank-class, taken from the hand in canonical order."""
    wanted = Counter(_class(c) for c in cards)
    out = []
    for card in hand:  # canonical order
        key = _class(card)
        if wanted[key]:
            wanted[key] -= 1
            out.append(card)
    assert not +wanted, f"cards {cards} not in hand"
    return out


def _rank_of(group: MeldGroup, wild: frozenset[str]) -> str | None:
    naturals = {c.rank for c in group.cards if c.rank not in wild}
    return naturals.pop() if len(naturals) == 1 else group.rank


def parts(groups: tuple[MeldGroup, ...], wild: frozenset[str], wild_meld: bool = False) -> dict[str, list[Card]] | None:
    """The cards laid on each rank (``wild_meld``: a group of wild cards naming no rank, or rank
    ``wild``, is the wild-card meld), or None when a group has no single rank."""
    out: dict[str, list[Card]] = {}
    for group in groups:
        naturals = {c.rank for c in group.cards if c.rank not in wild}
        if len(naturals) > 1:
            return None
        rank = naturals.pop() if naturals else group.rank
        if wild_meld and not naturals and rank in (None, WILD_MELD):
            rank = WILD_MELD
        if rank is None:
            return None
        out.setdefault(rank, []).extend(group.cards)
    return out


def _groups(by_rank: dict[str, list[Card]], hand: list[Card], wild: frozenset[str]) -> tuple[MeldGroup, ...]:
    groups = []
    for rank in sorted(by_rank, key=lambda r: ORDER[r]):
        cards = sort_cards(by_rank[rank])
        has_natural = any(c.rank not in wild for c in cards)
        groups.append(MeldGroup(cards, None if has_natural or rank == WILD_MELD else rank))
    return tuple(groups)


def _sequence_groups(runs: list[MeldGroup], position: Position, wild: frozenset[str]) -> list[MeldGroup]:
    """The cards an action lays into one sequence form one group (meld.sequence.extend): cards of a
    suit join when their ranks follow each other, directly or through a sequence of the side (laying
    4H-5H-6H and 7H is laying 4H-5H-6H-7H; 3H and 7H on the side's 4H-5H-6H are one group)."""
    side = position.melds[position.turn % position.sides]
    on_table: dict[str | None, set[int]] = {}
    for meld in side:
        if len({c.rank for c in meld if c.rank not in wild}) > 1:  # a sequence (one-rank melds hold one natural rank)
            on_table.setdefault(meld[0].suit, set()).update(rank_order(c.rank) for c in meld)
    laid = [c for g in runs for c in g.cards]
    joined: dict[tuple[str | None, int], list[Card]] = {}
    for suit in {c.suit for c in laid}:
        mine = [c for c in laid if c.suit == suit]
        orders = sorted({*on_table.get(suit, set()), *(rank_order(c.rank) for c in mine)})
        part, previous = 0, None
        component: dict[int, int] = {}
        for order in orders:
            if previous is not None and order > previous + 1:
                part += 1
            component[order] = part
            previous = order
        for c in mine:
            joined.setdefault((suit, component[rank_order(c.rank)]), []).append(c)
    return [MeldGroup(sort_cards(cards), None, True) for cards in joined.values()]


def _sequence_canonical(action: Meld, position: Position, wild: frozenset[str], wild_meld: bool) -> Action | None:
    """A meld with sequence groups (meld.sequences): suits matter in a sequence, so its cards stay as
    they are, one group for each sequence they go to (_sequence_groups), the groups in the order of
    their tokens, after the canonical form of the other groups, read from the hand without the
    sequences' cards."""
    runs = sorted(_sequence_groups([g for g in action.melds if g.sequence], position, wild), key=lambda g: [c.token for c in g.cards])
    others = tuple(g for g in action.melds if not g.sequence)
    if not others:
        return Meld(tuple(runs))
    hands = list(position.hands)
    hands[position.turn] = tuple((Counter(hands[position.turn]) - Counter(c for g in runs for c in g.cards)).elements())
    rest = canonical(Meld(others), replace(position, hands=tuple(hands)), wild, wild_meld)
    return None if not isinstance(rest, Meld) else Meld((*rest.melds, *runs))


def canonical(action: Action, position: Position, wild: frozenset[str], wild_meld: bool = False) -> Action | None:
    """The listed representative of ``action`` (None when it has no single-rank layout)."""
    hand = list(sort_cards(position.hands[position.turn]))
    if isinstance(action, Meld) and any(g.sequence for g in action.melds):
        return _sequence_canonical(action, position, wild, wild_meld)
    if isinstance(action, Meld):
        by_rank = parts(action.melds, wild, wild_meld)
        if by_rank is None:
            return None
        laid = _canonical_cards([c for cs in by_rank.values() for c in cs], hand)
        return Meld(_groups(_redistribute(by_rank, laid, wild), hand, wild))
    if isinstance(action, TakePile):
        top = position.pile[-1] if position.pile else None
        if top is None:
            return action
        by_rank = parts(action.melds, wild, wild_meld)
        if by_rank is None:
            return None
        by_rank.setdefault(top.rank, [])
        by_rank[top.rank] = list(action.cards) + by_rank[top.rank]
        laid = _canonical_cards([c for cs in by_rank.values() for c in cs], hand)
        fixed = _redistribute(by_rank, laid, wild, top.rank)
        first = sort_cards(fixed.pop(top.rank))
        return TakePile(first, _groups(fixed, hand, wild))
    return action


def _redistribute(by_rank: dict[str, list[Card]], laid: list[Card], wild: frozenset[str], first: str | None = None) -> dict[str, list[Card]]:
    """Give each rank the canonical cards of the same classes it had: the wild cards of a kind go
    in canonical order to the take's top-card group first, then to the groups in rank order (the
    wild-card meld last)."""
    pool = list(laid)
    out: dict[str, list[Card]] = {}
    for rank in sorted(by_rank, key=lambda r: (r != first, ORDER[r])):
        cards = by_rank[rank]
        mine = []
        for card in sorted(cards, key=lambda c: (c.rank, c.is_red_three)):
            for i, candidate in enumerate(pool):
                if (candidate.rank, candidate.is_red_three) == (card.rank, card.is_red_three):
                    mine.append(pool.pop(i))
                    break
        out[rank] = mine
    return out


def _classes(group: MeldGroup) -> Counter[tuple[str, bool]]:
    return Counter((c.rank, c.is_red_three) for c in group.cards)


def _by_rank(groups: tuple[MeldGroup, ...], wild: frozenset[str]) -> dict[str, MeldGroup]:
    """The groups by rank (a sequence group by its cards: it goes to one sequence, suits and all)."""
    return {"seq " + " ".join(c.token for c in g.cards) if g.sequence else meld_rank(g.cards, wild) or g.rank or WILD_MELD: g for g in groups}


_PROBES: dict[int, ReferenceEngine] = {}


def _probe(spec) -> ReferenceEngine:  # type: ignore[no-untyped-def]
    """One engine per spec to load positions into (building one declares its capabilities again)."""
    if id(spec) not in _PROBES:
        _PROBES[id(spec)] = ReferenceEngine(spec)
    return _PROBES[id(spec)]


def covered(position: Position, action: Action, spec, depth: int = 0, listed: list[Action] | None = None) -> bool:  # type: ignore[no-untyped-def]
    """``action`` (accepted in ``position``) is listed up to the equivalence: its canonical form is
    listed, or a listed action lays some of its ranks (the same cards by class) first and the rest,
    laid next in the same turn, is accepted and covered in turn. ``listed``: the engine's list in
    ``position`` when the caller has it already (else it is asked for)."""
    probe = _probe(spec)
    rules = spec.variant_rules(position.variant, dict(position.options))
    wild, wild_meld = rules.cards_wild_ranks, rules.meld_wild_only_melds
    if listed is None:
        probe.load(position)
        listed = probe.legal_actions()
    canon = canonical(action, position, wild, wild_meld)
    if canon is None or canon in listed:
        return canon is not None
    if not isinstance(canon, (Meld, TakePile)) or depth > 8:
        return False
    mine = _by_rank(canon.melds, wild)
    if isinstance(canon, Meld):
        firsts = [a for a in listed if isinstance(a, Meld) and len(a.melds) < len(mine)]
    else:
        firsts = [a for a in listed if isinstance(a, TakePile) and a.cards == canon.cards and len(a.melds) < len(mine)]
    for first in firsts:
        first_parts = _by_rank(first.melds, wild)
        if any(r not in mine or _classes(mine[r]) != _classes(g) for r, g in first_parts.items()):
            continue
        probe.load(position)
        if not probe.apply(first).accepted:
            return False
        after = probe.observe()
        rest = Meld(tuple(g for r, g in mine.items() if r not in first_parts))
        remainder = canonical(rest, after, wild, wild_meld)
        if remainder is not None and probe.apply(remainder).accepted and covered(after, remainder, spec, depth + 1):
            return True
    return False
