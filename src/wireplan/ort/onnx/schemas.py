"""Operator schemas and opsets: what ``onnx.defs`` says of an operator at an opset version."""

from __future__ import annotations

import onnx
import onnx.defs

from wireplan.ort.signatures import Signature, SignatureLookup, normal_domain

__all__ = [
    "onnx_op_signature",
]

_PROTOBUF_LIMIT = 2**31 - 1


def onnx_op_signature(domain: str, op_type: str, opset_version: int) -> Signature | None:
    """The ONNX schema of ``op_type`` in force at ``opset_version`` of ``domain``.

    Returns ``(since_version, inputs, outputs, type_params)``: inputs and
    outputs as ``(formal name, type_str)`` pairs in formal order, and the
    names of the schema's type-constraint parameters.  ``None`` when onnx
    knows no such operator at that version (custom or contrib domains), or
    when ``opset_version`` is outside int32 (onnx keeps versions in an int).
    """
    if not 0 <= opset_version <= _PROTOBUF_LIMIT:
        return None
    dom = normal_domain(domain)
    try:
        schema = onnx.defs.get_schema(op_type, opset_version, dom)
    except onnx.defs.SchemaError:
        return None
    return (
        int(schema.since_version),
        [(p.name, p.type_str) for p in schema.inputs],
        [(p.name, p.type_str) for p in schema.outputs],
        [c.type_param_str for c in schema.type_constraints],
    )


def _opsets(proto: onnx.ModelProto) -> dict[str, int]:
    return {normal_domain(o.domain): int(o.version) for o in proto.opset_import}


def _memoized(lookup: SignatureLookup) -> SignatureLookup:
    """``lookup`` asked once per (domain, op_type, opset) for one conversion."""
    cache: dict[tuple[str, str, int], Signature | None] = {}

    def memo(domain: str, op_type: str, opset: int) -> Signature | None:
        key = (domain, op_type, opset)
        try:
            return cache[key]
        except KeyError:
            found = cache[key] = lookup(domain, op_type, opset)
            return found

    return memo
