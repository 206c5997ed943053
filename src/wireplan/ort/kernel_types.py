"""The ``KernelTypeStrResolver`` of an .ort model, computed from operator schemas.

From format version 5 on, an .ort file carries, for every operator it uses
(subgraphs included), which inputs and outputs each kernel type string
binds: a minimal onnxruntime build has no operator schemas and finds its
kernels through this table.  One entry per op id
``"<domain>:<op_type>:<since_version>"`` (empty domain for ONNX); for each
formal input and output of that schema version, in formal order, the key
is its ``type_str`` when that is one of the schema's type-constraint
parameters and otherwise the formal parameter's name (Reshape-14:
``T -> [(INPUT, 0), (OUTPUT, 0)]``, ``shape -> [(INPUT, 1)]``); the value
lists ``(arg_type, formal index)``.

Schemas come from ``onnx.defs`` for the ONNX domains
(:func:`wireplan.ort.onnx.schemas.onnx_op_signature`), from onnxruntime for
its own domains such as ``com.microsoft`` when it is installed
(:func:`wireplan.ort.onnxruntime_door.contrib_op_signature`), or from the resolver
an .ort source already carries.  An operator none of them knows is an
:class:`~wireplan.EncodeError` naming it.
"""

from __future__ import annotations

from wireplan.errors import EncodeError
from wireplan.ort.graph import walk_nodes
from wireplan.ort.model import (
    ArgTypeAndIndex,
    KernelTypeStrArgsEntry,
    KernelTypeStrResolver,
    Node,
    OpIdKernelTypeStrArgsEntry,
    OrtModel,
)
from wireplan.ort.onnxruntime_door import contrib_op_signature
from wireplan.ort.schema import ARG_TYPE
from wireplan.ort.signatures import Signature, SignatureLookup, normal_domain

__all__ = [
    "Signature",
    "SignatureLookup",
    "entry_for",
    "op_id",
    "resolver_for",
    "signature",
]

_INPUT = ARG_TYPE["INPUT"]
_OUTPUT = ARG_TYPE["OUTPUT"]


_INT32_MAX = 2**31 - 1


def signature(domain: str, op_type: str, opset_version: int) -> Signature | None:
    """The schema of ``op_type`` in force at ``opset_version`` of ``domain``, from any source.

    ``onnx.defs`` first (when ``onnx`` is installed), then the schemas
    onnxruntime registers (when it is installed); ``None`` if neither knows it,
    or if ``opset_version`` is outside int32 (what both keep opset versions in).
    """
    if not 0 <= opset_version <= _INT32_MAX:
        return None
    found: Signature | None = None
    try:
        from wireplan.ort.onnx.schemas import onnx_op_signature
    except ImportError:  # onnx not installed
        pass
    else:
        found = onnx_op_signature(domain, op_type, opset_version)
    if found is None:
        found = contrib_op_signature(domain, op_type, opset_version)
    return found


def op_id(domain: str, op_type: str, since_version: int) -> str:
    """``"<domain>:<op_type>:<since_version>"`` with the ONNX domain spelled ``""``."""
    return f"{normal_domain(domain)}:{op_type}:{since_version}"


def entry_for(domain: str, op_type: str, sig: Signature) -> OpIdKernelTypeStrArgsEntry:
    """The resolver entry of one operator schema version."""
    since, inputs, outputs, type_params = sig
    params = set(type_params)
    args: dict[str, list[ArgTypeAndIndex]] = {}
    for arg_type, formals in ((_INPUT, inputs), (_OUTPUT, outputs)):
        for index, (name, type_str) in enumerate(formals):
            key = type_str if type_str in params else name
            args.setdefault(key, []).append(ArgTypeAndIndex(arg_type, index))
    return OpIdKernelTypeStrArgsEntry(
        op_id=op_id(domain, op_type, since),
        kernel_type_str_args=[
            KernelTypeStrArgsEntry(kernel_type_str=k, args=v) for k, v in sorted(args.items())
        ],
    )


def resolver_for(
    model: OrtModel,
    *,
    lookup: SignatureLookup = signature,
    carried: KernelTypeStrResolver | None = None,
    fill_nodes: bool = True,
) -> KernelTypeStrResolver:
    """The resolver for every operator ``model`` uses, subgraphs included.

    Entries of ``carried`` (default: the model's own resolver, when it was
    loaded from an .ort) are kept as they are; every other op id is
    computed from ``lookup``.  A node whose ``since_version`` is 0 (not
    known when the model was built) gets it from the schema at the model's
    opset when ``fill_nodes``.  Raises :class:`~wireplan.EncodeError` naming the first
    operator whose schema no source knows.
    """
    if carried is None:
        carried = model.kernel_type_str_resolver
    entries: dict[str, OpIdKernelTypeStrArgsEntry] = {}
    if carried is not None:
        for e in carried.op_kernel_type_str_args:
            entries[e.op_id] = e
    md = model.model
    if md is None or md.graph is None:
        raise EncodeError("the model has no graph", "$.model.graph")
    opsets = {normal_domain(o.domain): int(o.version) for o in md.opset_import}
    seen: dict[tuple[str, str, int], str] = {}
    for path, node in walk_nodes(md.graph):
        domain = normal_domain(node.domain)
        key = (domain, node.op_type, node.since_version)
        if key in seen:
            continue
        since = node.since_version
        if since > 0:
            known = op_id(domain, node.op_type, since)
            if known in entries:
                seen[key] = known
                continue
            sig = lookup(domain, node.op_type, since)
            if sig is not None and sig[0] != since:
                sig = None
        else:
            opset = opsets.get(domain)
            if opset is None:
                raise EncodeError(
                    f"operator {_describe(domain, node.op_type)}: the model imports no opset "
                    f"for domain {domain or 'ai.onnx'!r}",
                    path,
                )
            sig = lookup(domain, node.op_type, opset)
        if sig is None:
            raise EncodeError(
                f"no operator schema for {_describe(domain, node.op_type)}"
                + (f" version {since}" if since > 0 else f" at opset {opsets.get(domain)}")
                + ": neither onnx nor onnxruntime knows it and the source carries no "
                "kernel type string resolver entry for it",
                path,
            )
        if since <= 0 and fill_nodes:
            _fill_node(node, sig)
        entry = entry_for(domain, node.op_type, sig)
        entries.setdefault(entry.op_id, entry)
        seen[key] = entry.op_id
    return KernelTypeStrResolver(
        op_kernel_type_str_args=[entries[k] for k in sorted(entries, key=lambda s: s.encode())]
    )


def _fill_node(node: Node, sig: Signature) -> None:
    node.since_version = sig[0]


def _describe(domain: str, op_type: str) -> str:
    return f"{domain}:{op_type}" if domain else op_type
