"""Hypothesis strategies for plain DSDL values (the pydsdl.serialize convention), per pydsdl type."""

from __future__ import annotations

import math
import random
import struct
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


_FLOAT_CODES = {16: "<e", 32: "<f", 64: "<d"}


def random_value(t: Any, rng: random.Random, *, max_var: int = 6) -> Any:
    """A plain value of DSDL type ``t`` from ``rng``: a fast seeded sibling of :func:`values`.

    Numbers are drawn from their bit patterns, with the range ends, zero, infinities and
    signed zeros often; variable-length arrays are empty, as long as ``max_var`` allows, or
    in between.  Never NaN.
    """
    if isinstance(t, pydsdl.DelimitedType):
        return random_value(t.inner_type, rng, max_var=max_var)
    if isinstance(t, pydsdl.BooleanType):
        return rng.random() < 0.5
    if isinstance(t, pydsdl.UnsignedIntegerType | pydsdl.SignedIntegerType):
        signed = isinstance(t, pydsdl.SignedIntegerType)
        lo = -(1 << (t.bit_length - 1)) if signed else 0
        hi = (1 << (t.bit_length - 1)) - 1 if signed else (1 << t.bit_length) - 1
        if rng.random() < 0.25:
            return rng.choice([lo, hi, 0, min(1, hi)])
        return rng.randint(lo, hi)
    if isinstance(t, pydsdl.FloatType):
        if rng.random() < 0.25:
            big = _FLOAT_MAX[t.bit_length]
            return rng.choice([0.0, -0.0, math.inf, -math.inf, big, -big, 1.0])
        while True:
            raw = rng.getrandbits(t.bit_length).to_bytes(t.bit_length // 8, "little")
            x: float = struct.unpack(_FLOAT_CODES[t.bit_length], raw)[0]
            if not math.isnan(x):
                return x
    if isinstance(t, pydsdl.ArrayType):
        fixed = isinstance(t, pydsdl.FixedLengthArrayType)
        n = t.capacity if fixed else rng.choice([0, min(t.capacity, max_var), -1])
        if n < 0:
            n = rng.randint(0, min(t.capacity, max_var))
        if isinstance(t.element_type, pydsdl.UTF8Type):
            return _random_text(rng, n, exact=fixed)
        if isinstance(t.element_type, pydsdl.ByteType):
            return bytes(rng.getrandbits(8) for _ in range(n))
        return [random_value(t.element_type, rng, max_var=max_var) for _ in range(n)]
    if isinstance(t, pydsdl.UnionType):
        f = rng.choice(t.fields)
        return {f.name: random_value(f.data_type, rng, max_var=max_var)}
    if isinstance(t, pydsdl.StructureType):
        return {
            f.name: random_value(f.data_type, rng, max_var=max_var)
            for f in t.fields
            if not isinstance(f, pydsdl.PaddingField)
        }
    raise AssertionError(f"unsupported {t!r}")


def _random_text(rng: random.Random, size: int, *, exact: bool) -> str:
    """Text of at most ``size`` UTF-8 bytes (exactly ``size`` when ``exact``), some non-ASCII."""
    out: list[str] = []
    left = size
    while left > 0:
        ch = rng.choice(["a", "Z", " ", "é", "€", "😀", chr(rng.randint(32, 126))])
        width = len(ch.encode())
        if width > left:
            if not exact and rng.random() < 0.5:
                break
            ch, width = "x", 1
        out.append(ch)
        left -= width
    return "".join(out)
