"""Move .ort files between onnxruntime releases with ``convert_ort_to_ort``, checked by running them.

Two steps, each run in the Python environment of one onnxruntime release:

``prepare DIR``
    (in the environment whose onnxruntime *writes* the files) for each ONNX
    node conformance case whose inputs are plain tensors: ``model.onnx``,
    ``input_<i>.pb`` and ``theirs.ort``, the .ort this onnxruntime's own
    converter writes (optimization level basic, as its converter's default).
``check DIR --format-version N``
    (in the environment whose onnxruntime *runs* them) re-writes each
    ``theirs.ort`` as format N with wireplan, runs ours and the .onnx in this
    onnxruntime (optimizations off for both) and compares the outputs exactly.

Example (1.20.1 writes format 6, 1.15.1 runs format 5)::

    PYTHONPATH=src /work/envs/ort120/bin/python tests/ort_write/cross_release.py prepare /tmp/x
    PYTHONPATH=src /work/envs/ort115/bin/python tests/ort_write/cross_release.py check /tmp/x \\
        --format-version 5
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shutil
import sys
import tempfile
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnx.numpy_helper
import onnxruntime as ort

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from onnx_corpus import same
from wireplan.errors import WireplanError
from wireplan.ort import load
from wireplan.ort.writer import convert_ort_to_ort

# numpy dtypes onnxruntime takes from Python on every release here (no float8 / bfloat16 / int4)
_FEEDABLE = frozenset("?bBhHiIlLqQefdFDUO")


def _node_cases() -> list[Any]:
    import onnx.backend.test.case.node as node

    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        try:
            return list(node.collect_testcases(None))  # onnx 1.19 needs the argument
        except TypeError:
            return list(node.collect_testcases())


def _options(level: Any) -> ort.SessionOptions:
    opts = ort.SessionOptions()
    opts.graph_optimization_level = level
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 4
    return opts


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def prepare(folder: Path, every: int) -> Counter[str]:
    counts: Counter[str] = Counter()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "written_by.txt").write_text(ort.__version__)
    for i, case in enumerate(_node_cases()):
        if case.model is None or i % every:
            continue
        inits = {t.name for t in case.model.graph.initializer}
        names = [x.name for x in case.model.graph.input if x.name not in inits]
        sets = case.data_sets or []
        inputs = list(sets[0][0]) if sets else []
        if not all(isinstance(v, np.ndarray) and v.dtype.char in _FEEDABLE for v in inputs):
            counts["inputs not plain tensors"] += 1
            continue
        out = folder / _safe(case.name)
        out.mkdir(exist_ok=True)
        onnx.save(case.model, os.fspath(out / "model.onnx"))
        for k, v in enumerate(inputs):
            t = onnx.numpy_helper.from_array(v, names[k] if k < len(names) else f"input_{k}")
            (out / f"input_{k}.pb").write_bytes(t.SerializeToString())
        opts = _options(ort.GraphOptimizationLevel.ORT_ENABLE_BASIC)
        opts.optimized_model_filepath = os.fspath(out / "theirs.ort")
        opts.add_session_config_entry("session.save_model_format", "ORT")
        try:
            ort.InferenceSession(
                case.model.SerializeToString(), opts, providers=["CPUExecutionProvider"]
            )
        except Exception:
            shutil.rmtree(out)
            counts["onnxruntime cannot load the .onnx"] += 1
            continue
        counts["prepared"] += 1
    return counts


def check(folder: Path, format_version: int) -> tuple[Counter[str], list[str]]:
    counts: Counter[str] = Counter()
    misses: list[str] = []
    written_by = (folder / "written_by.txt").read_text().strip()
    with tempfile.TemporaryDirectory() as tmp:
        ours = Path(tmp) / "ours.ort"
        for case in sorted(p for p in folder.iterdir() if p.is_dir()):
            model = onnx.load(os.fspath(case / "model.onnx"))
            inits = {t.name for t in model.graph.initializer}
            names = [x.name for x in model.graph.input if x.name not in inits]
            feed = {}
            for k in range(len(names)):
                pb = case / f"input_{k}.pb"
                if pb.exists():
                    t = onnx.TensorProto()
                    t.ParseFromString(pb.read_bytes())
                    feed[names[k]] = onnx.numpy_helper.to_array(t)
            counts["cases"] += 1
            with load(case / "theirs.ort") as theirs:
                assert theirs.ort_version  # every file the other release wrote loads here
            try:
                expected = ort.InferenceSession(
                    os.fspath(case / "model.onnx"),
                    _options(ort.GraphOptimizationLevel.ORT_DISABLE_ALL),
                    providers=["CPUExecutionProvider"],
                ).run(None, feed)
            except Exception:
                counts["this onnxruntime cannot run the .onnx"] += 1
                continue
            counts["runnable"] += 1
            try:
                convert_ort_to_ort(case / "theirs.ort", ours, format_version=format_version)
            except WireplanError as exc:
                counts["refused"] += 1
                misses.append(f"{case.name}: refused: {exc}")
                continue
            try:
                got = ort.InferenceSession(
                    os.fspath(ours),
                    _options(ort.GraphOptimizationLevel.ORT_DISABLE_ALL),
                    providers=["CPUExecutionProvider"],
                ).run(None, feed)
            except Exception as exc:
                counts["load or run failed"] += 1
                misses.append(f"{case.name}: {str(exc).splitlines()[0][:200]}")
                continue
            if same(expected, got):
                counts["identical"] += 1
            else:
                counts["different"] += 1
                misses.append(f"{case.name}: different outputs")
    counts[f"written by onnxruntime {written_by}, run by {ort.__version__}"] = 0
    return counts, misses


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = p.add_subparsers(dest="step", required=True)
    a = sub.add_parser("prepare")
    a.add_argument("folder", type=Path)
    a.add_argument("--every", type=int, default=1, help="take every N-th node case")
    b = sub.add_parser("check")
    b.add_argument("folder", type=Path)
    b.add_argument("--format-version", type=int, required=True, choices=(5, 6))
    args = p.parse_args(argv)
    if args.step == "prepare":
        for k, v in sorted(prepare(args.folder, args.every).items()):
            print(f"{k}: {v}")
        return 0
    counts, misses = check(args.folder, args.format_version)
    for k, v in counts.items():
        print(f"{k}: {v}" if v or "written by" not in k else k)
    for m in misses:
        print("  " + m)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
