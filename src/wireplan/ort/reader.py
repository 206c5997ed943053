"""Load .ort files: verify the FlatBuffer while decoding it into :class:`~wireplan.ort.model.OrtModel`.

The file is memory-mapped (a path) or viewed in place (a bytes-like
object); payloads are not copied unless ``copy=True``.  See
:mod:`wireplan.flatbuffers.reader` for what is verified and
:mod:`wireplan.ort.model` for how long the views live.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from wireplan.core.buffers import MappedFile, as_memoryview
from wireplan.errors import DecodeError
from wireplan.flatbuffers.reader import DEFAULT_LIMITS, Limits, TableReader
from wireplan.ort.graph import walk_tensors
from wireplan.ort.model import TABLE_CLASSES, OrtModel, Tensor
from wireplan.ort.schema import FILE_IDENTIFIER, ORT_SCHEMA, SUPPORTED_VERSIONS

__all__ = ["load", "payload_offsets", "tensor_paths"]


def _check_version(reader: TableReader, root: int) -> None:
    at = reader.field_position("InferenceSession", root, "ort_version")
    if at is None:
        raise DecodeError("the ORT format version (ort_version) is missing", root, "$.ort_version")
    pos = reader.follow(at)
    try:
        version = reader.string(pos)
    except DecodeError as exc:
        raise exc.under(".ort_version") from None
    if version not in SUPPORTED_VERSIONS:
        raise DecodeError(
            f"ORT format version {version!r} is not supported "
            f"(supported: {', '.join(SUPPORTED_VERSIONS)})",
            pos,
            "$.ort_version",
        )


def _decode(buffer: Any, *, copy: bool, threads: int | None, limits: Limits) -> OrtModel:
    reader = TableReader(ORT_SCHEMA, buffer, classes=TABLE_CLASSES, copy=copy, limits=limits)
    root = reader.root_position(FILE_IDENTIFIER)
    _check_version(reader, root)
    model = reader.read_table("InferenceSession", root)
    assert isinstance(model, OrtModel)
    if model.model is None:
        raise DecodeError("the file holds no model", root, "$.model")
    if model.model.graph is None:
        raise DecodeError("the model holds no graph", root, "$.model.graph")
    reader.finish(threads)
    return model


def load(
    source: str | os.PathLike[str] | Any,
    *,
    copy: bool = False,
    threads: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> OrtModel:
    """Read an .ort model from a path (memory-mapped) or from a bytes-like object.

    Checks the ``"ORTM"`` identifier and the format version (``"1"`` to
    ``"6"``), then decodes and verifies every table; a malformed buffer
    raises :class:`wireplan.DecodeError` (or its subclass
    :class:`wireplan.LimitError`) with the byte offset and the path of
    the bad value.

    By default every vector of numbers (``Tensor.raw_data``, dims, ints,
    ...) is a read-only numpy view into the source: loading costs no copy
    whatever the weight size.  The returned model holds the mapping;
    close it with :meth:`OrtModel.close` or a ``with`` block (arrays you
    still hold stay valid).  ``copy=True`` gives owned arrays and releases
    the source before returning; payloads of 1 MiB or more are then copied
    by :func:`wireplan.core.execute.run_copies` with ``threads`` threads
    (``None``: by size and core count), byte-identical to a serial copy.
    """
    if isinstance(source, (str, os.PathLike)):
        mapped = MappedFile(source)
        try:
            model = _decode(mapped.buffer, copy=copy, threads=threads, limits=limits)
        except BaseException:
            mapped.close()
            raise
        if copy:
            mapped.close()
        else:
            model.source = mapped
        return model
    buffer = as_memoryview(source)
    model = _decode(buffer, copy=copy, threads=threads, limits=limits)
    if not copy:
        model.source = source
    return model


def tensor_paths(model: OrtModel) -> Iterator[tuple[str, Tensor]]:
    """Every tensor of the model with its path, e.g. ``$.model.graph.initializers[2]``.

    In the order of :func:`wireplan.ort.graph.walk_tensors`.
    """
    return walk_tensors(model.graph)


def payload_offsets(model: OrtModel) -> list[tuple[str, str, int, int]]:
    """``(path, tensor name, file offset, nbytes)`` of every non-empty ``raw_data``.

    Only for a model loaded zero-copy and still open: the offset is where
    the payload's first byte lies in the file (the position of the
    vector's data, after its 4-byte length).
    """
    src = model.source
    if src is None:
        raise ValueError("payload offsets need a model loaded with copy=False and not closed")
    buffer = src.buffer if isinstance(src, MappedFile) else as_memoryview(src)
    base = np.frombuffer(buffer, dtype=np.uint8)
    start = int(base.ctypes.data)
    end = start + base.shape[0]
    out: list[tuple[str, str, int, int]] = []
    for path, t in tensor_paths(model):
        n = t.nbytes
        if n == 0:
            continue
        addr = int(t.raw_data.ctypes.data)
        if not start <= addr < end:
            raise ValueError(f"{path}: raw_data does not view this model's source")
        out.append((path, t.name, addr - start, n))
    return out
