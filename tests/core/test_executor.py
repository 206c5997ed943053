from __future__ import annotations

import mmap
import os
import sys
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from wireplan.core import Plan, execute, execute_file, resolve_threads, run_copies
from wireplan.core.buffers import MappedFile


def _random_plan(seed: int, count: int, max_len: int) -> Plan:
    rng = np.random.default_rng(seed)
    plan = Plan()
    for i in range(count):
        kind = i % 4
        n = int(rng.integers(0, max_len))
        if kind == 0:
            src = rng.integers(0, 256, n, dtype=np.uint8)
            plan.add(n, alignment=64, source=src, name=f"u8-{i}")
        elif kind == 1:
            src = rng.standard_normal((n, 3)).astype(np.float32)
            plan.add(src.nbytes, alignment=16, source=src, dtype=">f4", name=f"be-{i}")
        elif kind == 2:
            src = np.asfortranarray(rng.integers(-(2**40), 2**40, (3, n), dtype=np.int64))
            plan.add(src.nbytes, alignment=8, source=src, name=f"fortran-{i}")
        else:
            data = bytes(rng.integers(0, 256, n, dtype=np.uint8))
            plan.add(n, alignment=4096, source=data, name=f"bytes-{i}")
    plan.pad_to(8)
    return plan


@settings(max_examples=25)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12), st.sampled_from([1, 2, 3]))
def test_threaded_output_is_byte_identical_to_serial(seed: int, count: int, threads: int) -> None:
    plan = _random_plan(seed, count, 3000)
    serial = bytearray(plan.size)
    parallel = bytearray(plan.size)
    execute(plan, serial, threads=1)
    # A tiny chunk size forces every copy to be split across the pool.
    execute(plan, parallel, threads=threads, chunk_bytes=256)
    assert serial == parallel


def test_execute_writes_sources_where_planned() -> None:
    plan = Plan()
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    plan.add(1, source=b"\x7f")
    r = plan.add(a.nbytes, alignment=8, source=a.T, dtype=">f4")  # non-contiguous source
    plan.add(4, alignment=4)  # no source: left as zeros
    out = bytearray(plan.size)
    execute(plan, out)
    assert out[0] == 0x7F
    assert out[1:8] == bytes(7)
    got = np.frombuffer(out, ">f4", count=6, offset=r.offset).reshape(3, 2)
    np.testing.assert_array_equal(got, a.T)
    assert out[r.end :] == bytes(plan.size - r.end)


def test_execute_into_mmap_and_numpy() -> None:
    plan = Plan()
    plan.add(5, source=b"hello")
    mm = mmap.mmap(-1, plan.size)
    execute(plan, mm)
    assert mm[:5] == b"hello"
    arr = np.zeros(8, np.uint8)
    execute(plan, arr)
    assert bytes(arr[:5]) == b"hello"


def test_large_copy_splits_and_matches() -> None:
    src = np.random.default_rng(1).standard_normal(3_000_000).astype(np.float32)
    plan = Plan()
    plan.add(src.nbytes, alignment=4096, source=src, dtype=">f4")
    one, two = bytearray(plan.size), bytearray(plan.size)
    execute(plan, one, threads=1)
    execute(plan, two, threads=2, chunk_bytes=1 << 20)
    assert one == two
    np.testing.assert_array_equal(np.frombuffer(two, ">f4"), src)


def test_errors() -> None:
    plan = Plan()
    plan.add(4, source=b"abc")  # planned 4, source holds 3
    with pytest.raises(ValueError, match="4 bytes planned, source holds 3"):
        execute(plan, bytearray(4))
    ok = Plan()
    ok.add(4, source=b"abcd")
    with pytest.raises(ValueError, match="plan needs 4"):
        execute(ok, bytearray(2))
    with pytest.raises(ValueError, match="read-only"):
        execute(ok, b"\0\0\0\0")
    with pytest.raises(ValueError, match="at least 1"):
        execute(ok, bytearray(4), threads=0)


def test_resolve_threads() -> None:
    assert resolve_threads(None, 10) == 1
    assert resolve_threads(None, 1 << 40) >= 1
    assert resolve_threads(3, 10) == 3


