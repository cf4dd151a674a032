"""The pytest plugin (``-p canasta``): scenario files as test items, engine sessions, reports, and
the fuzzing items. Imports the contract, the run machinery and the transports.
"""
