"""Write .ort models: the verbs ``save``, ``encode`` (``to_bytes``) and the conversions that end in an .ort.

Each verb checks its arguments, makes an :class:`~wireplan.ort.OrtModel` of its
input (:func:`wireplan.ort.prepare.as_ort_model`), prepares it
(:func:`wireplan.ort.prepare.prepare`: expansion, float16 Casts, types, resolver)
and hands it to the encoder (:mod:`wireplan.ort.encoder`), which lays the file out
and moves the bytes.  Files are pre-sized and written atomically
(:func:`wireplan.core.atomic.write_group`): a failure leaves any previous file in
place.

The output is format version 6 (onnxruntime 1.16 on) or, with
``format_version=5``, format 5 (onnxruntime 1.13 to 1.15), both with the
``KernelTypeStrResolver`` that onnxruntime needs from version 5 on
(:mod:`wireplan.ort.kernel_types`); what the asked version cannot hold is an
:class:`~wireplan.EncodeError` before anything is written.
FlatBuffers offsets are 32-bit: a model past 2 GiB is an
:class:`~wireplan.EncodeError` before anything is written, unless
``external_data=True`` puts the large initializers in a companion file
``<name>.ort.data`` (:func:`~wireplan.ort.model.companion_path`).
"""

from __future__ import annotations

import os
from typing import Any

from wireplan.core.buffers import MappedFile
from wireplan.core.plan import Plan, check_alignment
from wireplan.errors import ArgumentError, EncodeError
from wireplan.flatbuffers.builder import MAX_ALIGNMENT, BuildResult
from wireplan.flatbuffers.relocate import relocate
from wireplan.flatbuffers.verify import Layout
from wireplan.ort import encoder, kernel_types
from wireplan.ort import onnxruntime_door as door
from wireplan.ort.encoder import DEFAULT_SIZE_THRESHOLD, Progress, check_threads, check_threshold
from wireplan.ort.formats import (
    FORMAT_VERSIONS,
    ORT_VERSION,
    check_format_version,
    unrepresentable,
)
from wireplan.ort.graph import walk_graphs
from wireplan.ort.model import OrtModel, companion_path
from wireplan.ort.prepare import as_ort_model, prepare
from wireplan.ort.reader import check_tensors, load_with_layout

__all__ = [
    "DEFAULT_SIZE_THRESHOLD",
    "FORMAT_VERSIONS",
    "ORT_VERSION",
    "check_format_version",
    "companion_path",
    "convert_onnx_to_ort",
    "convert_ort_to_ort",
    "encode",
    "layout",
    "layout_files",
    "save",
    "to_bytes",
    "unrepresentable",
]


def layout(
    model: OrtModel,
    *,
    alignment: int = 64,
    float16_casts: bool | None = None,
    format_version: int = 6,
) -> BuildResult:
    """``model`` laid out as an .ort file: the metadata packed, the payloads planned.

    Prepares the model (:func:`wireplan.ort.prepare.prepare`: the Casts, the
    types, the ``KernelTypeStrResolver``, keeping entries the model already
    carries).  Nothing large is copied until the plan is executed.  The model
    is not modified, except that a node whose ``since_version`` is 0
    (unknown) gets the version of the schema found for it.
    ``float16_casts``: see :func:`save` (what is written gets the Casts,
    not ``model``).  ``format_version``: 6 (default) or 5; what that
    version cannot hold (:func:`unrepresentable`) is an
    :class:`~wireplan.EncodeError` naming the first offending path.
    """
    return layout_files(
        model, alignment=alignment, float16_casts=float16_casts, format_version=format_version
    )[0]


def layout_files(
    model: OrtModel,
    *,
    alignment: int = 64,
    float16_casts: bool | None = None,
    format_version: int = 6,
    external_data: bool = False,
    size_threshold: int = DEFAULT_SIZE_THRESHOLD,
    reuse: MappedFile | None = None,
) -> tuple[BuildResult, Plan]:
    """:func:`layout`, and the plan of the external data file (empty without ``external_data``).

    ``reuse``: the tensors that view this mapped file keep their offsets in it
    (``save(reuse_data=True)``).
    """
    check_alignment(alignment, most=MAX_ALIGNMENT)
    check_threshold(size_threshold)
    format_version = check_format_version(format_version)
    if external_data and format_version == 5:
        raise ArgumentError(
            "format 5 has no Tensor.external_data_offset (onnxruntime added it later, without a "
            "version bump): external_data=True needs format_version=6"
        )
    ready = prepare(model, float16_casts=float16_casts, format_version=format_version)
    return encoder.layout_files(
        ready.model,
        ready.resolver,
        format_version=format_version,
        alignment=alignment,
        substitutes=ready.substitutes,
        external_data=external_data,
        size_threshold=size_threshold,
        reuse=reuse,
    )


