"""Benchmark: models that PyPI packages ship, .onnx -> .ort -> a session, ours next to onnxruntime's.

Run: ``.venv/bin/python benchmarks/bench_ort_models.py [--repeat 5] [--runs 20]
[--models name,...] [--plot docs/figures] [--markdown docs/benchmarks.md]``

Every model of ``tests/ort_write/shipped.py`` (``MODELS``, as it holds at run time;
``--models`` picks some), copied into a temporary folder under ``--dir``, warm page
cache, everything in this one process:

1. Convert .onnx -> .ort in each optimization style (fixed, runtime, none):
   ``wireplan.ort.convert(src, dst, optimization=S, durable=False)`` against
   onnxruntime's converter called in-process: the ``_convert`` function that
   ``convert_onnx_models_to_ort`` runs once per style, with the session config it
   passes (``session.qdqisint8allowed`` = ``"0"``); not timed: the
   ``required_operators.config`` that the tool writes afterwards, and the second,
   temporary conversion it makes in the runtime style for that config.  For
   ``none``, its level ``disable`` (``ORT_CONVERT_ONNX_MODELS_TO_ORT_OPTIMIZATION_LEVEL``).
   Neither side fsyncs; ``os.sync()`` runs before each conversion, untimed.
2. Load: ``wireplan.ort.load`` of our ``none`` .ort (the graph and weights of the
   .onnx) and ``raw_data`` of every tensor of ``OrtModel.tensors()`` (initializers and
   tensor attributes; numpy views into the mapping), closed again, against
   ``onnx.load`` of the .onnx; the same with ``verify="all"`` (the whole file checked
   first); and ``load`` alone (what decoding is deferred stays undone).  Each load case
   starts after the same untimed read of 64 MiB (:func:`flush_caches`), so that none
   inherits warm CPU caches from the case run before it.
3. Sessions: creation and the first ``run`` from our .ort and from onnxruntime's
   .ort of the same style, both through ``wireplan.ort.session`` (the file mapped,
   initializers used in place: ``session.use_memory_mapped_ort_model`` and
   ``session.use_ort_model_bytes_for_initializers``), and from the .onnx at the
   level that gives the same graph (``fixed``: ORT_ENABLE_ALL without
   ``NchwcTransformer``, as the converter; ``none``: ORT_DISABLE_ALL).  ``fixed`` and
   ``none`` .ort files run at ORT_DISABLE_ALL, as a reduced build has no optimizers;
   ``runtime`` at ORT_ENABLE_ALL with ``session.enable_saved_runtime_optimizations``
   = ``"1"``: onnxruntime replays the saved records only at ORT_ENABLE_EXTENDED or
   above (an extended minimal build's default is ALL) and ignores them at
   ORT_DISABLE_ALL.  One intra-op thread everywhere.

1-3 run in ``--repeat`` rounds after one untimed round: each round runs every case
once, models and the cases of a model in an order rotated from round to round, so
that load from other jobs falls on all alike.  Medians and ranges (min-max); a ratio
is the median of the per-round ratios (the two sides run in the same round).

4. Steady state: one session per style on our .ort (as in 3.), 3 warm-up runs, then
   ``--runs`` runs, the styles interleaved run by run; medians.

``--plot DIR`` draws the load and convert ratios against node count as
``DIR/ort-models.svg`` (needs matplotlib).  Not measured: cold page cache, fsync
(``durable=True``, the default, adds it to ours), threads > 1, other execution
providers, reduced builds themselves (a full build stands in for them, as said).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from onnxruntime.tools import convert_onnx_models_to_ort as converter

import report
import wireplan
import wireplan.ort
from figures import environment, require, require_ticker

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from ort_write import shipped  # noqa: E402

STYLES = ("fixed", "runtime", "none")
# onnxruntime's converter: its level string and style for each of our styles, and the
# file name it gives the output.
_LEVEL = {"fixed": "all", "runtime": "all", "none": "disable"}
_THEIR_STYLE = {
    "fixed": converter.OptimizationStyle.Fixed,
    "runtime": converter.OptimizationStyle.Runtime,
    "none": converter.OptimizationStyle.Fixed,
}
_REPLAY = {"session.enable_saved_runtime_optimizations": "1"}
_WARMUP = 3


@dataclass
class Case:
    """One timed case: ``fn(times)`` appends its own timings (one or more kinds) per call.

    ``prepare`` runs untimed before each call.  A case that raises in the untimed
    round is left out of the timed ones, with what it raised in ``failed``.
    """

    key: tuple[str, ...]
    fn: Callable[[dict[str, list[float]]], None]
    prepare: Callable[[], None] | None = None
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    failed: str | None = None

    def once(self, timed: bool) -> None:
        if self.failed is not None:
            return
        if self.prepare is not None:
            self.prepare()
        if timed:
            self.fn(self.times)
            return
        try:
            self.fn(defaultdict(list))
        except Exception as exc:  # wireplan's or onnxruntime's own exception types
            self.failed = str(exc).strip().splitlines()[0]


def timed(fn: Callable[[], Any]) -> Callable[[dict[str, list[float]]], None]:
    def run(times: dict[str, list[float]]) -> None:
        start = time.perf_counter()
        fn()
        times["time"].append(time.perf_counter() - start)

    return run


def theirs_convert(src: Path, out: Path, style: str) -> Path:
    """onnxruntime's converter in-process, one style, as ``convert_onnx_models_to_ort`` calls it."""
    with contextlib.redirect_stdout(io.StringIO()):
        (path,) = converter._convert(
            model_path_or_dir=src,
            output_dir=out,
            optimization_level_str=_LEVEL[style],
            optimization_style=_THEIR_STYLE[style],
            custom_op_library=None,
            create_optimized_onnx_model=False,
            allow_conversion_failures=False,
            target_platform=None,
            session_options_config_entries={"session.qdqisint8allowed": "0"},
        )
    return Path(path)


