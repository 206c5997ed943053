"""``wireplan.core.alloc.fill_new_bytes``: a new ``bytes`` object filled in place, once."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

import wireplan.core.alloc as alloc


def test_fill_writes_every_byte_of_a_new_bytes_object() -> None:
    for n in (0, 1, 2, 255, 4096, 1 << 20):
        out = alloc.fill_new_bytes(n, lambda dest: dest.__setitem__(slice(None), 0x5A))
        assert type(out) is bytes and out == b"\x5a" * n


def test_in_place_view_keeps_its_bytes_alive() -> None:
    kept: list[np.ndarray[Any, Any]] = []

    def fill(dest: np.ndarray[Any, Any]) -> None:
        dest[:] = 7
        kept.append(dest)  # a fill that (wrongly) holds on to its view

    out = alloc.fill_new_bytes(4096, fill)
    assert out == b"\x07" * 4096
    held = sys.getrefcount(out)
    kept.clear()
    # The view held a reference: the memory it writes to could not be freed under it.
    assert sys.getrefcount(out) == held - 1


def test_shared_bytes_objects_are_never_filled_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    sizes: list[int] = []
    real = alloc._bytes_from_size

    def spy(ptr: Any, size: int) -> Any:
        sizes.append(size)
        return real(ptr, size)

    monkeypatch.setattr(alloc, "_bytes_from_size", spy)
    for n in (0, 1, 2, 255):
        assert alloc.fill_new_bytes(n, lambda d: d.fill(1)) == b"\x01" * n
    # CPython's shared one-byte objects still hold their byte.
    assert all(bytes([i])[0] == i for i in range(256)) and len(bytes(0)) == 0
    assert alloc.fill_new_bytes(4096, lambda d: d.fill(2)) == b"\x02" * 4096
    assert sizes and min(sizes) >= 2  # the large one was filled in place, the small ones not


class _Midway(Exception):
    pass


def test_a_failed_fill_propagates() -> None:
    def half_then_fail(dest: np.ndarray[Any, Any]) -> None:
        dest[: dest.shape[0] // 2] = 0xAB
        raise _Midway

    with pytest.raises(_Midway):
        alloc.fill_new_bytes(1 << 16, half_then_fail)
