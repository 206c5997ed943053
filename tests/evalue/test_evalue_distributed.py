"""EValueDataset under torch.distributed (gloo): 2 spawned ranks x 2 DataLoader workers, 8 shards."""

from __future__ import annotations

import json
import socket
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from wireplan.evalue import RecordWriter

torch = pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402
from evalue_dist import RESUME_AFTER, run_rank  # noqa: E402

WORLD = 2
RECORDS = 61  # odd and not a multiple of the shard count: the ranks get 30 and 31
TIMEOUT = 180.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _run_ranks(tmp_path: Path) -> list[dict[str, Any]]:
    with RecordWriter(tmp_path / "train-{shard:02d}.evr", shard_bytes=1100) as w:
        for i in range(RECORDS):
            w.write([np.full(4, i, np.int64), i])
    assert len(w.paths) == 8
    # Each rank writes what it saw to rank{r}.json.
    ctx = mp.start_processes(
        run_rank,
        args=(
            WORLD,
            f"tcp://127.0.0.1:{_free_port()}",
            str(tmp_path / "train-*.evr"),
            str(tmp_path / "rank{}.json"),
        ),
        nprocs=WORLD,
        join=False,
        start_method="spawn",
    )
    deadline = time.monotonic() + TIMEOUT
    try:
        while not ctx.join(timeout=1.0):
            if time.monotonic() > deadline:
                raise TimeoutError(f"the ranks did not finish within {TIMEOUT:.0f} s")
    finally:
        for p in ctx.processes:
            if p.is_alive():
                p.kill()
    return [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(WORLD)]


@pytest.mark.skipif(not dist.is_available(), reason="torch built without torch.distributed")
def test_two_ranks_two_workers_eight_shards(tmp_path: Path) -> None:
    ranks = _run_ranks(tmp_path)
    everything = list(range(RECORDS))
    for epoch in ("epoch0", "epoch1"):
        seen = [i for r in ranks for i in r[epoch]]
        assert sorted(seen) == everything, f"{epoch}: each record exactly once"
        assert Counter(len(r[epoch]) for r in ranks) == Counter([30, 31]), "balanced"
    for r in ranks:
        assert r["epoch1"] != r["epoch0"], "set_epoch(1) changes the order"
        assert r["epoch0_again"] == r["epoch0"], "the same seed gives the same order"
        assert len(r["taken"]) == RESUME_AFTER
        assert r["taken"] + r["rest"] == r["epoch1"], "resume continues where it stopped"
        assert r["steps"] == [len(x["epoch0"]) for x in ranks]
    resumed = [i for r in ranks for i in r["taken"] + r["rest"]]
    assert sorted(resumed) == everything, "yielded + after resume: every record exactly once"
    # The shards are visited in another order, and records move between ranks.
    assert set(ranks[0]["epoch0"]) != set(ranks[0]["epoch1"])