def test_run_copies_reports_worker_errors() -> None:
    dst = np.zeros(4, np.uint8)
    with pytest.raises(ValueError):
        run_copies([(dst, np.zeros(5, np.uint8))], threads=2)


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(["i2", "u2", "i4", "f4", "i8", "f8"]),
    st.integers(1, 7),
    st.integers(4097, 40_000),
    st.booleans(),
)
def test_misaligned_swapping_copy_matches_numpy(
    dtype: str, offset: int, n: int, direct: bool
) -> None:
    # copy_array takes either route for a misaligned, byte-swapped destination (direct copy
    # or the aligned scratch detour, by numpy version and item size); both must agree.
    assume(offset % np.dtype(dtype).itemsize)
    executor = sys.modules["wireplan.core.executor"]
    sizes = frozenset({2, 4, 8}) if direct else frozenset()
    src = np.arange(n, dtype=dtype).reshape(-1, 1) * 3 + 1
    raw = np.zeros(src.nbytes + offset + 1, np.uint8)
    dst = raw[offset : offset + src.nbytes].view(">" + dtype).reshape(src.shape)
    assert not dst.flags.aligned
    with mock.patch.object(executor, "_DIRECT_ITEMSIZES", sizes):
        executor.copy_array(dst, src)
    assert raw[offset : offset + src.nbytes].tobytes() == src.astype(">" + dtype).tobytes()
    assert raw[:offset].sum() == 0 and raw[-1] == 0


# Progress: the executor reports the bytes as they move, the same bytes land either way.

CHUNK = 1 << 18


def _progress_plan(seed: int, big: np.ndarray[Any, Any] | None = None) -> Plan:
    """A big region (many chunks), a byte-swapped one, small ones and one without a source."""
    rng = np.random.default_rng(seed)
    plan = Plan()
    plan.add(5, source=b"hello")
    if big is None:
        big = rng.integers(0, 256, 3_000_001, dtype=np.uint8)
    plan.add(big.nbytes, alignment=4096, source=big)
    swapped = rng.random((500, 300), dtype=np.float32)
    plan.add(swapped.nbytes, alignment=64, source=swapped, dtype=">f4")
    plan.add(7, alignment=8192)  # no source: zeros, not reported
    plan.pad_to(4096)
    return plan


def _moved(plan: Plan) -> int:
    return sum(r.length for r in plan.regions if r.source is not None)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_execute_reports_bytes_as_they_move(threads: int) -> None:
    plan = _progress_plan(5)
    expected = bytearray(plan.size)
    execute(plan, expected, threads=threads)
    out = bytearray(plan.size)
    steps: list[int] = []
    execute(plan, out, threads=threads, chunk_bytes=CHUNK, progress=steps.append)
    assert out == expected
    assert sum(steps) == _moved(plan)
    assert len(steps) >= 4
    assert max(steps) <= 2 * CHUNK  # about a chunk at a time


def test_run_copies_without_progress_does_not_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    """No callback, serial: one copy per region, as before (no bookkeeping at all)."""
    executor = sys.modules["wireplan.core.executor"]
    calls: list[int] = []
    real = executor.copy_array

    def spy(dst: Any, src: Any) -> None:
        calls.append(dst.nbytes)
        real(dst, src)

    monkeypatch.setattr(executor, "copy_array", spy)
    plan = _progress_plan(6)
    execute(plan, bytearray(plan.size), threads=1, chunk_bytes=CHUNK)
    assert len(calls) == 3  # hello, the big one, the swapped one


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("kernel", [False, True])
def test_execute_file_reports_bytes_as_they_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threads: int, kernel: bool
) -> None:
    """Windows mapped and filled by numpy, or file-to-file copies (copy_file_range)."""
    if kernel and not hasattr(os, "copy_file_range"):
        pytest.skip("no os.copy_file_range here")
    real = getattr(os, "copy_file_range", None)
    kernel_calls: list[int] = []

    def spy(*args: Any) -> int:
        kernel_calls.append(args[2])
        assert real is not None
        return int(real(*args))

    if real is not None:
        monkeypatch.setattr(os, "copy_file_range", spy)
    raw = np.random.default_rng(7).integers(0, 256, 4_000_003, dtype=np.uint8)
    (tmp_path / "src.bin").write_bytes(raw.tobytes())
    with MappedFile(tmp_path / "src.bin") as mf:
        whole = np.frombuffer(mf.buffer, np.uint8)
        plan = _progress_plan(8, whole[3:] if kernel else raw[3:])
        moved = _moved(plan)
        expected = bytearray(plan.size)
        execute(plan, expected)
        path = tmp_path / "out.bin"
        with open(path, "wb") as f:
            f.truncate(plan.size)
        steps: list[int] = []
        fd = os.open(path, os.O_RDWR)
        try:
            execute_file(
                plan,
                fd,
                threads=threads,
                window_bytes=1 << 21,
                chunk_bytes=CHUNK,
                progress=steps.append,
            )
        finally:
            os.close(fd)
        del whole, plan
    assert path.read_bytes() == expected
    assert sum(steps) == moved
    assert len(steps) >= 4
    assert max(steps) <= 2 * CHUNK
    assert (len(kernel_calls) >= 4) == kernel  # the big region went file to file, in pieces


