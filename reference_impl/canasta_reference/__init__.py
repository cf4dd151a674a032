"""The Canasta reference engine: every rule of the spec, driven by the variant's parameters."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .engine import ReferenceEngine

__version__ = "0.1.0"


def create_engine() -> ReferenceEngine:
    from .engine import ReferenceEngine  # the engine loads when it is asked for, not with the package

    return ReferenceEngine()
