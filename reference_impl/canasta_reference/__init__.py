"""The Canasta reference engine: every rule of the spec, driven by the variant's parameters."""

__version__ = "0.1.0"


def create_engine():  # noqa: ANN201 - the harness's factory
    from .engine import ReferenceEngine

    return ReferenceEngine()
