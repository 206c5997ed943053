"""The ONNX conformance corpus run through our .ort writer and onnxruntime.

Each case: run the .onnx in onnxruntime (a case onnxruntime cannot run
from its .onnx form is outside the corpus), convert it with
:func:`wireplan.ort.writer.save` (in the format version the installed onnxruntime
loads, :data:`ort_write.peer.FORMAT_VERSION`), open our .ort with
:func:`wireplan.ort.session` (zero-copy options), run it on the
same inputs and compare the outputs exactly (NaN equal to NaN).

Run as a script for the full-corpus counts:
``.venv/bin/python tests/ort_write/corpus.py [--alignment 64] [--every N] [--format-version 5]``.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnx.defs
import onnx.numpy_helper
import onnxruntime as ort

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from onnx_corpus import DATA_DIR, collect_node_testcases, read_value, same
from ort_write.peer import FORMAT_VERSION
from wireplan.errors import WireplanError
from wireplan.ort import writer
from wireplan.ort.sessions import session


@dataclass
class Case:
    name: str
    model: onnx.ModelProto
    feeds: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Outcome:
    name: str
    status: (
        str  # onnx-not-runnable | convert-failed | load-failed | run-failed | different | identical
    )
    detail: str = ""


def _graph_inputs(model: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    inits = {t.name for t in model.graph.initializer} | {
        t.values.name for t in model.graph.sparse_initializer
    }
    return [i for i in model.graph.input if i.name not in inits]


def _feed_value(v: Any) -> Any:
    """A test input as onnxruntime takes it (numpy arrays, lists, dicts, None)."""
    if isinstance(v, onnx.TensorProto):
        return onnx.numpy_helper.to_array(v)
    if isinstance(v, np.generic):
        return np.asarray(v)
    if isinstance(v, list):
        return [_feed_value(x) for x in v]
    return v


def node_cases() -> list[Case]:
    """The node conformance cases ``onnx.backend.test.case.node.collect_testcases`` builds."""
    out = []
    for c in collect_node_testcases():
        if c.model is None:
            continue
        names = [i.name for i in _graph_inputs(c.model)]
        feeds = [
            {k: _feed_value(v) for k, v in zip(names, inputs, strict=False)}
            for inputs, _ in c.data_sets or []
        ]
        out.append(Case(c.name, c.model, feeds))
    return out


_NP = {
    onnx.TensorProto.FLOAT: np.float32,
    onnx.TensorProto.DOUBLE: np.float64,
    onnx.TensorProto.INT64: np.int64,
    onnx.TensorProto.INT32: np.int32,
    onnx.TensorProto.BOOL: np.bool_,
}


def _random_feed(model: onnx.ModelProto, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    feed = {}
    for vi in _graph_inputs(model):
        tt = vi.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else 1 for d in tt.shape.dim]
        dtype = _NP.get(tt.elem_type, np.float32)
        feed[vi.name] = rng.standard_normal(shape).astype(dtype)
    return feed


#: The folders of model folders under the data directory.  Not ``node/``: onnx up to 1.19
#: ships the node cases there as files, which :func:`node_cases` builds anyway (later onnx
#: releases stop shipping them), so the data corpus is the same for every onnx release.
DATA_FOLDERS = ("simple", "pytorch-converted", "pytorch-operator", "real")


def data_cases() -> list[Case]:
    """Every model shipped under ``onnx/backend/test/data`` (with its data sets when shipped)."""
    out = []
    for model_path in sorted(p for d in DATA_FOLDERS for p in DATA_DIR.glob(f"{d}/*/model.onnx")):
        model = onnx.load(os.fspath(model_path))
        inputs = _graph_inputs(model)
        feeds = []
        for ds in sorted(model_path.parent.glob("test_data_set_*")):
            feeds.append(
                {
                    vi.name: read_value(ds / f"input_{i}.pb", vi.type)
                    for i, vi in enumerate(inputs)
                    if (ds / f"input_{i}.pb").exists()
                }
            )
        out.append(Case(f"{model_path.parent.parent.name}/{model_path.parent.name}", model, feeds))
    for model_path in sorted(DATA_DIR.glob("light/*.onnx")):
        model = onnx.load(os.fspath(model_path))
        out.append(Case(f"light/{model_path.stem}", model, [_random_feed(model, 0)]))
    return out


def shipped_without_model() -> list[str]:
    """Folders under the data directory that ship no model (download URLs only)."""
    return sorted(
        f"{p.parent.name}/{p.name}"
        for d in DATA_FOLDERS
        for p in DATA_DIR.glob(f"{d}/*")
        if p.is_dir() and not (p / "model.onnx").exists()
    )


#: Both sessions run the graph as stored: onnxruntime's optimizers take different paths for
#: .onnx and .ort sources (fusions reorder float math), which is not what is compared here.
OPT_LEVEL = ort.GraphOptimizationLevel.ORT_DISABLE_ALL


def _options() -> ort.SessionOptions:
    opts = ort.SessionOptions()
    opts.graph_optimization_level = OPT_LEVEL
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 4
    return opts


def run_case(
    case: Case, workdir: Path, *, alignment: int = 64, format_version: int = FORMAT_VERSION
) -> Outcome:
    onnx_path = workdir / "model.onnx"
    ort_path = workdir / "model.ort"
    onnx.save(case.model, os.fspath(onnx_path))
    feeds = case.feeds or [{}]
    try:
        ref_sess = ort.InferenceSession(
            os.fspath(onnx_path), _options(), providers=["CPUExecutionProvider"]
        )
        expected = [ref_sess.run(None, f) for f in feeds]
    except Exception as exc:
        return Outcome(case.name, "onnx-not-runnable", str(exc).splitlines()[0][:200])
    try:
        writer.save(case.model, ort_path, alignment=alignment, format_version=format_version)
    except WireplanError as exc:
        return Outcome(case.name, "convert-failed", str(exc)[:300])
    try:
        ours = session(
            ort_path,
            graph_optimization_level=OPT_LEVEL,
            intra_op_num_threads=1,
            inter_op_num_threads=1,
            log_severity_level=4,
        )
    except WireplanError as exc:
        return Outcome(case.name, "load-failed", str(exc)[:300])
    try:
        got = [ours.run(None, f) for f in feeds]
    except Exception as exc:
        return Outcome(case.name, "run-failed", str(exc).splitlines()[0][:300])
    for i, (e, g) in enumerate(zip(expected, got, strict=True)):
        if not same(e, g):
            return Outcome(case.name, "different", f"data set {i}")
    return Outcome(case.name, "identical")


NO_KERNEL = re.compile(r"Could not find an implementation for (\w+)\((\d+)\)")


def explain(outcome: Outcome) -> str | None:
    """Why a miss is not a defect of the file we wrote, or None when it is unexplained.

    One reason stands for every release: optional types and TYPE_PROTO
    attributes have no place in the .ort schema, and onnxruntime's own converter refuses
    those models too ("We do not support type [9]"); the writer says so
    with an EncodeError.

    Everything else onnxruntime runs from the .onnx must run identically
    from our .ort: the writer expands the function operators onnxruntime
    inlines (no CPU kernel matches their version and types; context-
    dependent bodies built for the node's types) and inserts the float16
    Casts it inserts (:mod:`wireplan.ort.casts`), both read from the
    installed onnxruntime's kernel definitions, or, where it exports none
    (1.15), from one-node probes of each node's types, attributes and arity.
    """
    if outcome.status == "convert-failed" and (
        "no place in the .ort format" in outcome.detail or "optional types" in outcome.detail
    ):
        return "not representable in .ort (optional type / TypeProto attribute)"
    return None


def run_all(
    cases: Sequence[Case], *, alignment: int = 64, format_version: int = FORMAT_VERSION
) -> Iterator[Outcome]:
    with tempfile.TemporaryDirectory(prefix="wireplan-corpus-") as tmp:
        for case in cases:
            yield run_case(case, Path(tmp), alignment=alignment, format_version=format_version)


def summarize(outcomes: Sequence[Outcome]) -> str:
    counts = Counter(o.status for o in outcomes)
    runnable = len(outcomes) - counts["onnx-not-runnable"]
    converted = runnable - counts["convert-failed"]
    loaded = converted - counts["load-failed"]
    identical = counts["identical"]
    lines = [
        f"cases: {len(outcomes)}, onnxruntime runs the .onnx: {runnable}",
        f"converted {converted}/{runnable}, loaded {loaded}/{runnable}, "
        f"identical {identical}/{runnable}",
    ]
    reasons = Counter(
        (o.status, explain(o)) for o in outcomes if o.status in ("load-failed", "convert-failed")
    )
    for (status, reason), n in sorted(reasons.items(), key=lambda kv: -kv[1]):
        if reason is not None:
            names = [o.name for o in outcomes if o.status == status and explain(o) == reason]
            listed = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
            lines.append(f"  {status}, {reason}: {n} ({listed})")
    for o in outcomes:
        if o.status not in ("identical", "onnx-not-runnable") and explain(o) is None:
            lines.append(f"  UNEXPLAINED {o.status}: {o.name}: {o.detail}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--alignment", type=int, default=64)
    p.add_argument("--every", type=int, default=1, help="run every N-th case only")
    p.add_argument("--only", choices=["node", "data"], default=None)
    p.add_argument(
        "--format-version",
        type=int,
        choices=[5, 6],
        default=None,
        help="the .ort format we write (default: the newest the installed onnxruntime loads)",
    )
    args = p.parse_args(argv)
    fmt = args.format_version or FORMAT_VERSION
    print(f"onnxruntime {ort.__version__}, onnx {onnx.__version__}, format {fmt}")
    groups = []
    if args.only in (None, "node"):
        groups.append(("node cases (collect_testcases)", node_cases()))
    if args.only in (None, "data"):
        groups.append(("models under onnx/backend/test/data", data_cases()))
    for title, cases in groups:
        outcomes = list(run_all(cases[:: args.every], alignment=args.alignment, format_version=fmt))
        print(f"## {title}")
        print(summarize(outcomes))
        notrun = [o for o in outcomes if o.status == "onnx-not-runnable"]
        print(f"  ({len(notrun)} cases onnxruntime cannot run from the .onnx; first few:)")
        for o in notrun[:5]:
            print(f"    {o.name}: {o.detail}")
    if args.only in (None, "data"):
        print("shipped without a model (download URLs only):", ", ".join(shipped_without_model()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
