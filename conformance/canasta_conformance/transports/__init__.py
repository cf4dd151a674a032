"""The transports: the JSON-lines engine protocol's messages (protocol), serving an engine over
stdin/stdout (server) and driving an engine program (subprocess_engine, process_io). Imports only
the contract.
"""
