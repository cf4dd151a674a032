"""Melds: what a group of cards must be, and what a side's meld may become (rules meld.*,
black3.meld.*, canasta.*). Every check raises :class:`Illegal` naming its rule."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter

from canasta_conformance.contract.cards import Card, format_cards
from canasta_conformance.contract.model import WILD_MELD, MeldGroup
from canasta_conformance.contract.variant_rules import VariantRules

from .errors import Illegal, Malformed
from .sequences import plan_sequences


@dataclass(slots=True)
class MeldPlan:
    """The side's melds after an action, and what the action laid down."""

    result: dict[str, list[Card]]  # every rank the action touches -> the meld afterwards
    new_ranks: frozenset[str]  # ranks started by this action
    laid: tuple[Card, ...]  # every card the action takes from the hand (and the pile's top card)
    #: sequences (meld.sequences) extended downwards: (key before, key after)
    renamed: tuple[tuple[str, str], ...] = ()


_RANK_OF = attrgetter("rank")
_CARDS_OF = attrgetter("cards")


def group_rank(
    group: MeldGroup, rules: VariantRules, side_melds: Mapping[str, list[Card]] | set[str], others: Sequence[Mapping[str, list[Card]]]
) -> str:
    """meld.same-rank, meld.no-wild-only: the rank a group is laid on. A group without a natural
    card names a meld of the side: one on the table, or one started in the same action (``others``:
    the other sides' melds, for meld.no-opponent)."""
    naturals: set[str] = set(map(_RANK_OF, group.cards)) - rules.cards_wild_ranks
    if len(naturals) > 1:
        raise Illegal("meld.same-rank", f"[{format_cards(group.cards)}] mixes ranks {', '.join(sorted(naturals))}")
    if naturals:
        rank = naturals.pop()
        if group.rank is not None and group.rank != rank:
            raise Illegal("meld.same-rank", f"[{format_cards(group.cards)}] is of rank {rank}, not {group.rank}")
        return rank
    if rules.meld_wild_only_melds and group.rank in (None, WILD_MELD):
        return WILD_MELD  # modern.wild-meld.allowed: the side's wild-card meld, new or added to
    if group.rank is None or group.rank not in side_melds:
        if group.rank is not None and any(group.rank in melds for melds in others):
            raise Illegal("meld.no-opponent", f"wild cards cannot be added to the opponents' meld of {group.rank}")
        raise Illegal("meld.no-wild-only", f"[{format_cards(group.cards)}] has no natural card and there is no meld of the side to add it to")
    return group.rank


def check_threes(rank: str, cards: Sequence[Card], rules: VariantRules) -> None:
    """meld.no-threes, black3.meld.no-wild: threes are melded only as black threes, without wild cards."""
    if rank != "3":
        return
    if any(c.is_red_three for c in cards):
        raise Illegal("red3.never-in-hand", "red threes are never melded")
    if any(rules.is_wild(c) for c in cards):
        raise Illegal("black3.meld.no-wild", f"a meld of black threes takes no wild card: [{format_cards(cards)}]")


def check_new_meld(rank: str, cards: Sequence[Card], rules: VariantRules) -> None:
    """meld.min-cards, meld.min-naturals, then the wild-card limits, for a meld started now."""
    if (fault := rules.meld_shape_fault(cards)) is not None:
        raise Illegal(*fault)


def check_wild_limits(cards: Sequence[Card], rules: VariantRules, rule: str) -> None:
    """meld.max-wilds (or meld.merge-wild-limit for additions), and meld.wild-ratio when the
    variant forbids more wild cards than naturals."""
    if (fault := rules.wild_limit_fault(cards, rule)) is not None:
        raise Illegal(*fault)


