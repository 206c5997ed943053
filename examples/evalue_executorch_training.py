"""Training in ExecuTorch's runtime on EValue records, checked against eager torch.

Each example is written as the Android side writes one, an ``EValue[]`` of (input tensor,
label as an Int), into record shards with ``RecordWriter``; ``EValueDataset`` reads them
through a torch ``DataLoader``.  A small classifier with its loss is exported with
ExecuTorch's training flow (a joint forward and backward graph); ExecuTorch's runtime runs
its SGD steps from Python.  The same steps in eager torch on the same batches end at the
same weights::

    .venv-executorch/bin/python examples/evalue_executorch_training.py [--steps 40] [--dir DIR]

Needs torch and executorch 1.5: ``python3 dev.py setup`` makes ``.venv-executorch/`` with both.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from executorch.exir import to_edge  # type: ignore[import-untyped]
from executorch.extension.training import (  # type: ignore[import-untyped]
    _load_for_executorch_for_training_from_buffer,
    get_sgd_optimizer,
)
from torch.export import export
from torch.export.experimental import _export_forward_backward
from torch.utils.data import DataLoader

from wireplan.evalue import RecordWriter
from wireplan.evalue.dataset import EValueDataset

FEATURES, HIDDEN, CLASSES = 8, 16, 3
Batch = tuple[torch.Tensor, torch.Tensor]


def write_records(folder: Path, count: int, seed: int = 0) -> list[str]:
    """``count`` examples ``[float32 tensor (FEATURES,), int label]`` in shards of ~4 KiB.

    The label is the class a fixed random linear rule gives the input, so a model can learn it.
    """
    rng = np.random.default_rng(seed)
    rule = rng.standard_normal((FEATURES, CLASSES))
    with RecordWriter(folder / "train-{shard:05d}.evr", shard_bytes=4096) as writer:
        for _ in range(count):
            x = rng.standard_normal(FEATURES).astype(np.float32)
            writer.write([x, int(np.argmax(x @ rule))])  # EValue.from(Tensor), EValue.from(long)
    return writer.paths


def batches(paths: Sequence[str], batch_size: int, steps: int, seed: int = 0) -> list[Batch]:
    """The first ``steps`` batches of the shuffled epochs (a new order each epoch)."""
    dataset = EValueDataset(paths, shuffle=True, seed=seed, batch_size=batch_size)
    loader = DataLoader(dataset, batch_size=batch_size, drop_last=True)
    out: list[Batch] = []
    for epoch in range(steps):  # far more epochs than needed; stops at `steps` batches
        dataset.set_epoch(epoch)
        for x, y in loader:
            if len(out) == steps:
                return out
            out.append((x, y))
    return out


class Classifier(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = torch.nn.Linear(FEATURES, HIDDEN)
        self.out = torch.nn.Linear(HIDDEN, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(torch.relu(self.hidden(x)))  # type: ignore[no-any-return]


class WithLoss(torch.nn.Module):
    """The model and its loss in one graph: what ExecuTorch's training flow exports."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model
        self.loss = torch.nn.CrossEntropyLoss()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor]:
        return (self.loss(self.model(x), y),)


def export_training(net: WithLoss, example: Batch) -> bytes:
    """The .pte bytes of ``net``'s joint forward-backward graph (the loss is output 0)."""
    joint = _export_forward_backward(export(net, example, strict=True))
    return bytes(to_edge(joint).to_executorch().buffer)


def train_executorch(
    program: bytes, data: Sequence[Batch], lr: float, momentum: float = 0.0, decay: float = 0.0
) -> tuple[list[float], dict[str, torch.Tensor]]:
    """SGD steps in ExecuTorch's runtime: the loss of each step, and the weights after."""
    module = _load_for_executorch_for_training_from_buffer(program)
    optimizer = None
    losses = []
    for x, y in data:
        (loss,) = module.forward_backward("forward", (x, y))
        if optimizer is None:  # the parameters are known after the first run
            optimizer = get_sgd_optimizer(module.named_parameters(), lr, momentum, 0, decay, False)
        optimizer.step(module.named_gradients())
        losses.append(float(loss))
    return losses, {k: v.clone() for k, v in module.named_parameters().items()}


def train_eager(
    net: WithLoss, data: Sequence[Batch], lr: float, momentum: float = 0.0, decay: float = 0.0
) -> tuple[list[float], dict[str, torch.Tensor]]:
    """The same steps in eager torch (``torch.optim.SGD``), on ``net`` itself."""
    optimizer = torch.optim.SGD(net.parameters(), lr=lr, momentum=momentum, weight_decay=decay)
    losses = []
    for x, y in data:
        optimizer.zero_grad()
        (loss,) = net(x, y)
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
    return losses, {k: v.detach().clone() for k, v in net.named_parameters()}


def run(folder: Path, steps: int, batch_size: int = 16, lr: float = 0.1) -> float:
    """Write, read, export, train both ways and print the comparison; the largest weight gap."""
    paths = write_records(folder, count=20 * batch_size)
    data = batches(paths, batch_size, steps)
    torch.manual_seed(0)
    net = WithLoss(Classifier())
    program = export_training(net, data[0])  # before eager training changes `net`
    et_losses, et_weights = train_executorch(program, data, lr)
    eager_losses, eager_weights = train_eager(net, data, lr)
    print(f"{len(paths)} shards, {steps} steps of {batch_size} examples, SGD lr={lr}")
    print("step  loss (executorch)  loss (eager)")
    for i in range(0, steps, max(1, steps // 8)):
        print(f"{i:4d}  {et_losses[i]:17.6f}  {eager_losses[i]:12.6f}")
    gap = max(float((et_weights[k] - w).abs().max()) for k, w in eager_weights.items())
    print(f"largest weight difference after {steps} steps: {gap:.3g}")
    return gap


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--dir", type=Path, help="where the records go (default: a temporary folder)")
    ns = ap.parse_args(argv)
    if ns.dir is not None:
        return 0 if run(ns.dir, ns.steps) < 1e-5 else 1
    with tempfile.TemporaryDirectory() as tmp:
        return 0 if run(Path(tmp), ns.steps) < 1e-5 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
