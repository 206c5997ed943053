"""Training-data throughput: EValue record files against torch.save files and pickle streams.

Run: ``.venv/bin/python benchmarks/bench_evalue_dataset.py [--repeat N] [--plot docs/figures]``

The same examples (a float32 tensor and an int label) are stored three ways
and read back through ``torch.utils.data.DataLoader(num_workers=2,
batch_size=64, persistent_workers=True)``, each batch ending as one
stacked torch tensor and a tensor of labels (the default collation; one
shared-memory tensor per batch crosses from the worker, not one per
example, which would cost about a millisecond each and hide everything
else):

- EValue: 8 record files (``RecordWriter(shard_bytes=...)``), read by
  ``EValueDataset(batch_size=64)`` (mmap; each worker decodes its own blocks
  of 64 records);
- torch.save: one file per example (``[tensor, label]``), a map-style
  dataset calling ``torch.load(path, weights_only=True)``;
- pickle: 8 files, each a stream of ``pickle.dump([array, label], protocol=5)``
  records; worker ``w`` of ``n`` reads files ``w, w + n, ...`` and turns
  arrays into tensors with ``torch.from_numpy``.

Each round reads one full epoch of every format, the order rotated from
round to round; the tables give medians over the rounds.  records/s counts
examples, MB/s tensor payload bytes (1 MB = 10**6 bytes).  The files are
read from the page cache (written just before, and small next to RAM).

Not measured: cold disk reads, shuffling, collation into batches, and the
training step itself.  ``--plot DIR`` writes DIR/evalue-dataset.svg (needs
matplotlib); ``--json PATH`` keeps the run times and ``--from-json PATH``
draws the figure from them without measuring again.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import report
from figures import environment, require, require_ticker

FORMATS = ("evalue", "torch.save", "pickle")
LABELS = {
    "evalue": "EValue record files (EValueDataset)",
    "torch.save": "one torch.save file per example",
    "pickle": "pickle stream files (protocol 5)",
}
SHARDS = 8
BATCH = 64
# (elements per example, examples): about 16, 64 and 128 MB of tensor data.
SIZES = ((256, 16384), (16384, 1024), (262144, 128))


def _write_all(folder: Path, elements: int, count: int) -> dict[str, Any]:
    import numpy as np
    import torch

    from wireplan.evalue import RecordWriter

    rng = np.random.default_rng(elements)
    examples = [(rng.standard_normal(elements, dtype=np.float32), i) for i in range(count)]
    payload = elements * 4
    evalue = folder / "evalue"
    evalue.mkdir()
    per_shard = -(-count // SHARDS)
    with RecordWriter(evalue / "train.evr", shard_bytes=per_shard * (payload + 256) + 64) as writer:
        for arr, label in examples:
            writer.write([arr, label])
    saved = folder / "torch"
    saved.mkdir()
    files = []
    for arr, label in examples:
        path = saved / f"{label:06d}.pt"
        torch.save([torch.from_numpy(arr), label], path)
        files.append(str(path))
    pickled = folder / "pickle"
    pickled.mkdir()
    streams = [pickled / f"part-{k:02d}.pkl" for k in range(SHARDS)]
    handles = [p.open("wb") for p in streams]
    for i, (arr, label) in enumerate(examples):
        pickle.dump([arr, label], handles[i * SHARDS // count], protocol=5)
    for h in handles:
        h.close()

    def size(paths: list[Path]) -> int:
        return sum(p.stat().st_size for p in paths)

    return {
        "evalue": str(evalue),
        "torch.save": files,
        "pickle": [str(p) for p in streams],
        "disk": {
            "evalue": size(list(evalue.iterdir())),
            "torch.save": size([Path(f) for f in files]),
            "pickle": size(streams),
        },
        "shards": len(writer.paths),
    }


def _loaders(stored: dict[str, Any]) -> dict[str, Any]:
    import numpy as np
    import torch
    from torch.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info

    from wireplan.evalue.torch import EValueDataset

    class TorchFiles(Dataset[Any]):
        def __init__(self, files: list[str]) -> None:
            self.files = files

        def __len__(self) -> int:
            return len(self.files)

        def __getitem__(self, i: int) -> Any:
            return torch.load(self.files[i], weights_only=True)

    class PickleStreams(IterableDataset[Any]):
        def __init__(self, files: list[str]) -> None:
            self.files = files

        def __iter__(self) -> Iterator[Any]:
            info = get_worker_info()
            w, n = (0, 1) if info is None else (info.id, info.num_workers)
            for path in self.files[w::n]:
                with open(path, "rb") as f:
                    while True:
                        try:
                            arr, label = pickle.load(f)
                        except EOFError:
                            break
                        assert isinstance(arr, np.ndarray)
                        yield [torch.from_numpy(arr), label]

    datasets = {
        "evalue": EValueDataset(stored["evalue"], batch_size=BATCH),
        "torch.save": TorchFiles(stored["torch.save"]),
        "pickle": PickleStreams(stored["pickle"]),
    }
    return {
        name: DataLoader(ds, batch_size=BATCH, num_workers=2, persistent_workers=True)
        for name, ds in datasets.items()
    }


def epoch(loader: Any, count: int, elements: int) -> float:
    """Seconds for one pass of ``loader``, checking it gave ``count`` records of ``elements``."""
    start = time.perf_counter()
    seen = 0
    for tensor, labels in loader:
        seen += len(labels)
        assert tensor.shape == (len(labels), elements)
    elapsed = time.perf_counter() - start
    assert seen == count, (seen, count)
    return elapsed


def measure(repeat: int) -> dict[str, Any]:
    import numpy as np
    import torch

    import wireplan

    runs: list[dict[str, Any]] = []
    load_before = os.getloadavg()[0]
    for elements, count in SIZES:
        with tempfile.TemporaryDirectory(prefix="bench-evalue-dataset-") as tmp:
            stored = _write_all(Path(tmp), elements, count)
            loaders = _loaders(stored)
            times: dict[str, list[float]] = {name: [] for name in FORMATS}
            for name in FORMATS:  # warm up: start the workers, fill the page cache
                epoch(loaders[name], count, elements)
            for r in range(repeat):
                order = FORMATS[r % 3 :] + FORMATS[: r % 3]
                for name in order:
                    times[name].append(epoch(loaders[name], count, elements))
            del loaders
            runs.append(
                {
                    "elements": elements,
                    "count": count,
                    "payload": elements * 4,
                    "disk": stored["disk"],
                    "shards": stored["shards"],
                    "times": times,
                }
            )
            print(f"  measured {count} examples of {elements * 4} bytes", file=sys.stderr)
    return {
        "repeat": repeat,
        "date": report.today(),
        "loadavg": [load_before, os.getloadavg()[0]],
        "environment": environment(
            torch=torch.__version__, numpy=np.__version__, wireplan=wireplan.__version__
        ),
        "runs": runs,
    }


def _size(nbytes: float) -> str:
    for unit, scale in (("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.0f} {unit}"
    return f"{nbytes:.0f} B"


LABELS = {
    "evalue": "EValue record files",
    "torch.save": "torch.save per example",
    "pickle": "pickle stream files",
}
TABLE = (
    "float32 example | examples: | format | epoch: | records/s: | MB/s: | on disk: "
    "| EValue speed-up:"
)


def rows(result: dict[str, Any]) -> list[tuple[str, ...]]:
    out = []
    for run in result["runs"]:
        med = {name: statistics.median(run["times"][name]) for name in FORMATS}
        for name in FORMATS:
            t = med[name]
            out.append(
                (
                    _size(run["payload"]),
                    str(run["count"]),
                    LABELS[name],
                    f"{t * 1e3:.0f} ms",
                    f"{run['count'] / t:,.0f}",
                    f"{run['payload'] * run['count'] / t / 1e6:,.0f}",
                    f"{run['disk'][name] / 1e6:.1f} MB",
                    "" if name == "evalue" else f"{t / med['evalue']:.1f}x",
                )
            )
    return out


def page_result(result: dict[str, Any], argv: list[str]) -> dict[str, Any]:
    """What the page's ``evalue-dataset`` section shows of a (saved) run."""
    where, *peers = result["environment"].split("; ")
    lo, hi = result["loadavg"]
    return {
        "command": report.command("bench_evalue_dataset.py", argv),
        "date": result.get("date", report.today()),
        "machine": f"{where}; load average {lo:.1f} at the start, {hi:.1f} at the end",
        "versions": ", ".join(peers),
        "repeat": result["repeat"],
        "rows": rows(result),
    }


