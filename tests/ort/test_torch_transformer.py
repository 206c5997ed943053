"""A small torch-exported transformer through onnxruntime's .ort, our reader and back to ONNX."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest

from wireplan.ort import load, to_onnx

from .conftest import save_ort
from .ort_corpus import check_model_outputs

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def transformer_onnx(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(
        d_model=32, nhead=4, dim_feedforward=64, batch_first=True, dropout=0.0
    )
    model = torch.nn.TransformerEncoder(layer, num_layers=2).eval()
    path = tmp_path_factory.mktemp("torch") / "transformer.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model,
            (torch.randn(2, 5, 32),),
            str(path),
            dynamo=False,
            input_names=["x"],
            output_names=["y"],
            dynamic_axes={"x": {0: "batch", 1: "seq"}},
            opset_version=17,
        )
    return path


@pytest.mark.parametrize("level", ["basic", "extended"])
def test_transformer(transformer_onnx: Path, tmp_path: Path, level: str) -> None:
    source = onnx.load(str(transformer_onnx))
    ort_path = save_ort(source, tmp_path / f"t.{level}.ort", level)
    with load(ort_path) as om:
        om_nodes = [n for g in om.graphs() for n in g.nodes]
        ops = {(n.domain + ":" if n.domain else "") + n.op_type for n in om_nodes}
        proto = to_onnx(om)
        assert om.graph.inputs == ["x"] and om.graph.outputs == ["y"]
        print(f"\n{level}: {len(om.graph.nodes)} nodes, ops {sorted(ops)}")
    if all(n.domain in ("", "ai.onnx") for n in om_nodes):
        onnx.checker.check_model(proto)
    dims = [d.dim_param for d in proto.graph.input[0].type.tensor_type.shape.dim]
    assert dims[:2] == ["batch", "seq"]
    feeds = {"x": np.random.default_rng(3).standard_normal((2, 5, 32)).astype(np.float32)}
    check_model_outputs(str(ort_path), proto.SerializeToString(), feeds)
