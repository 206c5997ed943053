"""Hypothesis strategies for plain DSDL values (the pydsdl.serialize convention), per pydsdl type."""

from __future__ import annotations

import math
from typing import Any

import pydsdl
from hypothesis import strategies as st

_FLOAT_MAX = {16: 65504.0, 32: 3.4028234663852886e38, 64: 1.7976931348623157e308}


def _floats(bits: int, in_range: bool) -> st.SearchStrategy[float]:
    width = {16: 16, 32: 32, 64: 64}[bits]
    if in_range:
        return st.floats(width=width, allow_nan=False)  # type: ignore[arg-type]
    return st.floats(allow_nan=False) | st.sampled_from(
        [math.inf, -math.inf, 1e300, -1e300, 70000.0]
    )


def values(t: Any, *, in_range: bool = True, max_var: int = 6) -> st.SearchStrategy[Any]:
    """Plain values of DSDL type ``t``; with ``in_range=False`` integers and floats may overflow."""
    if isinstance(t, pydsdl.DelimitedType):
        return values(t.inner_type, in_range=in_range, max_var=max_var)
    if isinstance(t, pydsdl.BooleanType):
        return st.booleans()
    if isinstance(t, pydsdl.UnsignedIntegerType):
        hi = (1 << t.bit_length) - 1
        if in_range:
            return st.integers(0, hi)
        return st.integers(-(1 << (t.bit_length + 2)), 1 << (t.bit_length + 2))
    if isinstance(t, pydsdl.SignedIntegerType):
        half = 1 << (t.bit_length - 1)
        if in_range:
            return st.integers(-half, half - 1)
        return st.integers(-(half << 3), half << 3)
    if isinstance(t, pydsdl.FloatType):
        return _floats(t.bit_length, in_range)
    if isinstance(t, pydsdl.FixedLengthArrayType):
        el = values(t.element_type, in_range=in_range, max_var=max_var)
        return st.lists(el, min_size=t.capacity, max_size=t.capacity)
    if isinstance(t, pydsdl.ArrayType) and isinstance(t.element_type, pydsdl.UTF8Type):
        fixed = isinstance(t, pydsdl.FixedLengthArrayType)
        return st.text(max_size=t.capacity).filter(
            lambda s, cap=t.capacity, fixed=fixed: (
                (len(s.encode()) == cap) if fixed else len(s.encode()) <= cap
            )
        )
    if isinstance(t, pydsdl.ArrayType) and isinstance(t.element_type, pydsdl.ByteType):
        if isinstance(t, pydsdl.FixedLengthArrayType):
            return st.binary(min_size=t.capacity, max_size=t.capacity)
        return st.binary(max_size=min(t.capacity, max_var))
    if isinstance(t, pydsdl.VariableLengthArrayType):
        el = values(t.element_type, in_range=in_range, max_var=max_var)
        return st.lists(el, min_size=0, max_size=min(t.capacity, max_var))
    if isinstance(t, pydsdl.UnionType):
        return st.one_of(
            *[
                values(f.data_type, in_range=in_range, max_var=max_var).map(
                    lambda v, name=f.name: {name: v}
                )
                for f in t.fields
            ]
        )
    if isinstance(t, pydsdl.StructureType):
        fields = [f for f in t.fields if not isinstance(f, pydsdl.PaddingField)]
        return st.fixed_dictionaries(
            {f.name: values(f.data_type, in_range=in_range, max_var=max_var) for f in fields}
        )
    raise AssertionError(f"unsupported {t!r}")


def same(a: Any, b: Any) -> bool:
    """Equality of plain values where NaN equals NaN and -0.0 differs from 0.0 only by sign bit."""
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) and math.isnan(b):
            return True
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return (bool(a == b) and type(a) is type(b)) or (
        isinstance(a, bool | int)
        and isinstance(b, bool | int)
        and a == b
        and isinstance(a, bool) == isinstance(b, bool)
    )