def ours_convert(src: Path, dst: Path, style: str) -> None:
    wireplan.ort.convert(src, dst, optimization=style, durable=False)


def ours_load(path: Path, payloads: bool = True, verify: str = "access") -> None:
    with wireplan.ort.load(path, verify=verify) as om:
        if payloads:
            for t in om.tensors():
                _ = t.raw_data  # a view of the payload


def ort_session(path: Path, style: str) -> Any:
    """Our .ort or onnxruntime's, as a reduced build opens it (the runtime style replayed)."""
    runtime = style == "runtime"
    return wireplan.ort.session(
        path,
        config=_REPLAY if runtime else None,
        graph_optimization_level=ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if runtime
        else ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
        intra_op_num_threads=1,
        log_severity_level=3,
    )


def onnx_session(path: Path, style: str) -> Any:
    """The .onnx at the level that gives the graph of our ``style``'s .ort."""
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    disabled = None
    if style == "fixed":
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        disabled = ["NchwcTransformer"]
    else:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(
        str(path), so, providers=["CPUExecutionProvider"], disabled_optimizers=disabled
    )


def session_case(open_: Callable[[], Any], feeds: dict[str, Any]) -> Callable[..., None]:
    def run(times: dict[str, list[float]]) -> None:
        start = time.perf_counter()
        s = open_()
        mid = time.perf_counter()
        s.run(None, feeds)
        end = time.perf_counter()
        times["create"].append(mid - start)
        times["first"].append(end - mid)
        del s

    return run


def onnx_nodes(g: onnx.GraphProto) -> int:
    """Nodes of a graph and of its subgraphs."""
    n = 0
    for node in g.node:
        n += 1
        for a in node.attribute:
            if a.HasField("g"):
                n += onnx_nodes(a.g)
            for sub in a.graphs:
                n += onnx_nodes(sub)
    return n


def ort_nodes(path: Path) -> int:
    with wireplan.ort.load(path) as om:
        return sum(len(g.nodes) for g in om.graphs())


def _clear(folder: Path) -> None:
    for p in folder.iterdir():
        if p.is_dir():
            shutil.rmtree(p)
        else:
            p.unlink()


@dataclass
class Model:
    name: str
    src: Path
    feeds: dict[str, Any]
    ours: dict[str, Path] = field(default_factory=dict)
    theirs: dict[str, Path] = field(default_factory=dict)
    cases: list[Case] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)


