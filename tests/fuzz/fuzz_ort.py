"""Fuzz harness: the .ort reader, then ``to_onnx`` and ``to_bytes`` of whatever it accepts.

The input is an .ort file (seeds: small models the writer and onnxruntime
wrote: subgraphs, sparse and string tensors, metadata, the kernel type
string resolver).  Beyond "only wireplan errors escape", every input is
checked for:

- a ``DecodeError`` offset inside the input (or at its end, for an input too short for
  a header), and a path starting at ``$``;
- the same outcome with ``copy=True`` and ``copy=False``;
- a model that loads converts to ONNX that ``onnx.load`` reads back (or
  refuses with a wireplan error), and what ``to_bytes`` writes of it
  loads again.
"""

from __future__ import annotations

import contextlib
from copy import deepcopy
from typing import Any

import numpy as np

import wireplan
from wireplan.ort import from_onnx, load, to_bytes, to_onnx
from wireplan.ort.reader import tensor_paths

MAX_LEN = 16384
INSTRUMENT = ("wireplan",)


def _models() -> dict[str, Any]:
    """Small ONNX models that use what an .ort can hold."""
    import onnx
    from onnx import TensorProto as TP
    from onnx import helper as h
    from onnx import numpy_helper as nh

    tiny = h.make_graph(
        [h.make_node("Add", ["x", "k"], ["y"], name="add")],
        "tiny",
        [h.make_tensor_value_info("x", TP.FLOAT, ["N", 2])],
        [h.make_tensor_value_info("y", TP.FLOAT, ["N", 2])],
        initializer=[nh.from_array(np.array([1.0, 2.0], np.float32), "k")],
    )
    then_g = h.make_graph(
        [h.make_node("Relu", ["a"], ["t"])],
        "then",
        [],
        [h.make_tensor_value_info("t", TP.FLOAT, [4])],
    )
    else_g = h.make_graph(
        [h.make_node("Neg", ["a"], ["e"])],
        "else",
        [],
        [h.make_tensor_value_info("e", TP.FLOAT, [4])],
    )
    sparse = h.make_sparse_tensor(
        nh.from_array(np.array([1.5, -2.0], np.float32), "s"),
        nh.from_array(np.array([1, 3], np.int64), "s_idx"),
        [4],
    )
    features = h.make_graph(
        [
            h.make_node("Add", ["x", "s"], ["a"], name="add_sparse", doc_string="x plus s"),
            h.make_node("If", ["c"], ["o"], then_branch=then_g, else_branch=else_g),
            h.make_node("Concat", ["words", "more"], ["text"], axis=0),
            h.make_node("SequenceConstruct", ["x", "a"], ["seq"]),
        ],
        "features",
        [
            h.make_tensor_value_info("x", TP.FLOAT, [4]),
            h.make_tensor_value_info("c", TP.BOOL, []),
            h.make_tensor_value_info("words", TP.STRING, ["n"]),
        ],
        [
            h.make_tensor_value_info("o", TP.FLOAT, [4]),
            h.make_tensor_value_info("text", TP.STRING, [None]),
            h.make_value_info(
                "seq", h.make_sequence_type_proto(h.make_tensor_type_proto(TP.FLOAT, None))
            ),
        ],
        initializer=[nh.from_array(np.array(["hé", ""], dtype=object), "more")],
        sparse_initializer=[sparse],
    )
    out = {}
    for name, g in (("tiny", tiny), ("features", features)):
        m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)], producer_name="fuzz")
        m.ir_version = 8
        if name == "features":
            h.set_model_props(m, {"k": "v"})
        onnx.checker.check_model(m)
        out[name] = m
    return out


def seeds() -> dict[str, bytes]:
    """The seed corpus: each model as the writer writes it (formats 6 and 5)."""
    import os
    import tempfile

    import onnxruntime as ort

    out = {}
    for name, m in _models().items():
        out[f"{name}.ort"] = bytes(to_bytes(m))
        out[f"{name}.v5.ort"] = bytes(to_bytes(m, format_version=5))
        with tempfile.TemporaryDirectory() as folder:  # and as onnxruntime writes it
            so = ort.SessionOptions()
            so.optimized_model_filepath = os.path.join(folder, "m.ort")
            so.add_session_config_entry("session.save_model_format", "ORT")
            so.log_severity_level = 3
            ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
            with open(so.optimized_model_filepath, "rb") as f:
                out[f"{name}.onnxruntime.ort"] = f.read()
    return out


def setup() -> None:
    import onnx  # noqa: F401 - imported once, before fuzzing

    from wireplan.ort import kernel_types

    kernel_types.signature("", "Add", 17)  # operator schemas are looked up once


def _checked(data: bytes, exc: wireplan.DecodeError) -> wireplan.DecodeError:
    # len(data) only for a buffer too short to hold a header: "the input ends here".
    n = len(data) if len(data) < 12 else len(data) - 1
    assert exc.offset is None or 0 <= exc.offset <= n, f"{exc!r} of {len(data)} bytes"
    assert exc.path.startswith("$"), repr(exc)
    return exc


def _load(data: bytes, copy: bool, verify: str = "all") -> tuple[Any, wireplan.DecodeError | None]:
    try:
        return load(data, copy=copy, verify=verify), None
    except wireplan.DecodeError as exc:
        return None, _checked(data, exc)


def _read_all(data: bytes) -> wireplan.DecodeError | None:
    """Load verified on access, then read every table (a deep copy visits every field)."""
    model, err = _load(data, copy=False, verify="access")
    if model is not None:
        try:
            deepcopy(model)
        except wireplan.DecodeError as exc:
            return _checked(data, exc)
    return err


def TestOneInput(data: bytes) -> None:
    model, err = _load(data, copy=False)
    _, err_copied = _load(data, copy=True)
    assert (err is None) == (err_copied is None), (
        f"copy=True and copy=False: {err!r} / {err_copied!r}"
    )
    if err is not None and err_copied is not None:
        assert (err.offset, err.path) == (err_copied.offset, err_copied.path), (err, err_copied)
    err_late = _read_all(data)
    assert (err is None) == (err_late is None), (
        f"verified first / on access: {err!r} / {err_late!r}"
    )
    if model is None:
        return
    with model:
        for _, t in tensor_paths(model):
            t.raw_data.tobytes()
            with contextlib.suppress(wireplan.WireplanError):
                t.numpy()
        with contextlib.suppress(wireplan.WireplanError):
            model.initializers  # noqa: B018
        try:
            proto = to_onnx(model)
        except wireplan.WireplanError:
            pass
        else:
            import onnx

            onnx.load_from_string(proto.SerializeToString())
            with contextlib.suppress(wireplan.WireplanError):
                from_onnx(proto)
        try:
            written = bytes(to_bytes(model))
        except wireplan.WireplanError:
            return
    try:
        load(written).close()
    except wireplan.DecodeError as exc:
        raise AssertionError(f"the writer wrote an .ort load refuses: {exc!r}") from exc
