"""Where could a scenario kill a surviving mutant? A helper for writing scenarios, not a test.

For each mutant (of tools/mutate.py) it plays a pool of small random positions on the reference
engine and on the mutated one, in-process, and reports the positions where the two differ: the
legal-action lists (actions the mutant omits or adds), the verdict on each listed action, the
position after it. The report is a starting point: whether an action is legal in a position is
then decided from the rules, and the scenario written by hand with expectations from the rules.

    python tools/hunt_mutants.py --results benchmarks/mutation/results.json --positions 800 --json hunt.json
    python tools/hunt_mutants.py --only movegen:take_actions:3,movegen:take_actions:4
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT / "conformance", ROOT / "reference_impl", ROOT / "tools"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import mutate  # noqa: E402

from canasta_conformance.contract.model import Position, format_action  # noqa: E402
from canasta_conformance.contract.scenario import setup_problems  # noqa: E402
from canasta_conformance.contract.spec import load_spec  # noqa: E402
from canasta_reference.engine import ReferenceEngine  # noqa: E402

NATURAL = ["4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]
SUITS = "CDHS"
VARIANTS = (("classic", 6), ("classic-2p", 1), ("online-classic", 1), ("classic-6p", 1))
VARIANTS_USED = VARIANTS
SCORES = (0, 0, 0, 0, 1500, 3000, -50)
OUT_SHARE = 0.0
CANASTA_SHARE = 0.0
SHORT_SHARE = 0.0
RED_PILE_SHARE = 0.0


class Deck:
    def __init__(self, rng: random.Random, packs: int = 2, jokers: int = 4) -> None:
        self.rng = rng
        self.left: Counter[str] = Counter()
        for rank in [*NATURAL, "3", "2"]:
            for suit in SUITS:
                self.left[rank + suit] = packs
        self.left["JK"] = jokers

    def take(self, token: str) -> bool:
        if self.left[token] <= 0:
            return False
        self.left[token] -= 1
        return True

    def rank(self, rank: str, n: int) -> list[str]:
        out = []
        suits = list(SUITS)
        self.rng.shuffle(suits)
        for suit in suits * 3:
            if len(out) == n:
                break
            if self.take(rank + suit):
                out.append(rank + suit)
        return out

    def wild(self) -> list[str]:
        token = self.rng.choice(["JK", "2C", "2D", "2H", "2S"])
        return [token] if self.take(token) else []

    def black_three(self) -> list[str]:
        token = self.rng.choice(["3C", "3S"])
        return [token] if self.take(token) else []

    def red_three(self) -> list[str]:
        token = self.rng.choice(["3D", "3H"])
        return [token] if self.take(token) else []

    def any_natural(self) -> list[str]:
        return self.rank(self.rng.choice(NATURAL), 1)


def random_position(rng: random.Random, variant: str, players: int, sides: int) -> dict[str, Any]:
    deck = Deck(rng, packs=3 if players == 6 else 2, jokers=6 if players == 6 else 4)
    focus = rng.sample(NATURAL, rng.randint(1, 4))
    melded = rng.random() < 0.55
    melds: list[list[list[str]]] = [[] for _ in range(sides)]
    own_ranks = []
    if melded:
        for rank in rng.sample(focus + rng.sample(NATURAL, 2), rng.randint(1, 3)):
            if rank in own_ranks:
                continue
            n = rng.choice([2, 3, 3, 4, 5, 6, 7])
            cards = deck.rank(rank, n)
            for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
                cards += deck.wild()
            if len(cards) >= 3:
                melds[0].append(cards)
                own_ranks.append(rank)
        if rng.random() < 0.2:
            melds[0].append(deck.rank("3", 0) or [])  # placeholder removed below
        melds[0] = [m for m in melds[0] if m]
    for side in range(1, sides):
        if rng.random() < 0.5:
            rank = rng.choice(NATURAL)
            cards = deck.rank(rank, rng.randint(3, 5))
            if len(cards) >= 3:
                melds[side].append(cards)
    hand: list[str] = []
    if rng.random() < CANASTA_SHARE:  # a canasta (or nearly) in hand and another meld: going out at once
        low = rng.choice(NATURAL)
        hand += deck.rank(low, rng.choice([4, 5, 6, 7, 7]))
        while len(hand) < 7 and rng.random() < 0.8:
            hand += deck.wild()
        other = rng.choice([r for r in NATURAL if r != low])
        hand += deck.rank(other, rng.choice([2, 3, 3, 4]))
        if rng.random() < 0.3:
            hand += deck.wild()
        if rng.random() < 0.3:
            hand += deck.black_three() + deck.black_three()
        for _ in range(rng.choice([0, 1, 1, 2])):
            hand += deck.any_natural()
    elif rng.random() < OUT_SHARE:  # a hand that can (nearly) all be melded: going out, multi-rank melds
        for rank in focus[: rng.randint(1, 3)]:
            hand += deck.rank(rank, rng.choice([1, 2] if rank in own_ranks else [2, 2, 3, 3, 4, 5, 7]))
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
            hand += deck.wild()
        if rng.random() < 0.25:
            hand += deck.black_three() + deck.black_three() + (deck.black_three() if rng.random() < 0.3 else [])
        if rng.random() < 0.5:
            hand += deck.any_natural()
        hand = hand or deck.any_natural()
    else:
        for rank in focus:
            hand += deck.rank(rank, rng.choice([1, 1, 2, 2, 2, 3, 3, 4]))
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
            hand += deck.wild()
        if rng.random() < 0.25:
            hand += deck.black_three() + (deck.black_three() if rng.random() < 0.5 else [])
        for _ in range(rng.choice([0, 0, 1, 2])):
            hand += deck.any_natural()
        rng.shuffle(hand)
        hand = hand[: rng.randint(1, 12)] or deck.any_natural()
    if rng.random() < SHORT_SHARE:  # a short hand near going out: black threes, cards for the side's melds
        hand = []
        for rank in rng.sample(own_ranks, min(len(own_ranks), rng.randint(1, 2))):
            hand += deck.rank(rank, rng.choice([1, 1, 2]))
        if rng.random() < 0.5:
            hand += deck.black_three() + deck.black_three() + (deck.black_three() if rng.random() < 0.3 else [])
        for _ in range(rng.choice([0, 0, 1, 2])):
            hand += deck.wild()
        if rng.random() < 0.4:
            hand += deck.any_natural()
        hand = hand or deck.any_natural()
    pile: list[str] = []
    if rng.random() < RED_PILE_SHARE:
        pile += deck.red_three()
    for _ in range(rng.randint(0, 4)):
        pile += deck.any_natural()
    if rng.random() < 0.25:
        pile.insert(rng.randint(0, len(pile)), (deck.wild() or ["JK"])[0]) if deck.left["JK"] else None
    if rng.random() < 0.08:
        pile.insert(0, (deck.red_three() or deck.black_three() or ["4C"])[0])
    if rng.random() < 0.08:
        pile.insert(0, (deck.black_three() or ["4C"])[0])
    r = rng.random()
    if r < 0.6:
        top = deck.rank(rng.choice(focus + own_ranks), 1)
    elif r < 0.7:
        top = deck.wild()
    elif r < 0.78:
        top = deck.black_three()
    else:
        top = deck.any_natural()
    pile += top
    pile = [c for c in pile if c]
    stock = []
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        stock += deck.any_natural()
    hands = [hand] + [deck.any_natural() + (deck.any_natural() if rng.random() < 0.5 else []) for _ in range(players - 1)]
    hands = [h if h else ["4C"] for h in hands]
    phase = rng.choice(["draw", "play"])
    facts: dict[str, Any] = {}
    q = rng.random()
    if players > sides:
        if q < 0.15:
            facts["question"] = "yes"
        elif q < 0.25:
            facts["question"] = "no"
    if phase == "play" and melds[0] and rng.random() < 0.4:
        chosen = rng.sample(own_ranks or [m[0][0] for m in melds[0]], 1)
        facts[rng.choice(["melded_ranks", "new_ranks"])] = chosen
    if phase == "play" and melds[0] and rng.random() < 0.15:
        facts["took_pile"] = True
    if melds[0] and rng.random() < 0.5:
        facts["melded_seats"] = [0]
    scores = [rng.choice(SCORES) for _ in range(sides)]
    position: dict[str, Any] = {
        "turn": 0, "phase": phase, "hands": hands, "melds": melds, "pile": pile, "stock": stock, "scores": scores,
    }
    if facts:
        position["facts"] = facts
    return position


def to_position(raw: dict[str, Any], variant: str) -> Position:
    data = {k: v for k, v in raw.items()}
    data.setdefault("red_threes", [[] for _ in raw["melds"]])
    data["variant"] = variant
    data["options"] = {}
    return Position.from_json(data)


def pool(n: int, seed: int) -> list[tuple[str, dict[str, Any], Position]]:
    spec = load_spec()
    engine = ReferenceEngine(spec)
    rng = random.Random(seed)
    out = []
    weights = [w for _, w in VARIANTS_USED]
    while len(out) < n:
        variant = rng.choices([v for v, _ in VARIANTS_USED], weights)[0]
        rules = spec.variant_rules(variant, {})
        raw = random_position(rng, variant, rules.players, rules.sides)
        try:
            position = to_position(raw, variant)
        except Exception:  # noqa: BLE001
            continue
        if setup_problems(position, spec):
            continue
        try:
            engine.load(position)
            engine.legal_actions()
        except Exception:  # noqa: BLE001
            continue
        out.append((variant, raw, position))
    return out


class Timeout(Exception):
    pass


def observe_all(engine: ReferenceEngine, position: Position) -> dict[str, Any]:
    """The engine's legal list, and for each listed action its verdict and the position after it."""
    engine.load(position)
    listed = engine.legal_actions()
    out: dict[str, Any] = {"listed": {format_action(a) for a in listed}, "after": {}}
    return out