def prepare(m: shipped.Shipped, work: Path) -> Model:
    """The source copied into ``work``, and our and onnxruntime's .ort in every style."""
    folder = work / m.name
    (folder / "theirs").mkdir(parents=True)
    (folder / "scratch-theirs").mkdir()
    src = folder / f"{m.name}.onnx"
    shutil.copyfile(shipped.fetch(m), src)
    model = Model(m.name, src, shipped.feeds(m))
    for style in STYLES:
        # a conversion that fails here fails again, with its message, in the untimed round
        with contextlib.suppress(Exception):
            ours_convert(src, folder / f"ours-{style}.ort", style)
            model.ours[style] = folder / f"ours-{style}.ort"
        with contextlib.suppress(Exception):
            model.theirs[style] = theirs_convert(src, folder / "theirs", style)
    ours = model.ours
    model.facts = {
        "nodes": onnx_nodes(onnx.load(str(src)).graph),
        "fixed nodes": ort_nodes(ours["fixed"]) if "fixed" in ours else "-",
        "onnx bytes": mb(src.stat().st_size),
        **{f"{s} bytes": mb(ours[s].stat().st_size) if s in ours else "-" for s in STYLES},
    }
    model.cases = cases_of(model, folder)
    return model


# a case that needs an .ort whose conversion failed (that failure is reported)
MISSING = "(its .ort is missing)"


def cases_of(model: Model, folder: Path) -> list[Case]:
    src, scratch, scratch_theirs = model.src, folder / "scratch.ort", folder / "scratch-theirs"

    def clean() -> None:
        scratch.unlink(missing_ok=True)
        _clear(scratch_theirs)
        os.sync()

    out: list[Case] = []
    for style in STYLES:
        out.append(
            Case(
                ("convert", style, "ours"), timed(partial(ours_convert, src, scratch, style)), clean
            )
        )
        out.append(
            Case(
                ("convert", style, "theirs"),
                timed(partial(theirs_convert, src, scratch_theirs, style)),
                clean,
            )
        )
    if "none" not in model.ours:
        out.append(Case(("load", "ours"), timed(int), failed=MISSING))
        out.append(Case(("load", "alone"), timed(int), failed=MISSING))
        out.append(Case(("load", "all"), timed(int), failed=MISSING))
    else:
        ours = model.ours["none"]
        out.append(Case(("load", "ours"), timed(partial(ours_load, ours)), flush_caches))
        out.append(Case(("load", "alone"), timed(partial(ours_load, ours, False)), flush_caches))
        out.append(
            Case(("load", "all"), timed(partial(ours_load, ours, True, "all")), flush_caches)
        )
    out.append(Case(("load", "onnx"), timed(partial(onnx.load, str(src))), flush_caches))
    for style in STYLES:
        for side, files in (("ours", model.ours), ("theirs", model.theirs)):
            key = ("session", style, side)
            if style not in files:
                out.append(Case(key, timed(int), failed=MISSING))
                continue
            path = files[style]
            out.append(Case(key, session_case(partial(ort_session, path, style), model.feeds)))
        if style != "runtime":
            out.append(
                Case(
                    ("session", style, "onnx"),
                    session_case(partial(onnx_session, src, style), model.feeds),
                )
            )
    return out


# More than the CPU caches hold (L2 and L3 of this machine's class: 32 MiB at most).
_FLUSH = np.ones(64 << 20, np.uint8)


def flush_caches() -> None:
    """Read 64 MiB: each load case starts with the same cold CPU caches, whatever ran
    before it (in a round, a load case follows a conversion or another load case)."""
    _FLUSH.sum()


def rotate(items: list[Any], k: int) -> list[Any]:
    k %= max(1, len(items))
    return items[k:] + items[:k]


def in_rounds(models: list[Model], repeat: int, loads: list[float]) -> None:
    """One untimed round, then ``repeat`` timed ones; models and cases rotated each round."""
    for r in range(-1, repeat):
        for model in rotate(models, r):
            for case in rotate(model.cases, r):
                case.once(timed=r >= 0)
            gc.collect()
        loads.append(report.loadavg())
        done = "untimed round" if r < 0 else f"round {r + 1}/{repeat}"
        print(f"{done} done, load average {loads[-1]:.1f}", file=sys.stderr)


