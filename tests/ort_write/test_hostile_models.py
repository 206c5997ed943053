"""Models that load (or are made by hand) but that ONNX, numpy or onnxruntime cannot take.

Each ends in a wireplan error with a path, never in a foreign exception, and the
writer never produces an .ort that onnxruntime refuses for its sizes or nesting.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto as TP
from onnx import helper as h

from wireplan import DecodeError, EncodeError, LimitError
from wireplan.flatbuffers.builder import Builder, build_bytes
from wireplan.flatbuffers.reader import Limits
from wireplan.ort import from_onnx, load, to_bytes, to_onnx
from wireplan.ort.graph import MAX_DEPTH, MAX_GRAPH_NESTING
from wireplan.ort.model import Attribute, Graph, Node, OrtModel
from wireplan.ort.schema import ATTRIBUTE_TYPE, ORT_SCHEMA
from wireplan.ort.writer import convert_onnx_to_ort

from . import models, peer

_GRAPH = ATTRIBUTE_TYPE["GRAPH"]
#: The highest rank the installed numpy makes arrays of (numpy 1, with onnxruntime 1.15: 32).
RANK = 64 if int(np.__version__.split(".")[0]) >= 2 else 32


def loaded(model: onnx.ModelProto | None = None) -> OrtModel:
    """A model as ``load`` gives it: written by the writer, read back."""
    return load(bytes(to_bytes(model if model is not None else models.features())))


# --- attribute types ---------------------------------------------------------------------------


@pytest.mark.parametrize("code", [0, 11, 12, 13, 291, -1, 2**31 - 1])
def test_to_onnx_refuses_attribute_types_outside_the_enum(code: int) -> None:
    om = loaded()
    (node_i, _), (attr_i, attr) = next(
        ((i, n), (j, a))
        for i, n in enumerate(om.graph.nodes)
        for j, a in enumerate(n.attributes)
        if a.type
    )
    attr.type = code
    with pytest.raises(EncodeError, match=f"type {code}") as info:
        to_onnx(om)
    assert info.value.path == f"$.model.graph.nodes[{node_i}].attributes[{attr_i}].type"


# --- opset versions ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", [2**31, 2**63 - 1, -(2**63)])
def test_to_bytes_refuses_opset_versions_past_int32(version: int) -> None:
    om = loaded()
    om.model.opset_import[0].version = version  # type: ignore[union-attr]
    for _, node in enumerate(om.graph.nodes):
        node.since_version = 0  # looked up from the opset
    with pytest.raises(EncodeError, match=f"opset {version}") as info:
        to_bytes(om)
    assert info.value.path.startswith("$.model.graph.nodes[")


@pytest.mark.parametrize("version", [2**31, 2**63 - 1, -1])
def test_from_onnx_takes_opset_versions_past_int32(version: int) -> None:
    """Found by fuzz_ort: onnx.defs.get_schema raised TypeError for such a version."""
    proto = to_onnx(loaded())
    proto.opset_import[0].version = version
    om = from_onnx(proto)
    with pytest.raises(EncodeError, match="no operator schema"):
        to_bytes(om)


# --- tensor shapes and sizes -------------------------------------------------------------------


HOSTILE_SHAPES = [
    pytest.param([1] * 258, 4, id="rank-258"),
    pytest.param([1] * 65, 4, id="rank-65"),
    pytest.param([0, 2**62, 2**62], 0, id="empty-but-huge"),
    pytest.param([2**62, 2**62], 0, id="huge"),
    pytest.param([-1, 4], 0, id="negative"),
]


@pytest.mark.parametrize(("dims", "nbytes"), HOSTILE_SHAPES)
def test_numpy_and_initializers_refuse_impossible_shapes(dims: list[int], nbytes: int) -> None:
    om = loaded(models.weights(64, 1))
    t = om.graph.initializers[0]
    t.dims = np.array(dims, dtype="<i8")
    t.raw_data = np.zeros(nbytes, np.uint8)
    with pytest.raises(DecodeError) as info:
        t.numpy()
    assert info.value.path == "$.dims"
    with pytest.raises(DecodeError) as info:
        om.initializers  # noqa: B018
    assert info.value.path == "$.model.graph.initializers[0].dims"


@pytest.mark.parametrize(("dims", "nbytes"), HOSTILE_SHAPES)
def test_writer_refuses_impossible_shapes(dims: list[int], nbytes: int) -> None:
    om = loaded(models.weights(64, 1))
    t = om.graph.initializers[0]
    t.dims = np.array(dims, dtype="<i8")
    t.raw_data = np.zeros(nbytes, np.uint8)
    with pytest.raises(EncodeError) as info:
        to_bytes(om)
    assert info.value.path == "$.model.graph.initializers[0].dims"


def test_writer_refuses_payloads_of_the_wrong_size() -> None:
    """onnxruntime refuses them ("raw data size mismatch"): the writer does not write them."""
    om = loaded(models.weights(64, 1))
    t = om.graph.initializers[0]
    good = t.raw_data
    for raw in (good[:-1], np.zeros(0, np.uint8), np.concatenate([good, good])):
        t.raw_data = raw
        with pytest.raises(EncodeError, match="bytes of raw_data") as info:
            to_bytes(om)
        assert info.value.path == "$.model.graph.initializers[0].raw_data"
    t.raw_data = good
    assert load(bytes(to_bytes(om))).initializers["w0"].nbytes == good.shape[0]


def test_writer_refuses_string_tensors_of_the_wrong_count() -> None:
    om = loaded()
    (i, t) = next((i, t) for i, t in enumerate(om.graph.initializers) if t.string_data)
    t.string_data = t.string_data[:-1]
    with pytest.raises(EncodeError, match="strings for shape") as info:
        to_bytes(om)
    assert info.value.path == f"$.model.graph.initializers[{i}].string_data"


def test_writer_refuses_tensors_without_a_data_type(tmp_path: Path) -> None:
    """Found by fuzz_onnx_external: an UNDEFINED external tensor was written, load refused it."""
    om = loaded(models.weights(64, 1))
    om.graph.initializers[0].data_type = 0
    with pytest.raises(EncodeError, match="UNDEFINED") as info:
        to_bytes(om)
    assert info.value.path == "$.model.graph.initializers[0].data_type"
    w = onnx.TensorProto(name="W", data_type=0, data_location=onnx.TensorProto.EXTERNAL)
    for key, value in (("location", "w.bin"), ("length", "4")):
        e = w.external_data.add()
        e.key, e.value = key, value
    g = h.make_graph(
        [h.make_node("Identity", ["W"], ["Y"])],
        "g",
        [],
        [h.make_tensor_value_info("Y", 0, [])],
        [w],
    )
    (tmp_path / "m.onnx").write_bytes(
        h.make_model(g, opset_imports=[h.make_opsetid("", 17)]).SerializeToString()
    )
    (tmp_path / "w.bin").write_bytes(bytes(4))
    with pytest.raises(EncodeError, match="UNDEFINED"):
        convert_onnx_to_ort(tmp_path / "m.onnx", tmp_path / "m.ort", durable=False)
    assert not (tmp_path / "m.ort").exists()


def typed(dtype: int, dims: list[int], field: str, values: list[Any]) -> onnx.TensorProto:
    """A tensor whose values sit in a typed field (``float_data``, ...), as many as given."""
    t = onnx.TensorProto(name="c", data_type=dtype, dims=dims)
    getattr(t, field).extend(values)
    return t


def with_values(t: onnx.TensorProto, constant: bool) -> onnx.ModelProto:
    """A model holding ``t`` as an initializer, or as the value of a Constant node."""
    y = [h.make_tensor_value_info("y", t.data_type, None)]
    if constant:
        nodes = [h.make_node("Constant", [], ["c"], value=t), h.make_node("Identity", ["c"], ["y"])]
        g = h.make_graph(nodes, "g", [], y)
    else:
        g = h.make_graph([h.make_node("Identity", ["c"], ["y"])], "g", [], y, [t])
    return h.make_model(g, opset_imports=[h.make_opsetid("", 17)])


@pytest.mark.parametrize("constant", [False, True])
@pytest.mark.parametrize(
    ("tensor", "message"),
    [
        (typed(TP.FLOAT, [2, 3], "float_data", [1.0] * 5), "5 values in float_data, but FLOAT"),
        (typed(TP.INT64, [2, 2], "int64_data", [1, 2]), "2 values in int64_data, but INT64 [2, 2] needs 4"),
        (typed(TP.DOUBLE, [1], "double_data", []), "0 values in double_data"),
        (typed(TP.FLOAT16, [2], "int32_data", [0]), "values in int32_data do not make a FLOAT16"),
        (typed(99, [1], "float_data", [1.0]), "data type 99, which onnx"),
    ],
)  # fmt: skip
def test_typed_values_that_do_not_fit_the_shape(
    tensor: onnx.TensorProto, message: str, constant: bool
) -> None:
    """Values kept in float_data and its kind, too few or too many for the shape (onnxruntime
    refuses them): an EncodeError naming the tensor, not onnx's ValueError from a reshape."""
    with pytest.raises(EncodeError, match=re.escape(message)) as info:
        from_onnx(with_values(tensor, constant))
    assert info.value.path == ("$.graph.node[0].value" if constant else "$.graph.initializer[0]")


