"""The .ort writer: onnxruntime loads what we write and computes the same outputs."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import wireplan.ort
from ort_write import models, peer
from ort_write.corpus import same
from ort_write.peer import FORMAT_VERSION
from wireplan.errors import ArgumentError, DecodeError, EncodeError, PeerError
from wireplan.ort import kernel_types, to_onnx, writer
from wireplan.ort.model import (
    KernelTypeStrResolver,
    OrtModel,
    Tensor,
)
from wireplan.ort.onnxruntime_door import contrib_op_signature, release_of
from wireplan.ort.reader import load, payload_offsets
from wireplan.ort.sessions import session

_FBS = Path(ort.__file__).parent / "tools" / "ort_format_model"
sys.path.insert(0, str(_FBS))
from ort_flatbuffers_py.fbs import InferenceSession  # noqa: E402

# The readers flatc generated for onnxruntime 1.15 name the root accessor after the table.
_root_as = getattr(
    InferenceSession.InferenceSession,
    "GetRootAs",
    getattr(InferenceSession.InferenceSession, "GetRootAsInferenceSession", None),
)


def run_onnx(model: onnx.ModelProto | Path, feeds: dict[str, Any]) -> list[Any]:
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    src = str(model) if isinstance(model, Path) else model.SerializeToString()
    s = ort.InferenceSession(src, opts, providers=["CPUExecutionProvider"])
    return list(s.run(None, feeds))


def run_ort(path: Path, feeds: dict[str, Any]) -> list[Any]:
    s = session(path, graph_optimization_level=ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    return list(s.run(None, feeds))


def raw_data_offsets(buf: bytes) -> list[int]:
    """Where every non-empty Tensor.raw_data starts, read with onnxruntime's generated readers."""
    root = _root_as(buf, 0)
    offsets: list[int] = []

    def tensor(t: Any) -> None:
        o = t._tab.Offset(12)  # raw_data, slot 4
        if o and t.RawDataLength():
            offsets.append(t._tab.Vector(o))

    def graph(g: Any) -> None:
        for i in range(g.InitializersLength()):
            tensor(g.Initializers(i))
        for i in range(g.SparseInitializersLength()):
            sp = g.SparseInitializers(i)
            tensor(sp.Values())
            tensor(sp.Indices())
        for i in range(g.NodesLength()):
            n = g.Nodes(i)
            for j in range(n.AttributesLength()):
                a = n.Attributes(j)
                if a.T() is not None:
                    tensor(a.T())
                for k in range(a.TensorsLength()):
                    tensor(a.Tensors(k))
                if a.G() is not None:
                    graph(a.G())
                for k in range(a.GraphsLength()):
                    graph(a.Graphs(k))

    graph(root.Model().Graph())
    return offsets


def test_example_runs_in_onnxruntime_with_identical_outputs(tmp_path: Path) -> None:
    from wireplan.ort.onnx.example import example_model

    model = example_model()
    writer.save(model, tmp_path / "m.ort", format_version=FORMAT_VERSION)
    x = np.random.default_rng(0).standard_normal((5, 64)).astype(np.float32)
    assert same(run_ort(tmp_path / "m.ort", {"x": x}), run_onnx(model, {"x": x}))
    head = (tmp_path / "m.ort").read_bytes()[:8]
    assert head[4:8] == b"ORTM"
    assert _root_as(head + b"\0" * 0, 0) is not None


