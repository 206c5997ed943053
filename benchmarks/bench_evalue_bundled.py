"""ExecuTorch bundled programs: wireplan against the flatbuffers package, same files, same run.

Run: ``.venv/bin/python benchmarks/bench_evalue_bundled.py [--repeat N] [--markdown docs/benchmarks.md]``

A bundled program (``.bpte``) with test cases of one float32 input and one
float32 expected output each, at three sizes, is

- read: ``wireplan.evalue.decode_bundled(data)`` (verified; owned, native-endian
  arrays) against the flatbuffers package's ``Table`` walking the same buffer
  by vtable slot, each tensor taken with ``GetVectorAsNumpy`` and copied to an
  owned array (no verification: the package has no Python verifier);
- written: ``encode_bundled(program, cases)`` against ``flatbuffers.Builder``
  writing the same tables, each tensor's bytes (``tobytes()``) into a vector
  aligned at 16, as the schema asks.

Each round times both, in alternating order; the table gives medians of the
times and of the per-round ratios.  Not measured: file I/O (both work on
bytes in memory), zero-copy reading (``copy=False``, constant per tensor),
the embedded program's own size (a few hundred bytes here).
"""

from __future__ import annotations

import argparse
import statistics
import struct
import sys
import time
from collections.abc import Callable
from functools import partial
from importlib.metadata import version
from pathlib import Path
from typing import Any

import flatbuffers
import numpy as np
from flatbuffers import number_types as N
from flatbuffers.table import Table

import report
from wireplan.evalue import BundledTestCase, decode_bundled, encode_bundled

# (tensor elements, test cases): 1 KiB x 4096, 64 KiB x 256, 4 MiB x 4: 4-16 MiB per side.
SIZES = ((256, 4096), (16384, 256), (1 << 20, 4))
TABLE = "float32 tensor | cases: | act | wireplan: | flatbuffers: | speed-up:"


def _program() -> bytes:
    """The smallest ExecuTorch program header a bundled program accepts: a Program table."""
    b = flatbuffers.Builder(0)
    b.StartObject(8)
    b.Finish(b.EndObject(), file_identifier=b"ET12")
    return bytes(b.Output())


def _peer_write(
    program: bytes, cases: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]]
) -> bytes:
    b = flatbuffers.Builder(1 << 20)

    def data(raw: bytes, alignment: int) -> int:
        b.StartVector(1, len(raw), alignment)
        b.head -= len(raw)
        b.Bytes[b.head : b.head + len(raw)] = raw
        return int(b.EndVector())

    def vector(offsets: list[int]) -> int:
        b.StartVector(4, len(offsets), 4)
        for o in reversed(offsets):
            b.PrependUOffsetTRelative(o)
        return int(b.EndVector())

    def value(arr: np.ndarray[Any, Any]) -> int:
        d = data(arr.astype("<f4", copy=False).tobytes(), 16)
        order = b.CreateNumpyVector(np.arange(arr.ndim, dtype=np.uint8))
        sizes = b.CreateNumpyVector(np.array(arr.shape, np.int32))
        b.StartObject(4)
        b.PrependInt8Slot(0, 6, 0)
        b.PrependUOffsetTRelativeSlot(1, sizes, 0)
        b.PrependUOffsetTRelativeSlot(2, d, 0)
        b.PrependUOffsetTRelativeSlot(3, order, 0)
        tensor = b.EndObject()
        b.StartObject(2)
        b.PrependUint8Slot(0, 1, 0)
        b.PrependUOffsetTRelativeSlot(1, tensor, 0)
        return int(b.EndObject())

    tables = []
    for x, y in cases:
        ins, outs = vector([value(x)]), vector([value(y)])
        b.StartObject(2)
        b.PrependUOffsetTRelativeSlot(0, ins, 0)
        b.PrependUOffsetTRelativeSlot(1, outs, 0)
        tables.append(b.EndObject())
    cases_at = vector(tables)
    name = b.CreateString("forward")
    b.StartObject(2)
    b.PrependUOffsetTRelativeSlot(0, name, 0)
    b.PrependUOffsetTRelativeSlot(1, cases_at, 0)
    suites = vector([b.EndObject()])
    prog = data(program, 32)
    b.StartObject(3)
    b.PrependUint32Slot(0, 2, 0)
    b.PrependUOffsetTRelativeSlot(1, suites, 0)
    b.PrependUOffsetTRelativeSlot(2, prog, 0)
    b.Finish(b.EndObject(), file_identifier=b"BP08")
    return bytes(b.Output())


