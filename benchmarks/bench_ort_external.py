"""Benchmark: .ort with external data past 2 GiB (convert time against a copy, memory, sessions).

Run: ``.venv/bin/python benchmarks/bench_ort_external.py [--dir /tmp] [--repeat 3]
[--sizes 0.3,0.6,1.2,2.4] [--plot docs/figures]``

The models are ``tests/ort_write/big.py``'s with ``dense=True``: 6 float32
weights in the external data file of an .onnx, every byte random, each at an
offset 100 bytes past a multiple of 4096 (so the writer lays them all out
again), plus a small head that onnxruntime's optimizer rewrites; ``--sizes``
in GB of weights (2.4: six of 400 MB).  Files live in a temporary folder under
``--dir``, one size at a time, removed afterwards.

1. Convert, for each size, each in a fresh interpreter
   (``tests/ort_write/big.convert_in_subprocess``: the time of the call with
   onnx and onnxruntime imported before the clock starts, and the process's
   peak RSS, ``VmHWM``, which counts the mapped file pages it touched), with
   ``durable=False`` and ``durable=True``:

   - ``.onnx -> .ort``: ``writer.convert_onnx_to_ort(external_data=True,
     alignment=4096)``, no optimizing;
   - ``.ort -> .onnx``: ``convert_ort_to_onnx(external_data=True)`` of that
     .ort (its ``.onnx.data`` is a hard link to the ``.ort.data``);
   - optimized: ``wireplan.ort.convert`` (``optimization="fixed"``): up to
     512 MiB (1.5 GiB before onnxruntime 1.20) onnxruntime writes its own
     .ort, which is re-planned; past it, an optimized .onnx with external
     initializers;

   next to the floor: ``shutil.copyfile`` (sendfile) of the .onnx.data file
   into a new file, without and with ``os.fsync`` of the copy.  Rounds: every
   case once per round, the order rotated, old outputs removed and
   ``os.sync()`` before each run (untimed), so no case pays for another's
   writeback.  Medians and ranges over ``--repeat`` rounds; ratios to the
   copy are the median of the rounds' ratios.
2. Session creation, on the largest size: ``wireplan.ort.session`` on the
   external .ort (reads the .ort, builds the equivalent .onnx pointing into
   ``.ort.data``, saves it as a temporary file, creates the session) against
   ``onnxruntime.InferenceSession`` on that same .onnx kept as a file, and on
   the source .onnx; and a 1 MB model; medians of ``--repeat * 3`` runs,
   warm page cache.

``--plot DIR`` draws the convert times against size as
``DIR/ort-external-convert.svg`` (needs matplotlib).  Not measured: cold page
cache (the source is in it, having just been written), the first call of a
process (importing onnx and onnxruntime: about a second).
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
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import report  # noqa: E402
from figures import Series, environment, require, size_plot  # noqa: E402
from ort_write import big, models  # noqa: E402
from wireplan.ort import session, writer  # noqa: E402
from wireplan.ort.onnx.save import convert_ort_to_onnx  # noqa: E402

FIGURE = "ort-external-convert.svg"
#: The conversions (``big.ROUTES``), in the order of the peak RSS cells.
ROUTES = ("onnx-ort", "ort-onnx", "optimized")
COPY = "copy"


def _s(xs: list[float]) -> str:
    return f"{statistics.median(xs):.2f} s ({min(xs):.2f}-{max(xs):.2f})"


def _clean(*paths: Path) -> None:
    for p in paths:
        if p.exists():
            p.unlink()
    os.sync()


# A case: (route or COPY, durable).
Case = tuple[str, bool]


def convert_rounds(
    folder: Path, src: Path, src_ort: Path, repeat: int
) -> tuple[dict[Case, list[float]], dict[Case, list[int]]]:
    """Times and peak RSS of every case over ``repeat`` rotated rounds."""
    data = folder / "big.onnx.data"
    out_ort, out_onnx, copied = folder / "out.ort", folder / "out.onnx", folder / "copy.bin"
    outputs = (out_ort, folder / "out.ort.data", out_onnx, folder / "out.onnx.data", copied)
    times: dict[Case, list[float]] = {}
    rss: dict[Case, list[int]] = {}

    def copy(durable: bool) -> None:
        t = time.perf_counter()
        shutil.copyfile(data, copied)
        if durable:
            fd = os.open(copied, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        times.setdefault((COPY, durable), []).append(time.perf_counter() - t)

    def convert(route: str, durable: bool) -> None:
        source, dst = (src_ort, out_onnx) if route == "ort-onnx" else (src, out_ort)
        peak, dt = big.convert_in_subprocess(source, dst, route=route, durable=durable, warm=True)
        times.setdefault((route, durable), []).append(dt)
        rss.setdefault((route, durable), []).append(peak)

    cases: list[Callable[[], None]] = []
    for durable in (False, True):
        cases.append(lambda d=durable: copy(d))
        cases += [lambda r=route, d=durable: convert(r, d) for route in ROUTES]
    for r in range(repeat):
        k = r % len(cases)
        for case in cases[k:] + cases[:k]:
            _clean(*outputs)
            case()
    _clean(*outputs)
    return times, rss


def convert_row(
    gb: float, times: dict[Case, list[float]], rss: dict[Case, list[int]]
) -> tuple[str, ...]:
    """One size: medians in seconds, and each conversion against the copy with the same
    fsync as the median of the rounds' ratios (a round's cases share the machine's load)."""
    med = {case: statistics.median(ts) for case, ts in times.items()}

    def vs_copy(route: str, durable: bool) -> tuple[str, str]:
        pairs = zip(times[(route, durable)], times[(COPY, durable)], strict=True)
        ratio = statistics.median(t / c for t, c in pairs)
        return f"{med[(route, durable)]:.2f}", f"{ratio:.2f}"

    peaks = " / ".join(f"{max(rss[(r, False)] + rss[(r, True)]) / 2**20:.0f}" for r in ROUTES)
    return (
        f"{gb:g} GB",
        f"{med[(COPY, False)]:.2f}",
        *vs_copy("onnx-ort", False),
        f"{med[(COPY, True)]:.2f}",
        *vs_copy("onnx-ort", True),
        *vs_copy("optimized", False),
        *vs_copy("optimized", True),
        f"{med[('ort-onnx', False)]:.2f}",
        f"{med[('ort-onnx', True)]:.2f}",
        f"{peaks} MiB",
    )


