from __future__ import annotations

import gc
from pathlib import Path

import numpy as np
import pytest

from wireplan.core import MappedFile, as_memoryview, drop_pages, view


def test_mapped_file_views_share_memory_and_outlive_close(tmp_path: Path) -> None:
    data = np.arange(1000, dtype="<u4")
    path = tmp_path / "f.bin"
    path.write_bytes(b"abcd" + data.tobytes())
    with MappedFile(path) as mf:
        assert mf.size == 4004
        arr = view(mf.buffer, 4, "<u4", (10, 100))
        assert not arr.flags.writeable
        np.testing.assert_array_equal(arr.reshape(-1), data)
    assert mf.closed
    # The view keeps the mapping alive after close(): still valid memory.
    np.testing.assert_array_equal(arr.reshape(-1), data)
    del arr
    gc.collect()
    assert "closed" in repr(mf)


def test_mapped_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty"
    path.write_bytes(b"")
    with MappedFile(path) as mf:
        assert mf.size == 0
        assert len(mf.buffer) == 0


def test_missing_file() -> None:
    with pytest.raises(FileNotFoundError):
        MappedFile("/nonexistent/wireplan")


def test_as_memoryview() -> None:
    a = np.arange(4, dtype=np.int32)
    mv = as_memoryview(a)
    assert mv.format == "B"
    assert mv.nbytes == 16
    assert as_memoryview(b"xy").tobytes() == b"xy"
    with pytest.raises(ValueError, match="contiguous"):
        as_memoryview(a[::2])


def test_drop_pages_keeps_the_bytes(tmp_path: Path) -> None:
    """Releasing the resident pages of a read-only mapping loses nothing; other arrays are untouched."""
    data = np.random.default_rng(2).integers(0, 256, 3 << 20, dtype=np.uint8)
    (tmp_path / "f.bin").write_bytes(data.tobytes())
    with MappedFile(tmp_path / "f.bin") as mf:
        arr = np.frombuffer(mf.buffer, np.uint8)
        assert int(arr.sum()) == int(data.sum())  # every page resident now
        drop_pages(arr[100 : 2 << 20])
        assert np.array_equal(arr, data)
        assert mf.offset_of(arr[12345:]) == 12345
        del arr
    owned = data.copy()
    drop_pages(owned)  # not a mapping: left alone
    assert np.array_equal(owned, data)


def test_drop_pages_of_many_arrays_releases_their_span(tmp_path: Path) -> None:
    """Several arrays at once (a batch of small payloads): one release per mapping, from
    the first array to the last; the bytes stay, other arrays are left alone."""
    data = np.random.default_rng(3).integers(0, 256, 1 << 20, dtype=np.uint8)
    (tmp_path / "f.bin").write_bytes(data.tobytes())
    with MappedFile(tmp_path / "f.bin") as mf:
        arr = np.frombuffer(mf.buffer, np.uint8)
        assert int(arr.sum()) == int(data.sum())
        owned = data[:100].copy()
        drop_pages(arr[300_000:300_010], owned, arr[10:20], arr[:0], arr[900_000:])
        assert np.array_equal(arr, data)
        assert np.array_equal(owned, data[:100])
        del arr
    drop_pages()  # nothing to release
