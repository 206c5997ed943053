"""ONNX Runtime ``.ort`` models: verified zero-copy reading and lossless conversion to ONNX.

- :func:`load` reads an .ort file (memory-mapped) or buffer into an
  :class:`OrtModel` whose weights are numpy views into the file;
- :func:`to_onnx` / :func:`from_onnx` convert between :class:`OrtModel` and
  ``onnx.ModelProto`` (need ``onnx``, imported only when called);
- :func:`save` / :func:`to_bytes` write an .ort with the planned, aligned
  writer (:mod:`wireplan.ort.writer`);
- :func:`convert` converts files by suffix: ``.ort -> .onnx`` here,
  ``.onnx -> .ort`` through the planned writer.

``import wireplan.ort`` does not import ``onnx`` or ``onnxruntime``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from wireplan.errors import EncodeError
from wireplan.ort.model import OrtModel
from wireplan.ort.reader import load

if TYPE_CHECKING:
    import onnx  # noqa: TID251 - for annotations only, never imported at run time

__all__ = ["OrtModel", "convert", "from_onnx", "load", "save", "to_bytes", "to_onnx"]


def to_onnx(model: OrtModel) -> onnx.ModelProto:
    """The .ort model as an ``onnx.ModelProto``, losslessly (see :mod:`wireplan.ort.onnx_bridge`)."""
    from wireplan.ort.onnx_bridge import to_onnx as _to_onnx

    return _to_onnx(model)


def from_onnx(model_or_path: onnx.ModelProto | str | os.PathLike[str], **options: Any) -> OrtModel:
    """An :class:`OrtModel` from an ``onnx.ModelProto`` or an .onnx path (weights stay mapped).

    Options (``base_dir``, ``signature``, ``infer_types``, ``inline_functions``) as in
    :func:`wireplan.ort.onnx_bridge.from_onnx`.
    """
    from wireplan.ort.onnx_bridge import from_onnx as _from_onnx

    return _from_onnx(model_or_path, **options)


def save(model: Any, path: str | os.PathLike[str], **options: Any) -> None:
    """Write ``model`` (ModelProto, .onnx path or OrtModel) as an .ort file; see :func:`wireplan.ort.writer.save`.

    Options: ``alignment`` (default 64), ``threads``, ``progress``.
    """
    from wireplan.ort.writer import save as _save  # type: ignore[import-untyped,import-not-found,attr-defined,unused-ignore]

    _save(model, path, **options)


def to_bytes(model: Any, **options: Any) -> bytearray:
    """The .ort file for ``model`` in memory; see :func:`wireplan.ort.writer.to_bytes`."""
    from wireplan.ort.writer import to_bytes as _to_bytes  # type: ignore[import-untyped,import-not-found,attr-defined,unused-ignore]

    out: bytearray = _to_bytes(model, **options)
    return out


def convert(src: str | os.PathLike[str], dst: str | os.PathLike[str], **options: Any) -> None:
    """Convert ``src`` to ``dst``, the direction chosen by the suffixes.

    ``.ort -> .onnx``: :func:`wireplan.ort.onnx_bridge.convert_ort_to_onnx`
    (option ``external_data=False``).  ``.onnx -> .ort``:
    :func:`wireplan.ort.writer.convert_onnx_to_ort` (options ``alignment``,
    ``threads``, ``progress``).  Both write atomically.
    """
    s = os.fspath(src).lower()
    d = os.fspath(dst).lower()
    if s.endswith(".ort") and d.endswith(".onnx"):
        from wireplan.ort.onnx_bridge import convert_ort_to_onnx

        convert_ort_to_onnx(src, dst, **options)
        return
    if s.endswith(".onnx") and d.endswith(".ort"):
        from wireplan.ort.writer import convert_onnx_to_ort  # type: ignore[import-untyped,import-not-found,attr-defined,unused-ignore]

        convert_onnx_to_ort(src, dst, **options)
        return
    raise EncodeError(
        f"cannot tell the conversion from the suffixes of {os.fspath(src)!r} and "
        f"{os.fspath(dst)!r}: use .ort -> .onnx or .onnx -> .ort"
    )
