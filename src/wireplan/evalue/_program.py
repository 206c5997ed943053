"""The values of an ExecuTorch program (``.pte``) as Java EValues.

An execution plan's ``values`` are ``EValue`` tables of eleven kinds.  Null,
Int, Bool, Double and String map to ``None``, ``int``, ``bool``, ``float``
and ``str``; a Tensor maps to a row-major array when the program holds its
data (a constant: ``data_buffer_idx`` > 0), read from the constant segment
(after the flatbuffer, placed by the ``eh00`` extended header) or from the
older inline ``constant_buffer``.  The list kinds, tensors whose memory is
planned at run time, mutable buffers and external (``.ptd``) data have no
Java form: each is refused naming the value's index, the method and the kind.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from wireplan.core.buffers import as_memoryview
from wireplan.errors import DecodeError, EncodeError, NotFoundError
from wireplan.evalue._bundled import located_error
from wireplan.evalue._dtypes import info_for_code
from wireplan.evalue._fbs_schema import FBS_SCALAR_TYPES, PROGRAM_SCHEMA
from wireplan.evalue._types import RawTensor

if TYPE_CHECKING:
    from wireplan.flatbuffers.reader import TableReader

__all__ = ["program_values"]

_HEADER = struct.Struct("<4sIQQ")  # magic, length, program size, segment base offset
_CLASSES = {
    name: lambda kind=name, **f: (kind, f)
    for name in PROGRAM_SCHEMA.unions["KernelTypes"].members.values()
}


def _segment_base(mv: memoryview) -> int | None:
    """The extended header's segment base offset (bytes 8.. of a ``.pte``), if it has one."""
    if len(mv) < 8 + _HEADER.size:
        return None
    magic, length, _, base = _HEADER.unpack_from(mv, 8)
    if magic != b"eh00":
        return None
    if length < _HEADER.size:
        raise DecodeError(f"extended header length {length} < {_HEADER.size}", 12)
    return int(base)


class _Constants:
    """Where constant tensor ``i``'s bytes are: the constant segment or ``constant_buffer``."""

    def __init__(self, root: dict[str, Any], mv: memoryview, reader: TableReader) -> None:
        self.mv = mv
        seg = root["constant_segment"]
        offsets = None if seg is None else seg["offsets"]
        self.offsets = None if offsets is None or len(offsets) <= 1 else offsets
        self.buffers = root["constant_buffer"]
        self.start = 0
        if self.offsets is not None:
            base = _segment_base(mv)
            segments = root["segments"]
            index = seg["segment_index"]
            if base is None:
                raise DecodeError("a constant segment but no extended header (eh00)", 8)
            if index >= len(segments):
                raise located_error(
                    reader,
                    "$.constant_segment.segment_index",
                    f"segment {index} of {len(segments)}",
                )
            self.start = base + int(segments[index]["offset"])
            self.size = int(segments[index]["size"])
            if self.start + self.size > len(mv):
                raise located_error(
                    reader,
                    f"$.segments[{index}].size",
                    f"constant segment [{self.start}, {self.start + self.size}) lies past the "
                    f"end of the program ({len(mv)} bytes)",
                )

    def data(self, index: int, nbytes: int, reader: TableReader, path: str) -> np.ndarray[Any, Any]:
        path += ".data_buffer_idx"
        if self.offsets is not None:
            if index >= len(self.offsets):
                raise located_error(
                    reader, path, f"constant {index} is not in the constant segment"
                )
            offset = int(self.offsets[index])
            if offset + nbytes > self.size:
                raise located_error(
                    reader,
                    path,
                    f"constant {index} ({nbytes} bytes at {offset}) runs past its segment",
                )
            start = self.start + offset
            return np.frombuffer(self.mv[start : start + nbytes], np.uint8)
        if index >= len(self.buffers):
            raise located_error(reader, path, f"constant {index} is not in constant_buffer")
        storage = self.buffers[index]["storage"]
        if storage is None or storage.size < nbytes:
            raise located_error(reader, path, f"constant {index} holds fewer than {nbytes} bytes")
        data: np.ndarray[Any, Any] = storage[:nbytes]
        return data


