"""Atomic file writes: a temporary file in the target's folder, fsync, then rename.

A failed or interrupted write (an exception, KeyboardInterrupt) removes the
temporary file and leaves the previous file, if any, untouched.  A process
killed outright (SIGKILL) leaves the previous file too, and its temporary
file beside it, named ``.NAME.wPID-HOST.XXXXXXXX.tmp``: the writer's pid and
a tag of its host and pid namespace.  The next write into that folder removes
such a file once its writer is known to be gone: the tag is this process's
own (same host name, machine id and pid namespace, so the pid means the same
process) and no process has that pid.  A reused pid only keeps the file
longer (the check says "alive"); files from other hosts, other containers
or an older naming are never touched, as their pids cannot be checked here.

Filesystem refusals (a missing folder, a directory as the target, a full
disk) raise :class:`wireplan.errors.FileError`, which is also an
:class:`OSError` with the failed call's ``errno`` and ``filename``.

Every writer takes ``durable`` (default True):

- ``durable=True``: the file's bytes are flushed to the device (``fsync``;
  ``msync`` for a mapping) before the rename, and the folder is fsynced
  after it.  Once the call returns, the new file survives a power loss or an
  OS crash; a crash before that leaves the old file or the complete new one.
- ``durable=False``: the same temporary file and rename, without any fsync.
  On Linux an existing target is exchanged with the temporary file
  (``renameat2`` with ``RENAME_EXCHANGE``), which then holds the previous
  file and is removed: a rename over a file makes ext4 start writing the new
  data back at once (its ``auto_da_alloc``), about 0.3 ms for a small file
  and much more on a busy disk.  Still atomic for everything short of the
  machine going down: a failed, interrupted or killed process never leaves a
  half-written file at the target and never destroys the previous one, and
  other processes see the old file or the complete new one.  Not safe against power loss or an OS
  crash: the rename may reach the disk before the data, so afterwards the
  target can be empty or partial and the previous file gone.  For outputs
  that can be made again (conversions, caches, benchmarks).

:func:`write_group` writes several files that belong together (an .ort and
its external data): all are complete (and, durable, on disk) before the
first rename, and they are renamed in the order given, the last one being
the commit point.  A failure before or during the renames leaves every
previous file as it was (a replaced one comes back from a hard link kept
until the last rename).  Only a crash of the process or the machine between
two renames, a window of microseconds, can leave the new files renamed so
far beside the old rest; the previous versions of those are then still
there as ``.NAME.*.prev`` hard links.

:func:`replace_folders` does the same for whole folders made complete
beside their targets (a generated package): every previous folder is
renamed aside as ``.NAME.*.prev`` until the last move, and put back if one
fails.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import hashlib
import mmap
import os
import re
import secrets
import shutil
import socket
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

from wireplan.core.executor import execute_file, pwrite_all
from wireplan.core.plan import Plan
from wireplan.errors import FileError

__all__ = [
    "SizedFile",
    "atomic_open",
    "replace_folders",
    "scratch_beside",
    "write_bytes",
    "write_group",
    "write_over_scratch",
    "write_plan",
    "write_sized",
]


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


@functools.cache
def _host_tag() -> str:
    """8 hex digits naming this host and pid namespace (pids mean the same within one tag)."""
    parts = [socket.gethostname()]
    for source in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            with open(source, encoding="ascii", errors="replace") as f:
                parts.append(f.read().strip())
            break
        except OSError:
            continue
    try:
        ns = os.stat("/proc/self/ns/pid")
        parts.append(f"{ns.st_dev}:{ns.st_ino}")
    except OSError:
        pass
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:8]


# .NAME.wPID-TAG.RANDOM.tmp; RANDOM is mkstemp's (letters, digits, _) or hex.
_DEBRIS = re.compile(r"\A\..+\.w([0-9]{1,10})-([0-9a-f]{8})\.[a-z0-9_]+\.tmp\Z")


def _tmp_prefix(target: str) -> str:
    return f".{os.path.basename(target)}.w{os.getpid()}-{_host_tag()}."


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's process, or a pid this system cannot check
    return True


def _sweep(folder: str) -> None:
    """Remove temporary files in ``folder`` whose writer is gone (see the module docstring)."""
    tag, me = _host_tag(), os.getpid()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        m = _DEBRIS.match(entry.name)
        if m is None or m.group(2) != tag:
            continue
        pid = int(m.group(1))
        if pid == me or _alive(pid):
            continue
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)


@contextlib.contextmanager
def _filesystem(target: str) -> Iterator[None]:
    """Turn the OSError of a call on ``target``'s files into a :class:`FileError`."""
    try:
        yield
    except FileError:
        raise
    except OSError as e:
        folder = os.path.dirname(target)
        if isinstance(e, FileNotFoundError) and not os.path.isdir(folder):
            reason = f"cannot write {target}: its folder {folder} does not exist"
        elif isinstance(e, NotADirectoryError):
            reason = f"cannot write {target}: {folder} is not a folder"
        elif isinstance(e, IsADirectoryError) or os.path.isdir(target):
            reason = f"cannot write {target}: it is a directory"
        else:
            reason = f"cannot write {target}: {e.strerror or e}"
        raise FileError(reason, e.filename or target, e.errno) from e


