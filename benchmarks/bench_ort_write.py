"""Benchmark: writing .ort files (wireplan's planned writer vs peers).

Run: ``.venv/bin/python benchmarks/bench_ort_write.py [--dir /tmp|/dev/shm] [--mb 400]
[--nodes 5000] [--repeat 5] [--sizes 13,130] [--plot docs/figures]``

Cases, all on the same data in the same run (files under a temporary
folder in ``--dir``, removed afterwards).  The cases of a group are timed in
rounds: each round runs every case once, in an order rotated from round to
round, so that load from other jobs falls on all of them alike; before each
run its old output files are removed and ``os.sync()`` settles the disk
(untimed), so every run writes new files from the same quiet state.  The
table gives the median and the range (min-max) over ``--repeat`` rounds (the
onnxruntime converter, seconds per run, takes part in the first
``--slow-repeat`` rounds; the ``Builder`` in the first half).

1. ~400 MB of float32 weights given as an .onnx with external data,
   converted to .ort:
   - wireplan ``convert_onnx_to_ort`` (alignment 64; threads auto and 1),
     durable (the default: fsync of the file and its folder) and with
     ``durable=False`` (temporary file + rename, no fsync),
   - (a) the floor: a plain copy of the same weight bytes into a new file
     through the same atomic path (sendfile, then fsync + rename; and without
     the fsync),
   - (b) ``python -m onnxruntime.tools.convert_onnx_models_to_ort
     --optimization_style Fixed`` (a subprocess, as it is used; it does not
     fsync its output),
   - (c) the same buffer built with the ``flatbuffers`` Python ``Builder``
     (the test suite's schema-driven reference encoder, ``CreateNumpyVector``
     for payloads) and written atomically and durably.
   Like is compared with like: durable wireplan with the durable floor and
   the (durable) Builder, non-durable wireplan with the non-durable floor and
   onnxruntime's converter.
2. A model of thousands of small nodes and few weights: the same peers.
3. onnxruntime session creation from our aligned .ort through
   ``wireplan.ort.session`` (zero-copy options) next to creation from the .onnx.
4. Only with ``--sizes`` or ``--plot``: convert time against size, group 1's
   wireplan (threads auto), floor and onnxruntime cases at 1/100 and 1/10 of
   ``--mb`` and at the ``--sizes`` (MiB), in rounds as above; the ``--mb``
   point is group 1 itself.  A table gives median and min-max per size, and
   ``--plot DIR`` draws it as ``DIR/ort-write-convert.svg`` (needs matplotlib).

Not measured: cold page cache (the sources are read once first), other
alignments (they change padding only), the cost of the background writeback
that a write without fsync leaves to the kernel, replacing an existing
output (on ext4 that starts writeback at the rename or truncation even
without fsync, and frees the old blocks, for every writer alike).
"""

from __future__ import annotations

import argparse
import os
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

import report  # noqa: E402
from figures import Series, environment, require, size_plot  # noqa: E402
from ort_write import models  # noqa: E402
from ort_write.fbref import FbEncoder  # noqa: E402
from wireplan.core.atomic import atomic_open, write_bytes  # noqa: E402
from wireplan.ort import (  # noqa: E402
    encoder,
    kernel_types,
    session,
    writer,
)
from wireplan.ort.onnx.read import from_onnx  # noqa: E402
from wireplan.ort.schema import ORT_SCHEMA  # noqa: E402


class Case:
    """One timed case of a group: ``runs`` of the group's rounds call ``fn``.

    ``outputs`` (files, or folders whose files) the case writes are removed
    before each of its runs, untimed, so that every case writes new files.
    """

    def __init__(
        self,
        key: str,
        label: str,
        fn: Callable[[], Any],
        runs: int,
        outputs: tuple[Path, ...] = (),
    ) -> None:
        self.key, self.label, self.fn, self.runs = key, label, fn, runs
        self.outputs = outputs
        self.times: list[float] = []

    def clean(self) -> None:
        for out in self.outputs:
            for f in out.iterdir() if out.is_dir() else [out]:
                f.unlink(missing_ok=True)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    def spread(self) -> str:
        return f"{fmt(min(self.times))}-{fmt(max(self.times))}"


