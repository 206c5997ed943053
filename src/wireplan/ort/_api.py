"""The .ort verbs that reach into the onnx door (imported only when called), and ``convert``."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from wireplan.errors import ArgumentError
from wireplan.ort.model import OrtModel
from wireplan.ort.optimize import convert_optimized
from wireplan.ort.writer import convert_ort_to_ort

if TYPE_CHECKING:
    import onnx  # noqa: TID251 - for annotations only, never imported at run time

__all__ = ["convert", "from_onnx", "to_onnx"]


def to_onnx(model: OrtModel) -> onnx.ModelProto:
    """The .ort model as an ``onnx.ModelProto``, losslessly (see :mod:`wireplan.ort.onnx`)."""
    from wireplan.ort.onnx.to_proto import to_onnx as _to_onnx

    return _to_onnx(model)


def from_onnx(model_or_path: onnx.ModelProto | str | os.PathLike[str], **options: Any) -> OrtModel:
    """An :class:`OrtModel` from an ``onnx.ModelProto`` or an .onnx path (weights stay mapped).

    Options (``base_dir``, ``signature``, ``infer_types``, ``inline_functions``) as in
    :func:`wireplan.ort.onnx.read.from_onnx`.
    """
    from wireplan.ort.onnx.read import from_onnx as _from_onnx

    return _from_onnx(model_or_path, **options)


def convert(src: str | os.PathLike[str], dst: str | os.PathLike[str], **options: Any) -> None:
    """Convert ``src`` to ``dst``, the direction chosen by the suffixes.

    ``.ort -> .onnx``: :func:`wireplan.ort.onnx.save.convert_ort_to_onnx`
    (option ``external_data=False``; an .ort with external data links its
    companion).  ``.onnx -> .ort``:
    :func:`wireplan.ort.optimize.convert_optimized`: optimized by onnxruntime
    as its converter does (``optimization="fixed"`` by default, ``"runtime"``
    or ``"none"``; ``level``, ``target_platform``, ``custom_op_library``), written by
    :func:`wireplan.ort.writer.convert_onnx_to_ort` (options ``alignment``,
    ``threads``, ``progress``, ``float16_casts``, ``format_version`` 6 or 5,
    ``external_data``, ``size_threshold``, ``reuse_data``).
    ``.ort -> .ort``: :func:`wireplan.ort.writer.convert_ort_to_ort` re-writes
    a model for another onnxruntime release (``format_version``; formats 1 to 4
    are read and upgraded; no onnxruntime needed; ``external_data``).  All write atomically and take
    ``durable=True``; ``durable=False`` skips the fsyncs (still atomic
    against a failed or killed process, not against power loss; see
    :mod:`wireplan.core.atomic`).  ``progress(done_bytes, total_bytes)``, in
    every direction, is called on this thread as the bytes move (about every
    8 MiB, external data included; an .onnx is parsed before the first call).
    """
    s = os.fspath(src).lower()
    d = os.fspath(dst).lower()
    if not (s.endswith(".onnx") and d.endswith(".ort")):
        for name in ("optimization", "level", "target_platform", "custom_op_library"):
            if name in options:
                raise ArgumentError(f"{name} applies to .onnx -> .ort conversion only")
    if s.endswith(".ort") and d.endswith(".onnx"):
        from wireplan.ort.onnx.save import convert_ort_to_onnx  # needs onnx

        convert_ort_to_onnx(src, dst, **options)
        return
    if s.endswith(".onnx") and d.endswith(".ort"):
        convert_optimized(src, dst, **options)
        return
    if s.endswith(".ort") and d.endswith(".ort"):
        convert_ort_to_ort(src, dst, **options)
        return
    raise ArgumentError(
        f"cannot tell the conversion from the suffixes of {os.fspath(src)!r} and "
        f"{os.fspath(dst)!r}: use .ort -> .onnx, .onnx -> .ort or .ort -> .ort"
    )
