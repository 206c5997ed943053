"""DSDL C and C++ backends: wireplan's headers against nunavut 3.1's, one source compiled against each.

Run: ``python3 dev.py bench dsdl_c [--quick] [--language cpp]`` (or
``.venv/bin/python benchmarks/bench_dsdl_c.py``).

``--language c`` (the default): ``benchmarks/c/bench_dsdl_c.c`` is compiled four times with
gcc (``-std=c11``, no ``-march``): against nunavut's headers (``nnvg --target-language c``,
``$WIREPLAN_NNVG``) and against wireplan's (``wireplan.dsdl.compile(..., language="c")``),
each at ``-O2`` and ``-Os``.  For every type it measures ns per ``T_serialize_`` and per
``T_deserialize_`` of one canonical message: pydsdl's bytes of the value in ``CASES``.
``--language cpp``: the same with ``benchmarks/c/bench_dsdl_cpp.cpp``, g++ ``-std=c++17``,
nunavut's C++ headers (``nnvg --experimental-languages --target-language cpp
--language-standard c++17``; the CETL stand-in of tests/dsdl/c/shim on the include path)
and wireplan's (``language="cpp"``), timing nunavut's C++ API: ``serialize(obj, bitspan)``
and ``deserialize(obj, const_bitspan)``.  What differs between the two is the data of a
:class:`Language`; the rounds, checks and reports are the same code.  Before any timing,
every build must turn each message into an object and back into the same bytes; the timed
loops are checked the same way after they ran.

Rounds: in each round every type is timed by the four binaries, one process each, the
nunavut and wireplan builds of an optimization level back to back (which goes first
alternates from round to round); a binary reports, per direction, the median ns per call
over a few batches of calls that each last a set time, timed in the thread's CPU time
(``CLOCK_THREAD_CPUTIME_ID``), so that the time other jobs of a shared machine hold the
CPU is not counted.  ``--control`` builds nunavut's headers in both columns: its ratios
show what the noise alone does (on the shared 2-core development machine, 0.86-1.05 per
type over 9 rounds, 1.00 on the geometric mean).  The table shows medians over rounds, and a ratio is the median of
the per-round ratios nunavut / wireplan (above 1: wireplan is faster).

Not measured: transports, object construction, cache-cold buffers (each loop reuses one
object and one buffer; in C++ a std::vector keeps its capacity, so only a union's
alternative, constructed anew by each deserialize, allocates), other compilers and -march
settings.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydsdl

sys.path.insert(0, str(Path(__file__).resolve().parent))
import report

REPO = Path(__file__).resolve().parents[1]
PUBLIC = (REPO / "tests" / "data" / "dsdl" / "public_regulated_data_types").resolve()
UAVCAN = PUBLIC / "uavcan"
REG = PUBLIC / "reg"
CORNER = REPO / "tests" / "dsdl" / "corner"
SHIM = REPO / "tests" / "dsdl" / "c" / "shim"  # a CETL stand-in for nunavut's C++ unions
RESULTS = REPO / "benchmarks" / "results"
GENERATORS = ("nunavut", "wireplan")
# What each build compiles: (whose headers, extra gcc flags).  "generic" is wireplan's headers
# with the portable path forced (what a big-endian target gets), measured with --generic.
BUILDS: dict[str, tuple[str, list[str]]] = {
    "nunavut": ("nunavut", []),
    "wireplan": ("wireplan", []),
    "generic": ("wireplan", ["-DWIREPLAN_DSDL_GENERIC"]),
}
OPTS = ("-O2", "-Os")
DIRECTIONS = ("serialize", "deserialize")
# A ratio from here to 1 is a tie: a --control run (the same code in both columns) spreads
# about this far on the shared development machine.
PARITY = 0.95


@dataclass(frozen=True)
class Language:
    """What the C and the C++ benchmark do differently; everything else is shared."""

    name: str  # the --language value
    label: str  # as the page says it: "C", "C++"
    source: Path
    compiler: tuple[str, str]  # (environment variable, default)
    std: str
    nnvg: tuple[str, ...]  # nnvg's options for this language
    nunavut_flags: tuple[str, ...]  # compiler flags of the builds against nunavut's headers
    libs: tuple[str, ...]
    section: str  # of docs/benchmarks.md
    results: str  # file name prefix under benchmarks/results
    issue: str  # where the targets are set
    geomean_targets: tuple[tuple[str, float], ...]  # (level, at least this geometric mean)
    slowest: float  # no ratio below this (1.0: no type slower, ties within PARITY)

    @property
    def title(self) -> str:
        return f"DSDL {self.label} backend against nunavut 3.1"

    def cc(self) -> str:
        return os.environ.get(*self.compiler)


LANGUAGES: dict[str, Language] = {
    "c": Language(
        "c",
        "C",
        REPO / "benchmarks" / "c" / "bench_dsdl_c.c",
        ("CC", "gcc"),
        "-std=c11",
        ("--target-language", "c"),
        (),
        ("-lm",),
        "dsdl-c",
        "dsdl_c",
        "#14",
        (("-O2", 3.0), ("-Os", 2.0)),
        1.0,
    ),
    "cpp": Language(
        "cpp",
        "C++",
        REPO / "benchmarks" / "c" / "bench_dsdl_cpp.cpp",
        ("CXX", "g++"),
        "-std=c++17",
        ("--experimental-languages", "--target-language", "cpp", "--language-standard", "c++17"),
        ("-I", str(SHIM)),
        (),
        "dsdl-cpp",
        "dsdl_cpp",
        "#23",
        (("-O2", 3.0), ("-Os", 3.0)),
        0.9,
    ),
}
C = LANGUAGES["c"]


def _f32(x: float) -> float:
    """``x`` rounded to float32, so that the value survives the wire exactly."""
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


def _bits(n: int, seed: int) -> list[bool]:
    """``n`` bools of a fixed, irregular pattern (a linear congruential sequence)."""
    out, x = [], seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out.append(bool(x & 0x10000))
    return out


def _mask(n: int, ids: list[int]) -> list[bool]:
    return [i in ids for i in range(n)]


@dataclass(frozen=True)
class Case:
    """One measured type: its DSDL file, the value (pydsdl's plain data) and what it is."""

    name: str  # full name with version; a service half ends in .Request/.Response
    root: Path
    file: str  # relative to root
    value: dict[str, Any]
    about: str
    standard_array: bool = False  # an array of 8/16/32/64-bit elements (the >= 10x target)

    @property
    def service_half(self) -> str | None:
        part = self.name.split(".")[-3]
        return part.lower() if part in ("Request", "Response") else None


_REAL32 = [_f32(100.0 * math.sin(i / 5.0)) for i in range(64)]
_NATURAL16 = [(i * 2654435761) & 0xFFFF for i in range(128)]

CASES: list[Case] = [
    Case(
        "uavcan.node.Heartbeat.1.0",
        UAVCAN,
        "node/7509.Heartbeat.1.0.dsdl",
        {
            "uptime": 123456,
            "health": {"value": 1},
            "mode": {"value": 2},
            "vendor_specific_status_code": 77,
        },
        "uptime 123456, health 1, mode 2",
    ),
    Case(
        "uavcan.primitive.array.Real32.1.0",
        UAVCAN,
        "primitive/array/Real32.1.0.dsdl",
        {"value": _REAL32},
        "64 floats (full)",
        standard_array=True,
    ),
    Case(
        "uavcan.primitive.array.Natural16.1.0",
        UAVCAN,
        "primitive/array/Natural16.1.0.dsdl",
        {"value": _NATURAL16},
        "128 uint16 (full)",
        standard_array=True,
    ),
    Case(
        "uavcan.primitive.array.Bit.1.0",
        UAVCAN,
        "primitive/array/Bit.1.0.dsdl",
        {"value": _bits(2048, 7)},
        "2048 bools (full)",
    ),
    Case(
        "uavcan.register.Value.1.0",
        UAVCAN,
        "register/Value.1.0.dsdl",
        {"natural16": {"value": [1000, 2000, 65535]}},
        "natural16[3]",
    ),
    Case(
        "uavcan.node.port.List.1.0",
        UAVCAN,
        "node/port/7510.List.1.0.dsdl",
        {
            "publishers": {"sparse_list": [{"value": v} for v in (7509, 7510, 100, 101)]},
            "subscribers": {"sparse_list": [{"value": v} for v in (200, 201, 202)]},
            "clients": {"mask": _mask(512, [])},
            "servers": {"mask": _mask(512, [384, 385, 430, 435])},
        },
        "4 + 3 subject IDs, two 512-bit service masks",
    ),
    Case(
        "uavcan.node.GetInfo.Response.1.0",
        UAVCAN,
        "node/430.GetInfo.1.0.dsdl",
        {
            "protocol_version": {"major": 1, "minor": 0},
            "hardware_version": {"major": 2, "minor": 1},
            "software_version": {"major": 1, "minor": 3},
            "software_vcs_revision_id": 0x0123456789ABCDEF,
            "unique_id": list(range(16)),
            "name": list(b"org.opencyphal.bench.node"),
            "software_image_crc": [0xDEADBEEFCAFEBABE],
            "certificate_of_authenticity": [],
        },
        "25-byte name, one CRC, no certificate",
    ),
    Case(
        "reg.udral.physics.kinematics.cartesian.State.0.1",
        REG,
        "udral/physics/kinematics/cartesian/State.0.1.dsdl",
        {
            "pose": {
                "position": {"value": {"meter": [12.5, -3.25, 100.125]}},
                "orientation": {"wxyz": [_f32(0.9238795), 0.0, 0.0, _f32(0.3826834)]},
            },
            "twist": {
                "linear": {"meter_per_second": [_f32(1.5), _f32(-0.25), _f32(0.125)]},
                "angular": {"radian_per_second": [0.0, 0.0, _f32(0.1)]},
            },
        },
        "pose and twist",
    ),
    Case(
        "corner.Misaligned.1.0",
        CORNER,
        "Misaligned.1.0.dsdl",
        {
            "a": True,
            "b": 5,
            "c": -9,
            "d": 1.5,
            "e": 200,
            "inner": {"x": 100, "y": True, "z": -200},
            "flags": [True, False, True],
            "odd": [4095, 0, 1234],
            "wide": -1234567890123,
        },
        "bit-packed, int64 at bit 66",
    ),
    Case(
        "corner.BitPacked.1.0",
        CORNER,
        "BitPacked.1.0.dsdl",
        {
            "id": 2748,
            "flags": 9,
            "x": -300,
            "y": 200,
            "z": 511,
            "quality": 3,
            "status": [True, False, True, True, False, True],
            "temperature": 36.5,
            "battery": 50,
            "rssi": -60,
            "valid": True,
        },
        "odd-width telemetry",
    ),
    Case(
        "corner.Mixed.1.0",
        CORNER,
        "Mixed.1.0.dsdl",
        {
            "a": 0xDEADBEEF,
            "b": 65000,
            "c": 5,
            "d": 17,
            "e": 3.25,
            "flags": [True, False, True, True],
            "after_flags": 0x5A,
            "inner": {"x": 3, "y": False, "z": 255},
            "tail": 4242,
        },
        "aligned fields, then misaligned after bool[<=5]",
    ),
    Case(
        "corner.OddArrays.1.0",
        CORNER,
        "OddArrays.1.0.dsdl",
        {
            "a": [1, 2, 3, 4, 5, 6, 7],
            "b": [-4000, 4095],
            "pre": True,
            "bytes": [1, 2, 3, 4, 5],
            "f": [1.5, -2.25],
            "three": 0x123456,
            "big": _bits(100, 3),
        },
        "full odd-width arrays, bool[100] off a byte boundary",
    ),
]


# -- canonical messages ------------------------------------------------------------------


def canonical_messages(cases: list[Case] = CASES) -> dict[str, bytes]:
    """pydsdl's bytes of each case's value, by case name."""
    roots = sorted({c.root for c in cases})
    files = [c.root / c.file for c in cases]
    types, _ = pydsdl.read_files(files, roots, roots)
    by_name = {}
    for t in types:
        by_name[f"{t.full_name}.{t.version.major}.{t.version.minor}"] = t
    out = {}
    for c in cases:
        parts = c.name.split(".")
        half = c.service_half
        if half:
            service = by_name[".".join(parts[:-3] + parts[-2:])]
            t = getattr(service, f"{half}_type")
        else:
            t = by_name[c.name]
        if isinstance(t, pydsdl.DelimitedType):
            t = t.inner_type
        out[c.name] = pydsdl.serialize(t, c.value)
    return out


def write_messages(messages: dict[str, bytes], path: Path) -> Path:
    path.write_text("".join(f"{name} {data.hex()}\n" for name, data in messages.items()))
    return path


# -- the two generators ------------------------------------------------------------------


def nnvg_path() -> Path:
    """nunavut 3.1's nnvg: $WIREPLAN_NNVG, else dev.py's environment in this checkout."""
    if os.environ.get("WIREPLAN_NNVG"):
        return Path(os.environ["WIREPLAN_NNVG"])
    return REPO / ".venv-nunavut-3.1" / "bin" / "nnvg"


def generate_nunavut(out: Path, lang: Language = C, cases: list[Case] = CASES) -> Path:
    """nunavut's headers (of ``lang``) of the cases' types and what they use, under ``out``.

    nnvg gets the types' files (``ROOT:FILE``) rather than whole root namespaces: it
    writes the same header for a type either way, in 3 s instead of a minute.
    """
    targets = [f"{c.root}:{c.file}" for c in cases]
    lookups = [arg for root in sorted({c.root for c in cases}) for arg in ("--lookup-dir", root)]
    cmd = [nnvg_path(), *lang.nnvg, "--outdir", out, *lookups, *targets]
    done = subprocess.run([str(a) for a in cmd], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"nnvg failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return out


def generate_wireplan(out: Path, lang: Language = C, cases: list[Case] = CASES) -> Path:
    """wireplan's headers (of ``lang``) of the cases' root namespaces, under ``out``."""
    from wireplan.dsdl import compile as dsdl_compile

    roots = sorted({c.root for c in cases})
    dsdl_compile(roots, output=out, language=lang.name)
    return out


GENERATE: dict[str, Callable[[Path, Language], Path]] = {
    "nunavut": generate_nunavut,
    "wireplan": generate_wireplan,
}


def build(
    headers: Path, opt: str, exe: Path, extra: list[str] | None = None, lang: Language = C
) -> Path:
    """``lang``'s benchmark source compiled against ``headers`` at ``opt``."""
    cmd = [lang.cc(), lang.std, opt, *(extra or []), "-I", str(headers), "-o", str(exe)]
    cmd.append(str(lang.source))
    done = subprocess.run([*cmd, *lang.libs], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr[-5000:]}")
    return exe


def check(exe: Path, messages_file: Path, messages: dict[str, bytes]) -> list[str]:
    """The types whose round trip through ``exe`` does not give pydsdl's bytes back."""
    done = subprocess.run([str(exe), str(messages_file), "check"], capture_output=True, text=True)
    if done.returncode:
        return [f"{exe.name} failed ({done.returncode}): {done.stderr.strip()}"]
    got = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    bad = []
    for name, data in messages.items():
        mine = got.get(name, "").strip()
        if mine != data.hex():
            bad.append(f"{exe.name}: {name}: got {mine or '(nothing)'}, pydsdl {data.hex()}")
    return bad


def time_once(
    exe: Path, messages_file: Path, target_ns: float, batches: int, only: str | None = None
) -> dict[str, Any]:
    """One run of ``exe``: {type: (ns per serialize, ns per deserialize)}, of type ``only``."""
    cmd = [str(exe), str(messages_file), "time", str(int(target_ns)), str(batches)]
    cmd += [only] if only else []
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{exe.name} failed ({done.returncode}): {done.stderr.strip()}")
    out = {}
    for line in done.stdout.splitlines():
        name, ser, de = line.split()
        out[name] = (float(ser), float(de))
    return out


# -- the run -----------------------------------------------------------------------------


@dataclass
class Run:
    lang: Language
    generators: list[str]
    rounds: int
    target_ns: float
    batches: int
    control: bool = False
    loads: list[float] = field(default_factory=list)  # 1-minute load average after each round
    # timings[(generator, opt)] = list over rounds of {type: (ser, de)}
    timings: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)


def prepare(
    work: Path,
    generators: list[str],
    opts: tuple[str, ...] = OPTS,
    control: bool = False,
    lang: Language = C,
) -> dict[str, Any]:
    """Messages, headers and binaries under ``work``; raises when a build is not identical.

    ``control``: the "wireplan" builds use nunavut's headers too (a run that measures
    the noise: its ratios should be 1).
    """
    messages = canonical_messages()
    messages_file = write_messages(messages, work / "messages.txt")
    exes: dict[tuple[str, str], Path] = {}
    headers: dict[str, Path] = {}
    for gen in generators:
        source, flags = BUILDS[gen]
        if control:
            source, flags = "nunavut", []
        if source not in headers:
            headers[source] = GENERATE[source](work / f"include-{source}", lang)
        if source == "nunavut":
            flags = [*flags, *lang.nunavut_flags]
        for opt in opts:
            exe = work / f"bench-{lang.name}-{gen}{opt}"
            exes[gen, opt] = build(headers[source], opt, exe, flags, lang)
    bad = [b for exe in exes.values() for b in check(exe, messages_file, messages)]
    if bad:
        raise RuntimeError("round trips differ from pydsdl:\n" + "\n".join(bad))
    return {"messages": messages, "messages_file": messages_file, "exes": exes}


def measure(prep: dict[str, Any], run: Run, say: Callable[[str], None]) -> None:
    """``run.rounds`` rounds; in each, every type is timed by the builds of a level back to back.

    One process per type and build: the two builds of a pair run tens of ms apart, and
    which of them goes first alternates by round.
    """
    exes: dict[tuple[str, str], Path] = prep["exes"]
    for key in exes:
        run.timings[key] = [{} for _ in range(run.rounds)]
    for r in range(run.rounds):
        for c in CASES:
            for opt in OPTS:
                k = r % len(run.generators)  # who goes first rotates
                order = run.generators[k:] + run.generators[:k]
                for gen in order:
                    if (gen, opt) in exes:
                        got = time_once(
                            exes[gen, opt],
                            prep["messages_file"],
                            run.target_ns,
                            run.batches,
                            c.name,
                        )
                        run.timings[gen, opt][r].update(got)
        run.loads.append(os.getloadavg()[0])
        say(f"round {r + 1}/{run.rounds} done (load average {run.loads[-1]:.1f})")


def median_ns(run: Run, gen: str, opt: str, name: str, d: int) -> float:
    return float(statistics.median(rnd[name][d] for rnd in run.timings[gen, opt]))


def ratio(run: Run, opt: str, name: str, d: int, build: str = "wireplan") -> float:
    """Median over rounds of nunavut's ns over ``build``'s (above 1: ``build`` is faster)."""
    pairs = zip(run.timings["nunavut", opt], run.timings[build, opt], strict=True)
    return float(statistics.median(n[name][d] / w[name][d] for n, w in pairs))


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


# -- the report --------------------------------------------------------------------------


def _first_line(cmd: list[str]) -> str:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True)
    except OSError:
        return "?"
    return (done.stdout or done.stderr).strip().splitlines()[0] if done.returncode == 0 else "?"


