"""The EValue part of the ``wireplan`` command line: ``inspect`` and ``demo``."""

from __future__ import annotations

import io
import pickle
import time
from collections import Counter
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from wireplan.core.buffers import MappedFile
from wireplan.errors import DecodeError, WireplanError
from wireplan.evalue._codec import TAG_NAMES, TAG_TENSOR, RawTensor, decode, encode
from wireplan.evalue._dtypes import info_for_code
from wireplan.evalue._records import (
    LIST_MAGIC,
    RECORD_MAGIC,
    RecordFile,
    RecordWriter,
    _decode_list_at,
    decode_list,
    encode_list,
    shard_paths,
)

__all__ = ["InspectError", "demo", "describe", "inspect", "inspect_shards", "sniff"]

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
        return f"String {shown!r} ({len(value.encode('utf-8', 'surrogatepass'))} bytes)"
    if isinstance(value, bytes):
        try:
            return describe(value.decode("utf-8"))
        except UnicodeDecodeError:
            return f"String of {len(value)} bytes (not UTF-8 text)"
    if isinstance(value, RawTensor):
        return (
            f"Tensor {value.dtype_name} shape {list(value.shape)} "
            f"({value.nbytes} data bytes, held raw)"
        )
    if isinstance(value, np.ndarray):
        return f"Tensor {value.dtype.name} shape {list(value.shape)} ({value.nbytes} data bytes)"
    return type(value).__name__


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


def inspect(path: str | Path, out: TextIO) -> None:
    """Describe an EValue file, an encoded list, or a record file (types, shapes, sizes, counts).

    Nothing is copied: the file is mapped and tensors are views.  A damaged
    file raises :class:`InspectError` (a ``DecodeError``) naming the file,
    what it was read as, and the byte where it went wrong.
    """
    path = Path(path)
    with path.open("rb") as f:
        head = f.read(16)
    if head.startswith(RECORD_MAGIC):
        kind = "damaged EValue record file"
    elif head.startswith(LIST_MAGIC):
        kind = "damaged EValue list"
    else:
        # A bare EValue has no magic: say what its first byte made of it.
        tag = head[0] if head else -1
        name = TAG_NAMES[tag] if 0 <= tag < len(TAG_NAMES) else f"tag {tag}"
        kind = f"not a valid EValue (read as a bare {name} from its first byte)"
    try:
        _inspect(path, head, out)
    except DecodeError as exc:
        raise InspectError(path, kind, exc) from exc


def _inspect(path: Path, head: bytes, out: TextIO) -> None:
    if head.startswith(RECORD_MAGIC):
        _inspect_records(path, out)
        return
    with MappedFile(path) as mapped:
        mv = mapped.buffer[: mapped.size]
        if head.startswith(LIST_MAGIC):
            values = _decode_list_at(mv, 0, mapped.size, False, True, False)
            print(f"{path}: EValue list (wireplan framing v1), {mapped.size} bytes", file=out)
            print(f"  {len(values)} elements", file=out)
            for i, v in enumerate(values):
                print(f"  [{i}] {describe(v)}", file=out)
            return
        value = decode(mv, copy=False, extended=True, text=False)
        print(f"{path}: one EValue, {mapped.size} bytes", file=out)
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


def _mix(elements: int, kinds: Counter[str], tensor_bytes: int) -> str:
    mix = ", ".join(f"{k} {c}" for k, c in sorted(kinds.items()))
    return f"{elements} values ({mix or 'none'}); {tensor_bytes} tensor data bytes"


def _inspect_records(path: Path, out: TextIO) -> None:
    with RecordFile(path, copy=False, extended=True, text=False) as records:
        n = len(records)
        print(
            f"{path}: EValue record file (wireplan v1), {records.size} bytes, {n} records", file=out
        )
        for i in range(min(n, _SHOWN_RECORDS)):
            print(f"  record {i}: {_summary(records[i])}", file=out)
        if n > _SHOWN_RECORDS:
            print(f"  ... {n - _SHOWN_RECORDS} more records", file=out)
        kinds: Counter[str] = Counter()
        elements, tensor_bytes = _tally(records, kinds)
        print(f"  {_mix(elements, kinds, tensor_bytes)}", file=out)