def test_features_round_trip_through_onnxruntime(tmp_path: Path) -> None:
    """dim_param, metadata, Constant nodes, sparse initializer, string tensors, If subgraphs."""
    model = models.features()
    path = tmp_path / "f.ort"
    writer.save(model, path, format_version=FORMAT_VERSION)
    for feeds in models.feature_feeds():
        assert same(run_ort(path, feeds), run_onnx(model, feeds))
    with load(path) as om:
        assert om.ort_version == str(FORMAT_VERSION)
        assert om.metadata_props == {"author": "wireplan", "empty": ""}
        assert om.doc_string == "features model"
        g = om.graph
        assert len(g.sparse_initializers) == 1
        inputs = {vi.name: vi for vi in g.node_args}
        dims = inputs["x"].type.value.shape.dim  # type: ignore[union-attr]
        assert [d.value.dim_param for d in dims] == ["batch", "seq"]  # type: ignore[union-attr]
        more = next(t for t in g.initializers if t.name == "more")
        assert more.string_data == ["héllo", "", "wörld"]
        resolver = om.kernel_type_str_resolver
        assert resolver is not None
        ids = [e.op_id for e in resolver.op_kernel_type_str_args]
        assert ids == sorted(ids, key=str.encode)
        assert ":If:16" in ids and ":Neg:13" in ids  # subgraph ops are in the resolver


def test_several_domains_with_contrib_ops(tmp_path: Path) -> None:
    model = models.contrib()
    path = tmp_path / "c.ort"
    if not peer.EXPORTS_SCHEMAS:
        # No schema source for com.microsoft ops: refused, naming the operator.
        with pytest.raises(EncodeError, match=r"com\.microsoft:FusedMatMul"):
            writer.save(model, path, format_version=FORMAT_VERSION)
        return
    writer.save(model, path, format_version=FORMAT_VERSION)
    x = np.random.default_rng(1).standard_normal((2, 4)).astype(np.float32)
    assert same(run_ort(path, {"x": x}), run_onnx(model, {"x": x}))
    with load(path) as om:
        resolver = om.kernel_type_str_resolver
        assert resolver is not None
        ids = {e.op_id for e in resolver.op_kernel_type_str_args}
        assert {"com.microsoft:FusedMatMul:1", "com.microsoft:Gelu:1", ":Relu:14"} <= ids


@pytest.mark.parametrize("quantized_output", [True, False])
def test_unbound_contrib_output_types_as_onnxruntime_types_them(
    tmp_path: Path, quantized_output: bool
) -> None:
    """The optimized graphs onnxruntime saves leave a QGemm's output untyped (no input binds
    its type): typed as onnxruntime's type inference does, and the file runs identically."""
    model = models.qgemm(quantized_output)
    path = tmp_path / "q.ort"
    if not peer.EXPORTS_SCHEMAS:
        with pytest.raises(EncodeError, match=r"com\.microsoft:QGemm"):
            writer.save(model, path, format_version=FORMAT_VERSION)
        return
    writer.save(model, path, format_version=FORMAT_VERSION)
    with load(path) as om:
        (yq,) = (vi for vi in om.model.graph.node_args if vi.name == "yq")
    assert yq.type is not None
    uint8, float32 = onnx.TensorProto.UINT8, onnx.TensorProto.FLOAT
    assert yq.type.value.elem_type == (uint8 if quantized_output else float32)
    x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
    assert same(run_ort(path, {"x": x}), run_onnx(model, {"x": x}))


def test_untyped_value_is_an_encode_error_naming_its_producer(tmp_path: Path) -> None:
    """A contrib output no rule types (MatMulInteger16: int32 or uint32 by its inputs)."""
    g = onnx.helper.make_graph(
        [
            onnx.helper.make_node(
                "MatMulInteger16", ["a", "b"], ["m"], "mmi", domain="com.microsoft"
            ),
            onnx.helper.make_node("Identity", ["m"], ["y"]),
        ],
        "g",
        [onnx.helper.make_tensor_value_info(n, onnx.TensorProto.INT16, [2, 2]) for n in "ab"],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.UNDEFINED, None)],
    )
    model = onnx.helper.make_model(
        g,
        opset_imports=[
            onnx.helper.make_opsetid("", 17),
            onnx.helper.make_opsetid("com.microsoft", 1),
        ],
    )
    expected = r"value 'm' has no element type.*'MatMulInteger16'.*'mmi'"
    if not peer.EXPORTS_SCHEMAS:  # no schema source for com.microsoft: the operator is unknown
        expected = r"com\.microsoft:MatMulInteger16"
    with pytest.raises(EncodeError, match=expected):
        writer.save(model, tmp_path / "m.ort", format_version=FORMAT_VERSION)
    assert os.listdir(tmp_path) == []