def _target_mode(target: str) -> int:
    """The permission bits a new file at ``target`` gets: the previous file's, else the default."""
    return os.stat(target).st_mode & 0o7777 if os.path.exists(target) else _FILE_MODE


def _check_target(target: str) -> None:
    if os.path.isdir(target):
        raise FileError(f"cannot write {target}: it is a directory", target, errno.EISDIR)


def _make_temporary(target: str) -> tuple[int, str]:
    """A new temporary file beside ``target``, after sweeping the folder's debris."""
    folder = os.path.dirname(target)
    _check_target(target)
    _sweep(folder)
    with _filesystem(target):
        return tempfile.mkstemp(prefix=_tmp_prefix(target), suffix=".tmp", dir=folder)


@contextlib.contextmanager
def scratch_beside(path: str | os.PathLike[str]) -> Iterator[str]:
    """A fresh path in ``path``'s folder for a file that another program writes by name.

    Named as this module's temporary files, so that what a killed process leaves is swept
    as theirs are; not created here (ext4 writes a file back at once when it is closed after
    a truncation, as a program given an existing path does); removed when the block ends.
    """
    target = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(target)
    _check_target(target)
    with _filesystem(target):
        if not stat.S_ISDIR(os.stat(folder).st_mode):
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), folder)
    _sweep(folder)
    tmp = os.path.join(folder, f"{_tmp_prefix(target)}{secrets.token_hex(8)}.tmp")
    try:
        yield tmp
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


_PROGRESS_PIECE = 8 << 20


def write_over_scratch(
    scratch: str | os.PathLike[str],
    path: str | os.PathLike[str],
    data: Any,
    *,
    durable: bool = True,
    progress: Callable[[int], None] | None = None,
) -> None:
    """Put the bytes-like ``data`` at ``path`` atomically, written over ``scratch``.

    ``scratch``: a file in ``path``'s folder whose bytes are no longer needed (one that
    :func:`scratch_beside` named and another program wrote).  Its pages are written over
    in place and it is cut to ``len(data)``, then renamed into place as any temporary
    file here: a new file's pages would have to be allocated, and the scratch file's
    freed, which costs more than the copy (a 7.5 MB file: 3.5 against 5.4 ms).
    ``progress(nbytes)``: called after each piece of about 8 MiB written.
    """
    view = memoryview(data).cast("B")
    piece = max(view.nbytes, 1) if progress is None else _PROGRESS_PIECE
    with (
        _temporary_beside(path, durable, over=scratch) as (fd, _),
        _filesystem(os.path.abspath(os.fspath(path))),
    ):
        for done in range(0, view.nbytes, piece):
            part = view[done : done + piece]
            pwrite_all(fd, [part], done)
            if progress is not None:
                progress(part.nbytes)
        os.ftruncate(fd, view.nbytes)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


