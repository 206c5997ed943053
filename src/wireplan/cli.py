"""The ``wireplan`` command line.

Each format contributes through its own ``wireplan.<format>.cli`` module,
which may define:

- ``register(subparsers)``: add the format's command group (``wireplan <format> VERB``) and
  return its subparsers, to which this module adds the group's ``inspect`` verb when the format
  has an ``inspect`` hook (the same loop, restricted to the one format);
- ``demo(out, workdir)``: its part of ``wireplan demo``;
- ``sniff(head) -> bool`` (a magic in the first bytes), optionally ``sniff_file(path, head)
  -> bool`` (asked when no format's ``sniff`` accepted: formats without a magic, such as .onnx),
  and ``inspect(path, out, **options)``: its part of ``wireplan inspect``;
- ``summary(path, **options) -> dict``: the JSON-ready facts of ``wireplan inspect --json``
  (``format``, ``size`` and the format's own keys; this module adds ``path``);
- ``inspect_shards(pattern, out)`` and ``summary_shards(pattern) -> dict``: a folder or glob
  of EValue record files (evalue only);
- ``operators(paths, out, type_reduction=)``: ``wireplan inspect --operators`` (.ort only).

Every error is one line on stderr, ``wireplan: error: ...`` (a file's errors start with
the file), and exit status 1; usage errors exit 2 (docs/cli.md).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from wireplan import __version__
from wireplan.core.text import error_text, print_error
from wireplan.errors import DecodeError, EncodeError, WireplanError

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


class _DemoPart:
    """The output of one part of ``wireplan demo``: ``== TITLE ==`` goes out before its first line.

    A part skipped for a missing extra has printed nothing, so its skip fits on the title line.
    """

    def __init__(self, out: TextIO, title: str) -> None:
        self.out = out
        self.title = title
        self.started = False

    def write(self, text: str) -> int:
        if not self.started:
            self.started = True
            self.out.write(f"== {self.title} ==\n")
        return self.out.write(text)

    def flush(self) -> None:
        self.out.flush()


def _cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    """Each format's part whose extras are installed; one line for each part skipped."""
    from typing import cast

    from wireplan.core.text import count
    from wireplan.errors import MissingExtraError

    formats = _available()
    wanted = set(args.only or [name for name, _, _ in formats])
    ran = skipped = 0
    with tempfile.TemporaryDirectory(prefix="wireplan-demo-") as tmp:
        for name, title, mod in formats:
            if name not in wanted or not hasattr(mod, "demo"):
                continue
            start = time.perf_counter()
            folder = Path(tmp) / name
            folder.mkdir()
            part = _DemoPart(out, title)
            try:
                mod.demo(cast(TextIO, part), folder)
            except MissingExtraError as exc:
                skipped += 1
                where = f"== {title} ==" if not part.started else "   the rest"
                print(f"{where} skipped: {exc}\n", file=out)
                continue
            ran += 1
            print(f"   ({title} part took {time.perf_counter() - start:.2f} s)\n", file=part)
    if skipped:
        print(
            f"ran {ran} of {count(ran + skipped, 'part')}; "
            'pip install "wireplan[all]" brings the extras of every part',
            file=out,
        )
    return 0 if ran else 1


def _format_of(path: Path, formats: dict[str, ModuleType]) -> tuple[str, ModuleType]:
    """The format (and its CLI module) that recognises the file ``path``."""
    with path.open("rb") as f:
        head = f.read(64)
    if not head:
        raise DecodeError("empty file")
    if len(formats) == 1:  # `wireplan <format> inspect`
        ((only, cli),) = formats.items()
        sniff_file = getattr(cli, "sniff_file", None)
        if cli.sniff(head) or (sniff_file is not None and sniff_file(path, head)):
            return only, cli
        raise DecodeError(f"not {dict(FORMATS)[only]} data")
    for name in INSPECT_ORDER:
        mod = formats.get(name)
        sniff = getattr(mod, "sniff", None)
        if mod is not None and sniff is not None and sniff(head):
            return name, mod
    for name in INSPECT_ORDER:
        mod = formats.get(name)
        sniff_file = getattr(mod, "sniff_file", None)
        if mod is not None and sniff_file is not None and sniff_file(path, head):
            return name, mod
    raise DecodeError("not a format wireplan knows (.ort, .onnx, EValue)")


def _files_of(given: str, formats: dict[str, ModuleType]) -> list[str]:
    """What one FILE argument of ``inspect`` stands for: itself, except a folder that holds
    no EValue record file, which stands for the models in it (sub-folders too): a folder
    of record files is described as one set of shards."""
    path = Path(given)
    evalue = formats.get("evalue")
    if not path.is_dir() or (evalue is not None and evalue.holds_record_files(path)):
        return [given]
    listers = [mod.folder_files for mod in formats.values() if hasattr(mod, "folder_files")]
    if not listers:  # a group without models (`evalue inspect`): its shards' own error
        return [given]
    found = [str(f) for files_in in listers for f in files_in(path)]
    if not found:
        looked = (
            ".ort or .onnx model" if evalue is None else "EValue record file, .ort or .onnx model"
        )
        raise FileNotFoundError(f"a folder holding no {looked}")
    return found


