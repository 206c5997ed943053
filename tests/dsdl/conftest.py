"""Session fixtures of the DSDL tests: pydsdl types, wireplan packages, pycyphal packages.

Everything compiled lives in per-session temporary folders; the public
regulated data types are the repository's own test data (tests/data/dsdl).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pydsdl
import pytest

from ._support import CORNER, REG, UAVCAN, serializable


@pytest.fixture(scope="session", autouse=True)
def _cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every load() of the session compiles into a temporary cache."""
    folder = tmp_path_factory.mktemp("wireplan-cache")
    old = os.environ.get("WIREPLAN_CACHE_DIR")
    os.environ["WIREPLAN_CACHE_DIR"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("WIREPLAN_CACHE_DIR", None)
    else:
        os.environ["WIREPLAN_CACHE_DIR"] = old


@pytest.fixture(scope="session")
def public_types() -> list[Any]:
    """pydsdl types of every message, request and response of uavcan and reg."""
    types = pydsdl.read_namespace(str(UAVCAN), []) + pydsdl.read_namespace(str(REG), [str(UAVCAN)])
    return serializable(types)


@pytest.fixture(scope="session")
def wp_public(public_types: list[Any]) -> dict[str, ModuleType]:
    """wireplan's packages of uavcan and reg."""
    from wireplan.dsdl import load

    uavcan, reg = load([UAVCAN, REG])
    return {"uavcan": uavcan, "reg": reg}


@pytest.fixture(scope="session")
def corner_types() -> list[Any]:
    return serializable(pydsdl.read_namespace(str(CORNER), []))


@pytest.fixture(scope="session")
def wp_corner(corner_types: list[Any]) -> dict[str, ModuleType]:
    from wireplan.dsdl import load

    return {"corner": load(CORNER)}


@pytest.fixture(scope="session")
def pycyphal_public(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ModuleType]:
    """pycyphal's (nunavut's) packages of uavcan and reg, compiled once per session."""
    pycyphal_dsdl = pytest.importorskip("pycyphal.dsdl")
    import importlib

    out = tmp_path_factory.mktemp("pycyphal")
    pycyphal_dsdl.compile(str(UAVCAN), [], str(out))
    pycyphal_dsdl.compile(str(REG), [str(UAVCAN)], str(out))
    sys.path.insert(0, str(out))
    return {"uavcan": importlib.import_module("uavcan"), "reg": importlib.import_module("reg")}
