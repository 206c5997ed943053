"""docs/benchmarks.md is what the benchmark scripts write (no benchmark runs here).

Each ``benchmarks/bench_*.py`` writes its own section of the page (``--markdown FILE``)
through ``benchmarks/report.py``.  For every section: its markers are on the page once,
in order; the script renders a tiny fake result with the page's parameters, and the page
holds the same table headers in the same order, and every line of the rendering that
does not carry a measured value; replacing a section with its own text changes no byte.
"""

from __future__ import annotations

import importlib
import itertools
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "benchmarks"
PAGE = REPO / "docs" / "benchmarks.md"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import report  # noqa: E402  (benchmarks/report.py)

FAKE = "FAKE"  # free text and measured cells of a fake result: lines with it are not compared


def _fake(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "command": FAKE,
        "date": FAKE,
        "machine": FAKE,
        "versions": FAKE,
        "method": FAKE,
    }
    return base | fields


# section -> (script module, a fake result with the page's parameters: rounds, sizes)
SECTIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "evalue": ("bench_evalue", _fake(repeat=15, side=4096, tensor=[], scalars=[])),
    "dsdl": (
        "bench_dsdl",
        _fake(
            rounds=15,
            types=[],
            geomean=FAKE,
            lowest=FAKE,
            hand=[],
            compile=[],
            random={"types": FAKE, "values": 30, "geomean": FAKE, "slowest": FAKE},
            every={"types": FAKE, "values": 10, "geomean": FAKE, "slowest": FAKE, "below": FAKE},
        ),
    ),
    "dsdl-loopback": ("bench_dsdl_loopback", _fake(rounds=15, e2e=[], codec=[])),
    "dsdl-c": (
        "bench_dsdl_c",
        _fake(
            language="c",
            compiler=FAKE,
            rounds=21,
            batches=5,
            target_ms="2",
            tables={"-O2": [], "-Os": []},
            means={"-O2": FAKE, "-Os": FAKE},
        ),
    ),
    "dsdl-cpp": (
        "bench_dsdl_c",
        _fake(
            language="cpp",
            compiler=FAKE,
            rounds=21,
            batches=5,
            target_ms="2",
            tables={"-O2": [], "-Os": []},
            means={"-O2": FAKE, "-Os": FAKE},
        ),
    ),
    "dsdl-c-size": (
        "bench_dsdl_c_size",
        _fake(
            compiler=FAKE, rows={"c": [], "cpp": []}, totals={"c": [FAKE] * 2, "cpp": [FAKE] * 2}
        ),
    ),
    "ort-read": ("bench_ort_read", _fake(operations=[], sizes=[])),
    "ort-write": (
        "bench_ort_write",
        _fake(big_title=FAKE, big=[], many_title=FAKE, many=[], sizes=[(FAKE,) * 9]),
    ),
    "ort-models": (
        "bench_ort_models",
        _fake(facts=[], convert=[], load=[], sessions=[], steady=[], refused=FAKE),
    ),
    "evalue-dataset": ("bench_evalue_dataset", _fake(repeat=7, rows=[])),
    "evalue-bundled": ("bench_evalue_bundled", _fake(repeat=7, rows=[])),
    "evalue-fsspec": ("bench_evalue_fsspec", _fake(repeat=5, rows=[])),
    "evalue-cpp": ("bench_evalue_cpp", _fake(repeat=7, rows=[])),
    "ort-external": ("bench_ort_external", _fake(repeat=3, convert=[], sessions=[])),
}

_RULE = re.compile(r"^\|(?:---:?\|)+$")


def _page() -> str:
    return PAGE.read_text(encoding="utf-8")


def _script(name: str) -> ModuleType:
    return importlib.import_module(SECTIONS[name][0])


def _headers(text: str) -> list[tuple[str, str]]:
    """Each table's header line and rule line, in order."""
    lines = text.splitlines()
    return [(a, b) for a, b in itertools.pairwise(lines) if _RULE.match(b)]


