"""Load .ort files: verify the FlatBuffer, then decode it into :class:`~wireplan.ort.model.OrtModel` as used.

The file is memory-mapped (a path) or viewed in place (a bytes-like
object); payloads are not copied unless ``copy=True``.  See
:mod:`wireplan.flatbuffers.reader` for what is verified and
:mod:`wireplan.ort.model` for how long the views live.

Tensors stored outside the file (``Tensor.external_data_offset``, written by
``save(..., external_data=True)``) are read from the companion file
``<name>.ort.data`` beside it (:func:`~wireplan.ort.model.companion_path`)
or the one given, mapped as well: their
``raw_data`` views it.  Their length follows from ``dims`` and
``data_type``, as in onnxruntime's checkpoints.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from wireplan.core.buffers import MappedFile, as_memoryview
from wireplan.core.closing import Closing
from wireplan.core.executor import run_copies
from wireplan.errors import ArgumentError, DecodeError
from wireplan.flatbuffers.reader import Limits, TableReader
from wireplan.flatbuffers.verify import Layout
from wireplan.ort.graph import MAX_DEPTH, walk_graphs, walk_tensors
from wireplan.ort.model import (
    ELEMENT_BYTES,
    TABLE_CLASSES,
    OrtModel,
    Tensor,
    companion_path,
    element_count,
    shape_problem,
    tensor_problem,
)
from wireplan.ort.schema import FILE_IDENTIFIER, ORT_SCHEMA, SUPPORTED_VERSIONS

__all__ = [
    "ORT_LIMITS",
    "VERIFY",
    "ModelFiles",
    "check_tensors",
    "decode",
    "external_offsets",
    "load",
    "payload_offsets",
    "tensor_paths",
]

#: ``load``'s default limits: tables nest at most :data:`wireplan.ort.graph.MAX_DEPTH` deep, as
#: onnxruntime verifies (deeper files it refuses, and to_onnx could pass protobuf's limit).
ORT_LIMITS = Limits(max_depth=MAX_DEPTH)
#: What ``load(verify=...)`` takes: each table as it is decoded, or the whole file first.
VERIFY = ("access", "all")


class ModelFiles(Closing):
    """What a model with external data views: the .ort source and the companion file."""

    __slots__ = ("companion", "main")

    def __init__(self, main: Any, companion: MappedFile | None) -> None:
        self.main = main
        self.companion = companion

    def close(self) -> None:
        for src in (self.main, self.companion):
            close = getattr(src, "close", None)
            if close is not None:
                close()


def external_offsets(model: OrtModel) -> list[tuple[str, str, int, int]]:
    """``(path, tensor name, offset in the companion file, nbytes)`` of every external tensor.

    From the metadata alone: tensors whose ``external_data_offset`` is set,
    in the order of :func:`tensor_paths`.
    """
    buffer = _source_buffer(model)
    out: list[tuple[str, str, int, int]] = []
    for path, t in tensor_paths(model):
        if t.external_data_offset >= 0:
            n = _external_nbytes(t, path, buffer)
            out.append((path, t.name, t.external_data_offset, n))
    return out


def _source_buffer(model: OrtModel) -> Any:
    """The bytes ``model`` was loaded from (the .ort, not its companion); None if not at hand."""
    src = model.source
    if src is None:
        return None
    main = src.main if isinstance(src, ModelFiles) else src
    return main.buffer if isinstance(main, MappedFile) else main


def tensor_problems(model: OrtModel) -> Iterator[DecodeError]:
    """A :class:`~wireplan.DecodeError` for every tensor whose payload disagrees with its shape.

    What :func:`wireplan.ort.model.tensor_problem` finds, in the order of
    :func:`tensor_paths`, and sparse tensors whose dense shape no array can
    have.  The offset is the byte of the .ort that stores the bad field
    (``dims``, ``raw_data``...) while the model's source is open, None for a
    model without one (built in memory, or loaded with ``copy=True``).
    """
    buffer = _source_buffer(model)

    def error(why: str, where: str) -> DecodeError:
        offset = field_byte(buffer, where) if buffer is not None else None
        return DecodeError(why, offset or None, where)

    for path, t in tensor_paths(model):
        found = tensor_problem(t)
        if found is not None:
            yield error(found[1], f"{path}.{found[0]}")
    md = model.model
    if md is None or md.graph is None:
        return
    for path, g in walk_graphs(md.graph):
        for i, sp in enumerate(g.sparse_initializers):
            values = sp.values
            size = 1 if values is None else ELEMENT_BYTES.get(values.data_type, 1)
            problem = shape_problem(sp.dims, size)
            if problem is not None:
                name = "" if values is None else values.name
                yield error(
                    f"sparse tensor {name!r} has a dense shape of {problem}",
                    f"{path}.sparse_initializers[{i}].dims",
                )


def check_tensors(model: OrtModel) -> None:
    """Refuse a model with a tensor whose payload disagrees with its shape (:func:`tensor_problems`).

    Raises the first such :class:`~wireplan.DecodeError`, naming the byte of
    the .ort that holds the bad field.  :func:`load` does not check this (a
    damaged model can still be inspected); the conversions do, before they
    write a file onnxruntime would refuse.
    """
    for problem in tensor_problems(model):
        raise problem


def field_byte(buffer: Any, path: str) -> int:
    """The byte of ``buffer`` (an .ort) that stores the field at ``path``; 0 if unknown.

    Only for errors found after decoding: their offset names the stored value.
    """
    if buffer is None:
        return 0
    try:
        at = TableReader(ORT_SCHEMA, buffer, classes=TABLE_CLASSES).locate(path)
    except (DecodeError, LookupError, ValueError):  # NotFoundError is a LookupError
        at = None
    return 0 if at is None else at


def _external_nbytes(t: Tensor, path: str, buffer: Any) -> int:
    where = f"{path}.external_data_offset"
    size = ELEMENT_BYTES.get(t.data_type)
    if size is None:
        raise DecodeError(
            f"tensor {t.name!r} of data type {t.data_type} has an external_data_offset; only "
            "fixed-size numeric tensors can be stored outside the file",
            field_byte(buffer, where),
            where,
        )
    problem = shape_problem(t.dims, size)
    if problem is not None:
        raise DecodeError(
            f"tensor {t.name!r} has {problem}", field_byte(buffer, f"{path}.dims"), f"{path}.dims"
        )
    return element_count(t.dims) * size


def _companion(
    source: Any, external_data: Any, first: tuple[str, Tensor], buffer: Any
) -> tuple[MappedFile | memoryview, str]:
    """The companion file (mapped) or buffer, and its name for messages."""
    path, t = first
    where = f"{path}.external_data_offset"
    if external_data is not None and not isinstance(external_data, (str, os.PathLike)):
        return as_memoryview(external_data), "the external data buffer"
    if isinstance(source, (str, os.PathLike)):
        folder = Path(os.path.abspath(source)).parent
        name = Path(external_data) if external_data is not None else None
        target = folder / (name if name is not None else companion_path(source).name)
        if not target.resolve().is_relative_to(folder.resolve()):
            raise DecodeError(
                f"the external data file {os.fspath(target)!r} resolves outside the model's "
                f"folder {os.fspath(folder)!r}",
                field_byte(buffer, where),
                where,
            )
    elif external_data is None:
        raise DecodeError(
            f"tensor {t.name!r} is stored outside the model (external_data_offset "
            f"{t.external_data_offset}); pass external_data= (a path or a buffer) to load it "
            "from a buffer",
            field_byte(buffer, where),
            where,
        )
    else:
        target = Path(external_data)
    try:
        return MappedFile(target), target.name
    except OSError as exc:
        raise DecodeError(
            f"tensor {t.name!r} is stored at byte {t.external_data_offset} of the external data "
            f"file {os.fspath(target)!r}, which cannot be read: {exc.strerror or exc}",
            field_byte(buffer, where),
            where,
        ) from None


def _attach_external(
    model: OrtModel, source: Any, external_data: Any, copy: bool, threads: int | None, main: Any
) -> MappedFile | None:
    """Point the external tensors' ``raw_data`` into the companion; the mapping to keep, if any."""
    found = [
        (path, t)
        for path, t in walk_tensors(model.graph, having="external_data_offset")
        if t.external_data_offset >= 0 and t.nbytes == 0
    ]
    if not found:
        return None
    companion, label = _companion(source, external_data, found[0], main)
    buffer = companion.buffer if isinstance(companion, MappedFile) else companion
    size = buffer.nbytes
    try:
        views = []
        for path, t in found:
            n = _external_nbytes(t, path, main)
            off = t.external_data_offset
            if off + n > size:
                raise DecodeError(
                    f"tensor {t.name!r}: its {n} bytes at byte {off} of {label} run past its "
                    f"end ({size} bytes)",
                    field_byte(main, f"{path}.external_data_offset"),
                    f"{path}.external_data_offset",
                )
            views.append((t, np.frombuffer(buffer, dtype=np.uint8, count=n, offset=off)))
        if copy:
            pairs = [(np.empty(v.shape[0], np.uint8), v) for _, v in views]
            run_copies(pairs, threads=threads)
            for (t, _), (owned, _) in zip(views, pairs, strict=True):
                t.raw_data = owned
            del pairs
        else:
            for t, v in views:
                if v.flags.writeable:
                    v.flags.writeable = False
                t.raw_data = v
        del views
    except BaseException:
        if isinstance(companion, MappedFile):
            companion.close()
        raise
    if copy and isinstance(companion, MappedFile):
        companion.close()
        return None
    return companion if isinstance(companion, MappedFile) else None


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


