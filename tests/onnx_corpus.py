"""What the two conformance-corpus drivers share (tests/ort/ort_corpus.py for the reader,
tests/ort_write/corpus.py for the writer): where onnx keeps its shipped models, how their
input files are read, and exact comparison of onnxruntime outputs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnx.numpy_helper

DATA_DIR = Path(onnx.__file__).parent / "backend" / "test" / "data"


def collect_node_testcases() -> list[Any]:
    """Every node conformance case onnx builds offline (``collect_testcases``), quietly.

    onnx before 1.20 requires the ``op_type`` filter argument; ``None`` means no
    filter in every release.
    """
    import contextlib
    import io
    import warnings

    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        return list(collect_testcases(None))


def read_value(path: str | os.PathLike[str], type_proto: onnx.TypeProto) -> Any:
    """A shipped ``input_N.pb`` / ``output_N.pb`` as onnxruntime takes it, per its ONNX type."""
    data = Path(path).read_bytes()
    kind = type_proto.WhichOneof("value")
    if kind == "sequence_type":
        seq = onnx.SequenceProto()
        seq.ParseFromString(data)
        return onnx.numpy_helper.to_list(seq)
    if kind == "map_type":
        mp = onnx.MapProto()
        mp.ParseFromString(data)
        return onnx.numpy_helper.to_dict(mp)
    if kind == "optional_type":
        opt = onnx.OptionalProto()
        opt.ParseFromString(data)
        return onnx.numpy_helper.to_optional(opt)
    t = onnx.TensorProto()
    t.ParseFromString(data)
    return onnx.numpy_helper.to_array(t)


def same(a: Any, b: Any) -> bool:
    """Exact equality of onnxruntime outputs (tensors, sequences, maps, optionals); NaN == NaN."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype.kind in "fc":
            return bool(np.array_equal(a, b, equal_nan=True))
        if a.dtype == object:
            return bool(a.tolist() == b.tolist())
        return bool(np.array_equal(a, b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b) or (a is None and b is None)