def save(
    model: Any,
    path: str | os.PathLike[str],
    *,
    alignment: int = 64,
    threads: int | None = None,
    progress: Progress | None = None,
    durable: bool = True,
    float16_casts: bool | None = None,
    format_version: int = 6,
    external_data: bool = False,
    size_threshold: int = DEFAULT_SIZE_THRESHOLD,
    reuse_data: bool = False,
) -> None:
    """Write ``model`` as an .ort file at ``path``, atomically.

    ``model`` is an ``onnx.ModelProto``, the path of an .onnx file (inline or
    external data; the weights are memory-mapped, not loaded into Python
    objects), or an :class:`~wireplan.ort.OrtModel`.  Each non-empty
    ``Tensor.raw_data`` starts at a multiple of ``alignment`` (a power of
    two, 1..65536) from the start of the file.  ``threads`` copies the
    payloads in parallel (``None``: by size; the output is the same bytes
    either way); ``progress(done_bytes, total_bytes)`` is called on the
    calling thread as they are copied, every 8 MiB or so
    (:data:`wireplan.core.executor.CHUNK_BYTES`), the companion file's bytes
    first; the .onnx is read (parsed) before the first call.  Raises :class:`~wireplan.EncodeError` for what .ort cannot
    hold (an operator without a known schema, a file past 2 GiB) before
    anything is written.  ``durable=False`` skips the fsyncs: still atomic
    against a failed or killed process, not against power loss (see
    :mod:`wireplan.core.atomic`); the bytes are the same.

    ``external_data=True``: every initializer of ``size_threshold`` bytes or
    more (strings never) goes to :func:`companion_path` (``<name>.ort.data``
    in the same folder) at a multiple of ``alignment``, and its ``Tensor``
    table holds ``external_data_offset`` instead of ``raw_data``; the rest
    stays inline.  For models past 2 GiB.  onnxruntime cannot run such a
    file itself: :func:`wireplan.ort.session` runs it through an
    .onnx that points into the same data file.  The companion is filled a
    window at a time (:func:`wireplan.core.executor.execute_file`), so memory
    stays bounded, and both files are renamed into place together, the
    .data first (:func:`wireplan.core.atomic.write_group`).  ``reuse_data``
    (``model`` an .onnx path whose external data is one file, each tensor
    at a multiple of ``alignment``): the .ort points at the tensors where
    they are, and the companion is a hard link to that file (a copy across
    file systems) instead of a new layout; see :func:`convert_onnx_to_ort`.

    ``float16_casts`` wraps float16 nodes that have no float16 CPU kernel
    in Casts to and from float32, as onnxruntime does when it loads an
    .onnx but not an .ort (:mod:`wireplan.ort.casts`), so the .ort runs
    where the .onnx runs, with the same outputs.  ``None`` (the default):
    on when onnxruntime is installed (its kernel list decides), otherwise
    the graph is written as it is; ``False``: never; ``True``: always
    (a :class:`~wireplan.MissingExtraError` without onnxruntime).

    ``format_version``: 6 (the default; onnxruntime 1.16 and later) or 5
    (onnxruntime 1.13 to 1.15).  Format 5 has no float8 data types and no
    ``Tensor.external_data_offset``: a model using them, or
    ``external_data=True``, is an ``EncodeError`` naming the tensor or value
    (see :func:`unrepresentable`).
    """
    check_threads(threads)
    check_format_version(format_version)
    if reuse_data and not external_data:
        raise ArgumentError("reuse_data=True needs external_data=True")
    om, owned = as_ort_model(model)
    try:
        reused = _reusable_data(om) if reuse_data else None
        result, data = layout_files(
            om,
            alignment=alignment,
            float16_casts=float16_casts,
            format_version=format_version,
            external_data=external_data,
            size_threshold=size_threshold,
            reuse=reused,
        )
        if not external_data:
            encoder.write_ort(result, path, threads=threads, progress=progress, durable=durable)
            return
        encoder.write_pair(
            result,
            data,
            path,
            threads=threads,
            progress=progress,
            durable=durable,
            link_from=None if reused is None else reused.path,
        )
    finally:
        if owned:
            om.close()


