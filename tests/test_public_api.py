"""The public surface is what each package's ``__all__`` says, and nothing else leaks."""

from __future__ import annotations
import __future__

import importlib
import types

import pytest

PUBLIC_MODULES = [
    "wireplan",
    "wireplan.errors",
    "wireplan.core",
    "wireplan.evalue",
    "wireplan.dsdl",
    "wireplan.ort",
]


def _module(name: str) -> types.ModuleType:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:  # a format not built yet
        if exc.name == name:
            pytest.skip(f"{name} does not exist yet")
        raise


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_all_names_resolve(name: str) -> None:
    mod = _module(name)
    exported = getattr(mod, "__all__", None)
    assert exported is not None, f"{name} has no __all__"
    assert len(exported) == len(set(exported)), f"{name}.__all__ repeats a name"
    for attr in exported:
        assert getattr(mod, attr, None) is not None, f"{name}.{attr} is listed but missing"


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_nothing_public_outside_all(name: str) -> None:
    mod = _module(name)
    exported = set(mod.__all__)
    leaked = []
    for attr, value in vars(mod).items():
        if attr.startswith("_") or attr in exported:
            continue
        if isinstance(value, types.ModuleType | __future__._Feature):
            continue  # submodules and `from __future__ import annotations`
        leaked.append(attr)
    assert not leaked, f"{name} exposes {leaked} without listing them in __all__"


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_public_objects_are_defined_in_the_package(name: str) -> None:
    mod = _module(name)
    for attr in mod.__all__:
        value = getattr(mod, attr)
        origin = getattr(value, "__module__", None)
        if isinstance(value, type | types.FunctionType) and origin is not None:
            assert origin.startswith("wireplan"), f"{name}.{attr} comes from {origin}"


def test_every_error_is_exported_at_the_top() -> None:
    import wireplan
    import wireplan.errors

    for name in wireplan.errors.__all__:
        assert name in wireplan.__all__, f"wireplan.{name} is not exported"
        assert getattr(wireplan, name) is getattr(wireplan.errors, name)


def test_compile_error_is_one_class() -> None:
    """``wireplan.dsdl.compiler.CompileError`` (where pydsdl's errors become it) is ``wireplan.CompileError``."""
    pytest.importorskip("pydsdl")
    import wireplan
    from wireplan.dsdl import compiler

    assert "CompileError" in compiler.__all__
    assert compiler.CompileError is wireplan.CompileError
    assert wireplan.CompileError.__module__ == "wireplan.errors"


def test_errors_module_imports_only_the_standard_library() -> None:
    import ast
    import sys
    from pathlib import Path

    import wireplan.errors

    tree = ast.parse(Path(wireplan.errors.__file__).read_text())
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
