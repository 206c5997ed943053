"""``durable=False``: the same temporary file and rename as the durable path, without fsync."""

from __future__ import annotations

import mmap
import os
import signal
import stat
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from wireplan.core import Plan, atomic_open, write_bytes, write_plan, write_sized


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture
def msyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per ``mmap.flush`` (msync) on a mapping made through ``mmap.mmap``."""
    calls: list[int] = []

    class Spy(mmap.mmap):
        def flush(self, *args: Any) -> None:
            calls.append(len(self))
            super().flush(*args)

    monkeypatch.setattr(mmap, "mmap", Spy)
    return calls


def _plan() -> tuple[Plan, bytes]:
    plan = Plan()
    plan.add(3, source=b"abc")
    src = np.arange(1000, dtype="<u4")
    plan.add(src.nbytes, alignment=4096, source=src)
    return plan, b"abc" + bytes(4093) + src.tobytes()


def _via_atomic_open(path: Path, durable: bool) -> bytes:
    with atomic_open(path, durable=durable) as f:
        f.write(b"opened")
    return b"opened"


def _via_write_bytes(path: Path, durable: bool) -> bytes:
    write_bytes(path, memoryview(b"bytes"), durable=durable)
    return b"bytes"


def _via_write_sized(path: Path, durable: bool) -> bytes:
    def fill(buf: Any) -> None:
        buf[:5] = b"sized"

    write_sized(path, 8, fill, durable=durable)
    return b"sized\0\0\0"


def _via_write_plan(path: Path, durable: bool) -> bytes:
    plan, expected = _plan()
    write_plan(plan, path, threads=2, durable=durable)
    return expected


WRITERS: list[Callable[[Path, bool], bytes]] = [
    _via_atomic_open,
    _via_write_bytes,
    _via_write_sized,
    _via_write_plan,
]


@pytest.mark.parametrize("writer", WRITERS, ids=lambda w: w.__name__[5:])
def test_fsync_only_when_durable(
    writer: Callable[[Path, bool], bytes], tmp_path: Path, fsyncs: list[int]
) -> None:
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    expected = writer(target, False)
    assert fsyncs == []
    assert target.read_bytes() == expected
    assert _leftovers(tmp_path) == []

    assert writer(target, True) == expected
    # The file, then the folder.
    assert len(fsyncs) == 2
    assert target.read_bytes() == expected
    assert _leftovers(tmp_path) == []


def test_default_is_durable(tmp_path: Path, fsyncs: list[int]) -> None:
    write_bytes(tmp_path / "a", b"x")
    write_sized(tmp_path / "b", 4, lambda buf: None)
    assert len(fsyncs) == 4


def test_mapping_msynced_only_when_durable(tmp_path: Path, msyncs: list[int]) -> None:
    write_sized(tmp_path / "a", 4096, lambda buf: buf.__setitem__(0, 1), durable=False)
    assert msyncs == []
    write_sized(tmp_path / "a", 4096, lambda buf: buf.__setitem__(0, 2), durable=True)
    assert msyncs == [4096]
    assert (tmp_path / "a").read_bytes()[:1] == b"\x02"


@pytest.mark.parametrize("size", [0, 1, 5000])
def test_not_durable_target_untouched_until_done(tmp_path: Path, size: int) -> None:
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    seen: list[bytes] = []

    def fill(buf: Any) -> None:
        buf[:] = b"\x07" * size
        seen.append(target.read_bytes())

    write_sized(target, size, fill, durable=False)
    assert seen == [b"old"]
    assert target.read_bytes() == b"\x07" * size


def test_not_durable_failure_keeps_old_file(tmp_path: Path, fsyncs: list[int]) -> None:
    target = tmp_path / "out.bin"
    target.write_bytes(b"precious")

    class Boom(Exception):
        pass

    with pytest.raises(Boom), atomic_open(target, durable=False) as f:
        f.write(b"half")
        raise Boom
    assert target.read_bytes() == b"precious"

    def interrupt(buf: Any) -> None:
        buf[:4] = b"half"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_sized(target, 100, interrupt, durable=False)
    assert target.read_bytes() == b"precious"

    plan = Plan()
    plan.add(8, source=np.zeros(2, dtype="<u8"))  # 16 source bytes for 8: the copy fails
    with pytest.raises(ValueError):
        write_plan(plan, target, durable=False)
    assert target.read_bytes() == b"precious"
    assert _leftovers(tmp_path) == []
    assert fsyncs == []


def test_not_durable_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"
    write_bytes(target, b"x", durable=False)
    assert stat.S_IMODE(os.stat(target).st_mode) & 0o600 == 0o600
    os.chmod(target, 0o640)
    write_bytes(target, b"y", durable=False)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_not_durable_killed_process_leaves_old_file(tmp_path: Path) -> None:
    """A process killed in the middle of a write: the target still holds the old bytes."""
    target = tmp_path / "out.bin"
    target.write_bytes(b"precious")
    script = textwrap.dedent(
        """
        import os, signal, sys
        from wireplan.core import write_sized

        def fill(buf):
            buf[:4] = b"half"
            os.kill(os.getpid(), signal.SIGKILL)

        write_sized(sys.argv[1], 1 << 20, fill, durable=False)
        """
    )
    proc = subprocess.run([sys.executable, "-c", script, str(target)], check=False)
    assert proc.returncode == -signal.SIGKILL
    assert target.read_bytes() == b"precious"
    # Only the temporary file remains beside it (nobody was left to remove it).
    assert len(_leftovers(tmp_path)) == 1
