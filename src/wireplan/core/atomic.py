"""Atomic file writes: a temporary file in the target's folder, fsync, then rename.

A failed or interrupted write (an exception, KeyboardInterrupt) removes the
temporary file and leaves the previous file, if any, untouched.  A process
killed outright (SIGKILL) leaves the previous file too, and its temporary
file (``.NAME.*.tmp``) beside it.

Every writer takes ``durable`` (default True):

- ``durable=True``: the file's bytes are flushed to the device (``fsync``;
  ``msync`` for a mapping) before the rename, and the folder is fsynced
  after it.  Once the call returns, the new file survives a power loss or an
  OS crash; a crash before that leaves the old file or the complete new one.
- ``durable=False``: the same temporary file and rename, without any fsync.
  Still atomic for everything short of the machine going down: a failed,
  interrupted or killed process never leaves a half-written file at the
  target and never destroys the previous one, and other processes see the
  old file or the complete new one.  Not safe against power loss or an OS
  crash: the rename may reach the disk before the data, so afterwards the
  target can be empty or partial and the previous file gone.  For outputs
  that can be made again (conversions, caches, benchmarks).
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
def _temporary_beside(path: str | os.PathLike[str], durable: bool) -> Iterator[tuple[int, str]]:
    target = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(target)
    fd, tmp = tempfile.mkstemp(
        prefix="." + os.path.basename(target) + ".", suffix=".tmp", dir=folder
    )
    try:
        mode = os.stat(target).st_mode & 0o7777 if os.path.exists(target) else _FILE_MODE
        os.fchmod(fd, mode)
        yield fd, tmp
        if durable:
            os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(tmp, target)
        if durable:
            _fsync_dir(folder)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], *, durable: bool = True) -> Iterator[IO[bytes]]:
    """Open ``path`` for binary writing; it appears, complete, only when the block ends.

    ``durable=False`` skips the fsyncs (see the module docstring).
    """
    with _temporary_beside(path, durable) as (fd, _):
        f = os.fdopen(os.dup(fd), "wb")
        try:
            yield f
            f.flush()
        finally:
            f.close()


def write_bytes(path: str | os.PathLike[str], data: Any, *, durable: bool = True) -> None:
    """Write a bytes-like object to ``path`` atomically (``durable``: see the module docstring)."""
    with atomic_open(path, durable=durable) as f:
        f.write(data)


def write_sized(
    path: str | os.PathLike[str],
    size: int,
    fill: Callable[[Any], None],
    *,
    durable: bool = True,
) -> None:
    """Create ``path`` of exactly ``size`` zero bytes, let ``fill`` write into its mapping.

    ``fill`` receives a writable buffer of ``size`` bytes (an ``mmap``; a
    ``bytearray`` for an empty file).  The file is renamed into place only
    after ``fill`` returns and (``durable=True``) the bytes are on disk;
    ``durable=False`` neither msyncs the mapping nor fsyncs (see the module
    docstring).
    """
    with _temporary_beside(path, durable) as (fd, _):
        os.ftruncate(fd, size)
        if size == 0:
            fill(bytearray())
            return
        mm = mmap.mmap(fd, size, access=mmap.ACCESS_WRITE)
        try:
            fill(mm)
        except BaseException:
            # Views into the mapping may live on in the traceback's frames; the
            # mapping then closes when they go, and the error that matters is fill's.
            with contextlib.suppress(BufferError):
                mm.close()
            raise
        try:
            if durable:
                mm.flush()
        finally:
            mm.close()


def write_plan(
    plan: Plan,
    path: str | os.PathLike[str],
    *,
    threads: int | None = None,
    durable: bool = True,
) -> None:
    """Execute ``plan`` straight into a new file at ``path``, atomically (``durable``: as above)."""
    write_sized(path, plan.size, lambda buf: execute(plan, buf, threads=threads), durable=durable)
