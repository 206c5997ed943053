"""to_onnx / convert (.ort -> .onnx), from_onnx (ONNX -> OrtModel) and onnx_op_signature."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from wireplan import ArgumentError, DecodeError, EncodeError
from wireplan.ort import convert, from_onnx, load, to_onnx
from wireplan.ort.onnx.example import example_model
from wireplan.ort.onnx.save import convert_ort_to_onnx
from wireplan.ort.onnx.schemas import onnx_op_signature

from .conftest import feature_model, save_ort


def run(model: bytes | str, feeds: dict[str, np.ndarray]) -> list[object]:
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    return list(sess.run(None, feeds))


FEEDS = {"x": np.arange(12, dtype=np.float32).reshape(3, 4) - 5, "c": np.array(True)}


def assert_same(a: list[object], b: list[object]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        if isinstance(x, list):
            assert isinstance(y, list)
            assert_same(x, y)
        else:
            assert isinstance(x, np.ndarray) and isinstance(y, np.ndarray)
            assert x.dtype == y.dtype and x.shape == y.shape
            assert x.tolist() == y.tolist()


def test_to_onnx_keeps_the_features(feature_ort: Path) -> None:
    with load(feature_ort) as om:
        proto = to_onnx(om)
    onnx.checker.check_model(proto)  # full_check: onnx infers no types through sparse initializers
    assert proto.ir_version == 8 and proto.producer_name == "wireplan-tests"
    assert proto.producer_version == "1.2" and proto.doc_string == "model doc"
    assert proto.domain == "org.wireplan" and proto.model_version == 3
    assert {p.key: p.value for p in proto.metadata_props} == {
        "author": "tests",
        "purpose": "features",
    }
    g = proto.graph
    assert g.name == "main_graph" and g.doc_string == "graph doc"
    assert [n.name for n in g.node] == ["matmul", "add_sparse", "branch", "seq_make", "cat"]
    assert g.node[0].doc_string == "x times w"
    x = g.input[0]
    assert x.type.tensor_type.shape.dim[0].dim_param == "N"
    assert x.type.tensor_type.shape.dim[1].dim_value == 4
    seq = next(o for o in g.output if o.name == "seq")
    assert seq.type.HasField("sequence_type")
    labels = next(t for t in g.initializer if t.name == "labels_out")
    assert list(labels.string_data) == [b"alpha", "b\u00e9ta".encode()]
    (sp,) = g.sparse_initializer
    assert numpy_helper.to_array(sp.values).tolist() == [1.5, -2.0]
    assert list(sp.dims) == [4]
    branch = g.node[2]
    subgraphs = {a.name: a.g for a in branch.attribute}
    assert subgraphs["then_branch"].node[0].op_type == "Relu"
    assert subgraphs["then_branch"].name == "branch_then_branch"
    assert any(vi.name == "mm" for vi in g.value_info)


def test_to_onnx_runs_like_the_ort(feature_ort: Path) -> None:
    with load(feature_ort) as om:
        proto = to_onnx(om)
    assert_same(run(str(feature_ort), FEEDS), run(proto.SerializeToString(), FEEDS))
    assert_same(
        run(str(feature_ort), {**FEEDS, "c": np.array(False)}),
        run(proto.SerializeToString(), {**FEEDS, "c": np.array(False)}),
    )


def test_extended_optimization_brings_contrib_ops(tmp_path: Path) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    w = numpy_helper.from_array(
        np.random.default_rng(1).standard_normal((4, 3, 3, 3)).astype(np.float32), "w"
    )
    b = numpy_helper.from_array(np.zeros(4, np.float32), "b")
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c"], ["y"], name="relu"),
        ],
        "conv_relu",
        [x],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
        initializer=[w, b],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = save_ort(model, tmp_path / "cr.ort", "extended")
    with load(path) as om:
        assert [(n.domain, n.op_type) for n in om.graph.nodes] == [("com.microsoft", "FusedConv")]
        proto = to_onnx(om)
    feeds = {"x": np.random.default_rng(2).standard_normal((1, 3, 8, 8)).astype(np.float32)}
    assert_same(run(str(path), feeds), run(proto.SerializeToString(), feeds))


@pytest.mark.parametrize("alignment", [64, 4096])
def test_convert_with_external_data(weights_ort: Path, tmp_path: Path, alignment: int) -> None:
    dst = tmp_path / "w.onnx"
    calls: list[tuple[int, int]] = []
    convert_ort_to_onnx(
        weights_ort,
        dst,
        external_data=True,
        alignment=alignment,
        progress=lambda d, t: calls.append((d, t)),
    )
    assert calls[0][0] == 0 and calls[-1][0] == calls[-1][1] > 0
    proto = onnx.load(str(dst), load_external_data=False)
    data = (tmp_path / "w.onnx.data").read_bytes()
    with load(weights_ort) as om:
        by_name = {t.name: t.raw_data.tobytes() for t in om.graph.initializers}
    assert len(proto.graph.initializer) == 4
    for t in proto.graph.initializer:
        info = {e.key: e.value for e in t.external_data}
        assert info["location"] == "w.onnx.data"
        off, n = int(info["offset"]), int(info["length"])
        assert off % alignment == 0
        assert data[off : off + n] == by_name[t.name]
    n = next(iter(proto.graph.input)).type.tensor_type.shape.dim[0].dim_value
    feeds = {"x": np.ones(n, np.float32)}
    assert_same(run(str(weights_ort), feeds), run(str(dst), feeds))


@pytest.mark.parametrize("fixture", ["feature_ort", "weights_ort"])
def test_streamed_onnx_parses_as_to_onnx(
    fixture: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    src = request.getfixturevalue(fixture)
    dst = tmp_path / "s.onnx"
    convert_ort_to_onnx(src, dst)
    with load(src) as om:
        assert onnx.load(str(dst)) == to_onnx(om)


def test_external_data_serial_and_threaded_are_byte_identical(
    weights_ort: Path, tmp_path: Path
) -> None:
    convert_ort_to_onnx(weights_ort, tmp_path / "a.onnx", external_data=True, threads=1)
    convert_ort_to_onnx(weights_ort, tmp_path / "b.onnx", external_data=True, threads=2)
    assert (tmp_path / "a.onnx.data").read_bytes() == (tmp_path / "b.onnx.data").read_bytes()
    a = onnx.load(str(tmp_path / "a.onnx"), load_external_data=False)
    b = onnx.load(str(tmp_path / "b.onnx"), load_external_data=False)
    for x, y in zip(a.graph.initializer, b.graph.initializer, strict=True):
        assert [(e.key, e.value.replace("b.onnx", "a.onnx")) for e in y.external_data] == [
            (e.key, e.value) for e in x.external_data
        ]


def test_convert_inline_and_by_suffix(feature_ort: Path, tmp_path: Path) -> None:
    dst = tmp_path / "f.onnx"
    convert(feature_ort, dst)
    onnx.checker.check_model(str(dst))
    assert_same(run(str(feature_ort), FEEDS), run(str(dst), FEEDS))
    with pytest.raises(ArgumentError, match="suffixes"):
        convert(feature_ort, tmp_path / "f.bin")


def test_failed_convert_leaves_no_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ort"
    bad.write_bytes(b"\x10\0\0\0ORTM" + b"\0" * 40)
    dst = tmp_path / "bad.onnx"
    with pytest.raises(DecodeError):
        convert(bad, dst)
    assert not dst.exists()
    assert list(tmp_path.iterdir()) == [bad]


def test_from_onnx_example() -> None:
    proto = example_model()
    onnx.checker.check_model(proto)
    om = from_onnx(proto)
    g = om.graph
    assert [n.op_type for n in g.nodes] == ["MatMul", "Add", "Relu", "Reshape"]
    assert [n.index for n in g.nodes] == [0, 1, 2, 3] and g.max_node_index == 4
    assert [n.since_version for n in g.nodes] == [13, 14, 14, 14]
    assert all(n.implicit_inputs == [] for n in g.nodes)
    assert {vi.name for vi in g.node_args} == {"x", "w", "b", "shape", "xw", "xwb", "r", "y"}
    types = {vi.name: vi.type for vi in g.node_args}
    assert all(t is not None for t in types.values())
    w = next(t for t in g.initializers if t.name == "w")
    assert np.array_equal(w.numpy(), numpy_helper.to_array(proto.graph.initializer[0]))
    assert om.metadata_props == {"purpose": "demo"}
    assert om.kernel_type_str_resolver is None
    om.close()


def test_from_onnx_maps_external_data(tmp_path: Path) -> None:
    proto = example_model()
    path = tmp_path / "ex.onnx"
    onnx.save(proto, str(path), save_as_external_data=True, location="ex.data", size_threshold=0)
    with from_onnx(path) as om:
        files = om.source._sources.files
        mapping = np.frombuffer(files["ex.data"].buffer, dtype=np.uint8)
        for t in om.graph.initializers:
            assert np.shares_memory(t.raw_data, mapping)
        w = next(t for t in om.graph.initializers if t.name == "w")
        assert np.array_equal(
            w.numpy(), numpy_helper.to_array(example_model().graph.initializer[0])
        )


def test_from_onnx_rejects_external_data_outside_the_folder(tmp_path: Path) -> None:
    proto = example_model()
    t = proto.graph.initializer[0]
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = "location", "../outside.bin"
    with pytest.raises(EncodeError, match="outside the model's folder"):
        from_onnx(proto, base_dir=tmp_path)


def test_from_onnx_matches_onnxruntime_edges_and_implicit_inputs(
    feature_ort: Path, tmp_path: Path
) -> None:
    """onnxruntime's own .ort (no optimizations) is the oracle for what from_onnx derives."""
    source = feature_model()
    ort_made = save_ort(source, tmp_path / "plain.ort", "none")
    with load(ort_made) as theirs:
        ours = from_onnx(source)

        def edges(g):  # type: ignore[no-untyped-def]
            pos = {n.index: i for i, n in enumerate(g.nodes)}
            return {
                pos[e.node_index]: (
                    sorted(
                        (pos[x.node_index], x.src_arg_index, x.dst_arg_index) for x in e.input_edges
                    ),
                    sorted(
                        (pos[x.node_index], x.src_arg_index, x.dst_arg_index)
                        for x in e.output_edges
                    ),
                )
                for e in g.node_edges
                if e.input_edges or e.output_edges
            }

        a, b = theirs.graph, ours.graph
        assert [n.op_type for n in a.nodes] == [n.op_type for n in b.nodes]
        assert edges(a) == edges(b)
        for x, y in zip(a.nodes, b.nodes, strict=True):
            assert x.inputs == y.inputs and x.outputs == y.outputs
            assert sorted(x.implicit_inputs) == sorted(y.implicit_inputs)
            assert x.since_version == y.since_version
            assert list(x.input_arg_counts) == list(y.input_arg_counts)
        assert {v.name for v in a.node_args} == {v.name for v in b.node_args}
        assert {t.name for t in a.initializers} == {t.name for t in b.initializers}


