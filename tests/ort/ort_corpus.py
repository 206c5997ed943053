"""The conformance corpus for the .ort reader: real .ort files written by onnxruntime.

Sources: the node cases that ``onnx.backend.test.case.node.collect_testcases``
builds offline, and the models shipped under ``onnx/backend/test/data``.
For each source and optimization level (basic, extended) :func:`check` has
onnxruntime save an .ort file, then:

1. ``wireplan.ort.load`` reads it and every field of every table is touched;
2. ``to_onnx`` converts it; standard-domain models must pass ``onnx.checker``;
3. the .ort and the converted .onnx run in onnxruntime on the case's inputs
   (optimizations disabled for both, so the same graph runs) and the outputs
   must be identical (bitwise, NaN equal to NaN).

Run the whole corpus with ``.venv/bin/python tests/ort/ort_corpus.py`` (about
half an hour on the shared 2-core machine); the test suite runs a
deterministic sample.
"""

from __future__ import annotations

import collections
import dataclasses
import glob
import os
import sys
import tempfile
import time
from collections.abc import Iterator, MutableSequence, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnx.numpy_helper
import onnxruntime as ort

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from onnx_corpus import DATA_DIR, collect_node_testcases, read_value, same
from wireplan.ort import load, to_onnx
from wireplan.ort.model import OrtModel

LEVELS = {
    "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
    "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
}
STANDARD_DOMAINS = {"", "ai.onnx", "ai.onnx.ml"}

ort.set_default_logger_severity(4)


@dataclass
class Source:
    """One model with input sets."""

    name: str
    model: onnx.ModelProto
    inputs: list[dict[str, Any]]


@dataclass
class Outcome:
    name: str
    level: str
    saved: bool = False  # onnxruntime wrote an .ort
    loaded: bool = False  # wireplan.ort.load read every field
    converted: bool = False  # to_onnx + check_model (standard domains)
    ran: bool = False  # the converted .onnx ran in onnxruntime
    identical: bool = False  # ... with outputs identical to the .ort's
    standard: bool = True
    tables: int = 0
    reason: str = ""


# --- sources ---------------------------------------------------------------------------------


def node_sources() -> list[Source]:
    """Every node conformance case (takes ~20 s: onnx computes the expected outputs)."""
    out = []
    for c in collect_node_testcases():
        names = [i.name for i in c.model.graph.input]
        sets = []
        for inputs, _ in c.data_sets or []:
            sets.append(dict(zip(names, inputs, strict=False)))
        out.append(Source(c.name, c.model, sets))
    return out


def _synthetic_inputs(model: onnx.ModelProto) -> dict[str, Any] | None:
    rng = np.random.default_rng(0)
    inits = {t.name for t in model.graph.initializer}
    feeds: dict[str, Any] = {}
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        if vi.type.WhichOneof("value") != "tensor_type" or tt.elem_type != onnx.TensorProto.FLOAT:
            return None
        dims = [d.dim_value if d.HasField("dim_value") else 1 for d in tt.shape.dim]
        feeds[vi.name] = rng.standard_normal(dims).astype(np.float32)
    return feeds


def data_sources(max_file_bytes: int | None = None) -> list[Source]:
    """The models under onnx/backend/test/data (``real/`` only holds download links)."""
    out = []
    for folder in ("simple", "pytorch-converted", "pytorch-operator"):
        for d in sorted(glob.glob(str(DATA_DIR / folder / "*"))):
            path = os.path.join(d, "model.onnx")
            if not os.path.exists(path):
                continue
            if max_file_bytes is not None and os.path.getsize(path) > max_file_bytes:
                continue
            model = onnx.load(path)
            inits = {t.name for t in model.graph.initializer}
            graph_inputs = [vi for vi in model.graph.input if vi.name not in inits]
            sets = []
            for ds in sorted(glob.glob(os.path.join(d, "test_data_set_*"))):
                feeds = {}
                for i, vi in enumerate(graph_inputs):
                    f = os.path.join(ds, f"input_{i}.pb")
                    if os.path.exists(f):
                        feeds[vi.name] = read_value(f, vi.type)
                sets.append(feeds)
            out.append(Source(f"{folder}/{os.path.basename(d)}", model, sets))
    for path in sorted(glob.glob(str(DATA_DIR / "light" / "*.onnx"))):
        if max_file_bytes is not None and os.path.getsize(path) > max_file_bytes:
            continue
        model = onnx.load(path)
        feeds = _synthetic_inputs(model)
        out.append(Source("light/" + Path(path).stem, model, [feeds] if feeds is not None else []))
    return out


# --- checks ----------------------------------------------------------------------------------


