"""The Canasta reference engine: every rule of the spec, driven by the variant's parameters."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _build

if TYPE_CHECKING:
    from .engine import ReferenceEngine

__version__ = "0.1.0"

_build.check()  # a compiled build (tools/build_accelerated.py) made from other sources is refused


def build() -> str:
    """Which build of the engine runs: ``"pure"`` (Python source) or ``"compiled"`` (the optional mypyc build)."""
    return _build.build()


def engine_version() -> str:
    """The version the engine declares: ``__version__``, with ``+compiled`` when the compiled build runs."""
    return __version__ if build() == "pure" else f"{__version__}+compiled"


def create_engine() -> ReferenceEngine:
    from .engine import ReferenceEngine  # the engine loads when it is asked for, not with the package

    return ReferenceEngine()