def test_from_onnx_constants_become_initializers() -> None:
    graph = helper.make_graph(
        [
            helper.make_node("Constant", [], ["k"], value_floats=[1.0, 2.0]),
            helper.make_node("Constant", [], ["s"], value_string=b"hi"),
            helper.make_node("Add", ["x", "k"], ["y"]),
        ],
        "c",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    om = from_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
    assert [n.op_type for n in om.graph.nodes] == ["Add"]
    inits = {t.name: t for t in om.graph.initializers}
    assert inits["k"].numpy().tolist() == [1.0, 2.0] and inits["s"].string_data == ["hi"]


def _function_model() -> onnx.ModelProto:
    fn = helper.make_function(
        "local",
        "Double",
        ["a"],
        ["b"],
        [helper.make_node("Add", ["a", "a"], ["b"])],
        opset_imports=[helper.make_opsetid("", 17)],
    )
    graph = helper.make_graph(
        [helper.make_node("Double", ["x"], ["y"], domain="local")],
        "f",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    return helper.make_model(
        graph,
        functions=[fn],
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
    )


def test_from_onnx_inlines_local_functions() -> None:
    om = from_onnx(_function_model())
    assert [(n.domain, n.op_type) for n in om.graph.nodes] == [("", "Add")]
    with pytest.raises(EncodeError, match="local function"):
        from_onnx(_function_model(), inline_functions=False)


def test_from_onnx_expands_function_ops_on_request() -> None:
    graph = helper.make_graph(
        [
            helper.make_node("CastLike", ["x", "y"], ["z"]),
            helper.make_node("Softsign", ["z"], ["w"]),
        ],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
            helper.make_tensor_value_info("y", TensorProto.DOUBLE, [2]),
        ],
        [helper.make_tensor_value_info("w", TensorProto.DOUBLE, [2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    asked: list[tuple[str, str, int, dict[str, str]]] = []

    def expand(
        domain: str, op: str, since: int, binding: Mapping[str, str], attributes: object
    ) -> bool:
        asked.append((domain, op, since, dict(binding)))
        return op in ("CastLike", "Softsign")

    om = from_onnx(model, expand=expand)
    # asked per node with the types bound to its kernel type strings; only function ops
    assert asked == [
        ("", "CastLike", 21, {"T1": "tensor(float)", "T2": "tensor(double)"}),
        ("", "Softsign", 1, {"T": "tensor(double)"}),
    ]
    ops = [n.op_type for n in om.graph.nodes]
    assert "CastLike" not in ops and "Softsign" not in ops and "Cast" in ops
    assert [n.op_type for n in from_onnx(model).graph.nodes] == ["CastLike", "Softsign"]


def _weights_model() -> onnx.ModelProto:
    """Weights in an initializer and in a Constant node, shapes from small constants, and a
    HardSwish (a function op) between them."""
    rng = np.random.default_rng(3)
    w = rng.standard_normal((8, 8)).astype(np.float32)  # 64 numbers: shape inference's limit
    big = rng.standard_normal((8, 9)).astype(np.float32)
    shape = np.array([9, 8], np.int64)
    graph = helper.make_graph(
        [
            helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(big, "k")),
            helper.make_node("Constant", [], ["shape"], value=numpy_helper.from_array(shape)),
            helper.make_node("MatMul", ["x", "w"], ["a"]),
            helper.make_node("HardSwish", ["a"], ["h"]),
            helper.make_node("MatMul", ["h", "k"], ["b"]),
            helper.make_node("Reshape", ["b", "shape"], ["y"]),
            helper.make_node("Resize", ["y", "", "scales"], ["z"]),
        ],
        "weights",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 8])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
        initializer=[
            numpy_helper.from_array(w, "w"),
            numpy_helper.from_array(np.array([2.0, 1.0], np.float32), "scales"),
        ],
    )
    # IR 8: what onnxruntime 1.15 (the oldest release tested) still loads
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def test_inferred_types_match_onnx_on_the_whole_model() -> None:
    """Shape inference runs on a copy without weights; the types are onnx's for the model."""
    from wireplan.ort.onnx.infer import inferred_types

    model = _weights_model()
    full = onnx.shape_inference.infer_shapes(model)
    expected = {vi.name: vi.type for vi in full.graph.value_info} | {
        vi.name: vi.type for vi in full.graph.output
    }
    found = inferred_types(model)
    for name, t in expected.items():
        assert found[name] == t, name
    assert found["z"].tensor_type.shape.dim[0].dim_value == 18  # from the scales' values


def test_expansion_keeps_the_weights(tmp_path: Path) -> None:
    """The HardSwish is expanded; the initializer and the Constant's tensor come through
    whole (the inliner is given neither) and the .ort runs as the .onnx does."""
    model = _weights_model()
    expanded = from_onnx(model, expand=lambda *args: args[1] == "HardSwish")
    ops = [n.op_type for n in expanded.graph.nodes]
    assert "HardSwish" not in ops and "HardSigmoid" in ops
    inits = {t.name: t for t in expanded.graph.initializers}
    for proto in (*model.graph.initializer, model.graph.node[0].attribute[0].t):
        assert inits[proto.name].raw_data.tobytes() == proto.raw_data
    src = tmp_path / "m.onnx"
    onnx.save(model, src)
    from wireplan.ort import onnxruntime_door
    from wireplan.ort.writer import FORMAT_VERSIONS

    version = max(set(onnxruntime_door.loadable_format_versions()) & set(FORMAT_VERSIONS))
    convert(src, tmp_path / "m.ort", optimization="none", format_version=version)
    feeds = {"x": np.random.default_rng(4).standard_normal((8, 8)).astype(np.float32)}
    assert_same(run(str(tmp_path / "m.ort"), feeds), run(model.SerializeToString(), feeds))


def test_expansion_strips_only_onnx_constants() -> None:
    """A node of another domain named Constant may hold a graph: the copy given to the
    inliner keeps it whole, so the nodes are counted as they were chosen and the HardSwish
    in its subgraph is expanded like the one outside."""
    sub = helper.make_graph(
        [helper.make_node("HardSwish", ["x"], ["s"])],
        "sub",
        [],
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, [2])],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Constant", ["x"], ["c"], domain="x.custom", body=sub),
            helper.make_node("HardSwish", ["c"], ["y"]),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("x.custom", 1)]
    model = helper.make_model(graph, opset_imports=opsets, ir_version=8)
    om = from_onnx(model, expand=lambda *args: args[1] == "HardSwish")
    (body,) = [a.g for a in om.graph.nodes[0].attributes if a.g is not None]
    assert [n.op_type for n in body.nodes] == ["HardSigmoid", "Mul"]
    assert [n.op_type for n in om.graph.nodes] == ["Constant", "HardSigmoid", "Mul"]


