"""The C and C++ headers (wireplan's and nunavut 3.1's) against pydsdl, under ASan and UBSan.

One generated harness (tests/dsdl/c/harness.c plus a type table per translation unit)
deserializes pydsdl's canonical bytes of random values of every type of uavcan, reg and
the corner namespace and serializes them back; truncated input, trailing bytes, random and
changed bytes, too small output buffers, NULL arguments and ``_initialize_`` are cases too.
The harness only runs the functions; every expectation comes from pydsdl here.  It is
generator-agnostic: the same source is built against each producer's headers (nunavut's,
on a subset, checks the harness itself; ``-m slow`` runs every type), and wireplan's also
with the portable path forced; on the types both cover, wireplan must answer as nunavut
does, case by case.  A small application (tests/dsdl/c/app.c) must print the same against
both producers' headers, as C and as C++.

The C++ headers run through the same driver: tests/dsdl/c/harness_cpp.hpp calls nunavut's
C++ API (``serialize(obj, bitspan)``, ``SerializeResult``) behind the driver's C functions,
with g++ and clang++, with and without exceptions and RTTI, on every real target; nunavut's
own C++ output (the subset) checks that harness, with a shim for the one CETL header it
includes (tests/dsdl/c/shim: under C++17 cetl::variant is std::variant).
"""

from __future__ import annotations

import os
import random
import shutil
import struct
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydsdl
import pytest

from ._producers import (
    Headers,
    _need,
    c_header,
    c_name,
    cpp_name,
    cpp_parts,
    extent_bytes,
    max_bytes,
)
from ._support import unwrap
from ._values import random_value, same

C_DIR = Path(__file__).resolve().parent / "c"
# The macro that makes wireplan's headers take the portable (big-endian-safe) path.
GENERIC_MACRO = "WIREPLAN_DSDL_GENERIC"
CFLAGS = [
    "-std=c11",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    "-g0",
]
# Sanitizer reports end the run with this status (ASan's and UBSan's default is 1).
SANITIZER_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:exitcode=86",
    "UBSAN_OPTIONS": "print_stacktrace=1:exitcode=86",
}
# pydsdl's deserialization errors (SerDesError subclasses it does not export) and the
# nunavut error code each one means.
_ERROR_CODES = {
    "ArrayLengthError": 10,  # NUNAVUT_ERROR_REPRESENTATION_BAD_ARRAY_LENGTH
    "UnionTagError": 11,  # NUNAVUT_ERROR_REPRESENTATION_BAD_UNION_TAG
    "DelimiterHeaderError": 12,  # NUNAVUT_ERROR_REPRESENTATION_BAD_DELIMITER_HEADER
}
INVALID_ARGUMENT = 2  # NUNAVUT_ERROR_INVALID_ARGUMENT
BUFFER_TOO_SMALL = 3  # NUNAVUT_ERROR_SERIALIZATION_BUFFER_TOO_SMALL


# ---------------------------------------------------------------- cases


@dataclass
class Case:
    """One run of the harness: deserialize ``data`` (or initialize) and serialize into ``cap``."""

    t: Any
    kind: str  # canonical, truncated, trailing, small, fuzz (random or changed bytes), init, nulls
    data: bytes
    cap: int
    origin: bytes | None = None  # the canonical bytes the input was made from

    def record(self, index: int) -> bytes:
        op = {"init": 1, "nulls": 2}.get(self.kind, 0)
        return struct.pack("<4I", index, op, self.cap, len(self.data)) + self.data


