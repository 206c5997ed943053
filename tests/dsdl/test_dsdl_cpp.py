"""wireplan's C++ headers against nunavut 3.1's C++ output: the same files, the same public
surface, the same application source.

nunavut's output (``nnvg --target-language cpp --language-standard c++17``) of uavcan, reg
and the corner namespace is the reference: every header has the same path, and in each the
lines that make up the API - namespaces, classes, ``_traits_`` members, ``TypeOf`` and
``ArrayCapacity`` entries, constants, members, union accessors, the serialize / deserialize
signatures, includes of other types - are the same, line for line.  tests/dsdl/c/app.cpp, a
node application written against nunavut's C++ API, builds against both producers' headers
(g++ and clang++, with and without exceptions and RTTI, the portable path forced) and prints
the same, including pydsdl's bytes of three messages.  The round trips of every type are in
test_dsdl_c.py (its C++ builds).
"""

from __future__ import annotations

import ast
import operator
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ._producers import Headers, _need, run_nnvg
from ._support import CORNER, REG, UAVCAN
from .test_dsdl_c import (
    C_DIR,
    CETL_INCLUDE,
    CFLAGS,
    GENERIC_MACRO,
    SHIM_DIR,
    _app_oracle,
    _compile,
    run_exe,
)

# The lines of a header that make up its API (after whitespace is collapsed).
_SURFACE = re.compile(
    r"^(struct |class |using \w+ *=|static constexpr|namespace \w+|_traits_::TypeOf::\w+ \w+"
    r"|VariantType union_value|bool is_\w+|typename std::add_\w+<[^>]*>::type get_\w+"
    r"|std::add_lvalue_reference<[^>]*>::type set_\w+|inline nunavut::support::SerializeResult"
    r"|#ifndef|#include \""
    # the constructors and the allocator of a PMR class, the allocator a union's set_x passes
    r"|(explicit )?\w+_\d+_\d+\(|~\w+_\d+_\d+\(|\w+_\d+_\d+& operator="
    r"|const _traits_::TypeOf::\w+& param_|const allocator_type& allocator = "
    r"|allocator_type allocator_;|template<std::size_t I, class T>$|return union_value\.emplace<)"
)
_FLOAT_CONSTANT = re.compile(
    r"^(static constexpr (?:float|double) \w+ = )static_cast<\w+>\((.*)\);$"
)


