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
    "numpy_arrays",
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
        attr, kind, _ = fields[obj._tag]
        return f"{cls._FULL_NAME_}({attr}={_shown(kind, getattr(obj, attr))})"
    inner = ", ".join(f"{attr}={_shown(kind, getattr(obj, attr))}" for attr, kind, _ in fields)
    return f"{cls._FULL_NAME_}({inner})"


def _shown(kind: Kind, value: Any) -> str:
    """A field's value in a repr; a numpy array as nunavut's classes show it: on one line,
    the middle elided past 100 elements, a variable-length byte array as its text."""
    if type(value) is not np.ndarray:
        return repr(value)
    element = kind[2]
    if kind[0] == "va" and (element[0] == "utf8" or element[:2] == ("u", 8)):
        return repr(value.tobytes())[1:]
    return np.array2string(value, separator=",", edgeitems=10, threshold=100, max_line_width=10**6)


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
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):  # arrays of any two lengths
        x, y = np.asarray(a), np.asarray(b)
        return x.shape == y.shape and bool(np.all(x == y))
    return bool(a == b)


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


# nunavut's arrays (``compile(..., arrays="numpy")``): every array field is a numpy array


def numpy_dtype(element: Kind) -> Any:
    """The dtype nunavut gives an array of ``element``: the standard width that holds it
    (``uint3`` -> ``uint8``), ``uint8`` for ``byte`` and ``utf8``, ``object`` for composites."""
    tag = element[0]
    if tag == "c":
        return np.dtype(object)
    if tag in ("byte", "utf8"):
        return np.dtype(np.uint8)
    if tag == "b":
        return np.dtype(np.bool_)
    if tag == "f":
        return np.dtype(f"f{element[1] // 8}")
    width = next(w for w in (8, 16, 32, 64) if element[1] <= w)
    return np.dtype(f"{tag}{width // 8}")


def as_array(kind: Kind, value: Any, path: str) -> Any:
    """``value`` as the numpy array a field of ``kind`` holds: an array of that dtype and
    one dimension is kept as it is (shared), ``bytes`` are viewed (read-only, as nunavut's),
    ``str`` is UTF-8 encoded, anything else is copied; a length the field cannot hold, or
    an element the dtype cannot hold, is an :class:`~wireplan.errors.EncodeError`."""
    tag, capacity, element = kind[0], kind[1], kind[2]
    dtype = numpy_dtype(element)
    if type(value) is np.ndarray and value.dtype == dtype and value.ndim == 1:
        array = value
    elif dtype == np.uint8 and isinstance(value, str | bytes | bytearray | memoryview):
        array = np.frombuffer(value.encode() if isinstance(value, str) else value, np.uint8)
    elif dtype.kind == "O":
        if isinstance(value, str | bytes | dict | set) or not hasattr(value, "__len__"):
            raise EncodeError(f"an array of {element[1].__name__} requires a sequence", path)
        array = np.empty(len(value), object)
        for i, item in enumerate(value):
            array[i] = item
    else:
        try:
            array = np.array(value, dtype)
            if array.ndim != 1:
                array = array.flatten()
        except (TypeError, ValueError, OverflowError) as e:
            raise EncodeError(f"not an array of {dtype}: {e}", path) from None
    if array.size > capacity or (tag == "fa" and array.size != capacity):
        need = f"{'exactly' if tag == 'fa' else 'at most'} {capacity}"
        raise EncodeError(f"array of {array.size} elements, the field holds {need}", path)
    return array


def numpy_arrays(*classes: Any) -> None:
    """Make every array field of ``classes`` read as a numpy array, as nunavut's classes do:
    a property over the field's slot (a union's ``_value``).  A list or tuple assigned
    (as decoders and constructors do) is kept, its length checked, and converted
    (:func:`as_array`) on its first read, so decoding builds no array nobody reads;
    anything else is converted on assignment."""
    for cls in classes:
        for index, (attr, kind, name) in enumerate(cls._FIELDS_):
            if kind[0] in ("fa", "va"):
                path = f"$.{name}"
                if cls._UNION_:
                    setattr(
                        cls,
                        attr,
                        property(_union_array(index, kind, path), _set_union(index, kind, path)),
                    )
                else:
                    slot = cls.__dict__[attr]
                    getter, setter = _array_field(slot, kind, path)
                    setattr(cls, attr, property(getter, setter))


def _array_field(slot: Any, kind: Kind, path: str) -> tuple[Callable[..., Any], ...]:
    fixed, capacity = kind[0] == "fa", kind[1]
    ndarray, get, put = np.ndarray, slot.__get__, slot.__set__

    def getter(self: Any) -> Any:
        value = get(self)
        if value.__class__ is not ndarray:
            value = as_array(kind, value, path)
            put(self, value)
        return value

    def setter(self: Any, value: Any) -> None:
        if value.__class__ is list or value.__class__ is tuple:
            n = len(value)
            if n > capacity or (fixed and n != capacity):
                as_array(kind, value, path)  # raises: the length
        else:
            value = as_array(kind, value, path)
        put(self, value)

    return getter, setter


def _set_union(tag: int, kind: Kind, path: str) -> Callable[[Any, Any], None]:
    plain = union_setter(tag)

    def setter(self: Any, value: Any) -> None:
        plain(self, None if value is None else as_array(kind, value, path))

    return setter


def _union_array(tag: int, kind: Kind, path: str) -> Callable[[Any], Any]:
    dtype = numpy_dtype(kind[2])

    def getter(self: Any) -> Any:
        if self._tag != tag:
            return None
        value = self._value
        if type(value) is not np.ndarray or value.dtype != dtype:
            value = self._value = as_array(kind, value, path)
        return value

    return getter