def touch(value: Any) -> int:
    """Visit every field of every table below ``value``; return the number of tables."""
    count = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            count += 1
            for f in dataclasses.fields(v):
                if f.name == "source":
                    continue
                stack.append(getattr(v, f.name))
        elif isinstance(v, MutableSequence):  # a list, or load's TableList
            stack.extend(v)
        elif isinstance(v, np.ndarray):
            # Read the bytes (a dangling view would crash or fault here).
            if v.size:
                np.asarray(v).view(np.uint8).sum()
        elif v is not None and not isinstance(v, (str, int, float, bool)):
            raise AssertionError(f"unexpected value {type(v).__name__} in the model")
    return count


def save_ort(model: onnx.ModelProto, dst: str, level: str) -> None:
    save_ort_level(model, dst, LEVELS[level])


def save_ort_level(model: onnx.ModelProto, dst: str, level: Any) -> None:
    so = ort.SessionOptions()
    so.graph_optimization_level = level
    so.optimized_model_filepath = dst
    so.add_session_config_entry("session.save_model_format", "ORT")
    ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def session(data: bytes | str) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])


def _feed(v: Any) -> Any:
    if isinstance(v, onnx.TensorProto):
        v = onnx.numpy_helper.to_array(v)
    if isinstance(v, np.generic):
        v = np.asarray(v)
    if isinstance(v, np.ndarray) and type(v.dtype).__module__.startswith("ml_dtypes"):
        # bfloat16 / float8: hand the bytes over with the ONNX element type.
        code = onnx.helper.np_dtype_to_tensor_dtype(v.dtype)
        if v.dtype.itemsize == 1 or v.dtype.itemsize == 2:
            raw = np.ascontiguousarray(v).view(np.uint8 if v.dtype.itemsize == 1 else np.uint16)
            return ort.OrtValue.ortvalue_from_numpy_with_onnx_type(raw, code)
    if isinstance(v, list):
        return [_feed(x) for x in v]
    return v


_ORT_TYPES = {
    "tensor(float)": np.float32,
    "tensor(double)": np.float64,
    "tensor(int64)": np.int64,
    "tensor(int32)": np.int32,
    "tensor(bool)": np.bool_,
}


def run(sess: ort.InferenceSession, feeds: dict[str, Any]) -> list[Any]:
    given = {}
    for i in sess.get_inputs():
        if i.name in feeds:
            given[i.name] = _feed(feeds[i.name])
        elif i.type in _ORT_TYPES and all(isinstance(d, int) for d in i.shape):
            # An input the source does not have: onnxruntime keeps the graph inputs of folded
            # initializers of IR-3 models (the "light" models).  No node reads them.
            given[i.name] = np.zeros(i.shape, dtype=_ORT_TYPES[i.type])
    return list(sess.run(None, given))


def _edge_sets(g: Any) -> dict[int, tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]]:
    pos = {n.index: i for i, n in enumerate(g.nodes)}
    out = {}
    for e in g.node_edges:
        ins = sorted((pos[x.node_index], x.src_arg_index, x.dst_arg_index) for x in e.input_edges)
        outs = sorted((pos[x.node_index], x.src_arg_index, x.dst_arg_index) for x in e.output_edges)
        if ins or outs:
            out[pos[e.node_index]] = (ins, outs)
    return out


def graph_differences(theirs: Any, ours: Any, where: str = "$") -> list[str]:
    """What from_onnx derives differently from onnxruntime's own .ort of the same graph.

    Returns [] when onnxruntime changed the node list itself (it inlines function
    operators it has no kernel for), since then there is nothing to compare.
    """
    if [n.op_type for n in theirs.nodes] != [n.op_type for n in ours.nodes]:
        return []
    diffs = []
    for i, (a, b) in enumerate(zip(theirs.nodes, ours.nodes, strict=True)):
        for f in ("inputs", "outputs", "since_version", "domain", "name"):
            if getattr(a, f) != getattr(b, f):
                diffs.append(f"{where}.nodes[{i}].{f}: {getattr(a, f)!r} != {getattr(b, f)!r}")
        if sorted(a.implicit_inputs) != sorted(b.implicit_inputs):
            diffs.append(
                f"{where}.nodes[{i}].implicit_inputs: {a.implicit_inputs} != {b.implicit_inputs}"
            )
        if a.input_arg_counts.tolist() != b.input_arg_counts.tolist():
            diffs.append(f"{where}.nodes[{i}].input_arg_counts")
        sub_a = {x.name: x for x in a.attributes}
        for x in b.attributes:
            y = sub_a.get(x.name)
            if y is None:
                diffs.append(f"{where}.nodes[{i}] attribute {x.name} missing")
                continue
            if x.g is not None and y.g is not None:
                diffs.extend(graph_differences(y.g, x.g, f"{where}.nodes[{i}].{x.name}"))
            for k, (gx, gy) in enumerate(zip(x.graphs, y.graphs, strict=False)):
                diffs.extend(graph_differences(gy, gx, f"{where}.nodes[{i}].{x.name}[{k}]"))
    # onnxruntime drops initializers no node uses, even without optimizations; we keep them.
    used = {x for n in ours.nodes for x in (*n.inputs, *n.implicit_inputs)} | set(ours.outputs)
    if sorted(t.name for t in theirs.initializers) != sorted(
        t.name for t in ours.initializers if t.name in used
    ):
        diffs.append(f"{where}.initializers")
    if _edge_sets(theirs) != _edge_sets(ours):
        diffs.append(f"{where}.node_edges")
    if {v.name for v in theirs.node_args} != {v.name for v in ours.node_args}:
        diffs.append(f"{where}.node_args names")
    if theirs.inputs != ours.inputs or theirs.outputs != ours.outputs:
        diffs.append(f"{where}.inputs/outputs")
    return diffs


