"""One error family: every exception class of the harness, the reference engine and the rules site
derives from CanastaError (keeping its built-in base where callers catch that), none from
AssertionError."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

import canasta_conformance
import canasta_reference
import canasta_site
from canasta_conformance.contract.errors import CanastaError


def modules() -> list[ModuleType]:
    found = []
    for package in (canasta_conformance, canasta_reference, canasta_site):
        found.append(package)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if not info.name.endswith(".__main__"):  # running it starts the CLI
                found.append(importlib.import_module(info.name))
    return found


def exception_classes() -> list[type[BaseException]]:
    return [
        cls for module in modules() for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, BaseException) and cls.__module__ == module.__name__
    ]


def test_every_exception_class_derives_from_the_one_base() -> None:
    classes = exception_classes()
    names = {c.__qualname__ for c in classes}
    assert {"ReplayError", "Illegal", "EngineFault", "ScenarioError", "ShortcodeError"} <= names  # all three packages seen
    assert len(classes) >= 25
    assert [f"{c.__module__}.{c.__qualname__}" for c in classes if not issubclass(c, CanastaError)] == []


def test_no_exception_class_is_an_assertion_error() -> None:
    assert [f"{c.__module__}.{c.__qualname__}" for c in exception_classes() if issubclass(c, AssertionError)] == []


def test_bad_data_errors_keep_their_built_in_base() -> None:
    from canasta_conformance.contract.engine_protocol import EngineFault
    from canasta_conformance.contract.model import FormatError
    from canasta_conformance.contract.scenario import ScenarioError
    from canasta_conformance.contract.spec import SpecError

    assert all(issubclass(cls, ValueError) for cls in (FormatError, ScenarioError, SpecError))
    assert issubclass(EngineFault, RuntimeError)
