"""The .ort part of ``wireplan demo``: convert, load zero-copy, run in onnxruntime."""

from __future__ import annotations

import pathlib
import time
from typing import Any, TextIO

import numpy as np

from wireplan.ort import onnxruntime_door as door
from wireplan.ort import reader, writer
from wireplan.ort.sessions import session

__all__ = ["run"]


def _largest_alignment(offset: int, cap: int = 4096) -> int:
    a = 1
    while a < cap and offset % (a * 2) == 0:
        a *= 2
    return a


def run(out: TextIO, workdir: pathlib.Path) -> None:
    """Convert the built-in example model to .ort (alignment 64), load it, run it if possible."""
    from wireplan.ort.onnx import example  # needs onnx, an optional dependency

    proto = example.example_model()
    onnx_path = workdir / "example.onnx"
    ort_path = workdir / "example.ort"
    onnx_path.write_bytes(proto.SerializeToString())
    # The newest format the installed onnxruntime loads (5 for 1.13-1.15), so that it runs.
    version = int(writer.ORT_VERSION)
    if door.available():
        version = max(set(writer.FORMAT_VERSIONS) & set(door.loadable_format_versions()))
    start = time.perf_counter()
    writer.convert_onnx_to_ort(onnx_path, ort_path, alignment=64, format_version=version)
    first = time.perf_counter() - start
    start = time.perf_counter()
    writer.convert_onnx_to_ort(onnx_path, ort_path, alignment=64, format_version=version)
    again = time.perf_counter() - start
    print(
        f"   converted {onnx_path.name} -> {ort_path.name} ({ort_path.stat().st_size} bytes, "
        f"format version {version}) in {first * 1e3:.1f} ms "
        f"(first call: reads the operator schemas), {again * 1e3:.1f} ms again, fsync included",
        file=out,
    )
    with reader.load(ort_path) as om:
        graph = om.graph
        offsets = reader.payload_offsets(om)
        ops = ", ".join(n.op_type for n in graph.nodes)
        nbytes = sum(n for _, _, _, n in offsets)
        worst = min((_largest_alignment(off) for _, _, off, _ in offsets), default=0)
        print(f"   loaded zero-copy: {len(graph.nodes)} nodes ({ops})", file=out)
        print(
            f"   initializers: {len(graph.initializers)}, {nbytes} bytes; every payload offset "
            f"is a multiple of {worst} (asked: 64)",
            file=out,
        )
        shares = all(
            np.shares_memory(t.raw_data, np.frombuffer(om.source.buffer, np.uint8))
            for t in graph.initializers
            if t.nbytes
        )
        print(f"   weights are views into the file mapping: {shares}", file=out)
    if not door.available():
        print(
            "   skipped running the model: onnxruntime is not installed "
            '(pip install "wireplan[onnxruntime]")',
            file=out,
        )
        return
    x = np.random.default_rng(0).standard_normal((2, 64)).astype(np.float32)
    ours: Any = session(ort_path).run(None, {"x": x})
    ref: Any = session(onnx_path).run(None, {"x": x})
    same = all(np.array_equal(a, b) for a, b in zip(ours, ref, strict=True))
    print(
        f"   onnxruntime {door.version()} ran our .ort (zero-copy session) and the .onnx: "
        f"outputs {'identical' if same else 'DIFFERENT'} (shape {tuple(ours[0].shape)})",
        file=out,
    )
