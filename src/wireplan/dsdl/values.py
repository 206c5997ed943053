"""DSDL values as text: JSON / YAML in and out, hex, and DSDL types found by name.

What ``wireplan dsdl encode`` / ``decode`` run on:

- :func:`namespace_dirs` gathers root namespace folders from ``--lookup`` and
  ``CYPHAL_PATH``; :func:`find_class` compiles (through :func:`wireplan.dsdl.load`,
  cached) and returns the generated class of a name such as
  ``uavcan.node.Heartbeat.1.0``, ``uavcan.node.Heartbeat`` (newest version) or
  ``uavcan.register.Access.Request.1.0``;
- :func:`parse_text` reads JSON or YAML, :func:`from_plain` checks the plain
  data against the type (every error names the field path) and builds the
  object, :func:`to_plain` turns an object back into plain data,
  :func:`dump_json` / :func:`dump_yaml` print it, :func:`parse_hex` reads hex.

The plain form is the one of :func:`wireplan.dsdl.to_builtin` (which
:func:`to_plain` calls), with the conventions of pycyphal's ``to_builtin``
where that one differs (a variable-length ``uint8`` array whose bytes are
printable ASCII is a string).  :func:`from_plain` is strict where
serialization is lax: a value out of range is an error here, not saturated
or truncated, but the rules themselves (an integer's range, a float that
fits, an array's length, a mapping's field names) are those of
:mod:`wireplan.dsdl._cast` and :mod:`wireplan.dsdl._builtin`.  This is the
only module that imports ``yaml`` (PyYAML).
"""

from __future__ import annotations

import functools
import json
import math
import string
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from wireplan.core.extras import door
from wireplan.dsdl._builtin import fields_named, to_builtin
from wireplan.dsdl._cast import check_length, float_fits, int_range
from wireplan.dsdl._lookup import namespace_dirs, parse_name, resolve
from wireplan.errors import ArgumentError, DecodeError, EncodeError

__all__ = [
    "dump_json",
    "dump_yaml",
    "find_class",
    "from_plain",
    "namespace_dirs",
    "parse_hex",
    "parse_text",
    "to_plain",
]

Kind = tuple[Any, ...]  # a field kind of ``_FIELDS_`` (see wireplan.dsdl.runtime)

_PRINTABLE = frozenset(string.printable.encode())
_NP_FLOAT = {16: np.float16, 32: np.float32}


# ---------------------------------------------------------------- where the types are


def _is_class(obj: Any) -> bool:
    return isinstance(obj, type) and hasattr(obj, "_FIELDS_") and hasattr(obj, "_FULL_NAME_")


def find_class(name: str, dirs: Sequence[Path], progress: Any = None) -> Any:
    """The generated class of the type ``name`` from the root namespaces ``dirs``.

    ``name`` is read as :func:`wireplan.dsdl._lookup.resolve` reads it (a
    missing version means the newest, a missing minor version the newest of
    that major; a service's halves are ``NAME.Request[.M.m]`` or
    ``NAME.M.m.Request``), and a name that names nothing is a
    :class:`~wireplan.errors.NotFoundError` with the closest known name.
    The root namespace of the type is compiled with the others as lookup
    namespaces (``wireplan.dsdl.load``, cached); the first folder of a given
    root name wins.  ``progress(done, total)``: as for
    :func:`wireplan.dsdl.load` (called only when the root is compiled).
    """
    namespace, short, a, b, half = parse_name(resolve(name, dirs))
    assert a is not None and b is not None  # resolve names the version
    by_root: dict[str, Path] = {}
    for d in dirs:
        by_root.setdefault(d.resolve().name, d)
    root = namespace[0]
    from wireplan.dsdl import load

    lookups = [d for r, d in by_root.items() if r != root]
    module: Any = load(by_root[root], lookup=lookups, progress=progress)
    for part in namespace[1:]:
        module = getattr(module, part)
    ns = ".".join(namespace)
    cls = getattr(module, f"{short}_{a}_{b}")
    is_service = hasattr(cls, "Request") and hasattr(cls, "Response") and not _is_class(cls)
    if half is not None:
        if not is_service:
            raise ArgumentError(f"{ns}.{short}.{a}.{b} is not a service: it has no {half}")
        cls = getattr(cls, half)
    elif is_service:
        raise ArgumentError(
            f"{ns}.{short}.{a}.{b} is a service: name its request or response "
            f"({ns}.{short}.Request.{a}.{b} or {ns}.{short}.Response.{a}.{b})"
        )
    return cls


