"""Cast modes: a value brought into its field's range, the slow serialization path.

:func:`normalize` copies a value with every primitive brought into range
according to its field's cast mode (the same rules as ``pydsdl.serialize``:
saturated or truncated integers, saturated floats or infinities) and with
the structure checked, raising :class:`~wireplan.errors.EncodeError` with a
path on a value no rule brings in.  The rules shared with the strict reader
of text values (:mod:`wireplan.dsdl.values`) are here once: the range of an
integer (:func:`int_range`), whether a float fits (:func:`float_fits`) and
an array's length (:func:`check_length`).  Re-exported by
:mod:`wireplan.dsdl.runtime`.
"""

from __future__ import annotations

import math
from typing import Any

from wireplan.dsdl._bits import _F_PACK, _FLOAT_MAX, Kind, utf8_bytes
from wireplan.dsdl._builtin import from_builtin
from wireplan.errors import EncodeError

__all__ = ["check_length", "float_fits", "int_range", "normalize"]


def int_range(tag: str, bits: int) -> tuple[int, int]:
    """The lowest and highest value of a ``uintN`` (``tag`` ``"u"``) or ``intN`` (``"i"``)."""
    if tag == "i":
        half = 1 << (bits - 1)
        return -half, half - 1
    return 0, (1 << bits) - 1


def float_fits(bits: int, value: float) -> bool:
    """Whether ``value`` is a ``floatN``: not finite, or finite once rounded to ``bits``."""
    try:
        _F_PACK[bits](value)
    except OverflowError:
        return False
    return True


def check_length(kind: Kind, count: int, path: str, unit: str = "") -> None:
    """The array rule: a fixed-length array (``"fa"``) holds exactly its capacity, a
    variable-length one (``"va"``) at most; ``EncodeError`` naming ``path`` if not."""
    cap = kind[1]
    if kind[0] == "fa" and count != cap:
        raise EncodeError(
            f"fixed-length array requires exactly {cap} elements, got {count}{unit}", path
        )
    if kind[0] == "va" and count > cap:
        raise EncodeError(f"array length {count} exceeds capacity {cap}", path)


def _number(value: Any, path: str, what: str) -> Any:
    if isinstance(value, bool | int | float):
        return value
    # numpy scalars and other numbers that convert losslessly
    for convert in (getattr(value, "__index__", None), getattr(value, "__float__", None)):
        if convert is not None:
            try:
                return convert()
            except (TypeError, ValueError):  # pragma: no cover - exotic numbers
                pass
    raise EncodeError(f"{what} requires a number, got {type(value).__name__}", path)


def _to_int(value: Any, path: str) -> int:
    value = _number(value, path, "integer")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise EncodeError(f"non-finite float {value} cannot be converted to an integer", path)
        return round(value)
    return int(value)


def _norm_uint(value: Any, bits: int, saturated: bool, path: str) -> int:
    v = _to_int(value, path)
    if saturated:
        lo, hi = int_range("u", bits)
        return min(max(v, lo), hi)
    return v & ((1 << bits) - 1)


def _norm_int(value: Any, bits: int, saturated: bool, path: str) -> int:
    v = _to_int(value, path)
    if saturated:
        lo, hi = int_range("i", bits)
        return min(max(v, lo), hi)
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def _norm_float(value: Any, bits: int, saturated: bool, path: str) -> float:
    v = _number(value, path, "float")
    if isinstance(v, float):
        f = v
    else:
        try:
            f = float(v)
        except OverflowError:
            if saturated:
                f = _FLOAT_MAX[bits] if v >= 0 else -_FLOAT_MAX[bits]
            else:
                f = math.inf if v >= 0 else -math.inf
    if saturated:
        if math.isfinite(f):
            top = _FLOAT_MAX[bits]
            f = min(max(f, -top), top)
    elif not float_fits(bits, f):
        f = math.copysign(math.inf, f)
    return f


def _norm_bool(value: Any, path: str) -> bool:
    v = _number(value, path, "bool")
    if isinstance(v, float) and not math.isfinite(v):
        raise EncodeError(f"non-finite float {v} cannot be converted to bool", path)
    return bool(v)


