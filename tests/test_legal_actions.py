"""legal_actions() is exact: every listed action is accepted, every accepted action is listed (up to
the equivalence documented in canasta_reference.movegen), and the list is never empty while the
hand is live, in every supported variant. The positions are reached by random walks."""

from __future__ import annotations

import copy
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from canasta_conformance.contract.cards import Card, cards, full_deck, sort_cards
from canasta_conformance.contract.engine_protocol import DealSetup
from canasta_conformance.contract.model import (
    SPECIAL_HAND_KINDS,
    Action,
    Answer,
    Ask,
    Decline,
    Discard,
    Draw,
    EndTurn,
    Meld,
    MeldGroup,
    Position,
    SpecialHand,
    TakePile,
)
from canasta_conformance.contract.spec import load_spec
from canasta_reference.engine import ReferenceEngine
from canasta_reference.penalties import PenaltyCommit
from legal_equivalence import covered
from players import EngineMeldingPlayer

SPEC = load_spec()
SUPPORTED = ReferenceEngine(SPEC).capabilities().variants  # every variant the engine plays, Modern American included
#: the engine each checked position is loaded into (covered() loads positions into its own)
PROBE = ReferenceEngine(SPEC)


def walk(variant: str, seed: int, steps: int, options: dict[str, object] | None = None, scores: tuple[int, ...] = ()) -> ReferenceEngine:
    """A reachable position: a fresh deal, then random listed actions (the question "may I go
    out?" is answered yes more often, to reach the positions it binds; half the time the melding
    self-play player chooses, to reach the positions with canastas and going out)."""
    engine = ReferenceEngine(SPEC)
    options = options or {}
    rules = engine.rules_for(variant, options)
    rng = random.Random(seed)
    deck = full_deck(rules.deck_packs, rules.deck_jokers)
    rng.shuffle(deck)
    first = rng.randrange(rules.players) if rules.deal_first_player == "random" else None
    engine.deal(DealSetup(variant, options, seed % rules.players, tuple(deck), scores[:rules.sides], first_player=first))
    for _ in range(steps):
        if engine.state is None or engine.state.phase == "over":
            break
        assert engine.apply(copy.copy(choose(engine, rng))).accepted  # a copy: the very objects listed are committed unchecked; a copy is checked
    return engine


def choose(engine: ReferenceEngine, rng: random.Random) -> Action:
    listed = engine.legal_actions()
    if Answer(True) in listed and rng.random() < 0.8:
        return Answer(True)
    return EngineMeldingPlayer(rng).choose(engine) if rng.random() < 0.5 else rng.choice(listed)