def check_model_outputs(ort_file: str, onnx_bytes: bytes, feeds: dict[str, Any]) -> None:
    """Assert the .ort and the converted .onnx give identical outputs on ``feeds``."""
    a = run(session(ort_file), feeds)
    b = run(session(onnx_bytes), feeds)
    assert len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))


def _domains(om: OrtModel) -> set[str]:
    return {n.domain for g in om.graphs() for n in g.nodes}


def check(src: Source, level: str, folder: str) -> Outcome:
    out = Outcome(src.name, level)
    path = os.path.join(folder, src.name.replace("/", "__") + f".{level}.ort")
    try:
        save_ort(src.model, path, level)
    except Exception as exc:  # onnxruntime cannot run this model: not in the total
        out.reason = f"onnxruntime cannot save it: {str(exc).splitlines()[0][:120]}"
        return out
    out.saved = True
    with load(path) as om:
        out.tables = touch(om)
        out.loaded = True
        out.standard = _domains(om) <= STANDARD_DOMAINS
        proto = to_onnx(om)
    if out.standard:
        try:
            onnx.checker.check_model(proto)
        except Exception as exc:
            out.reason = f"check_model: {str(exc).splitlines()[0][:160]}"
            return out
    out.converted = True
    try:
        ref = session(path)
        ours = session(proto.SerializeToString())
    except Exception as exc:
        out.reason = f"onnxruntime rejects the converted model: {str(exc).splitlines()[0][:160]}"
        return out
    if not src.inputs:
        out.ran = True
        out.identical = True
        out.reason = "no inputs to run with (sessions created)"
        return out
    try:
        expected = [run(ref, feeds) for feeds in src.inputs]
    except Exception as exc:
        # Not about the conversion: onnxruntime cannot run its own .ort on these inputs.
        out.reason = f"the .ort itself does not run: {str(exc).splitlines()[0][:140]}"
        return out
    try:
        results = [(e, run(ours, feeds)) for e, feeds in zip(expected, src.inputs, strict=True)]
    except Exception as exc:
        out.reason = f"run failed: {str(exc).splitlines()[0][:160]}"
        return out
    out.ran = True
    out.identical = all(
        len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True)) for a, b in results
    )
    if not out.identical:
        out.reason = "outputs differ"
    return out


def check_all(
    sources: Sequence[Source], levels: Sequence[str] = ("basic", "extended")
) -> Iterator[Outcome]:
    with tempfile.TemporaryDirectory(prefix="wireplan-ort-corpus-") as folder:
        for src in sources:
            for level in levels:
                outcome = check(src, level, folder)
                for f in glob.glob(os.path.join(folder, "*.ort")):
                    os.unlink(f)
                yield outcome


def summary(outcomes: Sequence[Outcome]) -> str:
    lines = []
    for level in sorted({o.level for o in outcomes}):
        sel = [o for o in outcomes if o.level == level]
        saved = [o for o in sel if o.saved]
        lines.append(
            f"{level}: {len(sel)} sources, onnxruntime saved {len(saved)} .ort files; of these "
            f"loaded {sum(o.loaded for o in saved)}, converted {sum(o.converted for o in saved)}, "
            f"ran {sum(o.ran for o in saved)}, identical {sum(o.identical for o in saved)} "
            f"(non-standard domains: {sum(not o.standard for o in saved)}, "
            f"tables read: {sum(o.tables for o in saved)})"
        )
    misses = collections.Counter(
        (o.level, o.reason) for o in outcomes if o.saved and not (o.identical and o.ran)
    )
    for (level, reason), n in sorted(misses.items()):
        names = [o.name for o in outcomes if o.level == level and o.reason == reason][:4]
        lines.append(f"  miss [{level}] x{n}: {reason} (e.g. {', '.join(names)})")
    notes = collections.Counter(o.reason for o in outcomes if o.saved and o.identical and o.reason)
    for reason, n in notes.items():
        lines.append(f"  note x{n}: {reason}")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "every", nargs="?", type=int, default=1, help="check every N-th source only (default 1)"
    )
    step = parser.parse_args(argv[1:]).every
    start = time.perf_counter()
    sources = (node_sources() + data_sources())[::step]
    outcomes = []
    for i, o in enumerate(check_all(sources)):
        outcomes.append(o)
        if i % 200 == 0:
            print(f"... {i} checks, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    print(summary(outcomes))
    print(f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