def _reusable_data(om: OrtModel) -> MappedFile:
    """The one external data file of a model read from an .onnx (``reuse_data``)."""
    files = getattr(om.source, "external_files", None)
    found = files() if files is not None else {}
    if len(found) != 1:
        raise ArgumentError(
            "reuse_data=True needs an .onnx source whose external data is one file "
            f"(this one has {len(found)})"
        )
    mapped: MappedFile = next(iter(found.values()))
    return mapped


def encode(
    model: Any,
    *,
    alignment: int = 64,
    threads: int | None = None,
    float16_casts: bool | None = None,
    format_version: int = 6,
    external_data: bool = False,
    size_threshold: int = DEFAULT_SIZE_THRESHOLD,
) -> bytearray:
    """The .ort file for ``model`` in memory (a ``bytearray``); see :func:`save`.

    :func:`wireplan.ort.decode` reads it back; ``to_bytes`` is another name of this function.

    ``external_data=True`` is an :class:`~wireplan.ArgumentError`: the
    weights would go to a second file named after the .ort's path, which a
    buffer does not have (use :func:`save`).  ``size_threshold`` is checked
    only.
    """
    check_threads(threads)
    check_format_version(format_version)
    check_threshold(size_threshold)
    if external_data:
        raise ArgumentError(
            "encode cannot write external data: the weights go to a companion file "
            "named after the .ort path (save(model, path, external_data=True))"
        )
    om, owned = as_ort_model(model)
    try:
        result = layout(
            om, alignment=alignment, float16_casts=float16_casts, format_version=format_version
        )
        return encoder.to_buffer(result, threads)
    finally:
        if owned:
            om.close()


to_bytes = encode  # the name this function had first; kept for existing callers


def convert_onnx_to_ort(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    *,
    alignment: int = 64,
    threads: int | None = None,
    progress: Progress | None = None,
    durable: bool = True,
    float16_casts: bool | None = None,
    format_version: int = 6,
    external_data: bool = False,
    size_threshold: int = DEFAULT_SIZE_THRESHOLD,
    reuse_data: bool = False,
) -> None:
    """Convert the .onnx file ``src`` (inline or external data) to the .ort file ``dst``.

    Options as in :func:`save` (``durable=False``: no fsync; ``float16_casts``:
    Casts around float16 nodes without a float16 CPU kernel; ``format_version``:
    6 or 5; ``external_data``, ``size_threshold``: large initializers in
    ``<dst>.data``).  ``reuse_data=True`` (with ``external_data``): when the
    .onnx keeps its external tensors in one file, each at a multiple of
    ``alignment``, the .ort points at them where they are and
    ``<dst>.data`` becomes a hard link to that file (a copy when linking
    fails), so no weight is rewritten; tensors inline in the .onnx stay
    inline.  Otherwise an :class:`~wireplan.EncodeError` says which tensor
    is in the way (convert without ``reuse_data`` to get a new layout).
    """
    save(
        os.fspath(src),
        dst,
        alignment=alignment,
        threads=threads,
        progress=progress,
        durable=durable,
        float16_casts=float16_casts,
        format_version=format_version,
        external_data=external_data,
        size_threshold=size_threshold,
        reuse_data=reuse_data,
    )


# Format versions whose files name kernels by kernel-def hashes and carry no resolver.
_HASH_FORMATS = ("1", "2", "3", "4")


def _refuse_hashed_optimizations(model: OrtModel) -> None:
    """Runtime optimization records of formats 1-4 name kernels by kernel-def hashes only."""
    for path, graph in walk_graphs(model.graph):
        ro = graph.runtime_optimizations
        if ro is not None and ro.records:
            raise EncodeError(
                f"format {model.ort_version} saved runtime optimizations name the kernels they "
                "produce by kernel-def hashes (produced_nodes) of the release that wrote them; "
                "format 5 and later have no place for those and name operators instead, which "
                "the hashes do not tell (onnxruntime 1.13 and later ignore these records when "
                "they load an old file). Set graph.runtime_optimizations = None on the loaded "
                "model and save it, or convert the .onnx again",
                f"{path}.runtime_optimizations",
            )


