"""What an EValue file holds, for ``wireplan inspect``: text (:func:`inspect`) and JSON facts
(:func:`summary`), of a value, a list, a record file or a set of shards.

Also what the command line needs to say about a value (:func:`describe`,
:func:`facts`) and to recognise a file (:func:`sniff`); ``wireplan.evalue.cli``
hands these to the top-level command.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from wireplan.core.buffers import MappedFile
from wireplan.core.text import count
from wireplan.errors import DecodeError, LimitError
from wireplan.evalue._codec import TAG_NAMES, TAG_TENSOR, RawTensor, decode
from wireplan.evalue._dtypes import info_for_code, info_for_dtype
from wireplan.evalue._lists import LIST_MAGIC, _decode_list_at
from wireplan.evalue._records import RECORD_MAGIC, RecordFile, shard_paths

__all__ = [
    "InspectError",
    "describe",
    "facts",
    "inspect",
    "inspect_shards",
    "sniff",
    "summary",
    "summary_shards",
]

_SHOWN_RECORDS = 5


def sniff(head: bytes) -> bool:
    """True when ``head`` (a file's first bytes) looks like EValue data.

    Record files and lists are recognised by their magic.  A bare EValue
    has only a tag byte; it is accepted when its first bytes are plausible
    (scalars are short enough for ``head`` to be the whole file).
    """
    if head.startswith((RECORD_MAGIC, LIST_MAGIC)):
        return True
    if not head:
        return False
    tag, n = head[0], len(head)
    if tag == 0:
        return n == 1
    if tag in (3, 4):
        return n == 9
    if tag == 5:
        return n == 2 and head[1] <= 1
    if tag == 2:
        return n >= 5
    if tag == TAG_TENSOR:
        return n >= 3 and info_for_code(head[1]) is not None and head[2] <= 127
    return False


def describe(value: Any) -> str:
    """One line about a decoded value: its type, and shape, dtype and size for tensors."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return f"Bool {value}"
    if isinstance(value, int):
        return f"Int {value}"
    if isinstance(value, float):
        return f"Double {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"String {shown!r} ({count(len(value.encode('utf-8', 'surrogatepass')), 'byte')})"
    if isinstance(value, bytes):
        try:
            return describe(value.decode("utf-8"))
        except UnicodeDecodeError:
            return f"String of {count(len(value), 'byte')} (not UTF-8 text)"
    if isinstance(value, RawTensor):
        return (
            f"Tensor {value.dtype_name} shape {list(value.shape)} "
            f"({count(value.nbytes, 'data byte')}, held raw)"
        )
    if isinstance(value, np.ndarray):
        return (
            f"Tensor {value.dtype.name} shape {list(value.shape)} "
            f"({count(value.nbytes, 'data byte')})"
        )
    return type(value).__name__


def facts(value: Any) -> dict[str, Any]:
    """:func:`describe` as JSON-ready data: ``type``, and the value (scalars), ``bytes`` and
    ``text`` (strings: bytes, whether they are UTF-8), ``dtype``/``shape``/``nbytes``/``raw``
    (tensors; ``raw`` when numpy cannot hold the type)."""
    from wireplan.evalue._json import to_json

    if value is None:
        return {"type": "None"}
    if isinstance(value, bool):
        return {"type": "Bool", "value": value}
    if isinstance(value, int):
        return {"type": "Int", "value": value}
    if isinstance(value, float):
        return {"type": "Double", "value": to_json(value)}
    if isinstance(value, str | bytes):
        data = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value
        try:
            data.decode("utf-8")
            text = True
        except UnicodeDecodeError:
            text = False
        return {"type": "String", "bytes": len(data), "text": text}
    if isinstance(value, RawTensor):
        shape, nbytes, dtype, raw = list(value.shape), value.nbytes, value.dtype_name, True
    else:
        arr = np.asarray(value)
        info = info_for_dtype(arr.dtype)
        dtype = info.name if info is not None else arr.dtype.name
        shape, nbytes, raw = list(arr.shape), arr.nbytes, False
    return {"type": "Tensor", "dtype": dtype, "shape": shape, "nbytes": nbytes, "raw": raw}


def _summary(values: list[Any]) -> str:
    return "[" + ", ".join(describe(v) for v in values) + "]"


class InspectError(DecodeError):
    """A damaged file met by ``inspect``: the decoder's error, with the file and what it was read as."""

    def __init__(self, file: Path, kind: str, cause: DecodeError) -> None:
        self.file = file
        self.kind = kind
        super().__init__(cause.reason, cause.offset, cause.path)

    def _render(self) -> str:
        return f"{self.file}: {self.kind}: {super()._render()}"

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_inspect_error, (self.file, self.kind, self.reason, self.offset, self.path))


def _rebuild_inspect_error(
    file: Path, kind: str, reason: str, offset: int | None, path: str
) -> InspectError:
    return InspectError(file, kind, DecodeError(reason, offset, path))


