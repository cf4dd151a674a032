"""Modern American's bounded legal list (legal.py) against the move generator (movegen.py), before
deleting the old one.

    python benchmarks/legal_modern_oracle_check.py FIRST_SEED LAST_SEED [--json]

Random walks of Modern American hands (a fresh deal per seed, then a random action from the new
list, from the old list, or the melding self-play player's choice, a third each, so that hands reach
the melded, canasta and going-out positions): at every position every action the move generator lists must be accepted
by apply, the list must not be empty while the hand is live, and every action the old generator
lists must be listed by the new one up to the equivalence documented in movegen.py
(tests/legal_equivalence.py decides it independently of both generators).
"""

import json
import random
import sys
import time
from pathlib import Path

from canasta_conformance.cards import full_deck
from canasta_conformance.engine import DealSetup
from canasta_reference import legal as old
from canasta_reference.engine import ReferenceEngine
from canasta_reference.selfplay import MeldingPlayer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from legal_equivalence import canonical, covered

VARIANT = "modern-american"
first_seed, last_seed = int(sys.argv[1]), int(sys.argv[2])
e = ReferenceEngine()
probe = ReferenceEngine(e.spec)
r = e.rules_for(VARIANT, {})
positions = old_n = new_n = direct = stepped = bad = hands = went_out = 0
only_new = 0  # listed by the new generator, not by the old one (canonically)
kinds: dict[str, int] = {}
t = time.process_time()
for seed in range(first_seed, last_seed):
    rng = random.Random(seed)
    player = MeldingPlayer(rng)
    deck = full_deck(r.deck_packs, r.deck_jokers)
    rng.shuffle(deck)
    e.deal(DealSetup(VARIANT, {}, seed % r.players, tuple(deck)))
    while e.state is not None and e.state.phase != "over":
        pos = e.observe()
        new = e.legal_actions()
        olds = old.legal_actions(e)
        positions += 1
        old_n += len(olds)
        new_n += len(new)
        if not new:
            bad += 1
            print("EMPTY LIST", pos.to_json())
            break
        for a in new:
            probe.load(pos)
            out = probe.apply(a)
            if not out.accepted:
                bad += 1
                print("LISTED BUT ILLEGAL", a, out, pos.to_json())
        newset = set(new)
        oldcanon = {canonical(a, pos, r.cards_wild_ranks, True) for a in olds}
        for a in new:
            if a not in oldcanon:
                only_new += 1
                kinds[type(a).__name__] = kinds.get(type(a).__name__, 0) + 1
        for a in olds:
            if canonical(a, pos, r.cards_wild_ranks, True) in newset:
                direct += 1
            elif covered(pos, a, e.spec):
                stepped += 1
            else:
                bad += 1
                print("OLD NOT COVERED", a, pos.to_json())
        pick = rng.random()
        if pick < 1 / 3:
            choice = player.choose(e)
        else:
            choice = new[rng.randrange(len(new))] if pick < 2 / 3 or not olds else olds[rng.randrange(len(olds))]
        assert e.apply(choice).accepted
    hands += 1
    went_out += e.state is not None and e.state.ended is not None and e.state.ended.reason == "went_out"
result = {
    "method": "Modern American random walks; at every position: new list non-empty, every new-listed action accepted by apply, "
              "every old-listed action listed by the new generator up to the documented equivalence",
    "seeds": [first_seed, last_seed], "hands": hands, "hands_gone_out": went_out, "positions": positions,
    "old_listed": old_n, "new_listed": new_n, "old_covered_directly": direct, "old_covered_by_steps": stepped,
    "new_only": only_new, "new_only_by_kind": kinds, "failures": bad, "cpu_seconds": round(time.process_time() - t),
}
print(json.dumps(result) if "--json" in sys.argv else "\n".join(f"{k}: {v}" for k, v in result.items()))
sys.exit(1 if bad else 0)