def _rebuild_resolver(model: OrtModel) -> None:
    """Give a format 1-4 model the resolver its kernel-def hashes stood for, from operator schemas."""
    try:
        model.kernel_type_str_resolver = kernel_types.resolver_for(model)
    except EncodeError as exc:
        if door.available():
            hint = (
                f" (the installed onnxruntime {door.version()} does not know it, or does not "
                "export its operator schemas to Python, as 1.15 does not)"
            )
        else:
            hint = (
                " (an installed onnxruntime that exports its operator schemas to Python, "
                "such as 1.20 or later, provides those of its own domains, com.microsoft ...)"
            )
        raise EncodeError(
            f"format {model.ort_version} files carry kernel-def hashes instead of a kernel "
            "type string resolver, so it is rebuilt from operator schemas, and this one "
            f"cannot be: {exc.reason}{hint}",
            exc.path,
        ) from None


# A re-planned .ort up to this size is assembled in memory (relocate's block) and written
# over the scratch file it came from; larger ones go to a new file, their payloads copied
# by the kernel.  With a clean page cache, a fixed-style convert: 11 MB 44.8 against
# 48.2 ms (over the scratch file against a new one), 69 MB 229.6 against 214.6 ms.
_OVER_SCRATCH_BYTES = 16 << 20


def convert_ort_to_ort(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    *,
    format_version: int = 6,
    alignment: int = 64,
    threads: int | None = None,
    progress: Progress | None = None,
    durable: bool = True,
    float16_casts: bool | None = False,
    external_data: bool = False,
    size_threshold: int = DEFAULT_SIZE_THRESHOLD,
    _scratch: bool = False,
) -> None:
    """Re-write the .ort file ``src`` as format ``format_version`` (6 or 5) at ``dst``.

    Moves a model between onnxruntime releases without onnxruntime: every
    table is carried over as read (payloads copied straight from the
    mapping), the ``KernelTypeStrResolver`` entries of the source are kept,
    and what the target format cannot hold is an
    :class:`~wireplan.EncodeError` naming it (:func:`unrepresentable`).
    Formats 1 to 4 (onnxruntime 1.5 to 1.12) have no resolver: their
    deprecated session state names kernels by kernel-def hashes, which are
    dropped and replaced by a resolver computed from operator schemas
    (onnx for the ONNX domains, onnxruntime for its own when installed),
    as onnxruntime's full builds do when they load such a file; an operator
    no schema source knows, and saved runtime optimizations (recorded with
    kernel-def hashes only), are refused.  ``float16_casts`` is off by
    default: the source already holds the graph as its runtime executes it.
    A source with external data reads its companion file; ``external_data``
    decides whether ``dst`` has one.  Other options as in :func:`save`.

    ``_scratch`` is :mod:`wireplan.ort.optimize`'s: ``src`` is a scratch file beside
    ``dst`` that onnxruntime has just written (:func:`wireplan.core.atomic.scratch_beside`).
    Its tensors are not checked again (onnxruntime's session refuses a payload that
    disagrees with its shape before it saves; the FlatBuffer is verified all the same),
    and a result up to 16 MiB is written over it
    (:func:`wireplan.core.atomic.write_over_scratch`).
    """
    format_version = check_format_version(format_version)
    check_alignment(alignment, most=MAX_ALIGNMENT)
    check_threads(threads)
    layout = Layout(("Tensor", "raw_data"))
    with load_with_layout(src, layout) as om:
        if not _scratch:
            check_tensors(om)  # a DecodeError at the byte of the bad field, not an EncodeError
        same_form = om.ort_version == str(format_version) and not (external_data or float16_casts)
        if same_form and isinstance(om.source, MappedFile):
            # every table as it is, only the payloads moved: no table is rebuilt; from a
            # scratch file, up to _OVER_SCRATCH_BYTES all in the one block (read whole
            # before a byte of src is written over; the mapping stays, unread)
            over = _scratch and om.source.size <= _OVER_SCRATCH_BYTES
            limit = _OVER_SCRATCH_BYTES if over else None
            result = relocate(
                om.source.buffer, layout, alignment, small_vector=limit, block_limit=limit
            )
            if result is not None:
                encoder.write_ort(
                    result, dst, threads=threads, progress=progress, durable=durable,
                    over=src if over else None,
                )  # fmt: skip
                return
        if om.ort_version in _HASH_FORMATS:
            _refuse_hashed_optimizations(om)
            if om.kernel_type_str_resolver is None:
                _rebuild_resolver(om)
        save(
            om,
            dst,
            alignment=alignment,
            threads=threads,
            progress=progress,
            durable=durable,
            float16_casts=float16_casts,
            format_version=format_version,
            external_data=external_data,
            size_threshold=size_threshold,
        )
