"""Reading .ort models: wireplan's verified zero-copy load next to its peers.

Run: ``.venv/bin/python benchmarks/bench_ort_read.py [--mb 400] [--repeat 5]``

Builds a model with about ``--mb`` MB of float32 weights (40 initializers
feeding a chain of Adds), has onnxruntime write it as .ort, and measures,
on a warm page cache, medians of ``--repeat`` runs:

1. ``wireplan.ort.load`` (zero copy, every table verified) at 1/100, 1/10
   and the full weight size: the time must not grow with the weights;
2. ``onnx.load`` of the same model as an inline .onnx;
3. reading the same .ort through onnxruntime's shipped flatc readers
   (``ort_flatbuffers_py``): root, every node's name/op/inputs/outputs, every
   initializer's name, dims and ``RawDataAsNumpy`` (also zero copy, but
   unverified);
4. ``load(copy=True, threads=2)`` next to the floor, the faster of two plain
   parallel reads of the whole file into one new numpy buffer (two threads
   with ``os.preadv``; a mapping and two threads of ``numpy.copyto``);
5. ``.ort -> .onnx`` (``convert_ort_to_onnx``, inline and with external
   data) next to ``onnx.save`` of the same ModelProto.

Not measured: cold-cache I/O (the files are read once before timing), and
onnxruntime session creation (the writer benchmark covers it).  wireplan's
conversions write atomically (temporary file, fsync, rename); ``onnx.save``
does not fsync, so a row with ``onnx.save`` plus fsync is shown as well.
Everything is written under /tmp and removed at the end.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort

import wireplan
from wireplan.core.buffers import MappedFile
from wireplan.ort import load
from wireplan.ort.onnx_bridge import convert_ort_to_onnx

_FBS = Path(ort.__file__).parent / "tools" / "ort_format_model"
sys.path.insert(0, str(_FBS))
from ort_flatbuffers_py.fbs.InferenceSession import InferenceSession  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from ort_write import models  # noqa: E402  (the weights chain the tests use too)


def build(total_mb: float, tensors: int = 40) -> onnx.ModelProto:
    """A chain of Adds over ``tensors`` float32 weights of ``total_mb`` MB in all."""
    return models.weights(int(total_mb * 1e6), tensors=tensors)


def save_ort(onnx_path: Path, dst: Path) -> None:
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.optimized_model_filepath = str(dst)
    so.add_session_config_entry("session.save_model_format", "ORT")
    ort.InferenceSession(str(onnx_path), so, providers=["CPUExecutionProvider"])


def median(fn: Callable[..., Any], repeat: int, setup: Callable[[], Any] | None = None) -> float:
    """Median wall time of ``fn()`` (or ``fn(setup())``, the setup untimed)."""
    times = []
    for _ in range(repeat):
        arg = setup() if setup is not None else None
        start = time.perf_counter()
        fn() if setup is None else fn(arg)
        times.append(time.perf_counter() - start)
        del arg
    return statistics.median(times)


def wireplan_load(path: Path) -> None:
    with load(path) as om:
        for t in om.graph.initializers:
            t.numpy()


def fbs_read(path: Path) -> None:
    with MappedFile(path) as mf:
        buf = mf.buffer
        root = InferenceSession.GetRootAs(buf, 0)
        g = root.Model().Graph()
        for i in range(g.NodesLength()):
            n = g.Nodes(i)
            n.Name()
            n.OpType()
            [n.Inputs(j) for j in range(n.InputsLength())]
            [n.Outputs(j) for j in range(n.OutputsLength())]
        arrays = []
        for i in range(g.InitializersLength()):
            t = g.Initializers(i)
            t.Name()
            t.DimsAsNumpy()
            arrays.append(t.RawDataAsNumpy())
        del arrays, root, g, buf


def parallel_read(path: Path, threads: int = 2) -> np.ndarray[Any, Any]:
    size = path.stat().st_size
    out = np.empty(size, dtype=np.uint8)
    fd = os.open(path, os.O_RDONLY)
    try:
        step = (size + threads - 1) // threads
        chunk = 8 << 20

        def part(k: int) -> None:
            start, end = k * step, min(size, (k + 1) * step)
            pos = start
            while pos < end:
                n = os.preadv(fd, [memoryview(out)[pos : min(end, pos + chunk)]], pos)
                if n <= 0:
                    raise OSError("short read")
                pos += n

        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(part, range(threads)))
    finally:
        os.close(fd)
    return out


def parallel_map_copy(path: Path, threads: int = 2) -> np.ndarray[Any, Any]:
    """The other plain parallel read: map the file, two threads copy halves into one buffer."""
    with MappedFile(path) as mf:
        src = np.frombuffer(mf.buffer, dtype=np.uint8)
        out = np.empty_like(src)
        step = (src.shape[0] + threads - 1) // threads
        with ThreadPoolExecutor(threads) as pool:
            list(
                pool.map(
                    lambda k: np.copyto(
                        out[k * step : (k + 1) * step], src[k * step : (k + 1) * step]
                    ),
                    range(threads),
                )
            )
    return out


def copy_load(path: Path) -> None:
    om = load(path, copy=True, threads=2)
    del om


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=400)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    ort.set_default_logger_severity(3)
    work = Path(tempfile.mkdtemp(prefix="wireplan-bench-ort-read-", dir="/tmp"))
    rows: list[tuple[str, float, str]] = []
    try:
        sizes = [args.mb / 100, args.mb / 10, args.mb]
        paths: dict[float, Path] = {}
        for mb in sizes:
            model = build(mb)
            p_onnx = work / f"m{mb:g}.onnx"
            onnx.save(model, str(p_onnx))
            p_ort = work / f"m{mb:g}.ort"
            save_ort(p_onnx, p_ort)
            paths[mb] = p_ort
            del model
        big_ort = paths[args.mb]
        big_onnx = work / f"m{args.mb:g}.onnx"
        for p in (*paths.values(), big_onnx):
            p.read_bytes()  # warm the page cache
        size_mb = big_ort.stat().st_size / 1e6

        for mb in sizes:
            fn = lambda p=paths[mb]: wireplan_load(p)  # noqa: E731
            fn()
            rows.append(
                (
                    f"wireplan `load` zero-copy, {paths[mb].stat().st_size / 1e6:.0f} MB .ort",
                    median(fn, args.repeat * 4),
                    "",
                )
            )
        zero = rows[-1][1]
        t = median(lambda: fbs_read(big_ort), args.repeat * 4)
        rows.append(("onnxruntime's flatc readers (unverified, zero-copy)", t, f"{t / zero:.2f}x"))
        t = median(lambda: onnx.load(str(big_onnx)), args.repeat)
        rows.append(("`onnx.load` of the inline .onnx", t, f"{t / zero:.0f}x"))

        t_pread = median(lambda: parallel_read(big_ort), args.repeat)
        t_map = median(lambda: parallel_map_copy(big_ort), args.repeat)
        floor = min(t_pread, t_map)
        rows.append(
            (
                f"plain read: 2-thread `os.preadv` of the {size_mb:.0f} MB file",
                t_pread,
                f"{t_pread / floor:.2f}x floor",
            )
        )
        rows.append(
            (
                "plain read: mmap + 2-thread `numpy.copyto` into one buffer",
                t_map,
                f"{t_map / floor:.2f}x floor",
            )
        )
        t = median(lambda: copy_load(big_ort), args.repeat)
        rows.append(("wireplan `load(copy=True, threads=2)`", t, f"{t / floor:.2f}x floor"))
        t1 = median(lambda: load(big_ort, copy=True, threads=1), args.repeat)
        rows.append(("wireplan `load(copy=True, threads=1)`", t1, f"{t1 / floor:.2f}x floor"))

        proto = onnx.load(str(big_onnx))
        reps = max(2, args.repeat // 2)
        t_save = median(lambda p=proto: onnx.save(p, str(work / "saved.onnx")), reps)
        rows.append(("`onnx.save` of the ModelProto (inline)", t_save, "1.00x"))
        t = median(lambda: convert_ort_to_onnx(big_ort, work / "conv.onnx"), reps)
        rows.append(
            ("wireplan .ort -> .onnx, inline (streamed)", t, f"{t / t_save:.2f}x onnx.save")
        )
        del proto
        # onnx.save with external data moves the payloads out of the message it is given:
        # a fresh ModelProto for every run (loaded untimed).
        t_ext_save = median(
            lambda p: onnx.save(
                p,
                str(work / "saved_ext.onnx"),
                save_as_external_data=True,
                location="saved_ext.onnx.data",
            ),
            reps,
            setup=lambda: onnx.load(str(big_onnx)),
        )
        rows.append(("`onnx.save` with external data", t_ext_save, "1.00x"))

        def save_ext_fsync(p: onnx.ModelProto) -> None:
            onnx.save(
                p,
                str(work / "saved_ext.onnx"),
                save_as_external_data=True,
                location="saved_ext.onnx.data",
            )
            for name in ("saved_ext.onnx", "saved_ext.onnx.data"):
                fd = os.open(work / name, os.O_RDONLY)
                os.fsync(fd)
                os.close(fd)

        t = median(save_ext_fsync, reps, setup=lambda: onnx.load(str(big_onnx)))
        rows.append(
            (
                "`onnx.save` with external data + fsync (as durable as ours)",
                t,
                f"{t / t_ext_save:.2f}x",
            )
        )
        t = median(
            lambda: convert_ort_to_onnx(
                big_ort, work / "conv_ext.onnx", external_data=True, threads=2
            ),
            reps,
        )
        rows.append(
            (
                "wireplan .ort -> .onnx, external data (4096-aligned)",
                t,
                f"{t / t_ext_save:.2f}x onnx.save ext",
            )
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"ORT read benchmark: {args.mb:g} MB of float32 weights in 40 initializers, medians")
    print(
        f"Machine: {platform.machine()} {os.cpu_count()} cores ({platform.processor() or platform.platform()}), "
        f"Python {platform.python_version()}, numpy {np.__version__}, onnx {onnx.__version__}, "
        f"onnxruntime {ort.__version__}, wireplan {wireplan.__version__}"
    )
    print()
    print("| operation | median | ratio |")
    print("|---|---:|---:|")
    for name, t, ratio in rows:
        shown = f"{t * 1e3:.2f} ms" if t < 1 else f"{t:.2f} s"
        print(f"| {name} | {shown} | {ratio} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
