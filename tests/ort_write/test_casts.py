"""float16 Casts: what onnxruntime inserts for an .onnx, the writer inserts into the .ort.

Oracles: onnxruntime running the .onnx (outputs compared exactly) and the
.ort onnxruntime itself saves after its InsertCastTransformer (the Casts
compared by what they read, write and cast to).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnx.helper as h
import onnx.numpy_helper as nh
import onnxruntime as ort
import pytest

from ort_write import corpus, peer
from ort_write.test_writer import run_onnx, run_ort
from wireplan.errors import MissingExtraError, PeerError
from wireplan.ort import casts, kernel_types, kernels, writer
from wireplan.ort import onnxruntime_door as door
from wireplan.ort.model import Node, OrtModel
from wireplan.ort.onnx import expand
from wireplan.ort.onnx.read import from_onnx
from wireplan.ort.reader import load
from wireplan.ort.sessions import session

F16 = onnx.TensorProto.FLOAT16

#: The node cases that failed to load from our .ort before the Casts ("Could not find an
#: implementation for Mul(14)" / Pad(25) / QLinearMatMul(21)).
FLOAT16_CASES = {
    "test_attention_4d_fp16_expanded",
    "test_attention_4d_gqa_with_past_and_present_fp16_expanded",
    "test_attention_4d_causal_fp16_expanded",
    "test_attention_4d_gqa_causal_nonpad_decode_fp16_expanded",
    "test_attention_24_qk_matmul_output_mode3_softmax_precision_expanded",
    "test_attention_local_window_ext_cache_float16_mask_expanded",
    "test_flexattention_fp16_expanded_ver26",
    "test_qlinearmatmul_2D_uint8_float16",
    "test_qlinearmatmul_3D_uint8_float16",
    "test_qlinearmatmul_2D_int8_float16",
    "test_qlinearmatmul_3D_int8_float16",
}


@pytest.fixture(scope="module")
def float16_cases() -> dict[str, corpus.Case]:
    return {c.name: c for c in corpus.node_cases() if c.name in FLOAT16_CASES}


def onnxruntime_saved(model: onnx.ModelProto, tmp_path: Path) -> OrtModel:
    """The .ort onnxruntime writes for ``model`` after its own Cast insertion (no optimizers)."""
    src = tmp_path / "oracle.onnx"
    dst = tmp_path / "oracle.ort"
    onnx.save(model, os.fspath(src))
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    opts.optimized_model_filepath = os.fspath(dst)
    opts.log_severity_level = 4
    opts.add_session_config_entry("session.save_model_format", "ORT")
    ort.InferenceSession(os.fspath(src), opts, providers=["CPUExecutionProvider"])
    return load(dst, copy=True)


def _to(node: Node) -> int:
    return next(int(a.i) for a in node.attributes if a.name == "to")


def _plain(name: str) -> str:
    # onnxruntime 1.15 names an inserted Cast's value InsertedCast_<value>, later releases (and
    # the writer) InsertedPrecisionFreeCast_<value>: the name is all that differs.
    name = re.sub(r"^InsertedCast_", "InsertedPrecisionFreeCast_", name)
    return re.sub(r"_token_\d+$", "", name)


def cast_nodes(graph: Any) -> set[tuple[str, str, int]]:
    """(read, written, to) of every Cast of a graph, unique-name suffixes dropped."""
    return {
        (_plain(n.inputs[0]), _plain(n.outputs[0]), _to(n))
        for n in graph.nodes
        if n.op_type == "Cast"
    }


def _tensor_types(graph: Any) -> dict[str, int]:
    out = {}
    for vi in graph.node_args:
        v = vi.type.value if vi.type is not None else None
        if v is not None and hasattr(v, "elem_type"):
            out[vi.name] = v.elem_type
    return out


#: The opset of the small models, so that every supported release runs them: onnxruntime 1.15
#: knows opset 19 but has no kernels for Cast-19 and If-19.
OPSET = 18

# --- models ----------------------------------------------------------------------------------


def chain() -> onnx.ModelProto:
    """Mul (no float16 kernel) -> Transpose (float16 kernel, between converted nodes) -> Add.

    A second Transpose reads the graph input directly, so it stays float16.
    """
    nodes = [
        h.make_node("Mul", ["x", "x"], ["a"]),
        h.make_node("Transpose", ["a"], ["b"], perm=[1, 0]),
        h.make_node("Transpose", ["x"], ["c"], perm=[1, 0]),
        h.make_node("Add", ["b", "c"], ["y"]),
    ]
    graph = h.make_graph(
        nodes,
        "chain",
        [h.make_tensor_value_info("x", F16, [2, 3])],
        [h.make_tensor_value_info("y", F16, [3, 2])],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", OPSET)], ir_version=9)


def in_subgraph() -> onnx.ModelProto:
    """If whose branches compute on an outer float16 value with ops lacking float16 kernels."""
    then = h.make_graph(
        [h.make_node("Mul", ["x", "x"], ["t"])],
        "then",
        [],
        [h.make_tensor_value_info("t", F16, [3])],
    )
    other = h.make_graph(
        [h.make_node("Neg", ["x"], ["e"])],
        "else",
        [],
        [h.make_tensor_value_info("e", F16, [3])],
    )
    graph = h.make_graph(
        [h.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)],
        "sub",
        [
            h.make_tensor_value_info("c", onnx.TensorProto.BOOL, []),
            h.make_tensor_value_info("x", F16, [3]),
        ],
        [h.make_tensor_value_info("y", F16, [3])],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", OPSET)], ir_version=9)


def eye_like() -> onnx.ModelProto:
    """EyeLike has no float16 kernel; its ``dtype`` attribute says FLOAT16 too."""
    graph = h.make_graph(
        [h.make_node("EyeLike", ["x"], ["y"], dtype=F16, k=1)],
        "eye",
        [h.make_tensor_value_info("x", F16, [3, 4])],
        [h.make_tensor_value_info("y", F16, [3, 4])],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", OPSET)], ir_version=9)


def float32_only() -> onnx.ModelProto:
    w = nh.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w")
    graph = h.make_graph(
        [h.make_node("Mul", ["x", "w"], ["y"])],
        "f32",
        [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3])],
        [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 3])],
        initializer=[w],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", OPSET)], ir_version=9)


def _f16(shape: tuple[int, ...], seed: int = 0) -> np.ndarray[Any, np.dtype[np.float16]]:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float16)


# --- the corpus cases ------------------------------------------------------------------------


def _newest() -> bool:
    """onnxruntime 1.31 or later: runs every case of onnx 1.23's corpus named here."""
    return door.release_of() >= (1, 31)


