"""The folder the documentation's examples run in (tests/test_docs.py).

The docs speak of ``model.onnx``, ``model.ort``, record files and a clone of the public
regulated DSDL types as if the reader had them; :func:`build` makes small real ones, with
wireplan and onnx, so every example runs on real files:

=============================  ========================================================
``public_regulated_data_types`` a link to the repository's copy (``tests/data/dsdl``)
``model.onnx``                  ``y = x @ fc.weight + fc.bias``, float32 [1, 64] -> [1, 32]
``model.ort``                   the same, converted by wireplan
``big.onnx`` (+ ``.data``)      the same, its weights in external data as onnx saves them
``models/{a,sub/b}.onnx``       the same, a folder of models
``data/train-{0,1}.evr``        record files, 8 records each: (features [4], label)
``data.evr``                    one record file, 8 records
=============================  ========================================================
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import onnx
import onnx.helper as h
import onnx.numpy_helper as nh

import wireplan.evalue as ev
import wireplan.ort as wo
from dsdl._support import PUBLIC

F = onnx.TensorProto.FLOAT


def model() -> onnx.ModelProto:
    """One fully connected layer: ``y = x @ fc.weight + fc.bias`` (MatMul, Add)."""
    rng = np.random.default_rng(0)
    # 8 KiB of weights: past the 1 KiB threshold of external data, as a real model's are.
    weight = nh.from_array(rng.standard_normal((64, 32)).astype(np.float32), "fc.weight")
    bias = nh.from_array(rng.standard_normal(32).astype(np.float32), "fc.bias")
    graph = h.make_graph(
        [
            h.make_node("MatMul", ["x", "fc.weight"], ["xw"], name="fc.matmul"),
            h.make_node("Add", ["xw", "fc.bias"], ["y"], name="fc.add"),
        ],
        "fc",
        [h.make_tensor_value_info("x", F, [1, 64])],
        [h.make_tensor_value_info("y", F, [1, 32])],
        initializer=[weight, bias],
    )
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)], producer_name="docs")
    m.ir_version = 8
    return m


def _records(path: Path, count: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    with ev.RecordWriter(path) as w:
        for i in range(count):
            w.write([rng.standard_normal(4).astype(np.float32), i % 3])


def build(folder: Path) -> Path:
    """Fill ``folder`` (created) with the files above; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    os.symlink(PUBLIC.resolve(), folder / "public_regulated_data_types", target_is_directory=True)
    m = model()
    onnx.save(m, folder / "model.onnx")
    (folder / "models" / "sub").mkdir(parents=True)
    for name in ("a.onnx", "sub/b.onnx"):
        onnx.save(m, folder / "models" / name)
    wo.save(folder / "model.onnx", folder / "model.ort")
    onnx.save(
        m,
        folder / "big.onnx",
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="big.onnx.data",
        size_threshold=0,
    )
    (folder / "data").mkdir()
    for k in range(2):
        _records(folder / "data" / f"train-{k}.evr", 8, seed=k)
    _records(folder / "data.evr", 8, seed=2)
    return folder
