"""Encode a prepared .ort model: the metadata packed, the payloads planned, the bytes moved.

No pass runs here: the model comes prepared (:mod:`wireplan.ort.prepare`: function
bodies expanded, float16 Casts, types, the ``KernelTypeStrResolver``).  The whole
file is laid out first by :class:`wireplan.flatbuffers.builder.Builder` over
:data:`wireplan.ort.schema.ORT_SCHEMA`: tables, vtables, strings and small vectors
are packed into a metadata buffer at the front; every non-empty
``Tensor.raw_data`` starts at a multiple of ``alignment`` from the start of the
file, and large ones are regions of a :class:`~wireplan.core.plan.Plan` that the
shared executor copies straight from their source (the .onnx file's mapping, an
.ort mapping, numpy arrays) into the destination, serially or with threads,
byte-identical either way.  With external data the large initializers go to the
companion file (:func:`wireplan.ort.model.companion_path`), each at a multiple of
``alignment``; their ``Tensor`` tables hold ``external_data_offset`` and no
``raw_data``.  Both files are planned once, filled by the executor and renamed
into place together (:func:`wireplan.core.atomic.write_group`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from wireplan.core.atomic import SizedFile, write_group, write_over_scratch
from wireplan.core.buffers import MappedFile
from wireplan.core.executor import execute, execute_file, populate
from wireplan.core.gcpause import gc_paused
from wireplan.core.plan import Plan
from wireplan.core.progress import Tally
from wireplan.errors import ArgumentError, EncodeError
from wireplan.flatbuffers.builder import Builder, BuildResult
from wireplan.ort.graph import MAX_DEPTH, MAX_TABLES, walk_graphs, walk_tensors
from wireplan.ort.model import (
    Dimension,
    DimensionValue,
    KernelTypeStrResolver,
    OrtModel,
    Shape,
    Tensor,
    TensorTypeAndShape,
    TypeInfo,
    companion_path,
)
from wireplan.ort.schema import ATTRIBUTE_TYPE, ORT_SCHEMA, TENSOR_DATA_TYPE

__all__ = [
    "ATTRIBUTE_VALUE",
    "DEFAULT_SIZE_THRESHOLD",
    "KEEP_EMPTY",
    "Progress",
    "check_threads",
    "check_threshold",
    "fill",
    "layout_files",
    "to_buffer",
    "write_ort",
    "write_pair",
]

Progress = Callable[[int, int], None]

#: Strings onnxruntime requires to be present even when empty; Node.domain as its own writer
#: does (its Python tools, e.g. the reduced-build config writer, fail on an absent one).
KEEP_EMPTY = (
    ("Attribute", "s"),
    ("Node", "domain"),
    ("ValueInfo", "name"),
    ("OperatorSetId", "domain"),
    ("StringStringEntry", "key"),
    ("StringStringEntry", "value"),
)

#: Which Attribute fields carry the value of each attribute type.
ATTRIBUTE_VALUE = {
    ATTRIBUTE_TYPE[kind]: ("name", "doc_string", field)
    for kind, field in (
        ("FLOAT", "f"),
        ("INT", "i"),
        ("STRING", "s"),
        ("TENSOR", "t"),
        ("GRAPH", "g"),
        ("FLOATS", "floats"),
        ("INTS", "ints"),
        ("STRINGS", "strings"),
        ("TENSORS", "tensors"),
        ("GRAPHS", "graphs"),
    )
}

#: With ``external_data=True``, initializers of at least this many bytes go to the companion file.
DEFAULT_SIZE_THRESHOLD = 1024

_STRING = TENSOR_DATA_TYPE["STRING"]
_NO_BYTES = np.zeros(0, np.uint8)
_NO_BYTES.flags.writeable = False


def check_threshold(size_threshold: int) -> int:
    """``size_threshold`` if it is a count of bytes, else an :class:`~wireplan.ArgumentError`."""
    if not isinstance(size_threshold, int) or size_threshold < 0:
        raise ArgumentError(f"size_threshold must be a count of bytes >= 0, not {size_threshold!r}")
    return size_threshold


def check_threads(threads: int | None) -> None:
    """An :class:`~wireplan.ArgumentError` unless ``threads`` is None or at least 1."""
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise ArgumentError(f"threads must be None or at least 1, not {threads!r}")


_TOO_LARGE = (
    "save with external_data=True (CLI --external-data) to put the large initializers in a "
    "companion .data file"
)


_NO_VALUE = ("no value",)  # a Dimension without a DimensionValue, in a type's key


def type_key(t: Any) -> Any:
    """What the bytes of a tensor type (a ``TypeInfo``) depend on, as a tuple; ``None`` for
    other values (and views), which are packed each time.

    Most values of a graph share a few types (a float tensor of N x C x H x W): the
    builder packs each type once and copies it (``repeats``).
    """
    if type(t) is not TypeInfo:
        return None
    v = t.value
    if type(v) is not TensorTypeAndShape:
        return None
    shape = v.shape
    if shape is None:
        return (t.denotation, v.elem_type, None)
    if type(shape) is not Shape:
        return None
    dims: list[Any] = []
    for d in shape.dim:
        if type(d) is not Dimension:
            return None
        dv = d.value
        if dv is None:
            dims += (d.denotation, _NO_VALUE, 0, "")
        elif type(dv) is DimensionValue and type(dv.dim_value) is int:
            dims += (d.denotation, dv.dim_type, dv.dim_value, dv.dim_param)
        else:
            return None
    return (t.denotation, v.elem_type, tuple(dims))


@functools.cache
def _builder(alignment: int) -> Builder:
    return Builder(
        ORT_SCHEMA,
        too_large_hint=_TOO_LARGE,
        field_alignment={("Tensor", "raw_data"): alignment},
        omit_empty_strings=True,
        keep_empty=KEEP_EMPTY,
        # An Attribute carries only the field of its type, as onnxruntime writes it.
        variants={"Attribute": ("type", ATTRIBUTE_VALUE)},
        repeats={"TypeInfo": type_key},
        max_depth=MAX_DEPTH,
        max_tables=MAX_TABLES,
        limits_why="onnxruntime's verifier refuses such an .ort",
    )


def _reused_layout(
    model: OrtModel, reuse: MappedFile, alignment: int
) -> tuple[dict[int, Tensor], Plan]:
    """Initializers that view ``reuse`` stay where they are in it (``reuse_data``)."""
    subst: dict[int, Tensor] = {}
    found: list[tuple[int, int, str, Tensor]] = []
    for path, g in walk_graphs(model.graph):
        for i, t in enumerate(g.initializers):
            off = reuse.offset_of(t.raw_data) if t.nbytes else None
            if off is None or id(t) in subst:
                continue
            if off % alignment:
                raise EncodeError(
                    f"tensor {t.name!r} lies at offset {off} of {reuse.path!r}, not a multiple "
                    f"of the alignment {alignment}: that file cannot be reused (convert without "
                    "reuse_data for a new aligned layout, or with a smaller alignment)",
                    f"{path}.initializers[{i}]",
                )
            subst[id(t)] = dataclasses.replace(t, raw_data=_NO_BYTES, external_data_offset=off)
            found.append((off, t.nbytes, t.name, t))
    data = Plan()
    last: tuple[int, int] | None = None
    for off, n, name, t in sorted(found, key=lambda f: (f[0], f[1])):
        if (off, n) != last:
            data.place(off, n, alignment=alignment, source=t.raw_data, name=name)
            last = (off, n)
    data.reserve(reuse.size)
    return subst, data


def _tensor_layout(
    model: OrtModel, external: bool, threshold: int, alignment: int
) -> tuple[dict[int, Tensor], Plan]:
    """Substitute tables for tensors whose data moves, and the plan of the companion file.

    With ``external``, every initializer (any graph) of a numeric type with
    ``threshold`` or more bytes goes to the companion file at the next
    multiple of ``alignment``, in walk order, a tensor object used twice
    once; its table gets ``external_data_offset`` and no ``raw_data``.
    Every other tensor that holds its bytes is written inline and loses an
    ``external_data_offset`` it was read with.
    """
    subst: dict[int, Tensor] = {}
    data = Plan()
    if external:
        for _, g in walk_graphs(model.graph):
            for t in g.initializers:
                n = t.nbytes
                if id(t) in subst or t.data_type == _STRING or n == 0 or n < threshold:
                    continue
                raw = t.raw_data
                dtype = None if raw.dtype.itemsize == 1 else raw.dtype.newbyteorder("<")
                length = raw.size * raw.dtype.itemsize
                r = data.add(length, alignment=alignment, source=raw, dtype=dtype, name=t.name)
                subst[id(t)] = dataclasses.replace(
                    t, raw_data=_NO_BYTES, external_data_offset=r.offset
                )
    for _, t in walk_tensors(model.graph):
        if id(t) not in subst and t.external_data_offset >= 0 and t.nbytes:
            subst[id(t)] = dataclasses.replace(t, external_data_offset=-1)
    return subst, data


def layout_files(
    model: OrtModel,
    resolver: KernelTypeStrResolver,
    *,
    format_version: int,
    alignment: int = 64,
    substitutes: Mapping[int, Any] | None = None,
    external_data: bool = False,
    size_threshold: int = DEFAULT_SIZE_THRESHOLD,
    reuse: MappedFile | None = None,
) -> tuple[BuildResult, Plan]:
    """The laid-out .ort of a prepared ``model`` and the plan of its external data file.

    ``resolver`` is written as the model's ``KernelTypeStrResolver``;
    ``substitutes`` (tables by ``id`` of the object they replace) are
    written instead of the model's own.  The data plan is empty without
    ``external_data``; ``reuse``: the tensors that view this mapped file keep
    their offsets in it (``save(reuse_data=True)``).  Nothing large is copied
    until the plans are executed (:func:`fill`, :func:`write_pair`).
    """
    md = model.model
    assert md is not None, "a prepared model has a graph"
    fixes: dict[int, Any] = dict(substitutes or {})
    root = {
        "ort_version": str(format_version),
        "model": md,
        "kernel_type_str_resolver": resolver,
    }
    if reuse is not None:
        moved, data = _reused_layout(model, reuse, alignment)
        tensors = _tensor_layout(model, False, size_threshold, alignment)[0] | moved
    else:
        tensors, data = _tensor_layout(model, external_data, size_threshold, alignment)
    fixes.update(tensors)
    with gc_paused():  # tens of thousands of small tables for a many-nodes model
        return _builder(alignment).build(root, substitutes=fixes), data


def fill(
    result: BuildResult,
    dest: Any,
    threads: int | None,
    progress: Progress | None,
    base: int = 0,
    grand_total: int | None = None,
) -> None:
    """Execute the .ort's plan into ``dest``, a writable buffer or (an ``int``) the open
    file it fills (:func:`~wireplan.core.executor.execute_file`: the metadata and payloads
    written from where they lie, no mapping faulted in); ``progress(done, total)`` as the
    bytes move, counted from ``base`` of ``grand_total`` (the companion file's bytes come
    first).
    """
    regions = result.plan.regions
    move = execute_file if isinstance(dest, int) else execute
    if move is execute:
        populate(dest)
    if progress is None:
        move(regions, dest, threads=threads)
        return
    size = sum(r.length for r in regions if r.source is not None)
    total = size if grand_total is None else grand_total
    progress(base, total)
    tally = Tally(progress, total, base)
    move(regions, dest, threads=threads, progress=tally)
    if tally.done != base + size:  # regions whose source is empty
        progress(base + size, total)


def to_buffer(result: BuildResult, threads: int | None = None) -> bytearray:
    """The laid-out .ort in memory: a ``bytearray`` filled by the executor."""
    out = bytearray(result.size)
    fill(result, out, threads, None)
    return out


def write_ort(
    result: BuildResult,
    path: str | os.PathLike[str],
    *,
    threads: int | None = None,
    progress: Progress | None = None,
    durable: bool = True,
    over: str | os.PathLike[str] | None = None,
) -> None:
    """Write the laid-out .ort at ``path``, pre-sized and atomically.

    ``over``: a scratch file beside ``path`` whose bytes are no longer needed
    (:func:`~wireplan.core.atomic.write_over_scratch`); a plan of one block in memory is
    written over it instead of into a new file.
    """
    regions = result.plan.regions
    if over is not None and len(regions) == 1 and regions[0].offset == 0:
        block = regions[0].source
        tally = None
        if progress is not None:
            progress(0, len(block))
            tally = Tally(progress, len(block))
        write_over_scratch(over, path, block, durable=durable, progress=tally)
        return
    write_group(
        [
            SizedFile(
                path, result.size, lambda fd: fill(result, fd, threads, progress), mapped=False
            )
        ],
        durable=durable,
    )


def write_pair(
    result: BuildResult,
    data: Plan,
    path: str | os.PathLike[str],
    *,
    threads: int | None = None,
    progress: Progress | None = None,
    durable: bool = True,
    link_from: str | None = None,
) -> None:
    """Write a planned .ort at ``path`` and its companion (``data``), all or neither.

    ``link_from``: an existing file that already holds the companion's bytes
    at the planned offsets; the companion becomes a hard link to it (a copy
    when linking fails), or is left alone when it is that file.
    """
    meta_total = sum(r.length for r in result.plan.regions if r.source is not None)
    data_total = sum(r.length for r in data.regions if r.source is not None)
    total = meta_total + data_total

    def fill_data(fd: int) -> None:
        if progress is None:
            execute_file(data, fd, threads=threads)
            return
        progress(0, total)
        execute_file(data, fd, threads=threads, progress=Tally(progress, total))

    target = companion_path(path)
    files = [SizedFile(target, data.size, fill_data, mapped=False, link_from=link_from)]
    if link_from is not None and target.exists() and os.path.samefile(link_from, target):
        files = []
    write_group(
        [
            *files,
            SizedFile(
                path,
                result.size,
                lambda fd: fill(result, fd, threads, progress, data_total, total),
                mapped=False,
            ),
        ],
        durable=durable,
    )