def in_rounds(cases: list[Case], rounds: int) -> dict[str, Case]:
    """Time every case once per round, the order rotated each round; keyed by ``Case.key``.

    Before each run, untimed: the case's old outputs are removed and ``os.sync()``
    writes back what earlier runs left dirty (the writes without fsync), so that no
    run pays for another's writeback or for freeing another's blocks.
    """
    for r in range(rounds):
        order = cases[r % len(cases) :] + cases[: r % len(cases)]
        for case in order:
            if r < case.runs:
                case.clean()
                os.sync()
                start = time.perf_counter()
                case.fn()
                case.times.append(time.perf_counter() - start)
    return {c.key: c for c in cases}


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.0f} ms" if seconds >= 0.01 else f"{seconds * 1e3:.2f} ms"


def warm(path: Path) -> None:
    with open(path, "rb") as f:
        while f.read(16 << 20):
            pass


def plain_copy(src: Path, dst: Path, durable: bool = True) -> None:
    """The same bytes into a new file: in-kernel sendfile, (fsync,) rename (wireplan.core.atomic)."""
    size = src.stat().st_size
    with open(src, "rb") as s, atomic_open(dst, durable=durable) as f:
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


def stock_root(om: Any) -> tuple[dict[str, Any], FbEncoder]:
    """The root wireplan writes for ``om`` (resolver included) and an encoder on the stock Builder."""
    root = {
        "ort_version": writer.ORT_VERSION,
        "model": om.model,
        "kernel_type_str_resolver": kernel_types.resolver_for(om),
    }
    enc = FbEncoder(ORT_SCHEMA, omit_empty_strings=True, keep_empty=frozenset(encoder.KEEP_EMPTY))
    return root, enc


def stock_builder(src: Path, dst: Path) -> None:
    """The same root encoded by flatbuffers.Builder, then written."""
    om = from_onnx(src, signature=kernel_types.signature)
    try:
        root, enc = stock_root(om)
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


def conversion_cases(
    src: Path, tmp: Path, repeat: int, slow_repeat: int, data_file: Path | None, full: bool = True
) -> list[Case]:
    """Group 1's cases; without ``full`` only those the size sweep plots (no threads=1, Builder)."""
    warm(src)
    if data_file is not None:
        warm(data_file)
    dst, dst_nd = tmp / "ours.ort", tmp / "ours-nofsync.ort"
    out_dir = tmp / "ortconv"
    out_dir.mkdir(exist_ok=True)
    cases = [
        Case(
            "ours",
            "wireplan `convert`, threads auto, durable",
            lambda: writer.convert_onnx_to_ort(src, dst),
            repeat,
            (dst,),
        )
    ]
    if full:
        cases.append(
            Case(
                "ours_1",
                "wireplan `convert`, threads=1, durable",
                lambda: writer.convert_onnx_to_ort(src, dst, threads=1),
                repeat,
                (dst,),
            )
        )
    cases += [
        Case(
            "ours_nd",
            "wireplan `convert`, no fsync",
            lambda: writer.convert_onnx_to_ort(src, dst_nd, durable=False),
            repeat,
            (dst_nd,),
        ),
    ]
    if data_file is not None:
        cases += [
            Case(
                "floor",
                "(a) floor: sendfile of the weight bytes + fsync + rename",
                lambda: plain_copy(data_file, tmp / "copy.bin"),
                repeat,
                (tmp / "copy.bin",),
            ),
            Case(
                "floor_nd",
                "(a) floor without fsync",
                lambda: plain_copy(data_file, tmp / "copy-nofsync.bin", durable=False),
                repeat,
                (tmp / "copy-nofsync.bin",),
            ),
        ]
    cases.append(
        Case(
            "ort",
            "(b) onnxruntime `convert_onnx_models_to_ort --optimization_style Fixed`",
            lambda: ort_converter(src, out_dir),
            slow_repeat,
            (out_dir,),
        )
    )
    if full:
        cases.append(
            Case(
                "builder",
                "(c) flatbuffers Python `Builder`, same buffer, durable write",
                lambda: stock_builder(src, tmp / "builder.ort"),
                max(1, repeat // 2),
                (tmp / "builder.ort",),
            )
        )
    return cases


def clear_outputs(tmp: Path) -> None:
    """Remove what a conversion group wrote, keep its sources."""
    out_dir = tmp / "ortconv"
    for f in list(out_dir.iterdir()) if out_dir.is_dir() else []:
        if f.is_file():
            f.unlink()


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.0f}" if seconds >= 0.01 else f"{seconds * 1e3:.2f}"