def _peer_read(buf: bytes) -> list[list[np.ndarray[Any, Any]]]:
    def tables(t: Table, slot: int) -> list[Table]:
        o = t.Offset(4 + 2 * slot)
        start = t.Vector(o)
        return [Table(t.Bytes, t.Indirect(start + 4 * i)) for i in range(t.VectorLen(o))]

    out = []
    root = Table(buf, struct.unpack_from("<I", buf)[0])
    for suite in tables(root, 1):
        for case in tables(suite, 1):
            arrays = []
            for v in tables(case, 0) + tables(case, 1):
                m = Table(buf, 0)
                v.Union(m, v.Offset(6))
                sizes = m.GetVectorAsNumpy(N.Int32Flags, m.Offset(6))  # Tensor.sizes, slot 1
                raw = m.GetVectorAsNumpy(N.Uint8Flags, m.Offset(8))  # Tensor.data, slot 2
                arrays.append(raw.view("<f4").reshape(tuple(sizes)).astype(np.float32))
            out.append(arrays)
    return out


def _time(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def measure(repeat: int) -> list[dict[str, Any]]:
    program = _program()
    rng = np.random.default_rng(0)
    runs = []
    for elements, count in SIZES:
        pairs = [
            (
                rng.standard_normal(elements, dtype=np.float32),
                rng.standard_normal(elements, dtype=np.float32),
            )
            for _ in range(count)
        ]
        cases = [BundledTestCase("forward", [x], [y]) for x, y in pairs]
        ours = encode_bundled(program, cases)
        theirs = _peer_write(program, pairs)
        # Both read both: the same values, so the same work.
        for buf in (ours, theirs):
            got = decode_bundled(buf).test_cases
            peer = _peer_read(buf)
            assert all(np.array_equal(c.inputs[0], x) for c, (x, _) in zip(got, pairs, strict=True))
            assert all(np.array_equal(p[1], y) for p, (_, y) in zip(peer, pairs, strict=True))
        acts: dict[str, tuple[Callable[[], object], Callable[[], object]]] = {
            "read": (partial(decode_bundled, ours), partial(_peer_read, ours)),
            "write": (
                partial(encode_bundled, program, cases),
                partial(_peer_write, program, pairs),
            ),
        }
        for act, (mine, peer_fn) in acts.items():
            times: dict[str, list[float]] = {"wireplan": [], "flatbuffers": []}
            for r in range(repeat):
                order = [("wireplan", mine), ("flatbuffers", peer_fn)]
                for name, fn in order if r % 2 == 0 else order[::-1]:
                    times[name].append(_time(fn))
            runs.append({"elements": elements, "count": count, "act": act, "times": times})
    return runs


def _size(elements: int) -> str:
    kib = elements * 4 // 1024
    return f"{kib // 1024} MiB" if kib >= 1024 else f"{kib} KiB"


def rows(runs: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for run in runs:
        ours, theirs = run["times"]["wireplan"], run["times"]["flatbuffers"]
        ratio = statistics.median(t / o for o, t in zip(ours, theirs, strict=True))
        out.append(
            (
                _size(run["elements"]),
                str(run["count"]),
                run["act"],
                f"{statistics.median(ours) * 1e3:.1f} ms",
                f"{statistics.median(theirs) * 1e3:.1f} ms",
                f"{ratio:.1f}x",
            )
        )
    return out


def render(r: dict[str, Any]) -> str:
    """The page's ``evalue-bundled`` section."""
    return report.join(
        report.head(
            "EValue: ExecuTorch bundled programs",
            r["command"],
            r["date"],
            {
                "Machine": r["machine"],
                "Versions": r["versions"],
                "Method": "test cases of one float32 input and output, read to owned arrays and "
                "written from them by wireplan and by the flatbuffers package (`Table`, "
                f"`Builder`); in memory, medians of {r['repeat']} rounds and of per-round ratios",
            },
        ),
        report.table(TABLE, r["rows"]),
        ["Not measured: file I/O, zero-copy reads, the flatbuffers package's missing verifier."],
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--markdown", help="write the section into this page")
    args = parser.parse_args(argv)
    load = report.loadavg()
    runs = measure(args.repeat)
    result = {
        "command": report.command("bench_evalue_bundled.py", argv),
        "date": report.today(),
        "machine": report.machine((load, report.loadavg())),
        "versions": report.versions(numpy=np.__version__, flatbuffers=version("flatbuffers")),
        "repeat": args.repeat,
        "rows": rows(runs),
    }
    body = render(result)
    print(body)
    if args.markdown:
        report.update(Path(args.markdown), "evalue-bundled", body)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