def machine(lang: Language = C) -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info = {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "os": f"{platform.system()} {platform.release()}",
        "compiler": _first_line([lang.cc(), "--version"]),
        "nunavut": _first_line([str(nnvg_path()), "--version"]),
        "pydsdl": pydsdl.__version__,
        "python": platform.python_version(),
    }
    try:
        import wireplan

        src = Path(wireplan.__file__).resolve().parent
        commit = _first_line(["git", "-C", str(src), "rev-parse", "--short", "HEAD"])
        dirty = subprocess.run(
            ["git", "-C", str(src), "status", "--porcelain", "--", "."],
            capture_output=True,
            text=True,
        ).stdout.strip()
        info["wireplan"] = f"{wireplan.__version__} ({commit}{'+' if dirty else ''})"
    except ImportError:
        info["wireplan"] = "-"
    return info


def _ns(x: float) -> str:
    return f"{x:.1f}" if x < 100 else f"{x:.0f}"


def full_report(run: Run, prep: dict[str, Any], info: dict[str, str]) -> str:
    messages: dict[str, bytes] = prep["messages"]
    both = set(GENERATORS) <= set(run.generators)
    loads = run.loads or [0.0]
    lines = [
        f"- Machine: {info['cpu']}, {info['cores']} cores, {info['os']} "
        f"(load average {min(loads):.1f}-{max(loads):.1f} during the run)",
        f"- Compiler: {info['compiler']}; `{run.lang.std}` and `-O2` or `-Os`, no `-march`",
        f"- Versions: nunavut {info['nunavut']} (nnvg), wireplan {info['wireplan']}, "
        f"pydsdl {info['pydsdl']}, Python {info['python']}",
        f"- {run.rounds} rounds; each binary reports the median of {run.batches} batches of "
        f"at least {run.target_ns / 1e6:g} ms per type and direction; ns are medians over "
        "rounds, ratios (nunavut / wireplan) medians of the per-round ratios",
        "",
    ]
    if run.control:
        lines[-1:-1] = [
            "- CONTROL RUN: the 'wireplan' builds use nunavut's headers (ratios show noise)"
        ]
    summary: dict[str, float] = {}
    generic = both and "generic" in run.generators
    for opt in OPTS:
        cols = ["nunavut", "wireplan", "x"] + (["generic", "x generic"] if generic else [])
        head = ["type", "value", "bytes"] + [f"{d} {c}" for d in ("ser", "de") for c in cols]
        lines += [
            f"`{opt}` (ns per call)",
            "",
            "| " + " | ".join(head) + " |",
            "|---|---|" + "---:|" * (len(head) - 2),
        ]
        all_ratios: dict[str, list[float]] = {"wireplan": [], "generic": []}
        for c in CASES:
            cells = [f"`{c.name}`", c.about, str(len(messages[c.name]))]
            for d in (0, 1):
                for gen in ("nunavut", "wireplan", "generic"):
                    if gen == "generic" and not generic:
                        continue
                    key = (gen, opt)
                    cells.append(
                        _ns(median_ns(run, gen, opt, c.name, d)) if key in run.timings else "-"
                    )
                    if gen == "nunavut":
                        continue
                    if both:
                        x = ratio(run, opt, c.name, d, gen)
                        all_ratios[gen].append(x)
                        cells.append(f"**{x:.2f}x**" if x >= 10 else f"{x:.2f}x")
                    else:
                        cells.append("-")
            lines.append("| " + " | ".join(cells) + " |")
        if both:
            summary[opt] = geomean(all_ratios["wireplan"])
            n = len(all_ratios["wireplan"])
            lines.append(
                f"\nGeometric mean of the {n} ratios at `{opt}`: **{summary[opt]:.2f}x**"
                + (
                    f" (forced-generic build: {geomean(all_ratios['generic']):.2f}x)"
                    if generic
                    else ""
                )
            )
        lines.append("")
    if both:
        lines += targets(run, summary)
    return "\n".join(lines)


