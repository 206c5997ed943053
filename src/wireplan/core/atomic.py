"""Atomic file writes: a temporary file in the target's folder, fsync, then rename.

A failed or interrupted write (an exception, KeyboardInterrupt) removes the
temporary file and leaves the previous file, if any, untouched.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import tempfile
from collections.abc import Callable, Iterator
from typing import IO, Any

from wireplan.core.execute import execute
from wireplan.core.plan import Plan

__all__ = ["atomic_open", "write_bytes", "write_plan", "write_sized"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()


def _fsync_dir(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def _temporary_beside(path: str | os.PathLike[str]) -> Iterator[tuple[int, str]]:
    target = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(target)
    fd, tmp = tempfile.mkstemp(
        prefix="." + os.path.basename(target) + ".", suffix=".tmp", dir=folder
    )
    try:
        mode = os.stat(target).st_mode & 0o7777 if os.path.exists(target) else _FILE_MODE
        os.fchmod(fd, mode)
        yield fd, tmp
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(tmp, target)
        _fsync_dir(folder)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """Open ``path`` for binary writing; it appears, complete, only when the block ends."""
    with _temporary_beside(path) as (fd, _):
        f = os.fdopen(os.dup(fd), "wb")
        try:
            yield f
            f.flush()
        finally:
            f.close()


def write_bytes(path: str | os.PathLike[str], data: Any) -> None:
    """Write a bytes-like object to ``path`` atomically."""
    with atomic_open(path) as f:
        f.write(data)


def write_sized(path: str | os.PathLike[str], size: int, fill: Callable[[Any], None]) -> None:
    """Create ``path`` of exactly ``size`` zero bytes, let ``fill`` write into its mapping.

    ``fill`` receives a writable buffer of ``size`` bytes (an ``mmap``; a
    ``bytearray`` for an empty file).  The file is renamed into place only
    after ``fill`` returns and the bytes are on disk.
    """
    with _temporary_beside(path) as (fd, _):
        os.ftruncate(fd, size)
        if size == 0:
            fill(bytearray())
            return
        mm = mmap.mmap(fd, size, access=mmap.ACCESS_WRITE)
        try:
            fill(mm)
            mm.flush()
        finally:
            mm.close()


def write_plan(plan: Plan, path: str | os.PathLike[str], *, threads: int | None = None) -> None:
    """Execute ``plan`` straight into a new file at ``path``, atomically."""
    write_sized(path, plan.size, lambda buf: execute(plan, buf, threads=threads))
