"""``wireplan convert`` (also ``wireplan ort convert``): its flags, and folders of models.

The flags are :func:`~wireplan.ort.convert`'s keywords (:func:`_options` says which apply
to which direction); a folder converts every .onnx in it, as onnxruntime's converter takes
one (docs/ort.md).
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path
from typing import Any, TextIO

from wireplan.core.progress import progress_bar
from wireplan.core.text import count, error_text, in_file, print_error, size
from wireplan.errors import ArgumentError, DecodeError, MissingExtraError, WireplanError
from wireplan.ort._api import convert
from wireplan.ort.optimize import DEFAULT_LEVEL, DEFAULT_STYLE, LEVELS, STYLES

__all__ = ["add_convert", "files_under"]


def _options(args: argparse.Namespace, src: str, dst: str) -> dict[str, Any]:
    """The keywords of :func:`convert` that the flags give for ``src`` -> ``dst``; an
    :class:`~wireplan.ArgumentError` for a flag that does not apply."""
    to_onnx = src.lower().endswith(".ort") and dst.lower().endswith(".onnx")
    options: dict[str, Any] = {}
    if args.threads is not None:
        options["threads"] = args.threads
    if args.alignment is not None:
        options["alignment"] = args.alignment
    if args.no_fsync:
        options["durable"] = False
    options["external_data"] = args.external_data
    if args.size_threshold is not None:
        if not args.external_data:
            raise ArgumentError("--size-threshold applies with --external-data only")
        options["size_threshold"] = args.size_threshold
    if args.reuse_data:
        if not (args.external_data and src.lower().endswith(".onnx")):
            raise ArgumentError("--reuse-data applies to .onnx -> .ort with --external-data only")
        options["reuse_data"] = True
    writes_ort = dst.lower().endswith(".ort")
    if src.lower().endswith(".onnx") and writes_ort:
        options["optimization"] = args.optimization or DEFAULT_STYLE
        if args.optimization_level is not None:
            options["level"] = args.optimization_level
        if args.target_platform is not None:
            options["target_platform"] = args.target_platform
        if args.custom_op_library is not None:
            with open(args.custom_op_library, "rb"):  # missing: said once, not per model
                pass
            options["custom_op_library"] = args.custom_op_library
    elif args.optimization or args.optimization_level or args.target_platform:
        raise ArgumentError(
            "--optimization, --optimization-level and --target-platform apply to "
            ".onnx -> .ort conversion only"
        )
    elif args.custom_op_library is not None:
        raise ArgumentError("--custom-op-library applies to .onnx -> .ort conversion only")
    if to_onnx:
        if args.no_float16_casts:
            raise ArgumentError("--no-float16-casts applies to .onnx -> .ort conversion only")
        if args.format_version is not None:
            raise ArgumentError("--format-version applies to conversions that write an .ort only")
    else:
        if args.no_float16_casts:
            options["float16_casts"] = False
        if args.format_version is not None:
            options["format_version"] = args.format_version
    return options


def _convert_one(src: str, dst: str, options: dict[str, Any], out: TextIO) -> None:
    """Convert ``src`` to ``dst`` with a progress bar; a source that cannot be read is an
    error naming it."""
    # The parse of an .onnx reports nothing: say what is happening before the bar starts.
    start = None
    if src.lower().endswith(".onnx") and Path(src).is_file():
        start = f"{src} ({size(Path(src).stat().st_size)})"
        style = options.get("optimization", "none")
        if style == "none":
            start = f"reading {start}..."
        else:
            level = options.get("level", DEFAULT_LEVEL)
            start = f"optimizing {start} with onnxruntime: {style}, level {level}..."
    try:
        with progress_bar(f"writing {Path(dst).name}", start=start) as progress:
            if progress is not None:
                options = {**options, "progress": progress}
            convert(src, dst, **options)
    except DecodeError as exc:
        raise in_file(src, exc) from None
    print(f"wrote {dst}", file=out)


def _cmd_convert(args: argparse.Namespace, out: TextIO) -> int:
    src, dst = str(args.src), str(args.dst)
    if Path(src).is_dir():
        return _convert_folder(args, Path(src), Path(dst), out)
    folder = None
    if Path(dst).is_dir() or dst.endswith(("/", os.sep)):
        if not src.lower().endswith(".onnx"):
            raise ArgumentError(
                f"{dst}: a folder; name the file to write in it (.onnx, or .ort for "
                "another format version)"
            )
        folder, dst = dst, os.path.join(dst, Path(src).stem + ".ort")
    options = _options(args, src, dst)
    if folder is not None and Path(src).is_file():  # a new folder, as for a folder of models
        os.makedirs(folder, exist_ok=True)
    _convert_one(src, dst, options, out)
    return 0


def files_under(folder: str | Path, suffix: str) -> list[Path]:
    """The files in ``folder`` and its sub-folders whose names end with ``suffix`` (in any
    case), in order of path: the models a folder stands for."""
    return sorted(
        Path(root, name)
        for root, _, names in os.walk(folder)
        for name in names
        if name.lower().endswith(suffix)
    )


def _models_in(folder: Path) -> tuple[list[Path], list[Path]]:
    """The .onnx models under ``folder`` that a folder conversion converts, and those it
    skips: ``*.optimized.onnx``, which onnxruntime's converter writes beside its .ort
    (``--save_optimized_onnx_model``) and skips in turn."""
    models: list[Path] = []
    skipped: list[Path] = []
    for p in files_under(folder, ".onnx"):
        (skipped if p.name.lower().endswith(".optimized.onnx") else models).append(p)
    return models, skipped


def _convert_folder(args: argparse.Namespace, src: Path, dst: Path, out: TextIO) -> int:
    """``wireplan convert FOLDER DST``: each model of :func:`_models_in` to the .ort at the
    same place under the folder ``dst``; one error line for each that fails, then the rest."""
    if dst.exists() and not dst.is_dir():
        raise ArgumentError(f"{dst}: a file; converting the folder {src} writes into a folder")
    models, skipped = _models_in(src)
    for p in skipped:
        print(f"skipped {p} (an .optimized.onnx, as onnxruntime's converter skips them)", file=out)
    if not models:
        raise ArgumentError(f"{src}: a folder holding no .onnx model")
    targets = [(dst / m.relative_to(src)).with_suffix(".ort") for m in models]
    twice = [t for t, n in Counter(targets).items() if n > 1]
    if twice:
        raise ArgumentError(
            f"{src}: two models would both be written to {twice[0]}; convert one by name"
        )
    options = _options(args, str(models[0]), str(targets[0]))
    failed = 0
    for model, target in zip(models, targets, strict=True):
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            _convert_one(str(model), str(target), options, out)
        except (MissingExtraError, BrokenPipeError):
            raise  # the same for every model (said once), or nobody reads the output
        except (WireplanError, OSError) as exc:
            print_error(error_text(exc, str(model)))
            failed += 1
    if failed:
        print_error(f"{src}: {failed} of {count(len(models), 'model')} not converted")
        return 1
    return 0


_CONVERT_HELP = "convert between .ort and .onnx models (the direction follows the suffixes)"
_CONVERT_DESCRIPTION = (
    "Convert an .ort model to .onnx (lossless; --external-data puts the weights in "
    "DST.data at aligned offsets), an .onnx model to .ort (planned, aligned writer), "
    "or an .ort to the .ort format of another onnxruntime release (--format-version; "
    "formats 1 to 4 are read and upgraded; no onnxruntime needed)."
)


def add_convert(subparsers: Any) -> None:
    """The ``convert`` command: at the top level and in the ``ort`` group, the same."""
    p = subparsers.add_parser("convert", help=_CONVERT_HELP, description=_CONVERT_DESCRIPTION)
    p.add_argument(
        "src",
        help="the model to read (.ort or .onnx), or a folder: every .onnx in it and its "
        "sub-folders, as onnxruntime's converter takes one",
    )
    p.add_argument(
        "dst", help="the model to write (.onnx or .ort), or a folder to write the .ort into"
    )
    p.add_argument(
        "--external-data",
        action="store_true",
        help="write the large weights to DST.data beside DST, each at a multiple of the "
        "alignment (for models past 2 GiB; an .ort so written runs through "
        "wireplan.ort.session, not through onnxruntime directly)",
    )
    p.add_argument(
        "--size-threshold",
        type=int,
        default=None,
        metavar="BYTES",
        help="with --external-data: tensors of at least this many bytes go to DST.data "
        "(default 1024)",
    )
    p.add_argument(
        "--reuse-data",
        action="store_true",
        help=".onnx -> .ort with --external-data: keep the weights where they are in the "
        ".onnx's (aligned) data file; DST.data becomes a hard link to it",
    )
    p.add_argument(
        "--alignment",
        type=int,
        default=None,
        metavar="N",
        help="payload alignment in bytes, a power of two (.onnx -> .ort: default 64, "
        "external data included; .ort -> .onnx with --external-data: default 4096)",
    )
    p.add_argument(
        "--threads", type=int, default=None, metavar="N", help="threads copying payloads"
    )
    p.add_argument(
        "--no-fsync",
        action="store_true",
        help="skip fsync: still atomic (temporary file + rename) if the process fails or is "
        "killed, but a power loss or OS crash may leave DST empty or partial",
    )
    p.add_argument(
        "--format-version",
        type=int,
        choices=(5, 6),
        default=None,
        metavar="{5,6}",
        help="the .ort format to write: 6 (default; onnxruntime 1.16 and later) or 5 "
        "(onnxruntime 1.13 to 1.15; no float8 types)",
    )
    p.add_argument(
        "--optimization",
        choices=STYLES,
        default=None,
        help=".onnx -> .ort: as onnxruntime's converter (--optimization_style): fixed "
        "(default): onnxruntime's optimizations baked into the graph, what a reduced build "
        "runs; runtime: basic ones baked in, the rest saved for the session to replay "
        "(session.enable_saved_runtime_optimizations; NNAPI, CoreML); none: the graph as in "
        "the .onnx (needs no onnxruntime)",
    )
    p.add_argument(
        "--optimization-level",
        choices=LEVELS,
        default=None,
        help="with fixed or runtime: onnxruntime's level (default all, as its converter's "
        "ORT_CONVERT_ONNX_MODELS_TO_ORT_OPTIMIZATION_LEVEL)",
    )
    p.add_argument(
        "--target-platform",
        choices=("arm", "amd64"),
        default=None,
        help="with fixed or runtime, as the converter's --target_platform: arm allows int8 "
        "QDQ fusions; amd64 keeps the x86-only NCHWc layouts",
    )
    p.add_argument(
        "--custom-op-library",
        default=None,
        metavar="PATH",
        help="with fixed or runtime, as the converter's --custom_op_library: a library of "
        "custom operators for onnxruntime's session (onnxruntime-extensions' "
        "get_library_path())",
    )
    p.add_argument(
        "--no-float16-casts",
        action="store_true",
        help=".onnx -> .ort: write float16 nodes that lack a float16 CPU kernel as they are "
        "(by default, with onnxruntime installed, they get the Casts onnxruntime adds when it "
        "loads an .onnx, so the .ort runs where the .onnx runs)",
    )
    p.set_defaults(handler=_cmd_convert)