def targets(run: Run, summary: dict[str, float]) -> list[str]:
    """The issue's targets, each with its measured value."""
    out = [f"Targets (issue {run.lang.issue}):", ""]
    for opt, want in run.lang.geomean_targets:
        got = summary[opt]
        out.append(
            f"- geometric mean at {opt} >= {want:g}x: {got:.2f}x, {'met' if got >= want else 'MISSED'}"
        )
    arrays = [
        (c.name, opt, d, ratio(run, opt, c.name, d))
        for c in CASES
        if c.standard_array
        for opt in OPTS
        for d in (0, 1)
    ]
    low = min(arrays, key=lambda a: a[3])
    out.append(
        f"- arrays of standard-width elements >= 10x: lowest {low[3]:.2f}x "
        f"({low[0]} {DIRECTIONS[low[2]]} {low[1]}), {'met' if low[3] >= 10 else 'MISSED'}"
    )
    every = [
        (f"{c.name} {DIRECTIONS[d]} {opt}", ratio(run, opt, c.name, d))
        for c in CASES
        for opt in OPTS
        for d in (0, 1)
    ]
    floor = run.lang.slowest
    # at 1.0 ("no type slower") a ratio inside the noise of a --control run is a tie, not a miss
    miss = min(floor, PARITY)
    slowest = min(every, key=lambda e: e[1])
    below = [(what, x) for what, x in every if x < 1.0]
    slower = "; ".join(f"{what} {x:.2f}x" for what, x in below if x < miss)
    rest = "; ".join(f"{what} {x:.2f}x" for what, x in below if x >= miss)
    out.append(
        f"- no type slower than {floor:.2f}x: slowest {slowest[1]:.2f}x ({slowest[0]}), "
        + (f"MISSED: {slower}" if slower else "met")
        + (f" (at or above {miss:.2f}x, not a miss: {rest})" if rest else "")
    )
    return out


