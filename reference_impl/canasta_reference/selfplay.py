"""A cheap random player of the reference engine, for tests that play many hands. Whole games
(``canasta play``, game records) are played by canasta_conformance.tools.selfplay on any engine.

The random player is cheap by design (it draws one candidate of each kind instead of listing
every legal action), so thousands of hands run in a test: at the start of a turn it takes the
pile when one natural-pair or add-to-meld take is legal (else draws, or declines at the end of the
stock); afterwards it tries a few random melds of the naturals it holds (with a wild card now and
then), then discards a random card. Every action it applies is checked by the engine.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from canasta_conformance.contract.cards import Card, sort_cards
from canasta_conformance.contract.model import Action, Answer, Decline, Discard, Draw, EndTurn, Meld, MeldGroup, SpecialHand, TakePile

from .engine import ReferenceEngine


class RandomPlayer:
    def __init__(self, rng: random.Random, meld_tries: int = 3) -> None:
        self.rng = rng
        self.meld_tries = meld_tries

    def choose(self, engine: ReferenceEngine) -> Action:
        state = engine.state
        assert state is not None and state.phase != "over"
        if state.question == "pending":
            return Answer(self.rng.random() < 0.7)
        if state.phase == "draw":
            for take in self._takes(engine):
                if engine.is_legal(take):
                    return take
            if engine.is_legal(Draw()):
                return Draw()
            return Decline() if engine.is_legal(Decline()) else next(t for t in self._takes(engine, all_=True) if engine.is_legal(t))
        for special in self._special_hands(engine):
            if engine.is_legal(special):
                return special
        for meld in self._melds(engine):
            if engine.is_legal(meld):
                return meld
        hand = sort_cards(state.hand.elements())
        for card in self.rng.sample(hand, len(hand)):
            if engine.is_legal(Discard(card)):
                return Discard(card)
        if engine.is_legal(EndTurn()):
            return EndTurn()
        raise RuntimeError(f"no legal action found in {engine.observe().to_json()}")

    def _naturals(self, engine: ReferenceEngine) -> tuple[dict[str, list[Card]], list[Card]]:
        state = engine.state
        assert state is not None
        rules = state.rules
        naturals: dict[str, list[Card]] = {}
        wilds: list[Card] = []
        for card in state.hand.elements():
            if rules.is_wild(card):
                wilds.append(card)
            elif card.rank != "3":
                naturals.setdefault(card.rank, []).append(card)
        return naturals, wilds

    def _takes(self, engine: ReferenceEngine, all_: bool = False) -> Iterator[TakePile]:
        state = engine.state
        assert state is not None
        if not state.pile:
            return
        top = state.pile[-1]
        naturals, wilds = self._naturals(engine)
        same = naturals.get(top.rank, [])
        if not all_ and top.rank not in state.melds[state.side] and self._risky(engine, top.rank, len(same) + 1):
            return
        if len(same) >= 2:
            pair = tuple(same[:2])
            yield TakePile(pair)
            if not state.melds[state.side]:
                others = [tuple(cards) for rank, cards in naturals.items() if rank != top.rank and len(cards) >= state.rules.meld_min_cards]
                if others:
                    yield TakePile(pair, tuple(MeldGroup(g) for g in others))
        if top.rank in state.melds[state.side]:
            yield TakePile(())
        if same and wilds:
            yield TakePile((same[0], wilds[0]))
        if all_:
            for k in range(len(same) + 1):
                for w in range(min(state.rules.meld_max_wilds, len(wilds)) + 1):
                    yield TakePile(tuple(same[:k]) + tuple(wilds[:w]))

    def _special_hands(self, engine: ReferenceEngine) -> Iterator[SpecialHand]:
        """Modern American: every special hand with each card as the discard (rarely legal)."""
        state = engine.state
        assert state is not None
        if state.rules.special_hands and not state.melds[state.side]:
            for kind in state.rules.special_hands:
                for card in sort_cards(set(state.hand)):
                    yield SpecialHand(kind, card)

    def _risky(self, engine: ReferenceEngine, rank: str, size: int) -> bool:
        """Whether starting this meld risks a penalty for leaving it unfinished (Modern sevens and
        natural aces): the player starts one only as a whole canasta."""
        rules = engine.state.rules if engine.state else None
        assert rules is not None
        penalty = {"7": rules.penalty_unfinished_sevens, "A": rules.penalty_unfinished_aces}.get(rank, 0)
        return penalty > 0 and size < rules.canasta_min_cards

    def _melds(self, engine: ReferenceEngine) -> Iterator[Meld]:
        state = engine.state
        assert state is not None
        naturals, wilds = self._naturals(engine)
        side_melds = state.melds[state.side]
        if not side_melds:  # an initial meld: everything meldable at once
            groups = [
                MeldGroup(tuple(cards)) for rank, cards in naturals.items()
                if len(cards) >= state.rules.meld_min_cards and not self._risky(engine, rank, len(cards))
            ]
            if groups:
                yield Meld(tuple(groups))
        ranks = list(naturals)
        self.rng.shuffle(ranks)
        for rank in ranks[: self.meld_tries]:
            cards = naturals[rank]
            if rank in side_melds or (len(cards) >= state.rules.meld_min_cards and not self._risky(engine, rank, len(cards))):
                yield Meld((MeldGroup(tuple(cards)),))
            elif len(cards) == 2 and wilds:
                yield Meld((MeldGroup((*cards, wilds[0])),))
        if wilds and side_melds and self.rng.random() < 0.3:
            yield Meld((MeldGroup((wilds[0],), self.rng.choice(sorted(side_melds))),))
