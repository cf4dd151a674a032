"""The contract layer: cards, positions, actions and outcomes (model), the engine protocol, the
spec and scenario formats with their loading and checks (schemas, YAML reading, the typed variant
view), game records and where the data lives. Imports nothing above it.
"""
