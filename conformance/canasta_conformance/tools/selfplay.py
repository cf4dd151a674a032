"""Self-play on any engine, through the engine protocol only (``canasta play --engine NAME``).

The engine deals (``deal``) and lists its legal actions (``legal_actions``); a random player
chooses among them, preferring progress so that hands end by going out, not only by an empty
stock: it answers "may I go out?" yes more often than no, takes the discard pile when it may,
lays down a special hand or a meld when it can, then discards a random card. Every choice comes
from the engine's own list, so the game is whatever the engine under test says is legal; the
record replays in any other engine (``canasta play --replay``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Protocol

from ..contract.cards import full_deck
from ..contract.engine_protocol import DealSetup, Dealer, Engine, LegalActions
from ..contract.model import Action, Answer, Discard, Draw, EndTurn, Meld, NextHand, SpecialHand, TakePile
from ..contract.records import GameRecord, HandRecord
from ..contract.spec import Spec
from ..contract.errors import CanastaError

#: how often the player answers "may I go out?" with yes
YES_RATE = 0.7


class SelfPlayError(CanastaError, RuntimeError):
    """The engine listed no action in a live position, refused an action it listed, or a hand did
    not end within the action budget."""


class RandomPlayer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, actions: Sequence[Action]) -> Action:
        answers = [a for a in actions if isinstance(a, Answer)]
        if answers:
            wanted = self.rng.random() < YES_RATE
            return next((a for a in answers if a.permit == wanted), answers[0])
        for kinds in ((TakePile,), (Draw,), (SpecialHand,), (Meld,), (Discard,), (EndTurn,)):
            choices = [a for a in actions if isinstance(a, kinds)]
            if choices:
                return self.rng.choice(choices)
        return self.rng.choice(list(actions))


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
    player = RandomPlayer(rng)
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
        _play_hand(engine, player, hand, max_actions_per_hand)
        record.hands.append(hand)
        if hand.score is not None and hand.score.game_over:
            break
    return record


def _play_hand(engine: PlayingEngine, player: RandomPlayer, hand: HandRecord, max_actions: int) -> None:
    for _ in range(max_actions):
        position = engine.observe()
        if position.ended is not None:
            break
        actions = engine.legal_actions()
        if not actions:
            raise SelfPlayError(f"the engine lists no legal action in a live position: {position.to_json()}")
        action = player.choose(actions)
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
