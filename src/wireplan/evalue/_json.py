"""EValues as JSON: what ``wireplan evalue encode`` reads and ``wireplan evalue decode`` prints.

The JSON form (docs/evalue.md, "On the command line"):

=========================================  ===========================================
JSON                                       EValue
=========================================  ===========================================
``null``                                   None
``true`` / ``false``                       Bool
an integer (``-3``)                        Int (int64: a larger one is an error)
a number with a fraction or exponent       Double
``{"double": "nan" | "inf" | "-inf" | x}``  Double (NaN, infinities, or any number)
a string                                   String (its UTF-8 bytes)
``{"bytes": "00ff"}``                      String of bytes that are not UTF-8 text (hex)
``{"tensor": [[1, 2], [3, 4]],             Tensor: shape from the nesting, or ``"shape"``
"dtype": "float32", "shape": [2, 2]}``     (then ``"tensor"`` may also be flat)
``{"raw": "hex", "dtype": "qint8",          Tensor of a type numpy cannot hold: its wire
"shape": [4]}``                            bytes (row-major, big-endian)
``[...]`` at the top                       a list (wireplan's list framing, ``encode_list``)
=========================================  ===========================================

Tensor elements: numbers, ``true``/``false`` for ``bool``, ``"nan"`` /
``"inf"`` / ``"-inf"`` in float tensors, ``[re, im]`` pairs for complex ones.
Output always has ``"shape"`` (a shape with a 0 has no nesting to show it)
and prints float16 / float32 elements as the shortest decimal that reads
back as the same value.  Errors are :class:`~wireplan.EncodeError` with the
JSON path (``$[2].tensor[1][0]``); text that is not JSON is a
:class:`~wireplan.DecodeError` at the byte (of the text in UTF-8) where it
stops being JSON.  This module imports nothing optional.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from wireplan.errors import ArgumentError, DecodeError, EncodeError
from wireplan.evalue._codec import MAX_RANK, MAX_SIZE
from wireplan.evalue._dtypes import SCALAR_TYPES, info_for_code, info_for_dtype
from wireplan.evalue._types import RawTensor

__all__ = ["dumps", "from_json", "parse", "to_json"]

_BY_NAME = {name: code for code, name in SCALAR_TYPES.items()}
_INT64 = (-(2**63), 2**63 - 1)
_SPECIAL = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_FORMS = (
    'a tensor {"tensor": [...], "dtype": "float32"}, {"double": "nan"}, {"bytes": "00ff"} '
    'or {"raw": "hex", "dtype": ..., "shape": [...]}'
)


def parse(text: str, what: str = "VALUE", start: int = 0) -> Any:
    """JSON text as Python data (``NaN`` / ``Infinity`` read as floats).

    Text that is not JSON raises :class:`DecodeError` at its byte in UTF-8,
    counted from ``start`` (where ``text`` begins in a longer text).
    """
    try:
        return json.loads(text)
    except ValueError as exc:
        if not isinstance(exc, json.JSONDecodeError):  # a limit of json, not a place
            raise DecodeError(f"{what} is not JSON: {exc}") from None
        at = start + len(text[: exc.pos].encode("utf-8", "surrogatepass"))
        reason = f"{what} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        raise DecodeError(reason, at) from None


def parse_lines(text: str, what: str = "VALUE") -> list[Any]:
    """One JSON document of a list, or JSON lines (one document a line, blank lines skipped)."""
    try:
        whole = json.loads(text)
    except ValueError:
        found: list[Any] = []
        start = 0
        for i, line in enumerate(text.splitlines(keepends=True), 1):
            if line.strip():
                found.append(parse(line, f"{what} line {i}", start))
            start += len(line.encode("utf-8", "surrogatepass"))
        return found
    if not isinstance(whole, list):
        raise EncodeError("records are a JSON list of lists, or JSON lines of lists")
    return whole


def dumps(data: Any) -> str:
    """One line of JSON (strict: the JSON form has no NaN)."""
    return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


# ---------------------------------------------------------------- JSON -> values


def _what(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"{value!r}" if not isinstance(value, str) or len(value) < 40 else "a string"


def _int(value: int, path: str) -> int:
    if not _INT64[0] <= value <= _INT64[1]:
        raise EncodeError(f"{value} is out of the Int range (int64)", path)
    return value


def _double(value: Any, path: str) -> float:
    if isinstance(value, str) and value.lower() in _SPECIAL:
        return _SPECIAL[value.lower()]
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            raise EncodeError(f"{value} is beyond the Double range", path) from None
    raise EncodeError(f'a Double is a number or "nan", "inf", "-inf", not {_what(value)}', path)


def _hex(value: Any, path: str) -> bytes:
    if not isinstance(value, str):
        raise EncodeError(f"hex text expected, not {_what(value)}", path)
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise EncodeError(f"not hex: {value[:40]!r}", path) from None


def _flatten(data: Any, flat: list[Any], path: str) -> tuple[int, ...]:
    """Append the leaves of nested lists to ``flat``; their shape (all rows the same length)."""
    if not isinstance(data, list):
        flat.append(data)
        return ()
    shapes = [_flatten(item, flat, f"{path}[{i}]") for i, item in enumerate(data)]
    for i, s in enumerate(shapes):
        if s != shapes[0]:
            raise EncodeError(
                f"ragged: shape {list(s)} here, {list(shapes[0])} at [0]", f"{path}[{i}]"
            )
    return (len(data), *(shapes[0] if shapes else ()))


def _shape(value: Any, path: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
        isinstance(d, int) and not isinstance(d, bool) for d in value
    ):
        raise EncodeError(f"a shape is a list of integers, not {_what(value)}", path)
    if len(value) > MAX_RANK:
        raise EncodeError(f"rank {len(value)} is beyond {MAX_RANK}", path)
    for i, d in enumerate(value):
        if not 0 <= d <= MAX_SIZE:
            raise EncodeError(f"size {d} is out of range (0..{MAX_SIZE})", f"{path}[{i}]")
    return tuple(value)


def _elements(flat: list[Any], dtype: np.dtype[Any], path: str, at: Any) -> np.ndarray[Any, Any]:
    """The leaves as an array of ``dtype``; ``at(i)`` is the path of leaf ``i``."""
    kind = dtype.kind
    if kind == "b":
        for i, v in enumerate(flat):
            if not isinstance(v, bool):
                raise EncodeError(f"bool tensor elements are true or false, not {_what(v)}", at(i))
        return np.array(flat, dtype=dtype)
    if kind in "iu":
        lo, hi = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
        for i, v in enumerate(flat):
            if not isinstance(v, int) or isinstance(v, bool):
                raise EncodeError(f"{dtype.name} elements are integers, not {_what(v)}", at(i))
            if not lo <= v <= hi:
                raise EncodeError(f"{v} is out of range for {dtype.name} ({lo}..{hi})", at(i))
        return np.array(flat, dtype=dtype)
    if kind == "c":
        pairs = []
        for i, v in enumerate(flat):
            if not (isinstance(v, list) and len(v) == 2):
                raise EncodeError(f"complex elements are [re, im] pairs, not {_what(v)}", at(i))
            pairs.append(complex(_number(v[0], at(i) + "[0]"), _number(v[1], at(i) + "[1]")))
        return np.array(pairs, dtype=dtype)
    values = [_number(v, at(i)) for i, v in enumerate(flat)]
    with np.errstate(over="ignore"):
        arr = np.array(values, dtype=np.float64).astype(dtype)
    bad = np.flatnonzero(np.isinf(arr.astype(np.float64)) & np.isfinite(np.array(values)))
    if bad.size:
        i = int(bad[0])
        raise EncodeError(f"{values[i]!r} is beyond the finite range of {dtype.name}", at(i))
    return arr


def _number(v: Any, path: str) -> float:
    if isinstance(v, str) and v.lower() in _SPECIAL:
        return _SPECIAL[v.lower()]
    if isinstance(v, int | float) and not isinstance(v, bool):
        try:
            return float(v)
        except OverflowError:
            raise EncodeError(f"{v} is beyond the float range", path) from None
    raise EncodeError(f'float elements are numbers or "nan", "inf", "-inf", not {_what(v)}', path)


def _tensor(obj: dict[str, Any], path: str) -> Any:
    extra = set(obj) - {"tensor", "raw", "dtype", "shape"}
    if extra:
        raise EncodeError(f"unknown keys {sorted(extra)}: an object is " + _FORMS, path)
    if "tensor" in obj and "raw" in obj:
        raise EncodeError(
            'a tensor has "tensor" (its elements) or "raw" (its bytes), not both', path
        )
    name = obj.get("dtype")
    code = _BY_NAME.get(name) if isinstance(name, str) else None
    if code is None:
        known = ", ".join(SCALAR_TYPES.values())
        raise EncodeError(f"unknown dtype {name!r} (one of {known})", f"{path}.dtype")
    info = info_for_code(code)
    assert info is not None
    shape = _shape(obj["shape"], f"{path}.shape") if "shape" in obj else None
    if "raw" in obj:
        data = _hex(obj["raw"], f"{path}.raw")
        if shape is None:
            raise EncodeError('a "raw" tensor needs its "shape"', path)
        need = math.prod(shape) * info.itemsize
        if len(data) != need:
            raise EncodeError(
                f"{len(data)} bytes, but {name} {list(shape)} needs {need}", f"{path}.raw"
            )
        return RawTensor(code, shape, data)
    if info.native is None:
        ml = str(name).startswith(("bfloat16", "float8"))
        why = 'needs ml_dtypes (pip install "wireplan[dtypes]")' if ml else ""
        raise EncodeError(
            f"{name} tensors have no numpy type here{': ' + why if why else ''}; "
            'give the wire bytes as {"raw": hex, "dtype": ..., "shape": [...]}',
            path,
        )
    flat: list[Any] = []
    where = f"{path}.tensor"
    nested = _flatten(obj["tensor"], flat, where)
    # complex: the innermost [re, im] is an element, not a dimension (none: nothing to strip)
    if info.native.kind == "c" and flat:
        if not nested or nested[-1] != 2:
            raise EncodeError("complex elements are [re, im] pairs", where)
        nested = nested[:-1]
        flat = [flat[i : i + 2] for i in range(0, len(flat), 2)]
    # without elements, the nesting stops at the first 0: [[]] for shape [1, 0, 5]
    fits = shape is None or nested in (shape, (len(flat),))
    if not fits and not flat and shape is not None:
        fits = nested == shape[: len(nested)]
    if not fits:
        raise EncodeError(
            f"the elements' nesting {list(nested)} is not the shape {list(shape or ())} (nor flat)",
            where,
        )
    if shape is None:
        shape = nested
    if math.prod(shape) != len(flat):
        raise EncodeError(
            f"{len(flat)} elements, but shape {list(shape)} holds {math.prod(shape)}", where
        )
    dims = nested if nested == shape else (len(flat),)  # as the elements were written

    def at(i: int) -> str:  # the path of element i: built only for an error
        return where + "".join(f"[{int(k)}]" for k in np.unravel_index(i, dims)) if dims else where

    return _elements(flat, info.native, where, at).reshape(shape)


def from_json(data: Any, path: str = "$", *, top: bool = True) -> Any:
    """The EValue (or, for a list at the top, the list of EValues) of JSON data."""
    if data is None or isinstance(data, bool | str):
        return data
    if isinstance(data, int):
        return _int(data, path)
    if isinstance(data, float):
        return data
    if isinstance(data, list):
        if not top:
            raise EncodeError(
                'a list inside a list: EValues do not nest; write a tensor as {"tensor": [...], '
                '"dtype": ...}',
                path,
            )
        return [from_json(v, f"{path}[{i}]", top=False) for i, v in enumerate(data)]
    if isinstance(data, dict):
        if set(data) == {"double"}:
            return _double(data["double"], f"{path}.double")
        if set(data) == {"bytes"}:
            return _hex(data["bytes"], f"{path}.bytes")
        if "tensor" in data or "raw" in data:
            return _tensor(data, path)
        raise EncodeError(f"an object is {_FORMS}; not keys {sorted(data)}", path)
    raise EncodeError(f"no EValue for {_what(data)}", path)  # pragma: no cover - not JSON


def records_from_json(data: list[Any]) -> list[list[Any]]:
    """Records (lists of EValues) from a JSON list of lists."""
    out = []
    for i, record in enumerate(data):
        if not isinstance(record, list):
            raise EncodeError(f"a record is a JSON list, not {_what(record)}", f"$[{i}]")
        out.append(from_json(record, f"$[{i}]"))
    return out


# ---------------------------------------------------------------- values -> JSON


def _float_out(v: float) -> Any:
    if math.isfinite(v):
        return v
    return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")


def _short(arr: np.ndarray[Any, Any]) -> list[Any]:
    """Float elements as Python floats; float16/32 (and ml_dtypes) as their shortest decimal."""
    if arr.dtype == np.float64:
        return [_float_out(v) for v in arr.tolist()]
    if arr.dtype.kind != "f":  # ml_dtypes: bfloat16, float8 (exact in float32)
        arr = arr.astype(np.float32)
    return [_float_out(float(str(v))) for v in arr.reshape(-1)]


def _nest(flat: list[Any], shape: tuple[int, ...]) -> Any:
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return flat
    step = len(flat) // shape[0] if shape[0] else 0
    return [_nest(flat[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]


def _tensor_out(arr: np.ndarray[Any, Any]) -> dict[str, Any]:
    info = info_for_dtype(arr.dtype)
    name = info.name if info is not None else arr.dtype.name
    shape = tuple(int(d) for d in arr.shape)
    flat_arr = np.ascontiguousarray(arr).reshape(-1)
    kind = arr.dtype.kind
    if kind in "biu":
        flat: list[Any] = flat_arr.tolist()
    elif kind == "c":
        flat = [[_float_out(v.real), _float_out(v.imag)] for v in flat_arr.tolist()]
    else:
        flat = _short(flat_arr)
    return {"tensor": _nest(flat, shape), "dtype": name, "shape": list(shape)}


def to_json(value: Any) -> Any:
    """The JSON form of a decoded EValue (``decode(..., extended=True, text=False)``), or a list."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"double": _float_out(value)}
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | memoryview):
        data = bytes(value)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return {"bytes": data.hex()}
    if isinstance(value, RawTensor):
        return {
            "raw": bytes(value.data).hex(),
            "dtype": value.dtype_name,
            "shape": list(value.shape),
        }
    if isinstance(value, np.ndarray):
        return _tensor_out(value)
    if isinstance(value, list):
        return [to_json(v) for v in value]
    raise ArgumentError(f"not an EValue: {type(value).__name__}")  # pragma: no cover
