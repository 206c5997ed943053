"""Words for people: counts with the right plural, byte sizes and error lines, as every CLI
prints them."""

from __future__ import annotations

import sys
from pathlib import Path

from wireplan.errors import DecodeError, WireplanError

__all__ = ["count", "error_text", "in_file", "print_error", "size"]


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``count(1, "node")`` is ``"1 node"``, ``count(2, "node")`` is ``"2 nodes"``.

    ``plural`` is for nouns whose plural is not the noun plus "s"
    (``count(3, "tensor", "tensors")`` needs none; ``count(2, "entry", "entries")`` does).
    """
    word = noun if n == 1 else (plural if plural is not None else noun + "s")
    return f"{n:,} {word}"


def size(n: int) -> str:
    """A byte count for people: ``1 byte``, ``512 bytes``, ``4.0 KiB``, ``1.2 GiB``."""
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return count(n, "byte")


def print_error(message: str) -> None:
    """Print one error line on stderr, as every error of the command line reads."""
    print(f"wireplan: error: {message}", file=sys.stderr)


def error_text(exc: BaseException, file: str | None = None) -> str:
    """The message of ``exc`` for the error line, starting with ``file`` when it is about one."""
    if isinstance(exc, OSError) and not isinstance(exc, WireplanError):
        where = exc.filename if exc.filename is not None else file
        text = str(exc.strerror or exc)
        return f"{where}: {text}" if where is not None else text
    text = str(exc)
    if file is None or text.startswith((f"{file}:", f"{Path(file)}:")):
        return text
    return f"{file}: {text}"


def in_file(file: str | Path, exc: DecodeError) -> DecodeError:
    """``exc`` with its message starting with the file it was read from (offset and path kept).

    What the CLI prints: ``x.onnx: at byte 44: ...``.  Left as it is when it names the file.
    """
    text = str(exc)
    if not text.startswith((f"{file}:", f"{Path(file)}:")):
        exc.args = (f"{file}: {text}",)
    return exc
