"""Our .ort against the installed onnxruntime release's own converter, case by case.

For each corpus case (:mod:`ort_write.corpus`: the node cases and the data
models; a case the release cannot run from its .onnx is outside):

1. **ours**: :func:`ort_write.corpus.run_case` writes our .ort in the format
   version the release loads (:data:`ort_write.peer.FORMAT_VERSION`: 5 for
   1.13-1.15, 6 from 1.16 on), runs it and compares with the .onnx run;
2. **theirs**: the release's own converter writes an .ort of the same .onnx
   and that file runs on the same inputs.  The converter is an
   ``InferenceSession`` with ``optimized_model_filepath`` and
   ``session.save_model_format=ORT`` at ``ORT_DISABLE_ALL``: that is the
   session ``python -m onnxruntime.tools.convert_onnx_models_to_ort`` opens
   for each model, here in process (no subprocess per model) and at the
   level of our writer, which optimizes nothing (the tool's default level
   ``all`` fuses nodes, which changes float results for reasons that have
   nothing to do with the file);
3. **readable**: wireplan loads their file (every table) and ``to_onnx``
   converts it; the converted .onnx runs like their .ort.

The claim checked: wherever their .ort runs identically to the .onnx, ours
does too (:func:`misses` lists where not, with what their file holds that
ours does not), and every
file of theirs is readable.

Run as a script for the whole corpus under the installed onnxruntime:
``python tests/ort_write/releases.py [--every N] [--only node|data]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import onnx
import onnxruntime as ort

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from onnx_corpus import same
from ort_write import corpus
from ort_write.peer import FORMAT_VERSION
from wireplan.errors import WireplanError
from wireplan.ort import load, to_onnx
from wireplan.ort.sessions import session


@dataclass
class Result:
    name: str
    ours: str  # a corpus.Outcome status: onnx-not-runnable, convert-failed, ..., identical
    ours_detail: str = ""
    theirs: str = ""  # not-saved | load-failed | run-failed | different | identical ("" if not run)
    theirs_detail: str = ""
    readable: str = ""  # "" (not tried) | "yes" | what failed: load, to_onnx, run, different
    readable_detail: str = ""
    # (domain, op_type) counts in their .ort minus ours, and ours minus theirs (misses only).
    only_theirs: Counter[str] = field(default_factory=Counter)
    only_ours: Counter[str] = field(default_factory=Counter)

    @property
    def runnable(self) -> bool:
        return self.ours != "onnx-not-runnable"

    @property
    def miss(self) -> bool:
        """Their .ort runs identically to the .onnx, ours does not."""
        return self.theirs == "identical" and self.ours != "identical"


def _run(path: Path, feeds: list[dict[str, Any]]) -> list[list[Any]]:
    sess = session(
        path,
        graph_optimization_level=corpus.OPT_LEVEL,
        intra_op_num_threads=1,
        inter_op_num_threads=1,
        log_severity_level=4,
    )
    return [sess.run(None, f) for f in feeds]


def own_converter(onnx_path: Path, ort_path: Path) -> None:
    """The release's own .ort of ``onnx_path`` (see the module docstring for why this way)."""
    opts = ort.SessionOptions()
    opts.graph_optimization_level = corpus.OPT_LEVEL
    opts.optimized_model_filepath = os.fspath(ort_path)
    opts.add_session_config_entry("session.save_model_format", "ORT")
    opts.log_severity_level = 4
    ort.InferenceSession(os.fspath(onnx_path), opts, providers=["CPUExecutionProvider"])


def _op_counts(path: Path) -> Counter[str]:
    with load(path) as om:
        return Counter(f"{n.domain or 'ai.onnx'}:{n.op_type}" for g in om.graphs() for n in g.nodes)


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0][:300]


def check(case: corpus.Case, workdir: Path) -> Result:
    ours = corpus.run_case(case, workdir)  # writes workdir/model.onnx and, if it can, model.ort
    result = Result(case.name, ours.status, ours.detail)
    if not result.runnable:
        return result
    onnx_path = workdir / "model.onnx"
    theirs_path = workdir / "theirs.ort"
    feeds = case.feeds or [{}]
    expected = _run(onnx_path, feeds)
    try:
        own_converter(onnx_path, theirs_path)
    except Exception as exc:  # onnxruntime's own pybind error types
        result.theirs, result.theirs_detail = "not-saved", _first_line(exc)
        return result
    try:
        got = _run(theirs_path, feeds)
    except WireplanError as exc:
        result.theirs, result.theirs_detail = "load-failed", _first_line(exc)
        got = None
    except Exception as exc:
        result.theirs, result.theirs_detail = "run-failed", _first_line(exc)
        got = None
    if got is not None:
        result.theirs = "identical" if same(expected, got) else "different"
    _check_readable(result, theirs_path, feeds, got)
    if result.miss:
        theirs_ops = _op_counts(theirs_path)
        ours_ops = _op_counts(workdir / "model.ort") if (workdir / "model.ort").exists() else None
        if ours_ops is not None:
            result.only_theirs = theirs_ops - ours_ops
            result.only_ours = ours_ops - theirs_ops
    return result


