"""A game as text: the record format (like PGN for chess) and a readable turn-by-turn log.

The record (docs/guides/game-records.md) is tag lines, then each hand's tags and its actions
one a line in the action text form (:func:`~canasta_conformance.contract.model.parse_action`)::

    [Format "canasta-game-record 1"]
    [Variant "classic"]
    [Options "{}"]
    [Seed "7"]

    [Hand "1"]
    [Dealer "0"]
    [Deck "KH 9S JK ..."]
    draw
    discard 5C

``#`` starts a comment line. ``canasta play --replay`` reads this as well as the JSON record.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator

from ..contract.cards import Card, card
from ..contract.engine_protocol import DealSetup, Engine
from ..contract.model import (
    Action,
    Answer,
    Ask,
    Decline,
    Discard,
    Draw,
    FormatError,
    Meld,
    NextHand,
    Position,
    TakePile,
    action_text,
    parse_action,
)
from ..contract.records import GameRecord, HandRecord

TEXT_FORMAT = "canasta-game-record 1"
_TAG = re.compile(r'^\[(\w+) "(.*)"\]$')


def record_to_text(record: GameRecord) -> str:
    lines = [f'[Format "{TEXT_FORMAT}"]', f'[Variant "{record.variant}"]',
             f'[Options "{_escape(json.dumps(record.options, sort_keys=True))}"]', f'[Seed "{record.seed}"]']
    sheet = record.final_sheet
    if sheet is not None:
        scores = " ".join(str(s.cumulative) for s in sheet.sides)
        lines.append(f'[Result "{scores}{f" winner side {sheet.winner}" if sheet.game_over else ""}"]')
    for number, hand in enumerate(record.hands, 1):
        lines += ["", f'[Hand "{number}"]', f'[Dealer "{hand.dealer}"]']
        if hand.first_player is not None:
            lines.append(f'[FirstPlayer "{hand.first_player}"]')
        lines.append(f'[Deck "{" ".join(c.token for c in hand.deck)}"]')
        lines += [action_text(a) for a in hand.actions]
    return "\n".join(lines) + "\n"


def is_text_record(text: str) -> bool:
    """Whether ``text`` is a text record (its first line that is not a comment is a tag), not JSON."""
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            return _TAG.match(line) is not None
    return False


def record_from_text(text: str) -> GameRecord:
    """Read the text record; raises :class:`FormatError` naming the line at fault."""
    record: GameRecord | None = None
    hand: dict[str, str] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        tag = _TAG.match(line)
        try:
            if tag:
                name, value = tag.group(1), _unescape(tag.group(2))
                if name == "Format" and value != TEXT_FORMAT:
                    raise FormatError(f"not a {TEXT_FORMAT} (format {value!r})", ("Format",))
                if name == "Hand":
                    record = record or GameRecord("classic", {}, 0)
                    hand = {}
                elif hand is not None:
                    hand[name] = value
                    if name == "Deck":
                        record = record or GameRecord("classic", {}, 0)
                        first = hand.get("FirstPlayer")
                        record.hands.append(HandRecord(int(hand.get("Dealer", "0")), tuple(card(t) for t in value.split()), int(first) if first else None))
                else:
                    record = _header(record, name, value)
                continue
            if record is None or not record.hands:
                raise FormatError("an action comes after a hand's [Deck ...] tag", ("action",))
            record.hands[-1].actions.append(parse_action(line))
        except (FormatError, ValueError) as error:
            raise FormatError(f"line {number}: {error}") from None
    if record is None:
        raise FormatError("no game record here (no tags)")
    return record


def _header(record: GameRecord | None, name: str, value: str) -> GameRecord:
    record = record or GameRecord("classic", {}, 0)
    if name == "Variant":
        record.variant = value
    elif name == "Options":
        record.options = dict(json.loads(value))
    elif name == "Seed":
        record.seed = int(value)
    return record


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(text: str) -> str:
    return text.replace('\\"', '"').replace("\\\\", "\\")


# --------------------------------------------------------------------------------------------
# The readable log


def game_log(record: GameRecord, engine: Engine) -> Iterator[str]:
    """Replay ``record`` in ``engine`` and tell each turn: who drew what, took the pile with which
    cards, melded, discarded; red threes laid down; each hand's score sheet."""
    for number, hand in enumerate(record.hands, 1):
        if number == 1:
            engine.deal(DealSetup(record.variant, dict(record.options), hand.dealer, hand.deck, (), hand.first_player))  # type: ignore[attr-defined]
        else:
            engine.apply(NextHand(hand.deck, hand.first_player))
        before = engine.observe()
        yield f"Hand {number}: dealer seat {hand.dealer}, seat {before.turn} plays first"
        yield from _red_threes(None, before)
        for action in hand.actions:
            seat = before.turn
            outcome = engine.apply(action)
            after = engine.observe()
            yield f"  seat {seat} " + (_told(action, before, after, seat) if outcome.accepted else f"tries {action_text(action)}: {outcome.status}")
            yield from _red_threes(before, after)
            before = after
        sheet = engine.score()
        for side, line in enumerate(sheet.sides):
            yield (f"  side {side}: canastas {line.canastas:+d}, red threes {line.red_threes:+d}, going out {line.going_out:+d}, "
                   f"melded {line.melded:+d}, in hand {line.in_hand:+d} = {line.total:+d} (total {line.cumulative})")
        if sheet.game_over:
            yield f"Game over: side {sheet.winner} wins"


def _cards_text(items: Counter[Card] | list[Card]) -> str:
    return " ".join(c.token for c in sorted(items.elements() if isinstance(items, Counter) else items, key=lambda c: c.token)) or "nothing"


def _told(action: Action, before: Position, after: Position, seat: int) -> str:
    gained = Counter(after.hands[seat]) - Counter(before.hands[seat])
    if isinstance(action, Draw):
        return f"draws {_cards_text(gained)}"
    if isinstance(action, TakePile):
        top = before.pile[-1].token if before.pile else "?"
        extra = f", and melds {' '.join('[' + ' '.join(c.token for c in g.cards) + ']' for g in action.melds)}" if action.melds else ""
        with_cards = f"with {' '.join(c.token for c in action.cards)}" if action.cards else "adding it to a meld"
        return f"takes the pile ({len(before.pile)} card{'s' if len(before.pile) != 1 else ''}, top {top}) {with_cards}{extra}"
    if isinstance(action, Meld):
        return "melds " + " ".join("[" + " ".join(c.token for c in g.cards) + "]" for g in action.melds)
    if isinstance(action, Discard):
        out = " and goes out" if not after.hands[seat] else ""
        return f"discards {action.card.token}{out}"
    if isinstance(action, Ask):
        return "asks partner: may I go out?"
    if isinstance(action, Answer):
        return f"answers {'yes' if action.permit else 'no'}"
    if isinstance(action, Decline):
        return "declines the pile: the stock is exhausted"
    return action_text(action)


def _red_threes(before: Position | None, after: Position) -> Iterator[str]:
    # listed by seat where the variant keeps red threes per player (Regal), by side otherwise
    owner = "seat" if len(after.red_threes) == after.players else "side"
    for index, threes in enumerate(after.red_threes):
        new = Counter(threes) - (Counter(before.red_threes[index]) if before is not None else Counter())
        if new:
            yield f"    {owner} {index} lays down red three{'s' if sum(new.values()) > 1 else ''} {_cards_text(new)}"
