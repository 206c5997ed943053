"""``wireplan dsdl ...`` subcommands and the DSDL part of ``wireplan demo``."""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path
from typing import Any, TextIO

from wireplan.errors import ArgumentError

__all__ = ["EXAMPLE", "demo", "register"]

EXAMPLE = Path(__file__).resolve().parent / "example" / "demo"


class _DirAndType(argparse.Action):
    """``[DIR] TYPE``: ``layout TYPE`` (types from --lookup / CYPHAL_PATH), or ``layout DIR TYPE``."""

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: Any = None
    ) -> None:
        if len(values) > 2:
            parser.error(f"takes TYPE or DIR TYPE, not {len(values)} arguments")
        namespace.dir = values[0] if len(values) == 2 else None
        namespace.type = values[-1]


def _cmd_layout(args: argparse.Namespace, out: TextIO) -> int:
    from wireplan.dsdl import _lookup, layout

    roots = [Path(args.dir)] if args.dir is not None else []
    lookups = _lookup.namespaces(args.lookup or (), exclude=[p.resolve().name for p in roots])
    if not roots and not lookups:
        raise ArgumentError(_lookup.NO_NAMESPACES)
    report = layout(args.type, roots, lookup=lookups)
    print(report.render(), file=out)
    return 0


def _cmd_compile(args: argparse.Namespace, out: TextIO) -> int:
    from wireplan.dsdl import _lookup, compile

    start = time.perf_counter()
    from wireplan.core.progress import announced

    names = ", ".join(Path(d).resolve().name for d in args.dirs)
    # --lookup, then CYPHAL_PATH: the namespaces the roots may use (not the roots themselves)
    lookups = _lookup.namespaces(
        args.lookup or (), exclude=[Path(d).resolve().name for d in args.dirs]
    )
    with announced(f"compiling {names}", "type") as progress:
        target = compile(
            args.dirs,
            lookup=lookups,
            output=args.output,
            language=args.language,
            language_standard=args.language_standard,
            arrays=args.arrays,
            progress=progress,
            durable=not args.no_fsync,
        )
    if args.language in ("c", "cpp"):
        mark = "_wireplan_c.json"
        what = "C headers" if args.language == "c" else "C++ headers"
    else:
        mark = "__init__.py"
        what = "Python packages"
    packages = sorted(p.name for p in target.iterdir() if (p / mark).exists())
    print(
        f"compiled {', '.join(args.dirs)} into {target} ({what}: {', '.join(packages)}) "
        f"in {time.perf_counter() - start:.2f} s",
        file=out,
    )
    return 0


def register(subparsers: Any) -> Any:
    """Add ``wireplan dsdl layout``, ``compile``, ``encode`` and ``decode``; return the verbs."""
    dsdl = subparsers.add_parser(
        "dsdl",
        help="Cyphal DSDL: compile namespaces, show a type's plan, encode and decode values",
        description="Cyphal DSDL: a compiler to Python serializers, its layout plan, values as JSON or YAML.",
    )
    sub = dsdl.add_subparsers(dest="dsdl_command", metavar="SUBCOMMAND")
    sub.required = True
    from wireplan.dsdl import _cli_values

    lay = sub.add_parser(
        "layout",
        usage="%(prog)s [-h] [--lookup DIR] [DIR] TYPE",
        help="offsets and serializer strategy of each field of a type",
        description="Print, for each field, its possible bit offsets and the strategy chosen.  "
        + _cli_values.ROOTS_HELP,
    )
    lay.add_argument(
        "names",
        nargs="+",
        action=_DirAndType,
        metavar="[DIR] TYPE",
        help="the type, e.g. uavcan.node.Heartbeat (newest version) or uavcan.node.Heartbeat.1.0, "
        "from --lookup / CYPHAL_PATH; or a root namespace folder DIR, then the type",
    )
    lay.add_argument(
        "--lookup", action="append", metavar="DIR", help="a root namespace folder (repeatable)"
    )
    lay.set_defaults(handler=_cmd_layout)

    comp = sub.add_parser(
        "compile",
        help="generate an importable Python package, or C / C++ headers (--language c, cpp)",
        description="Generate Python packages (one per root namespace) into OUT, or C11 / C++17 "
        "headers with nunavut 3.1's C / C++ API (--language c, --language cpp).",
    )
    comp.add_argument(
        "dirs",
        nargs="+",
        metavar="DIR",
        help="root namespace folder(s) to compile, e.g. .../uavcan",
    )
    comp.add_argument(
        "--lookup",
        action="append",
        metavar="DIR",
        help="a root namespace folder they use (repeatable); CYPHAL_PATH adds more",
    )
    comp.add_argument("-o", "--output", required=True, metavar="OUT", help="output folder")
    comp.add_argument(
        "--language",
        choices=("python", "c", "cpp"),
        default="python",
        help="python (default): importable packages; c: C11 headers; cpp: C++17 headers "
        "(docs/dsdl-c.md)",
    )
    comp.add_argument(
        "--language-standard",
        metavar="STD",
        help="with --language cpp, as nnvg's: c++17 (default), c++20 (the same headers), "
        "c++14, c++17-pmr or c++20-pmr (classes with std::pmr allocators), cetl++14-17 "
        "(CETL's containers and allocator)",
    )
    comp.add_argument(
        "--arrays",
        choices=("auto", "numpy"),
        default="auto",
        help="Python: auto (default): lists, str for utf8, bytes for byte, numpy arrays for "
        "float16, from 16 numbers on (64 for bools and uint8); numpy: every array a numpy "
        "array, as in nunavut's classes",
    )
    comp.add_argument(
        "--no-fsync",
        action="store_true",
        help="skip fsync: still all-or-none if the process fails or is killed, but a power "
        "loss or OS crash may leave the packages in OUT empty or partial",
    )
    comp.set_defaults(handler=_cmd_compile)

    _cli_values.register(sub)
    return sub


