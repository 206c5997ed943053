"""The onnx door: the one package that imports ``onnx``: .ort <-> ONNX conversion and schemas.

:func:`to_onnx` turns an :class:`~wireplan.ort.model.OrtModel` into an
``onnx.ModelProto`` carrying everything the .ort holds that ONNX can say:
node order, node names, domains, attributes (subgraphs included),
initializers (numeric, string, sparse), value infos with types and shapes
(``dim_value``, ``dim_param``, denotations), opset imports, metadata props
and doc strings.  What ONNX has no place for is left out: the node
``index``, ``execution_provider_type``, ``since_version`` (implied by the
opset imports), ``implicit_inputs``, ``input_arg_counts`` and the node
edges (implied by the names), the kernel type string resolver and runtime
optimization records.  An .ort graph has no name, so graphs are named
``main_graph`` and ``<node>_<attribute>`` for subgraphs.

:func:`from_onnx` goes the other way and fills in what an .ort needs and
ONNX leaves implicit: Constant nodes become initializers (as onnxruntime
does), node indices, ``since_version``, ``input_arg_counts``,
``implicit_inputs`` (always present), node edges and a ``node_args`` entry
with the (inferred) type of every value.  Weights are not copied: inline
``raw_data`` is viewed in place, external data files are memory-mapped.

:func:`convert_ort_to_onnx` writes the .onnx atomically, optionally with the
payloads in one external data file at aligned offsets (for models past
protobuf's 2 GiB limit).

One concern a module: :mod:`~wireplan.ort.onnx.schemas` (operator schemas, opsets),
:mod:`~wireplan.ort.onnx.to_proto` and :mod:`~wireplan.ort.onnx.from_proto` (the two
walkers), :mod:`~wireplan.ort.onnx.expand` (function bodies), :mod:`~wireplan.ort.onnx.save`
(writing an .onnx, external data), :mod:`~wireplan.ort.onnx.read` (reading an .onnx),
:mod:`~wireplan.ort.onnx.facts` (``inspect``), :mod:`~wireplan.ort.onnx.example`.
"""

from __future__ import annotations

from wireplan.core.extras import door

with door("wireplan.ort's .onnx support", "onnx", "onnx"):
    import onnx
    import onnx.defs
    import onnx.helper
    import onnx.inliner
    import onnx.numpy_helper
    import onnx.shape_inference  # noqa: F401

from wireplan.ort.onnx.example import example_model
from wireplan.ort.onnx.facts import onnx_facts
from wireplan.ort.onnx.read import from_onnx, read_onnx
from wireplan.ort.onnx.save import convert_ort_to_onnx
from wireplan.ort.onnx.schemas import onnx_op_signature
from wireplan.ort.onnx.to_proto import to_onnx

__all__ = [
    "convert_ort_to_onnx",
    "example_model",
    "from_onnx",
    "onnx_facts",
    "onnx_op_signature",
    "read_onnx",
    "to_onnx",
]
