"""Sharded record files: writer roll-over, shard discovery, inspect, and EValueDataset's order, split and resume."""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from wireplan.cli import main
from wireplan.errors import ArgumentError, DecodeError, LimitError
from wireplan.evalue import RecordFile, RecordWriter, encode_list, record_count, shard_paths
from wireplan.evalue.cli import inspect_shards

torch = pytest.importorskip("torch")
from torch.utils.data import DataLoader  # noqa: E402

import wireplan.evalue.torch as evt  # noqa: E402
from wireplan.evalue.torch import EValueDataset  # noqa: E402


def _write(folder: Path, n: int, shard_bytes: int = 1100) -> list[str]:
    with RecordWriter(folder / "part.evr", shard_bytes=shard_bytes) as w:
        for i in range(n):
            w.write([np.full(4, i, np.int64), i])
    return w.paths


def _ids(items: Any) -> list[int]:
    out = []
    for values in items:
        tensor, label = values
        assert int(tensor[0]) == int(label)
        out.append(int(label))
    return out


def _flat(batches: Any) -> list[int]:
    out: list[int] = []
    for tensor, label in batches:
        assert tensor[:, 0].tolist() == label.tolist()
        out += label.tolist()
    return out


# --- the writer and the shards ---------------------------------------------------------


def test_writer_rolls_over_at_the_size_limit(tmp_path: Path) -> None:
    paths = _write(tmp_path, 20, shard_bytes=600)
    assert [Path(p).name for p in paths] == [f"part-{i:05d}.evr" for i in range(5)]
    ids = []
    for p in paths:
        assert Path(p).stat().st_size <= 600
        with RecordFile(p) as f:
            assert len(f) == record_count(p)
            ids += [int(r[1]) for r in f]
    assert ids == list(range(20))
    assert shard_paths(tmp_path) == paths == shard_paths(str(tmp_path / "part-*.evr"))


def test_a_record_larger_than_the_limit_gets_a_shard_of_its_own(tmp_path: Path) -> None:
    with RecordWriter(tmp_path / "x-{shard}.evr", shard_bytes=200) as w:
        w.write([1])
        w.write([np.zeros(100)])
        w.write([2])
    assert [Path(p).name for p in w.paths] == ["x-0.evr", "x-1.evr", "x-2.evr"]
    assert [record_count(p) for p in w.paths] == [1, 1, 1]
    assert w.count == 3


def test_abort_keeps_the_finished_shards_only(tmp_path: Path) -> None:
    with pytest.raises(KeyError), RecordWriter(tmp_path / "a.evr", shard_bytes=300) as w:
        for i in range(10):
            w.write([i, "x" * 50])
        raise KeyError
    finished = sorted(p.name for p in tmp_path.iterdir())
    assert finished and not any(n.startswith(".") for n in finished)  # no temporary file left
    assert sum(record_count(tmp_path / n) for n in finished) < 10
    with pytest.raises(ArgumentError, match="shard pattern"):
        RecordWriter(tmp_path / "{bad}-{shard}.evr", shard_bytes=100)


def test_shard_paths(tmp_path: Path) -> None:
    paths = _write(tmp_path, 30)
    (tmp_path / "notes.txt").write_text("not a record file")
    assert shard_paths(tmp_path) == paths  # a folder: record files only
    assert shard_paths([paths[1], paths[0]]) == [paths[1], paths[0]]
    with pytest.raises(FileNotFoundError):
        shard_paths(tmp_path / "missing.evr")
    with pytest.raises(FileNotFoundError):
        shard_paths(str(tmp_path / "nothing-*.evr"))
    with pytest.raises(DecodeError, match=r"notes\.txt"):
        record_count(tmp_path / "notes.txt")