def test_from_onnx_rejects_non_utf8_strings() -> None:
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "s",
        [helper.make_tensor_value_info("x", TensorProto.STRING, [1])],
        [helper.make_tensor_value_info("y", TensorProto.STRING, [1])],
        initializer=[helper.make_tensor("bad", TensorProto.STRING, [1], [b"\xff\xfe"])],
    )
    with pytest.raises(EncodeError, match="UTF-8") as info:
        from_onnx(helper.make_model(graph))
    assert info.value.path == "$.graph.initializer[0]"


def test_round_trip_through_from_onnx(feature_ort: Path) -> None:
    """.ort -> to_onnx -> from_onnx keeps every node, edge and tensor."""
    with load(feature_ort) as om:
        again = from_onnx(to_onnx(om))
        assert [n.op_type for n in om.graph.nodes] == [n.op_type for n in again.graph.nodes]
        for a, b in zip(om.graph.initializers, again.graph.initializers, strict=True):
            assert a.name == b.name and a.raw_data.tobytes() == b.raw_data.tobytes()
            assert a.string_data == b.string_data and list(a.dims) == list(b.dims)
        assert om.metadata_props == again.metadata_props


def test_onnx_op_signature() -> None:
    assert onnx_op_signature("", "Reshape", 17) == (
        14,
        [("data", "T"), ("shape", "tensor(int64)")],
        [("reshaped", "T")],
        ["T"],
    )
    assert onnx_op_signature("ai.onnx", "Reshape", 13)[0] == 13  # type: ignore[index]
    assert onnx_op_signature("", "Reshape", 4)[0] == 1  # type: ignore[index]
    assert onnx_op_signature("com.microsoft", "FusedConv", 1) is None
    assert onnx_op_signature("", "NoSuchOp", 17) is None
    since, ins, outs, params = onnx_op_signature("ai.onnx.ml", "LabelEncoder", 4)  # type: ignore[misc]
    assert since == 4 and ins[0][0] == "X" and outs[0][0] == "Y" and params
