"""Plain data, repr and equality of generated objects: the methods every generated class shares.

:func:`to_builtin` / :func:`from_builtin` convert between objects and plain
data as ``pydsdl.serialize`` / ``pydsdl.deserialize`` take and give it;
:func:`fields_named` is the one check of a mapping's field names (used by
:func:`from_builtin` and by the strict reader of text values,
:func:`wireplan.dsdl.values.from_plain`).  Re-exported by
:mod:`wireplan.dsdl.runtime`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from wireplan.dsdl._bits import _DTYPES, _FLOAT_CODE, Kind, utf8_bytes
from wireplan.errors import EncodeError

__all__ = [
    "default_of",
    "eq",
    "fields_named",
    "from_builtin",
    "repr_of",
    "to_builtin",
    "union_getter",
    "union_setter",
]


def _dtype_of(kind: Kind) -> Any:
    if kind[0] == "b":
        return np.bool_
    code = {"u": "BHIQ", "i": "bhiq"}.get(kind[0])
    if code is not None:
        return _DTYPES[code[{8: 0, 16: 1, 32: 2, 64: 3}[kind[1]]]]
    return _DTYPES[_FLOAT_CODE[kind[1]]]


def default_of(kind: Kind) -> Any:
    """The default value of a field of ``kind`` (zero, False, empty, all-default)."""
    tag = kind[0]
    if tag in ("u", "i", "byte"):
        return 0
    if tag == "f":
        return 0.0
    if tag == "b":
        return False
    if tag == "fa" and kind[3]:
        return np.zeros(kind[1], _dtype_of(kind[2]))
    if tag == "fa":
        return [default_of(kind[2]) for _ in range(kind[1])]
    if tag == "va":
        return []
    if tag == "utf8":
        return 0
    if tag == "c":
        return kind[1]()
    raise AssertionError(f"unknown field kind {kind!r}")  # pragma: no cover


def _value_to_builtin(kind: Kind, value: Any) -> Any:
    tag = kind[0]
    if tag == "c":
        return to_builtin(value)
    if tag in ("fa", "va"):
        element = kind[2]
        if element[0] == "utf8":
            if isinstance(value, str):
                return value
            return bytes(value).decode("utf-8")
        if isinstance(value, str):  # a byte or uint8 array given as text: its UTF-8 bytes
            value = value.encode("utf-8")
        if element[0] == "byte":
            return bytes(value)
        if element[0] == "c":
            return [to_builtin(v) for v in value]
        if type(value) is np.ndarray:
            value = value.tolist()
        return [_value_to_builtin(element, v) for v in value]
    item = getattr(value, "item", None)  # numpy scalars become Python numbers
    if item is not None and not isinstance(value, bool | int | float):
        value = item()
    if tag == "b" and isinstance(value, int):
        return bool(value)
    if tag == "f" and isinstance(value, int) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            return value
    return value


def to_builtin(obj: Any) -> dict[str, Any]:
    """``obj`` as plain data: dicts by field name, a one-key dict for a union, lists for arrays.

    The same convention as ``pydsdl.serialize`` / ``pydsdl.deserialize``.
    """
    cls = type(obj)
    fields: tuple[tuple[str, Kind, str], ...] = cls._FIELDS_
    if cls._UNION_:
        _, kind, name = fields[obj._tag]
        return {name: _value_to_builtin(kind, obj._value)}
    return {name: _value_to_builtin(kind, getattr(obj, attr)) for attr, kind, name in fields}


def _value_from_builtin(kind: Kind, value: Any, path: str) -> Any:
    tag = kind[0]
    if tag == "c":
        return from_builtin(kind[1], value, path)
    if tag in ("fa", "va"):
        element = kind[2]
        if element[0] == "utf8" and isinstance(value, str):
            return list(utf8_bytes(value, path))
        if isinstance(value, bytes | bytearray):
            return list(value)
        if element[0] == "c" and isinstance(value, list | tuple):
            return [from_builtin(element[1], v, f"{path}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, tuple):
            return list(value)
    return value


def from_builtin(cls: type, data: Any, path: str = "$") -> Any:
    """Build a ``cls`` instance from plain data (the inverse of :func:`to_builtin`)."""
    if isinstance(data, cls):
        return data
    if not isinstance(data, dict):
        raise EncodeError(f"{cls.__qualname__} requires a dict, got {type(data).__name__}", path)
    names = fields_named(cls, data, path)
    args = {}
    for key, value in data.items():
        attr, kind = names[key]
        args[attr] = _value_from_builtin(kind, value, f"{path}.{key}")
    return cls(**args)


def fields_named(cls: Any, data: Mapping[str, Any], path: str) -> dict[str, tuple[str, Kind]]:
    """``{DSDL name: (attribute, kind)}`` of ``cls``'s fields, once the keys of ``data`` are
    checked: each a field of ``cls``, exactly one for a union (``EncodeError`` naming ``path``)."""
    fields: tuple[tuple[str, Kind, str], ...] = cls._FIELDS_
    names = {name: (attr, kind) for attr, kind, name in fields}
    for key in data:
        if key not in names:
            listed = ", ".join(names) or "none"
            raise EncodeError(
                f"unknown field {key!r} of {cls._FULL_NAME_} (fields: {listed})", path
            )
    if cls._UNION_ and len(data) != 1:
        raise EncodeError(
            f"union {cls._FULL_NAME_} requires exactly one of its fields ({', '.join(names)}), "
            f"got {len(data)}",
            path,
        )
    return names


def repr_of(obj: Any) -> str:
    """``Name(field=value, ...)`` with the type's full DSDL name."""
    cls = type(obj)
    fields: tuple[tuple[str, Kind, str], ...] = cls._FIELDS_
    if cls._UNION_:
        name = fields[obj._tag][0]
        return f"{cls._FULL_NAME_}({name}={obj._value!r})"
    inner = ", ".join(f"{attr}={getattr(obj, attr)!r}" for attr, _, _ in fields)
    return f"{cls._FULL_NAME_}({inner})"


