"""The tools built on the layers below: the ``canasta`` command (cli), coverage, the spec views,
the JSON export, the fuzzing command, the game record text form and the Hypothesis strategies.
"""