def _is_table(line: str) -> bool:
    return line.startswith("|")


def test_page_has_exactly_the_scripts_sections() -> None:
    names = re.findall(r"^<!-- BEGIN (\S+) -->$", _page(), flags=re.M)
    assert sorted(names) == sorted(SECTIONS)
    for name in SECTIONS:
        assert (BENCH / f"{SECTIONS[name][0]}.py").is_file()


@pytest.mark.parametrize("name", list(SECTIONS))
def test_markers_once_and_in_order(name: str) -> None:
    text = _page()
    begin, end = report.markers(name)
    assert text.count(begin) == 1 and text.count(end) == 1
    assert text.index(begin) < text.index(end)
    assert (text.index(begin) == 0 or text[text.index(begin) - 1] == "\n") and text[
        text.index(end) - 1
    ] == "\n"


def _skeleton(text: str) -> list[str]:
    """The lines of a section without the data rows of its tables (headers and rules stay)."""
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        header = i + 1 < len(lines) and bool(_RULE.match(lines[i + 1]))
        if _is_table(line) and not header and not _RULE.match(line):
            continue
        out.append(line)
    return out


@pytest.mark.parametrize("name", list(SECTIONS))
def test_section_is_what_its_script_renders(name: str) -> None:
    """Line by line, the page is the script's rendering; a fake field matches any text."""
    rendered = _script(name).render(SECTIONS[name][1])
    body = report.section(_page(), name)
    assert _headers(body), f"{name}: no table"
    assert _headers(body) == _headers(rendered)
    want, have = _skeleton(rendered), _skeleton(body)
    assert len(have) == len(want), f"{name}: {len(have)} lines on the page, {len(want)} rendered"
    for expected, line in zip(want, have, strict=True):
        pattern = ".*".join(re.escape(part) for part in expected.split(FAKE))
        assert re.fullmatch(pattern, line), f"{name}: {line!r} is not {expected!r}"


@pytest.mark.parametrize("name", list(SECTIONS))
def test_replacing_a_section_with_itself_changes_no_byte(name: str) -> None:
    text = _page()
    assert report.replace_section(text, name, report.section(text, name)) == text


def test_update_writes_one_section_of_a_copy(tmp_path: Path) -> None:
    page = tmp_path / "benchmarks.md"
    text = _page()
    page.write_text(text, encoding="utf-8")
    report.update(page, "evalue", "\nnew body\n")
    after = page.read_text(encoding="utf-8")
    assert report.section(after, "evalue") == "\nnew body\n"
    for name in SECTIONS:
        if name != "evalue":
            assert report.section(after, name) == report.section(text, name)
    report.update(page, "evalue", report.section(text, "evalue"))
    assert page.read_bytes() == PAGE.read_bytes()


def test_a_missing_or_doubled_marker_is_refused() -> None:
    begin, end = report.markers("x")
    with pytest.raises(SystemExit, match="once each"):
        report.replace_section("no markers\n", "x", "body\n")
    with pytest.raises(SystemExit, match="once each"):
        report.section(begin + end + begin + end, "x")
    with pytest.raises(SystemExit, match="before"):
        report.section(end + begin, "x")


def test_table_and_command_formats() -> None:
    assert report.table("type | bytes: | x:", [("`T`", 7, "1.00x")]) == [
        "| type | bytes | x |",
        "|---|---:|---:|",
        "| `T` | 7 | 1.00x |",
    ]
    with pytest.raises(SystemExit, match="cells"):
        report.table("a | b", [("only one",)])
    assert (
        report.command("bench_x.py", ["--repeat", "3", "--markdown", "docs/benchmarks.md"])
        == ".venv/bin/python benchmarks/bench_x.py --repeat 3"
    )
    assert report.command("bench_x.py", ["--markdown=p.md", "--quick"]).endswith("--quick")
    assert report.join(["a", "b"], [], ["c"]) == "\na\nb\n\nc\n"