def plan_melds(
    groups: Sequence[MeldGroup],
    rules: VariantRules,
    side_melds: Mapping[str, list[Card]],
    others: Sequence[Mapping[str, list[Card]]],
    extra: Sequence[tuple[str, Card]] = (),
    *,
    initial: bool = False,
    closed_ranks: frozenset[str] = frozenset(),
) -> MeldPlan:
    """Validate groups laid at once; groups of one rank merge into one meld (meld.one-per-rank).

    ``others`` are the other sides' melds; ``extra`` are cards joining a rank's meld from elsewhere
    (the pile's top card); ``initial`` says the action makes the side's initial meld;
    ``closed_ranks`` are the ranks in which some side has completed a canasta (for
    modern.meld.closed-rank)."""
    runs: list[MeldGroup] = []
    of_a_rank: list[MeldGroup] = []
    for group in groups:  # meld.sequences: sequence groups are planned apart from the melds of one rank
        (runs if group.sequence else of_a_rank).append(group)
    by_rank: dict[str, list[Card]] = {}
    for rank, card in extra:
        by_rank.setdefault(rank, []).append(card)
    if not all(map(_CARDS_OF, of_a_rank)):
        raise Malformed("a meld group holds no card")
    wild = rules.cards_wild_ranks
    wild_only: list[MeldGroup] = []
    for group in of_a_rank:
        if wild.issuperset(map(_RANK_OF, group.cards)):
            wild_only.append(group)  # named after the natural groups: it may join one laid now
        else:
            by_rank.setdefault(group_rank(group, rules, side_melds, others), []).extend(group.cards)
    if wild_only:
        known = {*side_melds, *by_rank}
        for group in wild_only:
            by_rank.setdefault(group_rank(group, rules, known, others), []).extend(group.cards)
    result: dict[str, list[Card]] = {}
    new_ranks = set()
    for rank, cards in by_rank.items():
        check_threes(rank, cards, rules)
        existing = side_melds.get(rank)
        if rank == WILD_MELD:
            merged = [*(existing or ()), *cards]
            if existing is None:
                check_min_cards(merged, rules)
                new_ranks.add(rank)
            check_max_cards(merged, rules)
            result[rank] = merged
            continue
        if existing is None:
            check_new_meld(rank, cards, rules)
            new_ranks.add(rank)
            result[rank] = list(cards)
        else:
            merged = [*existing, *cards]
            if not wild.isdisjoint(map(_RANK_OF, cards)):  # natural cards never break a wild-card limit (a
                check_wild_limits(merged, rules, "meld.merge-wild-limit")  # pooled three-player meld may exceed it)
            result[rank] = merged
        check_max_cards(result[rank], rules)
        check_closed_rank(rank, closed_ranks, rules)
        check_modern_wilds(rank, existing or [], cards, rules, initial)
    check_wild_meld_takes_wilds(side_melds, result, by_rank, rules)
    laid = tuple(chain.from_iterable(by_rank.values()))
    if not runs:
        return MeldPlan(result, frozenset(new_ranks), laid)
    if any(not group.cards for group in runs):
        raise Malformed("a meld group holds no card")
    seq = plan_sequences(runs, rules, side_melds)
    result.update(seq.result)
    laid += tuple(c for group in runs for c in group.cards)
    return MeldPlan(result, frozenset(new_ranks | seq.new), laid, tuple(seq.renamed))


def listed_plan(
    groups: Sequence[MeldGroup], rules: VariantRules, side_melds: Mapping[str, list[Card]], top: Card | None = None,
) -> MeldPlan | None:
    """Where the groups of an action legal_actions() listed go, as :func:`plan_melds` plans them
    (the same melds, cards in the same order) but checking nothing: the generator proved the action
    legal. ``top``: the pile's top card, joining its rank's meld first (a take). None when a group
    is a sequence (meld.sequences: :func:`plan_melds` plans those)."""
    wild = rules.cards_wild_ranks
    by_rank: dict[str, list[Card]] = {} if top is None else {top.rank: [top]}
    wild_only: list[MeldGroup] = []
    for group in groups:
        if group.sequence:
            return None
        rank = ""  # (the group's natural rank: none for wild cards alone)
        for c in group.cards:
            if c.rank not in wild:
                rank = c.rank
                break
        if not rank:
            wild_only.append(group)  # (named by its tag, or the side's wild-card meld: after the natural groups)
        elif rank in by_rank:
            by_rank[rank] += group.cards
        else:
            by_rank[rank] = list(group.cards)
    for group in wild_only:
        by_rank.setdefault(WILD_MELD if group.rank is None else group.rank, []).extend(group.cards)
    result: dict[str, list[Card]] = {}
    new_ranks = set()
    for rank, cards in by_rank.items():
        existing = side_melds.get(rank)
        if existing is None:
            new_ranks.add(rank)
            result[rank] = cards
        else:
            result[rank] = [*existing, *cards]
    return MeldPlan(result, frozenset(new_ranks), tuple(chain.from_iterable(by_rank.values())))