def test_model_local_functions_are_inlined(tmp_path: Path) -> None:
    model = models.local_function()
    writer.save(model, tmp_path / "fn.ort", format_version=FORMAT_VERSION)
    x = np.arange(3, dtype=np.float32)
    assert same(run_ort(tmp_path / "fn.ort", {"x": x}), [x * 3])


def test_unknown_operator_is_an_encode_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(EncodeError, match=r"example\.custom:Frobnicate"):
        writer.save(models.unknown_op(), tmp_path / "u.ort")
    assert not (tmp_path / "u.ort").exists()
    assert os.listdir(tmp_path) == []


def test_carried_resolver_entries_are_kept(tmp_path: Path) -> None:
    from wireplan.ort.onnx.read import from_onnx

    om = from_onnx(models.unknown_op(), signature=kernel_types.signature)
    om.model.graph.nodes[0].since_version = 1  # type: ignore[union-attr]
    entry = kernel_types.entry_for(
        "example.custom", "Frobnicate", (1, [("X", "T")], [("Y", "T")], ["T"])
    )
    om.kernel_type_str_resolver = KernelTypeStrResolver([entry])
    buf = writer.to_bytes(om)
    with load(bytes(buf)) as back:
        assert back.kernel_type_str_resolver is not None
        got = back.kernel_type_str_resolver.op_kernel_type_str_args
        assert [e.op_id for e in got] == ["example.custom:Frobnicate:1"]
        assert [(a.arg_type, a.index) for a in got[0].kernel_type_str_args[0].args] == [
            (0, 0),
            (1, 0),
        ]


@pytest.mark.parametrize("alignment", [1, 8, 64, 4096])
def test_every_raw_data_is_aligned(tmp_path: Path, alignment: int) -> None:
    model = models.weights(300_000, tensors=5)
    model.graph.initializer.append(
        onnx.numpy_helper.from_array(np.arange(3, dtype=np.int64), "tiny")
    )
    path = tmp_path / f"a{alignment}.ort"
    writer.save(model, path, alignment=alignment, format_version=FORMAT_VERSION)
    buf = path.read_bytes()
    offsets = raw_data_offsets(buf)
    assert len(offsets) == 6
    assert all(off % alignment == 0 for off in offsets), offsets
    with load(path) as om:
        assert sorted(off for _, _, off, _ in payload_offsets(om)) == sorted(offsets)
    feeds = {"x": np.ones(15_000, np.float32)}
    assert same(run_ort(path, feeds), run_onnx(model, feeds))


def test_alignment_in_subgraphs_and_attributes(tmp_path: Path) -> None:
    model = models.features()
    path = tmp_path / "f.ort"
    writer.save(model, path, alignment=4096)
    offsets = raw_data_offsets(path.read_bytes())
    assert len(offsets) >= 4  # sparse values + indices, dense constant, subgraph constant
    assert all(off % 4096 == 0 for off in offsets)


def test_bad_alignment_is_rejected(tmp_path: Path) -> None:
    for bad in (0, 3, 48, 131072):
        with pytest.raises(ArgumentError, match="power of two"):
            writer.save(models.weights(100), tmp_path / "x.ort", alignment=bad)


def test_bad_alignment_is_one_error_in_every_writer(tmp_path: Path) -> None:
    # One check (wireplan.core.check_alignment), one error type: an ArgumentError, also a ValueError.
    from wireplan.ort.onnx.save import convert_ort_to_onnx

    src = tmp_path / "w.ort"
    writer.save(models.weights(100), src)
    for bad in (0, 3, -8, 2.0, True):
        with pytest.raises(ArgumentError, match=r"alignment must be a power of two") as one:
            writer.save(models.weights(100), tmp_path / "x.ort", alignment=bad)  # type: ignore[arg-type]
        with pytest.raises(ArgumentError, match=r"alignment must be a power of two") as two:
            convert_ort_to_onnx(src, tmp_path / "x.onnx", external_data=True, alignment=bad)  # type: ignore[arg-type]
        assert isinstance(one.value, ValueError) and isinstance(two.value, ValueError)
    assert not (tmp_path / "x.ort").exists() and not (tmp_path / "x.onnx").exists()