def test_a_record_count_the_file_cannot_hold_is_refused(tmp_path: Path) -> None:
    # Found by tests/fuzz/fuzz_evalue.py: the dataset sized its index from the header's count
    # alone, so a header declaring 2**56 records made numpy try to allocate 512 PiB.
    path = _write(tmp_path, 2)[0]
    data = bytearray(Path(path).read_bytes())
    data[16:24] = (2**56).to_bytes(8, "big")
    Path(path).write_bytes(bytes(data))
    with pytest.raises(LimitError, match=r"part.*declares 72057594037927936 records") as info:
        record_count(path)
    assert info.value.offset == 16
    with pytest.raises(LimitError):
        EValueDataset(path)


def test_inspect_sums_up_a_folder_and_a_glob(tmp_path: Path) -> None:
    paths = _write(tmp_path, 30)
    out = io.StringIO()
    inspect_shards(tmp_path, out)
    text = out.getvalue()
    size = sum(Path(p).stat().st_size for p in paths)
    assert f"{len(paths)} EValue record files, {size:,} bytes, 30 records" in text
    assert "60 values (Int 30, Tensor 30); 960 tensor data bytes" in text
    out = io.StringIO()
    assert main(["inspect", str(tmp_path / "part-0000[01].evr")], out=out) == 0
    assert "2 EValue record files" in out.getvalue()
    Path(paths[1]).write_bytes(Path(paths[1]).read_bytes()[:-3])
    assert main(["inspect", str(tmp_path)], out=io.StringIO()) == 1


# --- the dataset -------------------------------------------------------------------


