"""Prepare a model for the encoder: expand, cast, type, resolve; each step a pass of its own.

What onnxruntime does when it loads an .onnx and not when it loads an .ort,
done here once so that the .ort runs where the .onnx runs:

1. :func:`as_ort_model`: an .onnx becomes an :class:`~wireplan.ort.OrtModel`, with
   the function operators no kernel matches expanded into their bodies
   (:func:`wireplan.ort.kernels.needs_expansion`);
2. :func:`prepare`: what the format cannot hold is refused
   (:mod:`wireplan.ort.formats`), float16 nodes without a float16 kernel get Casts
   (:mod:`wireplan.ort.casts`), untyped values get types
   (:mod:`wireplan.ort.value_types`), and the ``KernelTypeStrResolver`` is computed
   (:mod:`wireplan.ort.kernel_types`).

The result, a :class:`Prepared`, is what :func:`wireplan.ort.encoder.layout_files` lays out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from wireplan.errors import ArgumentError, EncodeError
from wireplan.ort import casts, formats, kernel_types
from wireplan.ort.kernels import needs_expansion
from wireplan.ort.model import Graph, KernelTypeStrResolver, OrtModel
from wireplan.ort.value_types import typed_graphs

__all__ = ["Prepared", "as_ort_model", "prepare"]


@dataclass(frozen=True, slots=True)
class Prepared:
    """A model ready for the encoder: what to write, the resolver, the substituted graphs."""

    #: The model to write (with the Casts when there are any; otherwise the model given).
    model: OrtModel
    #: Its ``KernelTypeStrResolver`` (entries the model carried are kept).
    resolver: KernelTypeStrResolver
    #: Graphs with filled-in value types, by ``id`` of the graph each replaces.
    substitutes: dict[int, Graph]


def as_ort_model(model: Any) -> tuple[OrtModel, bool]:
    """The :class:`OrtModel` the writer starts from, and whether it was made here.

    ``model`` is an ``OrtModel`` (returned as it is, ``False``), an
    ``onnx.ModelProto`` or an .onnx path (converted by ``from_onnx`` with
    the function-op expansion the installed onnxruntime needs, ``True``:
    the caller closes it).  The float16 Casts come later, in :func:`prepare`.
    """
    if isinstance(model, OrtModel):
        return model, False
    if not isinstance(model, (str, os.PathLike)) and not hasattr(model, "opset_import"):
        raise ArgumentError(
            "expected an onnx.ModelProto, the path of an .onnx file or an OrtModel, "
            f"not {type(model).__name__}"
        )
    from wireplan.ort.onnx.read import from_onnx  # needs onnx, an optional dependency

    # onnxruntime inlines function ops no kernel matches (version, types) for .onnx only.
    return from_onnx(model, signature=kernel_types.signature, expand=needs_expansion), True


def prepare(model: OrtModel, *, float16_casts: bool | None, format_version: int) -> Prepared:
    """``model`` made ready for format ``format_version`` (checked by the caller).

    Refuses what the format cannot hold (:func:`wireplan.ort.formats.unrepresentable`,
    nesting) with an :class:`~wireplan.EncodeError` naming the first offending path,
    then runs the passes.  The model is not modified, except that a node whose
    ``since_version`` is 0 (unknown) gets the version of the schema found for it.
    ``float16_casts``: see :func:`wireplan.ort.save` (what is written gets the
    Casts, not ``model``).
    """
    formats.refuse_too_deep(model)
    formats.refuse_unrepresentable(model, format_version)
    if casts.wanted(float16_casts):
        model = casts.insert_casts(model)
    md = model.model
    if md is None or md.graph is None:
        raise EncodeError("the model has no graph", "$.model.graph")
    resolver = kernel_types.resolver_for(model)
    return Prepared(model, resolver, typed_graphs(md.graph, format_version))
