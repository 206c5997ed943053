"""A small example ONNX model for demos and tests (:func:`example_model`)."""

from __future__ import annotations

import numpy as np
import onnx
import onnx.numpy_helper

__all__ = [
    "example_model",
]


def example_model() -> onnx.ModelProto:
    """A small ONNX model for demos: MatMul + Add + Relu + Reshape with a dynamic batch.

    ``x: float[batch, 64] -> y: float[batch, 8, 4]``; a 64x32 float32 weight
    (8 KiB) and a bias initializer, a ``dim_param``, metadata props.
    """
    rng = np.random.default_rng(20261201)
    w = rng.standard_normal((64, 32)).astype(np.float32)
    b = rng.standard_normal(32).astype(np.float32)
    shape = np.array([-1, 8, 4], dtype=np.int64)
    h = onnx.helper
    graph = h.make_graph(
        [
            h.make_node("MatMul", ["x", "w"], ["xw"], name="matmul"),
            h.make_node("Add", ["xw", "b"], ["xwb"], name="add"),
            h.make_node("Relu", ["xwb"], ["r"], name="relu"),
            h.make_node("Reshape", ["r", "shape"], ["y"], name="reshape"),
        ],
        "example",
        [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", 64])],
        [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["batch", 8, 4])],
        initializer=[
            onnx.numpy_helper.from_array(w, "w"),
            onnx.numpy_helper.from_array(b, "b"),
            onnx.numpy_helper.from_array(shape, "shape"),
        ],
        doc_string="wireplan example graph",
    )
    model = h.make_model(
        graph,
        opset_imports=[h.make_opsetid("", 17)],
        producer_name="wireplan",
        producer_version="0.1.0",
        doc_string="wireplan example model",
    )
    model.ir_version = 8
    h.set_model_props(model, {"purpose": "demo"})
    return model