def render(r: dict[str, Any]) -> str:
    """The page's ``evalue-dataset`` section from :func:`page_result`."""
    return report.join(
        report.head(
            "EValue training data through a DataLoader",
            r["command"],
            r["date"],
            {
                "Machine": r["machine"],
                "Versions": r["versions"],
                "Method": "(tensor, label) examples stored three ways, read by "
                "`DataLoader(num_workers=2, batch_size=64)`: 8 `EValueDataset` shards, "
                "`torch.load` per file, 8 pickle streams; "
                f"medians of {r['repeat']} epochs each, order rotated",
            },
        ),
        report.table(TABLE, r["rows"]),
        ["![Records/s against example size](figures/evalue-dataset.svg)"],
        [
            "Not measured: cold disk reads, shuffling, more workers, the training step.",
        ],
    )


def plot(result: dict[str, Any], path: Path) -> None:
    """records/s against example size, one line per format, min-max as bars."""
    plt = require()
    ticker = require_ticker()
    fig, axes = plt.subplots(1, 2, figsize=(8.5, 4.2), layout="constrained")
    styles = {
        "evalue": ("C0", "o", "-"),
        "torch.save": ("C3", "^", "--"),
        "pickle": ("C2", "s", ":"),
    }
    sizes = [run["payload"] / 1024 for run in result["runs"]]
    for ax, unit in zip(axes, ("records/s", "MB/s"), strict=True):
        for name in FORMATS:
            color, marker, line = styles[name]
            med, low, high = [], [], []
            for run in result["runs"]:
                scale = run["count"] if unit == "records/s" else run["count"] * run["payload"] / 1e6
                rates = [scale / t for t in run["times"][name]]
                m = statistics.median(rates)
                med.append(m)
                low.append(m - min(rates))
                high.append(max(rates) - m)
            ax.errorbar(
                sizes,
                med,
                yerr=[low, high],
                label=LABELS[name],
                color=color,
                marker=marker,
                linestyle=line,
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(sizes)
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:.0f}"))
        ax.xaxis.set_minor_locator(ticker.NullLocator())
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.set_xlabel("tensor per example (KiB float32)")
        ax.set_ylabel(unit + " (higher is better)")
        ax.grid(True, linewidth=0.5, alpha=0.5)
    axes[0].set_title("Examples per second")
    axes[1].set_title("Tensor payload per second")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=3, fontsize=8, frameon=False)
    lo, hi = result["loadavg"]
    caption = (
        f"DataLoader(num_workers=2, batch_size={BATCH}, persistent_workers=True); medians of "
        f"{result['repeat']} interleaved epochs, bars min-max; warm page cache.\n"
        f"{result['environment']}. Shared machine, load average {lo:.1f} at the start, "
        f"{hi:.1f} at the end."
    )
    fig.get_layout_engine().set(rect=(0, 0.08, 1, 0.92))
    fig.text(0.01, 0.01, caption, fontsize=7, va="bottom", ha="left", linespacing=1.4)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)
    print(f"figure: {path} ({path.stat().st_size / 1e3:.1f} kB)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--repeat", type=int, default=7, help="rounds (epochs of each format)")
    ap.add_argument("--plot", type=Path, metavar="DIR", help="write DIR/evalue-dataset.svg")
    ap.add_argument("--json", type=Path, metavar="PATH", help="save the run times")
    ap.add_argument("--from-json", type=Path, metavar="PATH", help="report saved run times")
    ap.add_argument(
        "--markdown", type=Path, metavar="FILE", help="write the evalue-dataset section of FILE"
    )
    args = ap.parse_args(argv)
    if args.plot is not None:
        require()  # fail before measuring
    if args.from_json is not None:
        result = json.loads(args.from_json.read_text())
    else:
        result = measure(args.repeat)
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1))
    text = render(page_result(result, sys.argv[1:] if argv is None else argv))
    print(text)
    if args.markdown is not None:
        report.update(args.markdown, "evalue-dataset", text)
    if args.plot is not None:
        plot(result, args.plot / "evalue-dataset.svg")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
