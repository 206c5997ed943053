"""Record files on fsspec file systems: the dataset reads what it reads from local paths,
in blocks (one open per shard and pass, never one per record), and the writer publishes whole files.

The oracle is the local, mapped path: the same files read through ``file://`` and
``memory://`` give the same records in the same order, and damaged files the same
errors at the same offsets.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wireplan.errors import ArgumentError, DecodeError, EncodeError, FileError, MissingExtraError
from wireplan.evalue import RecordFile, RecordWriter
from wireplan.evalue._dataset import DatasetCore

fsspec = pytest.importorskip("fsspec")
from fsspec.implementations.local import LocalFileSystem  # noqa: E402
from fsspec.implementations.memory import MemoryFileSystem  # noqa: E402

MEMORY = MemoryFileSystem()


def _write(folder: Path, sizes: list[int], shard_bytes: int | None = None) -> list[str]:
    with RecordWriter(folder / "part.evr", shard_bytes=shard_bytes) as w:
        for i, n in enumerate(sizes):
            w.write([np.arange(n, dtype=np.float32) + i, i, "x" * (i % 5)])
    return w.paths


def _empty(folder: str) -> None:
    stale = MEMORY.find(folder)
    if stale:
        MEMORY.rm(stale)


def _to_memory(paths: list[str], folder: str) -> str:
    """Copy ``paths`` into ``memory://folder`` (emptied first); the folder's URL."""
    _empty(folder)
    for p in paths:
        MEMORY.pipe(f"{folder}/{os.path.basename(p)}", Path(p).read_bytes())
    return f"memory://{folder}"


def _records(ds: DatasetCore) -> list[list[Any]]:
    return list(ds)


def _same(got: list[list[Any]], want: list[list[Any]]) -> None:
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert a[1:] == b[1:]
        np.testing.assert_array_equal(a[0], b[0])
        assert a[0].dtype == b[0].dtype


class _Split(DatasetCore):
    """A DataLoader worker without torch: worker ``w`` of ``n``."""

    def __init__(self, *args: Any, worker: tuple[int, int] = (0, 1), **kw: Any) -> None:
        self.worker = worker
        super().__init__(*args, **kw)

    def _split(self) -> tuple[int, int]:
        return self.worker


@pytest.mark.parametrize("where", ["file", "memory"])
@pytest.mark.parametrize("shuffle", [False, True])
def test_same_records_as_the_local_path(tmp_path: Path, where: str, shuffle: bool) -> None:
    paths = _write(tmp_path, [i % 13 for i in range(150)], shard_bytes=3000)
    assert len(paths) > 3
    url = f"file://{tmp_path}" if where == "file" else _to_memory(paths, "/same")
    for source in (url, f"{url}/*.evr", [f"{url}/{os.path.basename(p)}" for p in paths]):
        for worker in ((0, 1), (0, 3), (2, 3)):
            kw: dict[str, Any] = {"shuffle": shuffle, "seed": 5, "window": 16, "batch_size": 4}
            local = _Split(str(tmp_path), worker=worker, **kw)
            remote = _Split(source, worker=worker, block_bytes=700, **kw)
            assert remote.counts == local.counts
            _same(_records(remote), _records(local))