def plot(
    path: Path,
    points: dict[float, dict[Case, list[float]]],
    repeat: int,
    loadavg: tuple[float, float],
    where: str,
) -> None:
    """Convert time against model size, with the copy floor (the same run times)."""
    series = {
        ("onnx-ort", False): Series(".onnx -> .ort, no fsync", "C0", "o", "--"),
        ("onnx-ort", True): Series(".onnx -> .ort, durable", "C0", "o"),
        ("optimized", False): Series("optimized .onnx -> .ort, no fsync", "C3", "^", "--"),
        ("optimized", True): Series("optimized .onnx -> .ort, durable", "C3", "^"),
        (COPY, False): Series("copy of the data file, no fsync", "C7", "s", "--"),
        (COPY, True): Series("copy of the data file + fsync", "C7", "s"),
        ("ort-onnx", False): Series(".ort -> .onnx (hard link), no fsync", "C2", "v", "--"),
        ("ort-onnx", True): Series(".ort -> .onnx (hard link), durable", "C2", "v"),
    }
    for gb, times in sorted(points.items()):
        for key, s in series.items():
            s.add(gb, times[key])
    size_plot(
        path,
        list(series.values()),
        title=f"Converting models with dense external data: time against size ({where})",
        xlabel="float32 weights, 6 tensors (GB; the .onnx.data file)",
        ylabel="time per conversion (ms)",
        caption=(
            f"Medians of {repeat} rounds, bars min-max; a round runs every case once, order "
            "rotated, each after os.sync(); a fresh interpreter per conversion, imports done.\n"
            "Solid: fsync of every file written (durable=True; the copy fsynced); dashed: no "
            "fsync. Optimized: up to 512 MiB onnxruntime writes an .ort, past it an .onnx.\n"
            + environment(onnxruntime=ort.__version__, onnx=onnx.__version__, numpy=np.__version__)
            + f".\nShared machine, load average {loadavg[0]:.1f} at the start, {loadavg[1]:.1f} "
            "at the end: compare the lines at one size, not absolute times."
        ),
    )


