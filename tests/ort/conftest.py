"""Settings for the .ort tests: slow corpus tests run only when asked for (``-m slow``)."""

from __future__ import annotations

from pathlib import Path

import pytest

_HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow")
    for item in items:
        if "slow" in item.keywords and _HERE in Path(str(item.fspath)).parents:
            item.add_marker(skip)


# --- models made by onnxruntime ---------------------------------------------------------------

import numpy as np  # noqa: E402

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from ort_write import models, peer  # noqa: E402  (the same weights chain as the writer's tests)


def save_ort(
    model: object, dst: Path, level: str = "basic", disabled_optimizers: list[str] | None = None
) -> Path:
    """Have onnxruntime write ``model`` (a ModelProto) as an .ort file."""
    so = ort.SessionOptions()
    so.graph_optimization_level = {
        "none": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
        "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
        "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
    }[level]
    so.optimized_model_filepath = str(dst)
    so.add_session_config_entry("session.save_model_format", "ORT")
    so.log_severity_level = 3
    ort.InferenceSession(
        model.SerializeToString(),  # type: ignore[attr-defined]
        so,
        providers=["CPUExecutionProvider"],
        disabled_optimizers=disabled_optimizers,
    )
    return dst


def feature_model() -> object:
    """A model using the features the reader must carry: subgraphs, strings, sparse, dim_param."""
    rng = np.random.default_rng(7)
    w = rng.standard_normal((4, 4)).astype(np.float32)
    then_g = helper.make_graph(
        [helper.make_node("Relu", ["a"], ["t_out"], name="then_relu")],
        "then_branch",
        [],
        [helper.make_tensor_value_info("t_out", TensorProto.FLOAT, ["N", 4])],
    )
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["a"], ["e_out"], name="else_neg")],
        "else_branch",
        [],
        [helper.make_tensor_value_info("e_out", TensorProto.FLOAT, ["N", 4])],
    )
    sparse = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([1.5, -2.0], dtype=np.float32), "s"),
        numpy_helper.from_array(np.array([1, 3], dtype=np.int64), "s_indices"),
        [4],
    )
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w"], ["mm"], name="matmul", doc_string="x times w"),
            helper.make_node("Add", ["mm", "s"], ["a"], name="add_sparse"),
            helper.make_node(
                "If", ["c"], ["if_out"], name="branch", then_branch=then_g, else_branch=else_g
            ),
            helper.make_node("Identity", ["labels"], ["labels_out"], name="labels_id"),
            helper.make_node("SequenceConstruct", ["x", "a"], ["seq"], name="seq_make"),
            helper.make_node("Concat", ["x", "a", "mm"], ["cat"], name="cat", axis=0),
        ],
        "features",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4]),
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
        ],
        [
            helper.make_tensor_value_info("if_out", TensorProto.FLOAT, ["N", 4]),
            helper.make_tensor_value_info("labels_out", TensorProto.STRING, [2]),
            helper.make_value_info(
                "seq",
                helper.make_sequence_type_proto(
                    helper.make_tensor_type_proto(TensorProto.FLOAT, None)
                ),
            ),
            helper.make_tensor_value_info("cat", TensorProto.FLOAT, [None, 4]),
        ],
        initializer=[
            numpy_helper.from_array(w, "w"),
            helper.make_tensor("labels", TensorProto.STRING, [2], [b"alpha", "b\u00e9ta".encode()]),
        ],
        sparse_initializer=[sparse],
        doc_string="graph doc",
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17)],
        producer_name="wireplan-tests",
        producer_version="1.2",
        doc_string="model doc",
        model_version=3,
        domain="org.wireplan",
    )
    model.ir_version = 8
    helper.set_model_props(model, {"author": "tests", "purpose": "features"})
    return model


@pytest.fixture(scope="session")
def ort_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ort")


def release_feature_model() -> tuple[object, list[str] | None]:
    """:func:`feature_model` as the installed onnxruntime's converter takes it, and the
    optimizers to disable, so that every release saves the same graph at basic or extended.

    onnxruntime 1.15's constant folding fails on Identity of a string initializer ("string
    tensor can not use pre-allocated buffer"); later releases fold it into the initializer
    "labels_out", so for 1.15 the model comes folded so.  And 1.15's ConstantSharing renames
    the sparse initializer, which then is saved dense; later releases keep it sparse.
    """
    model = feature_model()
    if peer.RELEASE >= (1, 16):
        return model, None
    g = model.graph  # type: ignore[attr-defined]
    (identity,) = (n for n in g.node if n.name == "labels_id")
    g.node.remove(identity)
    next(t for t in g.initializer if t.name == "labels").name = "labels_out"
    return model, ["ConstantSharing"]


@pytest.fixture(scope="session")
def feature_ort(ort_dir: Path) -> Path:
    model, disabled = release_feature_model()
    return save_ort(model, ort_dir / "features.ort", disabled_optimizers=disabled)


@pytest.fixture(scope="session")
def weights_ort(ort_dir: Path) -> Path:
    """About 6 MiB of weights in 4 tensors (each past the 1 MiB parallel-copy threshold)."""
    return save_ort(models.weights(6 << 20), ort_dir / "weights.ort")


@pytest.fixture(scope="session")
def tiny_ort(ort_dir: Path) -> bytes:
    """A small .ort (one node, one initializer) for exhaustive corruption tests."""
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "k"], ["y"], name="add")],
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2])],
        initializer=[numpy_helper.from_array(np.array([1.0, 2.0], dtype=np.float32), "k")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return save_ort(model, ort_dir / "tiny.ort").read_bytes()