def _runs(model: onnx.ModelProto) -> bool:
    """Whether the installed onnxruntime runs ``model`` from the .onnx (creates a session)."""
    try:
        ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception:
        return False
    return True


def test_float16_corpus_cases_load_and_match_the_onnx_run(
    float16_cases: dict[str, corpus.Case], tmp_path: Path
) -> None:
    outcomes = {c.name: corpus.run_case(c, tmp_path).status for c in float16_cases.values()}
    assert set(outcomes.values()) <= {"identical", "onnx-not-runnable"}
    if _newest():  # older releases (and onnx builds) lack these opsets or cases
        assert outcomes == {name: "identical" for name in FLOAT16_CASES}


@pytest.mark.parametrize("name", sorted(FLOAT16_CASES))
def test_casts_are_the_ones_onnxruntime_inserts(
    float16_cases: dict[str, corpus.Case], name: str, tmp_path: Path
) -> None:
    """Same Casts as onnxruntime's saved graph: only float16 arguments (QLinearMatMul: its scales)."""
    if not _newest() and (name not in float16_cases or not _runs(float16_cases[name].model)):
        return  # a case this release does not run from the .onnx: no oracle
    model = float16_cases[name].model
    with load(writer.to_bytes(model)) as ours:
        oracle = onnxruntime_saved(model, tmp_path)
        assert cast_nodes(ours.graph) == cast_nodes(oracle.graph)
        if name.startswith("test_qlinearmatmul"):
            (q,) = (n for n in ours.graph.nodes if n.op_type == "QLinearMatMul")
            types = _tensor_types(ours.graph)
            assert [types[x] == 1 for x in q.inputs] == [False, True, False] * 2 + [True, False]
        # Cast at the model's opset, as onnxruntime resolves it, and in the resolver.
        versions = {n.since_version for n in ours.graph.nodes if n.op_type == "Cast"}
        assert versions == {n.since_version for n in oracle.graph.nodes if n.op_type == "Cast"}
        resolver = ours.kernel_type_str_resolver
        assert resolver is not None
        ids = {e.op_id for e in resolver.op_kernel_type_str_args}
        assert {f":Cast:{v}" for v in versions} <= ids


