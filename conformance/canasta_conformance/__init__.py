"""The Canasta conformance suite: the contract layer (cards, positions, actions, outcomes),
spec and scenario loading, the engine protocol, the scenario runner, the pytest plugin and CLI."""

__version__ = "0.1.0"
