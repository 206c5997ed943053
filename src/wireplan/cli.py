"""The ``wireplan`` command line.

Each format contributes through its own ``wireplan.<format>.cli`` module,
which may define:

- ``register(subparsers)``: add format-specific subcommands;
- ``demo(out, workdir)``: its part of ``wireplan demo``;
- ``sniff(head) -> bool`` and ``inspect(path, out)``: its part of ``wireplan inspect``;
- ``operators(paths, out, type_reduction=)``: ``wireplan inspect --operators`` (.ort only).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TextIO

from wireplan import __version__
from wireplan.errors import WireplanError

# The formats in the order `wireplan demo` shows them.
FORMATS: tuple[tuple[str, str], ...] = (
    ("evalue", "EValue"),
    ("dsdl", "Cyphal DSDL"),
    ("ort", "ONNX Runtime .ort"),
)
# `inspect` asks the formats with a file identifier first; the first sniff() that accepts wins.
INSPECT_ORDER = ("ort", "evalue")


def _format_cli(name: str) -> ModuleType | None:
    module = f"wireplan.{name}.cli"
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return None
        raise


def _available() -> list[tuple[str, str, ModuleType]]:
    found = []
    for name, title in FORMATS:
        mod = _format_cli(name)
        if mod is not None:
            found.append((name, title, mod))
    return found


def _cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    formats = _available()
    wanted = set(args.only or [name for name, _, _ in formats])
    with tempfile.TemporaryDirectory(prefix="wireplan-demo-") as tmp:
        for name, title, mod in formats:
            if name not in wanted or not hasattr(mod, "demo"):
                continue
            print(f"== {title} ==", file=out)
            start = time.perf_counter()
            folder = Path(tmp) / name
            folder.mkdir()
            mod.demo(out, folder)
            print(f"   ({title} part took {time.perf_counter() - start:.2f} s)\n", file=out)
    return 0


def _cmd_inspect(args: argparse.Namespace, out: TextIO) -> int:
    if args.operators:
        ort_cli = _format_cli("ort")
        if ort_cli is None:
            print(
                "wireplan: error: --operators needs the .ort support (wireplan.ort)",
                file=sys.stderr,
            )
            return 1
        ort_cli.operators(args.file, out, type_reduction=args.type_reduction)
        return 0
    if args.type_reduction:
        print("wireplan: error: --type-reduction applies to --operators only", file=sys.stderr)
        return 2
    formats = {name: mod for name, _, mod in _available()}
    code = 0
    for file in args.file:
        path = Path(file)
        if path.is_dir() or (not path.exists() and any(c in file for c in "*?[")):
            # A folder or an unexpanded glob: a set of shards (record files only).
            shards = getattr(formats.get("evalue"), "inspect_shards", None)
            if shards is None:
                print(f"wireplan: {path}: not a file", file=sys.stderr)
                code = 1
            else:
                shards(file, out)
            continue
        with path.open("rb") as f:
            head = f.read(64)
        for name in INSPECT_ORDER:
            mod = formats.get(name)
            sniff = getattr(mod, "sniff", None)
            if mod is not None and sniff is not None and sniff(head):
                mod.inspect(path, out)
                break
        else:
            print(f"wireplan: {path}: not a format wireplan knows", file=sys.stderr)
            code = 1
    return code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wireplan",
        description=(
            "Binary serialization with the layout planned first: ExecuTorch EValue, "
            "Cyphal DSDL and ONNX Runtime .ort models."
        ),
    )
    parser.add_argument("--version", action="version", version=f"wireplan {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    names = [name for name, _, mod in _available() if hasattr(mod, "demo")]
    demo = sub.add_parser(
        "demo",
        help="run a built-in example through every format and print what happened",
        description="Run a built-in example through every format and print what happened.",
    )
    demo.add_argument(
        "--only",
        action="append",
        choices=names,
        metavar="FORMAT",
        help=f"run only this format's part ({', '.join(names)}); repeatable",
    )
    demo.set_defaults(handler=_cmd_demo)

    inspect = sub.add_parser(
        "inspect",
        help="describe a file: an EValue or an EValue record file, or an .ort model",
        description=(
            "Describe files; the format is recognised from their first bytes.  A folder or a "
            "quoted glob of EValue record files (shards) is summed up as one set.  With "
            "--operators, print the required_operators.config of a reduced onnxruntime build "
            "for the .ort or .onnx models given (several are merged into one config)."
        ),
    )
    inspect.add_argument(
        "file",
        nargs="+",
        metavar="FILE",
        help="the file(s), shard folder(s) or glob(s) to describe",
    )
    inspect.add_argument(
        "--operators",
        action="store_true",
        help="print the required_operators.config for these .ort/.onnx models (as onnxruntime's "
        "create_config_from_models writes it; an .onnx counts as the .ort we would write)",
    )
    inspect.add_argument(
        "--type-reduction",
        action="store_true",
        help="with --operators: add the per-operator types (onnxruntime's --enable_type_reduction)",
    )
    inspect.set_defaults(handler=_cmd_inspect)

    for _, _, mod in _available():
        register = getattr(mod, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out if out is not None else sys.stdout
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args, out)
    except BrokenPipeError:
        # The reader went away (`wireplan inspect m.ort | head`): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except WireplanError as exc:
        print(f"wireplan: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(
            f"wireplan: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "),
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        print("wireplan: interrupted", file=sys.stderr)
        return 130
    return code