def test_a_filesystem_object_and_storage_options(tmp_path: Path) -> None:
    paths = _write(tmp_path, [3] * 20)
    _to_memory(paths, "/fsobj")
    want = _records(DatasetCore(paths))
    _same(_records(DatasetCore("/fsobj/part.evr", filesystem=MEMORY)), want)
    _same(_records(DatasetCore(f"file://{paths[0]}", storage_options={"auto_mkdir": True})), want)
    with pytest.raises(ArgumentError, match="fsspec file system"):
        DatasetCore("/fsobj/part.evr", filesystem=object())
    with pytest.raises(ArgumentError, match="one file system"):
        DatasetCore(["memory://fsobj/part.evr", f"file://{paths[0]}"])


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sizes=st.lists(st.integers(0, 3000), min_size=1, max_size=40),
    shard_bytes=st.sampled_from([None, 2000, 9000]),
    block=st.integers(1, 40_000),
    shuffle=st.booleans(),
    window=st.integers(1, 9),
    world=st.integers(1, 3),
    balance=st.sampled_from(["split", "drop", "pad"]),
    workers=st.integers(1, 3),
    batch=st.integers(1, 4),
)
def test_any_block_size_reads_the_same_records(
    tmp_path_factory: pytest.TempPathFactory,
    sizes: list[int],
    shard_bytes: int | None,
    block: int,
    shuffle: bool,
    window: int,
    world: int,
    balance: str,
    workers: int,
    batch: int,
) -> None:
    folder = tmp_path_factory.mktemp("any")
    paths = _write(folder, sizes, shard_bytes)
    url = _to_memory(paths, "/any")
    for rank in range(world):
        for worker in range(workers):
            kw: dict[str, Any] = {
                "shuffle": shuffle,
                "seed": 1,
                "window": window,
                "rank": rank,
                "world_size": world,
                "balance": balance,
                "batch_size": batch,
                "worker": (worker, workers),
            }
            _same(
                _records(_Split(url, block_bytes=block, **kw)),
                _records(_Split(paths, **kw)),
            )


@pytest.mark.parametrize("where", ["file", "memory"])
def test_dataloader_workers_read_their_own_blocks(tmp_path: Path, where: str) -> None:
    torch = pytest.importorskip("torch")
    from wireplan.evalue.torch import EValueDataset

    paths = _write(tmp_path, [4] * 90, shard_bytes=4000)
    url = f"file://{tmp_path}" if where == "file" else _to_memory(paths, "/loader")
    context = "fork" if where == "memory" else None  # memory:// lives in this process

    def labels(source: Any, workers: int) -> list[int]:
        ds = EValueDataset(source, batch_size=8, shuffle=True, seed=2, window=10)
        loader = torch.utils.data.DataLoader(
            ds,
            batch_size=8,
            num_workers=workers,
            multiprocessing_context=context if workers else None,
        )
        return [int(v) for _, labels, _ in loader for v in labels]

    want = labels(str(tmp_path), 0)
    assert sorted(want) == list(range(90))
    assert labels(url, 2) == want
    assert labels(url, 3) == want


# --- reads, not opens, per record ----------------------------------------------------


class _Counted:
    """A file that counts its reads and the bytes they return."""

    def __init__(self, f: Any, counts: dict[str, int]) -> None:
        self._f, self._counts = f, counts

    def read(self, n: int = -1) -> bytes:
        data: bytes = self._f.read(n)
        self._counts["reads"] += 1
        self._counts["bytes"] += len(data)
        return data

    def seek(self, *args: Any) -> int:
        return int(self._f.seek(*args))

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> _Counted:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CountingMemory(MemoryFileSystem):
    """The in-memory file system, counting the opens for reading and the reads."""

    protocol = "countingmemory"
    counts: ClassVar[dict[str, int]] = {"opens": 0, "reads": 0, "bytes": 0}

    def _open(self, path: str, mode: str = "rb", *args: Any, **kw: Any) -> Any:
        f = super()._open(path, mode, *args, **kw)
        if "r" not in mode:
            return f
        self.counts["opens"] += 1
        return _Counted(f, self.counts)


class CountingLocal(LocalFileSystem):
    protocol = "countinglocal"
    counts: ClassVar[dict[str, int]] = {"opens": 0, "reads": 0, "bytes": 0}

    def _open(self, path: str, mode: str = "rb", *args: Any, **kw: Any) -> Any:
        f = super()._open(path, mode, *args, **kw)
        self.counts["opens"] += 1
        return _Counted(f, self.counts)


def _reset(counts: dict[str, int]) -> None:
    for key in counts:
        counts[key] = 0


