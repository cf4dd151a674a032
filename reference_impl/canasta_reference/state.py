"""The engine's mutable state of one hand, and its conversion to and from a Position."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from canasta_conformance.contract.cards import Card, full_deck, sort_cards
from canasta_conformance.contract.model import WILD_MELD, Action, HandEnd, Penalty, Position, TurnFacts, fact_order, meld_rank, sorted_melds
from canasta_conformance.contract.sequences import looks_like_sequence, sequence_key
from canasta_conformance.contract.variant_rules import VariantRules

from . import memo
from .hand_view import HandView

#: the red threes and the black threes (Card.is_red_three, Card.is_black_three), for a set look-up
#: where every card drawn, taken or discarded is asked
RED_THREES: frozenset[Card] = frozenset(c for c in full_deck(1, 0) if c.is_red_three)
BLACK_THREES: frozenset[Card] = frozenset(c for c in full_deck(1, 0) if c.is_black_three)


_CYCLES: dict[tuple[int, int, frozenset[int]], tuple[int, ...]] = memo.table()


def turn_cycle(players: int, sides: int, sitting_out: frozenset[int]) -> tuple[int, ...]:
    """setup.sit-out: the players in play sit as in the four-handed game, partners opposite, so
    that the turn alternates between the sides ("The two sides then play regular partnership
    Canasta"). From the lowest seat in play, each next seat is the first seat in play to the left,
    not yet seated, of another side than the seat before it (the first one left when no other
    side remains). Where seat order already alternates this is seat order; in the five-player hand
    in which the middle seat of the side of three sits out, its partner from the last seat takes
    the empty chair: 0, 1, 4, 3."""
    key = (players, sides, sitting_out)
    cycle = _CYCLES.get(key)
    if cycle is None:
        in_play = [seat for seat in range(players) if seat not in sitting_out]
        order = [in_play[0]]
        while len(order) < len(in_play):
            last = order[-1]
            left = [in_play[(in_play.index(last) + k) % len(in_play)] for k in range(1, len(in_play))]
            free = [seat for seat in left if seat not in order]
            order.append(next((seat for seat in free if seat % sides != last % sides), free[0]))
        cycle = _CYCLES[key] = tuple(order)
    return cycle


@dataclass(slots=True)
class Derived:
    """Facts derived from the position, each computed at most once while the position stands
    (None: not computed yet). ``engine.apply`` forgets them whenever an action changes the state,
    and a state copied with ``dataclasses.replace`` starts without them (the engine copies states
    no other way), so they are never read for another position."""

    #: frozen_by_contents (pile.frozen.by-wild and the like): the pile is frozen for everyone
    pile_frozen: bool | None = None
    #: can_go_out (out.ask.binding): the player to move could go out this turn
    can_go_out: bool | None = None
    #: the actions legal_actions() listed for this position: ``apply`` commits one of these very
    #: objects without checking again what the generator proved (engine.ReferenceEngine._listed_commit)
    listed: tuple[Action, ...] | None = None


@dataclass
class HandState:
    rules: VariantRules
    variant: str
    options: dict[str, Any]
    hands: list[Counter[Card]]
    melds: list[dict[str, list[Card]]]  # per side: rank -> cards
    red_threes: list[list[Card]]
    pile: list[Card]  # bottom to top
    stock: list[Card]  # top LAST (so drawing is pop())
    turn: int
    phase: str
    dealer: int | None
    scores: list[int]
    melded_seats: set[int] = field(default_factory=set)
    melded_ranks: set[str] = field(default_factory=set)
    new_ranks: set[str] = field(default_factory=set)
    took_pile: bool = False
    question: str | None = None
    covered_black_three: bool = False
    last_card_red_three: bool = False
    ended: HandEnd | None = None
    hand_number: int = 1
    talons: list[list[Card]] = field(default_factory=list)  # bonus talons not yet taken, next first
    sitting_out: frozenset[int] = frozenset()
    #: the seat playing alone in the three-player game (three_player.lone_hand), once formed
    lone_hand: int | None = None
    #: table penalties charged this hand (penalty.table_penalties)
    penalties: list[Penalty] = field(default_factory=list)
    #: what has been derived from this position so far (not part of it: see Derived)
    derived: Derived = field(default_factory=Derived, init=False, repr=False, compare=False)
    #: each seat's hand as the move generator reads it (see view), once read; like ``derived``,
    #: a state copied with ``dataclasses.replace`` starts without them
    _views: list[HandView | None] = field(default_factory=list, init=False, repr=False, compare=False)

    def forget(self) -> None:
        """The position has changed: drop what was derived from it."""
        derived = self.derived
        derived.pile_frozen = derived.can_go_out = None
        derived.listed = None

    # --- seats and sides ------------------------------------------------------------------------
    def own_index(self, seat: int) -> int:
        """The entry of the seat's own side in red_threes and scores: its fixed side (each player's
        own in the three-player game, where red threes and scores stay personal)."""
        return seat % self.rules.sides

    def red_three_index(self, seat: int) -> int:
        """The entry of red_threes where the seat's red threes lie: the seat's own side, or the seat
        itself where red threes are kept per player (red_three.per_player)."""
        return seat if self.rules.red_three_per_player else self.own_index(seat)

    def side_red_threes(self, entry: int) -> list[Card]:
        """The red threes of a score-sheet entry (a side; in the three-player game a player)."""
        if not self.rules.red_three_per_player:
            return self.red_threes[entry]
        return [c for seat in range(self.rules.players) if self.own_index(seat) == entry for c in self.red_threes[seat]]

    def side_of(self, seat: int) -> int:
        """The meld area the seat plays to. In the three-player game, once the lone hand has formed
        (setup.three-player.lone-hand), the two other players pool their melds in the lower seat's area."""
        if self.lone_hand is not None and seat != self.lone_hand:
            return min(s for s in range(self.rules.players) if s != self.lone_hand) % self.rules.sides
        return seat % self.rules.sides

    def initial_minimum(self, seat: int | None = None) -> int:
        """initial.table with initial.score-basis: the mover's initial-meld minimum, from the side's
        cumulative score or (initial_meld.basis player) the player's own, raised by any retracted
        insufficient first meld of the side this hand (penalty.initial-meld.insufficient)."""
        seat = self.turn if seat is None else seat
        index = self.own_index(seat) if self.rules.initial_meld_basis == "player" else self.side_of(seat)
        raised = sum(p.minimum_increase for p in self.penalties if self.side_of(p.seat) == self.side_of(seat))
        return self.rules.initial_minimum(self.scores[index]) + raised

    @property
    def side(self) -> int:
        """The meld area of the player to move (side_of the turn)."""
        if self.lone_hand is None:  # (side_of, without a call, before the three-player lone hand forms)
            return self.turn % self.rules.sides
        return self.side_of(self.turn)

    @property
    def hand(self) -> Counter[Card]:
        return self.hands[self.turn]

    def seats_of(self, side: int) -> list[int]:
        return [s for s in range(self.rules.players) if self.side_of(s) == side]

    def partner_of(self, seat: int) -> int | None:
        """The next partner after ``seat`` in turn order (None when the seat plays alone)."""
        rules = self.rules
        table = _PARTNERS.get((rules.players, rules.sides, self.lone_hand, self.sitting_out))
        if table is None:
            table = _PARTNERS[(rules.players, rules.sides, self.lone_hand, self.sitting_out)] = tuple(
                self._next_partner(s) for s in range(rules.players)
            )
        return table[seat]

    def _next_partner(self, seat: int) -> int | None:
        players = self.rules.players
        side = self.side_of(seat)
        for step in range(1, players):
            other = (seat + step) % players
            if self.side_of(other) == side and other not in self.sitting_out:
                return other
        return None

    def next_seat(self, seat: int) -> int:
        """The next seat in play to the left (turn.rotation); in a hand where a player sits out,
        the next seat of the hand's turn cycle (setup.sit-out, turn_cycle)."""
        if not self.sitting_out:
            return (seat + 1) % self.rules.players
        cycle = turn_cycle(self.rules.players, self.rules.sides, self.sitting_out)
        return cycle[(cycle.index(seat) + 1) % len(cycle)]

    def has_melded(self, side: int) -> bool:
        """A side has made its initial meld once it has a meld on the table."""
        return bool(self.melds[side])

    def canastas(self, side: int) -> int:
        return sum(1 for meld in self.melds[side].values() if len(meld) >= self.rules.canasta_min_cards)

    def closed_ranks(self) -> frozenset[str]:
        """Ranks in which some side has completed a canasta, where that closes them to every side
        (modern.meld.closed-rank; none without meld.closed_rank_after_canasta)."""
        if not self.rules.meld_closed_rank_after_canasta:
            return frozenset()
        size = self.rules.canasta_min_cards
        return frozenset(rank for melds in self.melds for rank, cards in melds.items() if len(cards) >= size)

    def initial_meld_this_turn(self) -> bool:
        """The player to move made the side's initial meld in this turn (no seat of the side melded
        in an earlier turn, and the side's melds are the player's of this turn)."""
        side_seats = set(self.seats_of(self.side))
        return bool(self.melds[self.side]) and not (side_seats & self.melded_seats) and set(self.melds[self.side]) <= self.melded_ranks

    def turn_card_drawn(self) -> bool:
        """modern.deal.turn-card: the turn card (the n-th card from the bottom of the stock) is gone."""
        limit = self.rules.bonus_talon_turn_card_from_bottom
        return limit is not None and len(self.stock) < limit

    def talon_owed(self) -> bool:
        """modern.talon.first-side, modern.talon.not-after-turn-card: the player to move made the
        side's initial meld this turn, a talon is left and the turn card is still in the stock."""
        return bool(self.talons) and self.initial_meld_this_turn() and not self.turn_card_drawn()

    def stock_exhausted(self) -> bool:
        """stock.empty.*: the stock is exhausted when it is empty, or (draw.lone_last_card_full_draw
        false) when it holds fewer cards than a full draw."""
        rules = self.rules
        return not self.stock or (not rules.draw_lone_last_card_full_draw and len(self.stock) < rules.draw_count)

    # --- the hands ----------------------------------------------------------------------------
    def view(self, seat: int) -> HandView:
        """The seat's hand as the move generator reads it (hand_view), read once and then kept up
        to date by add_card and remove_cards, through which every change of a hand goes."""
        views = self._views
        if not views:
            views = self._views = [None] * len(self.hands)
        view = views[seat]
        if view is None:
            view = views[seat] = HandView(self.hands[seat], self.rules.cards_wild_ranks)
        return view

    def add_card(self, seat: int, card: Card) -> None:
        """One card joins the seat's hand."""
        hand = self.hands[seat]
        had = hand.get(card, 0)
        hand[card] = had + 1
        if self._views and (view := self._views[seat]) is not None:
            view.add(card, had)

    def add_cards(self, seat: int, cards: list[Card]) -> None:
        """Cards join the seat's hand (many at once: its view is read again when next needed)."""
        hand = self.hands[seat]
        for card in cards:
            hand[card] = hand.get(card, 0) + 1
        if self._views:
            self._views[seat] = None

    def remove_cards(self, seat: int, wanted: dict[Card, int]) -> None:
        """Cards leave the seat's hand (card -> how many; the hand holds them)."""
        hand = self.hands[seat]
        view = self._views[seat] if self._views else None
        for card, n in wanted.items():
            left = hand[card] - n
            if left:
                hand[card] = left
            else:
                hand.pop(card)  # (dict.pop: Counter.__delitem__ is Python code)
            if view is not None:
                for k in range(n - 1, -1, -1):
                    view.remove(card, left + k)

    def remove_card(self, seat: int, card: Card) -> None:
        """One card leaves the seat's hand (which holds it)."""
        hand = self.hands[seat]
        left = hand[card] - 1
        if left:
            hand[card] = left
        else:
            hand.pop(card)
        if self._views and (view := self._views[seat]) is not None:
            view.remove(card, left)

    def hand_size(self, seat: int | None = None) -> int:
        return sum(self.hands[self.turn if seat is None else seat].values())

    # --- conversion -------------------------------------------------------------------------
    @classmethod
    def from_position(cls, position: Position, rules: VariantRules) -> HandState:
        melds: list[dict[str, list[Card]]] = []
        for side in position.melds:
            by_rank: dict[str, list[Card]] = {}
            for meld in side:
                rank = meld_rank(meld, rules.cards_wild_ranks)
                if rank is None and rules.meld_sequences and looks_like_sequence(meld, rules.is_natural):
                    rank = sequence_key(meld)  # meld.sequences: a run of one suit names itself
                if rank is None and rules.meld_wild_only_melds and all(rules.is_wild(c) for c in meld):
                    rank = WILD_MELD
                if rank is None:
                    raise ValueError(f"meld {' '.join(c.token for c in meld)} has no single natural rank")
                by_rank.setdefault(rank, []).extend(meld)
            melds.append(by_rank)
        facts = position.facts
        return cls(
            rules=rules, variant=position.variant, options=dict(position.options),
            hands=[Counter(hand) for hand in position.hands], melds=melds,
            red_threes=_red_three_lists(position, rules), pile=list(position.pile),
            stock=list(reversed(position.stock)), turn=position.turn, phase=position.phase,
            dealer=position.dealer, scores=list(position.scores) or [0] * rules.sides,
            melded_seats=set(facts.melded_seats), melded_ranks=set(facts.melded_ranks),
            new_ranks=set(facts.new_ranks), took_pile=facts.took_pile, question=facts.question,
            ended=position.ended, hand_number=position.hand_number, talons=[list(t) for t in position.talons],
            covered_black_three=facts.covered_black_three, last_card_red_three=facts.last_card_red_three,
            sitting_out=frozenset(position.sitting_out), lone_hand=position.lone_hand,
            penalties=list(position.penalties),
        )

    def to_position(self) -> Position:
        """The position, already in canonical order (what :meth:`Position.normalized` gives),
        sorted as it is built: observe() is called at least once a scenario step."""
        return Position(
            variant=self.variant, options=dict(self.options),
            hands=tuple(sort_cards(hand.elements()) for hand in self.hands),
            melds=tuple(sorted_melds(side.values()) for side in self.melds),
            red_threes=tuple(sort_cards(r) for r in self.red_threes), pile=tuple(self.pile),
            stock=tuple(reversed(self.stock)), turn=self.turn, phase=self.phase,  # type: ignore[arg-type]
            dealer=self.dealer, scores=tuple(self.scores),
            facts=TurnFacts(
                melded_seats=tuple(sorted(self.melded_seats)), melded_ranks=tuple(sorted(self.melded_ranks, key=fact_order)),
                new_ranks=tuple(sorted(self.new_ranks, key=fact_order)), took_pile=self.took_pile, question=self.question,  # type: ignore[arg-type]
                covered_black_three=self.covered_black_three, last_card_red_three=self.last_card_red_three,
            ),
            ended=self.ended, hand_number=self.hand_number, talons=tuple(sort_cards(t) for t in self.talons),
            sitting_out=tuple(sorted(self.sitting_out)), lone_hand=self.lone_hand, penalties=tuple(self.penalties),
        )


#: each seat's partner (partner_of) for a table (players, sides, the lone hand, the seats sitting out)
_PARTNERS: dict[tuple[int, int, int | None, frozenset[int]], tuple[int | None, ...]] = memo.table()


def _red_three_lists(position: Position, rules: VariantRules) -> list[list[Card]]:
    """The position's red threes, one list per side, or per seat where red_three.per_player (a
    position without red threes may list them by side)."""
    lists = [list(r) for r in position.red_threes]
    wanted = rules.players if rules.red_three_per_player else rules.sides
    return lists + [[] for _ in range(wanted - len(lists))]
