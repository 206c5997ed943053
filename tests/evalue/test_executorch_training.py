"""ExecuTorch's training flow on EValue records: its runtime's SGD steps equal eager torch's.

The records, the dataset, the export and the runtime's training loop are those of
``examples/evalue_executorch_training.py``; the oracle is eager torch (autograd and
``torch.optim.SGD``) on the same batches.  executorch lives in ``.venv-executorch``
(``python3 dev.py test-env executorch``); the main environment's run leaves this file out.
"""

from __future__ import annotations

import copy
import importlib.util
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from wireplan.evalue import read_records

pytestmark = pytest.mark.filterwarnings("ignore:This API is experimental:Warning")
torch = pytest.importorskip("torch")
pytest.importorskip("executorch.extension.training")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "evalue_executorch_training.py"
BATCH, STEPS = 16, 30


@pytest.fixture(scope="module")
def ex() -> ModuleType:
    spec = importlib.util.spec_from_file_location("evalue_executorch_training", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def setup(ex: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("records")
    paths = ex.write_records(folder, count=12 * BATCH)
    data = ex.batches(paths, BATCH, STEPS)
    torch.manual_seed(0)
    net = ex.WithLoss(ex.Classifier())
    return {"paths": paths, "data": data, "net": net, "program": ex.export_training(net, data[0])}


def test_the_records_are_android_examples_and_the_batches_their_stack(
    ex: ModuleType, setup: dict[str, Any]
) -> None:
    assert len(setup["paths"]) > 1  # sharded
    records = [r for p in setup["paths"] for r in read_records(p)]
    assert len(records) == 12 * BATCH
    for x, label in records:
        assert x.dtype == np.float32 and x.shape == (ex.FEATURES,)
        assert type(label) is int and 0 <= label < ex.CLASSES
    assert len(setup["data"]) == STEPS
    firsts = {tuple(x.tolist()) for x, _ in records}
    for x, y in setup["data"]:
        assert x.dtype == torch.float32 and x.shape == (BATCH, ex.FEATURES)
        assert y.dtype == torch.int64 and y.shape == (BATCH,)
        assert {tuple(row) for row in x.tolist()} <= firsts


@pytest.mark.parametrize(("momentum", "decay"), [(0.0, 0.0), (0.9, 1e-3)])
def test_sgd_steps_in_executorch_equal_eager_torch(
    ex: ModuleType, setup: dict[str, Any], momentum: float, decay: float
) -> None:
    net = copy.deepcopy(setup["net"])
    start = {k: v.detach().clone() for k, v in net.named_parameters()}
    et_losses, et_weights = ex.train_executorch(
        setup["program"], setup["data"], 0.1, momentum, decay
    )
    eager_losses, eager_weights = ex.train_eager(net, setup["data"], 0.1, momentum, decay)
    np.testing.assert_allclose(et_losses, eager_losses, rtol=1e-5, atol=1e-6)
    assert et_weights.keys() == eager_weights.keys() == start.keys()
    for name, weight in eager_weights.items():
        torch.testing.assert_close(et_weights[name], weight, rtol=1e-5, atol=1e-6)
        assert float((weight - start[name]).abs().max()) > 1e-2  # the steps moved it
    assert np.mean(et_losses[-5:]) < 0.8 * np.mean(et_losses[:5])  # the loss falls


@settings(max_examples=20)
@given(
    xs=hnp.arrays(
        np.float32,
        (BATCH, 8),
        elements=st.floats(-30, 30, width=32, allow_subnormal=False),
    ),
    labels=st.lists(st.integers(0, 2), min_size=BATCH, max_size=BATCH),
)
def test_one_step_on_any_records_gives_eager_gradients(
    ex: ModuleType, setup: dict[str, Any], xs: np.ndarray[Any, Any], labels: list[int]
) -> None:
    assert xs.shape[1] == ex.FEATURES and ex.CLASSES == 3
    with tempfile.TemporaryDirectory() as tmp:  # records -> dataset -> one batch
        with ex.RecordWriter(Path(tmp) / "r.evr") as writer:
            for x, label in zip(xs, labels, strict=True):
                writer.write([x, label])
        ((x, y),) = ex.batches(writer.paths, BATCH, 1)
    module = ex._load_for_executorch_for_training_from_buffer(setup["program"])
    (loss,) = module.forward_backward("forward", (x, y))
    net = copy.deepcopy(setup["net"])
    (eager,) = net(x, y)
    eager.backward()
    torch.testing.assert_close(loss, eager.detach(), rtol=1e-5, atol=1e-5)
    grads = module.named_gradients()
    for name, p in net.named_parameters():
        torch.testing.assert_close(grads[name], p.grad, rtol=1e-4, atol=1e-5)


def test_the_example_runs(
    ex: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ex.main(["--steps", "8", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "steps of 16 examples" in out and "largest weight difference after 8 steps" in out