def test_order_without_shuffle_and_with_a_seed(tmp_path: Path) -> None:
    _write(tmp_path, 45)
    plain = _ids(EValueDataset(tmp_path))
    assert plain == list(range(45))
    ds = EValueDataset(tmp_path, shuffle=True, seed=5, window=4)
    first = _ids(ds)
    assert sorted(first) == plain and first != plain
    assert _ids(ds) == first == _ids(EValueDataset(tmp_path, shuffle=True, seed=5, window=4))
    ds.set_epoch(1)
    assert sorted(_ids(ds)) == plain and _ids(ds) != first
    assert _ids(EValueDataset(tmp_path, shuffle=True, seed=6, window=4)) != first
    # Shards are read one after the other; window=4: a record stays in its run of 4.
    where = {}
    for k, path in enumerate(shard_paths(tmp_path)):
        with RecordFile(path) as f:
            where.update({int(r[1]): (k, j) for j, r in enumerate(f)})
    shards = [where[i][0] for i in first]
    assert shards != sorted(shards)
    runs = [shards[0]] + [b for a, b in itertools.pairwise(shards) if a != b]
    assert sorted(runs) == list(range(len(set(shards))))
    for shard in set(shards):
        local = [where[i][1] for i in first if where[i][0] == shard]
        assert [j // 4 for j in local] == [k // 4 for k in range(len(local))]


@pytest.mark.parametrize(
    ("balance", "sizes"), [("split", [15, 15, 16]), ("drop", [15, 15, 15]), ("pad", [16, 16, 16])]
)
def test_balance_over_three_ranks(tmp_path: Path, balance: str, sizes: list[int]) -> None:
    _write(tmp_path, 46)
    parts = [
        _ids(EValueDataset(tmp_path, shuffle=True, rank=r, world_size=3, balance=balance))  # type: ignore[arg-type]
        for r in range(3)
    ]
    assert sorted(len(p) for p in parts) == sizes
    seen = [i for p in parts for i in p]
    if balance == "split":
        assert sorted(seen) == list(range(46))
    elif balance == "drop":
        assert len(set(seen)) == 45
    else:
        assert set(seen) == set(range(46)) and len(seen) - len(set(seen)) == 2


def test_workers_deliver_the_rank_sequence_in_order(tmp_path: Path) -> None:
    _write(tmp_path, 50)
    ds = EValueDataset(tmp_path, shuffle=True, seed=1, rank=1, world_size=2)
    alone = _ids(ds)
    assert _ids(DataLoader(ds, batch_size=None, num_workers=2)) == alone
    batched = EValueDataset(tmp_path, shuffle=True, seed=1, rank=1, world_size=2, batch_size=4)
    assert _flat(DataLoader(batched, batch_size=4, num_workers=2)) == alone


def test_resume_by_count_with_batches_and_workers(tmp_path: Path) -> None:
    _write(tmp_path, 50)

    def make() -> EValueDataset:
        return EValueDataset(tmp_path, shuffle=True, seed=2, batch_size=4)

    ds = make()
    ds.set_epoch(3)
    whole = _flat(DataLoader(ds, batch_size=4, num_workers=2))
    taken: list[int] = []
    for _, label in DataLoader(ds, batch_size=4, num_workers=2):
        taken += label.tolist()
        if len(taken) == 12:
            break
    state = json.loads(json.dumps(ds.state_dict(consumed=len(taken))))
    again = make()
    again.load_state_dict(state)
    rest = _flat(DataLoader(again, batch_size=4, num_workers=2))
    assert taken + rest == whole
    # The next epoch starts from its beginning again.
    again.set_epoch(4)
    assert sorted(_flat(DataLoader(again, batch_size=4, num_workers=2))) == list(range(50))


def test_resume_a_worker_as_stateful_dataloader_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # torchdata's StatefulDataLoader calls state_dict() in each worker after an
    # item and hands it back to load_state_dict() in the same worker on resume.
    _write(tmp_path, 41)
    for worker in range(3):
        info = SimpleNamespace(id=worker, num_workers=3)
        monkeypatch.setattr(evt, "get_worker_info", lambda info=info: info)
        ds = EValueDataset(tmp_path, shuffle=True, seed=9, rank=0, world_size=2)
        whole = _ids(ds)
        it = iter(ds)
        taken = [int(next(it)[1]) for _ in range(3)]
        state = json.loads(json.dumps(ds.state_dict()))
        assert state["worker"] == worker and state["num_workers"] == 3
        fresh = EValueDataset(tmp_path, shuffle=True, seed=9, rank=0, world_size=2)
        fresh.load_state_dict(state)
        assert taken + _ids(fresh) == whole
        other = SimpleNamespace(id=(worker + 1) % 3, num_workers=3)
        monkeypatch.setattr(evt, "get_worker_info", lambda other=other: other)
        fresh.load_state_dict(state)
        with pytest.raises(ArgumentError, match="worker"):
            next(iter(fresh))


def test_a_state_from_another_layout_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, 20)
    state = EValueDataset(tmp_path, shuffle=True, seed=1).state_dict(consumed=3)
    for other in (
        EValueDataset(tmp_path, shuffle=True, seed=2),
        EValueDataset(tmp_path, shuffle=False, seed=1),
        EValueDataset(tmp_path, shuffle=True, seed=1, rank=0, world_size=2),
        EValueDataset(shard_paths(tmp_path)[:-1], shuffle=True, seed=1),
    ):
        with pytest.raises(ArgumentError, match="would not resume exactly"):
            other.load_state_dict(state)
    with pytest.raises(ArgumentError, match="version"):
        EValueDataset(tmp_path).load_state_dict({"version": 99})


def test_streams_split_over_ranks_and_workers_and_resume() -> None:
    blobs = [encode_list([np.full(4, i, np.int64), i]) for i in range(23)]
    parts = [
        _ids(DataLoader(EValueDataset(blobs, rank=r, world_size=2), batch_size=None, num_workers=2))
        for r in range(2)
    ]
    assert sorted(parts[0] + parts[1]) == list(range(23)) and len(parts[0]) == 12
    ds = EValueDataset(blobs, rank=1, world_size=2)
    resumed = EValueDataset(blobs, rank=1, world_size=2)
    resumed.load_state_dict(ds.state_dict(consumed=5))
    assert parts[1][:5] + _ids(DataLoader(resumed, batch_size=None, num_workers=2)) == parts[1]
    with pytest.raises(ArgumentError, match="stream"):
        EValueDataset(blobs, shuffle=True)


def test_rank_and_world_size_checked(tmp_path: Path) -> None:
    _write(tmp_path, 3)
    with pytest.raises(ArgumentError, match="not in a world"):
        EValueDataset(tmp_path, rank=2, world_size=2)
    assert EValueDataset(tmp_path).world_size == 1  # torch.distributed not initialized here