def steady(model: Model, runs: int) -> dict[str, list[float] | str]:
    """Run times of one session per style on our .ort, the styles interleaved run by run."""
    sessions: dict[str, Any] = {}
    out: dict[str, list[float] | str] = {}
    for style in STYLES:
        try:
            sessions[style] = ort_session(model.ours[style], style)
            for _ in range(_WARMUP):
                sessions[style].run(None, model.feeds)
        except Exception as exc:  # wireplan's or onnxruntime's own exception types
            out[style] = str(exc).strip().splitlines()[0]
            sessions.pop(style, None)
    times: dict[str, list[float]] = {s: [] for s in sessions}
    for i in range(runs):
        for style in rotate(list(sessions), i):
            start = time.perf_counter()
            sessions[style].run(None, model.feeds)
            times[style].append(time.perf_counter() - start)
    sessions.clear()
    gc.collect()
    return out | times


# ---- the section


def _num(seconds: float) -> str:
    v = seconds * 1e3
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}"


def spread(times: list[float]) -> str:
    """Median (min-max), in ms."""
    return f"{_num(statistics.median(times))} ({_num(min(times))}-{_num(max(times))})"


def ratios(num: list[float], den: list[float]) -> list[float]:
    return [a / b for a, b in zip(num, den, strict=True)]


def ratio(num: list[float], den: list[float]) -> str:
    return f"{statistics.median(ratios(num, den)):.2f}x"


def mb(n: int) -> str:
    return f"{n / 1e6:.2f}"


REFUSED = "refused"


def reason(message: str) -> str:
    """The end of an error: onnxruntime's text after its last ``" : "`` and its source line."""
    text = message.rsplit(" : ", 1)[-1].rstrip(".")
    return re.sub(r"^\S+\.(?:cc|h):\d+ \S+ ", "", text)[-100:]