def test_serial_and_threaded_files_are_byte_identical(tmp_path: Path) -> None:
    model = models.weights(48 << 20, tensors=6)
    writer.save(model, tmp_path / "s.ort", alignment=4096, threads=1)
    writer.save(model, tmp_path / "t.ort", alignment=4096, threads=4)
    a = (tmp_path / "s.ort").read_bytes()
    b = (tmp_path / "t.ort").read_bytes()
    assert a == b
    assert bytes(writer.to_bytes(model, alignment=4096, threads=2)) == a


def test_external_data_source_and_progress(tmp_path: Path) -> None:
    model = models.weights(8 << 20, tensors=4)
    onnx.save(
        model,
        tmp_path / "ext.onnx",
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="ext.data",
        size_threshold=0,
    )
    seen: list[tuple[int, int]] = []
    writer.convert_onnx_to_ort(
        tmp_path / "ext.onnx",
        tmp_path / "ext.ort",
        progress=lambda d, t: seen.append((d, t)),
        format_version=FORMAT_VERSION,
    )
    assert seen[-1][0] == seen[-1][1] > 8 << 20
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    feeds = {"x": np.ones(1 << 19, np.float32)}
    assert same(run_ort(tmp_path / "ext.ort", feeds), run_onnx(tmp_path / "ext.onnx", feeds))


def test_failure_keeps_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "keep.ort"
    path.write_bytes(b"old contents")
    with pytest.raises(EncodeError):
        writer.save(models.unknown_op(), path)
    assert path.read_bytes() == b"old contents"

    def boom(done: int, total: int) -> None:
        if done:
            raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        writer.save(models.weights(1 << 20), path, progress=boom)
    assert path.read_bytes() == b"old contents"
    assert sorted(os.listdir(tmp_path)) == ["keep.ort"]


def test_past_two_gib_is_an_encode_error(tmp_path: Path) -> None:
    with load(bytes(writer.to_bytes(models.weights(1000, tensors=1)))) as om:
        t = om.graph.initializers[0]
        huge = np.broadcast_to(np.zeros(1, np.uint8), (2**31,))
        om.graph.initializers[0] = Tensor(
            name=t.name, dims=np.array([2**29], np.int64), data_type=1, raw_data=huge
        )
        with pytest.raises(EncodeError, match=r"2 GiB.*external_data=True"):
            writer.save(om, tmp_path / "big.ort")
    assert not (tmp_path / "big.ort").exists()


def test_onnx_to_ort_to_onnx_gives_the_original_outputs(tmp_path: Path) -> None:
    for model, feeds_list in [
        (models.features(), models.feature_feeds()),
        (models.many_nodes(50), [{"x": np.ones((2, 8), np.float32)}]),
    ]:
        writer.save(model, tmp_path / "r.ort")
        with load(tmp_path / "r.ort") as om:
            back = to_onnx(om)
        for feeds in feeds_list:
            assert same(run_onnx(back, feeds), run_onnx(model, feeds))


