"""The installed onnxruntime as the tests' peer: which release it is, which .ort format it loads.

The one place the tests decide the format version of the files they hand to
onnxruntime: the newest one the writer writes that the installed release
loads (5 for onnxruntime 1.13-1.15, 6 from 1.16 on).  Tests that are not
about the format version pass ``format_version=FORMAT_VERSION`` wherever
their file goes into onnxruntime.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import onnxruntime as ort
from onnxruntime.capi import onnxruntime_pybind11_state as _C

from wireplan.ort import onnxruntime_door as door
from wireplan.ort import writer

__all__ = [
    "EXPORTS_KERNELS",
    "EXPORTS_SCHEMAS",
    "FORMAT_VERSION",
    "RELEASE",
    "external_data_offset",
    "for_release",
    "root_of",
    "run",
]


#: ``(major, minor)`` of the installed onnxruntime.
RELEASE: tuple[int, int] = door.release_of()


#: The format version tests write for files the installed onnxruntime loads.
FORMAT_VERSION: int = max(set(door.loadable_format_versions()) & set(writer.FORMAT_VERSIONS))

#: Whether the installed onnxruntime exports its operator schemas (``get_all_operator_schema``)
#: and its kernel definitions (``get_all_opkernel_def``) to Python.  The PyPI wheels of 1.15
#: and older do not: the writer then has no schema for ``com.microsoft`` & co operators and
#: cannot tell which kernels exist (:func:`wireplan.ort.onnxruntime_door.kernels_known`).
EXPORTS_SCHEMAS: bool = hasattr(_C, "get_all_operator_schema")
EXPORTS_KERNELS: bool = hasattr(_C, "get_all_opkernel_def")

T = TypeVar("T")


def for_release(newest: T, older: Mapping[tuple[int, int], T]) -> T:
    """``older[RELEASE]`` for an older release the tests know, otherwise ``newest``.

    For figures that depend on what a release can run at all (how many
    corpus cases its opsets and IR versions cover); every release not
    named, the pinned newest one included, gets ``newest``.
    """
    return older.get(RELEASE, newest)


def run(src: bytes | Path, feeds: dict[str, Any]) -> list[Any]:
    """The outputs of the installed onnxruntime for an .onnx or .ort (bytes or a path).

    Optimizations off, so the graph runs as stored (onnxruntime's optimizers take
    different paths for .onnx and .ort sources).
    """
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    opts.log_severity_level = 3
    data = src if isinstance(src, bytes) else str(src)
    s = ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])
    return list(s.run(None, feeds))


_FBS = Path(ort.__file__).parent / "tools" / "ort_format_model"


def root_of(buf: bytes) -> Any:
    """The ``InferenceSession`` of an .ort buffer, read with onnxruntime's own generated classes."""
    import sys

    if str(_FBS) not in sys.path:
        sys.path.insert(0, str(_FBS))
    from ort_flatbuffers_py.fbs import InferenceSession

    cls = InferenceSession.InferenceSession
    # The readers flatc generated for onnxruntime 1.15 name the root accessor after the table.
    return getattr(cls, "GetRootAs", getattr(cls, "GetRootAsInferenceSession", None))(buf, 0)


# vtable offset of Tensor.external_data_offset (field 6), for classes generated before it.
_EXTERNAL_SLOT = 16


def external_data_offset(t: Any) -> int:
    """``Tensor.ExternalDataOffset()`` of onnxruntime's generated ``Tensor`` class.

    onnxruntime 1.15's classes predate the field (it has 6); there its slot is read
    with the same table accessor the generated methods use.
    """
    if hasattr(t, "ExternalDataOffset"):
        return int(t.ExternalDataOffset())
    from flatbuffers.number_types import Int64Flags

    o = t._tab.Offset(_EXTERNAL_SLOT)
    return int(t._tab.Get(Int64Flags, o + t._tab.Pos)) if o else -1


def custom_op_library() -> str:
    """The path of onnxruntime-extensions' library of custom operators (domain
    ``ai.onnx.contrib``), as its users give it to onnxruntime."""
    import onnxruntime_extensions

    path: str = onnxruntime_extensions.get_library_path()
    return path
