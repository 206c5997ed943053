"""Who reads which record when: the epoch order over shards and its split (no torch).

The records of all shards, in one epoch's order, form one sequence of
``N`` positions.  Each rank takes a contiguous range of it (:func:`rank_range`);
within a rank, position ``p`` (counted from the rank's start) belongs to
DataLoader worker ``(p // block - origin) % num_workers``, where ``origin``
is the block a pass started at (0, or where it resumed).  Everything follows from
``(seed, epoch)`` and the split, so every reader computes its own part and
a position is all that resuming needs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Final, Literal

import numpy as np

from wireplan.errors import ArgumentError

__all__ = ["BALANCES", "Balance", "rank_range", "segments", "worker_mask"]

Balance = Literal["split", "drop", "pad"]
BALANCES: Final = ("split", "drop", "pad")


def rank_range(records: int, rank: int, world_size: int, balance: Balance) -> tuple[int, int]:
    """The epoch positions ``[lo, hi)`` that ``rank`` reads.

    ``split``: every record once, rank sizes differ by at most one;
    ``drop``: ``records // world_size`` each, the last ``records % world_size``
    positions of the epoch are left out; ``pad``: ``ceil(records / world_size)``
    each, positions past the end wrap to the epoch's first records.
    """
    if balance == "split":
        return rank * records // world_size, (rank + 1) * records // world_size
    if balance == "drop":
        size = records // world_size
    elif balance == "pad":
        size = -(-records // world_size) if records else 0
    else:
        raise ArgumentError(f"balance must be one of {BALANCES}, not {balance!r}")
    return rank * size, (rank + 1) * size


def _shard_order(shards: int, shuffle: bool, seed: int, epoch: int) -> np.ndarray[Any, Any]:
    if not shuffle:
        return np.arange(shards)
    return np.random.default_rng((seed, epoch)).permutation(shards)


def _in_shard_order(
    count: int, shard: int, shuffle: bool, seed: int, epoch: int, window: int
) -> np.ndarray[Any, Any]:
    index = np.arange(count)
    if not shuffle or count < 2:
        return index
    # Shuffle within windows of `window` consecutive records: a bounded shuffle
    # that keeps each window's reads within a small part of the shard.
    rng = np.random.default_rng((seed, epoch, shard + 1))
    keys = index // window + rng.random(count)
    return np.argsort(keys, kind="stable")


def segments(
    counts: Sequence[int],
    lo: int,
    hi: int,
    *,
    shuffle: bool,
    seed: int,
    epoch: int,
    window: int,
) -> Iterator[tuple[int, int, np.ndarray[Any, Any]]]:
    """Epoch positions ``[lo, hi)`` as ``(first position, shard, record indices)`` runs.

    Positions at or past the record total wrap around (the ``pad`` balance).
    Only the shards the range touches are permuted.
    """
    total = sum(counts)
    if total == 0 or hi <= lo:
        return
    order = _shard_order(len(counts), shuffle, seed, epoch)
    starts = np.zeros(len(order) + 1, np.int64)
    np.cumsum([counts[s] for s in order], out=starts[1:])
    pos = lo
    while pos < hi:
        g = pos % total
        k = int(np.searchsorted(starts, g, side="right")) - 1
        shard = int(order[k])
        first, last = int(starts[k]), int(starts[k + 1])
        take = min(last - g, hi - pos)
        perm = _in_shard_order(counts[shard], shard, shuffle, seed, epoch, window)
        yield pos, shard, perm[g - first : g - first + take]
        pos += take


def worker_mask(
    first: int, length: int, worker: int, workers: int, block: int, origin: int = 0
) -> np.ndarray[Any, Any]:
    """Which of the rank positions ``first .. first + length - 1`` belong to ``worker``.

    Blocks of ``block`` positions go round-robin over the workers, block
    ``origin`` to worker 0 (a pass that resumes at block ``origin`` starts
    there, as the DataLoader asks worker 0 first).
    """
    positions = np.arange(first, first + length)
    mask: np.ndarray[Any, Any] = (positions // block - origin) % workers == worker
    return mask
