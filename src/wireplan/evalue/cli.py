"""The EValue part of the ``wireplan`` command line: ``evalue encode`` / ``decode`` /
``header`` / ``bundled`` / ``bundle`` (and ``inspect``, which :mod:`wireplan.cli` adds), and the
hooks the top-level command asks every format for (``sniff``, ``inspect``, ``summary``,
``inspect_shards``, ``summary_shards``, ``demo``; from ``_inspect`` and ``_demo``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from wireplan.core.atomic import write_bytes
from wireplan.core.buffers import MappedFile
from wireplan.core.text import count
from wireplan.errors import ArgumentError, DecodeError, EncodeError
from wireplan.evalue._bundled import bundled_to_records, records_to_bundled
from wireplan.evalue._codec import decode, encode
from wireplan.evalue._cpp import HEADERS, header_folder, write_headers
from wireplan.evalue._demo import demo
from wireplan.evalue._inspect import (
    InspectError,
    _index,
    _not_records,
    describe,
    facts,
    inspect,
    inspect_shards,
    sniff,
    summary,
    summary_shards,
)
from wireplan.evalue._lists import LIST_MAGIC, _decode_list_at, decode_list, encode_list
from wireplan.evalue._records import RECORD_MAGIC, _scan_records, shard_paths
from wireplan.evalue._writer import RecordWriter

__all__ = [
    "InspectError",
    "demo",
    "describe",
    "facts",
    "holds_record_files",
    "inspect",
    "inspect_shards",
    "register",
    "sniff",
    "summary",
    "summary_shards",
]


def holds_record_files(folder: Path) -> bool:
    """Whether ``folder`` holds an EValue record file (sub-folders not counted): ``wireplan
    inspect FOLDER`` then describes its record files as one set of shards."""
    try:
        return bool(shard_paths(folder))
    except FileNotFoundError:
        return False


def _value_text(arg: str) -> str:
    """VALUE as given: inline JSON, ``-`` for stdin, ``@FILE`` for a file's text."""
    if arg == "-":
        return sys.stdin.read()
    if arg.startswith("@"):
        return Path(arg[1:]).read_text(encoding="utf-8")
    return arg


def _value_name(arg: str) -> str:
    """What errors call VALUE: ``stdin`` for ``-``, the file for ``@FILE``, else ``VALUE``."""
    return "stdin" if arg == "-" else arg[1:] if arg.startswith("@") else "VALUE"


def _file_hint(exc: DecodeError, arg: str) -> DecodeError:
    """``exc`` (VALUE is not JSON) with a hint when VALUE is the name of a file."""
    if _value_name(arg) != "VALUE" or not Path(arg).is_file():
        return exc
    return DecodeError(f"{exc.reason} (to read the file {arg}, give @{arg})", exc.offset)


def _binary(stream: Any, what: str) -> BinaryIO:
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        raise ArgumentError(f"{what} needs a binary stream")
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

    if args.records and args.output is None:
        raise ArgumentError("--records writes a record file: give -o FILE")
    text = _value_text(args.value)
    what = _value_name(args.value)
    try:
        data = parse_lines(text, what) if args.records else parse(text, what)
    except DecodeError as exc:
        raise _file_hint(exc, args.value) from None
    if args.records:
        records = records_from_json(data)
        with RecordWriter(args.output, extended=args.extended, durable=args.durable) as writer:
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
    value = from_json(data)
    if isinstance(value, list):
        data = encode_list(value, extended=args.extended)
        what = f"a list of {count(len(value), 'value')}"
    else:
        data = encode(value, extended=args.extended)
        what = describe(value)
    if args.output is not None:
        write_bytes(args.output, data, durable=args.durable)
        print(f"wrote {args.output}: {count(len(data), 'byte')}, {what}", file=out)
    elif args.hex:
        print(data.hex(), file=out)
    else:
        if out.isatty():
            raise ArgumentError("the bytes are binary: give -o FILE, or --hex for hex text")
        out.flush()
        sink = _binary(out, "writing the bytes to stdout")
        sink.write(data)
        sink.flush()
    return 0


def _input_bytes(args: argparse.Namespace) -> bytes:
    if args.hex:
        text = sys.stdin.read() if args.input == "-" else args.input
        try:
            return bytes.fromhex("".join(text.split()))
        except ValueError:
            raise _not_hex(text) from None
    if args.input == "-":
        return _binary(sys.stdin, "reading the bytes from stdin").read()
    return Path(args.input).read_bytes()


def _not_hex(text: str) -> DecodeError:
    """Where ``text`` stops being hex: its first other character, or the odd digit at its end."""
    digits = 0
    for i, c in enumerate(text):
        if c in _HEX:
            digits += 1
        elif not c.isspace():
            return DecodeError(
                f"INPUT is not hex: {c!r} (with --hex, INPUT is the bytes as hex)", i
            )
    last = len(text.rstrip()) - 1
    return DecodeError(f"INPUT is not hex: {digits} digits, an odd number", max(last, 0))


