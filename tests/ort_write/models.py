"""Small ONNX models for the writer tests, each exercising one feature of the format."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import onnx.helper as h
import onnx.numpy_helper as nh

F = onnx.TensorProto.FLOAT


def _model(
    graph: onnx.GraphProto, opsets: dict[str, int] | None = None, **kw: Any
) -> onnx.ModelProto:
    ops = [h.make_opsetid(d, v) for d, v in (opsets or {"": 17}).items()]
    m = h.make_model(graph, opset_imports=ops, producer_name="wireplan-tests", **kw)
    m.ir_version = 8
    return m


def weights(nbytes: int, tensors: int = 4, seed: int = 0) -> onnx.ModelProto:
    """``y = x + w0 + w1 + ...`` over float32 weights of about ``nbytes`` in all."""
    n = max(1, nbytes // 4 // tensors)
    rng = np.random.default_rng(seed)
    inits = [
        nh.from_array(rng.standard_normal(n).astype(np.float32), f"w{i}") for i in range(tensors)
    ]
    nodes = []
    prev = "x"
    for i in range(tensors):
        out = "y" if i == tensors - 1 else f"s{i}"
        nodes.append(h.make_node("Add", [prev, f"w{i}"], [out], name=f"add{i}"))
        prev = out
    g = h.make_graph(
        nodes,
        "weights",
        [h.make_tensor_value_info("x", F, [n])],
        [h.make_tensor_value_info("y", F, [n])],
        initializer=inits,
    )
    return _model(g)


def many_nodes(count: int, seed: int = 0) -> onnx.ModelProto:
    """A chain of ``count`` small nodes (Add/Mul/Relu with small constants), few weights."""
    rng = np.random.default_rng(seed)
    nodes = []
    inits = []
    prev = "x"
    ops = ("Add", "Mul", "Relu", "Sub")
    for i in range(count):
        op = ops[i % len(ops)]
        out = "y" if i == count - 1 else f"t{i}"
        if op == "Relu":
            nodes.append(h.make_node(op, [prev], [out], name=f"n{i}"))
        else:
            c = f"c{i}"
            inits.append(nh.from_array(rng.standard_normal(8).astype(np.float32), c))
            nodes.append(h.make_node(op, [prev, c], [out], name=f"n{i}"))
        prev = out
    g = h.make_graph(
        nodes,
        "many",
        [h.make_tensor_value_info("x", F, ["batch", 8])],
        [h.make_tensor_value_info("y", F, ["batch", 8])],
        initializer=inits,
    )
    return _model(g)


def features() -> onnx.ModelProto:
    """dim_param, metadata props, Constant nodes, a sparse initializer, string tensors, If."""
    sparse = h.make_sparse_tensor(
        nh.from_array(np.array([1.5, -2.0], dtype=np.float32), "sp"),
        nh.from_array(np.array([1, 5], dtype=np.int64), "sp_idx"),
        [2, 3],
    )
    then_g = h.make_graph(
        [h.make_node("Constant", [], ["tv"], value=nh.from_array(np.full((2, 3), 10, np.float32)))],
        "then",
        [],
        [h.make_tensor_value_info("tv", F, [2, 3])],
    )
    else_g = h.make_graph(
        [h.make_node("Neg", ["dense"], ["ev"])],
        "else",
        [],
        [h.make_tensor_value_info("ev", F, [2, 3])],
    )
    nodes = [
        h.make_node("Constant", [], ["k"], value_float=2.0, name="const_k"),
        h.make_node("Identity", ["sp"], ["dense"]),
        h.make_node("Mul", ["dense", "k"], ["dk"]),
        h.make_node("If", ["cond"], ["branch"], then_branch=then_g, else_branch=else_g),
        h.make_node("Add", ["dk", "branch"], ["y"]),
        h.make_node("Concat", ["words", "more"], ["text"], axis=0),
        h.make_node("Shape", ["x"], ["xs"]),
    ]
    g = h.make_graph(
        nodes,
        "features",
        [
            h.make_tensor_value_info("cond", onnx.TensorProto.BOOL, []),
            h.make_tensor_value_info("words", onnx.TensorProto.STRING, ["n"]),
            h.make_tensor_value_info("x", F, ["batch", "seq"]),
        ],
        [
            h.make_tensor_value_info("y", F, [2, 3]),
            h.make_tensor_value_info("text", onnx.TensorProto.STRING, [None]),
            h.make_tensor_value_info("xs", onnx.TensorProto.INT64, [2]),
        ],
        initializer=[nh.from_array(np.array(["héllo", "", "wörld"], dtype=object), "more")],
        sparse_initializer=[sparse],
        doc_string="feature graph",
    )
    m = _model(g, doc_string="features model")
    h.set_model_props(m, {"author": "wireplan", "empty": ""})
    return m


def feature_feeds() -> list[dict[str, Any]]:
    return [
        {
            "cond": np.array(c),
            "words": np.array(["a", "bc"], dtype=object),
            "x": np.zeros((3, 5), np.float32),
        }
        for c in (True, False)
    ]


def contrib() -> onnx.ModelProto:
    """A com.microsoft operator (FusedMatMul) next to ONNX ones: several domains."""
    rng = np.random.default_rng(3)
    w = nh.from_array(rng.standard_normal((4, 3)).astype(np.float32), "w")
    nodes = [
        h.make_node("FusedMatMul", ["x", "w"], ["m"], domain="com.microsoft", alpha=0.5),
        h.make_node("Gelu", ["m"], ["g"], domain="com.microsoft"),
        h.make_node("Relu", ["g"], ["y"]),
    ]
    g = h.make_graph(
        nodes,
        "contrib",
        [h.make_tensor_value_info("x", F, [2, 4])],
        [h.make_tensor_value_info("y", F, [2, 3])],
        initializer=[w],
    )
    return _model(g, {"": 17, "com.microsoft": 1})


def qgemm(quantized_output: bool) -> onnx.ModelProto:
    """A com.microsoft ``QGemm`` whose output has no value_info, as in the optimized graphs
    onnxruntime saves: no input binds its type (``y_zero_point``'s type when
    ``quantized_output``, float otherwise)."""
    rng = np.random.default_rng(3)
    inits = [
        nh.from_array(np.array(0.05, np.float32), "xs"),
        nh.from_array(np.array(128, np.uint8), "xz"),
        nh.from_array(rng.integers(0, 255, (4, 3), dtype=np.uint8), "w"),
        nh.from_array(np.array(0.02, np.float32), "ws"),
        nh.from_array(np.array(120, np.uint8), "wz"),
    ]
    inputs = ["xq", "xs", "xz", "w", "ws", "wz", ""]
    last = h.make_node("Identity", ["yq"], ["y"])
    if quantized_output:
        inits += [nh.from_array(np.array(0.1, np.float32), "ys"),
                  nh.from_array(np.array(100, np.uint8), "yz")]  # fmt: skip
        inputs += ["ys", "yz"]
        last = h.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"])
    nodes = [
        h.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        h.make_node("QGemm", inputs, ["yq"], domain="com.microsoft"),
        last,
    ]
    g = h.make_graph(
        nodes,
        "qgemm",
        [h.make_tensor_value_info("x", F, [2, 4])],
        [h.make_tensor_value_info("y", F, [2, 3])],
        initializer=inits,
    )
    return _model(g, {"": 17, "com.microsoft": 1})


def local_function() -> onnx.ModelProto:
    """A model-local function (not representable in .ort): the writer inlines it."""
    fn = h.make_function(
        "my.funcs",
        "AddTwice",
        ["a", "b"],
        ["c"],
        [h.make_node("Add", ["a", "b"], ["t"]), h.make_node("Add", ["t", "b"], ["c"])],
        [h.make_opsetid("", 17)],
    )
    g = h.make_graph(
        [h.make_node("AddTwice", ["x", "x"], ["y"], domain="my.funcs")],
        "fn",
        [h.make_tensor_value_info("x", F, [3])],
        [h.make_tensor_value_info("y", F, [3])],
    )
    m = h.make_model(
        g,
        opset_imports=[h.make_opsetid("", 17), h.make_opsetid("my.funcs", 1)],
        functions=[fn],
    )
    m.ir_version = 8
    return m


def unknown_op() -> onnx.ModelProto:
    g = h.make_graph(
        [h.make_node("Frobnicate", ["x"], ["y"], domain="example.custom")],
        "unknown",
        [h.make_tensor_value_info("x", F, [3])],
        [h.make_tensor_value_info("y", F, [3])],
    )
    return _model(g, {"": 17, "example.custom": 1})


def zipmap() -> onnx.ModelProto:
    """ai.onnx.ml ZipMap: a sequence of maps as output (map and sequence types, two domains)."""
    seq_map = h.make_sequence_type_proto(
        h.make_map_type_proto(onnx.TensorProto.INT64, h.make_tensor_type_proto(F, []))
    )
    g = h.make_graph(
        [
            h.make_node("Relu", ["x"], ["r"]),
            h.make_node(
                "ZipMap", ["r"], ["y"], domain="ai.onnx.ml", classlabels_int64s=[10, 20, 30]
            ),
        ],
        "zipmap",
        [h.make_tensor_value_info("x", F, ["n", 3])],
        [h.make_value_info("y", seq_map)],
    )
    return _model(g, {"": 17, "ai.onnx.ml": 3})
