"""The one exception hierarchy of wireplan.

``WireplanError`` is the root.  Where an error happened is part of it when
known, and absent rather than made up when not (pydsdl's ``FrontendError``
is the model):

- :class:`DecodeError` (and :class:`LimitError`): ``offset``, the byte of the
  input where decoding went wrong, and ``path``, where in the nested value
  (``$.items[2].shape``).  ``offset`` is None only when the bytes are not at
  hand (a tensor of a model built in memory read as numpy);
- :class:`EncodeError`: ``path``, the part of the value that cannot be encoded;
- :class:`ArgumentError`: a bad argument or option of a call or a command
  (an alignment that is not a power of two, an unknown language, a flag
  that needs another); also a ``ValueError`` and a ``TypeError``;
- :class:`NotFoundError`: a name that names nothing (a DSDL type, namespace or
  version; an operator), with the nearest names when there are any;
- :class:`PeerError`: an installed peer (onnxruntime, pycyphal) that refused
  or failed at what it was asked;
- :class:`CompileError`: ``path`` and ``line`` of the DSDL source;
- :class:`FileError`: ``filename``, as an ``OSError`` has it;
- :class:`MissingExtraError`: an optional dependency that is not installed,
  with the ``pip install "wireplan[EXTRA]"`` that brings it.

Messages are built only on the failure path, so valid input pays nothing for
them; a decoder that catches a ``DecodeError`` from a nested value adds its
own path segment with :meth:`DecodeError.under`.
"""

from __future__ import annotations

import os
from pathlib import Path as _Path

__all__ = [
    "ArgumentError",
    "CompileError",
    "DecodeError",
    "EncodeError",
    "FileError",
    "LimitError",
    "MissingExtraError",
    "NotFoundError",
    "PeerError",
    "WireplanError",
]


class WireplanError(Exception):
    """Root of every error wireplan raises on purpose."""


class DecodeError(WireplanError, ValueError):
    """Input bytes that are not a valid encoding.

    ``offset`` is the byte (from the start of the buffer handed to the
    decoder) where decoding failed, None when no byte can be named; ``path``
    locates the value being decoded, ``"$"`` for the top level.  The message
    reads ``at byte 17 ($.items[3]): reason``, or ``$.items[3]: reason``
    without an offset.
    """

    def __init__(self, reason: str, offset: int | None = None, path: str = "$") -> None:
        self.reason = reason
        self.offset = offset
        self.path = path
        super().__init__(self._render())

    def _render(self) -> str:
        if self.offset is None:
            return self.reason if self.path == "$" else f"{self.path}: {self.reason}"
        where = f"at byte {self.offset}"
        if self.path != "$":
            where += f" ({self.path})"
        return f"{where}: {self.reason}"

    def under(self, segment: str) -> DecodeError:
        """Prefix the path with ``segment`` (``".field"`` or ``"[3]"``) and return self.

        Called by an enclosing decoder as the error bubbles up, so that the
        innermost decoder does not need to know where it was called from.
        """
        self.path = "$" + segment + self.path[1:]
        self.args = (self._render(),)
        return self

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.reason, self.offset, self.path))


class LimitError(DecodeError):
    """A declared size beyond a configured limit or beyond the input.

    A subclass of :class:`DecodeError`: it is raised while decoding, before
    anything is allocated for the declared size.
    """


class EncodeError(WireplanError, ValueError):
    """A value that cannot be encoded in the requested format.

    ``path`` locates the offending part of the value (``"$"`` for the top).
    """

    def __init__(self, reason: str, path: str = "$") -> None:
        self.reason = reason
        self.path = path
        super().__init__(reason if path == "$" else f"{path}: {reason}")

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.reason, self.path))


class ArgumentError(WireplanError, ValueError, TypeError):
    """A bad argument or option: a value outside its range, of the wrong type, or
    a combination that does not go together.

    Both a ``ValueError`` and a ``TypeError``, so code that caught either from
    a plain Python API keeps working.  The message names the argument (or the
    command-line flag) and what it accepts.
    """


class NotFoundError(WireplanError, LookupError):
    """A name that names nothing: a DSDL type, namespace or version, an operator.

    The message says what was looked for, where, and the nearest names known.
    """


class PeerError(WireplanError, RuntimeError):
    """An installed peer (onnxruntime, pycyphal) refused or failed at what it was asked.

    The message quotes the peer's own words after what wireplan asked of it.
    """


class CompileError(WireplanError):
    """A DSDL definition that pydsdl rejects, or a type the DSDL compiler cannot handle.

    ``path`` (the ``.dsdl`` file, or the namespace folder) and ``line``
    (first line 1) locate the problem when known, as in pydsdl's
    ``FrontendError``; ``reason`` is the text alone.  The message reads
    ``path:line: reason``, ``path: reason`` or ``reason``.
    """

    def __init__(
        self, reason: str, path: str | os.PathLike[str] | None = None, line: int | None = None
    ) -> None:
        self.reason = reason
        self.path = None if path is None else _Path(path)
        self.line = line if path is not None else None
        super().__init__(self._render())

    def _render(self) -> str:
        if self.path is None:
            return self.reason
        where = self.path.as_posix() + (f":{self.line}" if self.line else "")
        return f"{where}: {self.reason}"

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.reason, self.path, self.line))


class FileError(WireplanError, OSError):
    """A file or folder wireplan writes (or reads) that the filesystem refuses.

    Also an :class:`OSError`, so ``except OSError`` keeps working: ``errno``
    and ``filename`` are those of the failed call (``errno`` None when the
    refusal is wireplan's own, e.g. a path that is not a regular file).
    """

    def __init__(self, reason: str, filename: str | None = None, errno: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.errno = errno
        self.strerror = reason
        self.filename = filename

    def __str__(self) -> str:
        return self.reason

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.reason, self.filename, self.errno))


class MissingExtraError(WireplanError, ImportError):
    """An optional dependency that is not installed, and the extra that brings it.

    Raised by the one module that imports the dependency (its "door"), so
    that the message is one line saying what to install:
    ``wireplan.dsdl needs pydsdl, which is not installed: pip install "wireplan[dsdl]"``.
    Also an ``ImportError`` (``name`` is the missing module), so code that
    probes with ``except ImportError`` keeps working.
    """

    def __init__(self, feature: str, module: str, extra: str, hint: str = "") -> None:
        self.feature = feature
        self.module = module
        self.extra = extra
        self.hint = hint
        self.reason = (
            f"{feature} needs {module}, which is not installed: "
            f'pip install "wireplan[{extra}]"' + (f" ({hint})" if hint else "")
        )
        super().__init__(self.reason, name=module)

    def __str__(self) -> str:
        return self.reason

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.feature, self.module, self.extra, self.hint))