def check_min_cards(cards: Sequence[Card], rules: VariantRules) -> None:
    """meld.min-cards (also for a new wild-card meld)."""
    if len(cards) < rules.meld_min_cards:
        raise Illegal("meld.min-cards", f"a new meld needs at least {rules.meld_min_cards} cards: [{format_cards(cards)}]")


def check_max_cards(cards: Sequence[Card], rules: VariantRules) -> None:
    """modern.meld.max-seven: a meld holds at most meld.max_cards cards."""
    if rules.meld_max_cards is not None and len(cards) > rules.meld_max_cards:
        raise Illegal("modern.meld.max-seven", f"a meld holds at most {rules.meld_max_cards} cards: [{format_cards(cards)}] has {len(cards)}")


def check_closed_rank(rank: str, closed_ranks: frozenset[str], rules: VariantRules) -> None:
    """modern.meld.closed-rank: no card joins a rank in which a canasta has been completed."""
    if rules.meld_closed_rank_after_canasta and rank in closed_ranks:
        raise Illegal("modern.meld.closed-rank", f"a canasta of {rank} has been completed: the rank is closed")


def check_modern_wilds(rank: str, existing: Sequence[Card], laid: Sequence[Card], rules: VariantRules, initial: bool) -> None:
    """modern.sevens.no-wilds, modern.aces.wilds-initial-only and modern.meld.wild-after-five: where
    wild cards laid in this action may go."""
    if not (rules.meld_sevens_no_wilds or rules.meld_aces_wilds_only_in_initial_meld or rules.meld_wild_add_min_naturals is not None):
        return  # (the variant has none of these rules)
    if not any(rules.is_wild(c) for c in laid):
        return
    if rules.meld_sevens_no_wilds and rank == "7":
        raise Illegal("modern.sevens.no-wilds", "a meld of sevens takes no wild card")
    if rules.meld_aces_wilds_only_in_initial_meld and rank == "A" and not initial:
        raise Illegal("modern.aces.wilds-initial-only", "aces take wild cards only in the side's initial meld")
    need = rules.meld_wild_add_min_naturals
    naturals = sum(1 for c in (*existing, *laid) if not rules.is_wild(c))
    if need is not None and not initial and naturals < need:
        raise Illegal("modern.meld.wild-after-five", f"after the initial meld a wild card joins only a meld of {need} natural cards; this one has {naturals}")


def check_wild_meld_takes_wilds(
    side_melds: Mapping[str, list[Card]], result: Mapping[str, list[Card]], by_rank: Mapping[str, list[Card]], rules: VariantRules
) -> None:
    """modern.wild-meld.blocks-wilds: while the side's wild-card meld is not a canasta, no wild card
    goes into another meld."""
    if not rules.meld_wild_meld_blocks_wilds:
        return
    wild_meld = result.get(WILD_MELD, side_melds.get(WILD_MELD))
    if wild_meld is None or len(wild_meld) >= rules.canasta_min_cards:
        return
    for rank, cards in by_rank.items():
        if rank != WILD_MELD and any(rules.is_wild(c) for c in cards):
            raise Illegal("modern.wild-meld.blocks-wilds", "the side's wild-card meld is open: every wild card goes to it")


def tally(cards: Iterable[Card]) -> dict[Card, int]:
    """The cards as a multiset (card -> how many)."""
    wanted: dict[Card, int] = {}
    for card in cards:
        wanted[card] = wanted.get(card, 0) + 1
    return wanted


def check_in_hand(hand: Mapping[Card, int], cards: Iterable[Card]) -> dict[Card, int]:
    """The cards as a multiset (card -> how many); Malformed if the hand does not hold them all."""
    wanted = tally(cards)
    for card, n in wanted.items():
        if hand.get(card, 0) < n:
            missing = [c for c, k in wanted.items() for _ in range(k - hand.get(c, 0))]
            raise Malformed(f"the hand does not hold {format_cards(missing)}")
    return wanted


def check_card_in_hand(hand: Counter[Card], card: Card) -> None:
    """One card (a discard): Malformed if the hand does not hold it (as check_in_hand says)."""
    if hand.get(card, 0) < 1:
        raise Malformed(f"the hand does not hold {card.token}")


def count(cards: Iterable[Card], rules: VariantRules) -> int:
    return rules.count(cards)