# --- small models ----------------------------------------------------------------------------


def test_chain_runs_in_float32_between_two_casts(tmp_path: Path) -> None:
    model = chain()
    path = tmp_path / "chain.ort"
    writer.save(model, path, format_version=peer.FORMAT_VERSION)
    feeds = {"x": _f16((2, 3))}
    assert corpus.same(run_ort(path, feeds), run_onnx(model, feeds))
    with load(path) as om:
        g = om.graph
        assert cast_nodes(g) == cast_nodes(onnxruntime_saved(model, tmp_path).graph)
        assert cast_nodes(g) == {
            ("x", "InsertedPrecisionFreeCast_x", 1),
            ("c", "InsertedPrecisionFreeCast_c", 1),
            ("InsertedPrecisionFreeCast_y", "y", 10),
        }
        types = _tensor_types(g)
        (mul,) = (n for n in g.nodes if n.op_type == "Mul")
        first = next(n for n in g.nodes if n.op_type == "Transpose" and n.inputs != ["x"])
        assert types[mul.outputs[0]] == 1 and first.inputs == mul.outputs  # no Cast pair between
        assert types[first.outputs[0]] == 1
        second = next(n for n in g.nodes if n.inputs == ["x"] and n.op_type == "Transpose")
        assert types[second.outputs[0]] == F16  # fed by the graph input: stays float16
        # Indices, edges and node_args stay consistent.
        indices = [n.index for n in g.nodes]
        assert len(set(indices)) == len(indices) and g.max_node_index > max(indices)
        assert {e.node_index for e in g.node_edges} == set(indices)
        named = {vi.name for vi in g.node_args}
        assert {x for n in g.nodes for x in (*n.inputs, *n.outputs)} <= named


def test_casts_inside_subgraphs(tmp_path: Path) -> None:
    model = in_subgraph()
    path = tmp_path / "sub.ort"
    writer.save(model, path, format_version=peer.FORMAT_VERSION)
    x = _f16((3,), seed=1)
    for c in (True, False):
        feeds = {"c": np.array(c), "x": x}
        assert corpus.same(run_ort(path, feeds), run_onnx(model, feeds))
    oracle = onnxruntime_saved(model, tmp_path)
    with load(path) as om:
        (node,) = om.graph.nodes
        (want,) = oracle.graph.nodes
        ours = {a.name: cast_nodes(a.g) for a in node.attributes if a.g is not None}
        theirs = {a.name: cast_nodes(a.g) for a in want.attributes if a.g is not None}
        assert ours == theirs
        assert ours["then_branch"] == {
            ("x", "InsertedPrecisionFreeCast_x", 1),
            ("InsertedPrecisionFreeCast_t", "t", 10),
        }
        assert cast_nodes(om.graph) == set()  # If itself has a subgraph: never cast


def test_dtype_attribute_follows_the_node_to_float32(tmp_path: Path) -> None:
    model = eye_like()
    path = tmp_path / "eye.ort"
    writer.save(model, path, format_version=peer.FORMAT_VERSION)
    feeds = {"x": _f16((3, 4))}
    assert corpus.same(run_ort(path, feeds), run_onnx(model, feeds))
    with load(path) as om:
        (eye,) = (n for n in om.graph.nodes if n.op_type == "EyeLike")
        assert {a.name: int(a.i) for a in eye.attributes}["dtype"] == 1