@pytest.mark.parametrize(
    ("tensor", "expected"),
    [
        (typed(TP.FLOAT, [2], "float_data", [1.5, -2.0]), np.array([1.5, -2.0], "<f4")),
        (typed(TP.DOUBLE, [1], "double_data", [0.1]), np.array([0.1], "<f8")),
        (typed(TP.INT32, [2], "int32_data", [-1, 7]), np.array([-1, 7], "<i4")),
        (typed(TP.INT64, [1, 1], "int64_data", [-(2**62)]), np.array([-(2**62)], "<i8")),
        (typed(TP.UINT64, [1], "uint64_data", [2**64 - 1]), np.array([2**64 - 1], "<u8")),
        (typed(TP.FLOAT16, [1], "int32_data", [0x3C00]), np.array([1.0], "<f2")),
        (typed(TP.BOOL, [2], "int32_data", [1, 0]), np.array([True, False])),
    ],
)  # fmt: skip
def test_typed_values_become_little_endian_bytes(
    tensor: onnx.TensorProto, expected: np.ndarray[Any, Any]
) -> None:
    for constant in (False, True):
        om = from_onnx(with_values(tensor, constant))
        assert om.graph.initializers[0].raw_data.tobytes() == expected.tobytes()


def negative_dims_model(where: str) -> onnx.ModelProto:
    """``Y = Slice(X)[:, 0:2]`` with a negative dimension that onnxruntime takes: in the
    declared input (``"input"``), or in an If branch's own declaration of ``X``
    (``"branch"``)."""
    ints = {k: onnx.numpy_helper.from_array(np.array([v], np.int64), k) for k, v in
            (("s", 0), ("e", 2), ("a", 1))}  # fmt: skip
    sliced = h.make_node("Slice", ["X", "s", "e", "a"], ["Y" if where == "input" else "T"])
    x = h.make_tensor_value_info("X", TP.FLOAT, [3, -1] if where == "input" else [3, 4])
    y = h.make_tensor_value_info("Y", TP.FLOAT, None)
    if where == "input":
        g = h.make_graph([sliced], "g", [x], [y], list(ints.values()))
    else:
        declared = [h.make_tensor_value_info("X", TP.FLOAT, [3, -4])]
        t = [h.make_tensor_value_info("T", TP.FLOAT, None)]
        branch = h.make_graph([sliced], "then", [], t, value_info=declared)
        inner = h.make_node("Slice", ["X", "s", "e", "a"], ["U"])
        other = h.make_graph([inner], "else", [], [h.make_tensor_value_info("U", TP.FLOAT, None)])
        c = h.make_tensor_value_info("c", TP.BOOL, [])
        node = h.make_node("If", ["c"], ["Y"], then_branch=branch, else_branch=other)
        g = h.make_graph([node], "g", [x, c], [y], list(ints.values()))
    return h.make_model(g, opset_imports=[h.make_opsetid("", 13)], ir_version=8)  # 1.15 reads it


