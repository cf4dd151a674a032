"""Self-play on any engine, through the engine protocol only (``canasta play --engine NAME``).

The engine deals (``deal``) and lists its legal actions (``legal_actions``); the player sees only
the engine's list and its position (``observe``) and the variant's parameters from the spec. It
answers "may I go out?" yes more often than no, lays a special hand when one is listed, takes the
pile when it can (the take laying the most cards; once its side has a canasta, only a small pile),
melds while a meld is listed (the one completing the most canastas, then laying the most natural
cards and the fewest wild cards; it starts no meld of sevens, aces or wild cards alone that it could
not finish, as those cost a penalty in Modern American), and discards a card of a rank it has
fewest of (wild cards last). So hands end by going out as well as by the end of the stock, and the
record replays in any other engine (``canasta play --replay``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Protocol

from ..contract.cards import Card, full_deck
from ..contract.engine_protocol import Dealer, DealSetup, Engine, LegalActions
from ..contract.errors import CanastaError
from ..contract.model import (
    WILD_MELD,
    Action,
    Answer,
    Decline,
    Discard,
    Draw,
    EndTurn,
    Meld,
    MeldGroup,
    NextHand,
    Position,
    SpecialHand,
    TakePile,
)
from ..contract.records import GameRecord, HandRecord
from ..contract.spec import Spec
from ..contract.variant_rules import VariantRules

#: how often the player answers "may I go out?" with yes
YES_RATE = 0.7
#: a side that has a canasta takes only a pile this small (a bigger one fills the hand)
SMALL_PILE = 3


class SelfPlayError(CanastaError, RuntimeError):
    """The engine listed no action in a live position, refused an action it listed, or a hand did
    not end within the action budget."""


class MeldingPlayer:
    """Chooses among the listed actions, preferring progress (see the module's docstring)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, actions: Sequence[Action], position: Position, rules: VariantRules) -> Action:
        view = _View(position, rules)
        answers = [a for a in actions if isinstance(a, Answer)]
        if answers:
            wanted = self.rng.random() < YES_RATE
            return next((a for a in answers if a.permit == wanted), answers[0])
        specials = [a for a in actions if isinstance(a, SpecialHand)]
        if specials:
            return specials[0]
        top = position.top
        takes = [a for a in actions if isinstance(a, TakePile) and top is not None and not view.risky(Meld((MeldGroup((*a.cards, top)),)))]
        if takes and (view.canastas() < 1 or len(position.pile) <= SMALL_PILE):
            return max(takes, key=lambda a: (_laid(a), self.rng.random()))
        melds = [a for a in actions if isinstance(a, Meld) and not view.risky(a)]
        if melds:
            return max(melds, key=lambda a: (view.canastas_made(a), _laid(a) - 2 * view.wilds(a), self.rng.random()))
        for kind in (Draw, EndTurn, Decline):
            if kind() in actions:
                return kind()
        discards = [a for a in actions if isinstance(a, Discard)]
        if discards:
            return min(discards, key=lambda a: view.keep(a.card, self.rng.random()))
        return self.rng.choice(list(actions))


class _View:
    """What the player reads from the position: its hand and its side's melds by rank."""

    def __init__(self, position: Position, rules: VariantRules) -> None:
        self.rules = rules
        self.hand = Counter(position.hands[position.turn])
        self.melds: dict[str, int] = {}  # the side's melds: rank -> cards
        for meld in position.melds[position.side_of(position.turn)]:
            rank = self.rank(meld)
            self.melds[rank] = self.melds.get(rank, 0) + len(meld)
        self.closed = {self.rank(m) for side in position.melds for m in side if len(m) >= rules.canasta_min_cards}

    def rank(self, cards: Sequence[Card]) -> str:
        return next((c.rank for c in cards if not self.rules.is_wild(c)), WILD_MELD)

    def group_rank(self, group: MeldGroup) -> str:
        """The meld a group lays or adds to: its natural cards' rank, else the rank it names."""
        return next((c.rank for c in group.cards if not self.rules.is_wild(c)), group.rank or WILD_MELD)

    def canastas(self) -> int:
        return sum(1 for size in self.melds.values() if size >= self.rules.canasta_min_cards)

    def penalty(self, rank: str) -> int:
        """The penalty for leaving a meld of ``rank`` unfinished (Modern American: sevens, aces,
        wild cards alone; none elsewhere)."""
        rules = self.rules
        return {"7": rules.penalty_unfinished_sevens, "A": rules.penalty_unfinished_aces, WILD_MELD: rules.penalty_unfinished_wild_meld}.get(rank, 0)

    def risky(self, action: Meld) -> bool:
        """Whether the action starts a meld whose unfinished state costs a penalty with fewer cards
        than the hand holds to finish it."""
        for group in action.melds:
            rank = self.group_rank(group)
            if rank in self.melds or not self.penalty(rank):
                continue
            wild = rank == WILD_MELD
            have = sum(n for c, n in self.hand.items() if (self.rules.is_wild(c) if wild else c.rank == rank))
            if have < self.rules.canasta_min_cards:
                return True
        return False

    def wilds(self, action: Meld) -> int:
        return sum(1 for g in action.melds for c in g.cards if self.rules.is_wild(c))

    def canastas_made(self, action: Meld) -> int:
        """How many melds of the side reach the canasta size with this action."""
        size = self.rules.canasta_min_cards
        made = 0
        for group in action.melds:
            rank = self.group_rank(group)
            before = self.melds.get(rank, 0)
            made += before < size <= before + len(group.cards)
        return made

    def keep(self, card: Card, tie: float) -> tuple[int, int, float]:
        """How much the player wants to keep a card (the lowest is discarded): cards no meld can
        take (a rank closed by a canasta, black threes) first, then by how few of its rank the hand
        holds; cards of the side's open melds and wild cards last."""
        size = self.rules.canasta_min_cards
        same = sum(n for c, n in self.hand.items() if c.rank == card.rank)
        unwanted = card.rank not in self.melds and self.penalty(card.rank) and same < size
        if card.rank in self.closed or card.is_black_three or unwanted:
            tier = 0
        elif self.rules.is_wild(card):
            tier = 3
        elif card.rank in self.melds:
            tier = 2
        else:
            tier = 1
        return tier, same, tie


def _laid(action: Meld | TakePile) -> int:
    return sum(len(g.cards) for g in action.melds) + (len(action.cards) if isinstance(action, TakePile) else 0)


class PlayingEngine(Engine, Dealer, LegalActions, Protocol):
    """An engine that self-play can drive: it deals and lists its legal actions."""


def can_self_play(engine: Engine) -> bool:
    return callable(getattr(engine, "deal", None)) and callable(getattr(engine, "legal_actions", None))


def play_game(
    engine: PlayingEngine, spec: Spec, seed: int, variant: str = "classic", options: Mapping[str, object] | None = None,
    max_hands: int = 200, max_actions_per_hand: int = 5000,
) -> GameRecord:
    """Play a whole game on ``engine`` (until the game is over, or ``max_hands``)."""
    if not can_self_play(engine):
        raise SelfPlayError("self-play needs an engine that deals and lists its legal actions (deal, legal_actions)")
    rng = random.Random(seed)
    options = dict(options or {})
    rules = spec.variant_rules(variant, options)
    player = MeldingPlayer(rng)
    record = GameRecord(variant, options, seed)
    dealer = rng.randrange(rules.players)
    for number in range(max_hands):
        deck = full_deck(rules.deck_packs, rules.deck_jokers)
        rng.shuffle(deck)
        first = rng.randrange(rules.players) if rules.deal_first_player == "random" else None
        hand = HandRecord((dealer + number) % rules.players, tuple(deck), first)
        if number == 0:
            engine.deal(DealSetup(variant, options, hand.dealer, hand.deck, (), first))
        else:
            outcome = engine.apply(NextHand(hand.deck, first))
            if not outcome.accepted:
                raise SelfPlayError(f"hand {number + 1}: the engine refused to deal the next hand: {outcome}")
        _play_hand(engine, player, rules, hand, max_actions_per_hand)
        record.hands.append(hand)
        if hand.score is not None and hand.score.game_over:
            break
    return record


def _play_hand(engine: PlayingEngine, player: MeldingPlayer, rules: VariantRules, hand: HandRecord, max_actions: int) -> None:
    for _ in range(max_actions):
        position = engine.observe()
        if position.ended is not None:
            break
        actions = engine.legal_actions()
        if not actions:
            raise SelfPlayError(f"the engine lists no legal action in a live position: {position.to_json()}")
        action = player.choose(actions, position, rules)
        outcome = engine.apply(action)
        if not outcome.accepted:
            raise SelfPlayError(f"the engine refused an action it listed as legal, {action}: {outcome}")
        hand.actions.append(action)
    else:
        raise SelfPlayError(f"the hand did not end within {max_actions} actions")
    hand.final = engine.observe()
    hand.score = engine.score()


def format_game(record: GameRecord) -> str:
    lines = [f"Canasta game: variant {record.variant}, seed {record.seed}"]
    for number, hand in enumerate(record.hands, 1):
        assert hand.score is not None and hand.final is not None and hand.final.ended is not None
        ended = hand.final.ended
        how = (
            f"seat {ended.seat} went out{' concealed' if ended.concealed else ''}"
            if ended.reason == "went_out" else "the stock ran out"
        )
        totals = "  ".join(f"side {i}: {s.total:+6d} -> {s.cumulative:6d}" for i, s in enumerate(hand.score.sides))
        lines.append(f"hand {number:3d}  dealer {hand.dealer}  {len(hand.actions):4d} actions  {how:<26} {totals}")
    sheet = record.final_sheet
    if sheet is not None:
        scores = ", ".join(f"side {i} {s.cumulative}" for i, s in enumerate(sheet.sides))
        result = f"side {sheet.winner} wins" if sheet.game_over else "no winner yet (hand limit reached)"
        lines.append(f"final scores: {scores}; {result}")
    return "\n".join(lines)