def _decode(
    buffer: Any,
    *,
    copy: bool,
    threads: int | None,
    limits: Limits,
    layout: Layout | None = None,
    verify: str = "all",
) -> tuple[OrtModel, bool]:
    """The model, and whether it may have external tensors (False: no tensor says so)."""
    reader = TableReader(
        ORT_SCHEMA,
        buffer,
        classes=TABLE_CLASSES,
        copy=copy,
        limits=limits,
        lazy=not copy,
        verify=verify == "all",
        layout=layout,
    )
    root = reader.root_position(FILE_IDENTIFIER)
    _check_version(reader, root)
    model = reader.read_table("InferenceSession", root)
    assert isinstance(model, OrtModel)
    if model.model is None:
        raise DecodeError("the file holds no model", root, "$.model")
    if model.model.graph is None:
        raise DecodeError("the model holds no graph", root, "$.model.graph")
    reader.finish(threads)
    present = reader.present
    return model, present is None or ("Tensor", "external_data_offset") in present


def load(
    source: str | os.PathLike[str] | Any,
    *,
    copy: bool = False,
    threads: int | None = None,
    limits: Limits = ORT_LIMITS,
    external_data: str | os.PathLike[str] | Any = None,
    verify: str = "access",
) -> OrtModel:
    """Read an .ort model from a path (memory-mapped) or from a bytes-like object.

    Checks the ``"ORTM"`` identifier and the format version (``"1"`` to
    ``"6"``) and verifies every table before its fields are used; a malformed
    buffer raises :class:`wireplan.DecodeError` (or its subclass
    :class:`wireplan.LimitError`) with the offset of the byte that holds
    the bad value and its path.  ``limits``: tables nest at most
    :data:`wireplan.ort.graph.MAX_DEPTH` deep by default, onnxruntime's
    limit, which keeps every model that loads convertible by ``to_onnx``.

    ``verify="access"`` (the default) checks each table when it is first
    decoded: vectors of tables come as :class:`~wireplan.flatbuffers.lazy.TableList`,
    decoded element by element as used, so reading the weights does not pay for
    the nodes and value infos, and an error in a part never read is never raised.
    ``verify="all"`` checks the whole buffer before returning (numpy passes,
    :func:`wireplan.flatbuffers.verify.verified`): nothing decoded later can fail.
    ``copy=True`` decodes everything at once, checked.

    By default every vector of numbers (``Tensor.raw_data``, dims, ints,
    ...) is a read-only numpy view into the source: loading costs no copy
    whatever the weight size.  The returned model holds the mapping;
    close it with :meth:`OrtModel.close` or a ``with`` block (arrays you
    still hold stay valid).  ``copy=True`` gives owned arrays and releases
    the source before returning; payloads of 1 MiB or more are then copied
    by :func:`wireplan.core.executor.run_copies` with ``threads`` threads
    (``None``: by size and core count), byte-identical to a serial copy.

    Tensors stored outside the file (``external_data_offset``) are read
    from its companion: by default ``<file name>.data`` beside the file;
    ``external_data`` names another file in the model's folder (relative
    to it), or gives the companion's bytes (a bytes-like object; for a
    model loaded from a buffer, a path or the bytes).  The companion is
    mapped and those tensors view it (``copy=True``: copied with
    ``threads`` threads, then unmapped).  A companion that is missing, too
    short for a tensor, or outside the model's folder is a
    :class:`~wireplan.DecodeError` with the tensor's offset in it.  Nothing
    is opened for a file without external tensors.
    """
    if verify not in VERIFY:
        raise ArgumentError(f"verify is one of {', '.join(map(repr, VERIFY))}, not {verify!r}")
    return _load(source, copy, threads, limits, external_data, None, verify)


