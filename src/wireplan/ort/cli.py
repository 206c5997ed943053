"""The .ort part of the ``wireplan`` command line: ``convert``, ``inspect`` (``--operators``) and ``demo``."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from wireplan.errors import EncodeError
from wireplan.ort.reader import external_offsets, load, payload_offsets
from wireplan.ort.schema import FILE_IDENTIFIER, FORMAT_RELEASES

__all__ = ["alignment_of", "demo", "inspect", "operators", "register", "sniff"]

#: Alignments above this are reported together.
_ALIGN_CAP = 4096


def sniff(head: bytes) -> bool:
    """True when ``head`` (a file's first bytes) carries the .ort identifier "ORTM" at bytes 4..8."""
    return len(head) >= 8 and head[4:8] == FILE_IDENTIFIER


def alignment_of(offset: int, cap: int = _ALIGN_CAP) -> int:
    """The largest power of two (at most ``cap``) that divides ``offset``."""
    if offset == 0:
        return cap
    return min(offset & -offset, cap)


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def inspect(path: str | Path, out: TextIO) -> None:
    """Describe an .ort file: version, opsets, nodes by op type, initializers, payload alignment."""
    with load(path) as om:
        md = om.model
        assert md is not None
        size = Path(path).stat().st_size
        print(
            f"{path}: ONNX Runtime .ort model, format version {om.ort_version}, {_size(size)}",
            file=out,
        )
        written, loaded = FORMAT_RELEASES.get(om.ort_version, ("?", "?"))
        print(f"  onnxruntime: written by {written}; loaded by {loaded}", file=out)
        producer = " ".join(x for x in (md.producer_name, md.producer_version) if x) or "-"
        print(f"  ir_version {md.ir_version}, producer {producer}", file=out)
        opsets = ", ".join(f"{d or 'ai.onnx'} {v}" for d, v in om.opset_imports.items())
        print(f"  opsets: {opsets}", file=out)
        graphs = list(om.graphs())
        nodes = [n for g in graphs for n in g.nodes]
        by_op = Counter((f"{n.domain}:" if n.domain else "") + n.op_type for n in nodes)
        sub = len(nodes) - len(om.graph.nodes)
        print(
            f"  graph: {len(om.graph.nodes)} nodes"
            + (f" (+{sub} in {len(graphs) - 1} subgraphs)" if sub or len(graphs) > 1 else "")
            + f", {len(om.graph.inputs)} inputs, {len(om.graph.outputs)} outputs",
            file=out,
        )
        print(
            "  nodes by op type: " + ", ".join(f"{op} {k}" for op, k in by_op.most_common()),
            file=out,
        )
        inits = [t for g in graphs for t in g.initializers]
        sparse = sum(len(g.sparse_initializers) for g in graphs)
        payloads = payload_offsets(om)
        total = sum(n for _, _, _, n in payloads)
        print(
            f"  initializers: {len(inits)}"
            + (f" (+{sparse} sparse)" if sparse else "")
            + f", payload {_size(total)} in {len(payloads)} tensors",
            file=out,
        )
        if payloads:
            hist = Counter(alignment_of(off) for _, _, off, _ in payloads)
            parts = [f"{'>=' if a == _ALIGN_CAP else ''}{a}: {hist[a]}" for a in sorted(hist)]
            print(
                "  payload offset alignment (largest power of two): " + ", ".join(parts), file=out
            )
            for _, name, off, n in payloads[:8]:
                print(
                    f"    {name or '(unnamed)'}: offset {off} (aligned {alignment_of(off)}), {_size(n)}",
                    file=out,
                )
            if len(payloads) > 8:
                print(f"    ... {len(payloads) - 8} more", file=out)
        external = external_offsets(om)
        if external:
            from wireplan.ort.writer import companion_path

            companion = companion_path(path)
            print(
                f"  external data: {len(external)} tensors, "
                f"{_size(sum(n for *_, n in external))} in {companion.name} "
                f"({_size(companion.stat().st_size)})",
                file=out,
            )
            hist = Counter(alignment_of(off) for _, _, off, _ in external)
            parts = [f"{'>=' if a == _ALIGN_CAP else ''}{a}: {hist[a]}" for a in sorted(hist)]
            print("  external offset alignment: " + ", ".join(parts), file=out)
            for _, name, off, n in external[:8]:
                print(
                    f"    {name or '(unnamed)'}: external at {off} "
                    f"(aligned {alignment_of(off)}), {_size(n)}",
                    file=out,
                )
            if len(external) > 8:
                print(f"    ... {len(external) - 8} more", file=out)
        kr = om.kernel_type_str_resolver
        if kr is not None:
            print(f"  kernel type str resolver: {len(kr.op_kernel_type_str_args)} op ids", file=out)
        records = sum(
            len(e.runtime_optimization_records)
            for g in graphs
            if g.runtime_optimizations is not None
            for e in g.runtime_optimizations.records
        )
        if records:
            print(f"  runtime optimization records: {records}", file=out)


def operators(paths: Sequence[str | Path], out: TextIO, *, type_reduction: bool = False) -> None:
    """``wireplan inspect --operators``: the required_operators.config of ``paths``, merged."""
    from wireplan.ort.operators import required_operators

    out.write(required_operators([str(p) for p in paths], type_reduction=type_reduction))


@contextmanager
def _progress_bar(enabled: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A ``progress(done, total)`` callback drawing a tqdm bar on a terminal; None otherwise."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    try:
        from tqdm import tqdm
    except ImportError:
        yield None
        return
    bar: Any = None

    def update(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, leave=False)
        bar.total = total
        bar.update(done - bar.n)

    try:
        yield update
    finally:
        if bar is not None:
            bar.close()


def _cmd_convert(args: argparse.Namespace, out: TextIO) -> int:
    from wireplan.ort import convert

    src, dst = str(args.src), str(args.dst)
    to_onnx = src.lower().endswith(".ort") and dst.lower().endswith(".onnx")
    options: dict[str, Any] = {}
    if args.threads is not None:
        options["threads"] = args.threads
    if args.alignment is not None:
        options["alignment"] = args.alignment
    if args.no_fsync:
        options["durable"] = False
    options["external_data"] = args.external_data
    if args.size_threshold is not None:
        if not args.external_data:
            raise EncodeError("--size-threshold applies with --external-data only")
        options["size_threshold"] = args.size_threshold
    if args.reuse_data:
        if not (args.external_data and src.lower().endswith(".onnx")):
            raise EncodeError("--reuse-data applies to .onnx -> .ort with --external-data only")
        options["reuse_data"] = True
    if to_onnx:
        if args.no_float16_casts:
            raise EncodeError("--no-float16-casts applies to .onnx -> .ort conversion only")
        if args.format_version is not None:
            raise EncodeError("--format-version applies to conversions that write an .ort only")
    else:
        if args.no_float16_casts:
            options["float16_casts"] = False
        if args.format_version is not None:
            options["format_version"] = args.format_version
    with _progress_bar(True) as progress:
        if progress is not None:
            options["progress"] = progress
        convert(src, dst, **options)
    print(f"wrote {dst}", file=out)
    return 0


def register(subparsers: Any) -> None:
    """Add ``wireplan convert SRC DST``."""
    p = subparsers.add_parser(
        "convert",
        help="convert between .ort and .onnx models (the direction follows the suffixes)",
        description=(
            "Convert an .ort model to .onnx (lossless; --external-data puts the weights in "
            "DST.data at aligned offsets), an .onnx model to .ort (planned, aligned writer), "
            "or an .ort to the .ort format of another onnxruntime release (--format-version; "
            "formats 1 to 4 are read and upgraded; no onnxruntime needed)."
        ),
    )
    p.add_argument("src", help="the model to read (.ort or .onnx)")
    p.add_argument("dst", help="the model to write (.onnx or .ort)")
    p.add_argument(
        "--external-data",
        action="store_true",
        help="write the large weights to DST.data beside DST, each at a multiple of the "
        "alignment (for models past 2 GiB; an .ort so written runs through "
        "wireplan.ort.session, not through onnxruntime directly)",
    )
    p.add_argument(
        "--size-threshold",
        type=int,
        default=None,
        metavar="BYTES",
        help="with --external-data: tensors of at least this many bytes go to DST.data "
        "(default 1024)",
    )
    p.add_argument(
        "--reuse-data",
        action="store_true",
        help=".onnx -> .ort with --external-data: keep the weights where they are in the "
        ".onnx's (aligned) data file; DST.data becomes a hard link to it",
    )
    p.add_argument(
        "--alignment",
        type=int,
        default=None,
        metavar="N",
        help="payload alignment in bytes, a power of two (.onnx -> .ort: default 64, "
        "external data included; .ort -> .onnx with --external-data: default 4096)",
    )
    p.add_argument(
        "--threads", type=int, default=None, metavar="N", help="threads copying payloads"
    )
    p.add_argument(
        "--no-fsync",
        action="store_true",
        help="skip fsync: still atomic (temporary file + rename) if the process fails or is "
        "killed, but a power loss or OS crash may leave DST empty or partial",
    )
    p.add_argument(
        "--format-version",
        type=int,
        choices=(5, 6),
        default=None,
        metavar="{5,6}",
        help="the .ort format to write: 6 (default; onnxruntime 1.16 and later) or 5 "
        "(onnxruntime 1.13 to 1.15; no float8 types)",
    )
    p.add_argument(
        "--no-float16-casts",
        action="store_true",
        help=".onnx -> .ort: write float16 nodes that lack a float16 CPU kernel as they are "
        "(by default, with onnxruntime installed, they get the Casts onnxruntime adds when it "
        "loads an .onnx, so the .ort runs where the .onnx runs)",
    )
    p.set_defaults(handler=_cmd_convert)


def demo(out: TextIO, workdir: Path) -> None:
    """The .ort part of ``wireplan demo`` (in :mod:`wireplan.ort.demo`)."""
    from wireplan.ort.demo import run  # type: ignore[import-untyped,import-not-found,unused-ignore]

    run(out, workdir)
