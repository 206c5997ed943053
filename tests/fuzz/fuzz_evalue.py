"""Fuzz harness: the EValue decoder, list framing, record files and the dataset over them.

The first byte picks what the rest is read as, and the options: a single
value, a list, or a record file (read by ``RecordFile``, ``read_records``,
``record_count``, ``EValueDataset`` and ``wireplan inspect``), with
``extended`` and ``text`` on or off.  Beyond "only wireplan errors escape",
every input is checked for:

- the same outcome with ``copy=True`` and ``copy=False`` (a value, or the
  same error at the same offset);
- an error offset inside the input;
- a decoded value that encodes back: a single value to exactly the input
  bytes, a list to bytes that decode to the same values.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import itertools
import os
import shutil
import tempfile
from typing import Any

import wireplan
import wireplan.evalue as ev

MAX_LEN = 8192
INSTRUMENT = ("wireplan.evalue", "wireplan.core", "wireplan.errors")
_state: dict[str, Any] = {}
_names = itertools.count()


def setup() -> None:
    folder = tempfile.mkdtemp(prefix="wireplan-fuzz-evalue-")
    atexit.register(shutil.rmtree, folder, True)
    _state["dir"] = folder
    from wireplan.evalue.dataset import EValueDataset  # torch is imported once, here

    _state["dataset"] = EValueDataset


def _outcome(fn: Any, *args: Any, **kw: Any) -> tuple[Any, wireplan.DecodeError | None]:
    try:
        return fn(*args, **kw), None
    except wireplan.DecodeError as exc:
        return None, exc


def _same_error(a: wireplan.DecodeError | None, b: wireplan.DecodeError | None) -> None:
    assert (a is None) == (b is None), f"copy=True and copy=False disagree: {a!r} / {b!r}"
    if a is not None and b is not None:
        assert (type(a), a.offset, a.path) == (type(b), b.offset, b.path), f"{a!r} / {b!r}"


def _in_input(exc: wireplan.DecodeError | None, size: int) -> None:
    if exc is not None:
        assert exc.offset is not None and 0 <= exc.offset <= size, f"{exc!r} of {size} bytes"


def _reencoded(encode: Any, value: Any, extended: bool) -> bytes:
    try:
        data: bytes = encode(value, extended=extended)
    except Exception as exc:
        raise AssertionError(f"a decoded value does not encode again: {exc!r}") from exc
    return data


def _value(body: bytes, extended: bool, text: bool) -> None:
    results = [_outcome(ev.decode, body, copy=c, extended=extended, text=text) for c in (1, 0)]
    _same_error(results[0][1], results[1][1])
    _in_input(results[0][1], len(body))
    for value, exc in results:
        if exc is None:
            assert _reencoded(ev.encode, value, extended) == body, "the value encodes differently"


def _list(body: bytes, extended: bool, text: bool) -> None:
    results = [_outcome(ev.decode_list, body, copy=c, extended=extended, text=text) for c in (1, 0)]
    _same_error(results[0][1], results[1][1])
    _in_input(results[0][1], len(body))
    canonical = set()
    for values, exc in results:
        if exc is None:
            again = _reencoded(ev.encode_list, values, extended)
            canonical.add(again)
            back = ev.decode_list(again, extended=extended, text=text)
            assert _reencoded(ev.encode_list, back, extended) == again, "the list changes"
    assert len(canonical) <= 1, "copy=True and copy=False decode different lists"


def _records(body: bytes, extended: bool, text: bool, mode: int) -> None:
    # A new name for every input: views of an earlier input's mapping stay valid.
    path = os.path.join(_state["dir"], f"r{next(_names) % 4}.evr")
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(body)
    os.replace(tmp, path)
    seen: list[bytes] = []
    for copy in (True, False):
        try:
            with ev.RecordFile(path, copy=copy, extended=extended, text=text) as rf:
                got = [ev.encode_list(r, extended=extended) for r in rf]
        except wireplan.DecodeError as exc:
            _in_input(exc, len(body))
            got = [b"error", str(exc).encode()]
        seen.append(b"\0".join(got))
    assert seen[0] == seen[1], "copy=True and copy=False read the record file differently"
    from wireplan.evalue.cli import inspect

    quiet = contextlib.suppress(wireplan.WireplanError)
    with quiet:
        for _ in ev.read_records(path, copy=bool(mode & 1), extended=extended, text=text):
            pass
    with quiet:
        ev.record_count(path)
    with quiet:
        dataset = _state["dataset"](
            path, shuffle=bool(mode & 2), window=3, as_torch=bool(mode & 4), extended=extended
        )
        for _ in dataset:
            pass
    with quiet:
        inspect(path, io.StringIO())


def TestOneInput(data: bytes) -> None:
    if not data:
        return
    head, body = data[0], data[1:]
    extended, text = bool(head & 1), not head & 2
    kind = (head >> 2) % 3
    try:
        if kind == 0:
            _value(body, extended, text)
        elif kind == 1:
            _list(body, extended, text)
        else:
            _records(body, extended, text, head >> 4)
    except wireplan.WireplanError:
        pass


def seeds() -> dict[str, bytes]:
    """The seed corpus (``run.py evalue --write-seeds``): a few of each kind."""
    import numpy as np

    values: list[Any] = [
        None,
        True,
        -(2**63),
        1.5,
        "héllo",
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.array([1, 0, 1], dtype=np.bool_),
        np.arange(4, dtype=np.int64),
        np.zeros((0, 3), dtype=np.uint8),
        np.array(7, dtype=np.int32),
    ]
    out: dict[str, bytes] = {}
    for i, v in enumerate(values):
        out[f"value-{i}"] = bytes([1]) + ev.encode(v, extended=True)
    out["value-java"] = bytes([0]) + ev.encode(values[5])
    out["list-empty"] = bytes([4]) + ev.encode_list([])
    out["list-mixed"] = bytes([5]) + ev.encode_list(values, extended=True)
    folder = tempfile.mkdtemp()
    try:
        path = os.path.join(folder, "r.evr")
        with ev.RecordWriter(path, extended=True) as w:
            w.write([values[5], "label", 3])
            w.write([None, values[6]])
        with open(path, "rb") as f:
            records = f.read()
    finally:
        shutil.rmtree(folder)
    for mode in (0, 7):
        out[f"records-{mode}"] = bytes([9 | mode << 4]) + records
    return out