def _rate(fn: Any, seconds: float = 0.15) -> float:
    count = 0
    start = time.perf_counter()
    end = start + seconds
    while True:
        for _ in range(200):
            fn()
        count += 200
        now = time.perf_counter()
        if now >= end:
            return count / (now - start)


def demo(out: TextIO, workdir: Path) -> None:
    """Compile the built-in ``demo`` namespace, show strategies, sizes, a round trip, a speed."""
    import os

    from wireplan.dsdl import compile, load

    saved = os.environ.get("WIREPLAN_CACHE_DIR")
    os.environ["WIREPLAN_CACHE_DIR"] = str(workdir / "cache")  # the demo leaves no trace
    try:
        _demo(out, workdir, compile, load)
    finally:
        if saved is None:
            del os.environ["WIREPLAN_CACHE_DIR"]
        else:
            os.environ["WIREPLAN_CACHE_DIR"] = saved


def _demo(out: TextIO, workdir: Path, compile: Any, load: Any) -> None:

    start = time.perf_counter()
    compile(EXAMPLE, output=workdir / "out")
    print(
        f"   compiled the built-in namespace 'demo' in {time.perf_counter() - start:.2f} s "
        f"into {workdir / 'out'}",
        file=out,
    )
    demo_ns = load(EXAMPLE)
    telemetry = demo_ns.Telemetry_1_0(
        id_=1234, flags=5, x=-300, y=200, z=-5, quality=2,
        status=[True, False, True, True, False, False], temperature=21.5,
        battery=40, rssi=-60, valid=True,
    )  # fmt: skip
    status = demo_ns.Status_1_0(timestamp_us=1_700_000_000, voltage=12.5, current=1.25, mode=3)
    command = demo_ns.Command_1_0(setpoints=[0.5, 1.0, math.pi])
    request = demo_ns.Configure_1_0.Request(key=7, value=command)
    for obj in (status, telemetry, command, request):
        cls = type(obj)
        data = obj.serialize()
        same = cls.deserialize(data).serialize() == data
        print(
            f"   {cls._FULL_NAME_:<26} {cls._STRATEGY_:<19} {len(data):>3} bytes"
            f"  (max {cls._MAX_BYTES_}, extent {cls._EXTENT_BYTES_})"
            f"  round trip {'ok' if same else 'FAILED'}",
            file=out,
        )
    data = telemetry.serialize()
    back = demo_ns.Telemetry_1_0.deserialize(data)
    print(
        f"   round trip: {data.hex()} -> x={back.x} temperature={back.temperature} valid={back.valid}",
        file=out,
    )
    ser = _rate(telemetry.serialize)
    de = _rate(lambda: demo_ns.Telemetry_1_0.deserialize(data))
    s_ser = _rate(status.serialize)
    print(
        f"   speed: Telemetry (bit-packed) {ser / 1e3:,.0f}k serialize/s, {de / 1e3:,.0f}k deserialize/s; "
        f"Status (single struct) {s_ser / 1e3:,.0f}k serialize/s",
        file=out,
    )
