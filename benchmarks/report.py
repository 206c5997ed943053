"""The benchmark page: docs/benchmarks.md, one marked section per benchmark script.

Each ``bench_*.py`` renders its own section (``render(result)``) and, with
``--markdown FILE``, writes it between ``<!-- BEGIN name -->`` and
``<!-- END name -->`` of that page; everything outside the markers stays as it is.
What every section shares lives here: the markers, the head of a section (title,
command, date, machine, versions, method) and the markdown table formatter.
"""

from __future__ import annotations

import datetime
import os
import platform
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from wireplan.core.atomic import write_bytes

PAGE = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"


def markers(name: str) -> tuple[str, str]:
    """The two marker lines of section ``name``."""
    return f"<!-- BEGIN {name} -->\n", f"<!-- END {name} -->\n"


def _bounds(text: str, name: str) -> tuple[int, int]:
    begin, end = markers(name)
    if text.count(begin) != 1 or text.count(end) != 1:
        raise SystemExit(f"{name}: the page must hold {begin.strip()} and {end.strip()} once each")
    start = text.index(begin) + len(begin)
    stop = text.index(end)
    if stop < start:
        raise SystemExit(f"{name}: {end.strip()} comes before {begin.strip()}")
    return start, stop


def section(text: str, name: str) -> str:
    """The text between the marker lines of section ``name`` (markers excluded)."""
    start, stop = _bounds(text, name)
    return text[start:stop]


def replace_section(text: str, name: str, body: str) -> str:
    """``text`` with section ``name`` replaced by ``body`` (which ends with a newline)."""
    if not body.endswith("\n"):
        body += "\n"
    start, stop = _bounds(text, name)
    return text[:start] + body + text[stop:]


def update(page: Path, name: str, body: str) -> None:
    """Write ``body`` as section ``name`` of ``page``, atomically."""
    text = page.read_text(encoding="utf-8")
    write_bytes(page, replace_section(text, name, body).encode("utf-8"))
    print(f"{page}: section {name} written")


def table(spec: str, rows: Iterable[Sequence[object]]) -> list[str]:
    """A markdown table: ``spec`` names the columns ``"type | bytes: | ratio:"``.

    A column whose name ends with ``:`` is right-aligned (the ``:`` is not shown).
    """
    names = [c.strip() for c in spec.split("|")]
    right = [n.endswith(":") for n in names]
    header = [n[:-1] if r else n for n, r in zip(names, right, strict=True)]
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---:" if r else "---" for r in right) + "|",
    ]
    for row in rows:
        if len(row) != len(names):
            raise SystemExit(f"table row {row!r} has {len(row)} cells, not {len(names)}")
        lines.append("| " + " | ".join(str(c) for c in row) + " |")
    return lines


def head(
    title: str, command: str, date: str, facts: Mapping[str, str], *, level: int = 2
) -> list[str]:
    """A section's first lines: title, the command and date, then one line per fact."""
    lines = [f"{'#' * level} {title}", "", f"`{command}`, {date}.", ""]
    lines += [f"- {key}: {value}" for key, value in facts.items()]
    return lines


def machine(load: tuple[float, float] | None = None) -> str:
    """``'x86_64, 2 cores, Linux 6.18.44; load average 1.3-2.3'`` for this machine."""
    text = f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"
    if load is not None:
        low, high = sorted(load)
        text += f"; load average {low:.1f}-{high:.1f}"
    return text


def loadavg() -> float:
    return os.getloadavg()[0]


def versions(**peers: str) -> str:
    """``'Python 3.11.7, numpy 2.4.6, ...'``: Python, then the peers in the order given."""
    return ", ".join(
        [f"Python {platform.python_version()}"] + [f"{k} {v}" for k, v in peers.items()]
    )


def today() -> str:
    return datetime.date.today().isoformat()


def command(script: str, argv: Sequence[str]) -> str:
    """The command line that made a section, without where it was saved to or read from
    (``--markdown``, ``--json``, ``--from-json`` and their values)."""
    hidden = ("--markdown", "--json", "--from-json")
    shown: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in hidden:
            skip = True
            continue
        if arg.startswith(tuple(f"{h}=" for h in hidden)):
            continue
        shown.append(arg)
    return " ".join([".venv/bin/python", f"benchmarks/{script}", *shown])


def join(*parts: Sequence[str]) -> str:
    """The section body: the parts separated by blank lines, with a leading and final newline."""
    return "\n" + "\n\n".join("\n".join(p) for p in parts if p) + "\n"