def cell(c: Case, spread: bool = True) -> str:
    """``'1204 ms (1042-1675)'``: the median, and the range where there are 3 runs or more."""
    if not spread or len(c.times) < 3:
        return fmt(c.median)
    return f"{fmt(c.median)} ({_ms(min(c.times))}-{_ms(max(c.times))})"


def conversion_rows(
    src: Path, tmp: Path, repeat: int, slow_repeat: int, data_file: Path | None
) -> tuple[list[tuple[str, ...]], list[str], dict[str, Case], str]:
    cases = conversion_cases(src, tmp, repeat, slow_repeat, data_file)
    dst, dst_nd = tmp / "ours.ort", tmp / "ours-nofsync.ort"
    res = in_rounds(cases, repeat)
    ours, ours_nd = res["ours"].median, res["ours_nd"].median

    def ratio(c: Case) -> str:
        if c.key == "ours_nd":
            return "1.00"
        if c.key == "floor_nd":
            return f"{c.median / ours_nd:.2f} (vs no fsync)"
        if c.key == "ort":
            return f"{c.median / ours_nd:.1f} (vs no fsync), {c.median / ours:.1f} (vs durable)"
        return f"{c.median / ours:.2f}"

    rows = [(c.label, cell(c), ratio(c)) for c in cases]
    # Sanity: the files load in onnxruntime and the flag changes no byte.
    session(dst)
    session(tmp / "builder.ort")
    assert dst.read_bytes() == dst_nd.read_bytes()
    size = f"{dst.stat().st_size / 1e6:.1f} MB"
    targets = []
    if data_file is not None:
        targets.append(
            f"durable wireplan / durable floor = {ours / res['floor'].median:.2f} (target <= 2); "
            f"no-fsync wireplan / no-fsync floor = {ours_nd / res['floor_nd'].median:.2f}"
        )
    targets.append(
        f"onnxruntime converter / no-fsync wireplan = {res['ort'].median / ours_nd:.1f} "
        f"(target >= 10; / durable wireplan = {res['ort'].median / ours:.1f})"
    )
    targets.append(
        f"Builder (durable) / durable wireplan = {res['builder'].median / ours:.2f} (target >= 3)"
    )
    clear_outputs(tmp)
    return rows, targets, res, size


SWEEP = ("ours", "floor", "ours_nd", "floor_nd", "ort")


def sweep_group(mib: float, tmp: Path, repeat: int, slow_repeat: int) -> dict[str, Case]:
    """The plotted cases of group 1 on a model of ``mib`` MiB of weights."""
    src = tmp / "sweep.onnx"
    save_external(models.weights(int(mib * (1 << 20)), tensors=8), src)
    res = in_rounds(
        conversion_cases(src, tmp, repeat, slow_repeat, tmp / "sweep.onnx.data", full=False),
        repeat,
    )
    # Sanity: the durable flag changes no byte.
    assert (tmp / "ours.ort").read_bytes() == (tmp / "ours-nofsync.ort").read_bytes()
    clear_outputs(tmp)
    return res


def sweep_rows(points: dict[float, tuple[float, dict[str, Case]]]) -> list[tuple[str, ...]]:
    rows = []
    for mib, (_, res) in sorted(points.items()):
        m = {k: res[k].median for k in SWEEP}
        rows.append(
            (
                f"{mib:g} MiB",
                fmt(m["ours"]),
                fmt(m["floor"]),
                f"{m['ours'] / m['floor']:.2f}",
                fmt(m["ours_nd"]),
                fmt(m["floor_nd"]),
                f"{m['ours_nd'] / m['floor_nd']:.2f}",
                fmt(m["ort"]),
                f"{m['ort'] / m['ours_nd']:.0f}",
            )
        )
    return rows


