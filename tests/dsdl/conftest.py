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

from ._producers import PEER_SUBSET, Headers, c_header, cpp_parts, run_nnvg
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
def wp_public_numpy(public_types: list[Any]) -> dict[str, ModuleType]:
    """wireplan's packages of uavcan and reg with nunavut's arrays (``arrays="numpy"``)."""
    from wireplan.dsdl import load

    uavcan, reg = load([UAVCAN, REG], arrays="numpy")
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


# -- C and C++ headers of every type, by producer (tests/dsdl/_producers.py)


@pytest.fixture(scope="session")
def all_types(public_types: list[Any], corner_types: list[Any]) -> list[Any]:
    return public_types + corner_types


@pytest.fixture(scope="session")
def wireplan_headers(tmp_path_factory: pytest.TempPathFactory, all_types: list[Any]) -> Headers:
    """wireplan's headers of uavcan, reg and corner, compiled namespace by namespace."""
    from wireplan.dsdl import compile as compile_dsdl

    out = tmp_path_factory.mktemp("wireplan-c")
    compile_dsdl(UAVCAN, output=out, language="c")
    compile_dsdl(REG, lookup=UAVCAN, output=out, language="c")
    compile_dsdl(CORNER, output=out, language="c")
    return Headers("wireplan", out, all_types)


@pytest.fixture(scope="session")
def nunavut_headers(tmp_path_factory: pytest.TempPathFactory, all_types: list[Any]) -> Headers:
    """nunavut 3.1's headers of the corner namespace and of a subset of uavcan and reg."""
    out = tmp_path_factory.mktemp("nunavut-c")
    public = UAVCAN.parent
    run_nnvg(
        out,
        [f"{public / p.split('/')[0]}:{p.split('/', 1)[1]}" for p in PEER_SUBSET],
        [UAVCAN, REG],
    )
    run_nnvg(out, [str(CORNER)], [])
    covered = [t for t in all_types if (out / c_header(t)).exists()]
    return Headers("nunavut", out, covered)


def _wireplan_cpp(tmp: pytest.TempPathFactory, all_types: list[Any], standard: str) -> Headers:
    """wireplan's C++ headers of uavcan, reg and corner for ``standard``, namespace by
    namespace."""
    from wireplan.dsdl import compile as compile_dsdl

    out = tmp.mktemp(f"wireplan-{standard}")
    lookups: list[tuple[Path, list[Path]]] = [(UAVCAN, []), (REG, [UAVCAN]), (CORNER, [])]
    for root, lookup in lookups:
        compile_dsdl(root, lookup=lookup, output=out, language="cpp", language_standard=standard)
    return Headers("wireplan", out, all_types, "cpp")


@pytest.fixture(scope="session")
def wireplan_cpp_headers(tmp_path_factory: pytest.TempPathFactory, all_types: list[Any]) -> Headers:
    """wireplan's C++17 headers (the default standard)."""
    return _wireplan_cpp(tmp_path_factory, all_types, "c++17")


@pytest.fixture(scope="session")
def wireplan_cpp14_headers(
    tmp_path_factory: pytest.TempPathFactory, all_types: list[Any]
) -> Headers:
    """wireplan's C++14 headers (nunavut's default standard)."""
    return _wireplan_cpp(tmp_path_factory, all_types, "c++14")


@pytest.fixture(scope="session")
def wireplan_cpp_pmr_headers(
    tmp_path_factory: pytest.TempPathFactory, all_types: list[Any]
) -> Headers:
    """wireplan's C++ headers with PMR allocators (``c++17-pmr``)."""
    return _wireplan_cpp(tmp_path_factory, all_types, "c++17-pmr")


@pytest.fixture(scope="session")
def wireplan_cpp_cetl_headers(
    tmp_path_factory: pytest.TempPathFactory, all_types: list[Any]
) -> Headers:
    """wireplan's C++ headers with CETL's containers and allocator (``cetl++14-17``)."""
    return _wireplan_cpp(tmp_path_factory, all_types, "cetl++14-17")


@pytest.fixture(scope="session")
def nunavut_cpp_cetl_headers(
    tmp_path_factory: pytest.TempPathFactory, all_types: list[Any]
) -> Headers:
    """nunavut 3.1's ``cetl++14-17`` headers of the corner namespace and of the subset of
    uavcan and reg (with the CETL name fix of _producers.NNVG_CETL_FIX)."""
    return _nunavut_cpp(tmp_path_factory, all_types, "cetl++14-17")


@pytest.fixture(scope="session")
def nunavut_cpp_headers(tmp_path_factory: pytest.TempPathFactory, all_types: list[Any]) -> Headers:
    """nunavut 3.1's C++17 headers of the corner namespace and of the subset of uavcan and reg."""
    return _nunavut_cpp(tmp_path_factory, all_types, "c++17")


def _nunavut_cpp(tmp: pytest.TempPathFactory, all_types: list[Any], standard: str) -> Headers:
    out = tmp.mktemp(f"nunavut-{standard}")
    public = UAVCAN.parent
    targets = [f"{public / p.split('/')[0]}:{p.split('/', 1)[1]}" for p in PEER_SUBSET]
    run_nnvg(out, targets, [UAVCAN, REG], "cpp", standard)
    run_nnvg(out, [str(CORNER)], [], "cpp", standard)
    covered = [t for t in all_types if (out / cpp_parts(t)[2]).exists()]
    return Headers("nunavut", out, covered, "cpp")


@pytest.fixture(scope="session")
def nunavut_full_headers(tmp_path_factory: pytest.TempPathFactory, all_types: list[Any]) -> Headers:
    """nunavut 3.1's headers of every type (about a minute of nnvg: the slow run only)."""
    out = tmp_path_factory.mktemp("nunavut-full-c")
    run_nnvg(out, [str(UAVCAN)], [])
    run_nnvg(out, [str(REG)], [UAVCAN])
    run_nnvg(out, [str(CORNER)], [])
    return Headers("nunavut", out, all_types)