def test_option_off_leaves_the_graph_as_it_is(tmp_path: Path) -> None:
    model = chain()

    def shape(graph: Any) -> list[tuple[str, list[str], list[str]]]:
        return [(n.op_type, list(n.inputs), list(n.outputs)) for n in graph.nodes]

    with from_onnx(model) as source:
        expected = shape(source.graph)
        arg_names = [vi.name for vi in source.graph.node_args]
    path = tmp_path / "off.ort"
    writer.save(model, path, float16_casts=False)
    with load(path) as om:
        assert shape(om.graph) == expected
        assert [vi.name for vi in om.graph.node_args] == arg_names
    loadable = tmp_path / "off-loadable.ort"  # in the format the installed onnxruntime loads
    writer.save(model, loadable, float16_casts=False, format_version=peer.FORMAT_VERSION)
    with pytest.raises(PeerError, match=r"Could not find an implementation for Mul\(14\)"):
        session(loadable)
    # The option also reaches to_bytes and convert.
    assert writer.to_bytes(model, float16_casts=False) == bytearray(path.read_bytes())
    onnx.save(model, os.fspath(tmp_path / "m.onnx"))
    writer.convert_onnx_to_ort(tmp_path / "m.onnx", tmp_path / "c.ort", float16_casts=False)
    assert (tmp_path / "c.ort").read_bytes() == path.read_bytes()
    writer.convert_onnx_to_ort(tmp_path / "m.onnx", tmp_path / "on.ort")
    assert (tmp_path / "on.ort").read_bytes() == bytes(writer.to_bytes(model, float16_casts=True))
    # and the CLI, both ways
    from wireplan.cli import main

    none = ["--optimization", "none"]  # the writer's own graph, not onnxruntime's optimized one
    assert main(["convert", str(tmp_path / "m.onnx"), str(tmp_path / "cli.ort"), *none]) == 0
    assert (tmp_path / "cli.ort").read_bytes() == (tmp_path / "on.ort").read_bytes()
    args = [
        "convert",
        str(tmp_path / "m.onnx"),
        str(tmp_path / "cli-off.ort"),
        "--no-float16-casts",
        *none,
    ]
    assert main(args) == 0
    assert (tmp_path / "cli-off.ort").read_bytes() == path.read_bytes()
    back = ["convert", str(path), str(tmp_path / "back.onnx"), "--no-float16-casts"]
    assert main(back) == 1  # .ort -> .onnx: the option does not apply (one-line error)


def test_without_onnxruntime_the_default_writes_the_graph_as_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = chain()
    off = writer.to_bytes(model, float16_casts=False)
    monkeypatch.setattr(door, "available", lambda: False)
    assert casts.wanted(None) is False
    assert writer.to_bytes(model) == off
    with pytest.raises(MissingExtraError, match="float16_casts=True needs onnxruntime"):
        writer.to_bytes(model, float16_casts=True)


# --- the pass itself -------------------------------------------------------------------------


def _snapshot(model: OrtModel) -> list[Any]:
    return [
        (n.op_type, list(n.inputs), list(n.outputs), [(a.name, a.i) for a in n.attributes])
        for g in model.graphs()
        for n in g.nodes
    ] + [[vi.name for vi in g.node_args] for g in model.graphs()]


def test_models_without_float16_are_returned_untouched() -> None:
    def never(*args: Any) -> bool:
        raise AssertionError("no kernel lookup for a model without float16")

    with from_onnx(float32_only()) as om:
        assert casts.insert_casts(om, has_kernel=never) is om


def test_the_source_model_is_not_modified_and_the_pass_is_idempotent(tmp_path: Path) -> None:
    for model in (chain(), in_subgraph()):
        with from_onnx(model) as om:
            before = _snapshot(om)
            done = casts.insert_casts(om)
            assert done is not om
            assert _snapshot(om) == before
            with load(writer.to_bytes(done, float16_casts=False)) as again:
                assert casts.insert_casts(again) is again  # every node has a kernel now
        oracle = onnxruntime_saved(model, tmp_path)
        assert casts.insert_casts(oracle) is oracle  # onnxruntime's own .ort needs nothing


def _fake_kernels(without_float16: set[str]) -> casts.KernelCheck:
    def has_kernel(domain: str, op: str, since: int, binding: Mapping[str, str]) -> bool:
        return not (op in without_float16 and "tensor(float16)" in binding.values())

    return has_kernel


