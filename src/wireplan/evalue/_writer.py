"""``RecordWriter``: writing record files (one file, or numbered shards), atomically.

The layout of a record file is in :mod:`wireplan.evalue._records`; each
record is one list in the framing of :mod:`wireplan.evalue._lists`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import IO, Any

from wireplan.core.atomic import atomic_open
from wireplan.core.buffers import as_memoryview
from wireplan.errors import ArgumentError, DecodeError, EncodeError, FileError
from wireplan.evalue._lists import _decode_list_at, encode_list
from wireplan.evalue._records import (
    _COUNT_AT,
    _RECORD_HEAD,
    _U64,
    RECORD_MAGIC,
    RECORD_VERSION,
    _record_length_at,
    is_url,
)

__all__ = ["RecordWriter"]


class RecordWriter:
    """Write a record file: each record a list of EValues (one training example, say).

    The file appears at ``path``, complete, only on :meth:`close` (or at the
    end of a ``with`` block): it is written to a temporary file beside it,
    synced and renamed.  :meth:`abort`, or an exception leaving the ``with``
    block, removes the temporary file and leaves any old file untouched.
    Folders of ``path`` that do not exist yet are created first, as
    ``mkdir -p`` does (each synced into its parent); a file in the way of one
    raises :class:`~wireplan.errors.FileError`.  ``durable=False`` skips the
    syncs (of the file and of new folders), as
    :func:`wireplan.core.atomic.atomic_open` does: the rename stays atomic, but
    a power loss may leave the file empty or partial.

    With ``shard_bytes``, the records go to numbered shards instead: ``path``
    is a pattern with a ``{shard}`` field (``"train-{shard:05d}.evr"``; without
    one, ``-{shard:05d}`` goes before the extension).  A shard is finished and
    renamed into place as soon as the next record would take it past
    ``shard_bytes``; a record larger than that gets a shard of its own.
    :attr:`paths` lists the shards; an abort removes only the unfinished one.

    A value that cannot be encoded raises :class:`EncodeError` before any
    byte of its record is written, and the writer goes on.  A failed write
    to the file (a full disk) may leave half a record behind, so it aborts
    the writer: the error propagates, and :meth:`write` and :meth:`close`
    then raise :class:`~wireplan.errors.ArgumentError` (a ``ValueError``)
    instead of publishing a damaged file.

    ``path`` may be an fsspec URL (``"s3://bucket/train.evr"``), or a path on
    ``filesystem`` (an fsspec file system; ``storage_options`` go to a URL's).
    On the local disk (``file://``) nothing changes.  Elsewhere each file is
    written to a local temporary folder, then copied to a temporary name
    beside its target and moved into place when finished: the target never
    holds part of a file (on object stores the move is a copy; the new
    object appears whole).  :attr:`paths` are then URLs.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        extended: bool = False,
        shard_bytes: int | None = None,
        durable: bool = True,
        filesystem: Any = None,
        storage_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.extended = extended
        self.durable = durable
        self._failed: BaseException | None = None
        self._count = 0
        self._pattern: str | None = None
        self._shard_bytes = shard_bytes
        self._done: list[str] = []
        self._fs: Any = None
        self._stage: str | None = None
        if filesystem is not None or is_url(path):
            from wireplan.core import remote

            fs, where = remote.resolve(os.fspath(path), filesystem, storage_options)
            if remote.is_local(fs):
                path = where  # the local disk: written in place, atomically, as a path is
            else:
                self._fs, path = fs, remote.url(fs, where)
                self._stage = tempfile.mkdtemp(prefix="wireplan-records-")
        if shard_bytes is None:
            self.path = os.fspath(path)
        else:
            if shard_bytes < 1:
                raise ArgumentError(f"shard_bytes must be positive, not {shard_bytes}")
            self._pattern = _shard_pattern(os.fspath(path))
            self.path = self._pattern.format(shard=0)
        self._open_file()

    def _open_file(self) -> None:
        self._pos = 0
        self._in_file = 0
        if self._fs is None:
            _make_folders(self.path, self.durable)
        self._cm = atomic_open(self._local(), durable=self.durable and self._fs is None)
        self._file: IO[bytes] | None = self._cm.__enter__()
        self._put(_RECORD_HEAD.pack(RECORD_MAGIC, RECORD_VERSION, 0, 0, 0))

    def _local(self) -> str:
        """Where the file being written is on the local disk (its staging copy, for a URL)."""
        if self._fs is None:
            return self.path
        assert self._stage is not None
        return os.path.join(self._stage, f"{len(self._done)}.evr")

    @property
    def count(self) -> int:
        """Records written so far (over all shards)."""
        return self._count

    @property
    def paths(self) -> list[str]:
        """The files finished so far, then the one being written (if any)."""
        return self._done + ([self.path] if self._file is not None else [])

    def _put(self, data: Any) -> None:
        if self._file is None:
            raise self._closed_error()
        try:
            self._file.write(data)
        except BaseException as exc:
            # Part of a record may be in the file: never publish it.
            self._failed = exc
            self.abort()
            raise
        self._pos += len(data) if isinstance(data, bytes) else memoryview(data).nbytes

    def _closed_error(self) -> ArgumentError:
        if self._failed is not None:
            return ArgumentError(
                f"the RecordWriter for {self.path} was aborted by a failed write "
                f"({self._failed!r}); {self.path} was not written"
            )
        return ArgumentError("the RecordWriter is closed")

    def write(self, values: Iterable[Any]) -> int:
        """Append one record holding ``values``; return its index."""
        return self._append(encode_list(values, extended=self.extended))

    def write_encoded(self, record: Any) -> int:
        """Append one record already encoded with :func:`encode_list` (checked first)."""
        mv = as_memoryview(record)
        try:
            _decode_list_at(mv, 0, mv.nbytes, False, True, False)
        except DecodeError as exc:
            raise EncodeError(f"not a valid encoded list: {exc}") from None
        return self._append(mv)

    def _append(self, data: Any) -> int:
        if self._file is None:
            raise self._closed_error()
        n = memoryview(data).nbytes
        if (
            self._pattern is not None
            and self._shard_bytes is not None
            and self._in_file
            and _record_length_at(self._pos) + _U64.size + n > self._shard_bytes
        ):
            self._finish_file()
            self.path = self._pattern.format(shard=len(self._done))
            self._open_file()
        at = _record_length_at(self._pos)
        if at > self._pos:
            self._put(bytes(at - self._pos))
        self._put(_U64.pack(memoryview(data).nbytes))
        self._put(data)
        self._count += 1
        self._in_file += 1
        return self._count - 1

    def close(self) -> None:
        """Finish the file (the last shard): sync it and rename it into place."""
        if self._file is None:
            if self._failed is not None:
                raise self._closed_error()
            return
        try:
            self._finish_file()
        finally:
            self._unstage()

    def _unstage(self) -> None:
        stage, self._stage = self._stage, None
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)

    def _finish_file(self) -> None:
        f = self._file
        assert f is not None
        try:
            f.seek(_COUNT_AT)
            f.write(_U64.pack(self._in_file))
            f.seek(0, os.SEEK_END)
        except BaseException as exc:
            self._failed = exc
            self.abort()
            raise
        self._file = None
        try:
            self._cm.__exit__(None, None, None)  # fsync (durable), rename
        except BaseException as exc:  # the temporary file is gone, the old file untouched
            self._failed = exc
            raise
        if self._fs is not None:
            from wireplan.core import remote

            local = self._local()
            try:
                remote.publish(local, self._fs, self._fs._strip_protocol(self.path))
            except BaseException as exc:
                self._failed = exc
                self._unstage()
                raise
            finally:
                with contextlib.suppress(OSError):
                    os.remove(local)
        self._done.append(self.path)

    def abort(self) -> None:
        """Discard everything written; an old file at ``path`` stays as it was."""
        if self._file is None:
            self._unstage()
            return
        self._file = None
        exc = _Aborted()
        # Flushing what is buffered may fail too (the disk that is full):
        # the temporary file is removed all the same.
        with contextlib.suppress(OSError):
            self._cm.__exit__(_Aborted, exc, None)
        self._unstage()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def __del__(self) -> None:
        # Never publish a half-written file because a writer was dropped.
        if getattr(self, "_file", None) is not None or getattr(self, "_stage", None):
            with contextlib.suppress(Exception):
                self.abort()


class _Aborted(Exception):
    pass


def _make_folders(path: str, durable: bool) -> None:
    """Create the missing folders above ``path`` (``mkdir -p``), each synced into its parent
    when ``durable``."""
    target = os.path.abspath(path)
    missing: list[str] = []
    folder = os.path.dirname(target)
    while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        missing.append(folder)
        folder = os.path.dirname(folder)
    for folder in reversed(missing):
        try:
            os.mkdir(folder)
        except FileExistsError:
            if os.path.isdir(folder):  # another writer made it meanwhile
                continue
            reason = f"cannot write {target}: {folder} is not a folder"
            raise FileError(reason, folder, errno.ENOTDIR) from None
        except OSError as exc:
            reason = f"cannot write {target}: cannot create the folder {folder}: {exc.strerror}"
            raise FileError(reason, folder, exc.errno) from exc
        if not durable:
            continue
        # The new folder's entry must reach the disk too, or a power loss can lose the file.
        with contextlib.suppress(OSError):
            fd = os.open(os.path.dirname(folder), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def _shard_pattern(path: str) -> str:
    """``path`` as a ``str.format`` pattern with a ``{shard}`` field."""
    if "{shard" in path:
        try:
            path.format(shard=0)
        except (KeyError, IndexError, ValueError) as exc:
            raise ArgumentError(
                f"the shard pattern {path!r} must have one {{shard}} field and no other: {exc}"
            ) from None
        return path
    escaped = path.replace("{", "{{").replace("}", "}}")
    stem, ext = os.path.splitext(escaped)
    return f"{stem}-{{shard:05d}}{ext}"