@pytest.mark.parametrize("level", ["basic", "extended"])
def test_onnxruntime_made_ort_load_save_runs(tmp_path: Path, level: str) -> None:
    """An .ort from onnxruntime's own writer -> load -> save: onnxruntime runs ours the same."""
    model = models.contrib() if level == "extended" else models.features()
    feeds_list = (
        [{"x": np.ones((2, 4), np.float32)}] if level == "extended" else models.feature_feeds()
    )
    src = tmp_path / "theirs.ort"
    so = ort.SessionOptions()
    so.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        if level == "extended"
        else ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    )
    so.optimized_model_filepath = str(src)
    so.add_session_config_entry("session.save_model_format", "ORT")
    ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    with load(src) as om:
        writer.save(om, tmp_path / "ours.ort", alignment=64, format_version=FORMAT_VERSION)
        theirs_resolver = om.kernel_type_str_resolver
        assert theirs_resolver is not None
        # Our schema-derived entries equal onnxruntime's for every op the graph uses.
        if peer.EXPORTS_SCHEMAS or level == "basic":
            ours = kernel_types.resolver_for(om, carried=KernelTypeStrResolver(), fill_nodes=False)
        else:  # no schema source for its com.microsoft ops: the carried entries serve (above)
            with pytest.raises(EncodeError, match=r"com\.microsoft:"):
                kernel_types.resolver_for(om, carried=KernelTypeStrResolver(), fill_nodes=False)
            ours = KernelTypeStrResolver()
    theirs = {e.op_id: e for e in theirs_resolver.op_kernel_type_str_args}
    for e in ours.op_kernel_type_str_args:
        assert e.op_id in theirs
        want = {
            k.kernel_type_str: [(a.arg_type, a.index) for a in k.args]
            for k in theirs[e.op_id].kernel_type_str_args
        }
        got = {
            k.kernel_type_str: [(a.arg_type, a.index) for a in k.args]
            for k in e.kernel_type_str_args
        }
        assert got == want, e.op_id
    for feeds in feeds_list:
        assert same(run_ort(tmp_path / "ours.ort", feeds), run_ort(src, feeds))
    assert all(off % 64 == 0 for off in raw_data_offsets((tmp_path / "ours.ort").read_bytes()))


def test_many_nodes(tmp_path: Path) -> None:
    model = models.many_nodes(3000)
    writer.save(model, tmp_path / "many.ort", format_version=FORMAT_VERSION)
    feeds = {"x": np.ones((4, 8), np.float32)}
    assert same(run_ort(tmp_path / "many.ort", feeds), run_onnx(model, feeds))
    with load(tmp_path / "many.ort") as om:
        assert len(om.graph.nodes) == 3000


def _plain(v: Any) -> Any:
    """A type table (object or view) as nested tuples of its fields."""
    if v is None or isinstance(v, (int, str)):
        return v
    if isinstance(v, list) or type(v).__name__ == "TableList":
        return tuple(_plain(x) for x in v)
    fields = [name for name in v.__slots__ if not name.startswith("_")]
    return (type(v).__name__.removesuffix("View"), *[(f, _plain(getattr(v, f))) for f in fields])