def plot(
    path: Path,
    points: dict[float, tuple[float, dict[str, Case]]],
    repeat: int,
    slow_repeat: int,
    loadavg: tuple[float, float],
    fs: str,
) -> None:
    """The convert-against-size table as a figure (the same run times)."""
    series = {
        "ours": Series("wireplan convert, durable", "C0", "o"),
        "floor": Series("plain copy of the weights, + fsync", "C7", "s"),
        "ours_nd": Series("wireplan convert, no fsync", "C0", "o", "--"),
        "floor_nd": Series("plain copy of the weights, no fsync", "C7", "s", "--"),
        "ort": Series("onnxruntime's converter (no fsync)", "C3", "^", "--"),
    }
    for _, (size, res) in sorted(points.items()):
        for key, s in series.items():
            s.add(size, res[key].times)
    size_plot(
        path,
        list(series.values()),
        title=f"Converting .onnx (external data) to .ort: time against size ({fs})",
        xlabel="float32 weights, 8 tensors (MiB; the .onnx.data file)",
        caption=(
            f"Medians of {repeat} rounds (the converter {slow_repeat}), bars min-max; a round "
            "runs every case once, order rotated, each after os.sync().\n"
            "Solid: durable (fsync of file and folder, then rename); dashed: no fsync "
            "(onnxruntime's converter does not fsync).\n"
            + environment(
                onnxruntime=ort.__version__,
                onnx=onnx.__version__,
                numpy=np.__version__,
                flatbuffers=flatbuffers.__version__,
            )
            + f".\nShared machine, load average {loadavg[0]:.1f} at the start, {loadavg[1]:.1f} "
            "at the end: compare the lines at one size, not absolute times."
        ),
    )


def session_rows(src_onnx: Path, our_ort: Path, repeat: int) -> list[tuple[str, ...]]:
    def from_ort() -> None:
        session(our_ort, config={"session.disable_prepacking": "1"})

    def from_onnx_file() -> None:
        o = ort.SessionOptions()
        o.add_session_config_entry("session.disable_prepacking", "1")
        ort.InferenceSession(str(src_onnx), o, providers=["CPUExecutionProvider"])

    res = in_rounds(
        [
            Case("ort", "session from our .ort via `session()`", from_ort, repeat),
            Case("onnx", "session from the .onnx", from_onnx_file, repeat),
        ],
        repeat,
    )
    base = res["ort"].median
    return [(c.label, cell(c, spread=False), f"{c.median / base:.2f}") for c in res.values()]


def metadata_rows(many: Path, repeat: int) -> list[tuple[str, ...]]:
    """The many-nodes model without a file: ``from_onnx``, ``plan()``, the Builder's encode."""
    om = from_onnx(many, signature=kernel_types.signature)
    try:
        root, enc = stock_root(om)

        def bridge() -> None:
            from_onnx(many, signature=kernel_types.signature).close()

        res = in_rounds(
            [
                Case(
                    "plan",
                    "metadata only: wireplan `plan()` (resolver, layout, packing)",
                    lambda: writer.layout(om),
                    repeat,
                ),
                Case(
                    "encode",
                    "metadata only: `Builder` encode of the same root",
                    lambda: enc.encode(root),
                    repeat,
                ),
                Case("bridge", "`from_onnx()` alone (shared by wireplan and (c))", bridge, repeat),
            ],
            repeat,
        )
    finally:
        om.close()
    base = res["plan"].median
    return [
        (c.label, cell(c, spread=False), "" if c.key == "bridge" else f"{c.median / base:.2f}")
        for c in res.values()
    ]


GROUP = "case | time | / wireplan:"
SIZES = (
    "weights: | wireplan durable: | copy + fsync: | ratio: | wireplan no fsync: "
    "| copy no fsync: | ratio: | onnxruntime's converter: | / wireplan no fsync:"
)


