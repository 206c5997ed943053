"""Load .ort files: verify, then decode as used (one concern: reading, with its companion).

The FlatBuffer becomes an :class:`~wireplan.ort.model.OrtModel`.
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
import weakref
from collections.abc import Callable, Iterator
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
    Array,
    OrtModel,
    Tensor,
    companion_path,
    element_count,
    shape_problem,
    sparse_problem,
    tensor_problem,
)
from wireplan.ort.protowire import looks_like_onnx
from wireplan.ort.schema import FILE_IDENTIFIER, ORT_SCHEMA, SUPPORTED_VERSIONS

__all__ = [
    "ORT_LIMITS",
    "VERIFY",
    "ModelFiles",
    "check_tensors",
    "companion_file",
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
    """What a loaded model views: the .ort source and, if it has external data, the companion."""

    __slots__ = ("companion", "main")

    def __init__(self, main: Any, companion: MappedFile | None) -> None:
        self.main = main
        self.companion = companion

    @property
    def buffer(self) -> Any:
        """The bytes of the .ort itself (the main source's buffer, or the source)."""
        main = self.main
        return main.buffer if isinstance(main, MappedFile) else main

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
            n = _external_nbytes(t, _fields(buffer, path))
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
            found = sparse_problem(sp)
            if found is not None:
                yield error(found[1], f"{path}.sparse_initializers[{i}].{found[0]}")


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


#: ``where(field)``: the (byte, path) of a field of the tensor at hand, asked only for an error.
_Where = Callable[[str], tuple[int, str]]


def _external_nbytes(t: Tensor, where: _Where) -> int:
    """The bytes an external tensor takes in the companion, from its ``dims`` and type."""
    size = ELEMENT_BYTES.get(t.data_type)
    if size is None:
        raise DecodeError(
            f"tensor {t.name!r} of data type {t.data_type} has an external_data_offset; "
            "only fixed-size numeric tensors can be stored outside the file",
            *where("external_data_offset"),
        )
    problem = shape_problem(t.dims, size)
    if problem is not None:
        raise DecodeError(f"tensor {t.name!r} has {problem}", *where("dims"))
    return element_count(t.dims) * size


def _fields(buffer: Any, path: str) -> _Where:
    """The ``where`` of the tensor at ``path`` of ``buffer`` (an .ort)."""

    def where(field: str) -> tuple[int, str]:
        full = f"{path}.{field}"
        return field_byte(buffer, full), full

    return where


def _decoded(reader: TableReader, pos: int) -> _Where:
    """The ``where`` of the tensor a reader's hook is handed, decoded at ``pos``."""

    def where(field: str) -> tuple[int, str]:
        return reader.field_position("Tensor", pos, field) or pos, f"$.{field}"

    return where


def _attach_copies(companion: _Companion, threads: int | None) -> None:
    """Copy the external tensors of an eagerly decoded model out of the companion, as
    :meth:`_Companion.check` viewed them (``copy=True``): ``threads`` threads,
    byte-identical to a serial copy."""
    pairs = []
    for t, v in companion.viewed:
        t.raw_data = np.empty(v.shape[0], np.uint8)
        pairs.append((t.raw_data, v))
    run_copies(pairs, threads=threads)


class _Companion:
    """The external data of one load, opened when the first external tensor needs it.

    :meth:`attach` is the reader's hook for ``Tensor`` tables (a zero-copy load checks
    each external tensor and points it at the companion as it is decoded); :meth:`check`
    is that of ``copy=True``, which views them in :attr:`viewed` for the copies made
    after the decode.  Errors name the byte of the .ort that holds the field at fault.  Once mapped for a model (:meth:`serve`), the companion
    becomes part of the model's source (:class:`ModelFiles`), closed with it.
    """

    __slots__ = ("_external_data", "_given", "_label", "_mapped", "_model", "_source", "viewed")

    def __init__(self, source: Any, external_data: Any) -> None:
        self._source = source  # the .ort's path, or None for a buffer
        self._external_data = external_data
        self._given: memoryview | None = None  # companion bytes passed in
        self._mapped: MappedFile | None = None
        self._model: weakref.ref[OrtModel] | None = None
        self._label = ""
        self.viewed: list[tuple[Tensor, Array]] = []  # by check(): (tensor, its bytes)

    def serve(self, model: OrtModel) -> None:
        """Map the companion, when needed, as part of ``model``'s source."""
        self._model = weakref.ref(model)
        if self._mapped is not None:  # mapped while the model was decoded
            model.source = ModelFiles(model.source, self._mapped)

    def attach(self, reader: TableReader, pos: int, t: Tensor) -> Tensor:
        """``t`` (decoded at ``pos``), its ``raw_data`` a view of the companion if stored there."""
        if t.external_data_offset < 0:
            return t
        v = self.view(t, _decoded(reader, pos))
        if v.flags.writeable:
            v.flags.writeable = False
        t.raw_data = v
        return t

    def check(self, reader: TableReader, pos: int, t: Tensor) -> Tensor:
        """``t`` unchanged, once its bytes are known to be in the companion: the hook of
        ``copy=True``, which copies them after decoding (:func:`_attach_copies`) but
        raises a missing or short companion where a zero-copy load does, in decode order."""
        if t.external_data_offset >= 0:
            self.viewed.append((t, self.view(t, _decoded(reader, pos))))
        return t

    def view(self, t: Tensor, where: _Where) -> Array:
        """The companion's bytes of ``t`` (``where`` places its fields in errors); a
        tensor with ``raw_data`` too is refused: onnxruntime's writer writes one or the other."""
        if t.raw_data.shape[0]:
            raise DecodeError(
                f"tensor {t.name!r} has both raw_data ({t.raw_data.shape[0]} bytes) and an "
                f"external_data_offset ({t.external_data_offset}): the values are in one "
                "place or the other, never both",
                *where("external_data_offset"),
            )
        n = _external_nbytes(t, where)
        buffer, passing = self._buffer(t, where)
        try:
            off = t.external_data_offset
            if off + n > buffer.nbytes:
                raise DecodeError(
                    f"tensor {t.name!r}: its {n} bytes at byte {off} of {self._label} run past "
                    f"its end ({buffer.nbytes} bytes)",
                    *where("external_data_offset"),
                )
            return np.frombuffer(buffer, dtype=np.uint8, count=n, offset=off)
        finally:
            if passing is not None:  # decoded after the model was closed: the view keeps it
                passing.close()

    def _buffer(self, t: Tensor, where: _Where) -> tuple[memoryview, MappedFile | None]:
        """The companion's bytes, and a mapping to close once they are viewed (or None)."""
        if self._given is not None:
            return self._given, None
        mapped = self._mapped
        if mapped is not None and not mapped.closed:
            return mapped.buffer, None
        external_data = self._external_data
        if external_data is not None and not isinstance(external_data, (str, os.PathLike)):
            self._label = "the external data buffer"
            self._given = as_memoryview(external_data)
            return self._given, None
        mapped = self._map(t, where)
        model = self._model() if self._model is not None else None
        if self._model is None:  # a load that copies: closed when it ends
            self._mapped = mapped
        elif model is not None and model.source is not None:
            self._mapped = mapped
            model.source = ModelFiles(model.source, mapped)
        else:
            return mapped.buffer, mapped
        return mapped.buffer, None

    def _map(self, t: Tensor, where: _Where) -> MappedFile:
        source, external_data = self._source, self._external_data
        if source is not None:
            folder = Path(os.path.abspath(source)).parent
            name = Path(external_data) if external_data is not None else None
            target = folder / (name if name is not None else companion_path(source).name)
            if not target.resolve().is_relative_to(folder.resolve()):
                raise DecodeError(
                    f"the external data file {os.fspath(target)!r} resolves outside the "
                    f"model's folder {os.fspath(folder)!r}",
                    *where("external_data_offset"),
                )
        elif external_data is None:
            raise DecodeError(
                f"tensor {t.name!r} is stored outside the model (external_data_offset "
                f"{t.external_data_offset}); pass external_data= (a path or a buffer) to load "
                "it from a buffer",
                *where("external_data_offset"),
            )
        else:
            target = Path(external_data)
        try:
            mapped = MappedFile(target)
        except OSError as exc:
            raise DecodeError(
                f"tensor {t.name!r} is stored at byte {t.external_data_offset} of the external "
                f"data file {os.fspath(target)!r}, which cannot be read: {exc.strerror or exc}",
                *where("external_data_offset"),
            ) from None
        self._label = target.name
        return mapped

    def close(self) -> None:
        """Unmap the companion: at the end of a load that copies, or of one that failed."""
        mapped, self._mapped = self._mapped, None
        if mapped is not None:
            mapped.close()


def companion_file(model: OrtModel) -> MappedFile | None:
    """The mapped companion file of a model loaded zero-copy from a path, if it has one.

    Decodes the tensors stored there (they map it) if none was decoded yet.
    """
    md = model.model
    if model.source is not None and md is not None and md.graph is not None:
        for _ in walk_tensors(md.graph, having="external_data_offset"):
            pass
    mapped = getattr(model.source, "companion", None)
    return mapped if isinstance(mapped, MappedFile) else None


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


# Tables a zero-copy load hands out as views (fields decoded as read): a walk over the
# tensors reads of the graphs, nodes and tensors only the fields it follows.  (Reading
# every field of every node, as to_onnx does, costs about 10% more than eager objects.)
_VIEWS = ("Tensor", "Graph", "Node", "Attribute", "Model", "KernelTypeStrResolver")


def _decode(
    buffer: Any,
    companion: _Companion,
    *,
    copy: bool,
    threads: int | None,
    limits: Limits,
    layout: Layout | None = None,
    verify: str = "all",
) -> tuple[OrtModel, bool]:
    """The model, and whether a verification of the whole file found external tensors.

    In a lazy read, each external tensor is pointed at ``companion`` when it is decoded.
    """
    reader = TableReader(
        ORT_SCHEMA,
        buffer,
        classes=TABLE_CLASSES,
        copy=copy,
        limits=limits,
        lazy=not copy,
        verify=verify == "all",
        layout=layout,
        after={"Tensor": ("external_data_offset", companion.check if copy else companion.attach)},
        views=_VIEWS,
    )
    try:
        root = reader.root_position(FILE_IDENTIFIER)
    except DecodeError as exc:  # an .onnx: say so, and what reads one
        if exc.offset == 4 and looks_like_onnx(bytes(buffer[:3])):
            says = (
                "an .onnx model, not an .ort (read it with from_onnx; convert makes an .ort of it)"
            )
            raise DecodeError(f"{exc.reason}: {says}", 4) from None
        raise
    _check_version(reader, root)
    model = reader.read_table("InferenceSession", root)
    assert isinstance(model, OrtModel)
    if model.model is None:
        raise DecodeError("the file holds no model", root, "$.model")
    if model.model.graph is None:
        raise DecodeError("the model holds no graph", root, "$.model.graph")
    reader.finish(threads)
    present = reader.present
    return model, present is not None and ("Tensor", "external_data_offset") in present


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
    decoded element by element as used, and graphs, nodes, attributes and tensors are
    views whose fields are decoded when first read, so reading the weights does not pay for the nodes and
    value infos, and an error in a part never read is never raised.
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
    :class:`~wireplan.DecodeError` with the tensor's offset in it, raised when
    the first such tensor is decoded (by ``load`` itself with ``verify="all"`` or
    ``copy=True``).  Nothing is opened before an external tensor is decoded.
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
    path = isinstance(source, (str, os.PathLike))
    main: Any = MappedFile(source) if path else source
    companion = _Companion(source if path else None, external_data)
    try:
        buffer = main.buffer if path else as_memoryview(source)
        model, external = _decode(
            buffer,
            companion,
            copy=copy,
            threads=threads,
            limits=limits,
            layout=layout,
            verify=verify,
        )
        if copy:
            _attach_copies(companion, threads)
        else:
            model.source = main
            companion.serve(model)
            for _ in walk_tensors(model.graph, having="external_data_offset") if external else ():
                pass  # verified as a whole: the external tensors are checked now, not on access
    except BaseException:
        companion.close()
        if path:
            main.close()
        raise
    if copy:
        companion.close()
        if path:
            main.close()
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