def load_with_layout(path: str | os.PathLike[str], layout: Layout) -> OrtModel:
    """:func:`load` of a path, zero-copy, filling ``layout`` as it verifies the file.

    For :func:`wireplan.flatbuffers.relocate.relocate`: a re-write that moves the
    payloads without rebuilding the tables.  ``layout.root`` stays ``None`` when the
    file was decoded eagerly (it did not verify as a whole; the decode raised).
    """
    return _load(path, False, None, ORT_LIMITS, None, layout, "all")


def _load(
    source: Any,
    copy: bool,
    threads: int | None,
    limits: Limits,
    external_data: Any,
    layout: Layout | None,
    verify: str,
) -> OrtModel:
    if isinstance(source, (str, os.PathLike)):
        mapped = MappedFile(source)
        try:
            model, external = _decode(
                mapped.buffer,
                copy=copy,
                threads=threads,
                limits=limits,
                layout=layout,
                verify=verify,
            )
            companion = (
                _attach_external(model, source, external_data, copy, threads, mapped.buffer)
                if external
                else None
            )
        except BaseException:
            mapped.close()
            raise
        if copy:
            mapped.close()
        else:
            model.source = mapped if companion is None else ModelFiles(mapped, companion)
        return model
    buffer = as_memoryview(source)
    model, external = _decode(
        buffer, copy=copy, threads=threads, limits=limits, layout=layout, verify=verify
    )
    companion = (
        _attach_external(model, None, external_data, copy, threads, buffer) if external else None
    )
    if not copy:
        model.source = source if companion is None else ModelFiles(source, companion)
    return model