def render(r: dict[str, Any]) -> str:
    """The page's ``ort-write`` section from a run's ``result``."""
    parts = [
        report.head(
            "ORT: writing",
            r["command"],
            r["date"],
            {"Machine": r["machine"], "Versions": r["versions"], "Method": r["method"]},
        ),
        [f"**{r['big_title']}**"],
        report.table(GROUP, r["big"]),
        [f"**{r['many_title']}**"],
        report.table(GROUP, r["many"]),
    ]
    if r["sizes"]:
        parts += [
            ["Convert time against size:"],
            report.table(SIZES, r["sizes"]),
            ["![Convert time against weight size](figures/ort-write-convert.svg)"],
        ]
    parts.append(
        [
            "Not measured: cold caches, other alignments, the writeback left to the kernel.",
        ]
    )
    return report.join(*parts)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--mb", type=float, default=400, help="weight MiB of the big model")
    p.add_argument("--nodes", type=int, default=5000, help="nodes of the many-nodes model")
    p.add_argument("--repeat", type=int, default=5, help="rounds per group")
    p.add_argument("--slow-repeat", type=int, default=2, help="rounds with onnxruntime's converter")
    p.add_argument(
        "--dir", default="/tmp", help="folder for the files (/tmp: disk; /dev/shm: tmpfs, no I/O)"
    )
    p.add_argument(
        "--sizes",
        type=lambda v: [float(x) for x in v.split(",") if x],
        default=[],
        help="more weight sizes (MiB, comma-separated) for the convert-against-size rows",
    )
    p.add_argument("--plot", type=Path, metavar="DIR", help="write DIR/ort-write-convert.svg")
    p.add_argument(
        "--markdown", type=Path, metavar="FILE", help="write the ort-write section of FILE"
    )
    args = p.parse_args(argv)
    if args.plot is not None:
        require()  # fail now, not after the measurements
    load_before = report.loadavg()
    with tempfile.TemporaryDirectory(prefix="wireplan-bench-ort-write-", dir=args.dir) as t:
        tmp = Path(t)
        big = tmp / "big.onnx"
        save_external(models.weights(int(args.mb * (1 << 20)), tensors=8), big)
        rows, targets, res_big, _ = conversion_rows(
            big, tmp, args.repeat, args.slow_repeat, tmp / "big.onnx.data"
        )
        points = {args.mb: ((tmp / "big.onnx.data").stat().st_size / (1 << 20), res_big)}
        writer.convert_onnx_to_ort(big, tmp / "big.ort", alignment=4096)
        rows += session_rows(big, tmp / "big.ort", args.repeat)
        shutil.rmtree(tmp / "ortconv", ignore_errors=True)
        for f in tmp.iterdir():
            f.unlink()
        many = tmp / "many.onnx"
        onnx.save(models.many_nodes(args.nodes), os.fspath(many))
        rows_n, targets_n, _, many_size = conversion_rows(
            many, tmp, args.repeat, args.slow_repeat, None
        )
        writer.convert_onnx_to_ort(many, tmp / "many.ort")
        rows_n += metadata_rows(many, args.repeat) + session_rows(
            many, tmp / "many.ort", args.repeat
        )
        if args.sizes or args.plot is not None:
            shutil.rmtree(tmp / "ortconv", ignore_errors=True)
            for f in tmp.iterdir():
                f.unlink()
            for mib in sorted({args.mb / 100, args.mb / 10, *args.sizes} - {args.mb}):
                res = sweep_group(mib, tmp, args.repeat, args.slow_repeat)
                points[mib] = ((tmp / "sweep.onnx.data").stat().st_size / (1 << 20), res)
                for f in tmp.iterdir():
                    if f.is_file():
                        f.unlink()
        load_after = report.loadavg()
        if args.plot is not None:
            fs = "tmpfs" if args.dir.startswith("/dev/shm") else f"files in {args.dir}"
            plot(
                args.plot / "ort-write-convert.svg",
                points,
                args.repeat,
                args.slow_repeat,
                (load_before, load_after),
                fs,
            )
    result = {
        "command": report.command("bench_ort_write.py", sys.argv[1:] if argv is None else argv),
        "date": report.today(),
        "machine": report.machine((load_before, load_after)),
        "versions": report.versions(
            numpy=np.__version__,
            onnx=onnx.__version__,
            onnxruntime=ort.__version__,
            flatbuffers=flatbuffers.__version__,
        ),
        "method": f"files in {args.dir}, warm cache, rotated rounds, `os.sync()` before "
        f"each run; medians of {args.repeat} rounds (converter {args.slow_repeat}), range; "
        "*durable* (the default) fsyncs, onnxruntime's converter does not",
        "big_title": f"{args.mb:g} MB of float32 weights (8 tensors), .onnx with external data "
        "-> .ort (alignment 64)",
        "big": rows,
        "many_title": f"{args.nodes} small nodes (Add/Mul/Sub/Relu), .onnx -> .ort ({many_size})",
        "many": rows_n,
        "sizes": sweep_rows(points) if len(points) > 1 else [],
    }
    text = render(result)
    print(text)
    print("Targets:\n\n" + "\n".join(f"- {x}" for x in targets + targets_n))
    if args.markdown is not None:
        report.update(args.markdown, "ort-write", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
