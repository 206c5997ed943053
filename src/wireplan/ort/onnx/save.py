"""Writing an .onnx file from an .ort (:func:`convert_ort_to_onnx`): external data, streaming."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from wireplan.core.atomic import SizedFile, atomic_open, write_bytes, write_group
from wireplan.core.buffers import drop_pages
from wireplan.core.executor import CHUNK_BYTES, execute_file
from wireplan.core.plan import Plan, check_alignment
from wireplan.core.progress import Tally
from wireplan.errors import EncodeError
from wireplan.ort import model as m
from wireplan.ort.onnx.schemas import _PROTOBUF_LIMIT
from wireplan.ort.onnx.to_proto import _ToOnnx, to_onnx
from wireplan.ort.protowire import varint
from wireplan.ort.reader import companion_file, load
from wireplan.ort.schema import TENSOR_DATA_TYPE

__all__ = [
    "convert_ort_to_onnx",
]

_STRING = TENSOR_DATA_TYPE["STRING"]


def _companion_file(model: m.OrtModel) -> str | None:
    """The path of the mapped companion file of a loaded .ort with external tensors."""
    mf = companion_file(model)
    return mf.path if mf is not None else None


def _external_plan(
    model: m.OrtModel, location: str, alignment: int, threshold: int
) -> tuple[Plan, dict[int, list[tuple[str, str]]]]:
    plan = Plan()
    entries: dict[int, list[tuple[str, str]]] = {}
    for t in model.tensors():
        n = t.nbytes
        if t.data_type == _STRING or n < threshold or id(t) in entries:
            continue
        r = plan.add(n, alignment=alignment, source=t.raw_data, name=t.name)
        entries[id(t)] = [("location", location), ("offset", str(r.offset)), ("length", str(n))]
    return plan, entries


def _write_sequential(
    plan: Plan, path: Path, progress: Callable[[int, int], None] | None, durable: bool = True
) -> None:
    """Write the plan's regions in order with plain writes (zeros between them), atomically.

    For a file in the page cache this beats filling a fresh shared mapping
    (no page faults on the destination); the threaded path uses the executor.
    ``progress(done, plan.size)`` after every write of up to ``CHUNK_BYTES``.
    """
    pad = bytes(65536)
    with atomic_open(path, durable=durable) as f:
        pos = 0
        for r in plan:
            while pos < r.offset:
                n = min(len(pad), r.offset - pos)
                f.write(pad[:n])
                pos += n
            for part in _parts(r.source):
                f.write(part)
                pos += len(part)
                if progress is not None:
                    progress(pos, plan.size)
        if pos < plan.size:
            f.write(bytes(plan.size - pos))


def _parts(source: Any) -> Iterator[memoryview]:
    """The bytes of a payload in slices of ``CHUNK_BYTES``, as they are written.

    A slice of a file mapping gives its pages back once written
    (:func:`~wireplan.core.buffers.drop_pages`): a plain write of a whole payload from
    the .ort's mapping would leave every page of it resident in the process.
    """
    if isinstance(source, np.ndarray):  # a view of the mapping: its slices know it
        flat = source.reshape(-1).view(np.uint8)
        for i in range(0, flat.shape[0], CHUNK_BYTES):
            piece = flat[i : i + CHUNK_BYTES]
            yield piece.data
            drop_pages(piece)
        return
    data = memoryview(source).cast("B")
    for i in range(0, len(data), CHUNK_BYTES):
        yield data[i : i + CHUNK_BYTES]


def _no_fill(_: Any) -> None:
    """Nothing to write: the file is linked, not filled."""


def _check_size(size: int) -> None:
    if size > _PROTOBUF_LIMIT:
        raise EncodeError(
            f"the model needs {size} bytes, past protobuf's 2 GiB limit: "
            "convert with external_data=True (--external-data)"
        )


# Protobuf keys (field number << 3 | wire type 2) of the fields the streamed pieces use.
_MODEL_GRAPH = varint(7 << 3 | 2)
_GRAPH_INITIALIZER = varint(5 << 3 | 2)
_TENSOR_RAW_DATA = varint(9 << 3 | 2)


def _stream_pieces(
    om: m.OrtModel, conv: _ToOnnx
) -> tuple[bytes, list[tuple[bytes, np.ndarray[Any, Any] | None]]]:
    """The model without its main-graph initializers, and one piece per initializer.

    A piece is a serialized ``ModelProto`` holding only ``graph.initializer[0]``: protobuf
    merges a repeated singular message field and appends repeated fields, so the
    concatenation parses as the whole model, initializers in order.  Each piece is its
    header bytes followed by the raw payload, which is written from the .ort mapping.
    """
    skeleton = conv.model(om).SerializeToString()
    pieces: list[tuple[bytes, np.ndarray[Any, Any] | None]] = []
    for i, t in enumerate(om.graph.initializers):
        path = f"$.model.graph.initializers[{i}]"
        numeric = t.data_type != _STRING
        head = conv.tensor(t, path, data=not numeric).SerializeToString()
        if numeric:
            n = t.nbytes
            head += _TENSOR_RAW_DATA + varint(n)
            tensor_len = len(head) + n
        else:
            tensor_len = len(head)
        graph_piece = _GRAPH_INITIALIZER + varint(tensor_len)
        graph_len = len(graph_piece) + tensor_len
        prefix = _MODEL_GRAPH + varint(graph_len) + graph_piece + head
        pieces.append((prefix, t.raw_data if numeric else None))
    return skeleton, pieces


def convert_ort_to_onnx(
    src: str | os.PathLike[str] | m.OrtModel,
    dst: str | os.PathLike[str],
    *,
    external_data: bool = False,
    alignment: int = 4096,
    size_threshold: int = 1024,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    durable: bool = True,
) -> None:
    """Convert an .ort file (or a loaded model) to an .onnx file at ``dst``, atomically.

    An .ort with external data (its companion file) and
    ``external_data=True``: ``<dst name>.data`` becomes a hard link to the
    companion (a copy across file systems), and the .onnx's external-data
    entries point at the same offsets; tensors inline in the .ort stay
    inline.  No weight is rewritten.

    Otherwise, with ``external_data=True`` every payload of ``size_threshold`` bytes
    or more goes to ``<dst name>.data`` beside ``dst``, each at an offset
    that is a multiple of ``alignment``; the payloads go from the .ort
    mapping straight into that file and never become Python bytes (plain
    sequential writes; with ``threads > 1`` the executor fills a mapping of
    the file in parallel, byte-identical).
    Without it the whole model must fit protobuf's 2 GiB limit; the
    message is then streamed: the model without its main-graph initializers
    first, then each initializer as its own ``ModelProto`` piece (protobuf
    merges them into one model on parsing) whose payload is written straight
    from the mapping, so no payload is copied into a Python object.
    ``progress(done_bytes, total_bytes)`` is called on this thread as the
    payloads are written, about every ``CHUNK_BYTES`` (8 MiB); a linked
    companion moves no bytes (``total`` is then the .onnx's size).
    Both files are written atomically (temporary file, fsync, rename);
    ``durable=False`` skips the fsyncs (atomic against a failed process, not
    against power loss: :mod:`wireplan.core.atomic`).
    """
    check_alignment(alignment)
    own = not isinstance(src, m.OrtModel)
    om = load(src) if not isinstance(src, m.OrtModel) else src
    try:
        dst_path = Path(dst)
        reused = _companion_file(om) if external_data else None
        if reused is not None:
            location = m.companion_path(dst_path).name
            proto = to_onnx(om, companion=location)
            _check_size(proto.ByteSize())
            data = proto.SerializeToString()
            total = len(data)  # the weights stay where they are: a link, no bytes move
            if progress is not None:
                progress(0, total)
            data_path = dst_path.with_name(location)
            files = [SizedFile(data_path, 0, _no_fill, mapped=False, link_from=reused)]
            if data_path.exists() and os.path.samefile(reused, data_path):
                files = []

            def fill(buf: Any) -> None:
                buf[: len(data)] = data

            write_group([*files, SizedFile(dst_path, len(data), fill)], durable=durable)
        elif external_data:
            location = m.companion_path(dst_path).name
            plan, entries = _external_plan(om, location, alignment, size_threshold)
            total = plan.size
            if progress is not None:
                progress(0, total)
            proto = _ToOnnx(lambda t: entries.get(id(t))).model(om)
            _check_size(proto.ByteSize())
            data_path = dst_path.with_name(location)
            if threads is not None and threads > 1:
                tally = None if progress is None else Tally(progress, total)

                def fill_data(fd: int) -> None:
                    execute_file(plan, fd, threads=threads, progress=tally)

                write_group(
                    [SizedFile(data_path, plan.size, fill_data, mapped=False)], durable=durable
                )
            else:
                _write_sequential(plan, data_path, progress, durable)
            write_bytes(dst_path, proto.SerializeToString(), durable=durable)
        else:
            skeleton, pieces = _stream_pieces(om, _ToOnnx(None, streamed=True))
            total = sum(0 if d is None else d.shape[0] for _, d in pieces)
            _check_size(len(skeleton) + sum(len(h) for h, _ in pieces) + total)
            if progress is not None:
                progress(0, total)
            done = 0
            with atomic_open(dst_path, durable=durable) as f:
                f.write(skeleton)
                for head, payload in pieces:
                    f.write(head)
                    if payload is None:
                        continue
                    for part in _parts(payload):
                        f.write(part)
                        done += len(part)
                        if progress is not None:
                            progress(done, total)
        if progress is not None:
            progress(total, total)
    finally:
        if own:
            om.close()