def _filled(path: Path, plan: Plan, **options: Any) -> bytes:
    """The bytes :func:`execute_file` puts in a new file of the plan's size at ``path``."""
    path.write_bytes(bytes(plan.size))
    fd = os.open(path, os.O_RDWR)
    try:
        execute_file(plan, fd, **options)
    finally:
        os.close(fd)
    return path.read_bytes()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["owned", "mapped", "swapped", "bytes"]),
            st.integers(1, 1500),  # length
            # padding before: batched regions' is written as zeros (up to a page)
            st.one_of(st.integers(0, 64), st.integers(0, 6000)),
        ),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from([1, 2]),
    st.sampled_from([64, 1 << 20]),
    st.sampled_from([1000, 1 << 20]),
)
def test_execute_file_routes_together_write_what_execute_does(
    tmp_path_factory: pytest.TempPathFactory,
    regions: list[tuple[str, int, int]],
    threads: int,
    kernel_bytes: int,
    chunk_bytes: int,
) -> None:
    """Regions written from memory in batches (their padding as zeros), copied file to file
    (``KERNEL_COPY_BYTES`` lowered so small ones do) and converted through mappings, in any
    order and mix: the file holds what :func:`execute` puts in a buffer."""
    from wireplan.core import executor

    tmp = tmp_path_factory.mktemp("routes")
    rng = np.random.default_rng(len(regions))
    (tmp / "src.bin").write_bytes(rng.integers(0, 256, 40_000, dtype=np.uint8).tobytes())
    with (
        MappedFile(tmp / "src.bin") as mf,
        mock.patch.object(executor, "KERNEL_COPY_BYTES", kernel_bytes),
    ):
        whole = np.frombuffer(mf.buffer, np.uint8)
        plan = Plan()
        at = 0
        for k, (kind, n, pad) in enumerate(regions):
            at += pad
            if kind == "owned":
                plan.place(at, n, source=rng.integers(0, 256, n, dtype=np.uint8), name=kind)
            elif kind == "mapped":
                plan.place(at, n, source=whole[k * 1500 : k * 1500 + n], name=kind)
            elif kind == "swapped":
                n -= n % 4
                src = rng.standard_normal(n // 4).astype(np.float32)
                plan.place(at, n, source=src, dtype=">f4", name=kind)
            else:
                plan.place(at, n, source=bytes(rng.integers(0, 256, n, dtype=np.uint8)), name=kind)
            at += n
        plan.reserve(at + 3)
        expected = bytearray(plan.size)
        execute(plan, expected)
        got = _filled(tmp / "out.bin", plan, threads=threads, chunk_bytes=chunk_bytes)
        del whole, plan
    assert got == expected


def test_execute_file_completes_short_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``os.pwritev`` may write fewer bytes than asked: the rest follows, from the byte
    where it stopped (inside a part or at a part's end)."""
    real = os.pwritev
    calls: list[int] = []

    def short(fd: int, bufs: list[Any], offset: int) -> int:
        calls.append(len(bufs))
        first = memoryview(bufs[0])
        return int(real(fd, [first[: max(1, min(7, first.nbytes))]], offset))

    monkeypatch.setattr(os, "pwritev", short)
    rng = np.random.default_rng(3)
    plan = Plan()
    plan.place(0, 20, source=rng.integers(0, 256, 20, dtype=np.uint8))
    plan.place(24, 7, source=bytes(range(7)))
    plan.place(40, 30, source=rng.integers(0, 256, 30, dtype=np.uint8))
    expected = bytearray(plan.size)
    execute(plan, expected)
    assert _filled(tmp_path / "out.bin", plan) == expected
    assert len(calls) > 3 and calls[0] == 5  # one batch: three parts and two gaps of zeros
