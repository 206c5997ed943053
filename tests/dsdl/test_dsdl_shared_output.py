"""Compiling namespaces one by one into one output folder, as pycyphal and nunavut users do.

Every type of every namespace stays importable, generated code of the
kept packages still agrees with pydsdl, a root compiled again loses its
stale types, and a failed compile leaves the previous packages in place.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pydsdl
import pytest
from hypothesis import HealthCheck, given, settings

import wireplan.dsdl
from wireplan.errors import FileError

from ._support import CORNER, REG, UAVCAN, class_for, full_name, serializable
from ._values import same, values


@contextlib.contextmanager
def _import_roots(out: Path, names: list[str]) -> Iterator[dict[str, ModuleType]]:
    """The packages in ``out``, imported fresh in this process (``out`` first on the path).

    On leaving, ``sys.modules`` is as before: other tests of the same worker
    (pycyphal's own ``uavcan``, imported by name) never see these packages.
    """

    def ours(name: str) -> bool:
        return name.split(".")[0] in names

    saved = {name: module for name, module in sys.modules.items() if ours(name)}
    for name in saved:
        del sys.modules[name]
    sys.path.insert(0, str(out))
    try:
        yield {n: importlib.import_module(n) for n in names}
    finally:
        sys.path.remove(str(out))
        for name in [name for name in sys.modules if ours(name)]:
            del sys.modules[name]
        sys.modules.update(saved)


@pytest.fixture(scope="module")
def one_by_one(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """uavcan, then reg (uavcan as lookup), then the corner namespace, into one folder."""
    out = tmp_path_factory.mktemp("shared-output")
    wireplan.dsdl.compile(UAVCAN, output=out)
    wireplan.dsdl.compile(REG, lookup=UAVCAN, output=out)
    wireplan.dsdl.compile(CORNER, output=out)
    return out


_FAST = settings(
    max_examples=2, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)


def test_every_type_of_every_namespace_stays_importable_and_agrees_with_pydsdl(
    one_by_one: Path,
) -> None:
    types = serializable(
        pydsdl.read_namespace(str(UAVCAN), [])
        + pydsdl.read_namespace(str(REG), [str(UAVCAN)])
        + pydsdl.read_namespace(str(CORNER), [])
    )
    assert len(types) == 288  # 266 of uavcan and reg (requests and responses apart) + 22 corner
    # In a fresh interpreter: nothing of this process's earlier imports can help.
    code = (
        "import sys, importlib; sys.path.insert(0, sys.argv[1]); "
        "[importlib.import_module(n) for n in ('uavcan', 'reg', 'corner')]; print('ok')"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(one_by_one)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    with _import_roots(one_by_one, ["uavcan", "reg", "corner"]) as roots:
        for t in types:
            cls = class_for(roots, t)
            assert full_name(t) == cls._FULL_NAME_
            assert t == cls._MODEL_  # the pickled models sit next to the modules they describe
            _agrees(t, cls)


def _agrees(t: Any, cls: Any) -> None:
    @_FAST
    @given(values(t))
    def check(v: Any) -> None:
        ref = pydsdl.serialize(t, v)
        assert cls.from_builtin(v).serialize() == ref, full_name(t)
        assert same(cls.deserialize(ref).to_builtin(), pydsdl.deserialize(t, ref))

    check()


def test_a_lookup_package_never_replaces_a_fuller_one(one_by_one: Path) -> None:
    heartbeat = one_by_one / "uavcan" / "node" / "__init__.py"
    before = heartbeat.stat().st_mtime_ns
    wireplan.dsdl.compile(REG, lookup=UAVCAN, output=one_by_one)  # uses 27 uavcan types
    assert heartbeat.stat().st_mtime_ns == before  # the whole uavcan package was kept
    assert "Heartbeat_1_0" in heartbeat.read_text()


def test_a_partial_lookup_package_grows_to_the_whole_namespace(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "base").mkdir(parents=True)
    (src / "base" / "A.1.0.dsdl").write_text("uint8 a\n@sealed\n")
    (src / "base" / "B.1.0.dsdl").write_text("uint16 b\n@sealed\n")
    (src / "base" / "C.1.0.dsdl").write_text("uint32 c\n@sealed\n")
    for name, uses in (("one", "A"), ("two", "B")):
        (src / name).mkdir()
        (src / name / "X.1.0.dsdl").write_text(f"base.{uses}.1.0 x\n@sealed\n")
    out = tmp_path / "out"
    wireplan.dsdl.compile(src / "one", lookup=src / "base", output=out)
    assert "B_1_0" not in (out / "base" / "__init__.py").read_text()  # only what `one` uses
    wireplan.dsdl.compile(src / "two", lookup=src / "base", output=out)
    with _import_roots(out, ["base", "one", "two"]) as roots:
        assert {"A_1_0", "B_1_0", "C_1_0"} <= set(dir(roots["base"]))  # compiled whole now
        one = roots["one"].X_1_0(x=roots["base"].A_1_0(a=7))
        assert roots["one"].X_1_0.deserialize(one.serialize()) == one
        two = roots["two"].X_1_0(x=roots["base"].B_1_0(b=513))
        assert two.serialize() == b"\x01\x02"


def test_a_root_compiled_again_loses_its_stale_types(tmp_path: Path) -> None:
    src = tmp_path / "src" / "mini"
    src.mkdir(parents=True)
    (src / "A.1.0.dsdl").write_text("uint8 x\n@sealed\n")
    (src / "Old.1.0.dsdl").write_text("uint8 y\n@sealed\n")
    out = tmp_path / "out"
    wireplan.dsdl.compile(src, output=out)
    (src / "Old.1.0.dsdl").unlink()
    wireplan.dsdl.compile(src, output=out)
    assert "Old_1_0" not in (out / "mini" / "__init__.py").read_text()


def test_a_failed_swap_puts_the_previous_packages_back(
    one_by_one: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    src = tmp_path / "src"
    (src / "first").mkdir(parents=True)
    (src / "second").mkdir()
    (src / "first" / "A.1.0.dsdl").write_text("uint8 a\n@sealed\n")
    (src / "second" / "B.1.0.dsdl").write_text("first.A.1.0 a\n@sealed\n")
    out = tmp_path / "out"
    wireplan.dsdl.compile([src / "first", src / "second"], output=out)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    real = os.replace
    calls = 0

    def failing(a: Any, b: Any) -> None:
        nonlocal calls
        calls += 1
        if calls == 4:  # the second package's swap into place
            raise OSError("disk full")
        real(a, b)

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(OSError, match="disk full"):
        wireplan.dsdl.compile([src / "first", src / "second"], output=out)
    monkeypatch.setattr(os, "replace", real)
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before  # both previous packages in place, nothing staged left
    assert sorted(p.name for p in out.iterdir()) == ["first", "second"]


def test_a_folder_wireplan_did_not_write_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "src" / "mini"
    src.mkdir(parents=True)
    (src / "A.1.0.dsdl").write_text("uint8 x\n@sealed\n")
    out = tmp_path / "out"
    (out / "mini").mkdir(parents=True)
    (out / "mini" / "keep.txt").write_text("mine")
    with pytest.raises(FileError, match="not written by wireplan"):
        wireplan.dsdl.compile(src, output=out)
    assert (out / "mini" / "keep.txt").read_text() == "mine"
