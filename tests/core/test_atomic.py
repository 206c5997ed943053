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


def test_without_durability_an_existing_file_is_exchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """durable=False swaps the new file in (renameat2 RENAME_EXCHANGE on Linux), so no rename
    over a file happens: the same result as os.replace, which is never called."""
    import sys

    from wireplan.core import atomic

    assert atomic._renameat2() is not None or not sys.platform.startswith("linux")
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    os.link(target, tmp_path / "other name")
    real = os.replace

    def refused(src: Any, dst: Any) -> None:
        raise AssertionError("os.replace called")

    if atomic._renameat2() is not None:
        monkeypatch.setattr(os, "replace", refused)
    write_bytes(target, b"new", durable=False)
    plan = Plan()
    plan.place(0, 3, source=b"abc")
    write_plan(plan, target, durable=False)
    assert target.read_bytes() == b"abc"
    assert (tmp_path / "other name").read_bytes() == b"old"  # as after a rename
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["other name", "out.bin"]
    monkeypatch.setattr(os, "replace", real)
    write_bytes(tmp_path / "new.bin", b"first", durable=False)  # nothing to exchange with
    assert (tmp_path / "new.bin").read_bytes() == b"first"
    assert _leftovers(tmp_path) == []


def test_without_durability_a_group_is_restored_on_a_failed_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wireplan.core import atomic

    a, b = tmp_path / "x.data", tmp_path / "x.ort"
    write_group([_sized(a, b"old data"), _sized(b, b"old ort")], durable=False)
    real = atomic._rename
    calls: list[str] = []

    def flaky(tmp: str, target: str, durable: bool) -> None:
        calls.append(target)
        if len(calls) == 2:
            raise OSError("rename failed")
        real(tmp, target, durable)

    monkeypatch.setattr(atomic, "_rename", flaky)
    with pytest.raises(OSError, match="rename failed"):
        write_group([_sized(a, b"new data"), _sized(b, b"new ort")], durable=False)
    assert (a.read_bytes(), b.read_bytes()) == (b"old data", b"old ort")
    assert sorted(os.listdir(tmp_path)) == ["x.data", "x.ort"]


@pytest.mark.parametrize("durable", [True, False])
@pytest.mark.parametrize("exists", [True, False])
def test_write_over_scratch_reuses_the_scratch_file(
    tmp_path: Path, durable: bool, exists: bool
) -> None:
    """Another program's output beside the target, written over and renamed into place:
    shorter or longer than it was, with the target's mode, nothing left behind."""
    from wireplan.core.atomic import scratch_beside, write_over_scratch

    target = tmp_path / "model.ort"
    if exists:
        target.write_bytes(b"previous")
        os.chmod(target, 0o640)
    for data in (b"x" * 100_000, b"short", np.arange(3 << 20, dtype=np.uint8) * 7):
        with scratch_beside(target) as scratch:
            Path(scratch).write_bytes(b"theirs" * 50_000)
            calls: list[int] = []
            write_over_scratch(scratch, target, data, durable=durable, progress=calls.append)
            assert not os.path.exists(scratch)
        assert target.read_bytes() == bytes(data)
        assert sum(calls) == memoryview(data).nbytes and calls
        mode = stat.S_IMODE(os.stat(target).st_mode)
        assert mode == 0o640 if exists else mode & 0o600 == 0o600
    for data in (b"", b"without progress"):  # one write of all, even of nothing
        with scratch_beside(target) as scratch:
            Path(scratch).write_bytes(b"theirs")
            write_over_scratch(scratch, target, data, durable=durable)
        assert target.read_bytes() == data
    assert _leftovers(tmp_path) == []


def test_write_over_scratch_failing_keeps_the_previous_file(tmp_path: Path) -> None:
    from wireplan.core.atomic import scratch_beside, write_over_scratch

    target = tmp_path / "model.ort"
    target.write_bytes(b"previous")
    with (
        scratch_beside(target) as scratch,  # never written: nothing to write over
        pytest.raises(FileError, match=r"cannot write .*model\.ort"),
    ):
        write_over_scratch(scratch, target, b"new")
    assert target.read_bytes() == b"previous"
    with pytest.raises(FileError, match="is a directory"):
        write_over_scratch(tmp_path / "s", tmp_path, b"new")
    assert _leftovers(tmp_path) == []
