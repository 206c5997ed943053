"""Words for people: counts with the right plural and byte sizes, as every CLI prints them."""

from __future__ import annotations

__all__ = ["count", "size"]


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