def rows(models: list[Model], steady_times: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The tables of the section, from the cases' timings."""
    facts, convert, load, sessions, runs = [], [], [], [], []
    refused: dict[tuple[str, str], list[str]] = defaultdict(list)
    for m in models:
        c = {case.key: case for case in m.cases}
        for case in m.cases:
            if case.failed is not None and case.failed != MISSING:
                refused[m.name, reason(case.failed)].append(" ".join(case.key))
        f = m.facts
        facts.append(
            (
                m.name,
                f["nodes"],
                f["fixed nodes"],
                f["onnx bytes"],
                *(f[f"{s} bytes"] for s in ("none", "fixed", "runtime")),
            )
        )
        for i, style in enumerate(STYLES):
            ours, theirs = c["convert", style, "ours"], c["convert", style, "theirs"]
            convert.append(
                (
                    m.name if i == 0 else "",
                    f"`{style}`",
                    spread(ours.times["time"]) if not ours.failed else REFUSED,
                    spread(theirs.times["time"]) if not theirs.failed else REFUSED,
                    ratio(theirs.times["time"], ours.times["time"])
                    if not (ours.failed or theirs.failed)
                    else "",
                )
            )
        ours, alone, other = c["load", "ours"], c["load", "alone"], c["load", "onnx"]
        whole = c["load", "all"]
        load.append(
            (
                m.name,
                spread(alone.times["time"]) if not alone.failed else REFUSED,
                spread(ours.times["time"]) if not ours.failed else REFUSED,
                spread(whole.times["time"]) if not whole.failed else REFUSED,
                spread(other.times["time"]) if not other.failed else REFUSED,
                ratio(other.times["time"], ours.times["time"])
                if not (ours.failed or other.failed)
                else "",
            )
        )
        for i, style in enumerate(STYLES):
            cells = []
            for kind in ("create", "first"):
                for side in ("ours", "theirs", "onnx"):
                    case = c.get(("session", style, side))
                    if case is None:
                        cells.append("-")
                    elif case.failed is not None:
                        cells.append(REFUSED)
                    else:
                        cells.append(_num(statistics.median(case.times[kind])))
            sessions.append((m.name if i == 0 else "", f"`{style}`", *cells))
        st = steady_times[m.name]
        cells = [
            _num(statistics.median(st[s])) if isinstance(st[s], list) else REFUSED for s in STYLES
        ]
        gain = (
            f"{statistics.median(st['none']) / statistics.median(st['fixed']):.2f}x"
            if isinstance(st["none"], list) and isinstance(st["fixed"], list)
            else ""
        )
        runs.append((m.name, *(cells[STYLES.index(s)] for s in ("none", "fixed", "runtime")), gain))
    return {
        "facts": facts,
        "convert": convert,
        "load": load,
        "sessions": sessions,
        "steady": runs,
        "refused": "; ".join(f"{n} ({', '.join(k)}): {why}" for (n, why), k in refused.items())
        or "nothing",
    }


FACTS = "model | nodes: | nodes, `fixed`: | .onnx: | .ort `none`: | .ort `fixed`: | .ort `runtime`:"
CONVERT = "model | style | wireplan `convert`: | onnxruntime's converter: | theirs / ours:"
LOAD = (
    'model | `load` alone: | `load` + every `raw_data`: | with `verify="all"`: '
    "| `onnx.load`: | onnx / ours:"
)
SESSIONS = (
    "model | style | create, our .ort: | create, theirs: | create, .onnx: "
    "| first run, our .ort: | first run, theirs: | first run, .onnx:"
)
STEADY = "model | `none`: | `fixed`: | `runtime`: | none / fixed:"


def render(r: dict[str, Any]) -> str:
    """The page's ``ort-models`` section from a run's ``result``."""
    return report.join(
        report.head(
            "ORT: shipped models",
            r["command"],
            r["date"],
            {"Machine": r["machine"], "Versions": r["versions"], "Method": r["method"]},
        ),
        ["Models: nodes (with subgraphs) and file sizes in MB (our .ort files):"],
        report.table(FACTS, r["facts"]),
        [
            "Convert .onnx -> .ort, ms; onnxruntime's converter in-process (its `_convert`, "
            "`none` = level `disable`); no fsync either side:"
        ],
        report.table(CONVERT, r["convert"]),
        [
            "Load, ms: our `none` .ort, alone and with every tensor's `raw_data` (views), "
            "against `onnx.load` of the .onnx:"
        ],
        report.table(LOAD, r["load"]),
        [
            "Session creation and first run, medians in ms; both .ort files through "
            "`wireplan.ort.session` (zero copy); `runtime` replays its records "
            "(ORT_ENABLE_ALL), the others at ORT_DISABLE_ALL; the .onnx optimized at creation:"
        ],
        report.table(SESSIONS, r["sessions"]),
        ["Steady state from our .ort, median run time in ms after warm-up:"],
        report.table(STEADY, r["steady"]),
        ["![Load and convert ratios against node count](figures/ort-models.svg)"],
        [
            f"onnxruntime refused: {r['refused']}.  Not measured: cold cache, fsync, "
            "threads, reduced builds themselves."
        ],
    )


def _wireplan_version() -> str:
    src = Path(wireplan.__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "-C", str(src), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(src), "status", "--porcelain", "--", "."],
            capture_output=True,
            text=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return wireplan.__version__
    return f"{wireplan.__version__} ({commit}{'+' if dirty else ''})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--dir", default=tempfile.gettempdir())
    ap.add_argument("--repeat", type=int, default=5, help="timed rounds of 1-3")
    ap.add_argument("--runs", type=int, default=20, help="steady-state runs per style")
    ap.add_argument(
        "--models",
        type=lambda v: [x for x in v.split(",") if x],
        default=None,
        help="comma-separated names of shipped.MODELS (default: all)",
    )
    ap.add_argument("--plot", type=Path, metavar="DIR", help="write DIR/ort-models.svg")
    ap.add_argument(
        "--markdown", type=Path, metavar="FILE", help="write the ort-models section of FILE"
    )
    args = ap.parse_args(argv)
    names = list(shipped.MODELS) if args.models is None else args.models
    unknown = [n for n in names if n not in shipped.MODELS]
    if unknown:
        raise SystemExit(f"unknown models {unknown}: use some of {', '.join(shipped.MODELS)}")
    if args.plot is not None:
        require()  # fail now, not after the measurements
    ort.set_default_logger_severity(3)
    started = time.perf_counter()
    loads = [report.loadavg()]
    work = Path(tempfile.mkdtemp(prefix="bench-ort-models-", dir=args.dir))
    try:
        models = [prepare(shipped.MODELS[n], work) for n in names]
        in_rounds(models, args.repeat, loads)
        steady_times = {m.name: steady(m, args.runs) for m in models}
        loads.append(report.loadavg())
        tables = rows(models, steady_times)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"measured in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    result = {
        "command": report.command("bench_ort_models.py", sys.argv[1:] if argv is None else argv),
        "date": report.today(),
        "machine": report.machine((min(loads), max(loads))),
        "versions": report.versions(
            numpy=np.__version__,
            onnx=onnx.__version__,
            onnxruntime=ort.__version__,
            wireplan=_wireplan_version(),
        ),
        "method": f"`tests/ort_write/shipped.py`'s models, warm page cache (CPU caches flushed "
        f"per load case), one intra-op thread; {args.repeat} rounds after an untimed one, order "
        f"rotated; medians (min-max), ratios per round; steady state: {args.runs} runs "
        f"after {_WARMUP} warm-up runs",
        **tables,
    }
    text = render(result)
    print(text)
    if args.markdown is not None:
        report.update(args.markdown, "ort-models", text)
    if args.plot is not None:
        plot(args.plot / "ort-models.svg", models, args.repeat, (min(loads), max(loads)))
    return 0