# ---------------------------------------------------------------- text in


def _one_line(text: str) -> str:
    return " ".join(text.split())


def parse_text(text: str, what: str = "VALUE") -> Any:
    """The plain data of JSON text, else of YAML text (flow or block style).

    JSON is tried first: it reads ``1e3`` as a number and ``NaN`` /
    ``Infinity``, which YAML 1.1 reads as strings; every other JSON
    document means the same in YAML.
    """
    try:
        return json.loads(text)
    except ValueError:
        pass
    with door("wireplan.dsdl", "yaml", "dsdl"):  # only for text that is not JSON
        import yaml
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
        offset = _byte_at(text, mark.index) if mark is not None else None
        raise DecodeError(
            f"{what} is neither JSON nor YAML: {_one_line(problem)}{where}", offset
        ) from None


def parse_hex(text: str) -> bytes:
    """Bytes of hex text; whitespace, ``0x`` prefixes and ``:``/``-`` separators are ignored.

    Text that is not hex is a :class:`~wireplan.errors.DecodeError` whose
    ``offset`` is the byte of ``text`` (UTF-8) where it goes wrong.
    """
    cleaned: list[str] = []
    last = 0  # where the last hex digit is
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith(("0x", "0X"), i) and (i == 0 or not text[i - 1].isalnum()):
            i += 1
        elif c in "0123456789abcdefABCDEF":
            cleaned.append(c)
            last = i
        elif not (c.isspace() or c in ":-"):
            raise DecodeError(f"not hex: {c!r} at character {i + 1}", _byte_at(text, i))
        i += 1
    if len(cleaned) % 2:
        raise DecodeError(f"odd number of hex digits ({len(cleaned)})", _byte_at(text, last))
    return bytes.fromhex("".join(cleaned))


def _byte_at(text: str, index: int) -> int:
    """The UTF-8 byte offset of ``text[index]``."""
    return len(text[:index].encode("utf-8", "surrogatepass"))


# ---------------------------------------------------------------- plain data -> object


def _type_name(kind: Kind) -> str:
    tag = kind[0]
    if tag == "u":
        return f"uint{kind[1]}"
    if tag == "i":
        return f"int{kind[1]}"
    if tag == "f":
        return f"float{kind[1]}"
    return {"b": "bool", "byte": "byte", "utf8": "utf8"}.get(tag, str(tag))


def _what(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}" if len(value) < 40 else "a string"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return f"a {type(value).__name__}"


def _integer(kind: Kind, value: Any, path: str) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise EncodeError(f"{_type_name(kind)} requires an integer, got {_what(value)}", path)
    lo, hi = int_range(kind[0], kind[1])
    if not lo <= value <= hi:
        raise EncodeError(f"{value} is out of range for {_type_name(kind)} ({lo}..{hi})", path)
    return value


def _float(kind: Kind, value: Any, path: str) -> float:
    if isinstance(value, str):  # "nan", "-inf", "1e3", and YAML's ".nan" / ".inf" quoted
        text = value.strip()
        if text.lower() in (".nan", ".inf", "+.inf", "-.inf"):
            text = text.replace(".", "", 1)
        try:
            value = float(text)
        except ValueError:
            raise EncodeError(
                f"{_type_name(kind)} requires a number, got {_what(value)}", path
            ) from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EncodeError(f"{_type_name(kind)} requires a number, got {_what(value)}", path)
    try:
        f = float(value)
    except OverflowError:  # an integer past every float
        raise EncodeError(f"{value} is out of range for {_type_name(kind)}", path) from None
    if not float_fits(kind[1], f):  # rounds past the maximum, as the wire rounds
        raise EncodeError(f"{value} is out of range for {_type_name(kind)}", path)
    return math.nan if f != f else f  # one NaN: PyYAML's .nan has the sign bit set