def type_cases(t: Any, *, n_values: int) -> list[Case]:
    """Every case of one type; expectations are computed when the results are checked."""
    rng = random.Random(f"wireplan-c:{c_name(t)}")
    top = max_bytes(t)
    canon = [pydsdl.serialize(t, random_value(t, rng)) for _ in range(n_values)]
    canon += [pydsdl.serialize(t, random_value(t, rng, max_var=300)) for _ in range(2)]
    cases = [Case(t, "canonical", c, top, c) for c in canon]
    longest = max(canon, key=len)
    # Cut every message somewhere, the longest also one byte short, in half and after a byte.
    cuts = [(c, rng.randrange(len(c))) for c in canon if c]
    ends = sorted({len(longest) - 1, len(longest) // 2, 1})
    cuts += [(longest, n) for n in ends if 0 < n < len(longest)]
    cases += [Case(t, "truncated", c[:n], top, c) for c, n in cuts]
    for c in (canon[0], longest):
        tail = rng.randbytes(rng.randint(1, 4))
        cases.append(Case(t, "trailing", c + tail, top, c))
    if longest:
        cases.append(Case(t, "small", longest, len(longest) - 1, longest))
    if len(longest) < top:
        cases.append(Case(t, "small", longest, len(longest), longest))
        cases.append(Case(t, "small", longest, top - 1, longest))
    cases.append(Case(t, "init", b"", top))
    cases.append(Case(t, "nulls", b"", 0))
    for _ in range(3):
        cases.append(Case(t, "fuzz", rng.randbytes(rng.randint(0, min(top + 3, 300))), top))
    for c in [c for c in (canon[0], longest) if c]:  # a few bytes of a message changed
        mutated = bytearray(c)
        for _ in range(rng.randint(1, 3)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        cases.append(Case(t, "fuzz", bytes(mutated), top))
    return cases


@pytest.fixture(scope="session")
def c_cases(all_types: list[Any]) -> dict[str, list[tuple[Case, Expected]]]:
    """The cases of every type by C name with pydsdl's verdicts, made once for every build."""
    return {
        c_name(t): [
            (c, Expected.of(c))
            for c in type_cases(t, n_values=8 if t.full_name.startswith("corner.") else 4)
        ]
        for t in all_types
    }


@dataclass
class Outcome:
    """What the harness printed for one case."""

    des: int
    consumed: int
    ser: int | None
    out: bytes | None

    @staticmethod
    def parse(line: str) -> Outcome:
        des, consumed, ser, written, hexed = line.split()
        if ser == "-":
            return Outcome(int(des), int(consumed), None, None)
        if int(ser) < 0:
            return Outcome(int(des), int(consumed), int(ser), None)
        out = b"" if hexed == "-" else bytes.fromhex(hexed)
        assert len(out) == int(written), line
        return Outcome(int(des), int(consumed), int(ser), out)


@dataclass
class Expected:
    """pydsdl's verdict on a case's input: an error code, or the value and its bytes."""

    error: int | None  # nunavut's error code; None when pydsdl decodes it
    value: Any = None
    out: bytes | None = None  # None: pydsdl rejects the UTF-8, which C does not check

    @staticmethod
    def of(case: Case) -> Expected:
        if case.kind == "nulls":
            return Expected(INVALID_ARGUMENT)
        try:
            value = pydsdl.deserialize(case.t, b"" if case.kind == "init" else case.data)
        except pydsdl.SerDesError as ex:
            return Expected(_ERROR_CODES[type(ex).__name__])
        except UnicodeDecodeError:
            return Expected(None)
        return Expected(None, value, pydsdl.serialize(case.t, value))


def check(case: Case, want: Expected, line: str, notes: dict[str, set[str]]) -> None:
    """Assert one printed outcome; lenient choices the producer made go to ``notes``."""
    if case.kind == "nulls":  # NULL object or buffer, to serialize then to deserialize
        assert line.split()[:4] == [str(-INVALID_ARGUMENT)] * 4, f"{c_name(case.t)} {line}"
        return
    got = Outcome.parse(line)
    out = "-" if got.out is None else got.out.hex()
    where = (
        f"{c_name(case.t)} {case.kind} in={case.data.hex() or '-'} cap={case.cap}: "
        f"deserialize {got.des} consumed {got.consumed}, serialize {got.ser} out={out}"
    )
    if want.error is not None:
        assert got.des == -want.error, f"{where}: pydsdl fails with code {want.error}"
        return
    assert got.des == 0, where
    if want.out is None:
        assert got.ser == 0, where
        return
    if case.origin is not None:
        assert got.consumed == min(len(case.origin), len(case.data)), where
    if case.cap < len(want.out):
        assert got.ser == -BUFFER_TOO_SMALL, where
        return
    if case.cap < max_bytes(case.t) and got.ser == -BUFFER_TOO_SMALL:
        notes.setdefault("needs the full buffer size", set()).add(c_name(case.t))
        return
    assert got.ser == 0 and got.out is not None, where
    if case.kind == "fuzz" and got.out != want.out:  # NaN payloads may differ; values may not
        assert len(got.out) == len(want.out), where
        assert same(pydsdl.deserialize(case.t, got.out), want.value), where
        return
    assert got.out == want.out, f"{where}: expected {want.out.hex()}"


# ---------------------------------------------------------------- building


def _gcc() -> str:
    return _need(shutil.which(os.environ.get("CC", "gcc")), "gcc")


def _table_source(types: list[tuple[int, Any]], part: int) -> str:
    lines = [f'#include "{h}"\n' for h in sorted({c_header(t) for _, t in types})]
    lines.append('#include "harness.h"\n\n')
    rows = []
    for i, t in types:
        n = c_name(t)
        lines.append(
            f"static int8_t s{i}(const void* o, uint8_t* b, size_t* s) "
            f"{{ return {n}_serialize_((const {n}*) o, b, s); }}\n"
            f"static int8_t d{i}(void* o, const uint8_t* b, size_t* s) "
            f"{{ return {n}_deserialize_(({n}*) o, b, s); }}\n"
            f"static void i{i}(void* o) {{ {n}_initialize_(({n}*) o); }}\n"
        )
        rows.append(
            f'    {{"{n}", sizeof({n}), {n}_SERIALIZATION_BUFFER_SIZE_BYTES_, '
            f"{n}_EXTENT_BYTES_, s{i}, d{i}, i{i}, NULL, NULL}},\n"
        )
    lines.append(f"const struct harness_type harness_part{part}[] = {{\n{''.join(rows)}}};\n")
    return "".join(lines)


def _table_source_cpp(types: list[tuple[int, Any]], part: int) -> str:
    """The type table of a C++ part: nunavut's C++ API behind harness_cpp.hpp's wrappers."""
    lines = [f'#include "{h}"\n' for h in sorted({cpp_parts(t)[2] for _, t in types})]
    lines.append('#include "harness_cpp.hpp"\n\n')
    rows = []
    for _, t in types:
        n = cpp_name(t)
        rows.append(
            f'    {{"{c_name(t)}", sizeof({n}), {n}::_traits_::SerializationBufferSizeBytes, '
            f"{n}::_traits_::ExtentBytes, harness::ser<{n}>, harness::des<{n}>, "
            f"harness::init<{n}>, harness::construct<{n}>, harness::destroy<{n}>}},\n"
        )
    lines.append(
        f'extern "C" const struct harness_type harness_part{part}[] = {{\n{"".join(rows)}}};\n'
    )
    return "".join(lines)


@dataclass(frozen=True)
class Target:
    """A real target through Debian's cross compiler, the harness run under qemu user mode."""

    triple: str  # the compilers are ``{triple}-gcc`` and ``{triple}-g++``
    qemu: str
    big_endian: bool
    pointer_bits: int

    @property
    def gcc(self) -> str:
        return _need_tool(f"{self.triple}-gcc")

    @property
    def gxx(self) -> str:
        return _need_tool(f"{self.triple}-g++")

    def runner(self) -> list[str]:
        return [_need_tool(self.qemu)]


# dev.py installs these (Debian: gcc-<triple> with libc6-dev-<arch>-cross, qemu-user-static).
TARGETS = {
    "s390x": Target("s390x-linux-gnu", "qemu-s390x-static", True, 64),
    "powerpc": Target("powerpc-linux-gnu", "qemu-ppc-static", True, 32),
    "armhf": Target("arm-linux-gnueabihf", "qemu-arm-static", False, 32),
    "aarch64": Target("aarch64-linux-gnu", "qemu-aarch64-static", False, 64),
}
# Cross builds have no sanitizers (qemu-user does not run ASan's shadow memory); they link
# statically so that qemu needs no target libraries.
CROSS_CFLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-g0", "-static"]


def _need_tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} not found (python3 dev.py setup installs the cross tools)")
    return found


# C++ builds: the C flags with C++17 (and the include path of the CETL shim nunavut's
# output needs); "clang" builds with clang / clang++, the others with gcc / g++.
CPP_STD = "-std=c++17"
SHIM_DIR = C_DIR / "shim"
CETL_INCLUDE = C_DIR.parent / "cetl" / "include"


def _compilers(target: Target | None, clang: bool) -> tuple[str, str]:
    """(C compiler, C++ compiler) of a build."""
    if target is not None:
        return target.gcc, target.gxx
    if clang:
        return _need_tool("clang"), _need_tool("clang++")
    return _gcc(), _need(shutil.which(os.environ.get("CXX", "g++")), "g++")


def build_harness(
    headers: Headers,
    types: list[Any],
    folder: Path,
    defines: list[str],
    opt: str,
    target: Target | None = None,
    clang: bool = False,
    extra: tuple[str, ...] = (),
) -> Path:
    """Compile the harness over ``types`` in two translation units (the machine's two cores),
    natively under the sanitizers or, for a ``target``, with its cross compiler; the type
    tables are C or C++ as the headers are."""
    cc_path, cxx_path = _compilers(target, clang)
    cflags = CFLAGS if target is None else CROSS_CFLAGS
    cpp = headers.language == "cpp"
    folder.mkdir(parents=True)
    indexed = list(enumerate(types))
    parts = [indexed[: len(indexed) // 2], indexed[len(indexed) // 2 :]]
    index = ['#include "harness.h"\n']
    for k, part in enumerate(parts):
        if cpp:
            (folder / f"part{k}.cpp").write_text(_table_source_cpp(part, k))
        else:
            (folder / f"part{k}.c").write_text(_table_source(part, k))
        index.append(f"extern const struct harness_type harness_part{k}[];\n")
    entries = ", ".join(f"{{harness_part{k}, {len(p)}}}" for k, p in enumerate(parts))
    index.append(f"const struct harness_part harness_parts[] = {{{entries}}};\n")
    index.append(f"const size_t harness_part_count = {len(parts)};\n")
    (folder / "index.c").write_text("".join(index))
    flags = [*cflags, opt, *(f"-D{d}" for d in defines), f"-I{headers.out}", f"-I{C_DIR}"]
    # the table uses every type, the deprecated ones too (a use warns, as in nunavut's C++)
    shim = [] if CETL[0] in extra else [f"-I{SHIM_DIR}"]  # CETL itself, or the shim
    cxxflags = [f for f in flags if f != "-std=c11"] + [
        CPP_STD, "-pedantic", "-Wno-deprecated-declarations", *shim, *extra
    ]  # fmt: skip
    ext = ".cpp" if cpp else ".c"
    sources = [folder / f"part0{ext}", folder / f"part1{ext}", folder / "index.c",
               C_DIR / "harness.c"]  # fmt: skip

    def cc(src: Path) -> Path:
        obj = folder / f"{src.stem}.o"
        if src.suffix == ".cpp":
            _compile([cxx_path, *cxxflags, "-c", str(src), "-o", str(obj)])
        else:
            _compile([cc_path, *flags, "-c", str(src), "-o", str(obj)])
        return obj

    with ThreadPoolExecutor(2) as pool:
        objects = list(pool.map(cc, sources))
    exe = folder / "harness"
    link = cxx_path if cpp else cc_path
    link_flags = [f for f in cflags if not f.startswith("-std=")]
    _compile([link, *link_flags, *(str(o) for o in objects), "-o", str(exe)])
    return exe


def _compile(cmd: list[str]) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(cmd)}\n{done.stderr[-6000:]}"


def run_exe(cmd: list[str | Path], cases: list[Case] | None = None) -> str:
    """Run a sanitized program; on failure name the case it was running (``cases``)."""
    done = subprocess.run(
        [str(c) for c in cmd], capture_output=True, text=True, env={**os.environ, **SANITIZER_ENV}
    )
    if done.returncode != 0:
        where = ""
        if cases is not None and done.stdout.count("\n") < len(cases):
            case = cases[done.stdout.count("\n")]
            where = f" in {c_name(case.t)} {case.kind} in={case.data.hex()} cap={case.cap}"
        pytest.fail(f"{cmd[0]} exited {done.returncode}{where}\n{done.stderr[-6000:]}")
    return done.stdout


# ---------------------------------------------------------------- tests


@dataclass(frozen=True)
class Build:
    """One build of the harness: whose headers (a fixture ``{producer}_headers``), the forced
    portable path, the optimization, a real target, clang instead of gcc, more flags."""

    producer: str
    generic: bool
    opt: str
    target: str | None = None
    clang: bool = False
    extra: tuple[str, ...] = ()

    @property
    def cpp(self) -> bool:
        return "_cpp" in self.producer


NO_EXCEPTIONS = ("-fno-exceptions", "-fno-rtti")
CETL = ("-DHARNESS_CETL", f"-I{CETL_INCLUDE}")  # CETL's headers, vendored (tests/dsdl/cetl)
CPP20 = "-std=c++20"  # after -std=c++17: the headers are C++17 and build as C++20 too
# wireplan's fast path as a release build compiles it, its portable path, and nunavut's
# headers, which check the harness itself (gcc 12 rejects nunavut's C at -O2 with -Werror: a
# false -Warray-bounds in `_initialize_`); the same for C++, also with clang++ as C++20 and
# without exceptions and RTTI.
BUILDS: dict[str, Build] = {
    "wireplan": Build("wireplan", False, "-O2"),
    "generic": Build("wireplan", True, "-O0"),
    "nunavut": Build("nunavut", False, "-O0"),
    "nunavut_full": Build("nunavut_full", False, "-O0"),
    "cpp": Build("wireplan_cpp", False, "-O2"),
    "cpp_generic": Build("wireplan_cpp", True, "-O0", extra=NO_EXCEPTIONS),
    "cpp_clang": Build("wireplan_cpp", False, "-O2", clang=True, extra=(*NO_EXCEPTIONS, CPP20)),
    "nunavut_cpp": Build("nunavut_cpp", False, "-O0"),
    # PMR allocators (c++17-pmr): the same moves, through the allocator-aware classes
    "cpp_pmr": Build("wireplan_cpp_pmr", False, "-O2", extra=NO_EXCEPTIONS),
    # C++14 (nunavut's default standard): unions over the support header's own variant
    "cpp14": Build("wireplan_cpp14", False, "-O2", extra=("-std=c++14",)),
    # CETL's containers and allocator (cetl++14-17, libcyphal's flavour): C++14, where CETL's
    # own variant and allocator are used, and C++17 without exceptions, where its arrays stop
    # at their capacity instead of throwing
    "cpp_cetl": Build("wireplan_cpp_cetl", False, "-O2", extra=(*CETL, "-std=c++14")),
    "cpp_cetl17": Build("wireplan_cpp_cetl", False, "-O2", extra=(*CETL, *NO_EXCEPTIONS)),
    "cpp_cetl_clang": Build(
        "wireplan_cpp_cetl", False, "-O2", clang=True, extra=(*CETL, "-std=c++14")
    ),
    "nunavut_cpp_cetl": Build("nunavut_cpp_cetl", False, "-O0", extra=(*CETL, "-std=c++14")),
}
# Every real target, C and C++, with the fast build (the headers choose their path by the
# target's byte order) and the portable path forced.
for _name in TARGETS:
    BUILDS[_name] = Build("wireplan", False, "-O2", _name)
    BUILDS[f"{_name}_generic"] = Build("wireplan", True, "-O2", _name)
    BUILDS[f"{_name}_cpp"] = Build("wireplan_cpp", False, "-O2", _name)
    BUILDS[f"{_name}_cpp_generic"] = Build("wireplan_cpp", True, "-O2", _name)
CROSS_BUILDS = [name for name, b in BUILDS.items() if b.target is not None]


@dataclass
class Run:
    """One build's harness output: the cases it ran and a printed line per case."""

    headers: Headers
    cases: list[tuple[Case, Expected]]
    lines: list[str]


@pytest.fixture(scope="session")
def harness_runs(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    c_cases: dict[str, list[tuple[Case, Expected]]],
) -> Callable[[str], Run]:
    """Build and run the harness of one of BUILDS, once per session."""
    done: dict[str, Run] = {}

    def run(build: str) -> Run:
        if build in done:
            return done[build]
        b = BUILDS[build]
        target = TARGETS[b.target] if b.target else None
        runner = target.runner() if target else []
        headers: Headers = request.getfixturevalue(f"{b.producer}_headers")
        if b.generic:
            assert any(GENERIC_MACRO in h.read_text() for h in headers.out.rglob("*.h")), (
                f"no header mentions {GENERIC_MACRO}"
            )
        folder = tmp_path_factory.mktemp(f"harness-{build}")
        defines = [GENERIC_MACRO] if b.generic else []
        exe = build_harness(headers, headers.types, folder / "build", defines, b.opt, target,
                            b.clang, b.extra)  # fmt: skip

        listed = run_exe([*runner, exe, "list"]).splitlines()
        assert len(listed) == len(headers.types)
        for line, t in zip(listed, headers.types, strict=True):
            _, name, _, size, extent = line.split()
            assert (name, int(size), int(extent)) == (c_name(t), max_bytes(t), extent_bytes(t))

        indexed = [(i, c) for i, t in enumerate(headers.types) for c in c_cases[c_name(t)]]
        (folder / "cases.bin").write_bytes(b"".join(c.record(i) for i, (c, _) in indexed))
        cases = [c for _, c in indexed]
        cmd = [*runner, exe, "run", folder / "cases.bin"]
        lines = run_exe(cmd, [c for c, _ in cases]).splitlines()
        assert len(lines) == len(cases)
        done[build] = Run(headers, cases, lines)
        return done[build]

    return run


@pytest.mark.parametrize(
    "build",
    [
        *(b for b in BUILDS if b != "nunavut_full"),
        pytest.param("nunavut_full", marks=pytest.mark.slow),
    ],
)
def test_round_trips(
    harness_runs: Callable[[str], Run], build: str, pytestconfig: pytest.Config
) -> None:
    """Canonical bytes back identical; truncation, trailing bytes, small buffers, init, fuzz."""
    if build == "nunavut_full" and "slow" not in (pytestconfig.getoption("markexpr") or ""):
        pytest.skip("slow: run with -m slow")
    run = harness_runs(build)
    notes: dict[str, set[str]] = {}
    failures = []
    for (case, want), line in zip(run.cases, run.lines, strict=True):
        try:
            check(case, want, line, notes)
        except AssertionError as ex:
            failures.append(str(ex))
    assert not failures, f"{len(failures)} of {len(run.cases)} cases:\n" + "\n".join(failures[:40])
    print(f"{build}: {len(run.cases)} cases of {len(run.headers.types)} types")
    for what, names in notes.items():
        print(f"{build}: {what}: {len(names)} types")


@pytest.mark.parametrize(
    "build", [b for b, spec in BUILDS.items() if spec.producer.startswith("wireplan")]
)
def test_same_outcomes_as_nunavut(harness_runs: Callable[[str], Run], build: str) -> None:
    """Where pydsdl leaves room (bytes consumed, which error, a buffer between the message's
    size and the largest), wireplan's headers answer what nunavut's answer, case by case (C++
    builds against nunavut's C++ output, CETL ones against its cetl++14-17 output)."""
    spec = BUILDS[build]
    peer_build = "nunavut_cpp" if spec.cpp else "nunavut"
    theirs = harness_runs(peer_build + ("_cetl" if spec.producer.endswith("_cetl") else ""))
    mine = harness_runs(build)
    peer = {c_name(t) for t in theirs.headers.types}
    ours = [(c, line) for (c, _), line in zip(mine.cases, mine.lines, strict=True)]
    ours = [(c, line) for c, line in ours if c_name(c.t) in peer]
    assert len(ours) == len(theirs.lines)
    differ = []
    for (case, line), other in zip(ours, theirs.lines, strict=True):
        if line != other and not (case.kind == "fuzz" and _same_value(case, line, other)):
            differ.append(f"{c_name(case.t)} {case.kind} in={case.data.hex()}: {line} / {other}")
    assert not differ, f"{len(differ)} cases differ (wireplan / nunavut):\n" + "\n".join(
        differ[:40]
    )


BYTE_ORDER_PROBE = r"""
#include <wireplan/dsdl/support.h>
#include <stdio.h>
int main(void)
{
    const uint32_t one = 1U;
    unsigned char first;
    memcpy(&first, &one, 1U);
    printf("memcpy path %d, little-endian %d, pointer bits %u\n", (int) WIREPLAN_DSDL_LE,
           (int) first, (unsigned) (sizeof(void*) * CHAR_BIT));
    return 0;
}
"""


@pytest.mark.parametrize("name", list(TARGETS))
def test_each_target_picks_its_path(name: str, wireplan_headers: Headers, tmp_path: Path) -> None:
    """The support header takes the memcpy path on a little-endian target and the portable
    one on a big-endian target by itself (docs/dsdl-c.md promises it); the program really ran
    on that target (its byte order and pointer width)."""
    target = TARGETS[name]
    src = tmp_path / "probe.c"
    src.write_text(BYTE_ORDER_PROBE)
    exe = tmp_path / "probe"
    _compile([target.gcc, *CROSS_CFLAGS, f"-I{wireplan_headers.out}", str(src), "-o", str(exe)])
    le = int(not target.big_endian)
    want = f"memcpy path {le}, little-endian {le}, pointer bits {target.pointer_bits}\n"
    assert run_exe([*target.runner(), exe]) == want


def _same_value(case: Case, mine: str, theirs: str) -> bool:
    """Two outcomes that differ only in the bytes of equal values (a NaN's payload)."""
    a, b = Outcome.parse(mine), Outcome.parse(theirs)
    if (a.des, a.consumed, a.ser) != (b.des, b.consumed, b.ser) or a.out is None or b.out is None:
        return False
    return bool(same(pydsdl.deserialize(case.t, a.out), pydsdl.deserialize(case.t, b.out)))


def _build_app(headers: Headers, folder: Path, defines: list[str], cxx: bool = False) -> Path:
    """app.c as C11, or as C++17 (nunavut's C headers are usable from C++)."""
    folder.mkdir(parents=True)
    exe = folder / "app"
    flags = [*CFLAGS, "-O1", *(f"-D{d}" for d in defines), f"-I{headers.out}"]
    if cxx:
        gxx = _need(shutil.which(os.environ.get("CXX", "g++")), "g++")
        flags = [gxx, "-x", "c++", *(f for f in flags if f != "-std=c11"), "-std=c++17"]
    else:
        flags = [_gcc(), *flags]
    _compile([*flags, str(C_DIR / "app.c"), "-o", str(exe)])
    return exe


def _app_oracle(all_types: list[Any]) -> dict[str, str]:
    """pydsdl's bytes of three messages app.c builds, as it prints them."""
    by_name = {f"{unwrap(t).full_name}": t for t in all_types}
    heartbeat = {"uptime": 123456, "health": {"value": 3}, "mode": {"value": 2}}
    request = {
        "name": {"name": list(b"motor.pwm.limits")},
        "value": {"natural16": {"value": [1000, 1500, 65535]}},
    }
    info = {
        "protocol_version": {"major": 1, "minor": 0},
        "hardware_version": {"major": 2, "minor": 1},
        "software_version": {"major": 3, "minor": 0},
        "software_vcs_revision_id": 0xDEADBEEFCAFE,
        "unique_id": [i * 17 for i in range(16)],
        "name": list(b"org.example.motor"),
        "software_image_crc": [0x1122334455667788],
        "certificate_of_authenticity": [1, 2, 3, 4],
    }
    out = {}
    for label, name, value in [
        ("heartbeat", "uavcan.node.Heartbeat", {**heartbeat, "vendor_specific_status_code": 0xA5}),
        ("access request", "uavcan.register.Access.Request", request),
        ("get info response", "uavcan.node.GetInfo.Response", info),
    ]:
        data = pydsdl.serialize(by_name[name], value)
        out[label] = f"{label}: rc=0 size={len(data)} bytes={data.hex()}"
    return out


def test_same_application_source(
    wireplan_headers: Headers, nunavut_headers: Headers, all_types: list[Any], tmp_path: Path
) -> None:
    """tests/dsdl/c/app.c builds against both producers' headers and prints the same (also
    with the portable path forced, and compiled as C++)."""
    theirs = run_exe([_build_app(nunavut_headers, tmp_path / "nunavut", [])])
    for line in _app_oracle(all_types).values():
        assert line in theirs.splitlines(), theirs
    assert "?" not in theirs, theirs
    mine = run_exe([_build_app(wireplan_headers, tmp_path / "wireplan", [])])
    assert mine == theirs
    generic = run_exe([_build_app(wireplan_headers, tmp_path / "generic", [GENERIC_MACRO])])
    assert generic == theirs
    for headers in (nunavut_headers, wireplan_headers):
        cxx = _build_app(headers, tmp_path / f"{headers.producer}-cxx", [], cxx=True)
        assert run_exe([cxx]) == theirs, f"{headers.producer}'s headers from C++"
