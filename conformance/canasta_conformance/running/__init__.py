"""The run machinery: running a scenario on an engine and judging it (runner, diff, harness),
known failures, reports and result collection, the scenario cache, replaying game records,
differential fuzzing and shrinking. Imports only the contract.
"""
