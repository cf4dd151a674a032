"""The one base of every exception the harness, the reference engine and the rules site raise."""

from __future__ import annotations


class CanastaError(Exception):
    """Something this project reports: a broken file, an engine fault, an illegal action...

    Each subclass keeps the built-in base it had (``ValueError`` for bad data, ``RuntimeError``
    for a failing engine), so ``except ValueError`` still catches bad data; none is an
    ``AssertionError`` (a failed check of the harness is a result, not a failed assert)."""
