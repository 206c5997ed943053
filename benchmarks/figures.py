"""SVG figures for the benchmarks, made from the measurements a script prints.

matplotlib is optional (the ``bench`` extra) and imported only when a figure
is asked for: ``require()`` fails fast with the command that installs it,
before any benchmark time is spent.  The SVGs keep their text as text (no
embedded glyphs) and carry no date and fixed element ids, so a re-run changes
only the numbers.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Series:
    """One line: the run times (seconds) measured at each size (MB)."""

    label: str
    color: str
    marker: str = "o"
    linestyle: str = "-"
    points: list[tuple[float, list[float]]] = field(default_factory=list)

    def add(self, size_mb: float, times: list[float]) -> None:
        self.points.append((size_mb, list(times)))


def require() -> Any:
    """matplotlib's pyplot on the non-interactive SVG-friendly setup, or a clear exit."""
    try:
        import matplotlib
    except ModuleNotFoundError:
        name = Path(sys.argv[0]).stem.removeprefix("bench_")
        raise SystemExit(
            "--plot needs matplotlib, an optional dependency of the benchmarks: "
            f'pip install "wireplan[bench]", or run python3 dev.py bench {name} ...'
        ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "svg.fonttype": "none",  # text stays text: small and diffable
            "svg.hashsalt": "wireplan",  # stable element ids from run to run
            "font.size": 9,
            "axes.titlesize": 10,
            "lines.linewidth": 1.4,
            "lines.markersize": 4,
            "errorbar.capsize": 2.5,
        }
    )
    return plt


def require_ticker() -> Any:
    import matplotlib.ticker

    return matplotlib.ticker


def environment(**peers: str) -> str:
    """The machine and the versions, for a caption: 'x86_64, 2 cores; Python 3.11.7; onnx 1.23.2'."""
    parts = [f"{platform.machine()}, {os.cpu_count()} cores", f"Python {platform.python_version()}"]
    parts += [f"{name} {version}" for name, version in peers.items()]
    return "; ".join(parts)


def size_plot(
    path: Path,
    series: list[Series],
    *,
    title: str,
    xlabel: str,
    caption: str,
    ylabel: str = "time per run (ms)",
) -> None:
    """A log-log plot of the median time per run against size, min-max as error bars."""
    plt = require()
    fig, ax = plt.subplots(figsize=(7.0, 5.0), layout="constrained")
    for s in series:
        sizes = [mb for mb, _ in s.points]
        med = [statistics.median(t) * 1e3 for _, t in s.points]
        low = [m - min(t) * 1e3 for m, (_, t) in zip(med, s.points, strict=True)]
        high = [max(t) * 1e3 - m for m, (_, t) in zip(med, s.points, strict=True)]
        ax.errorbar(
            sizes,
            med,
            yerr=[low, high],
            label=s.label,
            color=s.color,
            marker=s.marker,
            linestyle=s.linestyle,
        )
    ticker = require_ticker()
    plain = ticker.FuncFormatter(lambda v, _: f"{v:.0f}" if v >= 100 else f"{v:.3g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    # The measured sizes as the x ticks; 1-2-5 steps on y over up to three decades, decades
    # beyond; plain numbers, no 10^k.
    ax.set_xticks(sorted({mb for s in series for mb, _ in s.points}))
    ax.xaxis.set_major_formatter(plain)
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    low, high = ax.get_ylim()
    subs = (1.0, 2.0, 5.0) if high / low <= 1e3 else (1.0,)
    ax.yaxis.set_major_locator(ticker.LogLocator(subs=subs, numticks=20))
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_locator(ticker.NullLocator())
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, linewidth=0.5, alpha=0.5)
    # Under the axes: no line is hidden behind it, whatever the numbers.
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncols=2, fontsize=8, frameon=False)
    fig.text(0.01, 0.01, caption, fontsize=7, va="bottom", ha="left", linespacing=1.4)
    bottom = 0.035 * (caption.count("\n") + 1) + 0.01  # room for the caption under the axes
    fig.get_layout_engine().set(rect=(0, bottom, 1, 1 - bottom))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)
    print(f"figure: {path} ({path.stat().st_size / 1e3:.1f} kB)")
