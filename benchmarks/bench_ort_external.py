"""Benchmark: .ort with external data past 2 GiB (converting, memory, session creation).

Run: ``.venv/bin/python benchmarks/bench_ort_external.py [--dir /tmp] [--repeat 3]``

The model is ``tests/ort_write/big.py``'s: 6 float32 weights of 400 MB
(2.4 GB) in a *sparse* external data file of an .onnx (mostly holes, a few
random rows and pages), each weight at an offset 100 bytes past a multiple
of 4096, so the writer lays them all out again.  Files live in a temporary
folder under ``--dir``, removed afterwards.

1. Convert .onnx -> .ort + .ort.data (``external_data=True``, alignment
   4096, ``durable=False``), threads auto and 1, each in a fresh interpreter
   (``tests/ort_write/big.convert_in_subprocess``: the time of the
   ``convert_onnx_to_ort`` call, and the process's peak RSS from
   ``resource.getrusage``; onnx and onnxruntime imported before the clock
   starts, and once more with their import inside the call, as the first
   call of a process pays), next to the floor: ``shutil.copyfile`` of the
   same 2.4 GB data file into a new file (sendfile; no fsync either side).
   Rounds: every case once per round, the order rotated, old outputs
   removed and ``os.sync()`` before each run (untimed), so no case pays for
   another's writeback.  Medians and ranges over ``--repeat`` rounds.
2. Session creation: ``wireplan.ort.session`` on the external .ort (reads
   the .ort, builds the equivalent .onnx pointing into ``.ort.data``, saves
   it as a temporary file, creates the session) against
   ``onnxruntime.InferenceSession`` on that same .onnx kept as a file, and
   on the source .onnx; the 2.4 GB model and a 1 MB one; medians of
   ``--repeat * 3`` runs, warm page cache.

Not measured: cold page cache, fsync (``durable=True`` adds the writeback of
2.4 GB to the convert and nothing to the floor's page-cache copy), a
source that is not sparse (reading real data from disk costs the same for
both sides).
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
from ort_write import big, models  # noqa: E402
from wireplan.ort import session, writer  # noqa: E402
from wireplan.ort.onnx.save import convert_ort_to_onnx  # noqa: E402


def _ms(xs: list[float]) -> str:
    return f"{statistics.median(xs) * 1e3:.0f} ms ({min(xs) * 1e3:.0f}-{max(xs) * 1e3:.0f})"


def _clean(*paths: Path) -> None:
    for p in paths:
        if p.exists():
            p.unlink()
    os.sync()


def convert_rounds(folder: Path, src: Path, repeat: int) -> list[tuple[str, ...]]:
    data = folder / "big.onnx.data"
    dst = folder / "out.ort"
    outputs = (dst, folder / "out.ort.data", folder / "copy.bin")
    times: dict[str, list[float]] = {"auto": [], "1": [], "cold": [], "copy": []}
    rss: dict[str, list[int]] = {"auto": [], "1": [], "cold": []}

    def copy() -> None:
        t = time.perf_counter()
        shutil.copyfile(data, folder / "copy.bin")
        times["copy"].append(time.perf_counter() - t)

    def convert(threads: int | None, key: str) -> Callable[[], None]:
        def run() -> None:
            peak, dt = big.convert_in_subprocess(src, dst, threads, warm=key != "cold")
            times[key].append(dt)
            rss[key].append(peak)

        return run

    cases = [convert(None, "auto"), convert(1, "1"), convert(None, "cold"), copy]
    for r in range(repeat):
        for case in cases[r % 4 :] + cases[: r % 4]:
            _clean(*outputs)
            case()
    _clean(*outputs)
    floor = statistics.median(times["copy"])
    rows = [
        (
            label,
            _ms(times[key]),
            f"{statistics.median(times[key]) / floor:.2f}",
            f"{max(rss[key]) / 2**20:.0f} MiB",
        )
        for key, label in (
            ("auto", "wireplan `convert_onnx_to_ort`, threads auto"),
            ("1", "wireplan `convert_onnx_to_ort`, threads=1"),
            (
                "cold",
                "wireplan, threads auto, first call of the process (imports onnx and onnxruntime)",
            ),
        )
    ]
    rows.append(
        (
            "floor: `shutil.copyfile` (sendfile) of the 2.4 GB data file",
            _ms(times["copy"]),
            "1.00",
            "-",
        )
    )
    return rows


def _time(fn: Callable[[], Any], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


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


CONVERT = "case | time | / floor: | peak RSS:"
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
                "Method": "`tests/ort_write/big.py`'s six 400 MB weights, sparse, misaligned; "
                "a fresh interpreter per conversion (peak RSS: `VmHWM`); no fsync; "
                f"rotated rounds; medians of {r['repeat']}, range",
            },
        ),
        [".onnx (2.4 GB external data) -> .ort + .ort.data, `external_data=True, alignment=4096`:"],
        report.table(CONVERT, r["convert"]),
        [
            f"Session creation (median of {r['repeat'] * 3}, warm):",
        ],
        report.table(SESSIONS, r["sessions"]),
        [
            "Not measured: cold cache, fsync, a non-sparse source.",
        ],
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", default=tempfile.gettempdir())
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--markdown", type=Path, metavar="FILE", help="write the ort-external section of FILE"
    )
    args = parser.parse_args(argv)
    load_before = report.loadavg()
    folder = Path(tempfile.mkdtemp(prefix="bench-ort-external-", dir=args.dir))
    try:
        src, _ = big.make(folder)
        convert = convert_rounds(folder, src, args.repeat)
        big.convert_in_subprocess(src, folder / "big.ort")
        small_src = folder / "small.onnx"
        onnx.save(
            models.weights(1 << 20, tensors=4),
            str(small_src),
            save_as_external_data=True,
            location="small.onnx.data",
            size_threshold=0,
        )
        writer.save(small_src, folder / "small.ort", external_data=True, alignment=4096)
        n = args.repeat * 3
        sessions = [
            session_row("2.4 GB (6 initializers)", src, folder / "big.ort", n),
            session_row("1 MB (4 initializers)", small_src, folder / "small.ort", n),
        ]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    result = {
        "command": report.command("bench_ort_external.py", sys.argv[1:] if argv is None else argv),
        "date": report.today(),
        "machine": report.machine((load_before, report.loadavg())),
        "versions": report.versions(
            numpy=np.__version__, onnx=onnx.__version__, onnxruntime=ort.__version__
        ),
        "repeat": args.repeat,
        "convert": convert,
        "sessions": sessions,
    }
    text = render(result)
    print(text)
    if args.markdown is not None:
        report.update(args.markdown, "ort-external", text)


if __name__ == "__main__":
    main()
