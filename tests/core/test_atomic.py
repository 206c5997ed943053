from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest

from wireplan.core import Plan, atomic_open, write_bytes, write_plan, write_sized


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
    with pytest.raises(FileNotFoundError):
        write_bytes(tmp_path / "no" / "such", b"x")