@functools.cache
def _renameat2() -> Any:
    """libc's ``renameat2`` on Linux (glibc 2.28 and later), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


def _is_file(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _rename(tmp: str, target: str, durable: bool) -> None:
    """Put the complete temporary file ``tmp`` at ``target`` in one step (see the module)."""
    fn = None if durable else _renameat2()
    if (
        fn is not None
        and _is_file(target)  # never swap a folder (or anything else) into the temporary name
        and not fn(_AT_FDCWD, os.fsencode(tmp), _AT_FDCWD, os.fsencode(target), _RENAME_EXCHANGE)
    ):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)  # the previous file, now under the temporary name
        return
    # durable (the data is on disk already), no target yet, or no exchange here
    os.replace(tmp, target)


@contextlib.contextmanager
def _temporary_beside(
    path: str | os.PathLike[str], durable: bool, over: str | os.PathLike[str] | None = None
) -> Iterator[tuple[int, str]]:
    """``(fd, name)`` of a temporary file beside ``path``, renamed to it when the block ends
    (removed when it raises); ``over``: an existing file in that folder to use instead."""
    target = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(target)
    if over is None:
        fd, tmp = _make_temporary(target)
    else:
        _check_target(target)
        tmp = os.fspath(over)
        with _filesystem(target):
            fd = os.open(tmp, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
    try:
        with _filesystem(target):
            os.fchmod(fd, _target_mode(target))
        yield fd, tmp
        with _filesystem(target):
            if durable:
                os.fsync(fd)
            os.close(fd)
            fd = -1
            _rename(tmp, target, durable)
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
        with _filesystem(os.path.abspath(os.fspath(path))):
            os.ftruncate(fd, size)
        if size == 0:
            fill(bytearray())
            return
        _fill_mapped(fd, size, fill, durable)


def _fill_mapped(fd: int, size: int, fill: Callable[[Any], None], durable: bool) -> None:
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


def _linked(source: str | os.PathLike[str], target: str, durable: bool) -> str:
    """A temporary hard link to ``source`` beside ``target`` (a copy where links fail)."""
    tmp = os.path.join(os.path.dirname(target), f"{_tmp_prefix(target)}{os.urandom(4).hex()}.tmp")
    try:
        os.link(source, tmp)
    except OSError:
        try:
            shutil.copyfile(source, tmp)
            if durable:
                fd = os.open(tmp, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
    return tmp


@dataclass(frozen=True)
class SizedFile:
    """One file of :func:`write_group`: ``size`` zero bytes that ``fill`` writes into.

    ``fill`` gets a writable mapping of the whole file (as in
    :func:`write_sized`), or with ``mapped=False`` the open file descriptor
    (for writers that map windows of a large file themselves).
    ``link_from``: an existing file with the right bytes; the new file is a
    hard link to it (a copy where links fail) and ``fill`` is not called.
    """

    path: str | os.PathLike[str]
    size: int
    fill: Callable[[Any], None]
    mapped: bool = True
    link_from: str | os.PathLike[str] | None = None


def write_group(files: Sequence[SizedFile], *, durable: bool = True) -> None:
    """Write files that belong together, all or none (see the module docstring).

    Every file is written to a temporary file beside its target first; then
    they are renamed in the order given, so the last one is the commit
    point.  ``durable`` as in :func:`write_sized`.
    """
    temps: list[tuple[str, str]] = []  # (temporary, target) of each file written
    done: list[tuple[str, str | None]] = []  # (target, kept previous version) once renamed
    try:
        for item in files:
            target = os.path.abspath(os.fspath(item.path))
            if item.link_from is not None:
                _check_target(target)
                with _filesystem(target):
                    temps.append((_linked(item.link_from, target, durable), target))
                continue
            fd, tmp = _make_temporary(target)
            temps.append((tmp, target))
            try:
                with _filesystem(target):
                    os.fchmod(fd, _target_mode(target))
                    os.ftruncate(fd, item.size)
                if not item.mapped:
                    item.fill(fd)
                elif item.size:
                    _fill_mapped(fd, item.size, item.fill, durable)
                else:
                    item.fill(bytearray())
                if durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
        last = len(temps) - 1
        for i, (tmp, target) in enumerate(temps):
            kept = None
            if i < last and os.path.exists(target):
                kept = os.path.join(
                    os.path.dirname(target),
                    f".{os.path.basename(target)}.{os.urandom(4).hex()}.prev",
                )
                try:
                    os.link(target, kept)
                except OSError:  # no hard links here: the previous file cannot come back
                    kept = None
            with _filesystem(target):
                _rename(tmp, target, durable)
            done.append((target, kept))
        if durable:
            for folder in sorted({os.path.dirname(t) for _, t in temps}):
                _fsync_dir(folder)
    except BaseException:
        for tmp, _ in temps[len(done) :]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        for target, kept in reversed(done):
            with contextlib.suppress(OSError):
                if kept is not None:
                    os.replace(kept, target)
                else:
                    os.unlink(target)
        raise
    for _, kept in done:
        if kept is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(kept)


def _fsync_tree(folder: str) -> None:
    """fsync every file under ``folder``, then each folder, deepest first."""
    for here, _, names in os.walk(folder, topdown=False):
        for name in names:
            path = os.path.join(here, name)
            with _filesystem(path):
                fd = os.open(path, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
        _fsync_dir(here)


def replace_folders(
    moves: Sequence[tuple[str | os.PathLike[str], str | os.PathLike[str]]],
    *,
    durable: bool = True,
) -> None:
    """Move complete new folders onto their targets, all or none.

    ``moves`` pairs each new folder with the folder it replaces or creates
    (on one filesystem: a new folder is made beside or below its target's
    parent).  They are moved in the order given; each previous folder is
    renamed aside first (``.NAME.XXXXXXXX.prev`` beside it) and removed
    after the last move.  A failure during the moves removes the new
    folders moved so far and puts every previous one back.  ``durable``:
    every file and folder under the new folders is fsynced before the first
    move and the targets' parents after the last (see the module docstring).
    """
    if durable:
        for source, _ in moves:
            _fsync_tree(os.fspath(source))
    done: list[tuple[str, str | None]] = []  # (target, where its previous folder went)
    try:
        for source, dest in moves:
            target = os.path.abspath(os.fspath(dest))
            aside = None
            with _filesystem(target):
                if os.path.lexists(target):
                    aside = os.path.join(
                        os.path.dirname(target),
                        f".{os.path.basename(target)}.{os.urandom(4).hex()}.prev",
                    )
                    os.replace(target, aside)
                done.append((target, aside))
                os.replace(source, target)
    except BaseException:
        for target, aside in reversed(done):
            with contextlib.suppress(OSError):
                if os.path.lexists(target):  # the new folder, moved in
                    shutil.rmtree(target, ignore_errors=True)
                if aside is not None:
                    os.replace(aside, target)
        raise
    if durable:
        for folder in sorted({os.path.dirname(t) for t, _ in done}):
            _fsync_dir(folder)
    for _, aside in done:
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)


def write_plan(
    plan: Plan,
    path: str | os.PathLike[str],
    *,
    threads: int | None = None,
    durable: bool = True,
) -> None:
    """Execute ``plan`` straight into a new file at ``path``, atomically (``durable``: as above).

    The bytes go in by :func:`~wireplan.core.executor.execute_file` (written from where
    they lie; only what needs converting passes through a mapping)."""
    write_group(
        [
            SizedFile(
                path, plan.size, lambda fd: execute_file(plan, fd, threads=threads), mapped=False
            )
        ],
        durable=durable,
    )