def _octets(x: Any) -> bytes | None:
    if isinstance(x, str):
        return x.encode("utf-8")
    try:
        return bytes(x.tolist() if isinstance(x, np.ndarray) else x)
    except (TypeError, ValueError):
        return None


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, str | bytes | bytearray) or isinstance(b, str | bytes | bytearray):
        # text and byte arrays: a str, bytes, or their byte values (a list, a uint8 array)
        octets = _octets(a)
        return octets is not None and octets == _octets(b)
    if isinstance(a, list) or isinstance(b, list):
        try:
            return list(a) == list(b)
        except TypeError:
            return False
    result = a == b
    return (
        bool(result) if isinstance(result, bool) else bool(getattr(result, "all", lambda: result)())
    )


def eq(a: Any, b: Any) -> bool:
    """Field-wise equality of two instances of the same generated class."""
    if type(a) is not type(b):
        return False
    cls = type(a)
    if cls._UNION_:
        return bool(a._tag == b._tag and _same(a._value, b._value))
    return all(_same(getattr(a, attr), getattr(b, attr)) for attr, _, _ in cls._FIELDS_)


def union_setter(tag: int) -> Callable[[Any, Any], None]:
    """The property setter for variant ``tag`` of a union: selecting it, replacing any other."""

    def setter(self: Any, value: Any) -> None:
        if value is None:
            if self._tag == tag:
                raise EncodeError("a union needs exactly one field; set another one instead")
            return
        self._tag = tag
        self._value = value

    return setter


def union_getter(tag: int) -> Callable[[Any], Any]:
    """The property getter for variant ``tag``: its value, or None when another is selected."""

    def getter(self: Any) -> Any:
        return self._value if self._tag == tag else None

    return getter
