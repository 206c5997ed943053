from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from wireplan.core import Plan, align_up, is_power_of_two
from wireplan.errors import ArgumentError


@pytest.mark.parametrize(
    ("offset", "alignment", "expected"),
    [(0, 1, 0), (0, 64, 0), (1, 64, 64), (63, 64, 64), (64, 64, 64), (65, 4096, 4096)],
)
def test_align_up(offset: int, alignment: int, expected: int) -> None:
    assert align_up(offset, alignment) == expected


def test_power_of_two() -> None:
    assert [n for n in range(-2, 70) if is_power_of_two(n)] == [1, 2, 4, 8, 16, 32, 64]


@given(st.lists(st.tuples(st.integers(0, 5000), st.sampled_from([1, 2, 8, 64, 4096])), max_size=30))
def test_add_places_aligned_non_overlapping_regions(items: list[tuple[int, int]]) -> None:
    plan = Plan()
    for length, alignment in items:
        plan.add(length, alignment=alignment)
    end = 0
    for region, (length, alignment) in zip(plan, items, strict=True):
        assert region.offset % alignment == 0
        assert region.offset >= end
        assert region.offset - end < alignment
        assert region.length == length
        end = region.end
    assert plan.size == end


def test_place_rejects_overlap_misalignment_and_bad_alignment() -> None:
    plan = Plan()
    plan.place(0, 16, name="a")
    with pytest.raises(ValueError, match="overlaps"):
        plan.place(8, 16, name="b")
    with pytest.raises(ArgumentError, match="multiple of 64"):
        plan.place(65, 1, alignment=64)
    with pytest.raises(ArgumentError, match="power of two"):
        plan.add(1, alignment=3)
    with pytest.raises(ArgumentError, match="power of two"):
        plan.pad_to(0)
    with pytest.raises(ValueError, match="negative"):
        plan.place(100, -1)


def test_pad_and_reserve() -> None:
    plan = Plan()
    plan.add(3)
    plan.pad_to(8)
    assert plan.size == 8
    plan.reserve(100)
    assert plan.size == 100
    plan.reserve(10)
    assert plan.size == 100


def test_region_keeps_dtype() -> None:
    plan = Plan()
    r = plan.add(8, source=np.zeros(2, np.float32), dtype=">f4")
    assert r.dtype == np.dtype(">f4")
    assert repr(plan) == "Plan(1 regions, 8 bytes)"


def test_place_rejects_an_overlap_with_any_earlier_region() -> None:
    plan = Plan()
    plan.place(0, 16, name="a")
    plan.place(100, 16, name="b")
    with pytest.raises(ValueError, match=r"'c' \[10, 14\) overlaps 'a' \[0, 16\)"):
        plan.place(10, 4, name="c")
    with pytest.raises(ValueError, match="overlaps 'b'"):
        plan.place(90, 20, name="d")
    plan.place(16, 84, name="between")  # touching is not overlapping
    plan.place(50, 0, name="empty")  # an empty region overlaps nothing
    assert plan.size == 116 and len(plan) == 4


@given(st.lists(st.tuples(st.integers(0, 200), st.integers(0, 40)), max_size=40))
def test_place_accepts_exactly_the_regions_that_overlap_nothing(
    items: list[tuple[int, int]],
) -> None:
    plan = Plan()
    accepted: list[tuple[int, int]] = []
    for offset, length in items:
        free = all(offset + length <= o or o + n <= offset for o, n in accepted if n)
        if free or length == 0:
            plan.place(offset, length)
            accepted.append((offset, length))
        else:
            with pytest.raises(ValueError, match="overlaps"):
                plan.place(offset, length)
    assert [(r.offset, r.length) for r in plan] == accepted


@given(st.lists(st.tuples(st.integers(0, 200), st.integers(0, 40)), max_size=40))
def test_place_each_places_what_place_would(items: list[tuple[int, int]]) -> None:
    """Many regions at once: in order each costs a comparison; out of order, or
    overlapping, each goes through place, with its error."""
    ordered = sorted(items)
    one, each = Plan(), Plan()
    expected: list[tuple[int, int]] = []
    for offset, length in ordered:
        try:
            one.place(offset, length, alignment=1, name="v")
        except ValueError:
            break
        expected.append((offset, length))
    try:
        each.place_each(((o, n, None) for o, n in ordered), name="v")
    except ValueError as exc:
        assert "overlaps" in str(exc)
        assert len(expected) < len(ordered)
    assert [(r.offset, r.length) for r in each] == expected
    assert each.size == one.size
    unordered = Plan()
    unordered.place_each([(64, 8, b"b" * 8), (0, 8, b"a" * 8), (8, 0, None)], alignment=8)
    assert [(r.offset, r.source) for r in unordered] == [(64, b"b" * 8), (0, b"a" * 8), (8, None)]
    assert unordered.size == 72
    with pytest.raises(ValueError, match="not a multiple of 8"):
        unordered.place_each([(100, 4, None)], alignment=8)
