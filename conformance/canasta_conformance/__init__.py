"""The Canasta conformance suite, in layers (ARCHITECTURE.md): ``contract`` (cards, positions,
actions, outcomes, the engine protocol, the spec and scenario formats), ``running`` (running and
judging scenarios, reports, fuzzing), ``transports`` (engines in other processes), ``pytest_plugin``
and ``tools`` (the ``canasta`` command and the rest built on them)."""

__version__ = "0.1.0"
