"""Debris of killed writers is swept by the next write; path problems are FileErrors."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from wireplan.core import SizedFile, write_bytes, write_group, write_sized
from wireplan.core.atomic import _DEBRIS, _host_tag, scratch_beside
from wireplan.errors import FileError, WireplanError

_KILLED_WRITER = textwrap.dedent(
    """
    import sys, time
    from wireplan.core import write_sized

    def fill(buf):
        buf[:5] = b"half!"
        print("filling", flush=True)
        time.sleep(60)

    write_sized(sys.argv[1], 1 << 20, fill)
    """
)


def _tmps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def _env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[2] / "src")
    return {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}


def test_sigkilled_writer_debris_is_removed_by_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "model.ort"
    child = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, str(target)],
        stdout=subprocess.PIPE,
        env=_env(),
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "filling\n"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    debris = _tmps(tmp_path)
    assert len(debris) == 1 and debris[0].startswith(f".model.ort.w{child.pid}-{_host_tag()}.")
    assert (tmp_path / debris[0]).stat().st_size == 1 << 20
    assert not target.exists()
    write_bytes(tmp_path / "other.bin", b"x", durable=False)  # any write into the folder
    assert _tmps(tmp_path) == []
    assert (tmp_path / "other.bin").read_bytes() == b"x"


def test_debris_of_live_or_foreign_writers_is_kept(tmp_path: Path) -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        tag = _host_tag()
        other_tag = "0" * 8 if tag != "0" * 8 else "1" * 8
        kept = [
            f".a.w{sleeper.pid}-{tag}.abc123.tmp",  # a live writer
            f".b.w{os.getpid()}-{tag}.abc123.tmp",  # this process (another thread)
            f".c.w{sleeper.pid + 10**9}-{other_tag}.abc123.tmp",  # another host's pid
            ".d.abc123.tmp",  # no pid recorded
            "e.w1-abcdef01.abc.tmp.txt",
        ]
        for name in kept:
            (tmp_path / name).write_bytes(b"")
        write_bytes(tmp_path / "out.bin", b"x")
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*kept, "out.bin"])
    finally:
        sleeper.kill()
        sleeper.wait()
    write_sized(tmp_path / "out.bin", 1, lambda buf: None)  # the sleeper is gone now
    assert not (tmp_path / kept[0]).exists()
    assert all((tmp_path / name).exists() for name in kept[1:])


def _writers(target: Path) -> list[object]:
    return [
        lambda: write_bytes(target, b"x"),
        lambda: write_sized(target, 3, lambda buf: None),
        lambda: write_group([SizedFile(target, 3, lambda buf: None)]),
    ]


@pytest.mark.parametrize("which", range(3))
def test_output_path_problems_are_file_errors(tmp_path: Path, which: int) -> None:
    missing = tmp_path / "no" / "such" / "out.bin"
    with pytest.raises(FileError, match="does not exist") as info:
        _writers(missing)[which]()  # type: ignore[operator]
    assert isinstance(info.value, OSError) and isinstance(info.value, WireplanError)
    assert info.value.errno == errno.ENOENT
    folder = tmp_path / "dir"
    folder.mkdir()
    with pytest.raises(OSError, match="is a directory") as dir_info:
        _writers(folder)[which]()  # type: ignore[operator]
    assert isinstance(dir_info.value, FileError) and dir_info.value.errno == errno.EISDIR
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(FileError, match="is not a folder"):
        _writers(tmp_path / "file" / "out.bin")[which]()  # type: ignore[operator]
    assert _tmps(tmp_path) == [] and _tmps(folder) == []


def test_file_error_pickles() -> None:
    import pickle

    e = pickle.loads(pickle.dumps(FileError("cannot write x", "x", errno.EISDIR)))
    assert isinstance(e, FileError) and (e.reason, e.filename, e.errno) == (
        "cannot write x",
        "x",
        21,
    )


def test_scratch_beside_names_a_sweepable_file_and_removes_it(tmp_path: Path) -> None:
    """A scratch path for another program's output: not created, named as the module's
    temporary files (so a killed process's leftover is swept), removed afterwards."""
    target = tmp_path / "model.ort"
    with scratch_beside(target) as tmp:
        assert not os.path.exists(tmp)
        assert os.path.dirname(tmp) == str(tmp_path)
        assert _DEBRIS.match(os.path.basename(tmp)) is not None
        assert os.path.basename(tmp).startswith(f".model.ort.w{os.getpid()}-{_host_tag()}.")
        Path(tmp).write_bytes(b"theirs")
    assert _tmps(tmp_path) == []
    with pytest.raises(FileError, match="does not exist"), scratch_beside(tmp_path / "no" / "m"):
        pass
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(FileError, match="not a folder"), scratch_beside(tmp_path / "file" / "m"):
        pass
    with pytest.raises(FileError, match="is a directory"), scratch_beside(tmp_path):
        pass
