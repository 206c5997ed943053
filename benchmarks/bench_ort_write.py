"""Benchmark: writing .ort files (wireplan's planned writer vs peers).

Run: ``.venv/bin/python benchmarks/bench_ort_write.py [--mb 400] [--nodes 5000] [--repeat 5]``

Cases, all on the same data in the same run (files under a temporary
folder in /tmp, removed afterwards), medians of ``--repeat`` runs (the
onnxruntime converter, which takes seconds, runs ``--slow-repeat`` times):

1. ~400 MB of float32 weights given as an .onnx with external data,
   converted to .ort:
   - wireplan ``convert_onnx_to_ort`` (alignment 64; threads auto and 1),
   - (a) the floor: a plain copy of the same weight bytes into a new
     pre-sized file through the same atomic path (mmap, one memcpy, fsync, rename),
   - (b) ``python -m onnxruntime.tools.convert_onnx_models_to_ort
     --optimization_style Fixed`` (a subprocess, as it is used),
   - (c) the same buffer built with the ``flatbuffers`` Python ``Builder``
     (the test suite's schema-driven reference encoder, ``CreateNumpyVector``
     for payloads) and written atomically.
2. A model of thousands of small nodes and few weights: the same peers.
3. onnxruntime session creation from our aligned .ort through
   ``wireplan.ort.runtime`` (zero-copy options) next to creation from the .onnx.

Not measured: cold page cache (the sources are read once first), other
alignments (they change padding only).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import flatbuffers
import numpy as np
import onnx
import onnxruntime as ort

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from ort_write import models  # noqa: E402
from ort_write.fbref import FbEncoder  # noqa: E402
from wireplan.core.atomic import atomic_open, write_bytes  # noqa: E402
from wireplan.ort import kernel_types, writer  # noqa: E402
from wireplan.ort.onnx_bridge import from_onnx  # noqa: E402
from wireplan.ort.runtime import session  # noqa: E402
from wireplan.ort.schema import ORT_SCHEMA  # noqa: E402


def median_time(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.0f} ms" if seconds >= 0.01 else f"{seconds * 1e3:.2f} ms"


def warm(path: Path) -> None:
    with open(path, "rb") as f:
        while f.read(16 << 20):
            pass


def plain_copy(src: Path, dst: Path) -> None:
    """The same bytes into a new file: in-kernel sendfile, fsync, rename (wireplan.core.atomic)."""
    size = src.stat().st_size
    with open(src, "rb") as s, atomic_open(dst) as f:
        f.flush()
        done = 0
        while done < size:
            done += os.sendfile(f.fileno(), s.fileno(), done, size - done)


def ort_converter(src: Path, out_dir: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "onnxruntime.tools.convert_onnx_models_to_ort",
            "--optimization_style",
            "Fixed",
            "--output_dir",
            str(out_dir),
            str(src),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def stock_builder(src: Path, dst: Path) -> None:
    """The same root (resolver included) encoded by flatbuffers.Builder, then written."""
    om = from_onnx(src, signature=kernel_types.signature)
    try:
        root = {
            "ort_version": writer.ORT_VERSION,
            "model": om.model,
            "kernel_type_str_resolver": kernel_types.resolver_for(om),
        }
        enc = FbEncoder(
            ORT_SCHEMA,
            omit_empty_strings=True,
            keep_empty=frozenset(writer._KEEP_EMPTY),
        )
        write_bytes(dst, enc.encode(root))
    finally:
        om.close()


def save_external(model: onnx.ModelProto, path: Path) -> None:
    onnx.save(
        model,
        os.fspath(path),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location=path.name + ".data",
        size_threshold=1024,
    )


def conversion_rows(
    title: str, src: Path, tmp: Path, repeat: int, slow_repeat: int, data_file: Path | None
) -> list[str]:
    warm(src)
    if data_file is not None:
        warm(data_file)
    dst = tmp / "ours.ort"
    ours_auto = median_time(lambda: writer.convert_onnx_to_ort(src, dst), repeat)
    ours_1 = median_time(lambda: writer.convert_onnx_to_ort(src, dst, threads=1), repeat)
    size = dst.stat().st_size
    rows = [f"| {title}: wireplan `convert` (threads auto) | {fmt(ours_auto)} | 1.00 |"]
    rows.append(
        f"| {title}: wireplan `convert` (threads=1) | {fmt(ours_1)} | {ours_1 / ours_auto:.2f} |"
    )
    if data_file is not None:
        floor = median_time(lambda: plain_copy(data_file, tmp / "copy.bin"), repeat)
        rows.append(
            f"| {title}: (a) plain copy of the weight bytes (floor) | {fmt(floor)} | "
            f"{floor / ours_auto:.2f} |"
        )
    out_dir = tmp / "ortconv"
    out_dir.mkdir(exist_ok=True)
    theirs = median_time(lambda: ort_converter(src, out_dir), slow_repeat)
    rows.append(
        f"| {title}: (b) onnxruntime `convert_onnx_models_to_ort` | {fmt(theirs)} | "
        f"{theirs / ours_auto:.2f} |"
    )
    builder = median_time(lambda: stock_builder(src, tmp / "builder.ort"), max(1, repeat // 2))
    rows.append(
        f"| {title}: (c) flatbuffers Python `Builder`, same buffer | {fmt(builder)} | "
        f"{builder / ours_auto:.2f} |"
    )
    # Sanity: both files load in onnxruntime.
    session(dst)
    session(tmp / "builder.ort")
    rows.append(f"| {title}: our file size | {size / 1e6:.1f} MB | |")
    for f in list(out_dir.iterdir()):
        if f.is_file():
            f.unlink()
    return rows


def session_rows(src_onnx: Path, our_ort: Path, repeat: int, title: str) -> list[str]:
    def from_ort() -> None:
        session(our_ort, config={"session.disable_prepacking": "1"})

    def from_onnx_file() -> None:
        o = ort.SessionOptions()
        o.add_session_config_entry("session.disable_prepacking", "1")
        ort.InferenceSession(str(src_onnx), o, providers=["CPUExecutionProvider"])

    a = median_time(from_ort, repeat)
    b = median_time(from_onnx_file, repeat)
    return [
        f"| {title}: session from our aligned .ort (`session()`, zero-copy) | {fmt(a)} | 1.00 |",
        f"| {title}: session from the .onnx | {fmt(b)} | {b / a:.2f} |",
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--mb", type=int, default=400, help="weight megabytes of the big model")
    p.add_argument("--nodes", type=int, default=5000, help="nodes of the many-nodes model")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--slow-repeat", type=int, default=2)
    p.add_argument(
        "--dir", default="/tmp", help="folder for the files (/tmp: disk; /dev/shm: tmpfs, no I/O)"
    )
    args = p.parse_args(argv)

    print("# .ort writing benchmark\n")
    print(
        f"machine: {platform.machine()} {os.cpu_count()} cores ({platform.processor() or 'cpu'}), "
        f"Python {platform.python_version()}, numpy {np.__version__}, onnx {onnx.__version__}, "
        f"onnxruntime {ort.__version__}, flatbuffers {flatbuffers.__version__}\n"
    )
    print(f"files in {args.dir}; every file write of wireplan and of the floor ends with fsync\n")
    with tempfile.TemporaryDirectory(prefix="wireplan-bench-ort-write-", dir=args.dir) as t:
        tmp = Path(t)
        print("| case | median | ratio vs first row of its group |")
        print("|---|---|---|")
        big = tmp / "big.onnx"
        save_external(models.weights(args.mb << 20, tensors=8), big)
        for row in conversion_rows(
            f"{args.mb} MB weights", big, tmp, args.repeat, args.slow_repeat, tmp / "big.onnx.data"
        ):
            print(row, flush=True)
        writer.convert_onnx_to_ort(big, tmp / "big.ort", alignment=4096)
        for row in session_rows(big, tmp / "big.ort", args.repeat, f"{args.mb} MB weights"):
            print(row, flush=True)
        shutil.rmtree(tmp / "ortconv", ignore_errors=True)
        for f in tmp.iterdir():
            f.unlink()
        many = tmp / "many.onnx"
        onnx.save(models.many_nodes(args.nodes), os.fspath(many))
        for row in conversion_rows(
            f"{args.nodes} nodes", many, tmp, args.repeat, args.slow_repeat, None
        ):
            print(row, flush=True)
        # Metadata alone: plan (pack) the many-nodes model, no file.
        om = from_onnx(many, signature=kernel_types.signature)
        plan_t = median_time(lambda: writer.plan(om), args.repeat)
        root = {
            "ort_version": writer.ORT_VERSION,
            "model": om.model,
            "kernel_type_str_resolver": kernel_types.resolver_for(om),
        }
        enc = FbEncoder(
            ORT_SCHEMA, omit_empty_strings=True, keep_empty=frozenset(writer._KEEP_EMPTY)
        )
        enc_t = median_time(lambda: enc.encode(root), args.repeat)
        print(
            f"| {args.nodes} nodes, metadata only: wireplan `plan()` (resolver + layout + "
            f"packing) | {fmt(plan_t)} | 1.00 |"
        )
        print(
            f"| {args.nodes} nodes, metadata only: flatbuffers `Builder` encode of the same "
            f"root | {fmt(enc_t)} | {enc_t / plan_t:.2f} |"
        )
        conv_t = median_time(lambda: from_onnx(many, signature=kernel_types.signature), args.repeat)
        print(
            f"| {args.nodes} nodes: `from_onnx()` only (reader helper's bridge) | {fmt(conv_t)} | |"
        )
        om.close()
        writer.convert_onnx_to_ort(many, tmp / "many.ort")
        for row in session_rows(many, tmp / "many.ort", args.repeat, f"{args.nodes} nodes"):
            print(row, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
