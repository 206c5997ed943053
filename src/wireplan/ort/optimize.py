"""The optimization styles of onnxruntime's converter: onnxruntime optimizes, wireplan writes.

onnxruntime's converter (``python -m onnxruntime.tools.convert_onnx_models_to_ort``) does
not only change the format: it loads the model into a session that optimizes the graph and
saves that.  A reduced build of onnxruntime, the reason the .ort format exists, has no
graph optimizers of its own, so what it runs is what the file holds:

- ``"fixed"`` (the converter's ``--optimization_style Fixed``): the optimizations of
  ``level`` (default ``"all"``, as the converter's) are applied and baked into the graph;
- ``"runtime"`` (``--optimization_style Runtime``): the ``basic`` ones are applied and the
  others saved as runtime optimization records, which onnxruntime replays when a session
  sets ``session.enable_saved_runtime_optimizations`` to ``"1"`` (for NNAPI / CoreML,
  whose kernels decide what can be fused);
- ``"none"``: the graph as the .onnx has it.

The optimizing is onnxruntime's (:func:`wireplan.ort.onnxruntime_door.optimize`, with its
converter's session settings); the writing is wireplan's planned writer, with its options
(alignment, threads, external data, format version).  Two routes:

- onnxruntime writes the optimized .ort itself, in a temporary file beside ``dst``, and
  the writer re-plans it as it re-writes any .ort: the graph, its typed values, runtime
  optimization records and kernel type string resolver as onnxruntime made them (its
  tensors not checked again; up to 16 MiB, the result written over that file).
  onnxruntime builds that .ort in memory (peak RSS about 1.5x the weights), and its
  FlatBuffers builder stops at 2 GiB (constant folding can grow the weights): this is the
  route up to 1.5 GiB of weights, and in the fixed style with onnxruntime 1.20 or later up
  to 512 MiB, for a peak under 1 GiB;
- larger models, in the fixed style: onnxruntime saves the optimized graph as an .onnx
  whose initializers of 1 KiB or more sit in an external file (no protobuf past 2 GiB;
  1.15 ignores the setting), and the writer plans the .ort from that, typing what
  onnxruntime left untyped (:mod:`wireplan.ort.value_types`).  Runtime records exist only
  in an .ort that onnxruntime writes, so the runtime style stops at 1.5 GiB.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from wireplan.core.atomic import scratch_beside
from wireplan.core.buffers import MappedFile
from wireplan.errors import ArgumentError, PeerError
from wireplan.ort import onnxruntime_door as door
from wireplan.ort.writer import convert_onnx_to_ort, convert_ort_to_ort

__all__ = ["DEFAULT_LEVEL", "DEFAULT_STYLE", "LEVELS", "STYLES", "convert_optimized"]

#: The styles, as ``convert(..., optimization=...)`` and ``--optimization`` name them.
STYLES = ("fixed", "runtime", "none")
#: What onnxruntime's converter writes first (its default styles are Fixed, then Runtime).
DEFAULT_STYLE = "fixed"
#: onnxruntime's levels by its converter's names; its default is ``"all"``.
LEVELS = door.LEVELS
DEFAULT_LEVEL = "all"

# Initializers this large leave the optimized .onnx for its external file.
_EXTERNAL_THRESHOLD = 1024


def convert_optimized(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    *,
    optimization: str = DEFAULT_STYLE,
    level: str | None = None,
    target_platform: str | None = None,
    custom_op_library: str | os.PathLike[str] | None = None,
    **options: Any,
) -> None:
    """Convert the .onnx ``src`` to the .ort ``dst`` in an optimization style of :data:`STYLES`.

    ``level`` (one of :data:`LEVELS`, default ``"all"``), ``target_platform``
    (``"arm"``, ``"amd64"`` or None, as the converter's ``--target_platform``) and
    ``custom_op_library`` (a library of custom operators for the session, as the
    converter's ``--custom_op_library``) apply to ``"fixed"`` and ``"runtime"``.
    ``options`` are the writer's
    (:func:`wireplan.ort.writer.convert_onnx_to_ort`); ``reuse_data`` and
    ``float16_casts=True`` need ``"none"`` (an optimized graph has new weights, and holds
    the Casts onnxruntime placed).
    """
    if optimization not in STYLES:
        raise ArgumentError(f"optimization {optimization!r}: use one of {', '.join(STYLES)}")
    if optimization == "none":
        if custom_op_library is not None:
            raise ArgumentError(
                "custom_op_library applies to optimization 'fixed' or 'runtime': onnxruntime "
                "resolves the kernels of custom operators, and 'none' writes without it"
            )
        if level is not None or target_platform is not None:
            raise ArgumentError(
                "level and target_platform apply to optimization 'fixed' or 'runtime'"
            )
        convert_onnx_to_ort(src, dst, **options)
        return
    for name in ("reuse_data", "float16_casts"):
        if options.get(name):
            why = "has new weights" if name == "reuse_data" else "holds onnxruntime's Casts"
            raise ArgumentError(
                f"{name} applies to optimization 'none' (--optimization none; an optimized "
                f"graph {why})"
            )
    options.pop("reuse_data", None)
    options["float16_casts"] = False
    level = DEFAULT_LEVEL if level is None else level
    with open(src, "rb"):  # a missing file or a folder: the OSError of opening it
        pass
    nbytes = _weight_bytes(src, within=_route_limit(optimization))
    if nbytes > _ORT_ROUTE_LIMIT and optimization == "runtime":
        raise ArgumentError(
            "optimization 'runtime' saves records only in an .ort that onnxruntime writes "
            "itself, which cannot pass 2 GiB; this model is larger: use 'fixed'"
        )
    if nbytes <= _route_limit(optimization):
        with scratch_beside(dst) as theirs:
            _optimize(
                src, Path(theirs), level=level, runtime_records=optimization == "runtime",
                target_platform=target_platform, as_ort=True, custom_op_library=custom_op_library,
            )  # fmt: skip
            convert_ort_to_ort(theirs, dst, _scratch=True, **options)
        return
    folder = Path(dst).resolve().parent
    with tempfile.TemporaryDirectory(dir=folder, prefix=".wireplan-optimize-") as tmp:
        optimized = Path(tmp) / "optimized.onnx"
        weights = optimized.with_name(optimized.name + ".data")
        _optimize(
            src, optimized, level=level, runtime_records=False,
            target_platform=target_platform, as_ort=False,
            external_file=weights.name, external_threshold=_EXTERNAL_THRESHOLD,
            custom_op_library=custom_op_library,
        )  # fmt: skip
        if not weights.is_file():
            raise PeerError(
                f"onnxruntime {door.version()} does not save an optimized model's weights "
                "in an external file (session.optimized_model_external_initializers_file_name, "
                "which 1.20 honours), so it cannot optimize a model this large: use a newer "
                "onnxruntime, or optimization 'none'"
            )
        convert_onnx_to_ort(optimized, dst, **options)


def _optimize(src: str | os.PathLike[str], dst: Path, **settings: Any) -> None:
    """:func:`wireplan.ort.onnxruntime_door.optimize`; when onnxruntime refuses ``src``
    because it is not an ONNX model (truncated, an .ort, not protobuf), the
    :class:`~wireplan.DecodeError` with the offset that reading it gives instead."""
    try:
        door.optimize(src, dst, **settings)
    except PeerError:
        from wireplan.ort.onnx.read import read_onnx  # the onnx door

        read_onnx(src)
        raise


# Past this many bytes of weights the optimized graph goes through an .onnx with external
# data (onnxruntime writes no .ort past 2 GiB; constant folding may add weights).
_ORT_ROUTE_LIMIT = 3 << 29  # 1.5 GiB
# onnxruntime builds the .ort it writes in memory: its peak RSS was 940 MiB at 0.6 GB of
# weights, 1.8 GiB at 1.2 GB.  Past this, the fixed style takes the external route (272 MiB
# at 1.2 GB) where onnxruntime saves external initializers (1.20 on; 1.15 ignores the keys).
_MEMORY_ROUTE_LIMIT = 1 << 29  # 512 MiB
_EXTERNAL_SINCE = (1, 20)


def _route_limit(optimization: str) -> int:
    """The bytes of weights past which ``optimization`` takes the external route (without
    onnxruntime, any: optimizing then says what is missing)."""
    if optimization == "fixed" and door.available() and door.release_of() >= _EXTERNAL_SINCE:
        return min(_ORT_ROUTE_LIMIT, _MEMORY_ROUTE_LIMIT)
    return _ORT_ROUTE_LIMIT


# How an external data reference starts in an .onnx: the key "location" of a
# StringStringEntryProto (field 1, 8 bytes).  A file without these bytes has none.
_LOCATION = b"\x0a\x08location"
# A folder of at most this many entries is listed instead of searching the .onnx.
_FOLDER_ENTRIES = 64
# onnxruntime reads no external data outside the model's folder from this release on: an
# absolute location and one with ".." are refused (1.23 reads both; 1.24 and 1.32 checked).
_CONTAINED_SINCE = (1, 24)


def _weight_bytes(src: str | os.PathLike[str], within: int = -1) -> int:
    """The .onnx file's size plus its external data's (a large file is its own answer); or
    any bound of that no larger than ``within``, when one is found without reading the file.

    An onnxruntime that refuses external data outside the model's folder
    (:data:`_CONTAINED_SINCE`) reads it from the folder's files, so in a folder without
    subfolders their bytes bound the model's: listing a few entries costs microseconds
    where the search below costs 0.35 ms per MB.
    """
    size = os.path.getsize(src)
    if size >= 64 << 20:
        return size
    if size <= within and door.available() and door.release_of() >= _CONTAINED_SINCE:
        bound = _folder_bytes(src)
        if bound is not None and bound <= within:
            return bound
    with MappedFile(src) as f:  # one memchr-speed search instead of parsing the protobuf
        if f.find(_LOCATION) < 0:
            return size
    from wireplan.ort.onnx.facts import onnx_facts  # the onnx door

    ext = onnx_facts(src)["external_data"]
    return size + (int(ext["bytes"]) if ext else 0)


def _folder_bytes(src: str | os.PathLike[str]) -> int | None:
    """The bytes of the files in ``src``'s folder (``src`` among them); None when the folder
    holds a folder, more than :data:`_FOLDER_ENTRIES` entries, or an entry that cannot be
    read, or when ``src`` links to a file in another folder (whose files onnxruntime may
    read too)."""
    folder = os.path.dirname(os.path.abspath(src))
    total = 0
    try:
        if os.path.dirname(os.path.realpath(src)) != os.path.realpath(folder):
            return None
        with os.scandir(folder) as entries:
            for k, entry in enumerate(entries):
                if k >= _FOLDER_ENTRIES or entry.is_dir():
                    return None
                total += entry.stat().st_size
    except OSError:
        return None
    return total
