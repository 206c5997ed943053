"""Fuzz harness: every DSDL deserializer of uavcan, reg and the corner types, against pydsdl.

``setup()`` compiles the public regulated data types (from ``tests/data``)
and ``tests/dsdl/corner`` once, into a temporary cache.  The first two bytes
of an input pick the type (little-endian, modulo the number of types, in
order of full name); the rest is the serialized object.  wireplan must
accept exactly what ``pydsdl.deserialize`` accepts and decode the same
value; a refusal is a ``DecodeError`` whose offset lies in the input.
"""

from __future__ import annotations

import atexit
import importlib
import math
import os
import pkgutil
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import pydsdl

import wireplan

MAX_LEN = 4096  # uavcan.node.port.List.1.0 holds more than 2 KiB
# The decoding side: the runtime, the errors and the generated packages of load().
INSTRUMENT = ("wireplan.dsdl.runtime", "wireplan.errors", "_wireplan_dsdl_")
_REPO = Path(__file__).resolve().parents[2]
_PUBLIC = _REPO / "tests" / "data" / "dsdl" / "public_regulated_data_types"
ROOTS = [(_PUBLIC / "uavcan").resolve(), (_PUBLIC / "reg").resolve()]
CORNER = _REPO / "tests" / "dsdl" / "corner"
TYPES: list[tuple[Any, Any]] = []  # (generated class, pydsdl type), by full name


def setup() -> None:
    from wireplan.dsdl import load

    # A fresh temporary cache, or the one CI's tests share between the replay and the run.
    cache = os.environ.get("WIREPLAN_FUZZ_DSDL_CACHE") or tempfile.mkdtemp(prefix="wireplan-fuzz-")
    if "WIREPLAN_FUZZ_DSDL_CACHE" not in os.environ:
        atexit.register(shutil.rmtree, cache, True)
    old = os.environ.get("WIREPLAN_CACHE_DIR")
    os.environ["WIREPLAN_CACHE_DIR"] = cache
    try:
        packages = [*load(ROOTS), load(CORNER)]
    finally:
        if old is None:
            del os.environ["WIREPLAN_CACHE_DIR"]
        else:
            os.environ["WIREPLAN_CACHE_DIR"] = old
    for pkg in packages:
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            importlib.import_module(info.name)
    found: dict[str, Any] = {}
    parents = tuple({p.__name__.split(".")[0] + "." for p in packages})
    for name, module in list(sys.modules.items()):
        if not name.startswith(parents):
            continue
        for value in vars(module).values():
            for cls in (value, getattr(value, "Request", None), getattr(value, "Response", None)):
                if _generated(cls) and not isinstance(cls._MODEL_, pydsdl.ServiceType):
                    found[cls._FULL_NAME_] = cls
    TYPES[:] = [(found[k], found[k]._MODEL_) for k in sorted(found)]


def instrumented(func: Any) -> bool:
    """Of the generated code only the deserializers (patching 2,300 functions takes 30 s)."""
    if not func.__module__.startswith("_wireplan_dsdl_"):
        return True
    return func.__name__.startswith(("_d", "_D", "deserialize", "_pad"))


def _generated(cls: Any) -> bool:
    return isinstance(cls, type) and hasattr(cls, "_FIELDS_") and hasattr(cls, "_FULL_NAME_")


def same(a: Any, b: Any) -> bool:
    """Equality of plain values where NaN equals NaN and 0.0 differs from -0.0."""
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) and math.isnan(b):
            return True
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def TestOneInput(data: bytes) -> None:
    if len(data) < 2:
        return
    cls, model = TYPES[int.from_bytes(data[:2], "little") % len(TYPES)]
    body = data[2:]
    try:
        expected = pydsdl.deserialize(model, body)
    except (pydsdl.SerDesError, UnicodeDecodeError):
        expected = None
    try:
        obj = cls.deserialize(body)
    except wireplan.DecodeError as exc:
        assert expected is None, f"{cls._FULL_NAME_}: pydsdl decodes what wireplan refuses: {exc}"
        assert exc.offset is not None and 0 <= exc.offset <= len(body), f"{exc!r}"
        assert exc.path.startswith("$"), f"{exc!r}"
        return
    assert expected is not None, f"{cls._FULL_NAME_}: wireplan decodes what pydsdl refuses"
    got = obj.to_builtin()
    assert same(got, expected), f"{cls._FULL_NAME_}: {got!r} != pydsdl's {expected!r}"
    try:
        again = obj.serialize()
    except wireplan.WireplanError as exc:
        raise AssertionError(f"{cls._FULL_NAME_}: a decoded object does not serialize") from exc
    assert same(cls.deserialize(again).to_builtin(), expected), f"{cls._FULL_NAME_}: round trip"


def seeds() -> dict[str, bytes]:
    """The seed corpus (``run.py dsdl --write-seeds``): a default object of some types."""
    out: dict[str, bytes] = {}
    for i, (cls, _) in enumerate(TYPES):
        if i % 8 == 0 or cls._FULL_NAME_.startswith("corner."):
            out[cls._FULL_NAME_] = i.to_bytes(2, "little") + cls().serialize()
    return out