def candidates(position: Position, listed: list[Action], rng: random.Random, wild: frozenset[str], count: int = 60) -> list[Action]:
    """Actions to try: every simple action, every special hand with every discard, random melds
    and takes of the hand's cards, and near misses of the listed melds and takes (a card more, a
    card less, a card swapped, a group split, a group of the hand more, a group less)."""
    hand = list(sort_cards(position.hands[position.turn]))
    side_ranks: list[str | None] = sorted({c.rank for meld in position.melds[position.turn % position.sides] for c in meld if c.rank not in wild})
    if SPEC.variant_rules(position.variant, dict(position.options)).meld_wild_only_melds:
        side_ranks.append(None)  # a group of wild cards naming no rank: the wild-card meld
    out: list[Action] = [Draw(), Decline(), Ask(), Answer(True), Answer(False), TakePile(()), EndTurn()]
    out += [Discard(c) for c in set(hand)]
    out += [SpecialHand(kind, c) for kind in SPECIAL_HAND_KINDS for c in set(hand)]

    def sample(n: int) -> list[Card]:
        return rng.sample(hand, min(n, len(hand)))

    def groups(cards: list[Card]) -> tuple[MeldGroup, ...]:
        by_rank: dict[str, list[Card]] = {}
        for c in cards:
            by_rank.setdefault(c.rank, []).append(c)
        wilds = [c for r in list(by_rank) if r in wild for c in by_rank.pop(r)]
        out_groups = [list(cs) for cs in by_rank.values()]
        for w in wilds:
            if out_groups and rng.random() < 0.7:
                rng.choice(out_groups).append(w)
            else:
                out_groups.append([w])
        return tuple(
            MeldGroup(sort_cards(g), rng.choice(side_ranks) if side_ranks and all(c.rank in wild for c in g) else None)
            for g in out_groups
        )

    for _ in range(count // 3):
        out.append(Meld(groups(sample(rng.randint(1, 9)))))
        top = position.pile[-1] if position.pile else None
        same = [c for c in hand if top is not None and c.rank == top.rank]
        pick = rng.sample(same, rng.randint(0, len(same))) + [c for c in sample(3) if c.rank in wild][: rng.randint(0, 2)]
        extras = groups(sample(rng.randint(0, 7))) if rng.random() < 0.5 else ()
        out.append(TakePile(sort_cards(pick), extras))
    for action in rng.sample(listed, min(len(listed), count // 3)):
        if isinstance(action, Meld):
            cards = [c for g in action.melds for c in g.cards]
        elif isinstance(action, TakePile):
            cards = [*action.cards, *(c for g in action.melds for c in g.cards)]
        else:
            continue
        change = rng.choice(("add", "drop", "swap", "split", "group", "ungroup"))
        if isinstance(action, Meld) and change in ("group", "ungroup"):
            if change == "ungroup" and len(action.melds) > 1:
                out.append(Meld(tuple(g for i, g in enumerate(action.melds) if i != rng.randrange(len(action.melds)))))
                continue
            unused = list((Counter(hand) - Counter(cards)).elements())
            by_rank: dict[str, list[Card]] = {}
            for c in unused:
                by_rank.setdefault("*" if c.rank in wild else c.rank, []).append(c)
            if by_rank:
                rank = rng.choice(sorted(by_rank))
                extra = by_rank[rank] + (by_rank.get("*", [])[: rng.randint(0, 2)] if rank != "*" else [])
                out.append(Meld((*action.melds, MeldGroup(sort_cards(extra)))))
            continue
        if change in ("add", "swap") and hand:
            cards = [*cards, rng.choice(hand)]
        if change in ("drop", "swap") and cards:
            cards.pop(rng.randrange(len(cards)))
        if isinstance(action, Meld):
            if change == "split" and len(action.melds[0].cards) > 1:
                first = action.melds[0]
                out.append(Meld((MeldGroup(first.cards[:1]), MeldGroup(first.cards[1:]), *action.melds[1:])))
            elif cards:
                out.append(Meld(groups(cards)))
        else:
            top_rank = position.pile[-1].rank
            mine = [c for c in cards if c.rank == top_rank or (c.rank in wild and rng.random() < 0.5)]
            rest = [c for c in cards if c not in mine]
            out.append(TakePile(sort_cards(mine), groups(rest) if rest else ()))
    if SPEC.variant_rules(position.variant, dict(position.options)).meld_sequences:
        out += sequence_candidates(position, listed, rng, count // 3)
    return out


def sequence_candidates(position: Position, listed: list[Action], rng: random.Random, count: int) -> list[Action]:
    """meld.sequences: runs of the hand's cards of one suit (some with a wild card, a three, a
    card of another suit, a gap, a rank twice); runs with groups of one rank of the rest of the hand
    (all of it, all but one card, some ranks: initial melds needing both, going out); the whole hand
    in two groups, one a single card (going out with a sequence and a card at once); and near misses
    of the listed sequence melds (a card of the suit more or less, one of another suit, a group of
    one rank added, the run split in two groups)."""
    hand = list(sort_cards(position.hands[position.turn]))
    order = "456789TJQKA"
    out: list[Action] = []
    if not hand:
        return out
    side_ranks = sorted({c.rank for meld in position.melds[position.turn % position.sides] for c in meld if c.rank not in "23"})
    for _ in range(count):
        suit = rng.choice("CDHS")
        start = rng.randrange(len(order))
        length = rng.randint(1, 8)
        wanted = [Card(r, suit) for r in order[start:start + length]]
        cards = [c for c in wanted if c in hand] or rng.sample(hand, 1)
        spoil = rng.random()
        if spoil < 0.15:
            cards.append(rng.choice(hand))
        elif spoil < 0.3 and len(cards) > 2:
            cards.pop(rng.randrange(1, len(cards) - 1))
        out.append(Meld((MeldGroup(sort_cards(cards), None, True),)))
    wild = SPEC.variant_rules(position.variant, dict(position.options)).cards_wild_ranks
    out += [_runs_with_ranks(hand, rng, wild) for _ in range(count)]
    out += [_in_two(hand, rng, wild, side_ranks) for _ in range(count // 3)]
    for action in listed:
        if not isinstance(action, Meld) or not any(g.sequence for g in action.melds) or rng.random() < 0.5:
            continue
        groups = list(action.melds)
        index = next(i for i, g in enumerate(groups) if g.sequence)
        cards = list(groups[index].cards)
        change = rng.choice(("add", "drop", "swap", "rank", "pile", "split"))
        if change == "add":
            cards.append(rng.choice(hand))
        elif change == "drop" and len(cards) > 1:
            cards.pop(rng.randrange(len(cards)))
        elif change == "swap":
            cards[rng.randrange(len(cards))] = rng.choice(hand)
        elif change == "split" and len(cards) > 1:  # two groups of one run: one sequence
            cut = rng.randrange(1, len(cards))
            groups[index:index + 1] = [MeldGroup(sort_cards(cards[:cut]), None, True), MeldGroup(sort_cards(cards[cut:]), None, True)]
            out.append(Meld(tuple(groups)))
            continue
        elif change == "rank":
            extra = [c for c in hand if c not in cards]
            if extra:
                rank = rng.choice(extra).rank
                groups.append(MeldGroup(sort_cards([c for c in extra if c.rank == rank])))
        if change == "pile" and position.pile:
            out.append(TakePile((), (MeldGroup(sort_cards(cards), None, True),)))
            continue
        groups[index] = MeldGroup(sort_cards(cards), None, True)
        out.append(Meld(tuple(groups)))
    return out


def _runs_with_ranks(hand: list[Card], rng: random.Random, wild: frozenset[str]) -> Meld:
    """One to three runs of the hand's cards of one suit (three to seven long, or shorter), with
    groups of one rank of the rest of the hand: all of it, all but one card, or some of its ranks
    (the wild cards spread over them); the one-rank groups take the cards the runs left, whatever
    their suits (the suits a sequence of the same action depends on)."""
    order = "456789TJQKA"
    rest = Counter(hand)
    groups: list[MeldGroup] = []
    for _ in range(rng.randint(1, 3)):
        starts = [c for c in rest.elements() if c.rank in order]
        if not starts:
            break
        first = rng.choice(starts)
        run = [first]
        for rank in order[order.index(first.rank) + 1:order.index(first.rank) + rng.randint(3, 7)]:
            if not rest[Card(rank, first.suit)]:
                break
            run.append(Card(rank, first.suit))
        rest -= Counter(run)
        groups.append(MeldGroup(sort_cards(run), None, True))
    left = sort_cards(list(rest.elements()))
    keep = rng.choice(("all", "one", "some"))
    if keep == "one" and left:
        drop = rng.randrange(len(left))
        left = tuple(c for i, c in enumerate(left) if i != drop)
    by_rank: dict[str, list[Card]] = {}
    wilds = []
    for c in left:
        if c.rank in wild:
            wilds.append(c)
        else:
            by_rank.setdefault(c.rank, []).append(c)
    ranks = [r for r in by_rank if keep != "some" or rng.random() < 0.5]
    for w in wilds:
        if ranks and (keep != "some" or rng.random() < 0.5):
            by_rank[rng.choice(ranks)].append(w)
    return Meld((*(MeldGroup(sort_cards(by_rank[r])) for r in ranks), *groups))


def _in_two(hand: list[Card], rng: random.Random, wild: frozenset[str], side_ranks: list[str]) -> Meld:
    """Every card in two groups, one of them a single card, either a sequence group (going out with
    a sequence and a card that goes elsewhere, or the other way round)."""
    last = rng.choice(hand)
    rest = list(hand)
    rest.remove(last)

    def group(cards: list[Card], sequence: bool) -> MeldGroup:
        if sequence:
            return MeldGroup(sort_cards(cards), None, True)
        naturals = [c for c in cards if c.rank not in wild]
        return MeldGroup(sort_cards(cards), None if naturals or not side_ranks else rng.choice(side_ranks))

    first = rng.random() < 0.5
    return Meld((group(rest, first), group([last], not first or rng.random() < 0.3))) if rest else Meld((group([last], True),))


def check_position(engine: ReferenceEngine, rng: random.Random) -> int:
    """Check one position; return how many candidate actions the engine accepted."""
    position = engine.observe()
    listed = engine.legal_actions()
    if position.phase == "over":
        assert listed == []
        return 0
    assert listed, f"no legal action in a live position: {position.to_json()}"
    assert len(set(listed)) == len(listed), "an action is listed twice"
    # one load for every candidate: planning an action (what check() and apply() decide) changes
    # nothing, which the last assertion verifies (loading validates the whole position: loading it
    # again for each candidate was most of the time of this check)
    probe = PROBE
    probe.load(position)
    for action in listed:
        outcome, commit = probe._plan(action)
        assert outcome.accepted and not isinstance(commit, PenaltyCommit), f"{action} listed but {outcome}"
    wild = engine.state.rules.cards_wild_ranks  # type: ignore[union-attr]
    accepted = 0
    for action in candidates(position, listed, rng, wild):
        outcome, commit = probe._plan(action)
        # under table penalties (penalty.table_penalties) apply also accepts some illegal actions,
        # to penalise them: those are irregularities, not legal actions, and are not listed
        if outcome.accepted and not isinstance(commit, PenaltyCommit):
            accepted += 1
            assert covered(position, action, SPEC, listed=listed), f"{action} is accepted but not listed: {position.to_json()}"
    assert probe.observe() == position, "planning the candidates changed the position"
    return accepted


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(SUPPORTED), seed=st.integers(0, 10**6), steps=st.integers(0, 260))
def test_the_list_is_exactly_the_legal_actions(variant, seed, steps):
    engine = walk(variant, seed, steps)
    check_position(engine, random.Random(seed))


def test_every_supported_variant_is_walked_to_its_end_with_exact_lists():
    """Deterministic companion of the property test: a whole hand of every variant, every position
    checked, and near misses accepted at least somewhere (so the completeness check is not vacuous)."""
    accepted = 0
    for variant in SUPPORTED:
        engine = walk(variant, 11, 0)
        rng = random.Random(variant)
        steps = 0
        while engine.state is not None and engine.state.phase != "over" and steps < 200:
            accepted += check_position(engine, rng)
            assert engine.apply(copy.copy(choose(engine, rng))).accepted  # a copy: the very objects listed are committed unchecked; a copy is checked
            steps += 1
    assert accepted > 100


def test_a_partner_yes_with_two_canastas_to_make_lists_the_going_out_meld():
    """Six players (two canastas to go out), partner said yes: the player can go out only by laying
    both cards at once, each completing a canasta. Discarding is illegal (the yes binds), each card
    alone would leave one card without the two canastas: the list used to be empty here."""
    position = Position.from_json({
        "variant": "classic-6p", "turn": 0, "phase": "play", "hands": [["9C", "5D"], [], [], [], [], []],
        "melds": [[["9C", "9D", "9H", "9S", "9C", "9D"], ["5C", "5D", "5H", "5S", "5C", "2C"]], []],
        "pile": ["4C"], "stock": ["AC", "AD"], "facts": {"melded_seats": [0, 2, 4], "question": "yes"},
    })
    engine = ReferenceEngine(SPEC)
    engine.load(position)
    going_out = Meld((MeldGroup((Card("9", "C"),)), MeldGroup((Card("5", "D"),))))
    assert engine.legal_actions() == [going_out]
    assert not engine.check(Discard(Card("9", "C"))).accepted
    assert engine.apply(going_out).accepted
    assert engine.observe().ended is not None and engine.observe().ended.reason == "went_out"


def test_the_list_is_in_the_same_order_after_the_position_is_reloaded():
    # a seeded driver picking by index must make the same choice in a live game and in the same
    # position loaded from observe(): the side laid its nines, then its kings; the wild card's
    # additions are listed in rank order either way
    engine = ReferenceEngine(SPEC)
    engine.load(Position.from_json({
        "turn": 0, "phase": "play", "facts": {"melded_seats": [0]},
        "hands": [["KS", "KS", "KH", "2C", "5H", "6D"], ["4C"], ["4D"], ["4H"]],
        "melds": [[["9C", "9D", "9H"]], []], "pile": ["8S"], "stock": ["7C", "7D"],
    }))
    assert engine.apply(Meld((MeldGroup(tuple(cards("KS KS KH")), "K"),))).accepted
    reloaded = ReferenceEngine(SPEC)
    reloaded.load(engine.observe())
    assert engine.legal_actions() == reloaded.legal_actions()
    assert [a.melds[0].rank for a in engine.legal_actions() if isinstance(a, Meld)] == ["K", "9"]


def test_the_engines_tables_never_change_a_list():
    """The listing keeps tables across positions (a rank's melds, a melded side's takes, keyed by the
    facts they depend on). A key missing a fact would give one position the list of another: every
    position of a hand of every variant, listed with the tables that hands of every variant filled,
    lists the same again on emptied tables."""
    from canasta_reference import memo

    listed: list[tuple[Position, list[Action]]] = []
    # scores: the sides' initial-meld minimums differ; Modern American (closed ranks, seven-card
    # melds, the wild-card meld) is played longer
    plays = [(v, 5, s) for v in (*SUPPORTED, "canasta-palace") for s in ((), (-50, 1600, 3100))]
    plays += [("modern-american", seed, ()) for seed in range(6, 12)]
    for variant, seed, scores in plays:
        options: dict[str, object] = {"meld.sequences": True} if variant == "canasta-palace" else {}
        engine = walk(variant, seed, 0, options, scores)
        rng = random.Random(variant)
        while engine.state is not None and engine.state.phase != "over":
            listed.append((engine.observe(), engine.legal_actions()))
            assert engine.apply(copy.copy(choose(engine, rng))).accepted  # a copy: the very objects listed are committed unchecked; a copy is checked
    assert len(listed) > 1000
    fresh = ReferenceEngine(SPEC)
    for position, warm in listed:
        memo.clear_all()
        fresh.load(position)
        assert fresh.legal_actions() == warm, position.to_json()


def _eights_twins(phase: str, melded_seats: list[int], hand: list[str], pile: list[str], variant: str = "modern-american",
                  options: dict[str, object] | None = None, scores: tuple[int, int] = (0, 0)) -> list[Position]:
    """One position (Modern American unless said) twice: the opponents' meld of eights six cards
    (open), then seven (a canasta: modern.meld.closed-rank closes eights to both sides). The hand
    is large enough that the listing keeps the eights' lists in its tables."""
    twins = []
    for opponents_eights in (["8C", "8C", "8D", "8D", "8H", "2C"], ["8C", "8C", "8D", "8D", "8H", "2C", "JK"]):
        twins.append(Position.from_json({
            "variant": variant, "options": options or {}, "turn": 0, "phase": phase,
            "hands": [hand, ["4C", "4D"], ["6C", "TD"], ["JC", "JD"]],
            "melds": [[["QC", "QD", "QH"]] if 0 in melded_seats else [], [opponents_eights]],
            "pile": pile, "stock": ["QS", "TS", "5S", "5H", "6S", "6H", "4S", "4H", "9S", "9H"],
            "scores": list(scores), "facts": {"melded_seats": melded_seats},
        }))
    return twins


def test_the_tables_tell_an_open_rank_from_a_closed_one():
    """The tables' keys hold whether the rank is closed (modern.meld.closed-rank): positions that
    differ only in that list differently, whichever came first, for a side's melds, an unmelded
    side's initial melds and the takes of the pile. (The random walks of the test above rarely reach
    a closed rank whose list the key alone decides.)"""
    from canasta_reference import memo

    hand = ["8H", "8S", "8S", "5C", "6D", "9C", "TD", "KS", "KH", "KD", "AS", "AH", "AD", "4C"]
    cases = [
        ("melds of a melded side", _eights_twins("play", [0, 1], hand, ["4S"])),
        ("initial melds", _eights_twins("play", [1], hand, ["4S"])),
        ("takes", _eights_twins("draw", [0, 1], hand[1:], ["5D", "8H"])),
        # a rule set whose initial meld is listed rank by rank (Modern American's is listed whole);
        # a side below zero, whose minimum the eights alone reach
        ("initial melds, Classic with closed ranks",
         _eights_twins("play", [1], hand, ["4S"], "classic", {"meld.closed_rank_after_canasta": True}, (-100, 0))),
    ]
    engine, fresh = ReferenceEngine(SPEC), ReferenceEngine(SPEC)
    for name, (open_rank, closed_rank) in cases:
        for first, second in ((open_rank, closed_rank), (closed_rank, open_rank)):
            memo.clear_all()
            engine.load(first)
            engine.legal_actions()
            engine.load(second)
            warm = engine.legal_actions()
            memo.clear_all()
            fresh.load(second)
            assert warm == fresh.legal_actions(), name
        # the twins differ where the key decides: eights are listed only while open
        engine.load(open_rank)
        assert any("8" in _ranks(a) for a in engine.legal_actions() if isinstance(a, (Meld, TakePile))), name
        engine.load(closed_rank)
        assert not any("8" in _ranks(a) for a in engine.legal_actions() if isinstance(a, (Meld, TakePile))), name


def _ranks(action: Meld | TakePile) -> set[str]:
    """The ranks of the hand's cards an action lays."""
    laid = [c for g in action.melds for c in g.cards]
    return {c.rank for c in (*laid, *action.cards)} if isinstance(action, TakePile) else {c.rank for c in laid}


def test_the_list_of_sequence_moves_is_in_the_same_order_after_the_position_is_reloaded():
    # with sequences, the side holds spades six to eight; the player lays jack to king as a new
    # sequence, then may extend the first down to the five and the other up to the ace: those are
    # listed in the same order live (the sequences in the order laid) and reloaded from observe()
    options = {"meld.sequences": True}
    engine = ReferenceEngine(SPEC)
    engine.load(Position.from_json({
        "options": options, "turn": 0, "phase": "play", "facts": {"melded_seats": [0]},
        "hands": [["5S", "JS", "QS", "KS", "AS", "5C", "5D", "9H"], ["4C"], ["4D"], ["4H"]],
        "melds": [[["6S", "7S", "8S"], ["KC", "KD", "KH"]], []], "pile": ["8D"], "stock": ["7C", "7D"],
    }))
    assert engine.apply(Meld((MeldGroup(tuple(cards("JS QS KS")), None, True),))).accepted
    reloaded = ReferenceEngine(SPEC)
    reloaded.load(engine.observe())
    live = engine.legal_actions()
    assert live == reloaded.legal_actions()
    assert {c for a in live if isinstance(a, Meld) for g in a.melds for c in g.cards} >= set(cards("5S AS"))
