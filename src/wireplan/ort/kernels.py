"""Which nodes the installed onnxruntime has a kernel for, as its kernel registry decides.

:func:`has_kernel`, :func:`has_typed_kernel` and :func:`needs_expansion` match
onnxruntime's kernel definitions to a node as its kernel registry does
(version and type binding): the writer's decisions on function bodies
(:mod:`wireplan.ort.onnx.expand`) and float16 Casts (:mod:`wireplan.ort.casts`)
follow them.  The definitions come from the onnxruntime door
(:mod:`wireplan.ort.onnxruntime_door`); a release that does not export them to
Python (the PyPI wheel of 1.15.1) is asked by loading a one-node .ort, which this
module encodes (:mod:`wireplan.ort.encoder`) and hands to the door.
Without onnxruntime every node has a kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from wireplan.errors import EncodeError, WireplanError
from wireplan.ort import encoder, formats, kernel_types
from wireplan.ort import model as m
from wireplan.ort import onnxruntime_door as door
from wireplan.ort.signatures import ONNX_DOMAINS

__all__ = ["NodeThunk", "has_kernel", "has_typed_kernel", "needs_expansion"]


# Conclusive answers of _probe: (domain, op_type, since_version, binding, provider) -> bool.
_PROBED: dict[tuple[str, str, int, tuple[tuple[str, str], ...], str], bool] = {}

#: What a probe needs of the node it stands for, built on demand: its attributes
#: (:class:`wireplan.ort.model.Attribute` objects: onnxruntime verifies required ones) and its
#: numbers of inputs and outputs (a variadic formal may take several).
NodeThunk = Callable[[], "tuple[list[Any], int, int]"]


def _probe(
    domain: str,
    op_type: str,
    since_version: int,
    binding: tuple[tuple[str, str], ...],
    provider: str,
    attributes: NodeThunk | None = None,
) -> bool:
    """Whether onnxruntime finds a kernel for a one-node .ort of this operator and binding.

    For builds without exported kernel definitions.  The node gets an
    argument for each formal whose type the binding (or the schema, for a
    fixed type) gives and none for the others, so onnxruntime checks
    exactly the bound types; given ``node()``, it also gets the attributes
    of the node asked about, since onnxruntime verifies required ones (a
    SequenceMap's ``body``) before it looks for a kernel, and as many
    arguments as that node (a variadic formal repeats); loading an .ort
    runs that check and the kernel lookup and nothing else (no inlining, no
    Casts).  Only "Could not find an implementation" means no kernel.
    Anything that cannot be asked (an operator no schema source knows, a
    type or attribute .ort cannot hold, a release that loads neither format
    5 nor 6, a graph onnxruntime finds invalid for another reason) answers
    True, and only conclusive answers are remembered.
    """
    key = (domain, op_type, since_version, binding, provider)
    known = _PROBED.get(key)
    if known is not None:
        return known
    answer = _ask(domain, op_type, since_version, binding, provider, attributes)
    if answer is not None:
        _PROBED[key] = answer
    return True if answer is None else answer


def _probe_model(
    domain: str,
    op_type: str,
    since_version: int,
    sig: kernel_types.Signature,
    binding: tuple[tuple[str, str], ...],
    node_facts: tuple[list[Any], int, int],
) -> m.OrtModel:
    """The one-node model of :func:`_probe`: an argument for each formal whose type is known."""
    node_attributes, n_in, n_out = node_facts
    _, formal_in, formal_out, params = sig
    bound = dict(binding)
    args: list[m.ValueInfo] = []

    def arg(prefix: str, k: int, fname: str, type_str: str) -> str:
        spelled = bound.get(type_str if type_str in params else fname)
        if spelled is None and type_str not in params:
            spelled = type_str  # a fixed type, e.g. tensor(int64)
        t = m.type_info(spelled) if spelled is not None else None
        if t is None:
            return ""
        args.append(m.ValueInfo(name=f"{prefix}{k}", type=t))
        return f"{prefix}{k}"

    # Argument k of the node binds formal k, or the last (variadic) one past the formals.
    inputs = [arg("i", k, *formal_in[min(k, len(formal_in) - 1)]) for k in range(n_in)]
    outputs = [arg("o", k, *formal_out[min(k, len(formal_out) - 1)]) for k in range(n_out)]
    while inputs and not inputs[-1]:
        inputs.pop()
    if "" in inputs or "" in outputs:
        args.append(m.ValueInfo(name=""))  # an absent argument, as onnxruntime lists it
    node = m.Node(
        domain=domain,
        since_version=since_version,
        op_type=op_type,
        inputs=inputs,
        outputs=outputs,
        input_arg_counts=np.ones(len(inputs), dtype="<i4"),
        attributes=node_attributes,
    )
    opsets = [m.OperatorSetId(domain, since_version)]
    graph = m.Graph(
        node_args=args,
        nodes=[node],
        max_node_index=1,
        inputs=[x for x in inputs if x],
        outputs=[y for y in outputs if y],
    )
    return m.OrtModel(model=m.Model(ir_version=8, opset_import=opsets, graph=graph))


def _ask(
    domain: str,
    op_type: str,
    since_version: int,
    binding: tuple[tuple[str, str], ...],
    provider: str,
    attributes: NodeThunk | None,
) -> bool | None:
    """:func:`_probe`'s question put to onnxruntime: True, False, or None (inconclusive)."""
    sig = kernel_types.signature(domain, op_type, since_version)
    loadable = [v for v in door.loadable_format_versions() if v in (5, 6)]
    if sig is None or sig[0] != since_version or not loadable:
        return None
    try:
        facts = attributes() if attributes is not None else ([], len(sig[1]), len(sig[2]))
    except WireplanError:  # an attribute .ort cannot hold (or that the bridge cannot convert)
        return None
    probe = _probe_model(domain, op_type, since_version, sig, binding, facts)
    try:
        formats.refuse_too_deep(probe)
        formats.refuse_unrepresentable(probe, loadable[-1])
        resolver = kernel_types.resolver_for(probe)
        result, _ = encoder.layout_files(probe, resolver, format_version=loadable[-1])
    except EncodeError:
        return None
    return door.finds_kernels(bytes(encoder.to_buffer(result)), provider)


def _version_matches(start: int, end: int, since_version: int) -> bool:
    """onnxruntime's rule: the kernel's start version, or inside a range that has an end.

    A kernel registered "from ``start`` on" (no end version) does not serve
    a later operator version: it was written before that version existed.
    """
    return start == since_version or (end != door.OPEN_END and start <= since_version <= end)


def has_kernel(
    domain: str, op_type: str, since_version: int, provider: str = "CPUExecutionProvider"
) -> bool:
    """Whether onnxruntime registers a kernel of ``provider`` for this operator version.

    Versions match as onnxruntime matches them: the kernel's start version,
    or a version inside a range that has an end (a kernel registered "from
    version 24 on" does not serve version 25).  ``True`` without
    onnxruntime; a build that does not export its kernel definitions
    (:func:`wireplan.ort.onnxruntime_door.kernels_known`) is asked by loading
    a one-node .ort.
    """
    if not door.available():
        return True
    kernels = door.kernel_definitions(domain, op_type, provider)
    if kernels is None:
        return _probe(domain, op_type, since_version, (), provider)
    return any(_version_matches(lo, hi, since_version) for lo, hi, _ in kernels)


def has_typed_kernel(
    domain: str,
    op_type: str,
    since_version: int,
    binding: Mapping[str, str],
    provider: str = "CPUExecutionProvider",
    attributes: NodeThunk | None = None,
) -> bool:
    """Whether ``provider`` registers a kernel for this operator version and type binding.

    ``binding`` maps a kernel type string (``"T"``, ``"T1"``: the schema's
    type parameters, or a formal parameter's name where its type is fixed)
    to the type of the node's first argument bound to it, as onnxruntime
    spells types (``"tensor(float16)"``, :func:`wireplan.ort.model.type_string`).
    A kernel matches when its version matches (see :func:`has_kernel`) and,
    for each of its type constraints, the bound type (when ``binding`` has
    one) is among the allowed types; parameters ``binding`` leaves out are
    not checked, as onnxruntime skips a constraint none of the node's
    arguments present binds.  ``True`` without onnxruntime; a build that
    does not export its kernel definitions is asked by loading a one-node
    .ort with an argument of each bound type and, given ``attributes``, the
    node's attributes and arity (:data:`NodeThunk`).
    """
    if not door.available():
        return True
    kernels = door.kernel_definitions(domain, op_type, provider)
    if kernels is None:
        bound = tuple(sorted(binding.items()))
        return _probe(domain, op_type, since_version, bound, provider, attributes)
    for lo, hi, constraints in kernels:
        if _version_matches(lo, hi, since_version) and all(
            binding.get(name) is None or binding[name] in allowed
            for name, allowed in constraints.items()
        ):
            return True
    return False


def needs_expansion(
    domain: str,
    op_type: str,
    since_version: int,
    binding: Mapping[str, str] | None = None,
    attributes: NodeThunk | None = None,
) -> bool:
    """Whether a node of a function operator must be replaced by its function body in an .ort.

    When onnxruntime loads an .onnx, a node that no CPU kernel matches (by
    operator version *and* the types ``binding`` gives, see
    :func:`has_typed_kernel`) and that has a function body is replaced by
    the body (a context-dependent body is built for the node's types); the
    float16 Casts come after that.  When it loads an .ort it does neither,
    so the writer expands those nodes (it asks this only for nodes that
    have a function body).  ``Constant`` has no kernel either, but
    onnxruntime turns it into an initializer instead (and so does the
    writer).  ``False`` without onnxruntime.  ``attributes()`` gives the
    node's attributes and arity, which only a release without exported
    kernel definitions needs (:func:`has_typed_kernel`).
    """
    if op_type == "Constant" and domain in ONNX_DOMAINS:
        return False
    return not has_typed_kernel(
        domain, op_type, since_version, binding or {}, attributes=attributes
    )
