"""The EValue part of the ``wireplan`` command line: ``evalue encode`` / ``decode``,
``inspect`` (text, ``--json`` through :func:`summary`, ``--record N``) and ``demo``."""

from __future__ import annotations

import argparse
import io
import pickle
import sys
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO, TextIO

import numpy as np

from wireplan.core.atomic import write_bytes
from wireplan.core.buffers import MappedFile
from wireplan.core.text import count
from wireplan.errors import DecodeError, EncodeError, LimitError, WireplanError
from wireplan.evalue._codec import TAG_NAMES, TAG_TENSOR, RawTensor, decode, encode
from wireplan.evalue._dtypes import info_for_code, info_for_dtype
from wireplan.evalue._records import (
    LIST_MAGIC,
    RECORD_MAGIC,
    RecordFile,
    RecordWriter,
    _decode_list_at,
    _scan_records,
    decode_list,
    encode_list,
    shard_paths,
)

__all__ = [
    "InspectError",
    "demo",
    "describe",
    "facts",
    "inspect",
    "inspect_shards",
    "register",
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


# ---------------------------------------------------------------- evalue encode / decode


def _value_text(arg: str) -> str:
    """VALUE as given: inline JSON, ``-`` for stdin, ``@FILE`` for a file's text."""
    if arg == "-":
        return sys.stdin.read()
    if arg.startswith("@"):
        return Path(arg[1:]).read_text(encoding="utf-8")
    return arg


def _binary(stream: Any, what: str) -> BinaryIO:
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        raise WireplanError(f"{what} needs a binary stream")
    return buffer  # type: ignore[no-any-return]


def _cmd_encode(args: argparse.Namespace, out: TextIO) -> int:
    try:
        return _encode_verb(args, out)
    except EncodeError as exc:  # the library's advice, in the command line's words
        if "extended=True" not in exc.reason:
            raise
        reason = exc.reason.replace("pass extended=True", "give --extended")
        raise EncodeError(reason, exc.path) from None


def _encode_verb(args: argparse.Namespace, out: TextIO) -> int:
    from wireplan.evalue._json import from_json, parse, parse_lines, records_from_json

    text = _value_text(args.value)
    if args.records:
        if args.output is None:
            raise WireplanError("--records writes a record file: give -o FILE")
        records = records_from_json(parse_lines(text))
        with RecordWriter(args.output, extended=args.extended) as writer:
            for i, values in enumerate(records):
                try:
                    writer.write(values)
                except EncodeError as exc:
                    raise EncodeError(exc.reason, f"$[{i}]" + exc.path[1:]) from None
        written = Path(args.output).stat().st_size
        print(
            f"wrote {args.output}: {count(written, 'byte')}, {count(len(records), 'record')}",
            file=out,
        )
        return 0
    value = from_json(parse(text))
    if isinstance(value, list):
        data = encode_list(value, extended=args.extended)
        what = f"a list of {count(len(value), 'value')}"
    else:
        data = encode(value, extended=args.extended)
        what = describe(value)
    if args.output is not None:
        write_bytes(args.output, data)
        print(f"wrote {args.output}: {count(len(data), 'byte')}, {what}", file=out)
    elif args.hex:
        print(data.hex(), file=out)
    else:
        if out.isatty():
            raise WireplanError("the bytes are binary: give -o FILE, or --hex for hex text")
        out.flush()
        sink = _binary(out, "writing the bytes to stdout")
        sink.write(data)
        sink.flush()
    return 0


def _input_bytes(args: argparse.Namespace) -> bytes:
    if args.hex:
        text = sys.stdin.read() if args.input == "-" else args.input
        cleaned = "".join(text.split())
        try:
            return bytes.fromhex(cleaned)
        except ValueError:
            raise WireplanError(
                "INPUT is not hex (with --hex, INPUT is the bytes as hex)"
            ) from None
    if args.input == "-":
        return _binary(sys.stdin, "reading the bytes from stdin").read()
    return Path(args.input).read_bytes()


def _decoded(data: bytes, record: int | None) -> Any:
    """The values in ``data``: one value, a list, or a record file (all records, or one)."""
    if data.startswith(RECORD_MAGIC):
        mv = memoryview(data)
        spans = _scan_records(mv)
        if record is not None:
            index = _index(record, len(spans))
            start, end = spans[index]
            try:
                return _decode_list_at(mv, start, end, True, True, False)
            except DecodeError as exc:
                raise exc.under(f"[{index}]") from None
        records = []
        for i, (start, end) in enumerate(spans):
            try:
                records.append(_decode_list_at(mv, start, end, True, True, False))
            except DecodeError as exc:
                raise exc.under(f"[{i}]") from None
        return records
    if record is not None:
        raise _not_records(record)
    if data.startswith(LIST_MAGIC):
        return decode_list(data, extended=True, text=False)
    return decode(data, extended=True, text=False)


def _cmd_decode(args: argparse.Namespace, out: TextIO) -> int:
    from wireplan.evalue._json import dumps, to_json

    decoded = _decoded(_input_bytes(args), args.record)
    if args.lines:
        if not isinstance(decoded, list):
            raise WireplanError("--lines prints a list or a record file one item a line")
        for item in decoded:
            print(dumps(to_json(item)), file=out)
    else:
        print(dumps(to_json(decoded)), file=out)
    return 0


_JSON_HELP = (
    "The JSON form: null, true/false (Bool), integers (Int, int64), other numbers (Double; "
    '{"double": "nan"} for NaN and infinities), strings (String), {"tensor": [[1, 2], [3, 4]], '
    '"dtype": "float32"} (a Tensor; "shape" optional), and a list at the top for wireplan\'s '
    "list framing (docs/evalue.md).  JSON only: no YAML here."
)


def register(sub: Any) -> None:
    """Add ``wireplan evalue encode`` and ``wireplan evalue decode``."""
    evalue = sub.add_parser(
        "evalue",
        help="ExecuTorch EValues: encode JSON to EValue bytes, decode them to JSON",
        description="ExecuTorch's Java EValue wire format: values, lists and record files "
        "as JSON.  " + _JSON_HELP,
    )
    verbs = evalue.add_subparsers(dest="evalue_command", metavar="SUBCOMMAND")
    verbs.required = True

    enc = verbs.add_parser(
        "encode",
        help="JSON to EValue bytes (a value, a list, or a record file with --records)",
        description="Encode VALUE, given as JSON, as one EValue (a JSON list: wireplan's list "
        "framing; --records: a record file).  The bytes go to -o FILE, to stdout as hex with "
        "--hex, or raw to stdout when it is not a terminal.  " + _JSON_HELP,
    )
    enc.add_argument("value", metavar="VALUE", help="JSON; - reads it from stdin, @FILE from FILE")
    enc.add_argument("-o", "--output", metavar="FILE", help="write the bytes to FILE (atomically)")
    enc.add_argument("--hex", action="store_true", help="print the bytes as hex")
    enc.add_argument(
        "--records",
        action="store_true",
        help="VALUE is a JSON list of records (each a list of values), or JSON lines of them: "
        "write a record file (needs -o)",
    )
    enc.add_argument(
        "--extended",
        action="store_true",
        help="allow scalar types ExecuTorch's Java layer does not read (int16, uint16, bool...)",
    )
    enc.set_defaults(handler=_cmd_encode)

    dec = verbs.add_parser(
        "decode",
        help="EValue bytes (a value, a list or a record file) to JSON",
        description="Decode an EValue, a list or a record file and print it as one line of JSON "
        "(a record file: a list of records).  " + _JSON_HELP,
    )
    dec.add_argument(
        "input", metavar="INPUT", help="the file; - reads the bytes from stdin; with --hex: hex"
    )
    dec.add_argument("--hex", action="store_true", help="INPUT (or stdin, for -) is hex text")
    dec.add_argument(
        "--record",
        type=int,
        metavar="N",
        help="only record N of a record file (negative: from the end)",
    )
    dec.add_argument(
        "--lines",
        action="store_true",
        help="print a list or a record file one item (value or record) a line: JSON lines",
    )
    dec.set_defaults(handler=_cmd_decode)


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
