"""EValue record files through fsspec against per-record files and a WebDataset-style tar.

Run: ``.venv/bin/python benchmarks/bench_evalue_fsspec.py [--repeat N] [--markdown FILE]``

The same records (a float32 tensor and an int label) are stored five ways and
read back through ``torch.utils.data.DataLoader(batch_size=64,
num_workers=W, persistent_workers=True)`` for W = 1, 2 and 4:

- EValue ``file://`` and ``memory://``: 8 record files (``RecordWriter(shard_bytes=...)``),
  read by ``EValueDataset(URL, batch_size=64)``: fsspec, one open per shard
  and worker, 8 MiB reads; ``memory://`` is fsspec's in-memory file system
  (no disk, no system calls: what is left is wireplan's own work);
- EValue path: the same files by path (mmap), the reading without fsspec;
- torch.save: one file per record, a map-style dataset calling
  ``torch.load(path, weights_only=True)``;
- pickle: one file per record (``pickle.dump([array, label], protocol=5)``);
- tar: 8 tar files written with ``tarfile``, each record two members
  (``KEY.npy``, ``KEY.cls``) as WebDataset writes them; worker ``w`` of ``n``
  streams shards ``w, w + n, ...`` with ``tarfile.open(mode="r|")``, groups
  members by key and decodes ``.npy`` with ``numpy.load``, as webdataset does.

A round reads one epoch of every format, the order rotated from round to
round; the table gives the median epoch time and, per round, the time over
that round's EValue ``file://`` time, then its median.  Files are read from
the page cache.  Not measured: object stores (network latency, which large
reads are for), cold disks, shuffling, the training step.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import pickle
import statistics
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import report
from bench_evalue_dataset import epoch

FORMATS = ("evalue-file", "evalue-memory", "evalue-path", "torch.save", "pickle", "tar")
LABELS = {
    "evalue-file": "EValue, fsspec `file://`",
    "evalue-memory": "EValue, fsspec `memory://`",
    "evalue-path": "EValue, path (mmap)",
    "torch.save": "torch.save per record",
    "pickle": "pickle per record",
    "tar": "WebDataset-style tar",
}
BASE = "evalue-file"
WORKERS = (1, 2, 4)
SHARDS = 8
BATCH = 64
# (float32 elements per record, records): 32 MiB of 4 KiB records, 128 MiB of 256 KiB ones.
SIZES = ((1024, 8192), (65536, 512))


def _write_all(folder: Path, elements: int, count: int) -> dict[str, Any]:
    import fsspec
    import numpy as np
    import torch

    from wireplan.evalue import RecordWriter

    rng = np.random.default_rng(elements)
    records = [(rng.standard_normal(elements, dtype=np.float32), i) for i in range(count)]
    evalue = folder / "evalue"
    per_shard = -(-count // SHARDS)
    with RecordWriter(
        evalue / "train.evr", shard_bytes=per_shard * (elements * 4 + 256) + 64
    ) as writer:
        for arr, label in records:
            writer.write([arr, label])
    memory = fsspec.filesystem("memory")
    for p in writer.paths:
        memory.pipe(f"/bench/{elements}/{os.path.basename(p)}", Path(p).read_bytes())
    saved, pickled, tars = folder / "torch", folder / "pickle", folder / "tar"
    for d in (saved, pickled, tars):
        d.mkdir()
    torch_files, pickle_files = [], []
    for arr, label in records:
        path = saved / f"{label:06d}.pt"
        torch.save([torch.from_numpy(arr), label], path)
        torch_files.append(str(path))
        path = pickled / f"{label:06d}.pkl"
        with path.open("wb") as f:
            pickle.dump([arr, label], f, protocol=5)
        pickle_files.append(str(path))
    tar_files = []
    for k in range(SHARDS):
        path = tars / f"shard-{k:05d}.tar"
        with tarfile.open(path, "w") as tar:
            for arr, label in records[k * per_shard : (k + 1) * per_shard]:
                npy = io.BytesIO()
                np.save(npy, arr)
                for name, data in (
                    (f"{label:06d}.npy", npy.getvalue()),
                    (f"{label:06d}.cls", b"%d" % label),
                ):
                    info = tarfile.TarInfo(name)
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
        tar_files.append(str(path))
    return {
        "evalue-file": f"file://{evalue}",
        "evalue-memory": f"memory:///bench/{elements}",
        "evalue-path": str(evalue),
        "torch.save": torch_files,
        "pickle": pickle_files,
        "tar": tar_files,
    }


def _datasets(stored: dict[str, Any]) -> dict[str, Any]:
    import numpy as np
    import torch
    from torch.utils.data import Dataset, IterableDataset, get_worker_info

    from wireplan.evalue.torch import EValueDataset

    class TorchFiles(Dataset[Any]):
        def __init__(self, files: list[str]) -> None:
            self.files = files

        def __len__(self) -> int:
            return len(self.files)

        def __getitem__(self, i: int) -> Any:
            return torch.load(self.files[i], weights_only=True)

    class PickleFiles(TorchFiles):
        def __getitem__(self, i: int) -> Any:
            with open(self.files[i], "rb") as f:
                arr, label = pickle.load(f)
            return [torch.from_numpy(arr), label]

    class TarShards(IterableDataset[Any]):
        def __init__(self, files: list[str]) -> None:
            self.files = files

        def __iter__(self) -> Iterator[Any]:
            info = get_worker_info()
            w, n = (0, 1) if info is None else (info.id, info.num_workers)
            for path in self.files[w::n]:
                with tarfile.open(path, mode="r|") as tar:
                    key: str | None = None
                    sample: dict[str, bytes] = {}
                    for member in tar:
                        stem, ext = member.name.rsplit(".", 1)
                        if stem != key and sample:
                            yield _decode(sample)
                            sample = {}
                        key = stem
                        f = tar.extractfile(member)
                        assert f is not None
                        sample[ext] = f.read()
                    if sample:
                        yield _decode(sample)

    def _decode(sample: dict[str, bytes]) -> Any:
        arr = np.load(io.BytesIO(sample["npy"]))
        return [torch.from_numpy(arr), int(sample["cls"])]

    return {
        "evalue-file": EValueDataset(stored["evalue-file"], batch_size=BATCH),
        "evalue-memory": EValueDataset(stored["evalue-memory"], batch_size=BATCH),
        "evalue-path": EValueDataset(stored["evalue-path"], batch_size=BATCH),
        "torch.save": TorchFiles(stored["torch.save"]),
        "pickle": PickleFiles(stored["pickle"]),
        "tar": TarShards(stored["tar"]),
    }


def measure(repeat: int) -> dict[str, Any]:
    import fsspec
    import numpy as np
    import torch
    from torch.utils.data import DataLoader

    import wireplan

    runs: list[dict[str, Any]] = []
    load_before = os.getloadavg()[0]
    for elements, count in SIZES:
        with tempfile.TemporaryDirectory(prefix="bench-evalue-fsspec-") as tmp:
            datasets = _datasets(_write_all(Path(tmp), elements, count))
            for workers in WORKERS:
                loaders = {
                    name: DataLoader(
                        ds,
                        batch_size=BATCH,
                        num_workers=workers,
                        persistent_workers=True,
                        multiprocessing_context="fork",  # memory:// lives in this process
                    )
                    for name, ds in datasets.items()
                }
                times: dict[str, list[float]] = {name: [] for name in FORMATS}
                for name in FORMATS:  # warm up: start the workers, fill the page cache
                    epoch(loaders[name], count, elements)
                for r in range(repeat):
                    k = r % len(FORMATS)
                    for name in FORMATS[k:] + FORMATS[:k]:
                        times[name].append(epoch(loaders[name], count, elements))
                del loaders
                runs.append(
                    {"elements": elements, "count": count, "workers": workers, "times": times}
                )
                print(
                    f"  {count} records of {elements * 4} bytes, {workers} workers", file=sys.stderr
                )
            fsspec.filesystem("memory").rm(f"/bench/{elements}", recursive=True)
    return {
        "repeat": repeat,
        "date": report.today(),
        "loadavg": [load_before, os.getloadavg()[0]],
        "machine": report.machine(),
        "versions": report.versions(
            numpy=np.__version__,
            torch=torch.__version__,
            fsspec=fsspec.__version__,
            wireplan=wireplan.__version__,
        ),
        "runs": runs,
    }


TABLE = "record | format | workers: | epoch: | records/s: | time / EValue file://:"


def rows(result: dict[str, Any]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for run in result["runs"]:
        times = run["times"]
        for name in FORMATS:
            t = statistics.median(times[name])
            ratio = statistics.median(a / b for a, b in zip(times[name], times[BASE], strict=True))
            out.append(
                (
                    f"{run['elements'] * 4 // 1024} KiB",
                    LABELS[name],
                    str(run["workers"]),
                    f"{t * 1e3:.0f} ms",
                    f"{run['count'] / t:,.0f}",
                    "1" if name == BASE else f"{ratio:.2f}",
                )
            )
    return out


def page_result(result: dict[str, Any], argv: list[str]) -> dict[str, Any]:
    """What the page's ``evalue-fsspec`` section shows of a (saved) run."""
    lo, hi = result["loadavg"]
    return {
        "command": report.command("bench_evalue_fsspec.py", argv),
        "date": result["date"],
        "machine": f"{result['machine']}; load average {lo:.1f} at the start, {hi:.1f} at the end",
        "versions": result["versions"],
        "method": f"{SIZES[0][1]} records of 4 KiB, {SIZES[1][1]} of 256 KiB",
        "repeat": result["repeat"],
        "rows": rows(result),
    }


