"""Reading .ort models: wireplan's verified zero-copy load next to its peers.

Run: ``.venv/bin/python benchmarks/bench_ort_read.py [--mb 400] [--repeat 5]
[--sizes 13,130] [--plot docs/figures]``

Builds a model with about ``--mb`` MB of float32 weights (40 initializers
feeding a chain of Adds), has onnxruntime write it as .ort, and measures,
on a warm page cache, medians of ``--repeat`` runs:

1. at 1/100, 1/10 and the full weight size (and at the ``--sizes``), in
   rounds (each case once a round, the order rotated, so that load from other
   jobs falls on all of them alike): ``wireplan.ort.load`` (zero copy, every
   table verified; 4x the runs), ``load(copy=True, threads=2)`` and
   ``onnx.load`` of the same model as an inline .onnx.  Zero-copy load must
   not grow with the weights; a table gives median and min-max per size, and
   ``--plot DIR`` draws it as ``DIR/ort-read-load.svg`` (needs matplotlib);
2. at the full size, ``onnx.load`` over zero-copy load (both from 1.);
3. reading the same .ort through onnxruntime's shipped flatc readers
   (``ort_flatbuffers_py``): root, every node's name/op/inputs/outputs, every
   initializer's name, dims and ``RawDataAsNumpy`` (also zero copy, but
   unverified);
4. ``load(copy=True, threads=2)`` (from 1.) next to the floor, the faster of two plain
   parallel reads of the whole file into one new numpy buffer (two threads
   with ``os.preadv``; a mapping and two threads of ``numpy.copyto``);
5. ``.ort -> .onnx`` (``convert_ort_to_onnx``, inline and with external
   data) next to ``onnx.save`` of the same ModelProto.

Not measured: cold-cache I/O (the files are read once and synced before timing), and
onnxruntime session creation (the writer benchmark covers it).  wireplan's
conversions write atomically (temporary file, fsync, rename); ``onnx.save``
does not fsync, so a row with ``onnx.save`` plus fsync is shown as well.
Everything is written under /tmp and removed at the end.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort

import report
import wireplan
from figures import Series, environment, require, size_plot
from wireplan.core.buffers import MappedFile
from wireplan.ort import load
from wireplan.ort.onnx.save import convert_ort_to_onnx

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


def in_rounds(cases: dict[str, tuple[Callable[[], Any], int]]) -> dict[str, list[float]]:
    """Run times of each ``name: (fn, runs)``, timed in rounds after one untimed call each.

    Every round calls every case that has runs left once, the order rotated from
    round to round, so that load from other jobs falls on all of them alike.
    """
    names = list(cases)
    times: dict[str, list[float]] = {name: [] for name in names}
    for fn, _ in cases.values():
        fn()
    for r in range(max(runs for _, runs in cases.values())):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            fn, runs = cases[name]
            if r < runs:
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
    return times


def spread(times: list[float]) -> str:
    """Median (min-max), in ms."""
    return (
        f"{statistics.median(times) * 1e3:.2f} ms ({min(times) * 1e3:.2f}-{max(times) * 1e3:.2f})"
    )


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


OPERATIONS = "operation | median: | ratio:"
SIZES = ".ort size: | zero-copy `load`: | `load(copy=True, threads=2)`: | `onnx.load`: | `onnx.load` / copy:"


def render(r: dict[str, Any]) -> str:
    """The page's ``ort-read`` section from a run's ``result``."""
    return report.join(
        report.head(
            "ORT: reading",
            r["command"],
            r["date"],
            {"Machine": r["machine"], "Versions": r["versions"], "Method": r["method"]},
        ),
        report.table(OPERATIONS, r["operations"]),
        ["Load time against size:"],
        report.table(SIZES, r["sizes"]),
        [
            "![Load time against .ort size](figures/ort-read-load.svg)",
        ],
        [
            "The floor: the faster plain 2-thread read.  wireplan's conversions fsync;",
            "`onnx.save` does not.  Not measured: cold caches, session creation, many nodes.",
        ],
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=400)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument(
        "--sizes",
        type=lambda v: [float(x) for x in v.split(",") if x],
        default=[],
        help="more weight sizes (MB, comma-separated) for the load-against-size rows",
    )
    ap.add_argument("--plot", type=Path, metavar="DIR", help="write DIR/ort-read-load.svg")
    ap.add_argument(
        "--markdown", type=Path, metavar="FILE", help="write the ort-read section of FILE"
    )
    args = ap.parse_args(argv)
    if args.plot is not None:
        require()  # fail now, not after the measurements
    ort.set_default_logger_severity(3)
    load_before = os.getloadavg()[0]
    work = Path(tempfile.mkdtemp(prefix="wireplan-bench-ort-read-", dir="/tmp"))
    rows: list[tuple[str, float, str]] = []
    sweep: dict[float, dict[str, list[float]]] = {}
    try:
        sizes = sorted({args.mb / 100, args.mb / 10, args.mb, *args.sizes})
        paths: dict[float, Path] = {}
        onnx_paths: dict[float, Path] = {}
        for mb in sizes:
            model = build(mb)
            p_onnx = work / f"m{mb:g}.onnx"
            onnx.save(model, str(p_onnx))
            p_ort = work / f"m{mb:g}.ort"
            save_ort(p_onnx, p_ort)
            paths[mb], onnx_paths[mb] = p_ort, p_onnx
            del model
        big_ort = paths[args.mb]
        big_onnx = onnx_paths[args.mb]
        for p in (*paths.values(), *onnx_paths.values()):
            p.read_bytes()  # warm the page cache
        os.sync()  # the new files written back now, not during the timed runs
        size_mb = big_ort.stat().st_size / 1e6

        for mb in sizes:
            p_ort, p_onnx = paths[mb], onnx_paths[mb]
            sweep[mb] = in_rounds(
                {
                    "zero": (partial(wireplan_load, p_ort), args.repeat * 4),
                    "copy": (partial(copy_load, p_ort), args.repeat),
                    "onnx": (partial(onnx.load, str(p_onnx)), args.repeat),
                }
            )
        zero = statistics.median(sweep[args.mb]["zero"])
        rows.append((f"wireplan `load` zero-copy, {size_mb:.3g} MB .ort", zero, ""))
        t = median(lambda: fbs_read(big_ort), args.repeat * 4)
        rows.append(("onnxruntime's flatc readers (unverified, zero-copy)", t, f"{t / zero:.2f}x"))
        t = statistics.median(sweep[args.mb]["onnx"])
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
        t = statistics.median(sweep[args.mb]["copy"])
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
        ort_mb = {mb: paths[mb].stat().st_size / 1e6 for mb in sizes}
        onnx_mb = {mb: onnx_paths[mb].stat().st_size / 1e6 for mb in sizes}
    finally:
        shutil.rmtree(work, ignore_errors=True)

    result = {
        "command": report.command("bench_ort_read.py", sys.argv[1:] if argv is None else argv),
        "date": report.today(),
        "machine": report.machine((load_before, report.loadavg())),
        "versions": report.versions(
            numpy=np.__version__,
            onnx=onnx.__version__,
            onnxruntime=ort.__version__,
            wireplan=wireplan.__version__,
        ),
        "method": f"{args.mb:g} MB of float32 weights in 40 initializers, as .ort "
        "(onnxruntime) and inline .onnx; warm cache; medians of "
        f"{args.repeat} runs (zero-copy `load`: {args.repeat * 4})",
        "operations": [
            (name, f"{t * 1e3:.2f} ms" if t < 1 else f"{t:.2f} s", ratio) for name, t, ratio in rows
        ],
        "sizes": [
            (
                f"{ort_mb[mb]:.3g} MB",
                *(
                    f"{statistics.median(sweep[mb][k]) * 1e3:.2f} ms"
                    for k in ("zero", "copy", "onnx")
                ),
                f"{statistics.median(sweep[mb]['onnx']) / statistics.median(sweep[mb]['copy']):.1f}x",
            )
            for mb in sizes
        ],
    }
    text = render(result)
    print(text)
    if args.markdown is not None:
        report.update(args.markdown, "ort-read", text)
    if args.plot is not None:
        plot(
            args.plot / "ort-read-load.svg",
            sizes,
            sweep,
            ort_mb,
            onnx_mb,
            args.repeat,
            (load_before, os.getloadavg()[0]),
        )
    return 0


def plot(
    path: Path,
    sizes: list[float],
    sweep: dict[float, dict[str, list[float]]],
    ort_mb: dict[float, float],
    onnx_mb: dict[float, float],
    repeat: int,
    loadavg: tuple[float, float],
) -> None:
    """The load-against-size table as a figure (the same run times)."""
    series = [
        Series("wireplan load, zero-copy (every table verified)", "C0", "o"),
        Series("wireplan load(copy=True, threads=2)", "C2", "s"),
        Series("onnx.load of the same model as inline .onnx", "C3", "^", "--"),
    ]
    for mb in sizes:
        for s, key in zip(series, ("zero", "copy", "onnx"), strict=True):
            s.add(ort_mb[mb], sweep[mb][key])
    gap = max(abs(onnx_mb[mb] / ort_mb[mb] - 1) for mb in sizes)
    size_plot(
        path,
        series,
        title="Loading a model: time against size (float32 weights, 40 initializers)",
        xlabel=f".ort file size (MB; the .onnx is within {gap:.1%} of it)",
        caption=(
            f"Medians (zero-copy load {repeat * 4} runs, the others {repeat}), bars min-max; "
            "each round runs every case once, order rotated; warm page cache.\n"
            + environment(
                onnxruntime=ort.__version__,
                onnx=onnx.__version__,
                numpy=np.__version__,
                wireplan=wireplan.__version__,
            )
            + f".\nShared machine, load average {loadavg[0]:.1f} at the start, {loadavg[1]:.1f} "
            "at the end: compare the lines at one size, not absolute times."
        ),
    )


if __name__ == "__main__":
    raise SystemExit(main())