def _tensor(
    fields: dict[str, Any],
    constants: _Constants,
    copy: bool,
    refuse: Callable[[str], EncodeError],
    reader: TableReader,
    path: str,
) -> np.ndarray[Any, Any] | RawTensor:
    extra = fields["extra_tensor_info"]
    if extra is not None and extra["location"] == 1:
        raise refuse("a Tensor with external (.ptd) data")
    index = int(fields["data_buffer_idx"])
    if index == 0:
        raise refuse("a Tensor whose memory is planned at run time (no constant data)")
    if fields["allocation_info"] is not None:
        raise refuse("a mutable buffer Tensor")
    code = int(fields["scalar_type"])
    info = info_for_code(code) if code in FBS_SCALAR_TYPES else None
    if info is None:
        raise located_error(reader, path + ".scalar_type", f"unknown scalar type {code}")
    sizes, order = fields["sizes"], fields["dim_order"]
    shape = () if sizes is None else tuple(sizes.tolist())
    if shape and min(shape) < 0:
        raise located_error(reader, path + ".sizes", f"negative size in {list(shape)}")
    data = constants.data(index, math.prod(shape) * info.itemsize, reader, path)
    rank = len(shape)
    perm = tuple(range(rank)) if order is None or not len(order) else tuple(order.tolist())
    if sorted(perm) != list(range(rank)):
        raise located_error(
            reader, path + ".dim_order", f"dim_order {list(perm)} is not a permutation"
        )
    inverse = tuple(sorted(range(rank), key=perm.__getitem__))
    bits = data.view(info.bits.newbyteorder("<")).reshape([shape[d] for d in perm])
    bits = bits.transpose(inverse)
    if info.native is None:
        return RawTensor(code, shape, bits.astype(info.bits.newbyteorder(">")).tobytes())
    if info.bits != info.native:  # ml_dtypes: through their bits
        return np.ascontiguousarray(bits.astype(info.bits.newbyteorder("=")).view(info.native))
    arr = bits.view(info.native.newbyteorder("<"))
    return np.array(arr, dtype=info.native, order="C") if copy else arr


def program_values(
    data: Any,
    *,
    method: str | None = None,
    indices: Iterable[int] | None = None,
    copy: bool = True,
) -> list[Any]:
    """The values ``indices`` (default: all) of ``method``'s plan (default: the first) as EValues.

    ``data`` is a whole ``.pte`` (any bytes-like object, e.g. ``BundledProgram.program``).  A
    corrupt buffer raises :class:`~wireplan.DecodeError` with offset and path; a value without
    a Java form raises :class:`~wireplan.EncodeError` naming its index, method and kind.
    With ``copy=False`` constant tensors are read-only views of ``data``.
    """
    from wireplan.flatbuffers.reader import TableReader  # not on `import wireplan.evalue`

    mv = as_memoryview(data)
    reader = TableReader(PROGRAM_SCHEMA, mv, classes=_CLASSES)
    root = reader.read_table("Program", reader.root_position(PROGRAM_SCHEMA.file_identifier))
    plans = root["execution_plan"]
    names = [p["name"] for p in plans]
    if not plans or (method is not None and method not in names):
        raise NotFoundError(f"program has no method {method!r} (it has {names})")
    p = 0 if method is None else names.index(method)
    plan, constants = plans[p], _Constants(root, mv, reader)
    values = plan["values"]
    out: list[Any] = []
    for i in range(len(values)) if indices is None else indices:
        path = f"$.execution_plan[{p}].values[{i}]"
        if not 0 <= i < len(values):
            raise NotFoundError(f"method {plan['name']} has no value {i} ({len(values)} values)")

        def refuse(kind: str, i: int = i, path: str = path) -> EncodeError:
            return EncodeError(f"value {i} of {plan['name']}: {kind} has no Java EValue form", path)

        member = values[i]["val"]
        if member is None:
            raise located_error(reader, path + ".val", "an EValue without a value (NONE)")
        kind, fields = member
        if kind == "Null":
            out.append(None)
        elif kind == "Int":
            out.append(int(fields["int_val"]))
        elif kind == "Bool":
            out.append(bool(fields["bool_val"]))
        elif kind == "Double":
            out.append(float(fields["double_val"]))
        elif kind == "String":
            out.append(fields["string_val"])
        elif kind == "Tensor":
            out.append(_tensor(fields, constants, copy, refuse, reader, path + ".val"))
        else:
            raise refuse(f"an {kind}" if kind[0] in "IO" else f"a {kind}")
    return out
