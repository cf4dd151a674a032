"""Hypothesis strategies for the contract's value types."""

from __future__ import annotations

from hypothesis import strategies as st

from canasta_conformance.contract.cards import TOKENS, card
from canasta_conformance.contract.model import (
    MELD_RANKS,
    SPECIAL_HAND_KINDS,
    WILD_MELD,
    Answer,
    Ask,
    Decline,
    Discard,
    Draw,
    HandEnd,
    Meld,
    MeldGroup,
    NextHand,
    Outcome,
    Position,
    ScoreSheet,
    SideScore,
    SpecialHand,
    TakePile,
    TurnFacts,
)

cards = st.sampled_from(TOKENS).map(card)
card_lists = st.lists(cards, max_size=8)
ranks = st.sampled_from((*MELD_RANKS, WILD_MELD))


def groups() -> st.SearchStrategy[MeldGroup]:
    plain = st.builds(MeldGroup, st.lists(cards, min_size=1, max_size=5).map(tuple), st.none() | ranks)
    runs = st.builds(MeldGroup, st.lists(cards, min_size=1, max_size=7).map(tuple), st.none(), st.just(True))  # meld.sequences
    return plain | runs


actions = st.one_of(
    st.just(Draw()), st.just(Ask()), st.just(Decline()),
    st.builds(Answer, st.booleans()),
    st.builds(Discard, cards),
    st.builds(NextHand, card_lists.map(tuple)),
    st.builds(Meld, st.lists(groups(), min_size=1, max_size=3).map(tuple)),
    st.builds(TakePile, card_lists.map(tuple), st.lists(groups(), max_size=2).map(tuple)),
    st.builds(SpecialHand, st.sampled_from(SPECIAL_HAND_KINDS), cards),
)


@st.composite
def positions(draw: st.DrawFn) -> Position:
    players = draw(st.sampled_from([2, 3, 4, 6]))
    sides = 2 if players in (2, 4) else players // 2 if players == 6 else 3
    melds = tuple(tuple(tuple(draw(st.lists(cards, min_size=3, max_size=7))) for _ in range(draw(st.integers(0, 2)))) for _ in range(sides))
    return Position(
        variant=draw(st.sampled_from(["classic", "classic-2p"])),
        options=draw(st.dictionaries(st.sampled_from(["draw.count", "game.target"]), st.integers(1, 3), max_size=1)),
        hands=tuple(tuple(draw(card_lists)) for _ in range(players)),
        melds=melds,
        red_threes=tuple(tuple(draw(st.lists(st.sampled_from(["3D", "3H"]).map(card), max_size=2))) for _ in range(sides)),
        pile=tuple(draw(card_lists)), stock=tuple(draw(card_lists)),
        turn=draw(st.integers(0, players - 1)), phase=draw(st.sampled_from(["draw", "play", "over"])),
        dealer=draw(st.none() | st.integers(0, players - 1)),
        scores=tuple(draw(st.integers(-2000, 9000)) for _ in range(sides)),
        facts=TurnFacts(
            melded_seats=tuple(sorted(draw(st.sets(st.integers(0, players - 1))))),
            melded_ranks=tuple(draw(st.lists(ranks, unique=True, max_size=3))),
            took_pile=draw(st.booleans()), question=draw(st.sampled_from([None, "pending", "yes", "no"])),
        ),
        ended=draw(st.none() | st.builds(HandEnd, st.sampled_from(["went_out", "stock_exhausted"]), st.integers(0, players - 1), st.booleans(), st.none() | st.sampled_from(SPECIAL_HAND_KINDS))),
        talons=tuple(tuple(draw(st.lists(cards, min_size=1, max_size=4))) for _ in range(draw(st.integers(0, 2)))),
    ).normalized()


outcomes = st.one_of(
    st.just(Outcome.accept()),
    st.builds(Outcome.reject, st.sampled_from(["pile.blocked.wild-top", "meld.min-cards"]), st.text(max_size=20)),
    st.builds(Outcome.malformed, st.text(max_size=20)),
)
sheets = st.builds(
    ScoreSheet, st.lists(st.builds(SideScore, *[st.integers(-5000, 5000)] * 9), min_size=2, max_size=3).map(tuple),
    st.booleans(), st.none() | st.integers(0, 2),
)
