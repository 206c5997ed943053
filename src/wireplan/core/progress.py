"""Progress of long work on a terminal: the one module that imports tqdm.

The library reports progress through a plain callback, ``progress(done,
total)`` (bytes moved of a conversion, types read of a DSDL compile), on the
calling thread, never from a worker thread.  The command lines of the three
wings turn it into something to look at with :func:`progress_bar`:

- on a terminal (``stderr`` is a tty) with tqdm installed (the ``progress``
  extra): a tqdm bar, erased when the work ends;
- on a terminal without tqdm: one line ``label: 45% (540.0 MiB of 1.2 GiB)``
  rewritten in place with ``\\r``, at most :data:`REDRAWS_PER_SECOND` times
  a second, erased when the work ends;
- piped or redirected: nothing at all, and the callback is ``None``, so
  the library runs without any bookkeeping (and a script's ``stderr``
  holds only errors).

Two lines say what the bar cannot: ``start``, printed at once, for a first
step that reports nothing (the protobuf parse of an .onnx), and
``announce``, printed on the first call, for a slow step that happens only
sometimes (``compiling uavcan (175 types)...``: a DSDL namespace compiled on
a cache miss; nothing is said when the cache has it).
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TextIO

from wireplan.core.text import count, size

__all__ = ["REDRAWS_PER_SECOND", "Progress", "Tally", "announced", "progress_bar"]

#: ``progress(done, total)``: ``done`` of ``total`` units (bytes, types) are through.
Progress = Callable[[int, int], None]


class Tally:
    """The executor's ``progress(n)`` (``n`` more bytes moved) as ``progress(done, total)`` calls.

    ``done`` starts at ``start`` (bytes already reported, e.g. a companion file
    written first) and is left for the caller to read when the copies end.
    """

    __slots__ = ("done", "progress", "total")

    def __init__(self, progress: Progress, total: int, start: int = 0) -> None:
        self.progress = progress
        self.total = total
        self.done = start

    def __call__(self, n: int) -> None:
        self.done += n
        self.progress(self.done, self.total)


#: How often the plain line (no tqdm) is redrawn at most.
REDRAWS_PER_SECOND = 4

_clock = time.monotonic  # the plain line's clock (a test stops it)


def _amount(n: int, unit: str) -> str:
    return size(n) if unit == "B" else count(n, unit)


def _is_tty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except ValueError:  # a closed stream
        return False


class _Line:
    """The fallback without tqdm: one line rewritten in place, a few times a second."""

    def __init__(self, label: str, unit: str, stream: TextIO) -> None:
        self.label, self.unit, self.stream = label, unit, stream
        self.last = -math.inf  # the first call draws
        self.width = 0

    def update(self, done: int, total: int) -> None:
        now = _clock()
        if done < total and now - self.last < 1 / REDRAWS_PER_SECOND:
            return
        self.last = now
        pct = 100 * done // total if total else 100
        text = f"{self.label}: {pct}% ({_amount(done, self.unit)} of {_amount(total, self.unit)})"
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width = len(text)

    def close(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def _shape(stream: TextIO) -> dict[str, int]:
    """tqdm's ``ncols`` and ``nrows`` for a terminal that says it has 0 of them (a fresh pty),
    where tqdm would draw nothing; nothing when the terminal knows its size."""
    try:
        found = os.get_terminal_size(stream.fileno())
        if found.columns > 0 and found.lines > 0:
            return {}
    except (AttributeError, OSError, ValueError):
        pass
    return {"ncols": 80, "nrows": 24}


def _tqdm(label: str, unit: str, total: int, stream: TextIO) -> Any:
    """A tqdm bar, or None without tqdm."""
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    shape = _shape(stream)
    if unit == "B":
        return tqdm(
            total=total,
            desc=label,
            unit="B",
            unit_scale=True,
            unit_divisor=1024,
            leave=False,
            file=stream,
            **shape,
        )
    return tqdm(total=total, desc=label, unit=f" {unit}s", leave=False, file=stream, **shape)


@contextmanager
def progress_bar(
    label: str,
    *,
    unit: str = "B",
    start: str | None = None,
    announce: Callable[[int], str] | None = None,
    stream: TextIO | None = None,
) -> Iterator[Progress | None]:
    """A ``progress(done, total)`` callback that draws on a terminal; ``None`` when none is needed.

    ``label`` names the work on the bar (``writing m.ort``); ``unit`` is
    ``"B"`` (sizes in KiB, MiB, GiB) or a noun counted (``"type"``).
    ``start``: a line printed at once, for a first step that reports
    nothing itself (``reading m.onnx (1.2 GiB)...``: a protobuf parse).
    ``announce(total)``: a line printed on the first call, before the bar.
    ``stream`` defaults to ``sys.stderr``; when it is not a terminal, the
    callback is ``None`` and nothing is printed.
    """
    out = sys.stderr if stream is None else stream
    if not _is_tty(out):
        yield None
        return
    if start is not None:
        print(start, file=out, flush=True)
    bar: Any = None
    line: _Line | None = None
    first = True

    def update(done: int, total: int) -> None:
        nonlocal bar, line, first
        if first:
            first = False
            if announce is not None:
                print(announce(total), file=out, flush=True)
            bar = _tqdm(label, unit, total, out)
            if bar is None:
                line = _Line(label, unit, out)
        if bar is not None:
            bar.total = total
            bar.update(done - bar.n)
        elif line is not None:
            line.update(done, total)

    try:
        yield update
    finally:
        if bar is not None:
            bar.close()
        elif line is not None:
            line.close()


def announced(
    label: str, noun: str, *, stream: TextIO | None = None
) -> AbstractContextManager[Progress | None]:
    """:func:`progress_bar` that counts ``noun`` and says ``label (N nouns)...`` when work starts.

    ``with announced("compiling uavcan", "type") as progress:`` prints
    ``compiling uavcan (175 types)...`` on the first call, then draws a bar
    of types (on a terminal; piped, ``progress`` is ``None``).
    """
    return progress_bar(
        label, unit=noun, announce=lambda total: f"{label} ({count(total, noun)})...", stream=stream
    )