def plot(path: Path, models: list[Model], repeat: int, loadavg: tuple[float, float]) -> None:
    """Per model: onnx.load over our load, and onnxruntime's converter over ours per style."""
    plt = require()
    ticker = require_ticker()
    fig, ax = plt.subplots(figsize=(7.0, 5.4), layout="constrained")
    series = [
        ("onnx.load / wireplan load (+ every payload)", ("load", "onnx"), ("load", "ours"), "C3", "^"),
        *(
            (
                f"onnxruntime's converter / wireplan convert, {style}",
                ("convert", style, "theirs"),
                ("convert", style, "ours"),
                color,
                marker,
            )
            for style, color, marker in (("fixed", "C0", "o"), ("runtime", "C2", "s"), ("none", "C1", "D"))
        ),
    ]  # fmt: skip
    # one slot per model, ordered by node count (close counts stay apart); the series side
    # by side in each slot
    ordered = sorted(models, key=lambda m: (m.facts["nodes"], m.name))
    width = 0.6 / len(series)
    for k, (label, num, den, color, marker) in enumerate(series):
        xs, med, low, high = [], [], [], []
        for slot, m in enumerate(ordered):
            c = {case.key: case for case in m.cases}
            if c[num].failed or c[den].failed:
                continue
            rs = ratios(c[num].times["time"], c[den].times["time"])
            xs.append(slot + (k - (len(series) - 1) / 2) * width)
            med.append(statistics.median(rs))
            low.append(med[-1] - min(rs))
            high.append(max(rs) - med[-1])
        ax.errorbar(
            xs, med, yerr=[low, high], label=label, color=color, marker=marker, linestyle="none"
        )
    ax.axhline(1.0, color="0.4", linewidth=0.8, linestyle="--")
    plain = ticker.FuncFormatter(lambda v, _: f"{v:.0f}" if v >= 10 else f"{v:.3g}")
    ax.set_yscale("log")
    ax.set_xticks(
        range(len(ordered)),
        [f"{m.name}\n{m.facts['nodes']} nodes" for m in ordered],
        rotation=20,
        ha="right",
        fontsize=7,
    )
    ax.set_xlim(-0.5, len(ordered) - 0.5)
    ax.yaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0), numticks=20))
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_locator(ticker.NullLocator())
    ax.set_ylabel("peer's time / wireplan's (above 1: wireplan faster)")
    ax.set_title("Shipped models, by nodes of the .onnx (with subgraphs): load and convert ratios")
    ax.grid(True, linewidth=0.5, alpha=0.5)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncols=2, fontsize=8, frameon=False)
    caption = (
        f"Medians of per-round ratios over {repeat} rounds, bars min-max; a round runs every "
        "case once, order rotated; warm page cache, no fsync.\n"
        + environment(
            onnxruntime=ort.__version__,
            onnx=onnx.__version__,
            numpy=np.__version__,
            wireplan=wireplan.__version__,
        )
        + f".\nShared machine, load average {loadavg[0]:.1f}-{loadavg[1]:.1f}."
    )
    fig.text(0.01, 0.01, caption, fontsize=7, va="bottom", ha="left", linespacing=1.4)
    bottom = 0.035 * (caption.count("\n") + 1) + 0.01
    fig.get_layout_engine().set(rect=(0, bottom, 1, 1 - bottom))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)
    print(f"figure: {path} ({path.stat().st_size / 1e3:.1f} kB)")


if __name__ == "__main__":
    raise SystemExit(main())
