"""Walks over the graphs of an .ort model: nodes, tensors, nesting, node edges, topological order.

Every walk is depth first, in stored order: a graph, then for each node and
each of its attributes the graph in ``g`` and those in ``graphs``
(:func:`wireplan.ort.model.subgraphs` says where graphs nest; it and
:func:`~wireplan.ort.model.walk_graphs` are re-exported here).  Walks give
``(path, object)`` pairs whose paths are spelled like the reader's and the
writer's errors: ``$.model.graph.nodes[3].attributes[1].g.nodes[0]``.
:func:`node_edges` computes the ``NodeEdge`` tables as onnxruntime does.
This module imports neither ``onnx`` nor ``onnxruntime`` nor any converter.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Sequence

from wireplan.flatbuffers.lazy import TableList
from wireplan.ort.model import (
    HOLD_GRAPHS,
    HOLD_TENSORS,
    ROOT,
    EdgeEnd,
    Graph,
    Node,
    NodeEdge,
    Tensor,
    has_subgraph,
    holding,
    subgraphs,
    walk_graphs,
)

__all__ = [
    "MAX_DEPTH",
    "MAX_GRAPH_NESTING",
    "MAX_TABLES",
    "ROOT",
    "EdgeEnd",
    "NodeEdge",
    "has_subgraph",
    "nesting_problem",
    "node_edges",
    "subgraphs",
    "topological_order",
    "walk_graphs",
    "walk_nodes",
    "walk_tensors",
]

#: The deepest table an .ort may hold, the root ``InferenceSession`` at depth 0: onnxruntime
#: verifies files with FlatBuffers' default verifier, which refuses more than 64 levels
#: ("ORT model verification failed").  ``load`` refuses deeper files, the writer deeper models.
MAX_DEPTH = 63
#: The most tables an .ort may hold (the same verifier's default ``max_tables``).
MAX_TABLES = 1_000_000
#: Subgraph levels no .ort can hold: the main graph is at depth 2 and each level costs three
#: tables (Node, Attribute, Graph), so a graph nested deeper than this is past :data:`MAX_DEPTH`.
MAX_GRAPH_NESTING = (MAX_DEPTH - 2) // 3


def nesting_problem(graph: Graph, limit: int = MAX_GRAPH_NESTING) -> str | None:
    """The path of a graph nested more than ``limit`` levels inside ``graph``, or ``None``.

    Iterative, so a model nested past Python's recursion limit is found too.
    """
    stack: list[tuple[Graph, str, int]] = [(graph, ROOT, 0)]
    while stack:
        g, path, level = stack.pop()
        if level > limit:
            return path
        for i, node in enumerate(g.nodes):
            if has_subgraph(node):
                for where, inner in subgraphs(node, f"{path}.nodes[{i}]"):
                    stack.append((inner, where, level + 1))
    return None


# --- walks -----------------------------------------------------------------------------------


def walk_nodes(graph: Graph, path: str = ROOT) -> Iterator[tuple[str, Node]]:
    """Every node of ``graph`` and its subgraphs, as ``(path, node)``.

    A node comes before the nodes of the graphs its attributes hold, and
    those before the next node.
    """
    for i, node in enumerate(graph.nodes):
        where = f"{path}.nodes[{i}]"
        yield where, node
        for inner, g in subgraphs(node, where):
            yield from walk_nodes(g, inner)


#: The attribute fields that hold tensors, or graphs that may.
_HOLD_TENSORS = (*HOLD_TENSORS, *HOLD_GRAPHS)


def walk_tensors(
    graph: Graph, path: str = ROOT, having: str | None = None
) -> Iterator[tuple[str, Tensor]]:
    """Every tensor of ``graph`` and its subgraphs, as ``(path, tensor)``.

    Per graph: initializers, sparse initializers (values, then indices),
    then per node and attribute its ``t``, its ``tensors`` and the tensors of
    the graphs it holds.  ``having`` (a ``Tensor`` field) may leave out loaded,
    undecoded initializers that do not store that field (see :func:`holding`).
    """
    inits = graph.initializers
    chosen: Iterable[int] = range(len(inits))
    if having is not None and isinstance(inits, TableList):
        chosen = inits.candidates(None, (having,))
    for i in chosen:
        yield f"{path}.initializers[{i}]", inits[i]
    for i, sp in enumerate(graph.sparse_initializers):
        if sp.values is not None:
            yield f"{path}.sparse_initializers[{i}].values", sp.values
        if sp.indices is not None:
            yield f"{path}.sparse_initializers[{i}].indices", sp.indices
    nodes = graph.nodes
    for n in holding(nodes, _HOLD_TENSORS):
        for a, attr in enumerate(nodes[n].attributes):
            where = f"{path}.nodes[{n}].attributes[{a}]"
            if attr.t is not None:
                yield f"{where}.t", attr.t
            for k, t in enumerate(attr.tensors):
                yield f"{where}.tensors[{k}]", t
            if attr.g is not None:
                yield from walk_tensors(attr.g, f"{where}.g", having)
            for k, g in enumerate(attr.graphs):
                yield from walk_tensors(g, f"{where}.graphs[{k}]", having)


# --- edges and order -------------------------------------------------------------------------


def node_edges(nodes: Sequence[Node]) -> list[NodeEdge]:
    """onnxruntime's node edges: producer output -> consumer input, within one graph.

    One :class:`NodeEdge` per node, in the order of ``nodes``, its edge ends
    deduplicated and sorted.  An implicit input (a value a subgraph of the
    node uses from this graph) counts as input number ``len(inputs) + k``.
    """
    producer: dict[str, tuple[int, int]] = {}
    for n in nodes:
        for k, o in enumerate(n.outputs):
            if o:
                producer[o] = (n.index, k)
    # Edge ends as (node_index, src_arg_index, dst_arg_index) tuples: deduplicated and sorted
    # as plain tuples, made EdgeEnd structs once at the end.
    ins: dict[int, set[tuple[int, int, int]]] = {n.index: set() for n in nodes}
    outs: dict[int, set[tuple[int, int, int]]] = {n.index: set() for n in nodes}
    for n in nodes:
        index = n.index
        mine = ins[index]
        args = [*n.inputs, *n.implicit_inputs] if n.implicit_inputs else n.inputs
        for j, x in enumerate(args):
            src = producer.get(x) if x else None
            if src is None:
                continue
            mine.add((src[0], src[1], j))
            outs[src[0]].add((index, src[1], j))
    end = EdgeEnd
    return [
        NodeEdge(
            n.index,
            [end(*e) for e in sorted(ins[n.index])],
            [end(*e) for e in sorted(outs[n.index])],
        )
        for n in nodes
    ]


def topological_order(nodes: Sequence[Node]) -> list[int] | None:
    """Positions of ``nodes`` in a topological order, or None if they form a cycle.

    Among the nodes that are ready the one stored first goes first, so an
    already sorted list keeps its order.  onnxruntime stores nodes by index,
    and nodes its optimizers create get higher indices, so a stored graph
    need not be sorted; ONNX and our passes over it want it sorted.
    """
    producer = {o: i for i, n in enumerate(nodes) for o in n.outputs if o}
    users: list[list[int]] = [[] for _ in nodes]
    pending = [0] * len(nodes)
    for i, n in enumerate(nodes):
        deps = {producer[x] for x in (*n.inputs, *n.implicit_inputs) if x in producer}
        deps.discard(i)
        pending[i] = len(deps)
        for d in deps:
            users[d].append(i)
    ready = [i for i, k in enumerate(pending) if k == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for u in users[i]:
            pending[u] -= 1
            if pending[u] == 0:
                heapq.heappush(ready, u)
    return order if len(order) == len(nodes) else None