@pytest.mark.parametrize("where", ["input", "branch"])
def test_negative_dims_are_written_unknown(where: str, tmp_path: Path) -> None:
    """onnx 1.21 and later abort the process in shape inference (onnx/onnx#8481) on the
    declared input, and onnxruntime 1.32 aborts loading an .ort that keeps the -1 or -4
    (its own .ort has the dimension unknown).  The conversion runs in a process of its own
    here, so that an abort fails this test only; the .ort runs as the .onnx does."""
    onnx.save(negative_dims_model(where), tmp_path / "m.onnx")
    code = (
        "import sys, wireplan.ort; wireplan.ort.convert(sys.argv[1], sys.argv[2], "
        "optimization='none', durable=False, format_version=int(sys.argv[3]))"
    )
    paths = [str(tmp_path / "m.onnx"), str(tmp_path / "m.ort"), str(peer.FORMAT_VERSION)]
    done = subprocess.run(
        [sys.executable, "-c", code, *paths], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    with load(tmp_path / "m.ort") as om:
        dims = [  # X's dimensions in each graph: (1, value) or (0, 0) for unknown
            [(d.value.dim_type, d.value.dim_value) for d in vi.type.value.shape.dim]
            for g in om.graphs()
            for vi in g.node_args
            if vi.name == "X" and vi.type is not None
        ]
    assert [(1, 3), (0, 0)] in dims  # where the .onnx declares [3, -1] or [3, -4]
    assert all(value >= 0 for x in dims for _, value in x)
    feeds: dict[str, Any] = {"X": np.arange(12, dtype=np.float32).reshape(3, 4)}
    if where == "branch":
        feeds["c"] = np.array(True)
    code = (
        "import sys, numpy as np; sys.path.insert(0, sys.argv[2]); from ort_write import peer; "
        "feeds = dict(np.load(sys.argv[1])); print(peer.run(sys.argv[3], feeds)[0].tolist())"
    )
    np.savez(tmp_path / "feeds.npz", **feeds)
    tests = str(Path(__file__).parent.parent)
    outputs = []
    for model in ("m.ort", "m.onnx"):
        args = [str(tmp_path / "feeds.npz"), tests, str(tmp_path / model)]
        ran = subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300
        )
        assert ran.returncode == 0, ran.stderr[-2000:]
        outputs.append(ran.stdout)
    assert outputs[0] == outputs[1] == f"{feeds['X'][:, :2].tolist()}\n"