def _inspect_one(
    file: str, formats: dict[str, ModuleType], args: argparse.Namespace, out: TextIO
) -> dict[str, Any] | None:
    """Describe one FILE argument (text to ``out``, or its --json object returned)."""
    path = Path(file)
    options = {} if args.record is None else {"record": args.record}
    if path.is_dir() or (not path.exists() and any(c in file for c in "*?[")):
        # A folder or an unexpanded glob: a set of shards (record files only).
        evalue = formats.get("evalue")
        what = "summary_shards" if args.json else "inspect_shards"
        shards = getattr(evalue, what, None)
        if shards is None:
            raise DecodeError("a folder, not a file" if path.is_dir() else "no such file")
        if options:
            raise EncodeError("--record applies to EValue record files")
        if not args.json:
            shards(file, out)
            return None
        found: dict[str, Any] = shards(file)
        return {"path": file, **{k: v for k, v in found.items() if k != "path"}}
    name, mod = _format_of(path, formats)
    if options and name != "evalue":
        raise EncodeError("--record applies to EValue record files")
    if not args.json:
        mod.inspect(path, out, **options)
        return None
    summary = getattr(mod, "summary", None)
    if summary is None:
        raise EncodeError(f"--json is not available for {name} files")
    facts: dict[str, Any] = summary(path, **options)
    return {"path": file, **{k: v for k, v in facts.items() if k != "path"}}


def _said(exc: BaseException, file: str) -> int:
    """Print the error line of ``exc`` about ``file``; the exit code it gives (1)."""
    print_error(error_text(exc, file))
    return 1


def _cmd_inspect(args: argparse.Namespace, out: TextIO) -> int:
    if args.operators:
        for flag, given in (("--json", args.json), ("--record", args.record is not None)):
            if given:
                print_error(f"{flag} does not apply to --operators")
                return 2
        ort_cli = _format_cli("ort")
        if ort_cli is None:
            print_error("--operators needs the .ort support (wireplan.ort)")
            return 1
        ort_cli.operators(args.file, out, type_reduction=args.type_reduction)
        return 0
    if args.type_reduction:
        print_error("--type-reduction applies to --operators only")
        return 2
    formats = {name: mod for name, _, mod in _available() if args.only in (None, name)}
    code = 0
    described = []
    for given in args.file:
        try:
            files = _files_of(given, formats)
        except OSError as exc:  # a folder that stands for nothing
            code = _said(exc, given)
            continue
        for file in files:
            try:
                found = _inspect_one(file, formats, args, out)
            except BrokenPipeError:
                raise  # nobody reads the output: main stops quietly
            except (WireplanError, OSError) as exc:
                code = _said(exc, file)
                continue
            if found is not None:
                described.append(found)
    if args.json:
        json.dump({"wireplan_inspect": 1, "files": described}, out, indent=2)
        out.write("\n")
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
        help="describe a file: an EValue or an EValue record file, an .ort or an .onnx model",
        description=(
            "Describe files; the format is recognised from their first bytes (an .onnx, which "
            "has no magic, also from its suffix).  A folder or a quoted glob of EValue record "
            "files (shards) is summed up as one set.  --json prints one JSON document instead "
            "(schema: docs/cli.md).  With --operators, print the required_operators.config of "
            "a reduced onnxruntime build for the .ort or .onnx models given (several are "
            "merged into one config)."
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
        "--json",
        action="store_true",
        help='print one JSON document, {"wireplan_inspect": 1, "files": [...]}, one object per '
        "FILE (docs/cli.md)",
    )
    inspect.add_argument(
        "--record",
        type=int,
        default=None,
        metavar="N",
        help="show record N of an EValue record file",
    )
    inspect.add_argument(
        "--type-reduction",
        action="store_true",
        help="with --operators: add the per-operator types (onnxruntime's --enable_type_reduction)",
    )
    inspect.set_defaults(handler=_cmd_inspect, only=None)

    for name, title, mod in _available():
        register = getattr(mod, "register", None)
        verbs = register(sub) if register is not None else None
        if verbs is not None and hasattr(mod, "inspect"):
            _add_inspect(verbs, name, title)
    return parser


def _add_inspect(verbs: Any, name: str, title: str) -> None:
    """``wireplan <format> inspect``: ``wireplan inspect`` for one format's files."""
    look = verbs.add_parser(
        "inspect",
        help=f"describe {title} files",
        description=f"Describe {title} files, as wireplan inspect does, refusing other "
        "formats.  --json prints one JSON document instead (schema: docs/cli.md).",
    )
    look.add_argument("file", nargs="+", metavar="FILE", help="the file(s) to describe")
    look.add_argument(
        "--json",
        action="store_true",
        help='print one JSON document, {"wireplan_inspect": 1, "files": [...]}, one object per '
        "FILE (docs/cli.md)",
    )
    if name == "evalue":
        look.add_argument(
            "--record", type=int, default=None, metavar="N", help="show record N of a record file"
        )
    look.set_defaults(
        handler=_cmd_inspect, only=name, operators=False, type_reduction=False, record=None
    )


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
    except (WireplanError, OSError) as exc:
        print_error(error_text(exc))
        return 1
    except KeyboardInterrupt:
        print_error("interrupted")
        return 130
    return code
