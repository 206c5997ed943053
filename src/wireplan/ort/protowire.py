"""Protobuf's wire format read and written without protobuf: varints, field framing, and where
a damaged .onnx breaks.

:mod:`wireplan.ort.onnx` parses with onnx; this module looks at the bytes themselves,
for what protobuf does not say: the offset and path of the first framing problem of a file
protobuf refused (:func:`framing_problem`), where each ``raw_data`` lies in the file
(:func:`raw_data_spans`), the keys and lengths of the pieces the streamed writer emits
(:func:`varint`), and whether a file starts as ``onnx.save`` starts one (:func:`looks_like_onnx`).
It imports no onnx.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from wireplan.errors import DecodeError

__all__ = ["framing_problem", "looks_like_onnx", "raw_data_spans", "varint"]

#: ModelProto keys (field number << 3 | wire type) that may follow ``ir_version`` in an .onnx.
_ONNX_KEYS = frozenset(n << 3 | 2 for n in (2, 3, 4, 6, 7, 8, 14, 20, 25)) | {5 << 3}


def looks_like_onnx(head: bytes) -> bool:
    """Whether a file's first bytes are those of an .onnx model as ``onnx.save`` writes it.

    Protobuf has no magic: the model must start with ``ir_version`` (field 1, a small
    varint) followed by another ModelProto field.  Ask it after formats with a magic
    (an .ort's identifier at bytes 4..8) declined.
    """
    return len(head) >= 3 and head[0] == 0x08 and 1 <= head[1] < 0x80 and head[2] in _ONNX_KEYS


def varint(n: int) -> bytes:
    """``n`` (at least 0) as a protobuf varint."""
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


#: The message-typed fields of the ONNX messages the framing scan descends into:
#: ``{message: {field number: (field name, message or None)}}``.  Other fields are skipped whole.
_ONNX_MESSAGES: dict[str, dict[int, tuple[str, str | None]]] = {
    "ModelProto": {
        7: ("graph", "GraphProto"),
        8: ("opset_import", None),
        14: ("metadata_props", None),
        25: ("functions", "FunctionProto"),
    },
    "GraphProto": {
        1: ("node", "NodeProto"),
        5: ("initializer", "TensorProto"),
        11: ("input", None),
        12: ("output", None),
        13: ("value_info", None),
        15: ("sparse_initializer", "SparseTensorProto"),
    },
    "FunctionProto": {7: ("node", "NodeProto")},
    "NodeProto": {5: ("attribute", "AttributeProto")},
    "AttributeProto": {
        5: ("t", "TensorProto"),
        6: ("g", "GraphProto"),
        10: ("tensors", "TensorProto"),
        11: ("graphs", "GraphProto"),
        22: ("sparse_tensor", "SparseTensorProto"),
        23: ("sparse_tensors", "SparseTensorProto"),
    },
    "SparseTensorProto": {1: ("values", "TensorProto"), 2: ("indices", "TensorProto")},
    "TensorProto": {9: ("raw_data", None), 13: ("external_data", None)},
}
#: Repeated fields, indexed in paths (``$.graph.node[3]``).
_REPEATED = frozenset(
    {"opset_import", "metadata_props", "functions", "node", "initializer", "input", "output"}
    | {"value_info", "sparse_initializer", "attribute", "tensors", "graphs", "sparse_tensors"}
    | {"external_data"}
)


def _broken(offset: int, reason: str) -> DecodeError:
    """The framing error at byte ``offset`` (its path is added by :func:`framing_problem`)."""
    return DecodeError(reason, offset)


def _read_varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    """The varint at ``pos`` and the position after it; a DecodeError where it breaks."""
    value = shift = 0
    for i in range(pos, min(end, pos + 10)):
        byte = data[i]
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i + 1
    if end - pos >= 10:
        raise _broken(pos, "a varint longer than 10 bytes")
    raise _broken(pos, f"a varint cut off by the end of its message (byte {end})")


def _wire_fields(
    data: bytes, pos: int, end: int, names: Mapping[int, tuple[str, str | None]]
) -> Iterator[tuple[int, int, int, int, int]]:
    """``(field number, wire type, field start, value start, value end)`` of a message's fields.

    Checks the framing only (keys, varints, lengths inside the enclosing message), as
    protobuf does before it looks at a value; raises a :class:`~wireplan.DecodeError` at the bad byte.
    ``names`` names fields in messages.
    """
    groups: list[tuple[int, int]] = []
    while pos < end:
        start = pos
        key, pos = _read_varint(data, pos, end)
        number, wire = key >> 3, key & 7
        field = f"{names[number][0]} (field {number})" if number in names else f"field {number}"
        if number == 0:
            raise _broken(start, "a field number 0 (no message has one)")
        if wire == 0:
            _, pos = _read_varint(data, pos, end)
            value = pos
        elif wire in (1, 5):
            value = pos
            pos += 8 if wire == 1 else 4
            if pos > end:
                raise _broken(start, f"{field}: a fixed-size value cut off by the end (byte {end})")
        elif wire == 2:
            length, value = _read_varint(data, pos, end)
            if value + length > end:
                beyond = (
                    f"the file ({end} bytes)" if end == len(data) else f"its message (byte {end})"
                )
                raise _broken(pos, f"{field} declares {length} bytes, past the end of {beyond}")
            pos = value + length
        elif wire == 3:
            groups.append((number, start))
            continue
        elif wire == 4:
            if not groups or groups[-1][0] != number:
                raise _broken(start, f"{field}: an end-group key without its start")
            groups.pop()
            continue
        else:
            raise _broken(start, f"{field}: wire type {wire}, which protobuf has not")
        if not groups:
            yield number, wire, start, value, pos
    if groups:
        raise _broken(groups[-1][1], f"field {groups[-1][0]}: a group that never ends")


def framing_problem(
    data: bytes, message: str = "ModelProto", pos: int = 0, end: int | None = None, path: str = "$"
) -> tuple[int, str, str] | None:
    """The first framing problem of ``data`` as ``(offset, path, why)``, in document order.

    Descends into the fields of :data:`_ONNX_MESSAGES`; None when the framing it reads
    is sound (protobuf refused something else).
    """
    end = len(data) if end is None else end
    known = _ONNX_MESSAGES.get(message, {})
    counts: dict[int, int] = {}
    try:
        for number, wire, _, value, stop in _wire_fields(data, pos, end, known):
            name, sub = known.get(number, (None, None))
            if name is None or wire != 2:
                continue
            i = counts.get(number, 0)
            counts[number] = i + 1
            if sub is not None:
                where = f"{path}.{name}" + (f"[{i}]" if name in _REPEATED else "")
                found = framing_problem(data, sub, value, stop, where)
                if found is not None:
                    return found
    except DecodeError as exc:
        return (pos if exc.offset is None else exc.offset), path, exc.reason
    return None


def raw_data_spans(
    data: bytes, message: str = "ModelProto", pos: int = 0, end: int | None = None
) -> Iterator[tuple[str, int, int]]:
    """``(tensor name, offset, length)`` of every non-empty ``TensorProto.raw_data``, in order."""
    end = len(data) if end is None else end
    known = _ONNX_MESSAGES.get(message, {})
    name, span = "", None
    for number, wire, _, value, stop in _wire_fields(data, pos, end, known):
        if wire != 2:
            continue
        if message == "TensorProto":
            if number == 8:
                name = data[value:stop].decode("utf-8", "replace")
            elif number == 9 and stop > value:
                span = value, stop - value
            continue
        sub = known.get(number, (None, None))[1]
        if sub is not None:
            yield from raw_data_spans(data, sub, value, stop)
    if span is not None:
        yield name, *span
