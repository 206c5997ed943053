"""The C++ reader (wireplan_evalue.hpp) against the Python decoder: the same record files.

Run: ``.venv/bin/python benchmarks/bench_evalue_cpp.py [--repeat N] [--markdown docs/benchmarks.md]``

Three record files written with ``RecordWriter`` (small examples, images, mixed values)
are read whole, every value of every record:

- C++: ``bench_evalue_cpp.cpp`` built with ``g++ -O2`` calls ``read_records`` (framing
  checks, then every list and value; tensors and strings as views), timed inside C++:
  over the file already in memory (64-byte aligned, as a mapping is: a 16-byte aligned copy
  reads small records about 2x slower), and over the file opened and mapped (``mmap``) in
  the pass;
  each the mean of a few passes;
- Python: ``wireplan.evalue.read_records(path, copy=False)`` (open, map, scan, decode: the
  same zero-copy views), consumed to the end.

Each round runs both, in alternating order; the table gives medians of the rounds and of
the per-round ratios.  The files are in the page cache: not measured are cold reads and
what a consumer does with the values (a copy of the tensors, say).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import report
from wireplan.evalue import RecordWriter, read_records
from wireplan.evalue._cpp import header_folder

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "bench_evalue_cpp.cpp"
TABLE = (
    "records | count: | file: | C++, memory: | C++, mapped: | Python: | "
    "memory speed-up: | mapped speed-up:"
)


def _datasets(rng: np.random.Generator) -> dict[str, tuple[int, Any]]:
    """name -> (record count, a function of i giving record i's values)."""
    small = rng.standard_normal(64).astype(np.float32)
    image = rng.standard_normal((3, 64, 64)).astype(np.float32)
    ids = rng.integers(-99, 99, size=8)
    pixels = rng.integers(0, 255, size=32).astype(np.uint8)
    return {
        "label + float32[64]": (100_000, lambda i: [small, i % 10]),
        "label + float32[3,64,64]": (1_000, lambda i: [image, i % 10]),
        "7 mixed values": (
            50_000,
            lambda i: [f"example {i}", i, 0.5 * i, i % 2 == 0, None, ids, pixels],
        ),
    }


def _build(folder: Path) -> Path:
    compiler = shutil.which("g++")
    if compiler is None:
        raise SystemExit("g++ is needed")
    out = folder / "bench_evalue_cpp"
    cmd = [compiler, "-std=c++17", "-O2", "-DNDEBUG", "-I", str(header_folder()), str(DRIVER)]
    subprocess.run([*cmd, "-o", str(out)], check=True)
    return out


def _gxx_version() -> str:
    done = subprocess.run(["g++", "-dumpfullversion"], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _cpp(binary: Path, path: Path, inner: int) -> tuple[float, float]:
    done = subprocess.run(
        [str(binary), str(path), str(inner)], capture_output=True, text=True, check=True
    )
    got = dict(line.split() for line in done.stdout.splitlines())
    return float(got["memory"]), float(got["file"])


def _python(path: Path) -> float:
    t0 = time.perf_counter()
    values = 0
    for record in read_records(path, copy=False):
        values += len(record)
    return time.perf_counter() - t0


def measure(repeat: int, folder: Path) -> list[dict[str, Any]]:
    binary = _build(folder)
    runs = []
    for name, (count, make) in _datasets(np.random.default_rng(0)).items():
        path = folder / "data.evr"
        with RecordWriter(path, durable=False) as w:
            for i in range(count):
                w.write(make(i))
        size = path.stat().st_size
        _python(path)  # warm the page cache
        times: dict[str, list[float]] = {"memory": [], "file": [], "python": []}
        for r in range(repeat):
            steps = ["cpp", "python"] if r % 2 == 0 else ["python", "cpp"]
            for step in steps:
                if step == "cpp":
                    memory, file = _cpp(binary, path, 3)
                    times["memory"].append(memory)
                    times["file"].append(file)
                else:
                    times["python"].append(_python(path))
        runs.append({"name": name, "count": count, "size": size, "times": times})
    return runs


def _rate(count: int, size: int, seconds: float) -> str:
    return f"{count / seconds / 1e6:.2f} M/s, {size / seconds / 1e9:.2f} GB/s"


def _times(ratio: float) -> str:
    return f"{ratio:.1f}x" if ratio < 10 else f"{ratio:.0f}x"


def rows(runs: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for run in runs:
        t, count, size = run["times"], run["count"], run["size"]
        ratios = [
            _times(statistics.median(p / c for p, c in zip(t["python"], t[k], strict=True)))
            for k in ("memory", "file")
        ]
        out.append(
            (
                run["name"],
                str(count),
                f"{size / 2**20:.1f} MiB",
                *(_rate(count, size, statistics.median(t[k])) for k in ("memory", "file")),
                _rate(count, size, statistics.median(t["python"])),
                *ratios,
            )
        )
    return out


def render(r: dict[str, Any]) -> str:
    """The page's ``evalue-cpp`` section."""
    return report.join(
        report.head(
            "EValue: the C++ reader",
            r["command"],
            r["date"],
            {
                "Machine": r["machine"],
                "Versions": r["versions"],
                "Method": "every value of every record of a file written by `RecordWriter`, "
                "read by `wireplan_evalue.hpp` (`g++ -O2`, timed inside C++, mean of 3 passes: "
                "the file in memory at a 64-byte aligned address, or opened and mapped in the pass) and by "
                "`read_records(path, copy=False)`; records/s and bytes/s of the file, medians of "
                f"{r['repeat']} rounds and of per-round ratios",
            },
        ),
        report.table(TABLE, r["rows"]),
        [
            "Not measured: cold reads (the file is in the page cache), using the values "
            "(both give views of the tensors)."
        ],
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--markdown", help="write the section into this page")
    args = parser.parse_args(argv)
    load = report.loadavg()
    with tempfile.TemporaryDirectory() as tmp:
        runs = measure(args.repeat, Path(tmp))
    result = {
        "command": report.command("bench_evalue_cpp.py", argv),
        "date": report.today(),
        "machine": report.machine((load, report.loadavg())),
        "versions": report.versions(numpy=np.__version__, gxx=_gxx_version()),
        "repeat": args.repeat,
        "rows": rows(runs),
    }
    body = render(result)
    print(body)
    if args.markdown:
        report.update(Path(args.markdown), "evalue-cpp", body)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
