"""The self-play player of ``canasta play`` (canasta_conformance.tools.selfplay.MeldingPlayer),
driving the reference engine directly in the property tests: it chooses among the engine's own
legal_actions(), reading the observed position, and plays hands that end by going out."""

from __future__ import annotations

import random

from canasta_conformance.contract.model import Action
from canasta_conformance.tools.selfplay import MeldingPlayer
from canasta_reference.engine import ReferenceEngine


class EngineMeldingPlayer:
    def __init__(self, rng: random.Random) -> None:
        self.player = MeldingPlayer(rng)

    def choose(self, engine: ReferenceEngine) -> Action:
        assert engine.state is not None
        return self.player.choose(engine.legal_actions(), engine.observe(), engine.state.rules)