def test_a_tensor_with_a_negative_dim_is_refused_before_shape_inference() -> None:
    """Found by mutating hey_mycroft: Gather indices of dims [-1] aborted onnx's shape
    inference; the tensor is refused instead, naming it."""
    m = negative_dims_model("input")
    m.graph.initializer[1].dims[0] = -1
    with pytest.raises(EncodeError, match="negative dimension -1") as info:
        to_bytes(from_onnx(m))
    assert info.value.path == "$.model.graph.initializers[1].dims"


@pytest.mark.parametrize("dims", [[3, -1], [1] * 65])
def test_writer_refuses_sparse_tensors_of_impossible_dense_shapes(dims: list[int]) -> None:
    """onnxruntime refuses them ("dense dims expected to be non-negative"): the writer too."""
    sp = onnx.SparseTensorProto(dims=dims)
    sp.values.CopyFrom(onnx.numpy_helper.from_array(np.array([1.0], np.float32), "X"))
    sp.indices.CopyFrom(onnx.numpy_helper.from_array(np.array([0], np.int64), "Xi"))
    y = h.make_tensor_value_info("Y", TP.FLOAT, None)
    g = h.make_graph([h.make_node("Identity", ["X"], ["Y"])], "g", [], [y], sparse_initializer=[sp])
    om = from_onnx(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]))
    with pytest.raises(EncodeError, match="sparse tensor 'X' has") as info:
        to_bytes(om)
    assert info.value.path == "$.model.graph.sparse_initializers[0].dims"


def test_writer_sized_tensors_load_in_onnxruntime() -> None:
    """What passes the size checks runs (an empty tensor, a scalar, a rank-64 one)."""
    for dims in ([0, 3], [], [1] * RANK):
        arr = np.zeros(dims, np.float32)
        g = h.make_graph(
            [h.make_node("Identity", ["k"], ["y"])],
            "g",
            [],
            [h.make_tensor_value_info("y", TP.FLOAT, dims)],
            initializer=[onnx.numpy_helper.from_array(arr, "k")],
        )
        model = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
        data = bytes(to_bytes(model, format_version=peer.FORMAT_VERSION))
        assert load(data).initializers["k"].shape == tuple(dims)
        (out,) = peer.run(data, {})
        assert out.shape == tuple(dims)


# --- nesting -----------------------------------------------------------------------------------