def _bool(value: Any, path: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise EncodeError(f"bool requires true or false, got {_what(value)}", path)


def _array(kind: Kind, value: Any, path: str) -> Any:
    element = kind[2]
    etag = element[0]
    bytewise = etag in ("byte", "utf8") or (etag == "u" and element[1] == 8)
    if isinstance(value, str) and bytewise:
        try:
            raw: Any = value.encode("utf-8")
        except UnicodeEncodeError:
            raise EncodeError("a string with a lone surrogate is not UTF-8", path) from None
    elif isinstance(value, bytes | bytearray) and bytewise:
        raw = bytes(value)
    elif isinstance(value, list | tuple):
        raw = None
    else:
        want = "a list or a string" if bytewise else "a list"
        raise EncodeError(f"array requires {want}, got {_what(value)}", path)
    if raw is None:
        check_length(kind, len(value), path)
    else:
        check_length(kind, len(raw), path, " bytes")
    if raw is None:
        items = [_value(element, v, f"{path}[{i}]") for i, v in enumerate(value)]
        if bytewise:
            raw = bytes(items)
        else:
            return items
    if etag == "utf8":
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise EncodeError(f"not valid UTF-8 (byte {exc.start})", path) from None
    if etag == "byte":
        return raw
    return list(raw)


def _value(kind: Kind, value: Any, path: str) -> Any:
    tag = kind[0]
    if tag in ("u", "i"):
        return _integer(kind, value, path)
    if tag in ("byte", "utf8"):
        return _integer((tag, 8), value, path)
    if tag == "f":
        return _float(kind, value, path)
    if tag == "b":
        return _bool(value, path)
    if tag == "c":
        return from_plain(kind[1], value, path)
    if tag in ("fa", "va"):
        return _array(kind, value, path)
    raise AssertionError(f"unknown field kind {kind!r}")  # pragma: no cover


def _dsdl_name(cls: Any) -> str:
    return str(cls._FULL_NAME_)


def _positional(
    cls: Any, fields: tuple[tuple[str, Kind, str], ...], data: Any, path: str
) -> dict[str, Any]:
    """Values in field order as a mapping: pycyphal's ``update_from_builtin`` shorthand.

    ``[123, 1, 2]`` is a Heartbeat's uptime, health and mode; a lone value
    is a list of one (``2.5`` for a ``Scalar``).  When there are more values
    than fields and the first field is an array or a composite, the values
    are all for that field (``[1, 2, 3]`` for an array type).  A lone number
    for an array field is an array of one.  A union takes one value, for its
    first field.
    """
    items = list(data) if isinstance(data, list | tuple) else [data]
    room = 1 if cls._UNION_ else len(fields)
    if fields and fields[0][1][0] in ("fa", "va", "c") and len(items) > room:
        items = [items]
    if len(items) > room:
        raise EncodeError(
            f"{len(items)} value{'s' * (len(items) != 1)} for {len(fields)} "
            f"field{'s' * (len(fields) != 1)} "
            f"of {_dsdl_name(cls)}"
            if not cls._UNION_
            else f"union {_dsdl_name(cls)} takes one value, got {len(items)}",
            path,
        )
    out = {}
    for (_, kind, name), value in zip(fields, items, strict=False):
        lone = isinstance(value, int | float)
        out[name] = [value] if kind[0] in ("fa", "va") and lone else value
    return out


def from_plain(cls: Any, data: Any, path: str = "$") -> Any:
    """A ``cls`` object from plain data, every value checked; ``EncodeError`` names the path.

    A composite is a mapping by DSDL field name (missing fields keep their
    defaults), a union a mapping with exactly one field; pycyphal's
    positional shorthand works too (see :func:`_positional`).  Integers must
    be in the range of their type, floats finite within it or ``nan`` /
    ``inf`` / ``-inf`` (numbers or strings), bools ``true`` / ``false``
    (or 0 / 1).  A ``uint8`` / ``byte`` / ``utf8`` array also takes a
    string (its UTF-8 bytes).
    """
    if path == "$" and data is None:
        data = {}
    fields: tuple[tuple[str, Kind, str], ...] = cls._FIELDS_
    if not isinstance(data, dict):
        data = _positional(cls, fields, data, path)
    by_name = fields_named(cls, data, path)
    args = {}
    for key, value in data.items():
        attr, kind = by_name[key]
        args[attr] = _value(kind, value, f"{path}.{key}")
    return cls(**args)


# ---------------------------------------------------------------- object -> plain data


def _float_out(bits: int, value: Any, json_safe: bool) -> Any:
    f = float(value)
    if not math.isfinite(f):
        if json_safe:
            return "nan" if math.isnan(f) else ("inf" if f > 0 else "-inf")
        return f
    np_type = _NP_FLOAT.get(bits)
    if np_type is not None:  # the shortest text that reads back as the same float16/32
        return float(str(np_type(f)))
    return f


def _value_out(kind: Kind, value: Any, json_safe: bool) -> Any:
    """``value``, as :func:`wireplan.dsdl.to_builtin` gives it, in the text form."""
    tag = kind[0]
    if tag in ("u", "i", "byte", "utf8"):
        return int(value)
    if tag == "f":
        return _float_out(kind[1], value, json_safe)
    if tag == "b":
        return bool(value)
    if tag == "c":
        return _plain_of(kind[1], value, json_safe)
    element = kind[2]
    etag = element[0]
    if etag == "utf8":
        return value  # to_builtin's str
    items = list(value)  # bytes: their values
    bytewise = etag == "byte" or (etag == "u" and element[1] == 8)
    if tag == "va" and bytewise and all(b in _PRINTABLE for b in items):
        return bytes(items).decode("ascii")
    return [_value_out(element, v, json_safe) for v in items]


def _plain_of(cls: Any, builtin: dict[str, Any], json_safe: bool) -> dict[str, Any]:
    kinds = {name: kind for _, kind, name in cls._FIELDS_}
    return {name: _value_out(kinds[name], value, json_safe) for name, value in builtin.items()}


def to_plain(obj: Any, *, json_safe: bool = False) -> dict[str, Any]:
    """Plain data of a generated object: what :func:`from_plain` reads back to the same bytes.

    :func:`wireplan.dsdl.to_builtin`'s form with pycyphal's conventions for
    text: dicts by DSDL field name (a union: its one field), lists for
    arrays; ``utf8`` arrays are strings, and so is a variable-length
    ``uint8`` / ``byte`` array whose bytes are all printable ASCII
    (pycyphal's rule), other byte arrays lists of numbers.  float16 /
    float32 values are the shortest decimal that reads back as the same
    value.  With ``json_safe``, NaN and infinities are the strings
    ``"nan"``, ``"inf"``, ``"-inf"`` (JSON has no such numbers).
    """
    return _plain_of(type(obj), to_builtin(obj), json_safe)


# ---------------------------------------------------------------- text out


def dump_json(data: Any) -> str:
    """One line of JSON (no NaN / Infinity: give :func:`to_plain` ``json_safe=True``)."""
    return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


@functools.cache
def _yaml_dumper() -> Any:
    """A SafeDumper that writes lists of scalars in flow style, everything else in block style."""
    with door("wireplan.dsdl", "yaml", "dsdl"):
        import yaml

    def represent_list(dumper: Any, items: list[Any]) -> Any:
        flow = all(not isinstance(v, dict | list) for v in items)
        return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=flow)

    dumper: Any = type("WireplanDumper", (yaml.SafeDumper,), {})
    dumper.add_representer(list, represent_list)
    return dumper


def dump_yaml(data: Any) -> str:
    """Block-style YAML with lists of scalars on one line (``value: [1, 2, 3]``), no final newline."""
    with door("wireplan.dsdl", "yaml", "dsdl"):
        import yaml

    text: str = yaml.dump(
        data,
        Dumper=_yaml_dumper(),
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
    return text.rstrip("\n")