@pytest.mark.parametrize("cls", [CountingMemory, CountingLocal])
def test_one_open_per_shard_and_block_sized_reads(tmp_path: Path, cls: type) -> None:
    paths = _write(tmp_path, [100] * 400, shard_bytes=200_000)
    assert len(paths) == 2
    fs = cls()
    if cls is CountingMemory:
        for p in paths:
            fs.pipe(f"/count/{os.path.basename(p)}", Path(p).read_bytes())
        source = "/count/*.evr"
    else:
        source = f"{tmp_path}/*.evr"
    ds = DatasetCore(source, filesystem=fs, shuffle=True, window=64, block_bytes=64 << 10)
    _reset(cls.counts)  # type: ignore[attr-defined]
    got = _records(ds)
    _same(got, _records(DatasetCore(paths, shuffle=True, window=64)))
    total = sum(Path(p).stat().st_size for p in paths)
    counts = cls.counts  # type: ignore[attr-defined]
    assert counts["opens"] == len(paths)
    # Every byte about once (a record across two blocks is read again whole), a block a read.
    assert total <= counts["bytes"] < total * 1.05
    assert counts["reads"] <= total // (64 << 10) + 2 * len(paths)
    assert counts["reads"] < len(got) / 20


def test_another_workers_large_records_are_skipped(tmp_path: Path) -> None:
    paths = _write(tmp_path, [16384] * 40)  # 64 KiB a record, one shard
    fs = CountingMemory()
    fs.pipe("/big/part.evr", Path(paths[0]).read_bytes())
    ds = _Split("/big/part.evr", filesystem=fs, worker=(1, 4), batch_size=2, block_bytes=16384)
    _reset(CountingMemory.counts)
    got = _records(ds)
    _same(got, _records(_Split(paths, worker=(1, 4), batch_size=2)))
    assert CountingMemory.counts["opens"] == 1
    # A quarter of the payload, plus the small reads of the other records' length fields.
    size = Path(paths[0]).stat().st_size
    assert CountingMemory.counts["bytes"] < size * 0.3


# --- errors: the local reader's verdicts and offsets --------------------------------


