"""The .ort part of the ``wireplan`` command line: the ``ort`` group, ``convert``, ``inspect``, ``demo``.

``wireplan ort convert``, ``wireplan ort inspect`` and ``wireplan ort
operators`` are the group's verbs, as ``wireplan dsdl ...`` and ``wireplan
evalue ...`` are the other wings'.  The top-level ``wireplan convert`` (the
same command as ``wireplan ort convert``) and ``wireplan inspect`` (which
asks :func:`sniff`, :func:`inspect`, :func:`summary` and, for
``--operators``, :func:`operators`) stay, since they take any file.
``inspect`` and ``summary`` describe .ort models and .onnx models (the
latter through :mod:`wireplan.ort.onnx`, which needs ``onnx``);
``summary`` gives the JSON-ready facts of ``wireplan inspect --json``, the
text of ``inspect`` is drawn from the same facts (docs/cli.md).  ``convert``'s
flags and folders are :mod:`wireplan.ort.convert_cli`'s.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from wireplan.core.text import count, in_file, size
from wireplan.errors import ArgumentError, DecodeError
from wireplan.ort.convert_cli import add_convert, files_under
from wireplan.ort.demo import run as run_demo
from wireplan.ort.model import companion_path
from wireplan.ort.operators import required_operators
from wireplan.ort.protowire import looks_like_onnx
from wireplan.ort.reader import external_offsets, load, payload_offsets, tensor_problems
from wireplan.ort.schema import FILE_IDENTIFIER, FORMAT_RELEASES

__all__ = [
    "alignment_of",
    "demo",
    "folder_files",
    "inspect",
    "operators",
    "register",
    "sniff",
    "sniff_file",
    "summary",
]

#: Alignments above this are reported together.
_ALIGN_CAP = 4096
#: Payloads listed one by one by ``inspect``.
_SHOWN = 8


def sniff(head: bytes) -> bool:
    """True when ``head`` (a file's first bytes) carries the .ort identifier "ORTM" at bytes 4..8."""
    return len(head) >= 8 and head[4:8] == FILE_IDENTIFIER


def sniff_file(path: Path, head: bytes) -> bool:
    """True for an .onnx model: the suffix ``.onnx``, or first bytes as ``onnx.save`` writes them
    (:func:`~wireplan.ort.protowire.looks_like_onnx`).

    Asked after every format with a magic (.ort, EValue) declined; no EValue starts
    like an .onnx (their tags are 0 to 5, a protobuf key is 8 or more).
    """
    return path.suffix.lower() == ".onnx" or looks_like_onnx(head)


def alignment_of(offset: int, cap: int = _ALIGN_CAP) -> int:
    """The largest power of two (at most ``cap``) that divides ``offset``."""
    if offset == 0:
        return cap
    return min(offset & -offset, cap)


def _is_ort(path: Path) -> bool:
    with path.open("rb") as f:
        return sniff(f.read(8))


def _alignments(offsets: Sequence[int]) -> dict[str, int]:
    """``{alignment: count}`` of payload offsets, smallest first; the cap means "or more"."""
    hist = Counter(alignment_of(off) for off in offsets)
    return {str(a): hist[a] for a in sorted(hist)}


def _ort_facts(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``summary`` of an .ort, and what only the text shows (offsets, resolver, records)."""
    with load(path, verify="all") as om:  # inspecting a file says whether all of it is sound
        md = om.model
        assert md is not None
        graphs = list(om.graphs())
        nodes = [n for g in graphs for n in g.nodes]
        by_op = Counter((f"{n.domain}:" if n.domain else "") + n.op_type for n in nodes)
        payloads = payload_offsets(om)
        external = external_offsets(om)
        ext: dict[str, Any] | None = None
        extra: dict[str, Any] = {"payloads": payloads, "external": external}
        if external:
            companion = companion_path(path)
            ext = {
                "file": companion.name,
                "tensors": len(external),
                "bytes": sum(n for *_, n in external),
            }
            extra["companion_size"] = companion.stat().st_size
        kr = om.kernel_type_str_resolver
        extra["resolver_ops"] = None if kr is None else len(kr.op_kernel_type_str_args)
        extra["optimization_records"] = sum(
            len(e.runtime_optimization_records)
            for g in graphs
            if g.runtime_optimizations is not None
            for e in g.runtime_optimizations.records
        )
        facts = {
            "format": "ort",
            "size": path.stat().st_size,
            "format_version": int(om.ort_version),
            "ir_version": int(md.ir_version),
            "producer": " ".join(x for x in (md.producer_name, md.producer_version) if x),
            "opsets": {(d or "ai.onnx"): int(v) for d, v in om.opset_imports.items()},
            "nodes": len(om.graph.nodes),
            "subgraph_nodes": len(nodes) - len(om.graph.nodes),
            "subgraphs": len(graphs) - 1,
            "nodes_by_op": dict(sorted(by_op.items(), key=lambda kv: (-kv[1], kv[0]))),
            "inputs": list(om.graph.inputs),
            "outputs": list(om.graph.outputs),
            "initializers": sum(len(g.initializers) for g in graphs),
            "sparse_initializers": sum(len(g.sparse_initializers) for g in graphs),
            "payload_bytes": sum(n for *_, n in payloads),
            "payload_tensors": len(payloads),
            "payload_alignment": _alignments([off for _, _, off, _ in payloads]),
            "external_data": ext,
            "problems": [str(e) for e in tensor_problems(om)],
        }
        return facts, extra


def _onnx_facts(path: Path) -> dict[str, Any]:
    """The ``summary`` of an .onnx (with ``_offsets``, the payloads the text lists)."""
    from wireplan.ort.onnx.facts import onnx_facts

    facts: dict[str, Any] = {"format": "onnx", "size": path.stat().st_size}
    for key, value in onnx_facts(path).items():
        if key == "payload_offsets":
            facts["_offsets"] = value
            continue
        if key == "external_data":
            facts["payload_alignment"] = _alignments([off for _, off, _ in facts["_offsets"]])
        facts[key] = value
    return facts


def summary(path: str | Path, **options: Any) -> dict[str, Any]:
    """``wireplan inspect --json``: the facts of an .ort or .onnx model (schema in docs/cli.md).

    ``format`` (``"ort"`` or ``"onnx"``), ``size``, ``format_version`` (.ort),
    ``ir_version``, ``producer``, ``opsets``, ``nodes``, ``subgraph_nodes``,
    ``subgraphs``, ``nodes_by_op``, ``inputs``, ``outputs``, ``initializers``,
    ``sparse_initializers``, ``payload_bytes``, ``payload_tensors``,
    ``payload_alignment``, ``external_data``; ``problems`` (.ort: tensors
    whose payload disagrees with their shape, which conversion refuses) or
    ``functions`` (.onnx).  No option applies (``record`` is refused).
    """
    if options:
        raise ArgumentError(f"--{next(iter(options))} applies to EValue record files")
    path = Path(path)
    try:
        if _is_ort(path):
            return _ort_facts(path)[0]
        facts = _onnx_facts(path)
    except DecodeError as exc:
        raise in_file(path, exc) from None
    del facts["_offsets"]
    return facts


def _print_common(facts: dict[str, Any], out: TextIO) -> None:
    """The lines an .ort and an .onnx share: producer, opsets, graph, op types, initializers."""
    producer = facts["producer"] or "-"
    print(f"  ir_version {facts['ir_version']}, producer {producer}", file=out)
    opsets = ", ".join(f"{d} {v}" for d, v in facts["opsets"].items())
    print(f"  opsets: {opsets or '-'}", file=out)
    sub, graphs = facts["subgraph_nodes"], facts["subgraphs"]
    print(
        f"  graph: {count(facts['nodes'], 'node')}"
        + (f" (+{sub} in {count(graphs, 'subgraph')})" if sub or graphs else "")
        + f", {count(len(facts['inputs']), 'input')}, {count(len(facts['outputs']), 'output')}",
        file=out,
    )
    ops = ", ".join(f"{op} {k}" for op, k in facts["nodes_by_op"].items())
    print(f"  nodes by op type: {ops or '-'}", file=out)
    sparse = facts["sparse_initializers"]
    print(
        f"  initializers: {facts['initializers']}"
        + (f" (+{sparse} sparse)" if sparse else "")
        + f", payload {size(facts['payload_bytes'])} in "
        + count(facts["payload_tensors"], "tensor"),
        file=out,
    )
    if facts["payload_alignment"]:
        parts = [
            f"{'>=' if int(a) == _ALIGN_CAP else ''}{a}: {k}"
            for a, k in facts["payload_alignment"].items()
        ]
        print("  payload offset alignment (largest power of two): " + ", ".join(parts), file=out)


def _print_offsets(items: Sequence[tuple[str, int, int]], where: str, out: TextIO) -> None:
    for name, off, n in items[:_SHOWN]:
        print(
            f"    {name or '(unnamed)'}: {where}{off} (aligned {alignment_of(off)}), {size(n)}",
            file=out,
        )
    if len(items) > _SHOWN:
        print(f"    ... {len(items) - _SHOWN} more", file=out)


def inspect(path: str | Path, out: TextIO, **options: Any) -> None:
    """Describe an .ort or .onnx model: versions, opsets, nodes by op type, initializers, payloads.

    A damaged file raises a :class:`~wireplan.DecodeError` whose message starts with the file.
    """
    if options:
        raise ArgumentError(f"--{next(iter(options))} applies to EValue record files")
    path = Path(path)
    try:
        if _is_ort(path):
            _inspect_ort(path, out)
        else:
            _inspect_onnx(path, out)
    except DecodeError as exc:
        raise in_file(path, exc) from None


def _inspect_ort(path: Path, out: TextIO) -> None:
    facts, extra = _ort_facts(path)
    version = facts["format_version"]
    print(
        f"{path}: ONNX Runtime .ort model, format version {version}, {size(facts['size'])}",
        file=out,
    )
    written, loaded = FORMAT_RELEASES.get(str(version), ("?", "?"))
    print(f"  onnxruntime: written by {written}; loaded by {loaded}", file=out)
    _print_common(facts, out)
    _print_offsets([(name, off, n) for _, name, off, n in extra["payloads"]], "offset ", out)
    ext = facts["external_data"]
    if ext is not None:
        print(
            f"  external data: {count(ext['tensors'], 'tensor')}, {size(ext['bytes'])} in "
            f"{ext['file']} ({size(extra['companion_size'])})",
            file=out,
        )
        offsets = [off for _, _, off, _ in extra["external"]]
        parts = [
            f"{'>=' if int(a) == _ALIGN_CAP else ''}{a}: {k}"
            for a, k in _alignments(offsets).items()
        ]
        print("  external offset alignment: " + ", ".join(parts), file=out)
        items = [(name, off, n) for _, name, off, n in extra["external"]]
        _print_offsets(items, "external at ", out)
    if extra["resolver_ops"] is not None:
        print(f"  kernel type str resolver: {count(extra['resolver_ops'], 'op id')}", file=out)
    if extra["optimization_records"]:
        print(f"  runtime optimization records: {extra['optimization_records']}", file=out)
    for problem in facts["problems"][:_SHOWN]:
        print(f"  problem (convert refuses this model): {problem}", file=out)
    if len(facts["problems"]) > _SHOWN:
        print(f"    ... {len(facts['problems']) - _SHOWN} more problems", file=out)


def _inspect_onnx(path: Path, out: TextIO) -> None:
    facts = _onnx_facts(path)
    print(f"{path}: ONNX model, {size(facts['size'])}", file=out)
    _print_common(facts, out)
    _print_offsets(facts["_offsets"], "offset ", out)
    if facts["functions"]:
        print(f"  model-local functions: {facts['functions']}", file=out)
    ext = facts["external_data"]
    if ext is not None:
        print(
            f"  external data: {count(ext['tensors'], 'tensor')}, {size(ext['bytes'])} in "
            + ", ".join(ext["files"]),
            file=out,
        )


def folder_files(folder: str | Path) -> list[Path]:
    """The .ort and .onnx models in ``folder`` and its sub-folders, in order of path: what
    ``wireplan inspect FOLDER`` describes one by one (when no EValue record file is there)."""
    return sorted([*files_under(folder, ".ort"), *files_under(folder, ".onnx")])


def operators(paths: Sequence[str | Path], out: TextIO, *, type_reduction: bool = False) -> None:
    """``wireplan inspect --operators``: the required_operators.config of ``paths``, merged.

    A folder stands for the .ort models in it and its sub-folders (what a converted folder
    holds: ``wireplan convert models/ out/``).  A damaged model raises a
    :class:`~wireplan.DecodeError` whose message starts with its path.
    """
    files = []
    for p in paths:
        if not Path(p).is_dir():
            files.append(str(p))
            continue
        found = files_under(p, ".ort")
        if not found:
            raise ArgumentError(f"{p}: a folder holding no .ort model")
        files += map(str, found)
    current: list[str] = []

    def each() -> Iterator[str]:
        for f in files:
            current[:] = [f]
            yield f

    try:
        text = required_operators(each(), type_reduction=type_reduction)
    except DecodeError as exc:
        raise (in_file(current[0], exc) if current else exc) from None
    out.write(text)


def _cmd_operators(args: argparse.Namespace, out: TextIO) -> int:
    operators(args.file, out, type_reduction=args.type_reduction)
    return 0


def register(subparsers: Any) -> Any:
    """Add ``wireplan ort convert|operators`` and the top-level ``wireplan convert``; return the
    group's verbs (:mod:`wireplan.cli` adds ``inspect``)."""
    add_convert(subparsers)
    group = subparsers.add_parser(
        "ort",
        help="ONNX Runtime .ort models: convert, inspect, list the operators they need",
        description="ONNX Runtime .ort models (and .onnx models, converted to .ort or inspected).",
    )
    verbs = group.add_subparsers(dest="ort_command", metavar="SUBCOMMAND")
    verbs.required = True
    add_convert(verbs)
    ops = verbs.add_parser(
        "operators",
        help="print the required_operators.config of a reduced onnxruntime build",
        description="Print the required_operators.config of a reduced onnxruntime build for the "
        ".ort or .onnx models given (several are merged into one config), as onnxruntime's "
        "create_config_from_models writes it; an .onnx counts as the .ort wireplan would "
        "write (what wireplan inspect --operators prints).",
    )
    ops.add_argument(
        "file",
        nargs="+",
        metavar="FILE",
        help="the .ort or .onnx model(s); a folder: the .ort models in it and its sub-folders",
    )
    ops.add_argument(
        "--type-reduction",
        action="store_true",
        help="add the per-operator types (onnxruntime's --enable_type_reduction)",
    )
    ops.set_defaults(handler=_cmd_operators)
    return verbs


def demo(out: TextIO, workdir: Path) -> None:
    """The .ort part of ``wireplan demo`` (in :mod:`wireplan.ort.demo`)."""
    run_demo(out, workdir)