TABLE = "type | ser nunavut: | ser wireplan: | ser x: | de nunavut: | de wireplan: | de x:"


def page_result(
    run: Run, prep: dict[str, Any], info: dict[str, str], argv: list[str]
) -> dict[str, Any]:
    """What the page's section (``dsdl-c``, ``dsdl-cpp``) shows of a run with both generators."""
    generic = "generic" in run.generators
    tables: dict[str, list[list[str]]] = {}
    means: dict[str, str] = {}
    for opt in OPTS:
        rows = []
        for c in CASES:
            cells = [f"`{c.name}`"]
            for d in (0, 1):
                x = ratio(run, opt, c.name, d)
                cells += [
                    _ns(median_ns(run, "nunavut", opt, c.name, d)),
                    _ns(median_ns(run, "wireplan", opt, c.name, d)),
                    f"**{x:.2f}x**" if x >= 10 else f"{x:.2f}x",
                ]
            rows.append(cells)
        tables[opt] = rows
        mine = [ratio(run, opt, c.name, d) for c in CASES for d in (0, 1)]
        means[opt] = (
            f"Geometric mean of the {len(mine)} ratios at `{opt}`: **{geomean(mine):.2f}x**"
        )
        if generic:
            other = [ratio(run, opt, c.name, d, "generic") for c in CASES for d in (0, 1)]
            means[opt] += f" (forced-generic build: {geomean(other):.2f}x)"
    loads = run.loads or [0.0]
    return {
        "language": run.lang.name,
        "command": report.command("bench_dsdl_c.py", argv),
        "date": report.today(),
        "machine": f"{info['cpu']}, {info['cores']} cores, {info['os']}; "
        f"load average {min(loads):.1f}-{max(loads):.1f}",
        "compiler": info["compiler"],
        "versions": report.versions(
            nunavut=f"{info['nunavut']} (nnvg)", wireplan=info["wireplan"], pydsdl=info["pydsdl"]
        ),
        "rounds": run.rounds,
        "batches": run.batches,
        "target_ms": f"{run.target_ns / 1e6:g}",
        "tables": tables,
        "means": means,
    }