def inspect_shards(spec: str | Path, out: TextIO) -> None:
    """Sum up the record files a folder or glob names: files, records, values by type, bytes.

    Every record is decoded (as views), so a damaged shard raises
    :class:`InspectError` naming it; ``FileNotFoundError`` when ``spec`` finds no file.
    """
    paths = shard_paths(spec)  # FileNotFoundError when it names nothing
    kinds: Counter[str] = Counter()
    records = elements = tensor_bytes = size = 0
    lines = []
    for name in paths:
        path = Path(name)
        try:
            with RecordFile(path, copy=False, extended=True, text=False) as shard:
                n = len(shard)
                values, data = _tally(shard, kinds)
                shard_size = shard.size
        except DecodeError as exc:
            raise InspectError(path, "damaged EValue record file", exc) from exc
        lines.append(f"  {path}: {n} records, {shard_size} bytes")
        records += n
        elements += values
        tensor_bytes += data
        size += shard_size
    print(f"{spec}: {len(paths)} EValue record files, {size} bytes, {records} records", file=out)
    for line in lines[:_SHOWN_RECORDS]:
        print(line, file=out)
    if len(lines) > _SHOWN_RECORDS:
        print(f"  ... {len(lines) - _SHOWN_RECORDS} more files", file=out)
    print(f"  {_mix(elements, kinds, tensor_bytes)}", file=out)


def _median_seconds(fn: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2]


def demo(out: TextIO, workdir: Path) -> None:
    """Encode and decode every EValue type, a tensor, a list and a record file; print sizes and speed."""
    samples: list[Any] = [
        None,
        True,
        -(2**63),
        3.5,
        "héllo",
        np.arange(6, dtype=np.float32).reshape(2, 3),
    ]
    line = []
    for value in samples:
        data = encode(value)
        back = decode(data)
        same = np.array_equal(back, value) if isinstance(value, np.ndarray) else back == value
        if not same:
            raise WireplanError(f"demo round trip changed {value!r}")
        line.append(f"{describe(value).split(' ', 1)[0]} {len(data)} B")
    print("   one value each, encoded and decoded back: " + ", ".join(line), file=out)
    print(f"   float32 2x3 tensor bytes: {encode(samples[-1]).hex()}", file=out)

    big = np.random.default_rng(0).standard_normal((2048, 2048), dtype=np.float32)
    blob = encode(big)
    wire = np.frombuffer(blob, ">f4", offset=len(blob) - big.nbytes).reshape(big.shape)
    t_copy = _median_seconds(lambda: np.copyto(np.empty(big.shape, ">f4"), big), 5)
    t_back = _median_seconds(lambda: np.copyto(np.empty(big.shape, np.float32), wire), 5)
    t_enc = _median_seconds(lambda: encode(big), 5)
    t_dec = _median_seconds(lambda: decode(blob), 5)
    t_view = _median_seconds(lambda: decode(blob, copy=False), 51)
    mib = big.nbytes / 2**20
    print(
        f"   {mib:.0f} MiB float32 tensor: encode {t_enc * 1e3:.1f} ms "
        f"({t_enc / t_copy:.2f}x numpy.copyto into a new >f4 array), "
        f"decode {t_dec * 1e3:.1f} ms ({t_dec / t_back:.2f}x copyto back), "
        f"zero-copy decode {t_view * 1e6:.1f} us",
        file=out,
    )
    print(
        f"   pickle protocol 5 of the same array: {len(pickle.dumps(big, protocol=5))} B, "
        f"EValue: {len(blob)} B",
        file=out,
    )

    example = [np.arange(12, dtype=np.int64).reshape(3, 4), "cat", 7, 0.25, None]
    listed = encode_list(example)
    assert len(decode_list(listed)) == len(example)
    print(f"   list of {len(example)} values (framing v1): {len(listed)} B", file=out)

    path = workdir / "examples.evr"
    rng = np.random.default_rng(1)
    with RecordWriter(path) as writer:
        for i in range(100):
            writer.write([rng.standard_normal((8, 8), dtype=np.float32), f"label-{i % 3}", i])
    print(
        f"   record file of 100 examples: {path.stat().st_size} B; wireplan inspect says:", file=out
    )

    report = io.StringIO()
    inspect(path, report)
    for text in report.getvalue().splitlines():
        print(f"     {text}", file=out)
