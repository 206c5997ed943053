from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from wireplan.core import (
    Plan,
    SizedFile,
    atomic_open,
    write_bytes,
    write_group,
    write_plan,
    write_sized,
)
from wireplan.errors import FileError


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_write_bytes_replaces_atomically(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"
    write_bytes(target, b"first")
    write_bytes(target, b"second")
    assert target.read_bytes() == b"second"
    assert _leftovers(tmp_path) == []


def test_failure_keeps_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"
    target.write_bytes(b"precious")

    class Boom(Exception):
        pass

    with pytest.raises(Boom), atomic_open(target) as f:
        f.write(b"half")
        raise Boom
    assert target.read_bytes() == b"precious"

    def fill(buf: object) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_sized(target, 100, fill)
    assert target.read_bytes() == b"precious"
    assert _leftovers(tmp_path) == []


def test_write_plan_fills_file(tmp_path: Path) -> None:
    plan = Plan()
    plan.add(3, source=b"abc")
    src = np.arange(10, dtype=np.float64)
    region = plan.add(src.nbytes, alignment=4096, source=src, dtype=">f8")
    target = tmp_path / "plan.bin"
    write_plan(plan, target, threads=2)
    data = target.read_bytes()
    assert len(data) == plan.size
    assert data[:3] == b"abc"
    assert data[3:4096] == bytes(4093)
    np.testing.assert_array_equal(np.frombuffer(data, ">f8", offset=region.offset), src)


def test_empty_file_and_mode(tmp_path: Path) -> None:
    target = tmp_path / "empty"
    write_sized(target, 0, lambda buf: None)
    assert target.read_bytes() == b""
    mode = stat.S_IMODE(os.stat(target).st_mode)
    assert mode & 0o600 == 0o600  # not mkstemp's private 0600-only when umask allows more
    os.chmod(target, 0o640)
    write_bytes(target, b"x")
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(FileError, match="does not exist") as info:
        write_bytes(tmp_path / "no" / "such", b"x")
    assert isinstance(info.value, OSError) and info.value.errno == errno.ENOENT


def _sized(path: Path, data: bytes, **kw: Any) -> SizedFile:
    def fill(buf: Any) -> None:
        buf[: len(data)] = data

    return SizedFile(path, len(data), fill, **kw)


def test_write_group_all_or_none(tmp_path: Path) -> None:
    a, b = tmp_path / "m.ort.data", tmp_path / "m.ort"
    write_group([_sized(a, b"data 1"), _sized(b, b"ort 1")])
    assert (a.read_bytes(), b.read_bytes()) == (b"data 1", b"ort 1")

    def boom(buf: Any) -> None:
        raise RuntimeError("fill failed")

    with pytest.raises(RuntimeError):
        write_group([_sized(a, b"data 2"), SizedFile(b, 5, boom)])
    assert (a.read_bytes(), b.read_bytes()) == (b"data 1", b"ort 1")
    assert sorted(os.listdir(tmp_path)) == ["m.ort", "m.ort.data"]


def test_write_group_restores_on_a_failed_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = tmp_path / "x.data", tmp_path / "x.ort"
    write_group([_sized(a, b"old data"), _sized(b, b"old ort")])
    real = os.replace
    calls: list[str] = []

    def flaky(src: Any, dst: Any) -> None:
        calls.append(os.fspath(dst))
        if len(calls) == 2:
            raise OSError("rename failed")
        real(src, dst)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(OSError, match="rename failed"):
        write_group([_sized(a, b"new data"), _sized(b, b"new ort")])
    monkeypatch.setattr(os, "replace", real)
    assert (a.read_bytes(), b.read_bytes()) == (b"old data", b"old ort")
    assert sorted(os.listdir(tmp_path)) == ["x.data", "x.ort"]


def test_write_group_links(tmp_path: Path) -> None:
    src = tmp_path / "weights.bin"
    src.write_bytes(b"weights")
    target = tmp_path / "m.ort.data"
    never = SizedFile(
        target, 7, lambda _: pytest.fail("a linked file is not filled"), link_from=src
    )
    write_group([never, _sized(tmp_path / "m.ort", b"ort")], durable=False)
    assert target.stat().st_ino == src.stat().st_ino
    assert target.read_bytes() == b"weights"