def test_cast_chain_rules_with_a_given_kernel_table() -> None:
    """Runs of converted nodes share one Cast at each end; a model's own narrowing Cast
    followed by an inserted widening one cancels (onnxruntime's rule: the inserted Casts
    count as precision-free), except that a Cast writing a graph output stays."""
    graph = h.make_graph(
        [
            h.make_node("Cast", ["f"], ["h"], to=F16),  # the model's own float -> float16
            h.make_node("Relu", ["h"], ["r1"]),
            h.make_node("Relu", ["r1"], ["r2"]),
            h.make_node("Sigmoid", ["r2"], ["y"]),
        ],
        "fake",
        [h.make_tensor_value_info("f", onnx.TensorProto.FLOAT, [4])],
        [
            h.make_tensor_value_info("y", F16, [4]),
            h.make_tensor_value_info("h", F16, [4]),
        ],
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 21)], ir_version=10)
    fake = _fake_kernels({"Relu", "Sigmoid"})
    with from_onnx(model) as om:
        out = casts.insert_casts(om, has_kernel=fake)
        g = out.graph
        # The float16 round trip f -> h -> float is gone; "h" (a graph output) keeps its Cast.
        assert cast_nodes(g) == {("f", "h", F16), ("InsertedPrecisionFreeCast_y", "y", F16)}
        relu1, relu2 = (n for n in g.nodes if n.op_type == "Relu")
        assert relu1.inputs == ["f"]
        assert relu2.inputs == relu1.outputs
        types = _tensor_types(g)
        assert [types[n.outputs[0]] for n in (relu1, relu2)] == [1, 1]
        # Everything the new Casts need is in the resolver.
        with load(writer.to_bytes(out, float16_casts=False)) as back:
            resolver = back.kernel_type_str_resolver
            assert resolver is not None
            assert ":Cast:21" in {e.op_id for e in resolver.op_kernel_type_str_args}

    # Without the graph output on "h", the model's narrowing Cast goes too.
    del model.graph.output[1]
    with from_onnx(model) as om:
        g = casts.insert_casts(om, has_kernel=fake).graph
        assert cast_nodes(g) == {("InsertedPrecisionFreeCast_y", "y", F16)}
        assert "h" not in {vi.name for vi in g.node_args}

    # A narrowing Cast that no Cast of ours widens back keeps the model's rounding.
    with from_onnx(model) as om:
        g = casts.insert_casts(om, has_kernel=_fake_kernels({"Sigmoid"})).graph
        assert ("f", "h", F16) in cast_nodes(g)


def test_type_strings() -> None:
    from wireplan.ort.model import (
        SequenceType,
        TensorTypeAndShape,
        TypeInfo,
        type_info,
        type_string,
    )

    assert type_string(TypeInfo(value=TensorTypeAndShape(elem_type=F16))) == ("tensor(float16)")
    inner = TypeInfo(value=TensorTypeAndShape(elem_type=1))
    assert type_string(TypeInfo(value=SequenceType(elem_type=inner))) == "seq(tensor(float))"
    assert type_string(None) is None
    for spelled in ("tensor(float16)", "seq(tensor(float))", "seq(seq(tensor(int64)))"):
        assert type_string(type_info(spelled)) == spelled  # one spelling, read and written
    assert type_info("tensor(nosuchtype)") is None
    assert type_info("optional(tensor(float))") is None


@pytest.mark.skipif(
    not peer.EXPORTS_KERNELS,
    reason="reads kernel definitions this onnxruntime does not export (its probe: KERNEL_FACTS)",
)
def test_has_typed_kernel_reads_onnxruntime_constraints() -> None:
    assert not kernels.has_typed_kernel("", "Mul", 14, {"T": "tensor(float16)"})
    assert kernels.has_typed_kernel("", "Mul", 14, {"T": "tensor(float)"})
    assert kernels.has_typed_kernel("", "Transpose", 21, {"T": "tensor(float16)"})
    assert kernels.has_typed_kernel("", "Mul", 14, {})  # unbound parameters are not checked
    assert not kernels.has_typed_kernel("", "NoSuchOp", 1, {})
    q = {"TS": "tensor(float16)", "T1": "tensor(uint8)", "T2": "tensor(uint8)"}
    assert not kernels.has_typed_kernel("", "QLinearMatMul", 21, q)
    assert kernels.has_typed_kernel("", "QLinearMatMul", 21, {**q, "TS": "tensor(float)"})


# --- function operators: inlined first, as onnxruntime does -----------------------------------


def softmaxes(opset: int) -> onnx.ModelProto:
    """A float16 Softmax (no float16 CPU kernel: inlined, then cast) and a float32 one (kept)."""
    graph = h.make_graph(
        [
            h.make_node("Softmax", ["x"], ["y"], axis=0),
            h.make_node("Softmax", ["f"], ["g"]),
        ],
        "softmax",
        [
            h.make_tensor_value_info("x", F16, [2, 3]),
            h.make_tensor_value_info("f", onnx.TensorProto.FLOAT, [2, 3]),
        ],
        [
            h.make_tensor_value_info("y", F16, [2, 3]),
            h.make_tensor_value_info("g", onnx.TensorProto.FLOAT, [2, 3]),
        ],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)], ir_version=8)