def _as_list(value: Any, element: Kind, path: str) -> list[Any]:
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        if element[0] in ("u", "byte", "utf8") and (element[0] != "u" or element[1] == 8):
            return list(utf8_bytes(value, path))
        raise EncodeError("an array requires a sequence, got str", path)
    tolist = getattr(value, "tolist", None)  # numpy arrays
    if tolist is not None:
        out = tolist()
        if isinstance(out, list):
            return out
    if isinstance(value, tuple | bytes | bytearray | memoryview | range):
        return list(value)
    raise EncodeError(f"an array requires a sequence, got {type(value).__name__}", path)


def _norm_value(kind: Kind, value: Any, path: str) -> Any:
    tag = kind[0]
    if tag == "u":
        return _norm_uint(value, kind[1], kind[2], path)
    if tag == "i":
        return _norm_int(value, kind[1], kind[2], path)
    if tag == "f":
        return _norm_float(value, kind[1], kind[2], path)
    if tag == "b":
        return _norm_bool(value, path)
    if tag == "c":
        return normalize(kind[1], value, path)
    if tag in ("fa", "va"):
        element = kind[2]
        if element[0] == "utf8":
            if isinstance(value, str):
                raw = utf8_bytes(value, path)
            else:
                # UTF-8 bytes: bytes, or byte values (a numpy uint8 array, the list of
                # numbers pycyphal's to_builtin gives for text that is not printable, the
                # default [])
                try:
                    raw = bytes(
                        value
                        if isinstance(value, bytes | bytearray)
                        else _as_list(value, element, path)
                    )
                except (TypeError, ValueError):
                    raise EncodeError(
                        f"a utf8 array requires str or UTF-8 bytes, got {type(value).__name__}",
                        path,
                    ) from None
                try:
                    raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise EncodeError(f"not valid UTF-8: {exc}", path) from None
            items: list[Any] = list(raw)
        elif element[0] == "byte" and isinstance(value, bytes | bytearray | str):
            items = list(utf8_bytes(value, path) if isinstance(value, str) else value)
        else:
            items = _as_list(value, element, path)
        check_length(kind, len(items), path)
        if element[0] in ("utf8", "byte"):
            return [_norm_uint(v, 8, False, f"{path}[{i}]") for i, v in enumerate(items)]
        return [_norm_value(element, v, f"{path}[{i}]") for i, v in enumerate(items)]
    if tag in ("byte", "utf8"):
        return _norm_uint(value, 8, False, path)
    raise AssertionError(f"unknown field kind {kind!r}")  # pragma: no cover


def normalize(cls: type, obj: Any, path: str = "$") -> Any:
    """A copy of ``obj`` that the fast serializer accepts, or an ``EncodeError`` naming the path.

    Integers are saturated or truncated per cast mode, floats saturated (with
    infinities and NaN kept) or turned into infinities when they overflow a
    truncated field, bools coerced, arrays turned into lists of checked length.
    """
    if isinstance(obj, dict):
        obj = from_builtin(cls, obj, path)
    if not isinstance(obj, cls):
        raise EncodeError(f"expected {cls.__qualname__}, got {type(obj).__name__}", path)
    fields: tuple[tuple[str, Kind, str], ...] = cls._FIELDS_  # type: ignore[attr-defined]
    new: Any = object.__new__(cls)
    if cls._UNION_:  # type: ignore[attr-defined]
        tag = getattr(obj, "_tag", None)
        if not isinstance(tag, int) or not 0 <= tag < len(fields):
            raise EncodeError("a union needs exactly one field set", path)
        _, kind, name = fields[tag]
        new._tag = tag
        new._value = _norm_value(kind, getattr(obj, "_value", None), f"{path}.{name}")
        return new
    for attr, kind, name in fields:
        try:
            value = getattr(obj, attr)
        except AttributeError:
            raise EncodeError("field not set", f"{path}.{name}") from None
        setattr(new, attr, _norm_value(kind, value, f"{path}.{name}"))
    return new