def _error(source: Any) -> DecodeError:
    with pytest.raises(DecodeError) as info:
        _records(DatasetCore(source, block_bytes=512))
    return info.value


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_damaged_shards_fail_where_the_local_reader_does(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    folder = tmp_path_factory.mktemp("bad")
    paths = _write(folder, [i * 7 % 50 for i in range(12)])
    blob = bytearray(Path(paths[0]).read_bytes())
    if data.draw(st.booleans(), "truncate"):
        blob = blob[: data.draw(st.integers(24, len(blob) - 1), "cut")]
    else:
        at = data.draw(st.integers(64, len(blob) - 1), "byte")
        blob[at] ^= data.draw(st.integers(1, 255), "xor")
    local = folder / "bad.evr"
    local.write_bytes(bytes(blob))
    try:
        want: DecodeError | None = _error(str(local))
    except pytest.fail.Exception:
        want = None  # a changed byte inside data decodes silently (no checksum)
    MEMORY.pipe("/bad/bad.evr", bytes(blob))
    if want is None:
        _same(_records(DatasetCore("memory://bad/bad.evr")), _records(DatasetCore(str(local))))
        return
    got = _error("memory://bad/bad.evr")
    assert isinstance(got, type(want)) or isinstance(want, type(got))
    assert (got.offset, got.path) == (want.offset, want.path)
    assert "memory:///bad/bad.evr" in str(got)


def test_a_missing_file_is_a_file_error() -> None:
    for source in ("memory://nowhere/x.evr", "memory://nowhere/*.evr", "file:///no/such/x.evr"):
        with pytest.raises(FileError) as info:
            DatasetCore(source)
        assert info.value.errno == errno.ENOENT and isinstance(info.value, OSError)
        assert info.value.filename is not None and "://" in info.value.filename


def test_a_file_that_disappears_is_a_file_error(tmp_path: Path) -> None:
    paths = _write(tmp_path, [2] * 5)
    url = _to_memory(paths, "/gone")
    ds = DatasetCore(url)
    MEMORY.rm("/gone", recursive=True)
    with pytest.raises(FileError, match=r"no such file: memory:///gone/part\.evr"):
        _records(ds)


# --- the writer -----------------------------------------------------------------------


def test_writer_to_memory_publishes_whole_files(tmp_path: Path) -> None:
    _empty("/w")
    with RecordWriter("memory://w/train.evr", shard_bytes=3000) as w:
        for i in range(60):
            w.write([np.arange(i % 9, dtype=np.int64), i])
            # the shard being written is nowhere on the file system yet
            assert not MEMORY.exists(MEMORY._strip_protocol(w.path))
        with pytest.raises(EncodeError):
            w.write([object()])
    assert w.paths == [f"memory:///w/train-{k:05d}.evr" for k in range(len(w.paths))]
    assert sorted(MEMORY.ls("/w", detail=False)) == [MEMORY._strip_protocol(p) for p in w.paths]
    with RecordWriter(tmp_path / "train.evr", shard_bytes=3000) as lw:
        for i in range(60):
            lw.write([np.arange(i % 9, dtype=np.int64), i])
    assert [MEMORY.cat_file(MEMORY._strip_protocol(p)) for p in w.paths] == [
        Path(p).read_bytes() for p in lw.paths
    ]
    assert [v[1] for v in DatasetCore("memory://w")] == list(range(60))


def test_writer_abort_leaves_the_old_file() -> None:
    MEMORY.pipe("/keep/x.evr", b"old")
    with pytest.raises(KeyError), RecordWriter("memory://keep/x.evr") as w:
        w.write([1])
        raise KeyError("stop")
    assert MEMORY.cat_file("/keep/x.evr") == b"old"
    assert MEMORY.ls("/keep", detail=False) == ["/keep/x.evr"]


def test_a_refused_upload_is_a_file_error_and_publishes_nothing() -> None:
    class Refusing(MemoryFileSystem):
        protocol = "refusing"

        def mv(self, *args: Any, **kw: Any) -> None:
            raise PermissionError(errno.EACCES, "denied")

    fs = Refusing()
    w = RecordWriter("/r/x.evr", filesystem=fs)
    w.write([1])
    with pytest.raises(FileError, match="denied") as info:
        w.close()
    assert info.value.errno == errno.EACCES
    assert not fs.exists("/r/x.evr") and fs.find("/r") == []
    with pytest.raises(ArgumentError, match="aborted"):
        w.write([2])


def test_writer_on_file_urls_writes_in_place(tmp_path: Path) -> None:
    with RecordWriter(f"file://{tmp_path}/sub/x.evr") as w:
        w.write([np.ones(3, np.float32)])
    assert w.paths == [f"{tmp_path}/sub/x.evr"]  # a local path: atomic_open, mapped reading
    with RecordFile(w.paths[0]) as f:
        np.testing.assert_array_equal(f[0][0], np.ones(3, np.float32))


# --- the door ------------------------------------------------------------------------


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_local_reading_does_not_import_fsspec(tmp_path: Path) -> None:
    paths = _write(tmp_path, [3] * 4)
    done = _run(
        "import sys\nfrom wireplan.evalue._dataset import DatasetCore\n"
        f"assert len(list(DatasetCore({paths!r}))) == 4\n"
        "print('fsspec' in sys.modules)"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False"]


def test_without_fsspec_a_url_says_which_extra() -> None:
    done = _run(
        "import sys\nsys.modules['fsspec'] = None\n"
        "from wireplan.evalue._dataset import DatasetCore\n"
        "try:\n    DatasetCore('memory://x/*.evr')\n"
        "except ImportError as exc:\n    print(type(exc).__name__, exc)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "MissingExtraError wireplan.core.remote needs fsspec, which is not installed: "
        'pip install "wireplan[fsspec]"'
    )
    assert MissingExtraError.__name__ in done.stdout