def _op_counts(graph: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for n in graph.nodes:
        counts[n.op_type] = counts.get(n.op_type, 0) + 1
    return counts


@pytest.mark.parametrize("opset", [13, 18, 21])
def test_float16_function_op_is_inlined_then_cast(opset: int, tmp_path: Path) -> None:
    """Softmax-13 has kernels for float and double only: onnxruntime inlines the float16 node
    (the body for the model's opset: ReduceMax with an axes input from 18 on) and casts the
    inlined nodes; the float32 node keeps its kernel.  Our .ort has the same operators."""
    model = softmaxes(opset)
    if not _runs(model):
        assert not _newest()  # onnxruntime 1.15 knows opsets up to 19
        return
    path = tmp_path / "softmax.ort"
    writer.save(model, path, format_version=peer.FORMAT_VERSION)
    rng = np.random.default_rng(opset)
    feeds = {"x": _f16((2, 3), seed=opset), "f": rng.standard_normal((2, 3)).astype(np.float32)}
    assert corpus.same(run_ort(path, feeds), run_onnx(model, feeds))
    oracle = onnxruntime_saved(model, tmp_path)
    with load(path) as om:
        assert _op_counts(om.graph) == _op_counts(oracle.graph)
        assert _op_counts(om.graph)["Softmax"] == 1
        (kept,) = (n for n in om.graph.nodes if n.op_type == "Softmax")
        assert kept.inputs == ["f"]
        reduce_max = next(n for n in om.graph.nodes if n.op_type == "ReduceMax")
        assert len(reduce_max.inputs) == (2 if opset >= 18 else 1)


def test_castlike_is_built_from_the_inferred_types() -> None:
    """CastLike's body depends on the types (a context-dependent function): built for the node,
    it is the Cast to the second input's element type; the caller's model is left alone."""
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [
            helper.make_node("Shape", ["x"], ["s"]),
            helper.make_node("CastLike", ["s", "like"], ["y"]),
        ],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("like", TensorProto.FLOAT16, [1]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    before = model.SerializeToString()
    with from_onnx(model, expand=kernels.needs_expansion) as om:
        ops = [(n.op_type, list(n.inputs), list(n.outputs)) for n in om.graph.nodes]
        cast = next(n for n in om.graph.nodes if n.op_type == "Cast")
        assert {a.name: int(a.i) for a in cast.attributes}["to"] == TensorProto.FLOAT16
    assert model.SerializeToString() == before
    assert [op for op, _, _ in ops] == ["Shape", "Cast"]
    assert ops[1][1] == ["s"] and ops[1][2] == ["y"]
    # Without the expansion, the node stays (onnxruntime has no CastLike kernel for an .ort).
    with from_onnx(model) as om:
        assert [n.op_type for n in om.graph.nodes] == ["Shape", "CastLike"]


def test_expansion_is_asked_per_node_with_its_type_binding() -> None:
    asked: list[tuple[str, str, int, dict[str, str]]] = []

    def expand(
        domain: str, op: str, since: int, binding: Mapping[str, str], attributes: object
    ) -> bool:
        asked.append((domain, op, since, dict(binding)))
        return False

    with from_onnx(softmaxes(21), expand=expand) as om:
        assert [n.op_type for n in om.graph.nodes] == ["Softmax", "Softmax"]
    assert sorted(asked, key=str) == [
        ("", "Softmax", 13, {"T": "tensor(float)"}),
        ("", "Softmax", 13, {"T": "tensor(float16)"}),
    ]


def test_context_dependent_body_with_an_absent_optional_input() -> None:
    """Attention-23 with no mask but a past key and value: the body is built with an empty type
    for the absent input (onnx's own inliner refuses such a node)."""
    from onnx import TensorProto, helper

    f = TensorProto.FLOAT
    names = ["q", "k", "v", "", "pk", "pv"]
    shapes = {"q": [1, 2, 3, 4], "k": [1, 2, 3, 4], "v": [1, 2, 3, 4]}
    shapes |= {"pk": [1, 2, 2, 4], "pv": [1, 2, 2, 4]}
    graph = helper.make_graph(
        [helper.make_node("Attention", names, ["y", "pk2", "pv2"])],
        "attn",
        [helper.make_tensor_value_info(x, f, shapes[x]) for x in names if x],
        [
            helper.make_tensor_value_info("y", f, [1, 2, 3, 4]),
            helper.make_tensor_value_info("pk2", f, [1, 2, 5, 4]),
            helper.make_tensor_value_info("pv2", f, [1, 2, 5, 4]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    with from_onnx(model, expand=lambda *args: True) as om:
        ops = [n.op_type for n in om.graph.nodes]
        produced = {y for n in om.graph.nodes for y in n.outputs}
    assert "Attention" not in ops and "Softmax" not in ops  # inlined, repeatedly
    assert {"y", "pk2", "pv2"} <= produced


#: (domain, op_type, since_version, binding, whether the CPU provider has a kernel) in every
#: release from 1.15.1 to 1.32.0.
KERNEL_FACTS = [
    ("", "Mul", 14, {"T": "tensor(float16)"}, False),
    ("", "Mul", 14, {"T": "tensor(float)"}, True),
    ("", "Softmax", 13, {"T": "tensor(float16)"}, False),
    ("", "Softmax", 13, {"T": "tensor(double)"}, True),
    ("", "CastLike", 15, {"T1": "tensor(float)", "T2": "tensor(double)"}, False),
    ("", "Transpose", 13, {"T": "tensor(float16)"}, True),
    ("", "Relu", 14, {"T": "tensor(float)"}, True),
    ("", "Relu", 14, {"T": "tensor(float16)"}, False),
    ("", "Concat", 13, {"T": "tensor(float16)"}, True),
]


def test_kernel_facts_from_the_definitions_or_a_one_node_file() -> None:
    """The kernel definitions onnxruntime exports, and where a release does not export them
    (1.15.1) a one-node .ort it loads or refuses, say the same."""
    key = kernels._probe  # the answer of onnxruntime's own loader
    for domain, op, since, binding, expected in KERNEL_FACTS:
        assert kernels.has_typed_kernel(domain, op, since, binding) is expected, (op, binding)
        assert key(domain, op, since, tuple(sorted(binding.items())), "CPUExecutionProvider") is (
            expected
        ), (op, binding)
    # What the probe cannot build counts as a kernel (no expansion, no Casts): a SequenceMap
    # without its required body ...
    seq = (("S", "seq(tensor(float))"),)
    assert key("", "SequenceMap", 17, seq, "CPUExecutionProvider")
    # ... which the node itself gives (attributes and arity: two sequences in and out through
    # the variadic formals); then onnxruntime's own answer: no SequenceMap kernel in any release.
    h = onnx.helper
    f32 = onnx.TensorProto.FLOAT
    body = h.make_graph(
        [h.make_node("Identity", ["a"], ["x"]), h.make_node("Identity", ["b"], ["y"])],
        "body",
        [h.make_tensor_value_info("a", f32, None), h.make_tensor_value_info("b", f32, None)],
        [h.make_tensor_value_info("x", f32, None), h.make_tensor_value_info("y", f32, None)],
    )
    node = h.make_node("SequenceMap", ["s", "t"], ["u", "v"], body=body)
    facts = expand._node_facts(node, kernel_types.signature, {"": 17}, {})
    assert facts()[1:] == (2, 2)
    provider = "CPUExecutionProvider"
    both = (*seq, ("V", "seq(tensor(float))"))  # the second sequence binds V
    assert key("", "SequenceMap", 17, both, provider, facts) is False
    assert kernels.has_typed_kernel("", "SequenceMap", 17, dict(both), attributes=facts) is False
    assert kernels.needs_expansion("", "SequenceMap", 17, dict(both), facts)


def test_kernel_versions_match_as_onnxruntime_matches_them() -> None:
    """A kernel registered "from version N on" serves N only; a closed range serves its span."""
    if not door.kernels_known():  # onnxruntime 1.15.1 exports no kernel definitions
        assert door.version().startswith("1.15.")
        assert kernels.needs_expansion("", "Softmax", 13, {"T": "tensor(float16)"})
        return
    assert kernels.has_kernel("", "Relu", 14)  # Relu's kernel from 14 on
    assert not kernels.has_kernel("", "Relu", 15)  # ... would not serve a Relu-15
    assert kernels.has_kernel("", "Relu", 7)  # the kernel for 6-12
    assert not kernels.has_typed_kernel("", "Relu", 15, {"T": "tensor(float)"})
    assert kernels.needs_expansion("", "Softmax", 13, {"T": "tensor(float16)"})
    assert not kernels.needs_expansion("", "Softmax", 13, {"T": "tensor(float)"})
    assert not kernels.needs_expansion("", "Constant", 21)