_HEX = frozenset("0123456789abcdefABCDEF")


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
            raise ArgumentError("--lines prints a list or a record file one item a line")
        for item in decoded:
            print(dumps(to_json(item)), file=out)
    else:
        print(dumps(to_json(decoded)), file=out)
    return 0


def _cmd_header(args: argparse.Namespace, out: TextIO) -> int:
    if args.output is None:
        out.write((header_folder() / HEADERS[0]).read_text(encoding="utf-8"))
        return 0
    paths = write_headers(args.output, durable=args.durable)
    print(f"wrote {', '.join(str(p) for p in paths)}", file=out)
    return 0


def _cmd_bundled(args: argparse.Namespace, out: TextIO) -> int:
    n = bundled_to_records(args.input, args.output, extended=args.extended, durable=args.durable)
    print(f"wrote {args.output}: {n} test case{'' if n == 1 else 's'} as records", file=out)
    return 0


def _cmd_bundle(args: argparse.Namespace, out: TextIO) -> int:
    with MappedFile(args.program) as program:
        n = records_to_bundled(
            args.input, args.output, program.buffer, threads=args.threads, durable=args.durable
        )
    print(
        f"wrote {args.output}: {args.program} with {n} test case{'' if n == 1 else 's'}", file=out
    )
    return 0


_JSON_HELP = (
    "The JSON form: null, true/false (Bool), integers (Int, int64), other numbers (Double; "
    '{"double": "nan"} for NaN and infinities), strings (String), {"tensor": [[1, 2], [3, 4]], '
    '"dtype": "float32"} (a Tensor; "shape" optional), and a list at the top for wireplan\'s '
    "list framing (docs/evalue.md).  JSON only: no YAML here."
)


_NO_FSYNC = "skip the fsyncs (still atomic, not safe against power loss; same bytes)"


def register(sub: Any) -> Any:
    """Add ``wireplan evalue encode`` and ``decode``; return the group's verbs
    (:mod:`wireplan.cli` adds ``inspect``)."""
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
        "--no-fsync",
        dest="durable",
        action="store_false",
        help="with -o: skip the fsyncs (still atomic, not safe against power loss; same bytes)",
    )
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

    hdr = verbs.add_parser(
        "header",
        help="the C++17 reader of EValues, lists and record files (header-only)",
        description=f"Write the C++ reader's headers into DIR: {HEADERS[0]} (header-only "
        f"C++17, zero-copy, no exceptions) and {HEADERS[1]} (its values as ExecuTorch "
        "EValues and TensorPtrs).  Without -o, print the reader to stdout.",
    )
    hdr.add_argument("-o", "--output", metavar="DIR", help="write both headers into DIR")
    hdr.add_argument(
        "--no-fsync",
        dest="durable",
        action="store_false",
        help="with -o: skip the fsyncs (still atomic, not safe against power loss; same bytes)",
    )
    hdr.set_defaults(handler=_cmd_header)

    bun = verbs.add_parser(
        "bundled",
        help="an ExecuTorch bundled program's test cases (.bpte) as a record file",
        description="Write each test case of the bundled program INPUT as one record: "
        "[method_name, len(inputs), *inputs, *expected_outputs] (docs/evalue.md).",
    )
    bun.add_argument("input", metavar="INPUT", help="the .bpte file")
    bun.add_argument("-o", "--output", metavar="FILE", required=True, help="the record file")
    bun.add_argument(
        "--extended",
        action="store_true",
        help="keep scalar types ExecuTorch's Java layer does not read (else refused)",
    )
    bun.add_argument("--no-fsync", dest="durable", action="store_false", help=_NO_FSYNC)
    bun.set_defaults(handler=_cmd_bundled)

    bnd = verbs.add_parser(
        "bundle",
        help="a bundled program (.bpte) from a .pte and a record file of test cases",
        description="Bundle the program PTE with the test cases of the record file INPUT "
        "(records as 'wireplan evalue bundled' writes them).",
    )
    bnd.add_argument("input", metavar="INPUT", help="the record file of test cases")
    bnd.add_argument("--program", metavar="PTE", required=True, help="the .pte to embed")
    bnd.add_argument("-o", "--output", metavar="FILE", required=True, help="the .bpte to write")
    bnd.add_argument("--threads", type=int, metavar="N", help="copy threads (default: by size)")
    bnd.add_argument("--no-fsync", dest="durable", action="store_false", help=_NO_FSYNC)
    bnd.set_defaults(handler=_cmd_bundle)
    return verbs
