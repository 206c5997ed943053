"""The fsspec door: file systems named by URL (``s3://``, ``memory://``, ``file://``), format-free.

This is the only wireplan module that imports fsspec; the modules that read
or write through a file system get one from :func:`resolve` and call its
methods (``open``, ``glob``, ``ls``, ``mv``), so they import nothing.  A
refusal of the file system (a missing file, a denied upload) is a
:class:`~wireplan.errors.FileError` naming the URL.
"""

from __future__ import annotations

import contextlib
import errno
import os
import uuid
from collections.abc import Iterator, Mapping
from typing import IO, Any

from wireplan.core.extras import door

with door("wireplan.core.remote", "fsspec", "fsspec"):
    import fsspec
    from fsspec.implementations.local import LocalFileSystem

from wireplan.errors import ArgumentError, FileError

__all__ = ["expand", "is_local", "opened", "publish", "read_at", "refused", "resolve", "url"]


def resolve(
    source: str, filesystem: Any = None, storage_options: Mapping[str, Any] | None = None
) -> tuple[Any, str]:
    """``(file system, path on it)`` for a URL, or for a path on ``filesystem``."""
    if filesystem is not None:
        if not isinstance(filesystem, fsspec.AbstractFileSystem):
            raise ArgumentError(
                f"filesystem must be an fsspec file system, not {type(filesystem).__name__}"
            )
        return filesystem, filesystem._strip_protocol(source)
    fs, path = fsspec.core.url_to_fs(source, **dict(storage_options or {}))
    return fs, path


def is_local(fs: Any) -> bool:
    """Whether ``fs`` is the local disk (whose files wireplan maps and writes itself)."""
    return isinstance(fs, LocalFileSystem)


def url(fs: Any, path: str) -> str:
    """``path`` on ``fs`` as a URL, as messages and :attr:`paths` show it."""
    return str(fs.unstrip_protocol(path))


def refused(fs: Any, path: str, exc: OSError) -> FileError:
    """``exc`` from the file system as a :class:`FileError` naming the URL."""
    where = url(fs, path)
    if isinstance(exc, FileNotFoundError):
        return FileError(f"no such file: {where}", where, errno.ENOENT)
    return FileError(f"{where}: {exc}", where, exc.errno)


def expand(fs: Any, path: str, keep: Any) -> list[str]:
    """The files ``path`` names on ``fs``: itself, a folder's files that ``keep(path)``
    accepts (not hidden, not in subfolders), or a glob's matches; sorted by name."""
    try:
        if fs.isdir(path):
            found = []
            for info in sorted(fs.ls(path, detail=True), key=lambda i: str(i["name"])):
                name = str(info["name"])
                hidden = os.path.basename(name).startswith(".")
                if info["type"] == "file" and not hidden and keep(name):
                    found.append(name)
            if not found:
                raise FileError(f"no record files in the folder {url(fs, path)}", url(fs, path))
            return found
        if any(c in path for c in "*?[") and not fs.exists(path):
            matches = sorted(str(p) for p in fs.glob(path) if fs.isfile(p))
            if not matches:
                raise FileError(f"no files match {url(fs, path)}", url(fs, path), errno.ENOENT)
            return matches
        if not fs.isfile(path):
            raise FileNotFoundError(path)
    except FileError:
        raise
    except OSError as exc:
        raise refused(fs, path, exc) from None
    return [path]


@contextlib.contextmanager
def opened(fs: Any, path: str) -> Iterator[IO[bytes]]:
    """``path`` open for reading, without read-ahead (callers read large blocks)."""
    try:
        f = fs.open(path, "rb", cache_type="none")
    except OSError as exc:
        raise refused(fs, path, exc) from None
    try:
        yield f
    finally:
        f.close()


def read_at(f: IO[bytes], offset: int, size: int) -> bytes:
    """Up to ``size`` bytes at ``offset`` of an open file: one seek, one read.

    The seek comes first every time, as fsspec's in-memory files are shared
    by every reader of the same path.
    """
    f.seek(offset)
    return f.read(size)


def publish(local: str, fs: Any, path: str) -> None:
    """Copy the finished local file ``local`` to ``path`` on ``fs`` under a temporary name
    beside it, then move it into place, so ``path`` never holds part of the file.

    On object stores the move is a copy then a delete; the new object appears whole.
    """
    parent = fs._parent(path)
    temporary = f"{parent}/.{os.path.basename(path)}.{uuid.uuid4().hex}.tmp"
    try:
        if parent:
            fs.makedirs(parent, exist_ok=True)
        fs.put_file(local, temporary)
        fs.mv(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            fs.rm(temporary)
        raise refused(fs, path, exc) from None
