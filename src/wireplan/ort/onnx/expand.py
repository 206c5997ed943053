"""Function-body expansion: nodes onnxruntime would inline replaced by their ONNX bodies."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import onnx
import onnx.defs
import onnx.helper
import onnx.inliner

from wireplan.errors import EncodeError
from wireplan.ort import model as m
from wireplan.ort.dtypes import tensor_type_string, wrapped_type_string
from wireplan.ort.onnx.from_proto import _FromOnnx, _Sources
from wireplan.ort.onnx.infer import inferred_types
from wireplan.ort.onnx.schemas import _opsets
from wireplan.ort.signatures import ONNX_DOMAINS, Signature, SignatureLookup, normal_domain

__all__ = [
    "ExpandCheck",
    "NodeFacts",
]


# The operators of the ONNX domain whose attributes hold graphs (If, Loop, Scan, SequenceMap);
# the nodes of other ONNX operators are not searched for subgraphs.
_GRAPH_HOLDERS = frozenset({"If", "Loop", "Scan", "SequenceMap"})


def _all_nodes(g: onnx.GraphProto) -> Iterator[onnx.NodeProto]:
    """The nodes of ``g`` and of the graphs inside it, each before those it holds."""
    holders = _GRAPH_HOLDERS
    for nd in g.node:
        yield nd
        if nd.op_type not in holders and nd.domain in ONNX_DOMAINS:
            continue
        for a in nd.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                yield from _all_nodes(a.g)
            for sg in a.graphs:
                yield from _all_nodes(sg)


#: ``expand(domain, op_type, since_version, binding, node) -> bool``, asked for each node that
#: has a function body (as :func:`wireplan.ort.kernels.needs_expansion`); ``node()`` gives, on
#: demand, the node's attributes as :class:`wireplan.ort.model.Attribute` objects and its
#: numbers of inputs and outputs.
NodeFacts = Callable[[], tuple[list[m.Attribute], int, int]]
ExpandCheck = Callable[[str, str, int, Mapping[str, str], NodeFacts], bool]

# The private domain of the model-local functions expansion makes (inlined at once, never left).
_EXPAND_DOMAIN = "wireplan.expand"


def _as_type(t: onnx.TypeProto | onnx.TensorProto | None) -> onnx.TypeProto:
    """A value's type (an empty TypeProto when unknown); an initializer's from its tensor."""
    if isinstance(t, onnx.TensorProto):
        return onnx.helper.make_tensor_type_proto(t.data_type, list(t.dims))
    return t if t is not None else onnx.TypeProto()


def _type_string(t: onnx.TypeProto) -> str | None:
    """A type as onnxruntime spells it in kernel constraints (``"tensor(float16)"``), or None."""
    kind = t.WhichOneof("value")
    if kind == "tensor_type":
        return tensor_type_string(t.tensor_type.elem_type)
    if kind == "sequence_type":
        return wrapped_type_string("seq", _type_string(t.sequence_type.elem_type))
    if kind == "optional_type":
        return wrapped_type_string("optional", _type_string(t.optional_type.elem_type))
    return None


def _binding(
    nd: onnx.NodeProto, sig: Signature, types: Mapping[str, onnx.TypeProto | onnx.TensorProto]
) -> dict[str, str]:
    """Kernel type string -> type of the first present argument bound to it whose type is known.

    Keys as in onnxruntime's kernel type string resolver: the formal's
    ``type_str`` when it is a type parameter of the schema, otherwise the
    formal's name.  Only the last formal can be variadic in ONNX.
    """
    _, formal_in, formal_out, params = sig
    bound: dict[str, str] = {}
    for actual, formal in ((nd.input, formal_in), (nd.output, formal_out)):
        if not formal:
            continue
        for i, name in enumerate(actual):
            fname, type_str = formal[min(i, len(formal) - 1)]
            key = type_str if type_str in params else fname
            if not name or key in bound or name not in types:
                continue
            spelled = _type_string(_as_type(types[name]))
            if spelled is not None:
                bound[key] = spelled
    return bound


def _function_body(
    schema: Any,  # onnx.defs.OpSchema; onnx's type stubs lack its function members
    opset: int,
    nd: onnx.NodeProto,
    types: Mapping[str, onnx.TypeProto | onnx.TensorProto],
) -> onnx.FunctionProto | None:
    """The function body of ``nd`` at the model's ``opset``, None when the schema has none.

    A context-dependent body is built for this node (its attributes and the
    types of its inputs; an absent or untyped input gets an empty type), as
    onnxruntime builds it; a builder that refuses means no body, as there.
    """
    raw: bytes = b""
    try:
        if schema.has_context_dependent_function:
            # The builder of the newest version up to the model's opset (onnx's Python
            # binding only takes a version that has a builder of its own).
            version = max(
                (v for v in schema.context_dependent_function_opset_versions if v <= opset),
                default=None,
            )
            if version is not None:
                raw = schema.get_context_dependent_function_with_opset_version(
                    version,
                    nd.SerializeToString(),
                    [_as_type(types.get(x) if x else None).SerializeToString() for x in nd.input],
                )
        elif schema.has_function:
            raw = schema.get_function_with_opset_version(opset)
    except Exception:  # onnx raises its own types when a builder refuses the node
        return None
    if not raw:
        return None
    body = onnx.FunctionProto()
    body.ParseFromString(raw)
    if not len(body.node):
        return None
    # The body's operators resolve at the model's opset of the schema's domain, as
    # onnxruntime resolves them once inlined.
    for o in body.opset_import:
        if o.domain == schema.domain or {o.domain, schema.domain} <= set(ONNX_DOMAINS):
            o.version = opset
    return body


def _expand_function_ops(
    proto: onnx.ModelProto,
    lookup: SignatureLookup,
    expand: ExpandCheck,
) -> tuple[onnx.ModelProto, dict[str, onnx.TypeProto | onnx.TensorProto] | None]:
    """Replace the nodes ``expand`` selects by their function bodies, as onnxruntime does.

    Every node (subgraphs included) of an operator whose schema has a
    function body is asked about, with the type binding of its arguments
    (from onnx shape inference): onnxruntime inlines a node that no kernel
    matches by version and types, so a float16 Softmax-13 is expanded while
    a float32 one is kept.  Bodies are taken at the model's opset (built
    for the node when context-dependent) and inlined by onnx's inliner as
    model-local functions, so only the selected nodes change.  Repeated
    while the inlined bodies hold such nodes in turn.  ``proto`` is not
    modified; it is returned as it is when nothing is expanded.  Also
    returns the inferred types of the returned model when they were
    computed (:func:`~wireplan.ort.onnx.infer.inferred_types`), else None.
    """
    schemas: dict[tuple[str, str, int], Any] = {}  # onnx.defs.OpSchema with a body, or None
    answers: dict[tuple[str, str, int, tuple[tuple[str, str], ...]], bool] = {}

    def schema_of(domain: str, op_type: str, opset: int) -> Any:
        key = (domain, op_type, opset)
        if key not in schemas:
            found: Any
            try:
                found = onnx.defs.get_schema(op_type, opset, domain)
            except onnx.defs.SchemaError:
                found = None
            has_body = found is not None and (
                found.has_function or found.has_context_dependent_function
            )
            schemas[key] = found if has_body else None
        return schemas[key]

    for _ in range(32):  # bodies may hold nodes that need expanding in turn
        opsets = _opsets(proto)  # bodies may import more
        candidates = []
        nodes = list(_all_nodes(proto.graph))
        for k, nd in enumerate(nodes):
            domain = normal_domain(nd.domain)
            opset = opsets.get(domain)
            if opset is None or domain == _EXPAND_DOMAIN:
                continue
            schema = schema_of(domain, nd.op_type, opset)
            if schema is not None:
                candidates.append((k, domain, opset, schema))
        if not candidates:
            return proto, None
        types = inferred_types(proto)
        chosen: dict[int, onnx.FunctionProto] = {}
        shared: dict[tuple[str, str, int], onnx.FunctionProto | None] = {}
        for k, domain, opset, schema in candidates:
            nd = nodes[k]
            sig = lookup(domain, nd.op_type, opset)
            if sig is None:
                continue
            binding = _binding(nd, sig, types)
            key = (domain, nd.op_type, sig[0], tuple(sorted(binding.items())))
            if key not in answers:
                answers[key] = expand(
                    domain, nd.op_type, sig[0], binding, _node_facts(nd, lookup, opsets, types)
                )
            if not answers[key]:
                continue
            if schema.has_context_dependent_function:
                body = _function_body(schema, opset, nd, types)
            else:
                skey = (domain, nd.op_type, opset)
                if skey not in shared:
                    shared[skey] = _function_body(schema, opset, nd, types)
                body = shared[skey]
            if body is not None:
                chosen[k] = body
        if not chosen:
            return proto, types
        proto = _inline_nodes(proto, chosen)
    return proto, None


def _node_facts(
    nd: onnx.NodeProto,
    lookup: SignatureLookup,
    opsets: dict[str, int],
    types: dict[str, onnx.TypeProto | onnx.TensorProto],
) -> NodeFacts:
    """``nd``'s attributes as .ort objects (subgraphs too) and arity, converted when asked for.

    Only a kernel probe needs them (onnxruntime releases that do not export
    their kernel definitions); tensors with external data cannot be
    converted here and raise :class:`~wireplan.EncodeError`.
    """

    def convert() -> tuple[list[m.Attribute], int, int]:
        conv = _FromOnnx(_Sources(None), lookup, opsets)
        conv.inferred = types
        free: list[str] = []
        attributes = [
            conv.attribute(a, f"$.attributes[{i}]", free) for i, a in enumerate(nd.attribute)
        ]
        return attributes, len(nd.input), len(nd.output)

    return convert


def _inline_nodes(
    proto: onnx.ModelProto, bodies: Mapping[int, onnx.FunctionProto]
) -> onnx.ModelProto:
    """A copy of ``proto`` with node ``k`` (in :func:`_all_nodes` order) replaced by ``bodies[k]``.

    Each chosen node becomes the call of a model-local function of a
    private domain holding its body (one function per distinct body), and
    onnx's inliner expands the calls: formal parameters are bound to the
    node's arguments (absent optional inputs included), attribute
    references resolved, inner names made unique.  The inliner never sees the weights: the
    copy it gets has no initializers, and the main graph's Constant nodes stand there without
    their values; both are put back afterwards.
    """
    out = onnx.ModelProto()
    out.CopyFrom(proto)
    del out.graph.initializer[:]
    # output -> the Constant node as it was (ONNX's Constant holds no graph: stripping it
    # keeps the node order the chosen indices count in)
    held: dict[str, onnx.NodeProto] = {}
    for nd, original in zip(out.graph.node, proto.graph.node, strict=True):
        if (
            nd.op_type == "Constant"
            and nd.domain in ONNX_DOMAINS
            and len(nd.output) == 1
            and nd.output[0]
        ):
            held[nd.output[0]] = original
            del nd.attribute[:]
    names: dict[int, str] = {}  # id of a body -> its function name
    functions: list[onnx.FunctionProto] = []
    for k, nd in enumerate(_all_nodes(out.graph)):
        body = bodies.get(k)
        if body is None:
            continue
        if id(body) not in names:
            names[id(body)] = f"{body.name or nd.op_type}_{len(functions)}"
            f = onnx.FunctionProto()
            f.CopyFrom(body)
            f.name = names[id(body)]
            f.domain = _EXPAND_DOMAIN
            functions.append(f)
        nd.domain = _EXPAND_DOMAIN
        nd.op_type = names[id(body)]
    out.functions.extend(functions)
    out.opset_import.append(onnx.helper.make_opsetid(_EXPAND_DOMAIN, 1))
    try:
        out = onnx.inliner.inline_local_functions(out)
    except Exception as exc:
        ops = sorted({f.name.rsplit("_", 1)[0] for f in functions})
        raise EncodeError(f"expanding {ops} into their function bodies failed: {exc}") from None
    if len(out.functions) or any(nd.domain == _EXPAND_DOMAIN for nd in _all_nodes(out.graph)):
        raise EncodeError("function bodies remain after expansion", "$.graph")
    kept = [o for o in out.opset_import if o.domain != _EXPAND_DOMAIN]
    del out.opset_import[:]
    out.opset_import.extend(kept)
    for nd in out.graph.node:
        if nd.op_type == "Constant" and not len(nd.attribute) and len(nd.output) == 1:
            original = held.pop(nd.output[0], None)
            if original is not None:
                nd.CopyFrom(original)
    if held:
        raise EncodeError(f"expansion lost Constant nodes: {sorted(held)[:3]}", "$.graph")
    out.graph.initializer.extend(proto.graph.initializer)
    return out
