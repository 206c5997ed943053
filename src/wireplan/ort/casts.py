"""Cast nodes around float16 operators the CPU provider has no float16 kernel for.

When onnxruntime loads an .onnx file it runs its ``InsertCastTransformer``
before anything executes: a node with a float16 input that no CPU kernel
takes in float16 runs in float32 instead, between Casts (float16 ->
float32 on each float16 input, float32 -> float16 on each float16
output), and Cast pairs that cancel out between such nodes are removed.
When it loads an .ort file it runs none of that: the file is expected to
hold the graph as it will execute (onnxruntime's own converter saves it
with the Casts in place), so the same model fails with "Could not find an
implementation for Mul(14)".  :func:`insert_casts` makes that rewrite on
an :class:`~wireplan.ort.OrtModel`, so that the .ort runs wherever the
.onnx runs and computes the same outputs.

What it does, per graph (subgraphs included), following onnxruntime (checked with
1.20.1, 1.31.1 and 1.32.0):

1. A node is *unassigned* when no CPU kernel matches its operator version
   and type binding (:func:`wireplan.ort.kernels.has_typed_kernel`, which
   reads the installed onnxruntime's kernel definitions).
2. A node that does have a float16 kernel but sits between unassigned
   nodes (all its float16 inputs come from them, all its float16 outputs go
   to them, it has a float32 kernel, no subgraph, and produces no graph
   output) is made unassigned too, which saves a Cast pair around it.
3. In topological order, every unassigned node without a subgraph that has
   a float16 input and a float32 kernel gets one Cast to float32 per
   float16 input value (shared by every such node of the graph that reads
   it) and one Cast back to float16 per float16 output (onnxruntime casts
   a node without a float32 kernel too, then fails to load the model; here
   it is left as it is, so that a second pass over the result is a no-op); a ``dtype`` attribute of FLOAT16 becomes
   FLOAT.  Only the float16 arguments are cast (QLinearMatMul-21 with
   float16 scales keeps its uint8 tensors).  The new Cast nodes and values
   are named ``InsertedPrecisionFreeCast_<value>`` (made unique), their
   ``since_version`` is Cast's at the model's ``ai.onnx`` opset.
4. Cast chains are shortened as onnxruntime's ``RemoveDuplicateCastTransformer``
   does (Cast A -> Cast B with B's output type equal to A's input type: B's
   readers read A's input; A goes when only Casts read it), which is what
   keeps a run of converted nodes in float32 from one end to the other.
   As in onnxruntime, the Casts inserted here count as precision-free; a
   narrowing Cast of the model itself is removed only when a Cast named
   like ours widens it back.  This step runs only when step 3 inserted
   something: a model that needs no Cast is returned as it is.

Before any of this, onnxruntime inlines a function operator no kernel
matches (a float16 Softmax-13: the CPU provider has float and double
kernels only) and then casts the inlined nodes; the writer does the same
in that order (:func:`wireplan.ort.kernels.needs_expansion` when the model
comes from ONNX, then this pass).  A Cast whose output a subgraph reads
from the outer scope is never removed (onnxruntime would have to rename
inside the subgraph).

The model given is not modified; graphs that change are new objects.  Node
edges, ``max_node_index`` and ``node_args`` (the new values typed float32
with the shape of the value they copy) are kept consistent; the
``KernelTypeStrResolver`` entry for Cast follows from the new nodes
(:func:`wireplan.ort.kernel_types.resolver_for`).  This module imports
neither ``onnx`` nor ``onnxruntime``: kernel facts come from a
``has_kernel`` function (default :func:`wireplan.ort.kernels.has_typed_kernel`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

import numpy as np

from wireplan.errors import MissingExtraError
from wireplan.ort import kernel_types
from wireplan.ort import onnxruntime_door as door
from wireplan.ort.graph import has_subgraph, node_edges, subgraphs, topological_order, walk_graphs
from wireplan.ort.kernels import has_typed_kernel
from wireplan.ort.model import (
    Attribute,
    Graph,
    Node,
    OrtModel,
    TensorTypeAndShape,
    TypeInfo,
    ValueInfo,
    type_string,
)
from wireplan.ort.schema import ATTRIBUTE_TYPE, TENSOR_DATA_TYPE
from wireplan.ort.signatures import ONNX_DOMAINS, normal_domain

__all__ = ["CAST_PREFIX", "KernelCheck", "insert_casts", "wanted"]

#: How onnxruntime names the Cast nodes (and their values) it inserts; such Casts count as
#: precision-free when Cast chains are shortened.
CAST_PREFIX = "InsertedPrecisionFreeCast_"

#: ``has_kernel(domain, op_type, since_version, binding) -> bool``, as
#: :func:`wireplan.ort.kernels.has_typed_kernel`.
KernelCheck = Callable[[str, str, int, Mapping[str, str]], bool]

_FLOAT = TENSOR_DATA_TYPE["FLOAT"]
_FLOAT16 = TENSOR_DATA_TYPE["FLOAT16"]
_INT = ATTRIBUTE_TYPE["INT"]
_ONE_INPUT = np.ones(1, dtype="<i4")

# Type groups and bit lengths onnxruntime's Cast-chain shortening reasons with.
_BOOL, _SIGNED, _UNSIGNED, _FLOATING = range(4)
_GROUP_BITS: dict[int, tuple[int, int]] = {
    TENSOR_DATA_TYPE["BOOL"]: (_BOOL, 1),
    TENSOR_DATA_TYPE["INT8"]: (_SIGNED, 8),
    TENSOR_DATA_TYPE["INT16"]: (_SIGNED, 16),
    TENSOR_DATA_TYPE["INT32"]: (_SIGNED, 32),
    TENSOR_DATA_TYPE["INT64"]: (_SIGNED, 64),
    TENSOR_DATA_TYPE["UINT8"]: (_UNSIGNED, 8),
    TENSOR_DATA_TYPE["UINT16"]: (_UNSIGNED, 16),
    TENSOR_DATA_TYPE["UINT32"]: (_UNSIGNED, 32),
    TENSOR_DATA_TYPE["UINT64"]: (_UNSIGNED, 64),
    TENSOR_DATA_TYPE["BFLOAT16"]: (_FLOATING, 16),
    _FLOAT16: (_FLOATING, 16),
    _FLOAT: (_FLOATING, 32),
    TENSOR_DATA_TYPE["DOUBLE"]: (_FLOATING, 64),
}


def insert_casts(model: OrtModel, *, has_kernel: KernelCheck | None = None) -> OrtModel:
    """``model`` with Casts around its float16 nodes that lack a float16 CPU kernel.

    Returns ``model`` itself when no node needs one (always for a model
    without float16 values, without looking up any kernel), otherwise a
    new :class:`~wireplan.ort.OrtModel` sharing everything that did not
    change (tensors included).  A model that imports no ``ai.onnx`` opset
    cannot hold a Cast node and is returned as it is.  See the module
    docstring for the rules.
    """
    md = model.model
    if md is None or md.graph is None or not _mentions_float16(md.graph):
        return model
    opsets = {normal_domain(o.domain): int(o.version) for o in md.opset_import}
    if "" not in opsets:
        return model
    cast_sig = kernel_types.signature("", "Cast", opsets[""])
    if cast_sig is None:
        return model
    work = _Pass(
        has_typed_kernel if has_kernel is None else has_kernel,
        opsets,
        cast_sig[0],
        _all_names(md.graph),
    )
    graph = work.insert(md.graph, {}, {})
    if not work.inserted:
        return model
    work.shorten(graph, {})
    for g in work.created.values():
        g.node_edges = node_edges(g.nodes)
    return dataclasses.replace(model, model=dataclasses.replace(md, graph=graph))


# --- model scans -----------------------------------------------------------------------------


def _mentions_float16(graph: Graph) -> bool:
    for _, g in walk_graphs(graph):
        for vi in g.node_args:
            v = vi.type.value if vi.type is not None else None
            if isinstance(v, TensorTypeAndShape) and v.elem_type == _FLOAT16:
                return True
        if any(t.data_type == _FLOAT16 for t in g.initializers):
            return True
    return False


def _all_names(graph: Graph) -> set[str]:
    names: set[str] = set()
    for _, g in walk_graphs(graph):
        names.update(vi.name for vi in g.node_args)
        names.update(t.name for t in g.initializers)
        names.update(g.inputs)
        names.update(g.outputs)
        for n in g.nodes:
            names.add(n.name)
            names.update(n.inputs)
            names.update(n.outputs)
    return names


def _retyped(t: TypeInfo | None, replace: Mapping[int, int]) -> TypeInfo | None:
    """A tensor type with its element type mapped through ``replace`` (same shape)."""
    v = None if t is None else t.value
    if isinstance(v, TensorTypeAndShape) and v.elem_type in replace:
        return TypeInfo(value=TensorTypeAndShape(elem_type=replace[v.elem_type], shape=v.shape))
    return t


def _unsafe(src: int, dst: int, cast_name: str) -> bool:
    """Whether a Cast from ``src`` to ``dst`` may lose information (onnxruntime's rule)."""
    a = _GROUP_BITS.get(src)
    b = _GROUP_BITS.get(dst)
    if a is None or b is None:
        return True
    (sg, sbits), (dg, dbits) = a, b
    if sg not in (_BOOL, _UNSIGNED) and dg == _UNSIGNED:
        return True
    if sg == _FLOATING and dg != _FLOATING:
        return True
    if sg == _UNSIGNED and dg == _SIGNED:
        return dbits <= sbits
    if sg in (_SIGNED, _UNSIGNED) and dg == _FLOATING:
        return dbits <= sbits
    if {src, dst} == {_FLOAT16, TENSOR_DATA_TYPE["BFLOAT16"]}:
        return True
    return sbits > dbits and not cast_name.startswith(CAST_PREFIX)


# --- the pass --------------------------------------------------------------------------------


class _Pass:
    def __init__(
        self, has_kernel: KernelCheck, opsets: Mapping[str, int], cast_since: int, names: set[str]
    ) -> None:
        self.has_kernel = has_kernel
        self.opsets = opsets
        self.cast_since = cast_since
        self.taken = names
        self.counter = 0
        self.inserted = 0
        #: The graphs :meth:`insert` made, by id (kept alive here): :meth:`shorten` may change them.
        self.created: dict[int, Graph] = {}
        self._sigs: dict[tuple[str, str, int], kernel_types.Signature | None] = {}
        self._kernels: dict[tuple[object, ...], bool] = {}

    # -- helpers --------------------------------------------------------------------------

    def unique(self, base: str) -> str:
        name = base
        while name in self.taken:
            name = f"{base}_token_{self.counter}"
            self.counter += 1
        self.taken.add(name)
        return name

    def signature(self, node: Node) -> kernel_types.Signature | None:
        domain = normal_domain(node.domain)
        version = node.since_version or self.opsets.get(domain, 0)
        key = (domain, node.op_type, version)
        if key not in self._sigs:
            sig = kernel_types.signature(domain, node.op_type, version) if version else None
            self._sigs[key] = sig
        return self._sigs[key]

    @staticmethod
    def formal_inputs(node: Node, nformal: int) -> list[int]:
        """The formal input index of each actual input (variadic: the last formal takes the rest)."""
        counts = [int(c) for c in node.input_arg_counts]
        if len(counts) == nformal and sum(counts) == len(node.inputs):
            return [f for f, c in enumerate(counts) for _ in range(c)]
        return [min(i, max(nformal - 1, 0)) for i in range(len(node.inputs))]

    def binding(
        self,
        node: Node,
        sig: kernel_types.Signature,
        types: Mapping[str, TypeInfo | None],
        replace: Mapping[int, int] | None = None,
    ) -> dict[str, str]:
        """Type parameter -> type of the first argument bound to it whose type is known.

        ``replace`` maps element types (float16 -> float) for the float32 binding.
        """
        _, formal_in, formal_out, params = sig
        bound: dict[str, str] = {}
        args: list[tuple[str, str]] = []
        for name, f in zip(node.inputs, self.formal_inputs(node, len(formal_in)), strict=False):
            if f < len(formal_in):
                args.append((name, formal_in[f][1]))
        args.extend(
            (name, formal_out[i][1]) for i, name in enumerate(node.outputs[: len(formal_out)])
        )
        for name, type_str in args:
            if not name or type_str not in params or type_str in bound:
                continue
            t = types.get(name)
            if replace is not None:
                t = _retyped(t, replace)
            s = type_string(t)
            if s is not None:
                bound[type_str] = s
        return bound

    # -- step 1-3: insertion --------------------------------------------------------------

    def insert(
        self, graph: Graph, outer: Mapping[str, TypeInfo | None], outer_elem: Mapping[str, int]
    ) -> Graph:
        types: dict[str, TypeInfo | None] = dict(outer)
        elem: dict[str, int] = dict(outer_elem)
        for t in graph.initializers:
            elem[t.name] = t.data_type
            types.setdefault(t.name, TypeInfo(value=TensorTypeAndShape(elem_type=t.data_type)))
        for vi in graph.node_args:
            v = vi.type.value if vi.type is not None else None
            if isinstance(v, TensorTypeAndShape) and v.elem_type:
                elem[vi.name] = v.elem_type
                types[vi.name] = vi.type
            elif vi.type is not None and v is not None:
                types[vi.name] = vi.type
                elem.pop(vi.name, None)

        nodes = list(graph.nodes)
        fp16 = [any(elem.get(x) == _FLOAT16 for x in n.inputs if x) for n in nodes]
        unassigned = [fp16[i] and not self._kernel(n, types) for i, n in enumerate(nodes)]
        self.isolate(graph, nodes, fp16, unassigned, types, elem)

        casts: dict[str, str] = {}  # float16 value -> its float32 copy in this graph
        new_nodes: list[Node] = []
        new_args: list[ValueInfo] = []
        next_index = max([graph.max_node_index, *(n.index + 1 for n in nodes)])
        changed = False

        def add_cast(src: str, dst: str, to: int) -> None:
            nonlocal next_index
            new_nodes.append(
                Node(
                    name=dst if to == _FLOAT else src,
                    domain="",
                    since_version=self.cast_since,
                    index=next_index,
                    op_type="Cast",
                    inputs=[src],
                    outputs=[dst],
                    attributes=[Attribute(name="to", type=_INT, i=to)],
                    input_arg_counts=_ONE_INPUT.copy(),
                )
            )
            next_index += 1
            self.inserted += 1

        def float_value(of: str) -> str:
            name = self.unique(CAST_PREFIX + of)
            t = _retyped(types.get(of), {_FLOAT16: _FLOAT})
            if t is None or t is types.get(of):
                t = TypeInfo(value=TensorTypeAndShape(elem_type=_FLOAT))
            new_args.append(ValueInfo(name=name, type=t))
            types[name] = t
            elem[name] = _FLOAT
            return name

        for i in topological_order(nodes) or range(len(nodes)):
            n = nodes[i]
            if not unassigned[i] or has_subgraph(n):
                continue
            if not self._kernel(n, types, {_FLOAT16: _FLOAT}):
                continue  # no float32 kernel either: Casts would not make it run
            inputs = list(n.inputs)
            for j, x in enumerate(inputs):
                if x and elem.get(x) == _FLOAT16:
                    if x not in casts:
                        casts[x] = float_value(x)
                        add_cast(x, casts[x], _FLOAT)
                    inputs[j] = casts[x]
            outputs = list(n.outputs)
            for j, y in enumerate(outputs):
                if y and elem.get(y) == _FLOAT16:
                    outputs[j] = float_value(y)
                    add_cast(outputs[j], y, _FLOAT16)
            attributes = [
                dataclasses.replace(a, i=_FLOAT)
                if a.name == "dtype" and a.type == _INT and a.i == _FLOAT16
                else a
                for a in n.attributes
            ]
            nodes[i] = dataclasses.replace(n, inputs=inputs, outputs=outputs, attributes=attributes)
            changed = True

        # Subgraphs, with this graph's values as their outer scope.
        for i, n in enumerate(nodes):
            if not has_subgraph(n):
                continue
            attributes = []
            for a in n.attributes:
                g = self.insert(a.g, types, elem) if a.g is not None else None
                gs = [self.insert(s, types, elem) for s in a.graphs]
                if g is not a.g or any(x is not y for x, y in zip(gs, a.graphs, strict=True)):
                    a = dataclasses.replace(a, g=g, graphs=gs)
                attributes.append(a)
            if any(x is not y for x, y in zip(attributes, n.attributes, strict=True)):
                nodes[i] = dataclasses.replace(n, attributes=attributes)
                changed = True

        if not changed:
            return graph
        nodes.extend(new_nodes)
        made = dataclasses.replace(
            graph,
            nodes=nodes,
            node_args=[*graph.node_args, *new_args],
            max_node_index=next_index,
            node_edges=[],  # computed once the Cast chains are shortened
        )
        self.created[id(made)] = made
        return made

    def _kernel(
        self,
        node: Node,
        types: Mapping[str, TypeInfo | None],
        replace: Mapping[int, int] | None = None,
    ) -> bool:
        sig = self.signature(node)
        if sig is None:
            return True  # nothing known to reason with: leave the node as it is
        binding = self.binding(node, sig, types, replace)
        since = node.since_version or sig[0]
        key = (node.domain, node.op_type, since, *sorted(binding.items()))
        found = self._kernels.get(key)
        if found is None:
            found = self.has_kernel(node.domain, node.op_type, since, binding)
            self._kernels[key] = found
        return found

    def isolate(
        self,
        graph: Graph,
        nodes: list[Node],
        fp16: list[bool],
        unassigned: list[bool],
        types: Mapping[str, TypeInfo | None],
        elem: Mapping[str, int],
    ) -> None:
        """Step 2: unassign float16-capable nodes that only talk float16 to unassigned nodes."""
        producer = {o: i for i, n in enumerate(nodes) for o in n.outputs if o}
        readers: dict[str, list[int]] = {}
        for i, n in enumerate(nodes):
            for x in (*n.inputs, *n.implicit_inputs):
                if x:
                    readers.setdefault(x, []).append(i)
        outputs = set(graph.outputs)

        def needs_cast(i: int) -> bool:
            return unassigned[i] and fp16[i]

        for i, n in enumerate(nodes):
            if unassigned[i] or not fp16[i] or has_subgraph(n):
                continue
            if not any(x in producer for x in n.inputs if x):
                continue  # no input edge
            if any(o in outputs for o in n.outputs if o):
                continue
            sig = self.signature(n)
            if sig is None:
                continue
            _, formal_in, formal_out, params = sig
            # The first present argument of each constrained formal input.
            firsts: dict[int, str] = {}
            for name, f in zip(n.inputs, self.formal_inputs(n, len(formal_in)), strict=False):
                if f < len(formal_in) and formal_in[f][1] in params and f not in firsts and name:
                    firsts[f] = name
            fp16_in = [x for x in firsts.values() if elem.get(x) == _FLOAT16]
            if not fp16_in or any(x in producer and not needs_cast(producer[x]) for x in fp16_in):
                continue
            fp16_out = [
                y
                for k, y in enumerate(n.outputs[: len(formal_out)])
                if y and formal_out[k][1] in params and elem.get(y) == _FLOAT16
            ]
            if not fp16_out or any(not needs_cast(r) for y in fp16_out for r in readers.get(y, ())):
                continue
            if self._kernel(n, types, {_FLOAT16: _FLOAT}):
                unassigned[i] = True

    # -- step 4: shortening Cast chains -----------------------------------------------------

    def shorten(self, graph: Graph, outer_elem: Mapping[str, int]) -> None:
        """Remove Casts that cancel out, in ``graph`` (made by :meth:`insert`) and the new graphs below.

        ``graph`` is mutated: it is a new object of this pass (its nodes are
        replaced, never changed in place: some are still the model's own).
        """
        elem: dict[str, int] = dict(outer_elem)
        for t in graph.initializers:
            elem[t.name] = t.data_type
        for vi in graph.node_args:
            v = vi.type.value if vi.type is not None else None
            if isinstance(v, TensorTypeAndShape) and v.elem_type:
                elem[vi.name] = v.elem_type
            elif v is not None:
                elem.pop(vi.name, None)
        nodes = graph.nodes
        readers: dict[
            str, list[tuple[int, int]]
        ] = {}  # value -> (position, input slot); -1: implicit
        for i, n in enumerate(nodes):
            for j, x in enumerate(n.inputs):
                if x:
                    readers.setdefault(x, []).append((i, j))
            for x in n.implicit_inputs:
                if x:
                    readers.setdefault(x, []).append((i, -1))
        outputs = set(graph.outputs)
        alive = [True] * len(nodes)
        dropped: set[str] = set()

        def is_cast(n: Node) -> bool:
            return n.op_type == "Cast" and n.domain in ONNX_DOMAINS and len(n.inputs) == 1

        def rename(value: str, to: str) -> None:
            # Copy on write: the nodes of a new graph may still be the model's own objects.
            for i, j in readers.pop(value, []):
                if alive[i] and j >= 0:
                    inputs = list(nodes[i].inputs)
                    inputs[j] = to
                    nodes[i] = dataclasses.replace(nodes[i], inputs=inputs)
                    readers.setdefault(to, []).append((i, j))

        for i in range(len(nodes)):
            c = nodes[i]
            if not alive[i] or not is_cast(c) or len(c.outputs) != 1:
                continue
            x, y = c.inputs[0], c.outputs[0]
            src, dst = elem.get(x), elem.get(y)
            if src is None or dst is None:
                continue
            lossy = _unsafe(src, dst, c.name)
            children = [(k, j) for k, j in readers.get(y, []) if alive[k]]
            remove: list[int] = []
            keep: list[int] = []
            inconsistent = False
            for k, j in children:
                c2 = nodes[k]
                if j != 0 or not is_cast(c2) or len(c2.outputs) != 1:
                    continue
                z = c2.outputs[0]
                dst2 = elem.get(z)
                if dst2 is None or (lossy and _unsafe(dst2, dst, c2.name)):
                    inconsistent = True
                    break
                implicit = any(s < 0 for _, s in readers.get(z, []))
                if z not in outputs and not implicit and dst2 == src:
                    remove.append(k)
                else:
                    keep.append(k)
            if inconsistent:
                continue
            for k in remove:
                alive[k] = False
                z = nodes[k].outputs[0]
                dropped.add(z)
                rename(z, x)
            if children and len(remove) + len(keep) == len(children) and y not in outputs:
                alive[i] = False
                dropped.add(y)
                for k in keep:
                    nodes[k] = dataclasses.replace(nodes[k], inputs=[x])
                    readers.setdefault(x, []).append((k, 0))
                readers.pop(y, None)
        for i, n in enumerate(nodes):
            if alive[i]:
                for _, g in subgraphs(n):
                    if id(g) in self.created:
                        self.shorten(g, elem)
        if all(alive):
            return
        graph.nodes = [n for i, n in enumerate(nodes) if alive[i]]
        used = set(graph.inputs) | set(graph.outputs) | {t.name for t in graph.initializers}
        for n in graph.nodes:
            used.update(n.inputs)
            used.update(n.outputs)
            used.update(n.implicit_inputs)
        graph.node_args = [
            vi for vi in graph.node_args if vi.name not in dropped or vi.name in used
        ]


def wanted(option: bool | None) -> bool:
    """Resolve the writer's ``float16_casts`` option: ``None`` means "when onnxruntime is installed".

    ``True`` without onnxruntime is a :class:`~wireplan.MissingExtraError`:
    which kernels exist is onnxruntime's to say.
    """
    if option is None:
        return door.available()
    if option and not door.available():
        raise MissingExtraError(
            "float16_casts=True",
            "onnxruntime",
            "onnxruntime",
            "its CPU kernel list says which float16 nodes need Casts; or pass float16_casts=False",
        )
    return bool(option)
