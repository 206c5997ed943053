"""Sessions: an ``onnxruntime.InferenceSession`` for an .ort file, its weights left in place.

:func:`session` opens an .ort from its path with the options that keep the
weights in the file's memory mapping (no copy of the initializers), and runs an
.ort with external data through an equivalent .onnx (:func:`external_onnx`),
since onnxruntime's inference loader cannot read ``Tensor.external_data_offset``.
onnxruntime itself is asked through its door, :mod:`wireplan.ort.onnxruntime_door`.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from typing import Any

from wireplan.errors import FileError
from wireplan.ort import onnxruntime_door as door
from wireplan.ort.model import companion_path
from wireplan.ort.reader import external_offsets, load

__all__ = ["external_onnx", "session"]


def session(
    path: str | os.PathLike[str],
    *,
    providers: list[str] | None = None,
    config: Mapping[str, str] | None = None,
    zero_copy: bool = True,
    custom_op_library: str | os.PathLike[str] | None = None,
    **options: Any,
) -> Any:
    """An ``onnxruntime.InferenceSession`` for the .ort (or .onnx) file at ``path``.

    With ``zero_copy`` (the default) the .ort is memory-mapped
    (``session.use_memory_mapped_ort_model``) and its initializers are used
    in place (``session.use_ort_model_bytes_for_initializers``): the mapping
    must stay valid, which onnxruntime ensures for as long as the session
    lives.  ``config`` adds session config entries; other keyword
    arguments set attributes of ``onnxruntime.SessionOptions``
    (``graph_optimization_level=...``, ``intra_op_num_threads=...``).
    ``providers`` defaults to the CPU provider; ``custom_op_library`` registers a
    library of custom operators first (as :func:`~wireplan.ort.convert` takes one).
    An option onnxruntime does
    not have is an :class:`~wireplan.ArgumentError`; onnxruntime refusing the
    model, a :class:`~wireplan.PeerError`.

    An .ort with external data (``save(..., external_data=True)``) cannot be
    loaded by onnxruntime, whose inference loader has no reader for
    ``Tensor.external_data_offset`` (only training checkpoints have one).
    It is run through an equivalent .onnx instead (:func:`external_onnx`):
    the same graph, the small initializers inline and the large ones as
    ONNX external data pointing at their offsets in the same companion
    file, which onnxruntime maps; no weight is copied or rewritten.  That
    .onnx is a temporary file beside the model (the folder must be
    writable), removed once the session exists.  Only an .ort that has a
    companion file beside it is read here first.
    """
    door.require()
    if custom_op_library is not None:
        options["custom_op_library"] = custom_op_library
    if os.fspath(path).lower().endswith(".ort") and companion_path(path).is_file():
        proto = external_onnx(path)
        if proto is not None:
            return _session_via_onnx(path, proto, providers, config, options)
    return door.open_session(
        path, providers=providers, config=config, zero_copy=zero_copy, **options
    )


def external_onnx(path: str | os.PathLike[str]) -> Any:
    """For an .ort with external data, the equivalent ``onnx.ModelProto`` (else ``None``).

    Its large initializers are ONNX external data (``location`` = the
    companion's file name, ``offset``, ``length``) at the offsets the .ort
    gives, so an .onnx saved beside the .ort runs on the same data file.
    """
    with load(path) as om:
        if not external_offsets(om):
            return None
        from wireplan.ort.onnx.to_proto import to_onnx  # needs onnx, an optional dependency

        return to_onnx(om, companion=companion_path(path).name)


def _session_via_onnx(
    path: str | os.PathLike[str],
    proto: Any,
    providers: list[str] | None,
    config: Mapping[str, str] | None,
    options: Mapping[str, Any],
) -> Any:
    """A session for ``proto`` saved as a temporary .onnx beside the .ort at ``path``."""
    folder, name = os.path.split(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".onnx", dir=folder)
    except OSError as exc:
        raise FileError(
            f"{os.fspath(path)!r} keeps its weights in external data, which onnxruntime reads "
            f"only from an .onnx beside it, and {folder!r} is not writable: {exc}",
            folder,
            exc.errno,
        ) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(proto.SerializeToString())
        return door.open_session(
            tmp, providers=providers, config=config, zero_copy=False, **options
        )
    finally:
        os.unlink(tmp)
