"""The destination allocator: a new ``bytes`` object filled in place, once.

:func:`fill_new_bytes` hands a writer the storage of a fresh ``bytes``
object as a writable uint8 array, so an encoder that returns ``bytes``
writes every byte exactly once: no zero fill, no final copy.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable
from typing import Any, Final

import numpy as np

__all__ = ["fill_new_bytes"]

_U8: Final = np.dtype(np.uint8)

_bytes_from_size: Any = None
_bytes_as_string: Any = None
_madvise: Any = None
if sys.implementation.name == "cpython":
    _bytes_from_size = ctypes.pythonapi.PyBytes_FromStringAndSize
    _bytes_from_size.restype = ctypes.py_object
    _bytes_from_size.argtypes = (ctypes.c_void_p, ctypes.c_ssize_t)
    _bytes_as_string = ctypes.pythonapi.PyBytes_AsString
    _bytes_as_string.restype = ctypes.c_void_p
    _bytes_as_string.argtypes = (ctypes.py_object,)
    if sys.platform.startswith("linux"):
        try:
            _madvise = ctypes.CDLL(None, use_errno=True).madvise
            _madvise.restype = ctypes.c_int
            _madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        except (OSError, AttributeError):  # pragma: no cover
            _madvise = None

_MADV_HUGEPAGE: Final = 14
_HUGEPAGE_MIN: Final = 4 << 20
_PAGE: Final = 4096


class _Storage:
    """The storage of a new ``bytes`` object, as numpy sees it.

    An array built on it holds this object, and this object holds the
    ``bytes``: a view can never outlive the memory it writes to.
    """

    __slots__ = ("__array_interface__", "_owner")

    def __init__(self, owner: bytes, address: int, size: int) -> None:
        self._owner = owner
        self.__array_interface__: dict[str, Any] = {
            "data": (address, False),
            "shape": (size,),
            "typestr": "|u1",
            "version": 3,
        }


# Below this size the result is built in a bytearray and copied: CPython
# shares its bytes objects of length 0 and 1, which must never be filled
# in place, and for a few hundred bytes a second copy costs nothing.
_IN_PLACE_MIN: Final = 256


def fill_new_bytes(size: int, fill: Callable[[np.ndarray[Any, Any]], object]) -> bytes:
    """A new ``bytes`` of ``size`` bytes, written by ``fill`` through a writable uint8 view.

    ``fill`` must write every byte.  On CPython the object comes from
    ``PyBytes_FromStringAndSize(NULL, size)``, the C API's way to build a
    bytes object by filling it, so no byte is written twice and no copy is
    made.  Nobody else holds the object until ``fill`` has returned; if it
    raises, the half-filled object is dropped, never returned.  Large
    buffers ask Linux for transparent huge pages, as numpy does for its own
    large arrays (a fresh 64 MiB buffer otherwise costs 16384 page faults,
    more than the copy itself).
    """
    if _bytes_from_size is None or size < _IN_PLACE_MIN:
        buf = bytearray(size)
        fill(np.frombuffer(buf, _U8))
        return bytes(buf)
    out: bytes = _bytes_from_size(None, size)
    try:
        address: int = _bytes_as_string(out)
        if _madvise is not None and size >= _HUGEPAGE_MIN:
            first = (address + _PAGE - 1) & -_PAGE
            last = (address + size) & -_PAGE
            _madvise(first, last - first, _MADV_HUGEPAGE)  # advice only; failure is harmless
        fill(np.asarray(_Storage(out, address, size)))
    except BaseException:
        # The traceback keeps this frame: leave no half-filled bytes in it.
        del out
        raise
    return out