def _check_readable(
    result: Result, theirs_path: Path, feeds: list[dict[str, Any]], got: list[list[Any]] | None
) -> None:
    """Their file loads in wireplan, converts to ONNX, and that runs like their file."""
    step = "load"
    try:
        with load(theirs_path) as om:
            step = "to_onnx"
            proto = to_onnx(om)
        if got is None:  # their file does not run: nothing to compare the conversion with
            result.readable = "yes"
            return
        step = "run"
        back = theirs_path.with_suffix(".back.onnx")
        onnx.save(proto, os.fspath(back))
        again = _run(back, feeds)
    except Exception as exc:
        result.readable, result.readable_detail = step, _first_line(exc)
        return
    result.readable = "yes" if same(got, again) else "different"


def check_all(cases: Sequence[corpus.Case]) -> Iterator[Result]:
    with tempfile.TemporaryDirectory(prefix="wireplan-releases-") as tmp:
        for case in cases:
            for f in Path(tmp).iterdir():
                f.unlink()
            yield check(case, Path(tmp))


def misses(results: Sequence[Result]) -> list[Result]:
    """Cases whose .ort by the release's converter runs identically and ours does not."""
    return [r for r in results if r.miss]


def unreadable(results: Sequence[Result]) -> list[Result]:
    """Cases whose .ort by the release's converter wireplan cannot read or convert faithfully."""
    return [r for r in results if r.readable not in ("", "yes")]


def summarize(results: Sequence[Result]) -> str:
    runnable = [r for r in results if r.runnable]
    theirs_ok = [r for r in runnable if r.theirs == "identical"]
    ours_ok = [r for r in theirs_ok if r.ours == "identical"]
    readable = [r for r in runnable if r.readable == "yes"]
    saved = [r for r in runnable if r.theirs not in ("", "not-saved")]
    lines = [
        f"onnxruntime {ort.__version__}, onnx {onnx.__version__}, our format {FORMAT_VERSION}",
        f"cases: {len(results)}, the release runs the .onnx: {len(runnable)}",
        f"its own .ort: saved {len(saved)}, identical {len(theirs_ok)}; "
        f"ours identical among those: {len(ours_ok)}/{len(theirs_ok)}; "
        f"ours identical overall: {sum(r.ours == 'identical' for r in runnable)}/{len(runnable)}",
        f"its .ort files read by wireplan (load, to_onnx, run alike): {len(readable)}/{len(saved)}",
    ]
    for status, n in sorted(Counter(r.theirs for r in runnable if r.theirs != "identical").items()):
        names = [r.name for r in runnable if r.theirs == status][:4]
        lines.append(f"  own .ort {status}: {n} (e.g. {', '.join(names)})")
    for r in misses(results):
        diff = ""
        if r.only_theirs or r.only_ours:
            diff = f"; only theirs: {dict(r.only_theirs)}; only ours: {dict(r.only_ours)}"
        lines.append(f"  MISS {r.name}: ours {r.ours}: {r.ours_detail}{diff}")
    for r in unreadable(results):
        lines.append(f"  UNREADABLE {r.name}: {r.readable}: {r.readable_detail}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--every", type=int, default=1, help="check every N-th case only")
    p.add_argument("--only", choices=["node", "data"], default=None)
    args = p.parse_args(argv)
    groups = []
    if args.only in (None, "node"):
        groups.append(("node cases (collect_testcases)", corpus.node_cases()))
    if args.only in (None, "data"):
        groups.append(("models under onnx/backend/test/data", corpus.data_cases()))
    failed = False
    for title, cases in groups:
        start = time.perf_counter()
        results = list(check_all(cases[:: args.every]))
        print(f"## {title} ({time.perf_counter() - start:.0f} s)")
        print(summarize(results), flush=True)
        failed = failed or bool(misses(results) or unreadable(results))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