def _kind(head: bytes) -> str:
    """What a damaged file was read as, for :class:`InspectError`."""
    if head.startswith(RECORD_MAGIC):
        return "damaged EValue record file"
    if head.startswith(LIST_MAGIC):
        return "damaged EValue list"
    # A bare EValue has no magic: say what its first byte made of it.
    tag = head[0] if head else -1
    name = TAG_NAMES[tag] if 0 <= tag < len(TAG_NAMES) else f"tag {tag}"
    return f"not a valid EValue (read as a bare {name} from its first byte)"


def _head(path: Path) -> bytes:
    with path.open("rb") as f:
        return f.read(16)


def _index(record: int, n: int) -> int:
    """Record ``record`` of ``n`` (negative: from the end), or one line saying it is not there."""
    if not -n <= record < n:
        raise LimitError(f"no record {record}: the file has {count(n, 'record')}")
    return record % n


def _records(path: Path, head: bytes, copy: bool = True) -> RecordFile:
    try:
        return RecordFile(path, copy=copy, extended=True, text=False)
    except DecodeError as exc:
        raise InspectError(path, _kind(head), exc) from exc


def _not_records(record: int) -> DecodeError:
    return DecodeError(f"--record {record}: not an EValue record file")


def inspect(path: str | Path, out: TextIO, *, record: int | None = None) -> None:
    """Describe an EValue file, an encoded list, or a record file (types, shapes, sizes, counts).

    Nothing is copied: the file is mapped and tensors are views.  A damaged
    file raises :class:`InspectError` (a ``DecodeError``) naming the file,
    what it was read as, and the byte where it went wrong.  ``record=N``
    prints record N of a record file as ``wireplan evalue decode`` prints it
    (one line of JSON, docs/evalue.md); a record past the end is a
    :class:`~wireplan.LimitError`, another kind of file a ``DecodeError``.
    """
    path = Path(path)
    head = _head(path)
    if record is not None:
        if not head.startswith(RECORD_MAGIC):
            raise _not_records(record)
        from wireplan.evalue._json import dumps, to_json

        with _records(path, head) as records:
            index = _index(record, len(records))
            try:
                values = records[index]
            except DecodeError as exc:
                raise InspectError(path, _kind(head), exc) from exc
        print(dumps(to_json(values)), file=out)
        return
    try:
        _inspect(path, head, out)
    except DecodeError as exc:
        raise InspectError(path, _kind(head), exc) from exc


def _inspect(path: Path, head: bytes, out: TextIO) -> None:
    if head.startswith(RECORD_MAGIC):
        _inspect_records(path, out)
        return
    with MappedFile(path) as mapped:
        mv = mapped.buffer[: mapped.size]
        if head.startswith(LIST_MAGIC):
            values = _decode_list_at(mv, 0, mapped.size, False, True, False)
            print(
                f"{path}: EValue list (wireplan framing v1), {count(mapped.size, 'byte')}",
                file=out,
            )
            print(f"  {count(len(values), 'element')}", file=out)
            for i, v in enumerate(values):
                print(f"  [{i}] {describe(v)}", file=out)
            return
        value = decode(mv, copy=False, extended=True, text=False)
        print(f"{path}: one EValue, {count(mapped.size, 'byte')}", file=out)
        print(f"  {describe(value)}", file=out)


def _tally(records: RecordFile, kinds: Counter[str]) -> tuple[int, int]:
    """Count the values of every record by type; return (values, tensor data bytes)."""
    elements = tensor_bytes = 0
    for i in range(len(records)):
        values = records[i]
        elements += len(values)
        for v in values:
            kinds[describe(v).split(" ", 1)[0]] += 1
            if isinstance(v, np.ndarray | RawTensor):
                tensor_bytes += v.nbytes
    return elements, tensor_bytes


def _mix(elements: int, kinds: Mapping[str, int], tensor_bytes: int) -> str:
    mix = ", ".join(f"{k} {c}" for k, c in sorted(kinds.items()))
    return (
        f"{count(elements, 'value')} ({mix or 'none'}); {count(tensor_bytes, 'tensor data byte')}"
    )


def _inspect_records(path: Path, out: TextIO) -> None:
    with RecordFile(path, copy=False, extended=True, text=False) as records:
        n = len(records)
        print(
            f"{path}: EValue record file (wireplan v1), {count(records.size, 'byte')}, "
            f"{count(n, 'record')}",
            file=out,
        )
        for i in range(min(n, _SHOWN_RECORDS)):
            print(f"  record {i}: {_summary(records[i])}", file=out)
        if n > _SHOWN_RECORDS:
            print(f"  ... {count(n - _SHOWN_RECORDS, 'more record')}", file=out)
        kinds: Counter[str] = Counter()
        elements, tensor_bytes = _tally(records, kinds)
        print(f"  {_mix(elements, kinds, tensor_bytes)}", file=out)


