"""The old legal-move generator (legal.py) against the new one (movegen.py), before deleting the old.

    python benchmarks/legal_oracle_check.py FIRST_SEED LAST_SEED VARIANT[,VARIANT...]

Random walks (a fresh deal per seed, then a random action from the new or the old list, half and
half): at every position, every action the new generator lists must be accepted by apply, the
list must not be empty while the hand is live, and every action the old generator lists must be
listed by the new one up to the equivalence documented in movegen.py (tests/legal_equivalence.py
decides it independently of both generators).
"""

import random
import sys
import time
from pathlib import Path

from canasta_conformance.cards import full_deck
from canasta_conformance.engine import DealSetup
from canasta_reference import legal as old
from canasta_reference.engine import ReferenceEngine

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from legal_equivalence import canonical, covered  # noqa: E402

variants = sys.argv[3].split(",")
e = ReferenceEngine()
probe = ReferenceEngine(e.spec)
positions = old_n = new_n = direct = stepped = bad = 0
t = time.time()
for seed in range(int(sys.argv[1]), int(sys.argv[2])):
    variant = variants[seed % len(variants)]
    rng = random.Random(seed)
    r = e.rules_for(variant, {})
    deck = full_deck(r.deck_packs, r.deck_jokers)
    rng.shuffle(deck)
    first = rng.randrange(r.players) if r.deal_first_player == "random" else None
    e.deal(DealSetup(variant, {}, seed % r.players, tuple(deck), first_player=first))
    while e.state.phase != "over":
        pos = e.observe()
        new = e.legal_actions()
        olds = old.legal_actions(e)
        positions += 1
        old_n += len(olds)
        new_n += len(new)
        assert new, f"empty list {pos.to_json()}"
        for a in new:
            probe.load(pos)
            out = probe.apply(a)
            if not out.accepted:
                bad += 1
                print("LISTED BUT ILLEGAL", a, out, pos.to_json())
        newset = set(new)
        for a in olds:
            if canonical(a, pos, r.cards_wild_ranks) in newset:
                direct += 1
            elif covered(pos, a, e.spec):
                stepped += 1
            else:
                bad += 1
                print("OLD NOT COVERED", a, pos.to_json())
        e.apply(new[rng.randrange(len(new))] if rng.random() < 0.5 or not olds else olds[rng.randrange(len(olds))])
print(
    f"variants {variants} seeds {sys.argv[1]}-{sys.argv[2]}: positions {positions}, old listed {old_n}, new listed {new_n}, "
    f"old covered directly {direct}, by steps {stepped}, failures {bad}, {time.time() - t:.0f}s"
)
sys.exit(1 if bad else 0)