def nested_onnx(levels: int) -> onnx.ModelProto:
    """``levels`` If nodes, each in the then-branch of the one before."""
    g = h.make_graph(
        [h.make_node("Identity", ["x"], ["y0"])],
        "g0",
        [],
        [h.make_tensor_value_info("y0", TP.FLOAT, [1])],
    )
    for i in range(1, levels + 1):
        other = h.make_graph(
            [h.make_node("Identity", ["x"], [f"e{i}"])],
            f"e{i}",
            [],
            [h.make_tensor_value_info(f"e{i}", TP.FLOAT, [1])],
        )
        node = h.make_node("If", ["c"], [f"y{i}"], then_branch=g, else_branch=other)
        g = h.make_graph([node], f"g{i}", [], [h.make_tensor_value_info(f"y{i}", TP.FLOAT, [1])])
    top = h.make_graph(
        g.node,
        "main",
        [h.make_tensor_value_info("c", TP.BOOL, []), h.make_tensor_value_info("x", TP.FLOAT, [1])],
        list(g.output),
    )
    return h.make_model(top, opset_imports=[h.make_opsetid("", 17)])


def nested_ort(levels: int) -> OrtModel:
    """The same shape built by hand (no types), as deep as asked: no protobuf in the way."""
    g = Graph(nodes=[Node(op_type="Identity", inputs=["x"], outputs=["y"], since_version=16)])
    for _ in range(levels):
        node = Node(
            op_type="If",
            since_version=16,
            inputs=["c"],
            outputs=["y"],
            attributes=[Attribute(name="then_branch", type=_GRAPH, g=g)],
        )
        g = Graph(nodes=[node])
    om = from_onnx(nested_onnx(0))
    om.model.graph = g  # type: ignore[union-attr]
    return om


def deepest_writable() -> int:
    """The most If levels (with typed values) the writer writes."""
    for levels in range(MAX_GRAPH_NESTING, 0, -1):
        try:
            to_bytes(from_onnx(nested_onnx(levels)))
        except EncodeError:
            continue
        return levels
    raise AssertionError("nothing nested is writable")


def test_writer_nesting_limit_is_onnxruntimes() -> None:
    """The deepest .ort the writer writes runs; one level more it refuses, and so does onnxruntime."""
    levels = deepest_writable()
    assert levels >= 15
    data = bytes(to_bytes(from_onnx(nested_onnx(levels)), format_version=peer.FORMAT_VERSION))
    feeds = {"c": np.array(True), "x": np.ones(1, np.float32)}
    assert peer.run(data, feeds)[0].tolist() == [1.0]
    assert to_onnx(load(data)).graph.node[0].op_type == "If"
    deeper = from_onnx(nested_onnx(levels + 1))
    with pytest.raises(EncodeError, match=f"deeper than {MAX_DEPTH} levels") as info:
        to_bytes(deeper)
    assert ".g." in info.value.path
    # Written without the limit: onnxruntime refuses it, load too (LimitError) unless asked.
    unlimited = build_bytes(
        Builder(ORT_SCHEMA),
        {
            "ort_version": str(peer.FORMAT_VERSION),
            "model": deeper.model,
            "kernel_type_str_resolver": None,
        },
    )
    with pytest.raises(Exception, match="verification failed"):
        peer.run(bytes(unlimited), feeds)
    with pytest.raises(LimitError, match=f"deeper than {MAX_DEPTH}") as err:
        load(bytes(unlimited), verify="all")
    assert 0 <= err.value.offset < len(unlimited)
    with pytest.raises(LimitError, match=f"deeper than {MAX_DEPTH}") as late:
        to_onnx(load(bytes(unlimited)))  # verified on access: when the deep tables are read
    assert 0 <= late.value.offset < len(unlimited)
    assert to_onnx(load(bytes(unlimited), limits=Limits(max_depth=200))).graph.node


@pytest.mark.parametrize("levels", [MAX_GRAPH_NESTING + 1, 40, 420, 2000])
def test_deep_hand_made_models_are_refused_cleanly(levels: int) -> None:
    om = nested_ort(levels)
    with pytest.raises(EncodeError, match="nest") as info:
        to_bytes(om)
    assert info.value.path.startswith("$.model.graph.nodes[0].attributes[0].g")
    if levels > 32:  # protobuf's limit of 100 messages
        with pytest.raises(EncodeError, match="protobuf"):
            to_onnx(om)


def test_load_limit_covers_what_to_onnx_needs() -> None:
    """The deepest graphs load accepts by default convert, and onnx.load reads the result."""
    assert MAX_DEPTH < 100  # protobuf's limit, which onnx.load applies
    data = bytes(to_bytes(nested_ort(MAX_GRAPH_NESTING)))
    proto = to_onnx(load(data))
    onnx.load_from_string(proto.SerializeToString())