def _time(fn: Callable[[], Any], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def _ms(xs: list[float]) -> str:
    return f"{statistics.median(xs) * 1e3:.0f} ms ({min(xs) * 1e3:.0f}-{max(xs) * 1e3:.0f})"


def session_row(label: str, src: Path, ort_path: Path, n: int) -> tuple[str, ...]:
    back = ort_path.with_name(ort_path.stem + "-plain.onnx")
    convert_ort_to_onnx(ort_path, back, external_data=True, durable=False)
    opts = {"providers": ["CPUExecutionProvider"]}
    cases = {
        "`wireplan.ort.session(model.ort)` (via a temporary .onnx over `.ort.data`)": lambda: (
            session(ort_path)
        ),
        "`onnxruntime.InferenceSession` on the same .onnx kept as a file": lambda: (
            ort.InferenceSession(str(back), **opts)
        ),
        "`onnxruntime.InferenceSession` on the source .onnx": lambda: ort.InferenceSession(
            str(src), **opts
        ),
    }
    for fn in cases.values():
        fn()  # warm up the page cache
    results = {name: _time(fn, n) for name, fn in cases.items()}
    return (label, *(_ms(ts) for ts in results.values()))


CONVERT = (
    "weights | copy: | .onnx -> .ort: | / copy: | copy + fsync: | durable: | / copy + fsync: "
    "| optimized: | / copy: | durable: | / copy + fsync: | .ort -> .onnx: | durable: "
    "| peak RSS:"
)
SESSIONS = (
    "model | `session(model.ort)` | `InferenceSession` on that .onnx kept as a file "
    "| on the source .onnx"
)


def render(r: dict[str, Any]) -> str:
    """The page's ``ort-external`` section from a run's ``result``."""
    return report.join(
        report.head(
            "ORT: external data past 2 GiB",
            r["command"],
            r["date"],
            {
                "Machine": r["machine"],
                "Versions": r["versions"],
                "Method": "`tests/ort_write/big.py` with `dense=True` (six random weights, "
                "misaligned); a fresh interpreter per conversion (peak RSS: `VmHWM`); rotated "
                f"rounds, `os.sync()` before each; medians of {r['repeat']} (ranges: the figure), "
                "ratios per round",
            },
        ),
        [
            "Seconds; `external_data=True`, no fsync or `durable=True`, against `shutil.copyfile` "
            "of the .onnx.data without or with fsync; peak RSS of .onnx -> .ort / .ort -> .onnx "
            "/ optimized:"
        ],
        report.table(CONVERT, r["convert"]),
        [f"![Convert time against model size](figures/{FIGURE})"],
        [
            "Weights start 100 bytes past a page; mapped copies were slower here than the "
            "kernel's.",
            "Optimized: onnxruntime first reads and writes every weight (its own .ort in memory "
            "up to 512 MiB; 1.5 GiB before 1.20).",
        ],
        [
            f"Session creation (median of {r['repeat'] * 3}, warm):",
        ],
        report.table(SESSIONS, r["sessions"]),
        [
            "Not measured: cold cache, the first call of a process (imports).",
        ],
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", default=tempfile.gettempdir())
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--sizes",
        type=lambda v: [float(x) for x in v.split(",") if x],
        default=[0.3, 0.6, 1.2, 2.4],
        help="GB of weights (comma-separated); the largest also times sessions",
    )
    parser.add_argument("--plot", type=Path, metavar="DIR", help=f"write DIR/{FIGURE}")
    parser.add_argument(
        "--markdown", type=Path, metavar="FILE", help="write the ort-external section of FILE"
    )
    args = parser.parse_args(argv)
    if args.plot is not None:
        require()  # fail now, not after the measurements
    load_before = report.loadavg()
    rows: list[tuple[str, ...]] = []
    points: dict[float, dict[Case, list[float]]] = {}
    sessions: list[tuple[str, ...]] = []
    n = args.repeat * 3
    for gb in sorted(args.sizes):
        folder = Path(tempfile.mkdtemp(prefix="bench-ort-external-", dir=args.dir))
        try:
            per_row = round(gb * 1e9 / (big.TENSORS * big.COLS * 4))
            src, _ = big.make(folder, rows=per_row, dense=True)
            src_ort = folder / "big.ort"
            writer.convert_onnx_to_ort(
                src, src_ort, external_data=True, alignment=4096, durable=False
            )
            times, rss = convert_rounds(folder, src, src_ort, args.repeat)
            rows.append(convert_row(gb, times, rss))
            points[gb] = times
            print(rows[-1], flush=True)
            if gb == max(args.sizes):
                sessions.append(session_row(f"{gb:g} GB (6 + 2 initializers)", src, src_ort, n))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="bench-ort-external-", dir=args.dir) as t:
        small_src = Path(t) / "small.onnx"
        onnx.save(
            models.weights(1 << 20, tensors=4),
            str(small_src),
            save_as_external_data=True,
            location="small.onnx.data",
            size_threshold=0,
        )
        writer.save(small_src, Path(t) / "small.ort", external_data=True, alignment=4096)
        sessions.append(session_row("1 MB (4 initializers)", small_src, Path(t) / "small.ort", n))
    load_after = report.loadavg()
    if args.plot is not None:
        plot(
            args.plot / FIGURE,
            points,
            args.repeat,
            (load_before, load_after),
            f"files in {args.dir}",
        )
    result = {
        "command": report.command("bench_ort_external.py", sys.argv[1:] if argv is None else argv),
        "date": report.today(),
        "machine": report.machine((load_before, load_after)),
        "versions": report.versions(
            numpy=np.__version__, onnx=onnx.__version__, onnxruntime=ort.__version__
        ),
        "repeat": args.repeat,
        "convert": rows,
        "sessions": sessions,
    }
    text = render(result)
    print(text)
    if args.markdown is not None:
        report.update(args.markdown, "ort-external", text)


if __name__ == "__main__":
    main()
