"""pycyphal v1's protocol on generated classes (``_MODEL_``, ``_serialize_``, ``_deserialize_``).

pycyphal's presentation layer (Publisher, Subscriber, Client, Server) and its
``pycyphal.dsdl`` helpers call these on a class or an object:

- ``_MODEL_``: the pydsdl type (a ``ServiceType`` on a service class).  The
  models are pickled next to the generated modules at compile time
  (:data:`MODELS_FILE`, one per root package) and unpickled on the first
  access, which imports pydsdl: importing a class and (de)serializing need
  neither pydsdl nor pycyphal.
- ``_serialize_(ser)``: the object's bytes added to pycyphal's serializer.
- ``_deserialize_(des)``: the rest of the deserializer's data decoded;
  a :class:`~wireplan.errors.DecodeError` becomes the deserializer's
  ``FormatError`` (pycyphal's ``deserialize`` then gives ``None``).

pycyphal's ``to_builtin`` requires every array to be a numpy array (as
nunavut's classes keep them), so reading ``_MODEL_`` through an object first
turns that object's arrays, nested ones included, into numpy arrays in place
(:func:`to_numpy_arrays`).  Nothing here imports pycyphal or pydsdl: the
serializer objects are passed in, and only unpickling imports pydsdl.
"""

from __future__ import annotations

import errno
import os
import pickle
import threading
from typing import Any

import numpy as np

from wireplan.errors import DecodeError, FileError

__all__ = ["MODELS_FILE", "Model", "deserialize_from", "serialize_into", "to_numpy_arrays"]

MODELS_FILE = "_wireplan_models.pickle"
_LOADED: dict[str, dict[str, Any]] = {}  # root package folder -> {full name: pydsdl model}
_LOCK = threading.Lock()
_U8 = np.dtype(np.uint8)


def _models(folder: str) -> dict[str, Any]:
    with _LOCK:
        found = _LOADED.get(folder)
        if found is None:
            path = os.path.join(folder, MODELS_FILE)
            try:
                with open(path, "rb") as f:
                    found = pickle.load(f)  # imports pydsdl (needed only here)
            except FileNotFoundError:
                raise FileError(
                    f"{path}: missing; the package was generated without pydsdl models "
                    "(compile it again)",
                    path,
                    errno.ENOENT,
                ) from None
            _LOADED[folder] = found
        return found


class Model:
    """The ``_MODEL_`` descriptor of the classes of one generated root package.

    ``Model(__file__)`` in the package's implementation module; the models
    are read on the first access.  Through an object it also converts the
    object's arrays as :func:`to_numpy_arrays` does (what pycyphal's
    ``to_builtin`` needs).
    """

    __slots__ = ("folder",)

    def __init__(self, module_file: str) -> None:
        self.folder = os.path.dirname(os.path.abspath(module_file))

    def __get__(self, obj: Any, cls: Any) -> Any:
        models = _LOADED.get(self.folder) or _models(self.folder)
        model = models.get(cls._FULL_NAME_)
        if model is None:
            raise AttributeError(f"no pydsdl model of {cls._FULL_NAME_} in {self.folder}")
        if obj is not None:
            to_numpy_arrays(obj)
        return model


def serialize_into(obj: Any, ser: Any) -> None:
    """``obj._serialize_(ser)``: the object's bytes added to pycyphal's ``Serializer``."""
    ser.add_aligned_bytes(np.frombuffer(obj.serialize(), _U8))


def deserialize_from(cls: Any, des: Any) -> Any:
    """``cls._deserialize_(des)``: the rest of pycyphal's ``Deserializer`` decoded as ``cls``.

    Zero extension and truncation apply as usual; a ``DecodeError`` is
    raised again as the deserializer's ``FormatError``.
    """
    data = des.fetch_aligned_bytes(max(0, des.remaining_bit_length) // 8).tobytes()
    try:
        return cls.deserialize(data)
    except DecodeError as exc:
        raise des.FormatError(str(exc)) from exc


def _array(kind: tuple[Any, ...], value: Any) -> Any:
    element = kind[2]
    tag = element[0]
    if tag in ("utf8", "byte") or (tag == "u" and element[1] == 8):
        # text-like arrays: uint8, as nunavut keeps them (pycyphal reads .tobytes())
        if value.__class__ is np.ndarray and value.dtype == _U8:
            return value
        if isinstance(value, str):
            value = value.encode("utf-8")
        if isinstance(value, bytes | bytearray | memoryview):
            return np.frombuffer(value, _U8).copy()
        try:
            return np.array(value.tolist() if isinstance(value, np.ndarray) else value, _U8)
        except (TypeError, ValueError, OverflowError):
            return value  # out of range: left as it is (serialization saturates or truncates)
    if tag == "c":
        for item in value:
            to_numpy_arrays(item)
        if value.__class__ is np.ndarray:
            return value
        out = np.empty(len(value), object)
        out[:] = list(value) if len(value) else []
        return out
    if value.__class__ is np.ndarray:
        return value
    # numbers and bools keep their Python objects (object dtype): the values are unchanged
    out = np.empty(len(value), object)
    out[:] = list(value)
    return out


def _value(kind: tuple[Any, ...], value: Any) -> Any:
    if kind[0] == "c":
        to_numpy_arrays(value)
        return value
    if kind[0] in ("fa", "va"):
        return _array(kind, value)
    return value


def to_numpy_arrays(obj: Any) -> Any:
    """Turn the arrays of ``obj`` (nested ones too) into numpy arrays, in place; returns ``obj``.

    Text and ``uint8`` arrays become ``uint8`` arrays, arrays of composites
    object arrays, lists of numbers object arrays of the same numbers;
    numpy arrays stay as they are.  The values and their serialization do
    not change.
    """
    cls = type(obj)
    fields = getattr(cls, "_FIELDS_", None)
    if fields is None:
        return obj
    if cls._UNION_:
        tag = getattr(obj, "_tag", -1)
        if 0 <= tag < len(fields):
            obj._value = _value(fields[tag][1], obj._value)
        return obj
    for attr, kind, _ in fields:
        value = getattr(obj, attr, None)
        if value is not None and kind[0] in ("c", "fa", "va"):
            setattr(obj, attr, _value(kind, value))
    return obj
