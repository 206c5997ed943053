"""Build .ort files of formats 1 to 4 as the releases before onnxruntime 1.13 wrote them.

No onnxruntime wheel before 1.15 exists for this Python, so these files are
made here, from a model of format 5 or 6 (ours or onnxruntime's), with the
contents the old formats had and the newer ones lack:

- ``ort_version`` "1" to "4" and no ``kernel_type_str_resolver`` (format 5 added it);
- the session state (deprecated since format 5): for each graph, the node
  indices and one kernel-def hash per node, subgraphs keyed by graph id.
  Real hashes depend on the kernel registry of the release that wrote the
  file; these are made up (onnxruntime 1.13 and later ignore them);
- format 1 has no sparse initializers (format 2 added them), formats 1 and 2
  no ``graph_doc_string`` (format 3);
- optionally saved runtime optimizations recorded the old way, with
  ``produced_nodes`` (node index and kernel-def hash) instead of ``produced_op_ids``;
- no float8 types (format 6) and no ``external_data_offset`` (later still).

The tables are written by our builder over ``ort.fbs`` with the deprecated
fields made writable again (their slots are unchanged since format 1).
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

import numpy as np

from wireplan.flatbuffers.builder import Builder, build_bytes
from wireplan.flatbuffers.schema import Schema
from wireplan.ort import encoder, formats
from wireplan.ort.model import (
    DeprecatedKernelCreateInfos,
    DeprecatedNodeIndexAndKernelDefHash,
    DeprecatedSessionState,
    DeprecatedSubGraphSessionState,
    Graph,
    NodesToOptimizeIndices,
    OrtModel,
    RuntimeOptimizationRecord,
    RuntimeOptimizationRecordContainerEntry,
    RuntimeOptimizations,
)
from wireplan.ort.schema import build_schema


def _old_schema() -> Schema:
    s = build_schema()
    for name, t in list(s.tables.items()):
        fields = tuple(dataclasses.replace(f, deprecated=False) for f in t.fields)
        s.tables[name] = dataclasses.replace(t, fields=fields)
    return s


_BUILDER = Builder(
    _old_schema(),
    omit_empty_strings=True,
    keep_empty=encoder.KEEP_EMPTY,
    variants={"Attribute": ("type", encoder.ATTRIBUTE_VALUE)},
)


def fake_hash(*parts: object) -> int:
    """A made-up, stable 64-bit kernel-def hash."""
    text = "/".join(map(str, parts)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")


def _session_state(graph: Graph) -> DeprecatedSessionState:
    nodes = sorted(graph.nodes, key=lambda n: n.index)
    subs = []
    for node in nodes:
        for attr in node.attributes:
            subgraphs = ([attr.g] if attr.g is not None else []) + list(attr.graphs)
            for k, g in enumerate(subgraphs):
                suffix = f"_{k}" if attr.graphs else ""
                subs.append(
                    DeprecatedSubGraphSessionState(
                        graph_id=f"{node.index}_{attr.name}{suffix}",
                        session_state=_session_state(g),
                    )
                )
    return DeprecatedSessionState(
        kernels=DeprecatedKernelCreateInfos(
            node_indices=np.array([n.index for n in nodes], dtype="<u4"),
            kernel_def_hashes=np.array(
                [fake_hash(n.domain, n.op_type, n.since_version) for n in nodes], dtype="<u8"
            ),
        ),
        sub_graph_session_states=subs,
    )


def hashed_optimizations(graph: Graph) -> RuntimeOptimizations:
    """A saved runtime optimization as formats before 5 recorded it (kernel-def hashes)."""
    first = min(n.index for n in graph.nodes)
    record = RuntimeOptimizationRecord(
        action_id="QDQ::SomeFusion",
        nodes_to_optimize_indices=NodesToOptimizeIndices(
            node_indices=np.array([first], dtype="<u4"), num_inputs=1, num_outputs=1
        ),
    )
    record.produced_nodes = [  # type: ignore[assignment]
        DeprecatedNodeIndexAndKernelDefHash(node_index=first + 1000, kernel_def_hash=fake_hash(1))
    ]
    return RuntimeOptimizations(
        records=[
            RuntimeOptimizationRecordContainerEntry(
                optimizer_name="QDQSelectorActionTransformer",
                runtime_optimization_records=[record],
            )
        ]
    )


def old_format(model: OrtModel, version: int, *, runtime_optimizations: bool = False) -> bytes:
    """``model`` (format 5 or 6, not modified) as an .ort file of format ``version`` (1-4)."""
    if version not in (1, 2, 3, 4):
        raise ValueError(f"old formats are 1 to 4, not {version}")
    md = model.model
    assert md is not None and md.graph is not None
    for om_graph in model.graphs():
        if om_graph.runtime_optimizations is not None:
            raise ValueError("the source holds runtime optimizations of format 5 or later")
    problems = formats.unrepresentable(model, 5)
    if problems:
        raise ValueError(f"not representable before format 6: {problems[0]}")
    graph = md.graph
    if version == 1 and any(g.sparse_initializers for g in model.graphs()):
        raise ValueError("format 1 has no sparse initializers")
    if runtime_optimizations:
        graph = dataclasses.replace(graph, runtime_optimizations=hashed_optimizations(graph))
    md = dataclasses.replace(
        md, graph=graph, graph_doc_string=md.graph_doc_string if version >= 3 else ""
    )
    root: dict[str, Any] = {
        "ort_version": str(version),
        "model": md,
        "session_state": _session_state(graph),
    }
    return bytes(build_bytes(_BUILDER, root))