def behaviour(engine: ReferenceEngine, position: Position, actions: list[Any]) -> dict[str, Any]:
    engine.load(position)
    listed = {format_action(a): a for a in engine.legal_actions()}
    verdicts = {}
    for text, action in {**{format_action(a): a for a in actions}, **listed}.items():
        engine.load(position)
        outcome = engine.apply(action)
        after = engine.observe().to_json() if outcome.accepted else None
        score = None
        if outcome.accepted and engine.observe().phase == "over":
            score = [s.to_json() for s in engine.score().sides]
        verdicts[text] = (outcome.status, outcome.rule, json.dumps(after, sort_keys=True), json.dumps(score, sort_keys=True))
    return {"listed": set(listed), "verdicts": verdicts}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--results", type=Path, default=None, help="hunt the survivors of this results file")
    parser.add_argument("--only", default=None)
    parser.add_argument("--modules", default=None)
    parser.add_argument("--positions", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--canasta-share", type=float, default=0.0, help="share of hands holding a canasta's worth of one rank and another meld")
    parser.add_argument("--variants", default=None, help="comma-separated variants of the generated positions (default: four Classic ones)")
    parser.add_argument("--short-share", type=float, default=0.0, help="share of short hands of a melded side (black threes, cards for its melds)")
    parser.add_argument("--red-pile-share", type=float, default=0.0, help="share of piles with a red three at the bottom")
    parser.add_argument("--out-share", type=float, default=0.0, help="share of hands built to be (nearly) all meldable")
    parser.add_argument("--verdicts", action="store_true", help="also compare verdicts and positions after each listed action")
    parser.add_argument("--json", type=Path, default=Path("hunt.json"))
    args = parser.parse_args()
    mutants = mutate.list_mutants(tuple(args.modules.split(",")) if args.modules else mutate.RULE_MODULES)
    if args.results:
        survived = {r["id"] for r in json.loads(args.results.read_text())["results"] if r["status"] == "survived"}
        mutants = [m for m in mutants if m.id in survived]
    if args.only:
        wanted = set(args.only.split(","))
        mutants = [m for m in mutants if m.id in wanted]
    global OUT_SHARE, CANASTA_SHARE, SHORT_SHARE, RED_PILE_SHARE, VARIANTS_USED
    if args.variants:
        VARIANTS_USED = tuple((v, 1) for v in args.variants.split(","))
    SHORT_SHARE = args.short_share
    RED_PILE_SHARE = args.red_pile_share
    OUT_SHARE = args.out_share
    CANASTA_SHARE = args.canasta_share
    positions = pool(args.positions, args.seed)
    print(f"{len(positions)} positions, {len(mutants)} mutants", file=sys.stderr)
    engine = ReferenceEngine(load_spec())
    reference = []
    for _, _, position in positions:
        engine.load(position)
        listed = engine.legal_actions()
        reference.append((listed, behaviour(engine, position, []) if args.verdicts else {"listed": {format_action(a) for a in listed}}))

    def alarm(signum: int, frame: Any) -> None:
        raise Timeout()

    signal.signal(signal.SIGALRM, alarm)
    report: dict[str, Any] = {"positions": [[v, raw] for v, raw, _ in positions], "mutants": {}}
    for index, m in enumerate(mutants):
        try:
            live, new = mutate.mutated_code(m)
        except Exception as error:  # noqa: BLE001
            report["mutants"][m.id] = {"error": str(error)}
            continue
        mutate._clear_caches()
        restore = mutate.swap_in(live, new)
        hits = []
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        try:
            for p, (_, _, position) in enumerate(positions):
                listed_ref, ref = reference[p]
                try:
                    if args.verdicts:
                        got = behaviour(engine, position, listed_ref)
                    else:
                        engine.load(position)
                        got = {"listed": {format_action(a) for a in engine.legal_actions()}}
                except Timeout:
                    raise
                except Exception as error:  # noqa: BLE001
                    hits.append({"position": p, "error": repr(error)[:200]})
                    continue
                missing = sorted(ref["listed"] - got["listed"])
                extra = sorted(got["listed"] - ref["listed"])
                verdicts = []
                if args.verdicts:
                    for text, v in ref["verdicts"].items():
                        w = got["verdicts"].get(text)
                        if w is not None and w != v:
                            verdicts.append([text, v[:2], w[:2], v[2] != w[2], v[3] != w[3]])
                if missing or extra or verdicts:
                    hits.append({"position": p, "missing": missing[:8], "extra": extra[:8], "verdicts": verdicts[:6]})
        except Timeout:
            hits.append({"timeout": True})
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            restore()
            mutate._clear_caches()
        report["mutants"][m.id] = {"line": m.line, "original": m.original, "mutated": m.mutated, "hits": hits[:40], "count": len(hits)}
        print(f"{index + 1}/{len(mutants)} {m.id}: {len(hits)} positions", file=sys.stderr, flush=True)
    args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    found = sum(1 for v in report["mutants"].values() if v.get("count"))
    print(f"{found}/{len(mutants)} mutants differ on some position", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