def _arithmetic(text: str) -> float:
    """The value of a constant expression such as ``(1.0 / 2048.0)`` (numbers and + - * /)."""
    ops: dict[type, Callable[[Any, Any], Any]] = {
        ast.Add: operator.add,
        ast.Sub: operator.sub,
        ast.Mult: operator.mul,
        ast.Div: operator.truediv,
    }

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return float(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            return float(ops[type(node.op)](value(node.left), value(node.right)))
        raise ValueError(f"not a constant expression: {text}")

    return value(ast.parse(text, mode="eval").body)


def surface(text: str) -> list[str]:
    """The API lines of a header; ``cetl::`` is ``std::`` (under C++17 they are one), a float
    constant's value is written as its number (nunavut writes DSDL's rational)."""
    out = []
    for line in text.splitlines():
        s = " ".join(line.split())
        if s.startswith("//") or "options::" in s or s.startswith("using VariantType ="):
            continue  # comments, nunavut's option checks, a local alias in its functions
        if s.startswith(("using Storage =", "static constexpr auto pointer =")):
            continue  # how a C++14 VariantType keeps its value (wireplan's base, nunavut's union)
        s = re.sub(r"^class VariantType final : public ::nunavut::support::wireplan_detail::.*",
                   "class VariantType final", s)  # fmt: skip
        if not _SURFACE.match(s):
            continue
        s = s.replace("cetl::", "std::").replace("<size_t I", "<std::size_t I")
        s = s.replace("allocator_type() )", "allocator_type())").removesuffix(" noexcept")
        s = s.replace("allocator )", "allocator)")
        m = _FLOAT_CONSTANT.match(s)
        if m:
            s = f"{m[1]}{_arithmetic(m[2])!r}"
        out.append(s)
    return out


def headers(folder: Path) -> dict[str, Path]:
    """The type headers under ``folder`` by relative path (the support headers left out)."""
    return {
        str(p.relative_to(folder)): p
        for p in folder.rglob("*.hpp")
        if p.relative_to(folder).parts[0] not in ("nunavut", "wireplan")
    }


# nunavut's --language-standard values that wireplan writes (c++20 is c++17's text, c++20-pmr
# c++17-pmr's, but for nunavut's option hashes: each is compared; cetl++14-17 with the CETL
# name fix of _producers.NNVG_CETL_FIX)
STANDARDS = ["c++14", "c++17", "c++20", "c++17-pmr", "c++20-pmr", "cetl++14-17"]


@pytest.fixture(scope="module")
def produced(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[Path, Path]]:
    """(nunavut's, wireplan's) C++ headers of uavcan, reg and corner for a language standard,
    made once."""
    from wireplan.dsdl import compile as compile_dsdl

    made: dict[str, tuple[Path, Path]] = {}

    def produce(std: str) -> tuple[Path, Path]:
        if std not in made:
            theirs = tmp_path_factory.mktemp(f"nunavut-{std}-all")
            mine = tmp_path_factory.mktemp(f"wireplan-{std}-all")
            for root, lookup in [(UAVCAN, []), (REG, [UAVCAN]), (CORNER, [])]:
                run_nnvg(theirs, [str(root)], lookup, "cpp", std)
                compile_dsdl(root, lookup=lookup, output=mine, language="cpp",
                             language_standard=std)  # fmt: skip
            made[std] = theirs, mine
        return made[std]

    return produce


@pytest.fixture(params=STANDARDS)
def both(
    request: pytest.FixtureRequest, produced: Callable[[str], tuple[Path, Path]]
) -> tuple[Path, Path]:
    """(nunavut's, wireplan's) C++ headers of uavcan, reg and corner, for one language standard."""
    return produced(request.param)


def test_same_headers(both: tuple[Path, Path]) -> None:
    """One header per type and service, at nunavut's paths (``uavcan/_register/Value_1_0.hpp``,
    ``reg/.../zX005FzX005F0_1.hpp`` for the type named ``_``)."""
    theirs, mine = (headers(f) for f in both)
    assert sorted(mine) == sorted(theirs)
    assert len(mine) > 250


def test_same_surface(both: tuple[Path, Path]) -> None:
    """In every header the API lines are nunavut's, in order."""
    theirs, mine = (headers(f) for f in both)
    differ = []
    for rel in sorted(theirs):
        a, b = surface(theirs[rel].read_text()), surface(mine[rel].read_text())
        assert len(a) > 5, rel
        if a != b:
            extra = [line for line in b if line not in a][:3]
            missing = [line for line in a if line not in b][:3]
            differ.append(f"{rel}: missing {missing}, extra {extra}")
    assert not differ, f"{len(differ)} headers differ:\n" + "\n".join(differ[:20])


def test_surface_sees_differences() -> None:
    """The comparison is not blind: a renamed member, a changed trait or a lost accessor show."""
    text = (
        "namespace uavcan\n{\nstruct Heartbeat_1_0 final\n{\n"
        "        static constexpr std::size_t ExtentBytes = 12UL;\n"
        "    _traits_::TypeOf::uptime uptime{};\n    bool is_empty() const\n}"
    )
    base = surface(text)
    assert len(base) == 5
    for old, new in [("uptime{}", "up{}"), ("12UL", "13UL"), ("is_empty", "is_void")]:
        assert surface(text.replace(old, new)) != base
    assert surface("static constexpr float E = static_cast<float>((1.0 / 2048.0));") == surface(
        "static constexpr float E = static_cast<float>(0.00048828125);"
    )


# (compiler, extra flags, defines): gcc and clang, without exceptions and RTTI, portable path
APP_BUILDS = {
    "g++": ("g++", (), ()),
    "g++-no-exceptions": ("g++", ("-fno-exceptions", "-fno-rtti"), ()),
    "g++-generic": ("g++", (), (GENERIC_MACRO,)),
    "clang++": ("clang++", ("-fno-exceptions", "-fno-rtti"), ()),
}


def _build_app(
    out: Path, folder: Path, build: str, source: str = "app.cpp", more: tuple[str, ...] = ()
) -> Path:
    compiler, extra, defines = APP_BUILDS[build]
    extra = (*extra, *more)
    cxx = _need(shutil.which(compiler), compiler)
    folder.mkdir(parents=True)
    exe = folder / "app"
    flags = [f for f in CFLAGS if f != "-std=c11"]
    _compile([cxx, "-std=c++17", "-pedantic", *flags, "-O1", *extra,
              *(f"-D{d}" for d in defines), f"-I{out}", f"-I{SHIM_DIR}",
              str(C_DIR / source), "-o", str(exe)])  # fmt: skip
    return exe


def test_same_application_source(
    nunavut_cpp_headers: Headers,
    wireplan_cpp_headers: Headers,
    all_types: list[Any],
    tmp_path: Path,
) -> None:
    """tests/dsdl/c/app.cpp prints pydsdl's bytes and the same lines on both producers'
    headers, with each compiler and flag set."""
    theirs = run_exe([_build_app(nunavut_cpp_headers.out, tmp_path / "nunavut", "g++")])
    lines = theirs.splitlines()
    for line in _app_oracle(all_types).values():
        assert line in lines, theirs
    assert "?" not in theirs and "access long name: bad array length" in lines, theirs
    for build in APP_BUILDS:
        mine = run_exe([_build_app(wireplan_cpp_headers.out, tmp_path / build, build)])
        assert mine == theirs, build


def test_same_application_source_cpp14(
    produced: Callable[[str], tuple[Path, Path]], tmp_path: Path
) -> None:
    """With ``c++14`` (nunavut's default standard, unions without ``std::variant``) app.cpp
    builds as C++14 and prints the same on both producers' headers, with g++ and clang++."""
    theirs_out, mine_out = produced("c++14")
    cxx14 = ("-std=c++14",)
    theirs = run_exe([_build_app(theirs_out, tmp_path / "nunavut", "g++", more=cxx14)])
    assert "access long name: bad array length" in theirs.splitlines(), theirs
    assert "value string index=1 of 15" in theirs.splitlines(), theirs
    for build in ("g++", "clang++"):
        mine = run_exe([_build_app(mine_out, tmp_path / build, build, more=cxx14)])
        assert mine == theirs, build


def test_pmr_application(produced: Callable[[str], tuple[Path, Path]], tmp_path: Path) -> None:
    """tests/dsdl/c/app_pmr.cpp, written against nunavut's PMR classes (c++17-pmr): every
    container allocates from the resource nunavut's classes give it (construction with an
    allocator, deserialization, copies and moves with one, unions' ``set_x``), and the output is
    the same on both producers' headers, with each compiler and flag set."""
    theirs_out, mine_out = produced("c++17-pmr")
    # g++ 12 warns of a maybe-uninitialized std::variant inside nunavut's PMR deserialize
    peer = ("-Wno-maybe-uninitialized",)
    theirs = run_exe([_build_app(theirs_out, tmp_path / "nunavut", "g++", "app_pmr.cpp", peer)])
    lines = theirs.splitlines()
    assert len(lines) == 16 and "NO" not in theirs, theirs
    assert sum(": yes" in line for line in lines) == 13, theirs
    assert "heartbeat from the initializing constructor: 7 bytes, 05 00 00 00 02 01 03" in lines
    for build in APP_BUILDS:
        mine = run_exe([_build_app(mine_out, tmp_path / build, build, "app_pmr.cpp")])
        assert mine == theirs, build


def test_cetl_array_that_cannot_grow(
    produced: Callable[[str], tuple[Path, Path]], tmp_path: Path
) -> None:
    """cetl++14-17 without exceptions: a ``VariableLengthArray`` whose memory runs out holds
    fewer elements than the wire's count; deserialization is then a bad array length (error
    10), under ASan/UBSan, where it has the room it decodes all 40 floats."""
    out = produced("cetl++14-17")[1]
    cxx = _need(shutil.which("g++"), "g++")
    exe = tmp_path / "app"
    flags = [f for f in CFLAGS if f != "-std=c11"]
    _compile([cxx, "-std=c++14", "-pedantic", *flags, "-O1", "-fno-exceptions", "-fno-rtti",
              f"-I{out}", f"-I{CETL_INCLUDE}", str(C_DIR / "app_cetl_full.cpp"), "-o", str(exe)])  # fmt: skip
    assert run_exe([exe]).splitlines() == [
        "room 64: error 10, 16 elements",
        "room 512: ok 161, 40 elements",
    ]


def test_language_standards(tmp_path: Path) -> None:
    """``language_standard`` picks the allocators; C++ headers of both kinds never share a
    folder; a standard wireplan does not write, or one for C, is refused with what to do."""
    from wireplan import ArgumentError
    from wireplan.dsdl import compile as compile_dsdl

    out = tmp_path / "out"
    compile_dsdl(CORNER, output=out, language="cpp", language_standard="c++20-pmr")
    text = (out / "corner" / "U_1_0.hpp").read_text()
    assert "using allocator_type = std::pmr::polymorphic_allocator<void>;" in text
    assert "--language-standard c++20-pmr" in text
    compile_dsdl(CORNER, output=out, language="cpp")  # the same namespace again: replaced whole
    assert "allocator_type" not in (out / "corner" / "U_1_0.hpp").read_text()
    compile_dsdl(UAVCAN, output=out, language="cpp", language_standard="c++17")
    with pytest.raises(ArgumentError, match=r"uavcan: holds C\+\+ headers with std allocators"):
        compile_dsdl(CORNER, output=out, language="cpp", language_standard="c++17-pmr")
    assert "allocator_type" not in (out / "corner" / "U_1_0.hpp").read_text()  # left as it was
    with pytest.raises(
        ArgumentError,
        match=r"corner: holds C\+\+ headers with std allocators \(c\+\+17\); headers with cetl",
    ):
        compile_dsdl(UAVCAN, output=out, language="cpp", language_standard="cetl++14-17")
    with pytest.raises(ArgumentError, match="unknown C\\+\\+ language standard 'c\\+\\+11'"):
        compile_dsdl(CORNER, output=tmp_path / "x", language="cpp", language_standard="c++11")
    compile_dsdl(CORNER, output=tmp_path / "cetl", language="cpp", language_standard="cetl++14-17")
    text = (tmp_path / "cetl" / "corner" / "U_1_0.hpp").read_text()
    assert "using allocator_type = cetl::pf17::pmr::polymorphic_allocator<void>;" in text
    assert "#include <variant>" not in text and "#include <cetl/pf17/cetlpf.hpp>" in text
    compile_dsdl(CORNER, output=tmp_path / "c14", language="cpp", language_standard="c++14")
    assert "#include <variant>" not in (tmp_path / "c14" / "corner" / "U_1_0.hpp").read_text()
    with pytest.raises(ArgumentError, match="for C\\+\\+ only"):
        compile_dsdl(CORNER, output=tmp_path / "x", language="c", language_standard="c11")


# nunavut's verification flags for C++ (test_dsdl_nunavut_cpp_suite.py has them all)
STRICT_CPP = ["-std=c++17", "-pedantic", "-Wall", "-Wextra", "-Werror", "-Wshadow", "-Wconversion",
              "-Wsign-conversion", "-Wold-style-cast", "-Wzero-as-null-pointer-constant",
              "-Wcast-align", "-Wdouble-promotion", "-Wfloat-equal", "-Wswitch-enum"]  # fmt: skip


@pytest.mark.parametrize(
    ("compiler", "std"),
    [
        ("g++", "c++17"),
        ("clang++", "c++17"),
        ("g++", "c++17-pmr"),
        ("clang++", "c++14"),
        ("g++", "cetl++14-17"),
        ("clang++", "cetl++14-17"),
    ],
)
def test_each_header_stands_alone(
    produced: Callable[[str], tuple[Path, Path]], tmp_path: Path, compiler: str, std: str
) -> None:
    """Every header compiles on its own (its includes are complete), warning-free under
    nunavut's verification flags, with g++ and clang++, with PMR allocators, and with CETL's
    (as C++14, CETL's headers from tests/dsdl/cetl)."""
    cxx = _need(shutil.which(compiler), compiler)
    out = produced(std)[1]
    found = headers(out)
    sources = []
    for k, rel in enumerate(sorted(found)):
        src = tmp_path / f"h{k}.cpp"
        src.write_text(f'#include "{rel}"\n')
        sources.append(str(src))
    half = len(sources) // 2
    procs = [
        subprocess.Popen([cxx, *STRICT_CPP, *(["-std=c++14"] if "14" in std else []),
                          *([f"-I{CETL_INCLUDE}"] if std.startswith("cetl") else []),
                          "-fsyntax-only", f"-I{out}", *part],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for part in (sources[:half], sources[half:])
    ]  # fmt: skip
    for proc in procs:
        _, err = proc.communicate()
        assert proc.returncode == 0, err[-4000:]
