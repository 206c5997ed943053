"""One rank of the distributed EValueDataset test (run by torch.multiprocessing.spawn)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader

from wireplan.evalue.torch import EValueDataset

SEED = 11
RESUME_AFTER = 7  # records this rank takes from the loader before the "restart"


def _ids(loader: Any, limit: int | None = None) -> list[int]:
    out = []
    for values in loader:
        tensor, label = values
        assert isinstance(tensor, torch.Tensor) and int(tensor[0]) == int(label)
        out.append(int(label))
        if limit is not None and len(out) == limit:
            break
    return out


def _loader(ds: EValueDataset) -> DataLoader[Any]:
    # A spawned rank would spawn its workers too (each importing torch again): fork them.
    return DataLoader(
        ds, batch_size=None, num_workers=2, timeout=60, multiprocessing_context="fork"
    )


def run_rank(rank: int, world_size: int, rendezvous: str, shards: str, out: str) -> None:
    """Read the shards as rank ``rank``; write what it saw to ``out.format(rank)`` (JSON)."""
    dist.init_process_group(
        "gloo",
        init_method=rendezvous,
        rank=rank,
        world_size=world_size,
        timeout=datetime.timedelta(seconds=60),
    )
    try:
        ds = EValueDataset(shards, shuffle=True, seed=SEED, window=3)
        assert (ds.rank, ds.world_size) == (rank, world_size)
        epoch0 = _ids(_loader(ds))
        ds.set_epoch(1)
        epoch1 = _ids(_loader(ds))
        again = EValueDataset(shards, shuffle=True, seed=SEED, window=3)
        epoch0_again = _ids(_loader(again))

        # Mid-epoch restart in epoch 1: take some records, save, resume in a new dataset.
        first = EValueDataset(shards, shuffle=True, seed=SEED, window=3)
        first.set_epoch(1)
        taken = _ids(_loader(first), limit=RESUME_AFTER)
        state = json.loads(json.dumps(first.state_dict(consumed=len(taken))))
        resumed = EValueDataset(shards, shuffle=True, seed=SEED, window=3)
        resumed.load_state_dict(state)
        rest = _ids(_loader(resumed))

        # What DDP needs: every rank agrees on its number of steps (gathered over gloo).
        steps: list[Any] = [None] * world_size
        dist.all_gather_object(steps, ds.rank_records())
        result = {
            "epoch0": epoch0,
            "epoch1": epoch1,
            "epoch0_again": epoch0_again,
            "taken": taken,
            "rest": rest,
            "steps": steps,
        }
        Path(out.format(rank)).write_text(json.dumps(result))
        dist.barrier()
    finally:
        dist.destroy_process_group()