def decode(
    buffer: Any,
    *,
    copy: bool = False,
    threads: int | None = None,
    limits: Limits = ORT_LIMITS,
    external_data: Any = None,
    verify: str = "access",
) -> OrtModel:
    """An .ort model from a bytes-like object (what :func:`wireplan.ort.encode` returns).

    The same checks and options as :func:`load`, which also takes a path; here a path is an
    :class:`~wireplan.ArgumentError`.  Without ``copy`` the arrays view ``buffer``.
    """
    if isinstance(buffer, (str, os.PathLike)):
        raise ArgumentError(
            f"decode takes the bytes of an .ort file, not the path {os.fspath(buffer)!r}: "
            "use load(path)"
        )
    return load(
        buffer,
        copy=copy,
        threads=threads,
        limits=limits,
        external_data=external_data,
        verify=verify,
    )


def tensor_paths(model: OrtModel) -> Iterator[tuple[str, Tensor]]:
    """Every tensor of the model with its path, e.g. ``$.model.graph.initializers[2]``.

    In the order of :func:`wireplan.ort.graph.walk_tensors`.
    """
    return walk_tensors(model.graph)


def payload_offsets(model: OrtModel) -> list[tuple[str, str, int, int]]:
    """``(path, tensor name, file offset, nbytes)`` of every non-empty ``raw_data`` in the file.

    Tensors in the companion file are left out (:func:`external_offsets`).

    Only for a model loaded zero-copy and still open: the offset is where
    the payload's first byte lies in the file (the position of the
    vector's data, after its 4-byte length).
    """
    src = model.source
    if isinstance(src, ModelFiles):
        src = src.main
    if src is None:
        raise ArgumentError("payload offsets need a model loaded with copy=False and not closed")
    buffer = src.buffer if isinstance(src, MappedFile) else as_memoryview(src)
    base = np.frombuffer(buffer, dtype=np.uint8)
    start = int(base.ctypes.data)
    end = start + base.shape[0]
    out: list[tuple[str, str, int, int]] = []
    for path, t in tensor_paths(model):
        n = t.nbytes
        if n == 0 or t.external_data_offset >= 0:
            continue
        addr = int(t.raw_data.ctypes.data)
        if not start <= addr < end:
            raise ArgumentError(f"{path}: raw_data does not view this model's source")
        out.append((path, t.name, addr - start, n))
    return out
