"""The C and C++ headers on microcontrollers: Cortex-M0 (no unaligned access) and Cortex-M4.

A word or halfword access at an address the target cannot take faults on Cortex-M0.  The
generated code never makes one, and this holds by construction, which is what is checked:

- no cast to a pointer to anything wider than a byte in the generated headers or the
  support header (a multi-byte
  value is read from or written to a buffer only through ``memcpy`` or byte shifts, whose
  alignment the compiler knows; struct members are aligned by the ABI);
- every header compiles, with a function per type that calls its serializer and
  deserializer (so that the code is emitted), for ``-mcpu=cortex-m0`` and ``cortex-m4``
  at ``-Os``, fast and portable paths, under ``-Wcast-align=strict -Werror``: no cast
  raises the alignment a pointer needs; the C++ headers likewise with arm-none-eabi-g++
  (``-fno-exceptions -fno-rtti``, as firmware builds), through nunavut's C++ API.

Code size against nunavut's headers is a benchmark (``benchmarks/bench_dsdl_c_size.py``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pydsdl
import pytest

import wireplan.dsdl as dsdl

from ._producers import c_header, c_name, cpp_name, cpp_parts
from ._support import CORNER, REG, UAVCAN, serializable

CC = "arm-none-eabi-gcc"  # Debian's gcc-arm-none-eabi with libnewlib-arm-none-eabi
FLAGS = ["-std=c11", "-mthumb", "-Os", "-Wall", "-Wextra", "-Werror", "-Wcast-align=strict"]
# A cast to a pointer type in C: `(T*)`, `(const T *)`, `(T* const)`; group 1 is T.
POINTER_CAST = re.compile(r"\(\s*(?:const\s+|volatile\s+)*([A-Za-z_]\w*)\s*\*+\s*(?:const\s*)?\)")
BYTES = {"uint8_t", "int8_t", "char", "void"}  # pointers to these need no alignment
# C++ casts to a pointer type: `static_cast<T*>`, `reinterpret_cast<const T*>`; group 1 is T.
CPP_POINTER_CAST = re.compile(r"_cast<\s*(?:const\s+)?(?:std::)?([A-Za-z_]\w*)\s*\*")
CXX = "arm-none-eabi-g++"  # with Debian's libstdc++-arm-none-eabi-newlib
CXX_FLAGS = ["-std=c++17", *FLAGS[1:], "-fno-exceptions", "-fno-rtti"]


@pytest.fixture(scope="module")
def headers(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    out = tmp_path_factory.mktemp("mcu")
    corner = tmp_path_factory.mktemp("src") / "corner"
    shutil.copytree(CORNER, corner)
    dsdl.compile([UAVCAN, REG, corner], output=out / "c", language="c", durable=False)
    dsdl.compile([UAVCAN, REG, corner], output=out / "cpp", language="cpp", durable=False)
    types = serializable(
        pydsdl.read_namespace(str(UAVCAN), [])
        + pydsdl.read_namespace(str(REG), [str(UAVCAN)])
        + pydsdl.read_namespace(str(corner), [])
    )
    return out, types


def test_no_pointer_cast_in_generated_code(headers: tuple[Path, list[Any]]) -> None:
    out, _ = headers
    files = sorted(out.rglob("*.h")) + sorted(out.rglob("*.hpp"))
    assert len(files) > 500
    wide = [
        f"{p.relative_to(out)}: {m[0]}"
        for p in files
        for m in CPP_POINTER_CAST.finditer(p.read_text())
        if m[1] not in BYTES
    ]
    assert not wide, wide[:20]
    assert CPP_POINTER_CAST.search("auto p = reinterpret_cast<const std::uint32_t*>(b);")
    casts = [
        f"{p.relative_to(out)}: {m[0]}"
        for p in files
        for m in POINTER_CAST.finditer(p.read_text())
        if m[1] not in BYTES
    ]
    assert sum(len(POINTER_CAST.findall(p.read_text())) for p in files) > 100  # byte casts
    assert not casts, casts[:20]
    assert POINTER_CAST.search("x = *(const uint32_t*) (buf + 1);")  # the pattern finds one


def _source(types: list[Any]) -> str:
    lines, seen = [], set()
    for t in types:
        n, h = c_name(t), c_header(t)
        if n in seen:
            continue
        seen.add(n)
        lines += [
            f"#include <{h}>",
            f"int8_t s_{n}(const {n}* o, uint8_t* b, size_t* s);",
            f"int8_t s_{n}(const {n}* o, uint8_t* b, size_t* s) {{ return {n}_serialize_(o, b, s); }}",
            f"int8_t d_{n}({n}* o, const uint8_t* b, size_t* s);",
            f"int8_t d_{n}({n}* o, const uint8_t* b, size_t* s) {{ return {n}_deserialize_(o, b, s); }}",
        ]  # fmt: skip
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("generic", [False, True], ids=["fast", "generic"])
@pytest.mark.parametrize("cpu", ["cortex-m0", "cortex-m4"])
def test_compiles_for_cortex_m_without_raising_alignment(
    headers: tuple[Path, list[Any]], tmp_path: Path, cpu: str, generic: bool
) -> None:
    out, types = headers
    cc = shutil.which(CC)
    if cc is None:
        pytest.skip(f"{CC} not found (python3 dev.py setup installs it)")
    half = len(types) // 2
    defines = ["-DWIREPLAN_DSDL_GENERIC"] if generic else []
    for k, part in enumerate((types[:half], types[half:])):
        src = tmp_path / f"part{k}.c"
        src.write_text(_source(part))
        obj = tmp_path / f"part{k}.o"
        cmd = [
            cc,
            *FLAGS,
            f"-mcpu={cpu}",
            *defines,
            f"-I{out / 'c'}",
            "-c",
            str(src),
            "-o",
            str(obj),
        ]
        done = subprocess.run(cmd, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-4000:]
        symbols = subprocess.run(
            ["arm-none-eabi-nm", "--defined-only", str(obj)], capture_output=True, text=True
        ).stdout
        assert symbols.count(" T s_") == len({c_name(t) for t in part})


def _cpp_source(types: list[Any]) -> str:
    lines, seen = ["#include <cstdint>"], set()
    for k, t in enumerate(types):
        n = cpp_name(t)
        if n in seen:
            continue
        seen.add(n)
        lines += [
            f'#include "{cpp_parts(t)[2]}"',
            f"nunavut::support::SerializeResult s{k}(const {n}& o, nunavut::support::bitspan b);",
            f"nunavut::support::SerializeResult s{k}(const {n}& o, nunavut::support::bitspan b) "
            "{ return serialize(o, b); }",
            f"nunavut::support::SerializeResult d{k}({n}& o, nunavut::support::const_bitspan b);",
            f"nunavut::support::SerializeResult d{k}({n}& o, nunavut::support::const_bitspan b) "
            "{ return deserialize(o, b); }",
        ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("cpu", "generic"), [("cortex-m0", False), ("cortex-m0", True), ("cortex-m4", False)]
)
def test_cpp_compiles_for_cortex_m_without_raising_alignment(
    headers: tuple[Path, list[Any]], tmp_path: Path, cpu: str, generic: bool
) -> None:
    out, types = headers
    cxx = shutil.which(CXX)
    if cxx is None:
        pytest.skip(f"{CXX} not found (python3 dev.py setup installs it)")
    half = len(types) // 2
    defines = ["-DWIREPLAN_DSDL_GENERIC"] if generic else []
    procs = []
    for k, part in enumerate((types[:half], types[half:])):
        src = tmp_path / f"part{k}.cpp"
        src.write_text(_cpp_source(part))
        cmd = [cxx, *CXX_FLAGS, f"-mcpu={cpu}", *defines, f"-I{out / 'cpp'}",
               "-Wno-deprecated-declarations", "-c", str(src), "-o", str(src.with_suffix(".o"))]  # fmt: skip
        procs.append((part, src.with_suffix(".o"), subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))  # fmt: skip
    for part, obj, proc in procs:
        _, err = proc.communicate()
        assert proc.returncode == 0, err[-4000:]
        symbols = subprocess.run(
            ["arm-none-eabi-nm", "--defined-only", "-C", str(obj)], capture_output=True, text=True
        ).stdout
        assert symbols.count(" T s") >= len({cpp_name(t) for t in part})
