"""``wireplan dsdl encode`` and ``wireplan dsdl decode``: values as text <-> bytes."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, BinaryIO, TextIO

from wireplan.errors import ArgumentError

__all__ = ["ROOTS_HELP", "register"]

ROOTS_HELP = (
    "DSDL root namespaces come from --lookup DIR (repeatable; a root namespace folder such as "
    "public_regulated_data_types/uavcan) and from CYPHAL_PATH (folders separated by "
    f"{os.pathsep!r} or ';', each holding root namespaces as subfolders, as for pycyphal and "
    "yakut).  TYPE is a full name, uavcan.node.Heartbeat.1.0; without a version the newest "
    "is used, without a minor the newest of that major; a service's halves are "
    "uavcan.register.Access.Request.1.0 and ...Response.1.0."
)


def _class(args: argparse.Namespace) -> Any:
    from wireplan.dsdl import _lookup, values

    dirs = _lookup.namespaces(args.lookup or ())
    name = _lookup.resolve(args.type, dirs)  # "did you mean", before anything is compiled
    from wireplan.core.progress import announced

    root = name.split(".")[0]
    with announced(f"compiling {root}", "type") as progress:  # the first use of a namespace
        return values.find_class(args.type, dirs, progress=progress)


def _binary(stream: TextIO) -> BinaryIO:
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        raise ArgumentError("--raw needs a binary stream")
    return buffer  # type: ignore[no-any-return]


def _cmd_encode(args: argparse.Namespace, out: TextIO) -> int:
    from wireplan.dsdl import values

    cls = _class(args)
    text = sys.stdin.read() if args.value == "-" else args.value
    obj = values.from_plain(cls, values.parse_text(text))
    data: bytes = obj.serialize()
    if args.raw:
        out.flush()
        sink = _binary(out)
        sink.write(data)
        sink.flush()
    else:
        print(data.hex(), file=out)
    return 0


def _cmd_decode(args: argparse.Namespace, out: TextIO) -> int:
    from wireplan.dsdl import values

    if args.raw and args.input != "-":
        raise ArgumentError("--raw reads the bytes from stdin: give - as the input")
    cls = _class(args)
    if args.raw:
        data = _binary(sys.stdin).read()
    else:
        data = values.parse_hex(sys.stdin.read() if args.input == "-" else args.input)
    obj = cls.deserialize(data)
    yaml = args.format == "yaml" or (args.format is None and out.isatty())
    plain = values.to_plain(obj, json_safe=not yaml)
    print(values.dump_yaml(plain) if yaml else values.dump_json(plain), file=out)
    return 0


def register(sub: Any) -> None:
    """Add ``encode`` and ``decode`` to the ``wireplan dsdl`` subcommands ``sub``."""
    enc = sub.add_parser(
        "encode",
        help="serialize a value (JSON or YAML) of a DSDL type, print hex",
        description="Serialize VALUE, given as JSON or YAML (yakut's flow style works: "
        "'{health: {value: 1}}'), and print the bytes as hex.  As for pycyphal's "
        "update_from_builtin, a mapping sets fields by name, a list sets them in order, and a "
        "single value sets the first field ('7' is a Heartbeat of uptime 7); fields not given "
        "are zero.  " + ROOTS_HELP,
    )
    enc.add_argument("type", metavar="TYPE", help="e.g. uavcan.node.Heartbeat.1.0")
    enc.add_argument("value", metavar="VALUE", help="JSON or YAML; - reads it from stdin")
    enc.add_argument("--lookup", action="append", metavar="DIR", help="a root namespace folder")
    enc.add_argument("--raw", action="store_true", help="write the bytes themselves, not hex")
    enc.set_defaults(handler=_cmd_encode)

    dec = sub.add_parser(
        "decode",
        help="deserialize hex (or raw bytes) as a DSDL type, print YAML or JSON",
        description="Deserialize the bytes given as hex and print the value: YAML on a "
        "terminal, JSON (one line) when piped, as yakut does.  " + ROOTS_HELP,
    )
    dec.add_argument("type", metavar="TYPE", help="e.g. uavcan.node.Heartbeat.1.0")
    dec.add_argument("input", metavar="HEX", help="the bytes as hex; - reads them from stdin")
    dec.add_argument("--lookup", action="append", metavar="DIR", help="a root namespace folder")
    dec.add_argument("--raw", action="store_true", help="read raw bytes from stdin (HEX is -)")
    form = dec.add_mutually_exclusive_group()
    form.add_argument(
        "--json",
        dest="format",
        action="store_const",
        const="json",
        help="print JSON (the default when piped)",
    )
    form.add_argument(
        "--yaml",
        dest="format",
        action="store_const",
        const="yaml",
        help="print YAML (the default on a terminal)",
    )
    dec.set_defaults(handler=_cmd_decode, format=None)
