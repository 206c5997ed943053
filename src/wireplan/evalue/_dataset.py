"""What ``EValueDataset`` does, without torch: read record files (or a stream) by epoch.

Sharded, shuffled per epoch, split over ranks and DataLoader workers,
resumable mid-epoch; the order and split are computed by
:mod:`wireplan.evalue._shards`.  :class:`DatasetCore` is all of it but the
three questions only torch answers (the rank, the worker, the tensors),
which ``wireplan.evalue.torch.EValueDataset`` answers: torch's one door
derives the dataset from this module, so nothing here imports torch.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from wireplan.errors import ArgumentError
from wireplan.evalue._lists import decode_list
from wireplan.evalue._records import (
    BLOCK_BYTES,
    RecordFile,
    StreamedRecords,
    is_url,
    record_count,
    remote_record_count,
    remote_shard_paths,
    shard_paths,
)
from wireplan.evalue._shards import BALANCES, Balance, rank_range, segments, worker_mask

__all__ = ["STATE_VERSION", "DatasetCore", "Source"]

Source = str | os.PathLike[str] | Iterable[Any] | Callable[[], Iterable[Any]]

#: What :meth:`EValueDataset.state_dict` writes; a state of another version is refused.
STATE_VERSION = 1
_LAYOUT_KEYS = (
    "seed",
    "shuffle",
    "window",
    "rank",
    "world_size",
    "records",
    "batch_size",
    "balance",
)


class DatasetCore:
    """The reading of ``EValueDataset`` (its docstring says what it does), torch left out.

    A subclass answers :meth:`_world` (the ``torch.distributed`` rank and world,
    or None), :meth:`_split` (this DataLoader worker and the number of them)
    and :meth:`_finish` (a decoded record as it is handed out).

    Record files named by fsspec URLs, or on ``filesystem`` (``storage_options``
    go to a URL's file system), are read by :class:`~wireplan.evalue._records.StreamedRecords`
    in ``block_bytes`` requests, each pass opening each shard it reads once;
    paths are mapped.
    """

    def __init__(
        self,
        source: Source | Sequence[str | os.PathLike[str]],
        *,
        shuffle: bool = False,
        seed: int = 0,
        window: int = 4096,
        rank: int | None = None,
        world_size: int | None = None,
        balance: Balance = "split",
        batch_size: int = 1,
        as_torch: bool = True,
        extended: bool = False,
        text: bool = True,
        filesystem: Any = None,
        storage_options: Mapping[str, Any] | None = None,
        block_bytes: int = BLOCK_BYTES,
    ) -> None:
        super().__init__()
        if balance not in BALANCES:
            raise ArgumentError(f"balance must be one of {BALANCES}, not {balance!r}")
        if seed < 0 or window < 1 or batch_size < 1 or block_bytes < 1:
            raise ArgumentError("seed must be >= 0, window, batch_size and block_bytes >= 1")
        if rank is None or world_size is None:
            found = self._world()
            if found is not None:
                rank = found[0] if rank is None else rank
                world_size = found[1] if world_size is None else world_size
            else:
                rank, world_size = rank or 0, world_size or 1
        if not 0 <= rank < world_size:
            raise ArgumentError(f"rank {rank} is not in a world of {world_size}")
        self.source = source
        self.shuffle, self.seed, self.window = shuffle, seed, window
        self.rank, self.world_size = rank, world_size
        self.balance: Balance = balance
        self.batch_size = batch_size
        self.as_torch, self.extended, self.text = as_torch, extended, text
        self.epoch = 0
        self.paths: list[str] | None = None
        self.counts: list[int] = []
        #: The fsspec file system the record files are on; None for local paths (mapped).
        self.filesystem: Any = None
        self.block_bytes = block_bytes
        if _is_files(source):
            items = [source] if isinstance(source, str | os.PathLike) else list(source)  # type: ignore[arg-type]
            if filesystem is not None or any(is_url(item) for item in items):
                self.filesystem, self.paths = _remote_paths(items, filesystem, storage_options)
                self.counts = [remote_record_count(self.filesystem, p) for p in self.paths]
            else:
                self.paths = shard_paths(items)
                self.counts = [record_count(path) for path in self.paths]
        else:
            if shuffle or balance != "split":
                raise ArgumentError(
                    "a stream source is read in its own order: shuffle and balance need record files"
                )
        self._resume: dict[str, Any] | None = None
        self._worker: tuple[int, int] | None = None
        self._position = 0
        self._origin = 0

    @property
    def records(self) -> int | None:
        """Records per epoch over all ranks (``None`` for a stream)."""
        return sum(self.counts) if self.paths is not None else None

    def rank_records(self) -> int | None:
        """Records this rank reads per epoch (``None`` for a stream)."""
        if self.paths is None:
            return None
        lo, hi = rank_range(sum(self.counts), self.rank, self.world_size, self.balance)
        return hi - lo

    def set_epoch(self, epoch: int) -> None:
        """Read epoch ``epoch`` next (its order, with ``shuffle``); drops a loaded state of another epoch."""
        self.epoch = epoch
        if self._resume is not None and self._resume["epoch"] != epoch:
            self._resume = None

    def _layout(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "seed": self.seed,
            "shuffle": self.shuffle,
            "window": self.window,
            "rank": self.rank,
            "world_size": self.world_size,
            "records": self.records,
            "batch_size": self.batch_size,
            "balance": self.balance,
        }

    def state_dict(self, consumed: int | None = None) -> dict[str, Any]:
        """Where reading stands, as plain data (ints, strings, bools).

        ``consumed=k``: the place after this rank's first ``k`` records of
        the current epoch, for a DataLoader that delivers them in sequence
        order (see the class).  Without it: the place of the pass running in
        this process (a worker's own, in a DataLoader worker), or the loaded
        state not yet used.
        """
        state = self._layout()
        state["epoch"] = self.epoch
        if consumed is not None:
            if consumed < 0:
                raise ArgumentError(f"consumed must be >= 0, not {consumed}")
            state["position"] = consumed
        elif self._resume is not None:
            state = dict(self._resume)
        else:
            state["position"] = self._position
            if self._worker is not None and self._worker[1] > 1:
                state["worker"], state["num_workers"] = self._worker
                state["origin"] = self._origin
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Resume from :meth:`state_dict`: the next pass over its epoch starts where it stopped.

        Raises :class:`~wireplan.errors.ArgumentError` (a ``ValueError``) when
        the state was made for another split, seed, shuffle or set of records,
        since it would not resume exactly.
        """
        layout = self._layout()
        if state.get("version") != STATE_VERSION:
            raise ArgumentError(f"unknown EValueDataset state version {state.get('version')!r}")
        for key in _LAYOUT_KEYS:
            if state.get(key) != layout[key]:
                raise ArgumentError(
                    f"the state was saved with {key}={state.get(key)!r}, this dataset has "
                    f"{key}={layout[key]!r}: it would not resume exactly"
                )
        self._resume = dict(state)
        self.epoch = int(state["epoch"])

    def _world(self) -> tuple[int, int] | None:
        """``(rank, world_size)`` of the process group when there is one, else None."""
        return None

    def _split(self) -> tuple[int, int]:
        """This DataLoader worker's index and the number of workers: ``(0, 1)`` outside one."""
        return 0, 1

    def _start(self, worker: int, workers: int) -> tuple[int, int]:
        """The position this pass starts at, and the block that goes to worker 0."""
        resume, self._resume = self._resume, None
        if resume is None or resume["epoch"] != self.epoch:
            return 0, 0
        position = int(resume["position"])
        if "worker" not in resume:
            # A rank's place: the DataLoader asks worker 0 first, so it takes the next block.
            return position, position // self.batch_size
        if (resume["worker"], resume["num_workers"]) != (worker, workers):
            raise ArgumentError(
                f"the state is worker {resume['worker']} of {resume['num_workers']}'s; "
                f"this is worker {worker} of {workers}"
            )
        return position, int(resume["origin"])

    def _finish(self, values: list[Any]) -> list[Any]:
        """A decoded record as the dataset hands it out."""
        return values

    def __iter__(self) -> Iterator[list[Any]]:
        worker, workers = self._split()
        self._worker = (worker, workers)
        start, self._origin = self._start(worker, workers)
        self._position = start
        if self.paths is not None:
            yield from self._iter_files(worker, workers, start)
        else:
            yield from self._iter_stream(worker, workers, start)

    def _iter_files(self, worker: int, workers: int, start: int) -> Iterator[list[Any]]:
        assert self.paths is not None
        lo, hi = rank_range(sum(self.counts), self.rank, self.world_size, self.balance)
        opened: dict[int, RecordFile | StreamedRecords] = {}
        try:
            runs = segments(
                self.counts,
                lo + start,
                hi,
                shuffle=self.shuffle,
                seed=self.seed,
                epoch=self.epoch,
                window=self.window,
            )
            for first, shard, indices in runs:
                first -= lo
                mask = worker_mask(
                    first, len(indices), worker, workers, self.batch_size, self._origin
                )
                mine = np.flatnonzero(mask)
                if not len(mine):
                    continue
                records = opened.get(shard)
                if records is None:
                    records = self._open(self.paths[shard])
                    opened[shard] = records
                wanted = indices[mine].tolist()
                if isinstance(records, StreamedRecords):
                    decoded: Iterator[list[Any]] = records.take(wanted)
                else:
                    decoded = (records[i] for i in wanted)
                for k, values in zip(mine.tolist(), decoded, strict=True):
                    self._position = first + k + 1
                    yield self._finish(values)
        finally:
            for records in opened.values():
                records.close()

    def _open(self, path: str) -> RecordFile | StreamedRecords:
        """A shard of this pass: mapped when local, else streamed in blocks (own handle)."""
        if self.filesystem is None:
            return RecordFile(path, extended=self.extended, text=self.text)
        return StreamedRecords(
            self.filesystem,
            path,
            block_bytes=self.block_bytes,
            extended=self.extended,
            text=self.text,
        )

    def _iter_stream(self, worker: int, workers: int, start: int) -> Iterator[list[Any]]:
        source = self.source
        items = source() if callable(source) else source
        rank, world, block, origin = self.rank, self.world_size, self.batch_size, self._origin
        for i, blob in enumerate(items):  # type: ignore[arg-type]
            position, mine = divmod(i, world)
            if mine != rank or position < start or (position // block - origin) % workers != worker:
                continue
            values = decode_list(blob, extended=self.extended, text=self.text)
            self._position = position + 1
            yield self._finish(values)


def _remote_paths(
    items: list[Any], filesystem: Any, storage_options: Mapping[str, Any] | None
) -> tuple[Any, list[str]]:
    """The one fsspec file system ``items`` are on, and the record files they name on it."""
    from wireplan.core import remote

    fs: Any = None
    paths: list[str] = []
    for item in items:
        found, path = remote.resolve(os.fspath(item), filesystem, storage_options)
        if fs is not None and found != fs:
            raise ArgumentError(
                f"the record files must be on one file system: {item!r} is not on {fs.protocol}"
            )
        fs = found
        paths += remote_shard_paths(fs, path)
    return fs, paths


def _is_files(source: Any) -> bool:
    if isinstance(source, str | os.PathLike):
        return True
    if isinstance(source, list | tuple) and source:
        return all(isinstance(item, str | os.PathLike) for item in source)
    return False
