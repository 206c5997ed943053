"""wireplan.ort.load on .ort files written by onnxruntime: fields, zero copy, copies, lifetime, checks."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from wireplan import ArgumentError, DecodeError, LimitError
from wireplan.flatbuffers.lazy import TableList
from wireplan.flatbuffers.reader import TableReader
from wireplan.ort import OrtModel, load, to_onnx
from wireplan.ort.model import SequenceType, TensorTypeAndShape
from wireplan.ort.reader import payload_offsets, tensor_paths
from wireplan.ort.schema import DIMENSION_VALUE_TYPE, ORT_SCHEMA, TENSOR_DATA_TYPE


def locate(buf: Any, path: list[str | int]) -> int:
    """The position of the object at ``path`` (field names and vector indices) from the root."""
    r = TableReader(ORT_SCHEMA, buf)
    pos = r.root_position(b"ORTM")
    table = "InferenceSession"
    for step in path:
        if isinstance(step, int):
            pos = r.follow(pos + 4 + 4 * step)
            continue
        at = r.field_position(table, pos, step)
        assert at is not None, step
        pos = r.follow(at)
        ftype = ORT_SCHEMA.tables[table].field(step).type
        target = ftype.element if ftype.kind == "vector" else ftype
        assert target is not None
        table = target.name
    return pos


def graph_fields(model: OrtModel) -> dict[str, Any]:
    g = model.graph
    return {f.name: getattr(g, f.name) for f in dataclasses.fields(g)}


def test_reads_every_part(feature_ort: Path) -> None:
    from ort_write import peer

    with load(feature_ort) as om:
        # onnxruntime writes the newest format it loads: 5 up to 1.15, 6 from 1.16 on.
        assert om.ort_version == str(peer.FORMAT_VERSION)
        assert om.ir_version == 8
        assert om.producer_name == "wireplan-tests" and om.producer_version == "1.2"
        assert om.doc_string == "model doc"
        assert om.model is not None and om.model.graph_doc_string == "graph doc"
        assert om.model.domain == "org.wireplan" and om.model.model_version == 3
        assert om.metadata_props == {"author": "tests", "purpose": "features"}
        assert om.opset_imports[""] == 17
        g = om.graph
        assert g.inputs == ["x", "c"]
        assert g.outputs == ["if_out", "labels_out", "seq", "cat"]
        ops = [n.op_type for n in g.nodes]
        assert ops == ["MatMul", "Add", "If", "SequenceConstruct", "Concat"]
        assert g.nodes[0].doc_string == "x times w" and g.nodes[0].name == "matmul"
        # Subgraphs and implicit inputs.
        branch = g.nodes[2]
        assert branch.implicit_inputs == ["a"]
        names = sorted(a.name for a in branch.attributes)
        assert names == ["else_branch", "then_branch"]
        then_g = next(a.g for a in branch.attributes if a.name == "then_branch")
        assert then_g is not None and [n.op_type for n in then_g.nodes] == ["Relu"]
        # Variadic input counts and edges.
        assert list(g.nodes[4].input_arg_counts) == [3]
        edges = {e.node_index: e for e in g.node_edges}
        add = g.nodes[1]
        assert {
            (x.node_index, x.src_arg_index, x.dst_arg_index) for x in edges[add.index].input_edges
        } == {(g.nodes[0].index, 0, 0)}
        # Initializers: numeric, string (folded Identity), sparse.
        inits = {t.name: t for t in g.initializers}
        assert inits["w"].numpy().shape == (4, 4) and inits["w"].numpy().dtype == np.float32
        labels = inits["labels_out"]
        assert labels.data_type == TENSOR_DATA_TYPE["STRING"]
        assert labels.string_data == ["alpha", "b\u00e9ta"]
        assert labels.numpy().tolist() == ["alpha", "b\u00e9ta"]
        (sp,) = g.sparse_initializers
        assert sp.values is not None and sp.indices is not None
        assert sp.values.numpy().tolist() == [1.5, -2.0]
        assert sp.indices.numpy().tolist() == [1, 3]
        assert list(sp.dims) == [4]
        # Value infos: dim_param and sequences.
        infos = {vi.name: vi for vi in g.node_args}
        x_type = infos["x"].type
        assert x_type is not None and isinstance(x_type.value, TensorTypeAndShape)
        assert x_type.value.shape is not None
        dims = [d.value for d in x_type.value.shape.dim]
        assert dims[0] is not None and dims[0].dim_type == DIMENSION_VALUE_TYPE["PARAM"]
        assert dims[0].dim_param == "N"
        assert dims[1] is not None and dims[1].dim_value == 4
        seq_type = infos["seq"].type
        assert seq_type is not None and isinstance(seq_type.value, SequenceType)
        # The kernel type string resolver is sorted by its key, as onnxruntime writes it.
        kr = om.kernel_type_str_resolver
        assert kr is not None
        ids = [e.op_id for e in kr.op_kernel_type_str_args]
        assert ids == sorted(ids) and ":MatMul:13" in ids
        assert om.session_state is None


def test_path_and_bytes_agree(feature_ort: Path) -> None:
    data = feature_ort.read_bytes()
    with load(feature_ort) as a, load(data) as b, load(bytearray(data)) as c:
        pa = to_onnx(a).SerializeToString()
        assert pa == to_onnx(b).SerializeToString() == to_onnx(c).SerializeToString()


def test_zero_copy_views_share_the_mapping(weights_ort: Path) -> None:
    with load(weights_ort) as om:
        mapping = np.frombuffer(om.source.buffer, dtype=np.uint8)
        tensors = [t for _, t in tensor_paths(om)]
        assert len(tensors) == 4
        for t in tensors:
            assert np.shares_memory(t.raw_data, mapping)
            assert not t.raw_data.flags.writeable
            assert np.shares_memory(t.numpy(), mapping)
        # The node attribute and dims vectors are views too.
        assert all(np.shares_memory(t.dims, mapping) for t in tensors)


def test_payload_offsets_point_at_the_payload(weights_ort: Path) -> None:
    data = weights_ort.read_bytes()
    with load(weights_ort) as om:
        offsets = payload_offsets(om)
        assert len(offsets) == 4
        by_name = {t.name: t for t in om.graph.initializers}
        for path, name, off, n in offsets:
            assert path.startswith("$.model.graph.initializers[")
            assert data[off : off + n] == by_name[name].raw_data.tobytes()
            # The 4-byte length before the payload.
            assert int.from_bytes(data[off - 4 : off], "little") == n


def test_payload_offsets_need_an_open_zero_copy_model(weights_ort: Path) -> None:
    with pytest.raises(ArgumentError, match="copy=False and not closed"):
        payload_offsets(load(weights_ort, copy=True))
    with load(weights_ort) as om:
        t = next(t for t in om.graph.initializers if t.nbytes)
        t.raw_data = t.raw_data.copy()
        with pytest.raises(ArgumentError, match="does not view this model's source"):
            payload_offsets(om)


def test_copy_owns_its_arrays_and_threads_are_byte_identical(weights_ort: Path) -> None:
    with load(weights_ort) as view:
        expected = [t.raw_data.tobytes() for t in view.graph.initializers]
    serial = load(weights_ort, copy=True, threads=1)
    threaded = load(weights_ort, copy=True, threads=2)
    for om in (serial, threaded):
        assert om.source is None and om.closed
        got = [t.raw_data.tobytes() for t in om.graph.initializers]
        assert got == expected
        for t in om.graph.initializers:
            assert t.raw_data.base is None or not isinstance(t.raw_data.base, memoryview)
            assert t.raw_data.flags.owndata or t.raw_data.base is not None
    mapping_free = [t.raw_data for t in threaded.graph.initializers]
    with load(weights_ort) as again:
        mm = np.frombuffer(again.source.buffer, dtype=np.uint8)
        assert not any(np.shares_memory(a, mm) for a in mapping_free)


def test_copy_from_bytes_does_not_keep_the_source(weights_ort: Path) -> None:
    data = bytearray(weights_ort.read_bytes())
    expected = {t.name: t.numpy().copy() for t in load(bytes(data)).graph.initializers}
    om = load(data, copy=True)
    data[:] = b"\0" * len(data)  # the model does not look at the buffer any more
    for t in om.graph.initializers:
        assert np.array_equal(t.numpy(), expected[t.name])


def test_arrays_outlive_close(weights_ort: Path) -> None:
    om = load(weights_ort)
    arr = om.graph.initializers[0].numpy()
    before = arr.copy()
    om.close()
    assert om.closed
    om.close()  # idempotent
    assert np.array_equal(arr, before) and before.any()  # still readable, still the weights


def test_vectors_of_tables_are_decoded_on_first_use(feature_ort: Path) -> None:
    eager = load(feature_ort, copy=True)
    om = load(feature_ort)
    g = om.graph
    assert isinstance(g.node_args, TableList) and isinstance(eager.graph.node_args, list)
    for t in g.initializers:  # what a reader of the weights touches
        t.raw_data.tobytes()
    assert g.initializers.decoded
    assert not g.node_args.decoded and not g.node_edges.decoded and not g.nodes.decoded
    assert len(g.node_args) == len(eager.graph.node_args) and not g.node_args.decoded
    om.close()  # lists not yet decoded still read the mapping they keep alive
    assert to_onnx(om).SerializeToString() == to_onnx(eager).SerializeToString()
    assert g.node_args.decoded and [v.name for v in g.node_args] == [
        v.name for v in eager.graph.node_args
    ]


def test_tensors_decode_only_the_nodes_that_hold_them(feature_ort: Path) -> None:
    """Verified on access, ``tensors()`` and ``graphs()`` find attribute tensors and subgraphs
    from the vtables: they decode the nodes that have them, the same objects a full read
    gives, and the same tensors as an eager read."""
    eager = load(feature_ort, copy=True)
    with load(feature_ort) as om:
        nodes = om.graph.nodes
        found = list(om.tensors())
        graphs = list(om.graphs())
        assert isinstance(nodes, TableList) and not nodes.decoded
        holders = [
            i for i, n in enumerate(eager.graph.nodes)
            if any(a.t is not None or a.tensors or a.g is not None or a.graphs
                   for a in n.attributes)
        ]  # fmt: skip
        assert (
            holders and nodes.candidates("attributes", ("t", "tensors", "g", "graphs")) == holders
        )
        assert len(holders) < len(nodes)
        assert [t.name for t in found] == [t.name for t in eager.tensors()]
        assert len(graphs) == len(list(eager.graphs())) > 1
        full = [t for _, t in tensor_paths(om)]  # now every node decoded: still the same objects
        assert list(map(id, full)) == list(map(id, found))
        assert to_onnx(om).SerializeToString() == to_onnx(eager).SerializeToString()


def test_verify_is_access_or_all(feature_ort: Path) -> None:
    with load(feature_ort, verify="all") as om:
        assert [t.name for t in om.tensors()] == [t.name for t in load(feature_ort).tensors()]
    with pytest.raises(ArgumentError, match="verify is one of 'access', 'all'"):
        load(feature_ort, verify="lazy")


def test_context_manager_closes(feature_ort: Path) -> None:
    with load(feature_ort) as om:
        assert not om.closed
    assert om.closed


def test_version_7_is_rejected_with_its_offset(feature_ort: Path) -> None:
    from ort_write import peer

    data = bytearray(feature_ort.read_bytes())
    pos = locate(data, ["ort_version"])
    assert data[pos : pos + 6] == b"\x01\x00\x00\x00" + str(peer.FORMAT_VERSION).encode() + b"\x00"
    data[pos + 4] = ord("7")
    with pytest.raises(DecodeError) as info:
        load(bytes(data))
    assert info.value.offset == pos and info.value.path == "$.ort_version"
    assert "'7'" in str(info.value)


@pytest.mark.parametrize("version", ["1", "4", "5"])
def test_older_versions_are_accepted(feature_ort: Path, version: str) -> None:
    data = bytearray(feature_ort.read_bytes())
    pos = locate(data, ["ort_version"])
    data[pos + 4] = ord(version)
    assert load(bytes(data)).ort_version == version


def test_identifier_is_checked(feature_ort: Path) -> None:
    data = bytearray(feature_ort.read_bytes())
    data[4:8] = b"ORTX"
    with pytest.raises(DecodeError) as info:
        load(bytes(data))
    assert info.value.offset == 4


def test_an_onnx_model_is_named_as_such(feature_ort: Path, tmp_path: Path) -> None:
    """``load`` of an .onnx said only that its identifier was not "ORTM"."""
    from wireplan.ort import from_onnx

    with load(feature_ort) as om:
        onnx_bytes = to_onnx(om).SerializeToString()
    path = tmp_path / "m.onnx"
    path.write_bytes(onnx_bytes)
    for source in (path, onnx_bytes):
        with pytest.raises(DecodeError) as info:
            load(source)
        assert info.value.offset == 4
        assert "an .onnx model, not an .ort (read it with from_onnx" in str(info.value)
    with from_onnx(path) as om:  # what the message says works
        assert om.graph.nodes
    with pytest.raises(DecodeError) as info:  # other bytes: the identifier alone
        load(b"\x10\0\0\0ORTX" + b"\0" * 40)
    assert str(info.value) == "at byte 4: file identifier is b'ORTX', expected b'ORTM'"


def test_errors_name_the_path(feature_ort: Path) -> None:
    data = bytearray(feature_ort.read_bytes())
    name_at = locate(data, ["model", "graph", "nodes", 2, "name"])
    data[name_at : name_at + 4] = (0x7FFFFFF0).to_bytes(4, "little")
    om = load(bytes(data))  # verified on access: nothing reads the nodes yet
    node = om.graph.nodes[2]  # a view: its fields are checked as they are read
    assert node.op_type
    with pytest.raises(LimitError) as info:
        _ = node.name
    assert info.value.path == "$.model.graph.nodes[2].name"
    assert info.value.offset == name_at


def test_error_inside_a_subgraph(feature_ort: Path) -> None:
    data = bytearray(feature_ort.read_bytes())
    with load(bytes(data)) as om:
        branch = om.graph.nodes[2]
        k = next(i for i, a in enumerate(branch.attributes) if a.g is not None)
    at = locate(data, ["model", "graph", "nodes", 2, "attributes", k, "g", "nodes", 0, "op_type"])
    data[at + 4] = 0xFF  # not UTF-8
    with pytest.raises(DecodeError) as info:
        load(bytes(data), verify="all")
    assert info.value.path == f"$.model.graph.nodes[2].attributes[{k}].g.nodes[0].op_type"
    assert info.value.offset == at + 4
    # Verified on access: the same error, once the subgraph's node's op_type is read.
    om = load(bytes(data))
    node = om.graph.nodes[2].attributes[k].g.nodes[0]
    with pytest.raises(DecodeError) as late:
        _ = node.op_type
    assert (late.value.offset, late.value.path) == (info.value.offset, info.value.path)


def test_graph_fields_are_all_present(feature_ort: Path) -> None:
    with load(feature_ort) as om:
        fields = graph_fields(om)
    assert set(fields) == {f.name for f in ORT_SCHEMA.tables["Graph"].fields}


def test_runtime_optimization_records(tmp_path: Path) -> None:
    """onnxruntime's "runtime" optimization style stores records instead of fusing."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    w = numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "w")
    b = numpy_helper.from_array(np.zeros(4, np.float32), "b")
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c"], ["y"]),
        ],
        "cr",
        [x],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
        initializer=[w, b],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    so.optimized_model_filepath = str(tmp_path / "rt.ort")
    so.add_session_config_entry("session.save_model_format", "ORT")
    so.add_session_config_entry("optimization.minimal_build_optimizations", "save")
    so.log_severity_level = 3
    ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    with load(tmp_path / "rt.ort") as om:
        assert [n.op_type for n in om.graph.nodes] == ["Conv", "Relu"]
        ro = om.graph.runtime_optimizations
        assert ro is not None
        (entry,) = ro.records
        assert entry.optimizer_name == "ConvActivationFusion"
        (record,) = entry.runtime_optimization_records
        assert record.action_id == "ConvAct"
        assert record.produced_op_ids == ["com.microsoft:FusedConv:1"]
        assert record.nodes_to_optimize_indices is not None
        assert record.nodes_to_optimize_indices.node_indices.tolist() == [0, 1]
        assert record.produced_nodes is None
