"""The EValue part of ``wireplan demo``: every type encoded and decoded, sizes and speed."""

from __future__ import annotations

import io
import pickle
import time
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from wireplan.evalue._codec import decode, encode
from wireplan.evalue._inspect import describe, inspect
from wireplan.evalue._lists import decode_list, encode_list
from wireplan.evalue._writer import RecordWriter

__all__ = ["demo"]


def _median_seconds(fn: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2]


def demo(out: TextIO, workdir: Path) -> None:
    """Encode and decode every EValue type, a tensor, a list and a record file; print sizes and speed."""
    samples: list[Any] = [
        None,
        True,
        -(2**63),
        3.5,
        "héllo",
        np.arange(6, dtype=np.float32).reshape(2, 3),
    ]
    line = []
    for value in samples:
        data = encode(value)
        back = decode(data)
        same = np.array_equal(back, value) if isinstance(value, np.ndarray) else back == value
        if not same:
            # Not the user's doing: wireplan itself is broken.
            raise AssertionError(f"demo round trip changed {value!r}: a bug in wireplan")
        line.append(f"{describe(value).split(' ', 1)[0]} {len(data)} B")
    print("   one value each, encoded and decoded back: " + ", ".join(line), file=out)
    print(f"   float32 2x3 tensor bytes: {encode(samples[-1]).hex()}", file=out)

    big = np.random.default_rng(0).standard_normal((2048, 2048), dtype=np.float32)
    blob = encode(big)
    wire = np.frombuffer(blob, ">f4", offset=len(blob) - big.nbytes).reshape(big.shape)
    t_copy = _median_seconds(lambda: np.copyto(np.empty(big.shape, ">f4"), big), 5)
    t_back = _median_seconds(lambda: np.copyto(np.empty(big.shape, np.float32), wire), 5)
    t_enc = _median_seconds(lambda: encode(big), 5)
    t_dec = _median_seconds(lambda: decode(blob), 5)
    t_view = _median_seconds(lambda: decode(blob, copy=False), 51)
    mib = big.nbytes / 2**20
    print(
        f"   {mib:.0f} MiB float32 tensor: encode {t_enc * 1e3:.1f} ms "
        f"({t_enc / t_copy:.2f}x numpy.copyto into a new >f4 array), "
        f"decode {t_dec * 1e3:.1f} ms ({t_dec / t_back:.2f}x copyto back), "
        f"zero-copy decode {t_view * 1e6:.1f} us",
        file=out,
    )
    print(
        f"   pickle protocol 5 of the same array: {len(pickle.dumps(big, protocol=5))} B, "
        f"EValue: {len(blob)} B",
        file=out,
    )

    example = [np.arange(12, dtype=np.int64).reshape(3, 4), "cat", 7, 0.25, None]
    listed = encode_list(example)
    assert len(decode_list(listed)) == len(example)
    print(f"   list of {len(example)} values (framing v1): {len(listed)} B", file=out)

    path = workdir / "examples.evr"
    rng = np.random.default_rng(1)
    with RecordWriter(path) as writer:
        for i in range(100):
            writer.write([rng.standard_normal((8, 8), dtype=np.float32), f"label-{i % 3}", i])
    print(
        f"   record file of 100 examples: {path.stat().st_size} B; wireplan inspect says:", file=out
    )

    report = io.StringIO()
    inspect(path, report)
    for text in report.getvalue().splitlines():
        print(f"     {text}", file=out)