def test_types_packed_once_and_copied_read_back_as_given() -> None:
    """Values of a few recurring types (dim params, denotations, unknown dims, no shape, a
    sequence): the builder copies the recurring ones; each reads back as it was given."""
    from onnx import TensorProto as TP
    from onnx import helper as h

    from wireplan.ort.encoder import type_key
    from wireplan.ort.onnx.read import from_onnx

    kinds = [
        h.make_tensor_value_info("", TP.FLOAT, ["N", 3, 64, 64]),
        h.make_tensor_value_info("", TP.FLOAT, [1, 3, 64, 64]),
        h.make_tensor_value_info("", TP.FLOAT, [1, 3, 32, 32]),
        h.make_tensor_value_info("", TP.INT64, None),
        h.make_tensor_value_info("", TP.FLOAT, [None, "T"]),
        h.make_tensor_value_info("", TP.FLOAT, []),
    ]
    kinds[0].type.tensor_type.shape.dim[1].denotation = "DATA_CHANNEL"
    kinds[1].type.denotation = "TENSOR"
    nodes, infos, prev = [], [], "x"
    for i in range(40):
        info = onnx.ValueInfoProto()
        info.CopyFrom(kinds[i * 7 % len(kinds)])
        info.name = "v" * (i % 9 + 1) + str(i)  # names of every length: every position mod 8
        nodes.append(h.make_node("Identity", [prev], [info.name]))
        infos.append(info)
        prev = info.name
    graph = h.make_graph(
        nodes,
        "g",
        [h.make_tensor_value_info("x", TP.FLOAT, None)],
        [h.make_tensor_value_info(prev, TP.FLOAT, None)],
        value_info=infos,
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    model.ir_version = 8
    given = from_onnx(model)
    want = {v.name: _plain(v.type) for v in given.graph.node_args}
    keys = {type_key(v.type) for v in given.graph.node_args}
    assert None not in keys and len(keys) == len(kinds) + 1  # x and the last: no shape
    with load(bytes(wireplan.ort.to_bytes(model))) as om:
        assert {v.name: _plain(v.type) for v in om.graph.node_args} == want
    assert type_key(None) is None and type_key(given) is None


def test_session_options() -> None:
    with pytest.raises(ArgumentError, match="crashes"):
        session("x.ort", config={"session.use_ort_model_bytes_directly": "1"})
    with pytest.raises(ArgumentError, match="no option"):
        session("x.ort", not_an_option=1)
    with pytest.raises(PeerError, match="could not load"):
        session("/nonexistent/x.ort")
    with pytest.raises(ArgumentError, match="cannot read the onnxruntime version"):
        release_of("one.two")
    assert release_of("1.20.1") == (1, 20)


def test_contrib_signature_shape() -> None:
    sig = contrib_op_signature("com.microsoft", "FusedConv", 1)
    if peer.EXPORTS_SCHEMAS:
        assert sig is not None
        since, inputs, outputs, params = sig
        assert since == 1 and inputs[0] == ("X", "T") and outputs == [("Y", "T")]
        assert params == ["T"]
    else:  # onnxruntime 1.15 and older: no schemas to read
        assert sig is None
    assert contrib_op_signature("com.microsoft", "NoSuchOp", 1) is None
    reshape = kernel_types.signature("", "Reshape", 14)
    assert reshape is not None
    entry = kernel_types.entry_for("", "Reshape", reshape)
    assert entry.op_id == ":Reshape:14"
    got = {
        k.kernel_type_str: [(a.arg_type, a.index) for a in k.args]
        for k in entry.kernel_type_str_args
    }
    assert got == {"T": [(0, 0), (1, 0)], "shape": [(0, 1)]}


def test_writer_accepts_paths_protos_and_models(tmp_path: Path) -> None:
    model = models.weights(1000)
    onnx.save(model, tmp_path / "w.onnx")
    a = bytes(writer.to_bytes(model))
    b = bytes(writer.to_bytes(str(tmp_path / "w.onnx")))
    with load(a) as om:
        assert isinstance(om, OrtModel)
        c = bytes(writer.to_bytes(om))
    assert a == b == c


def test_bad_arguments_are_argument_errors(tmp_path: Path) -> None:
    with pytest.raises(ArgumentError, match=r"expected an onnx\.ModelProto"):
        writer.save(42, tmp_path / "x.ort")
    with pytest.raises(ArgumentError, match="threads"):
        writer.save(models.weights(100), tmp_path / "x.ort", threads=0)
    with pytest.raises(ArgumentError, match="size_threshold"):
        writer.to_bytes(models.weights(100), size_threshold=-1)
    with pytest.raises(ArgumentError, match="reuse_data=True needs external_data=True"):
        writer.save(models.weights(100), tmp_path / "x.ort", reuse_data=True)
    with pytest.raises(ArgumentError, match="encode cannot write external data"):
        writer.to_bytes(models.weights(100), external_data=True)
    assert os.listdir(tmp_path) == []


def test_encode_and_decode_are_the_in_memory_verbs() -> None:
    """``encode`` is ``to_bytes`` under the verb the other wings use; ``decode`` reads those
    bytes back as ``load`` does, and refuses a path (that is ``load``'s)."""
    model = models.weights(4096)
    data = wireplan.ort.encode(model, threads=1)
    assert wireplan.ort.to_bytes is wireplan.ort.encode
    back = wireplan.ort.decode(data, copy=True)
    assert bytes(wireplan.ort.encode(back, threads=1)) == bytes(data)
    with pytest.raises(ArgumentError, match="use load"):
        wireplan.ort.decode("model.ort")
    with pytest.raises(DecodeError):
        wireplan.ort.decode(b"not an ort file at all")