def render(r: dict[str, Any]) -> str:
    """The page's ``evalue-fsspec`` section from :func:`page_result`."""
    return report.join(
        report.head(
            "EValue records through fsspec, per-record files and tar shards",
            r["command"],
            r["date"],
            {
                "Machine": r["machine"],
                "Versions": r["versions"],
                "Method": f"(tensor, label) records ({r['method']}) stored six ways, read by "
                "`DataLoader(batch_size=64, num_workers=W)`; "
                f"medians of {r['repeat']} epochs each, order rotated; the last column is the "
                "median per round of the time over EValue `file://`'s",
            },
        ),
        report.table(TABLE, r["rows"]),
        [
            "Not measured: object stores (latency, which the 8 MiB reads are for), cold "
            "disks, shuffling, the training step.",
        ],
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--repeat", type=int, default=5, help="rounds (epochs of each format)")
    ap.add_argument("--json", type=Path, metavar="PATH", help="save the run times")
    ap.add_argument("--from-json", type=Path, metavar="PATH", help="report saved run times")
    ap.add_argument(
        "--markdown", type=Path, metavar="FILE", help="write the evalue-fsspec section of FILE"
    )
    args = ap.parse_args(argv)
    if args.from_json is not None:
        result = json.loads(args.from_json.read_text())
    else:
        result = measure(args.repeat)
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1))
    text = render(page_result(result, sys.argv[1:] if argv is None else argv))
    print(text)
    if args.markdown is not None:
        report.update(args.markdown, "evalue-fsspec", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