def inspect_shards(spec: str | Path, out: TextIO) -> None:
    """Sum up the record files a folder or glob names: files, records, values by type, bytes.

    Every record is decoded (as views), so a damaged shard raises
    :class:`InspectError` naming it; ``FileNotFoundError`` when ``spec`` finds no file.
    """
    facts = summary_shards(spec)  # FileNotFoundError when it names nothing
    shards = facts["shards"]
    print(
        f"{spec}: {count(len(shards), 'EValue record file')}, {count(facts['size'], 'byte')}, "
        f"{count(facts['records'], 'record')}",
        file=out,
    )
    for shard in shards[:_SHOWN_RECORDS]:
        print(
            f"  {Path(shard['path'])}: {count(shard['records'], 'record')}, "
            f"{count(shard['size'], 'byte')}",
            file=out,
        )
    if len(shards) > _SHOWN_RECORDS:
        print(f"  ... {count(len(shards) - _SHOWN_RECORDS, 'more file')}", file=out)
    print(f"  {_mix(facts['values'], facts['types'], facts['tensor_bytes'])}", file=out)


# ---------------------------------------------------------------- inspect --json


def _types(kinds: Counter[str]) -> dict[str, int]:
    return dict(sorted(kinds.items()))


def summary(path: Path, *, record: int | None = None) -> dict[str, Any]:
    """The facts of ``wireplan inspect --json`` for an EValue file (keys: docs/cli.md).

    ``format`` (``"evalue"``, ``"evalue-list"``, ``"evalue-records"``) and
    ``size``; a value adds :func:`facts`, a list ``count`` and ``items``, a
    record file ``records``, ``first_records`` (the first five, each a list
    of :func:`facts`), ``values``, ``types`` and ``tensor_bytes``, and with
    ``record=N`` a ``record`` object: ``index``, ``items`` and ``value`` (the
    JSON that ``wireplan evalue decode`` prints).  Errors as :func:`inspect`.
    """
    path = Path(path)
    head = _head(path)
    if head.startswith(RECORD_MAGIC):
        with _records(path, head, copy=False) as records:
            try:
                return _summary_records(records, record)
            except DecodeError as exc:
                if isinstance(exc, LimitError) and exc.offset is None:
                    raise  # no such record: not damage
                raise InspectError(path, _kind(head), exc) from exc
    if record is not None:
        raise _not_records(record)
    try:
        with MappedFile(path) as mapped:
            mv = mapped.buffer[: mapped.size]
            if head.startswith(LIST_MAGIC):
                values = _decode_list_at(mv, 0, mapped.size, False, True, False)
                items = [facts(v) for v in values]
                return {
                    "format": "evalue-list",
                    "size": mapped.size,
                    "count": len(items),
                    "items": items,
                }
            value = decode(mv, copy=False, extended=True, text=False)
            return {"format": "evalue", "size": mapped.size, **facts(value)}
    except DecodeError as exc:
        raise InspectError(path, _kind(head), exc) from exc


def _summary_records(records: RecordFile, record: int | None) -> dict[str, Any]:
    n = len(records)
    found: dict[str, Any] = {"format": "evalue-records", "size": records.size, "records": n}
    if record is not None:
        from wireplan.evalue._json import to_json

        index = _index(record, n)
        values = records[index]
        chosen = {"index": index, "items": [facts(v) for v in values], "value": to_json(values)}
    found["first_records"] = [[facts(v) for v in records[i]] for i in range(min(n, _SHOWN_RECORDS))]
    kinds: Counter[str] = Counter()
    found["values"], found["tensor_bytes"] = _tally(records, kinds)
    found["types"] = _types(kinds)
    if record is not None:
        found["record"] = chosen
    return found


def summary_shards(pattern: str | Path) -> dict[str, Any]:
    """The facts of ``wireplan inspect --json`` for a folder or glob of record files.

    ``format`` ``"evalue-shards"``, ``size`` (the sum), ``shards`` (each
    ``{"path", "size", "records"}``), ``records``, ``values``, ``types`` and
    ``tensor_bytes`` over them all.
    """
    kinds: Counter[str] = Counter()
    shards = []
    total = values = tensor_bytes = 0
    for name in shard_paths(pattern):
        path = Path(name)
        try:
            with RecordFile(path, copy=False, extended=True, text=False) as shard:
                n = len(shard)
                got, data = _tally(shard, kinds)
                size = shard.size
        except DecodeError as exc:
            raise InspectError(path, "damaged EValue record file", exc) from exc
        shards.append({"path": name, "size": size, "records": n})
        total += size
        values += got
        tensor_bytes += data
    return {
        "format": "evalue-shards",
        "size": total,
        "shards": shards,
        "records": sum(s["records"] for s in shards),
        "values": values,
        "types": _types(kinds),
        "tensor_bytes": tensor_bytes,
    }