def render(r: dict[str, Any]) -> str:
    """The page's section of the result's language from :func:`page_result`."""
    lang = LANGUAGES[r["language"]]
    parts: list[list[str]] = [
        report.head(
            lang.title,
            r["command"],
            r["date"],
            {
                "Machine": r["machine"],
                "Compiler": f"{r['compiler']}; `{lang.std}`, `-O2` or `-Os`, no `-march`",
                "Versions": r["versions"],
                "Method": f"{r['rounds']} rounds, each a median of {r['batches']} batches of "
                f"at least {r['target_ms']} ms thread CPU time; ns are medians, `x` is "
                "nunavut's time over wireplan's, the median of per-round ratios",
            },
        ),
        [
            f"One {lang.label} source, `{lang.source.relative_to(REPO).as_posix()}`, "
            "built against either's headers;",
            "every build must reproduce pydsdl's bytes (values: `CASES`).",
        ],
    ]
    for opt, rows in r["tables"].items():
        parts += [[f"`{opt}` (ns per call)"], report.table(TABLE, rows), [r["means"][opt]]]
    parts += [
        [
            "Not measured: other compilers, `-march`, other CPUs, cold caches, big-endian.",
        ],
    ]
    return report.join(*parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--language",
        choices=sorted(LANGUAGES),
        default="c",
        help="c: bench_dsdl_c.c against the C headers; cpp: bench_dsdl_cpp.cpp against the C++ ones",
    )
    ap.add_argument("--quick", action="store_true", help="3 short rounds (a smoke run)")
    ap.add_argument("--rounds", type=int, help="rounds (default 21, --quick 3)")
    ap.add_argument("--check", action="store_true", help="only build and check the round trips")
    ap.add_argument(
        "--generators",
        default=",".join(GENERATORS),
        help="comma-separated subset of nunavut,wireplan (ratios need both)",
    )
    ap.add_argument("--work", type=Path, help="keep headers and binaries in this folder")
    ap.add_argument(
        "--generic",
        action="store_true",
        help="also time wireplan's headers with -DWIREPLAN_DSDL_GENERIC (the portable path)",
    )
    ap.add_argument(
        "--control",
        action="store_true",
        help="a noise run: the wireplan column is a second build of nunavut's headers",
    )
    ap.add_argument(
        "--markdown",
        type=Path,
        metavar="FILE",
        help="write the language's section of FILE (dsdl-c, dsdl-cpp)",
    )
    args = ap.parse_args(argv)
    lang = LANGUAGES[args.language]
    generators = [g for g in args.generators.split(",") if g]
    if not set(generators) <= set(GENERATORS):
        ap.error(f"generators are {', '.join(GENERATORS)}")
    if args.generic:
        generators.append("generic")

    def say(msg: str) -> None:
        print(f"[bench_{lang.results}] {msg}", file=sys.stderr, flush=True)

    work = args.work or Path(tempfile.mkdtemp(prefix=f"bench_{lang.results}-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        say(f"generating headers ({', '.join(generators)}) and building in {work}")
        prep = prepare(work, generators, control=args.control, lang=lang)
        say(f"all {len(prep['exes'])} builds give pydsdl's bytes for all {len(CASES)} types")
        if args.check:
            return 0
        run = Run(
            lang,
            generators,
            rounds=args.rounds or (3 if args.quick else 21),
            target_ns=2e5 if args.quick else 2e6,
            batches=3 if args.quick else 5,
            control=args.control,
        )
        started = time.time()
        measure(prep, run, say)
        info = machine(lang)
        text = full_report(run, prep, info)
        print(text)
        RESULTS.mkdir(exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(started))
        stamp += "-control" if args.control else ""
        (RESULTS / f"{lang.results}-{stamp}.md").write_text(text + "\n")
        raw = {
            "machine": info,
            "language": lang.name,
            "rounds": run.rounds,
            "timings": {f"{g}{o}": v for (g, o), v in run.timings.items()},
            "messages": {k: v.hex() for k, v in prep["messages"].items()},
        }
        (RESULTS / f"{lang.results}-{stamp}.json").write_text(json.dumps(raw, indent=1))
        say(f"written to {RESULTS / f'{lang.results}-{stamp}.md'} (and .json)")
        if args.markdown is not None:
            if set(GENERATORS) <= set(generators) and not args.control:
                shown = sys.argv[1:] if argv is None else argv
                body = render(page_result(run, prep, info, shown))
                report.update(args.markdown, lang.section, body)
            else:
                say("--markdown needs both generators and no --control: the page is not written")
        return 0
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
