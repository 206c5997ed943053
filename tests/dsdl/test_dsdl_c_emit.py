"""The C backend's headers: nunavut 3.1's API (files, names, macros, members, signatures),
a compile-and-run round trip against pydsdl's bytes, the layout column and the CLI.

nunavut 3.1's ``nnvg`` is the peer ($WIREPLAN_NNVG, default the development environment's);
gcc compiles the probes.  The full sanitizer harness over every type is test_dsdl_c.py.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pydsdl
import pytest

import wireplan.dsdl as dsdl
from wireplan.cli import main
from wireplan.dsdl.compiler.emit_c import (
    SUPPORT_HEADER,
    SUPPORT_HEADERS,
    c_name,
    header_path,
    strop,
)
from wireplan.errors import WireplanError

from ._support import CORNER, REG, REPO, UAVCAN, serializable, unwrap

NNVG = Path(os.environ.get("WIREPLAN_NNVG", REPO / ".venv-nunavut-3.1" / "bin" / "nnvg"))
GCC = shutil.which("gcc")
CFLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror"]


def _need_tools() -> None:
    if GCC is None:
        pytest.skip("gcc not found")


@pytest.fixture(scope="module")
def corner_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corner namespace in a folder named ``corner`` (nnvg names the root after it)."""
    dest = tmp_path_factory.mktemp("src") / "corner"
    shutil.copytree(CORNER, dest)
    return dest


@pytest.fixture(scope="module")
def nnvg_out(tmp_path_factory: pytest.TempPathFactory, corner_copy: Path) -> Path:
    _need_tools()
    if not NNVG.is_file():
        pytest.skip(f"nunavut 3.1's nnvg not found at {NNVG} (set WIREPLAN_NNVG)")
    out = tmp_path_factory.mktemp("nnvg")
    for root, lookup in ((UAVCAN, []), (REG, [UAVCAN]), (corner_copy, [])):
        cmd = [str(NNVG), "--target-language", "c", "--outdir", str(out), str(root)]
        for d in lookup:
            cmd += ["--lookup-dir", str(d)]
        subprocess.run(cmd, check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def wp_out(tmp_path_factory: pytest.TempPathFactory, corner_copy: Path) -> Path:
    """wireplan's headers, the namespaces compiled one by one into one folder."""
    _need_tools()
    out = tmp_path_factory.mktemp("wp")
    dsdl.compile(REG, lookup=UAVCAN, output=out, language="c")  # uavcan partly, as a lookup
    dsdl.compile(UAVCAN, output=out, language="c")
    dsdl.compile(REG, lookup=UAVCAN, output=out, language="c")  # keeps the whole of uavcan
    dsdl.compile(corner_copy, output=out, language="c")
    return out


def _headers(folder: Path, skip: str | tuple[str, ...]) -> set[str]:
    return {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*.h")
        if not p.relative_to(folder).as_posix().startswith(skip)
    }


def test_same_files(nnvg_out: Path, wp_out: Path) -> None:
    theirs = _headers(nnvg_out, "nunavut/")
    mine = _headers(wp_out, ("wireplan/", "nunavut/"))
    assert mine == theirs
    assert "uavcan/_register/Value_1_0.h" in mine
    assert "reg/udral/service/battery/_0_1.h" in mine
    assert set(SUPPORT_HEADERS) == {SUPPORT_HEADER, "nunavut/support/serialization.h"}
    for path in SUPPORT_HEADERS:
        assert (wp_out / path).is_file()
    assert (nnvg_out / "nunavut/support/serialization.h").is_file()  # the name is nunavut's


# The warning flags of nunavut's verification suite (verification/cmake/compiler_flag_sets),
# for C and, for C headers compiled as C++, with its C++ additions.
STRICT_C = [
    "-pedantic", "-Wall", "-Wextra", "-Werror", "-Wshadow", "-Wfloat-equal", "-Wconversion",
    "-Wunused-parameter", "-Wunused-variable", "-Wunused-value", "-Wcast-align",
    "-Wmissing-declarations", "-Wmissing-field-initializers", "-Wdouble-promotion",
    "-Wswitch-enum", "-Wtype-limits",
]  # fmt: skip
STRICT_CXX = [
    *STRICT_C, "-Wsign-conversion", "-Wsign-promo", "-Wzero-as-null-pointer-constant",
    "-Wnon-virtual-dtor", "-Woverloaded-virtual", "-Wno-old-style-cast",
]  # fmt: skip


@pytest.mark.parametrize("who", ["wireplan", "nunavut"])
@pytest.mark.parametrize(("lang", "flags"), [("c", ["-std=c11", *STRICT_C]),
                                             ("c++", ["-std=c++17", *STRICT_CXX])])  # fmt: skip
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_strict_warnings(
    nnvg_out: Path, wp_out: Path, tmp_path: Path, who: str, lang: str, flags: list[str], opt: str
) -> None:
    """Every header, as C11 and as C++17, under nunavut's verification flags: no warning.
    nunavut's own headers pass too (they show the flags are the suite's, not made up)."""
    out = wp_out if who == "wireplan" else nnvg_out
    compiler = shutil.which("g++" if lang == "c++" else "gcc")
    assert compiler is not None, f"the {lang} compiler is needed"
    headers = sorted(_headers(out, "wireplan/"))  # nunavut/support/serialization.h included
    src = tmp_path / ("all.cpp" if lang == "c++" else "all.c")
    src.write_text("".join(f"#include <{h}>\n" for h in headers))
    done = subprocess.run(
        [compiler, *flags, opt, f"-I{out}", "-c", str(src), "-o", str(tmp_path / "all.o")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "warning" not in done.stderr


NUNAVUT_STYLE_APP = r"""
#include <nunavut/support/serialization.h>

#if NUNAVUT_SUPPORT_LANGUAGE_OPTION_ENABLE_OVERRIDE_VARIABLE_ARRAY_CAPACITY == 1
#    define uavcan_primitive_String_1_0_value_ARRAY_CAPACITY_ 4U
#endif
#include <uavcan/primitive/String_1_0.h>

#include <stdio.h>

static_assert(uavcan_primitive_String_1_0_value_ARRAY_CAPACITY_ == 256U, "capacity");
static_assert(NUNAVUT_SUPPORT_LANGUAGE_OPTION_OMIT_SERIALIZATION_SUPPORT == 0, "serialization");

int main(void)
{
    uavcan_primitive_String_1_0 s;
    uavcan_primitive_String_1_0_initialize_(&s);
    s.value.count = 2U;
    s.value.elements[0] = (uint8_t) 'h';
    s.value.elements[1] = (uint8_t) 'i';
    uint8_t buf[uavcan_primitive_String_1_0_SERIALIZATION_BUFFER_SIZE_BYTES_ - 1U];
    size_t size = sizeof(buf);
    const int8_t short_rc = uavcan_primitive_String_1_0_serialize_(&s, buf, &size);
    uint8_t room[uavcan_primitive_String_1_0_SERIALIZATION_BUFFER_SIZE_BYTES_];
    size = sizeof(room);
    const int8_t rc = uavcan_primitive_String_1_0_serialize_(&s, room, &size);
    printf("%d %d %d %zu", short_rc == -NUNAVUT_ERROR_SERIALIZATION_BUFFER_TOO_SMALL,
           rc == NUNAVUT_SUCCESS, NUNAVUT_ERROR_REPRESENTATION_BAD_UNION_TAG, size);
    for (size_t i = 0; i < size; i++)
    {
        printf(" %02x", room[i]);
    }
    printf("\n");
    return 0;
}
"""


def test_code_that_includes_nunavuts_support_header(
    nnvg_out: Path, wp_out: Path, tmp_path: Path
) -> None:
    """An application that includes nunavut/support/serialization.h for its macros and calls
    static_assert builds on both outputs, under the strict flags, and prints the same."""
    _need_tools()
    assert GCC is not None
    src = tmp_path / "app.c"
    src.write_text(NUNAVUT_STYLE_APP)
    printed = []
    for out in (wp_out, nnvg_out):
        exe = tmp_path / f"app_{out.name}"
        cmd = [GCC, "-std=c11", *STRICT_C, f"-I{out}", str(src), "-o", str(exe)]
        built = subprocess.run(cmd, capture_output=True, text=True)
        assert built.returncode == 0, built.stderr[-4000:]
        printed.append(subprocess.run([exe], capture_output=True, text=True, check=True).stdout)
    assert printed[0] == printed[1] == "1 1 11 4 02 00 68 69\n"


def test_support_header_of_another_tool_is_not_replaced(tmp_path: Path) -> None:
    theirs = tmp_path / "nunavut" / "support" / "serialization.h"
    theirs.parent.mkdir(parents=True)
    theirs.write_text("/* nunavut's */\n")
    with pytest.raises(WireplanError, match="was not written by wireplan"):
        dsdl.compile(CORNER, output=tmp_path, language="c")
    assert theirs.read_text() == "/* nunavut's */\n"
    assert not (tmp_path / "corner").exists()


def test_names() -> None:
    assert strop("register") == "_register"
    assert strop("string") == "_string"  # reserved by <string.h>'s str* pattern
    assert strop("torque") == "_torque" and strop("torque", path=True) == "torque"
    assert strop("_Foo") == "_foo"
    assert strop("__0_1", path=True) == "_0_1"
    assert c_name("reg.udral.service.battery._", (0, 1)) == "reg_udral_service_battery___0_1"
    assert header_path("uavcan.register.Value", (1, 0)) == "uavcan/_register/Value_1_0.h"


# -- nunavut's API, read from its headers ----------------------------------------------------------

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _strip(text: str) -> str:
    return _COMMENTS.sub("", text)


def _split_members(body: str) -> list[str]:
    out, depth, start = [], 0, 0
    for k, ch in enumerate(body):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == ";" and depth == 0:
            out.append(body[start:k].strip())
            start = k + 1
    return [m for m in out if m]


def _members(body: str, prefix: str) -> list[tuple[str, str, str]]:
    """(path, element type, array suffix) of every leaf member of a struct body."""
    out = []
    for decl in _split_members(body):
        m = re.match(r"(struct|union)\s*\{(.*)\}\s*(\w*)$", decl, re.S)
        if m:
            name = m[3]
            out += _members(m[2], f"{prefix}.{name}" if name else prefix)
            continue
        m = re.match(r"(.+?)\s+(\w+)\s*(\[[^\]]+\])?$", decl, re.S)
        assert m, decl
        out.append((f"{prefix}.{m[2]}".lstrip("."), " ".join(m[1].split()), m[3] or ""))
    return out


def _api(folder: Path, headers: set[str]) -> tuple[list[str], list[str], list[str]]:
    """Probe lines checking nunavut's structs, functions and macros of ``headers``."""
    structs, functions = [], []
    for rel in sorted(headers):
        text = _strip((folder / rel).read_text())
        for m in re.finditer(r"typedef struct\s*\{", text):
            depth, k = 1, m.end()
            while depth:
                depth += {"{": 1, "}": -1}.get(text[k], 0)
                k += 1
            name = re.match(r"\s*(\w+)\s*;", text[k:])
            assert name
            t = name[1]
            for path, ctype, arr in _members(text[m.end() : k - 1], ""):
                ptr = f"{ctype}(*){arr}" if arr else f"{ctype}*"
                structs.append(
                    f"WIREPLAN_DSDL_STATIC_ASSERT(_Generic(&((({t}*) 0)->{path}), {ptr}: 1, "
                    f'default: 0), "{t}.{path}");'
                )
        for m in re.finditer(r"static inline\s+(\w+)\s+(\w+)\s*\(([^)]*)\)\s*\{", text):
            params = []
            for p in m[3].split(","):
                words = p.replace("*", " * ").split()
                params.append(" ".join(words[:-1]).replace(" const", "").replace(" *", "*"))
            functions.append(f"{m[1]} (*const fp_{m[2]})({', '.join(params)}) = {m[2]};")
    return structs, functions, []


def _macros(folder: Path, headers: set[str], tmp: Path) -> dict[str, str]:
    probe = tmp / "macros.c"
    probe.write_text("".join(f"#include <{h}>\n" for h in sorted(headers)))
    assert GCC is not None
    res = subprocess.run(
        [GCC, "-std=c11", "-E", "-dM", f"-I{folder}", str(probe)],
        check=True,
        capture_output=True,
        text=True,
    )
    out = {}
    for line in res.stdout.splitlines():
        m = re.match(r"#define (\w+)(?:\s+(.*))?$", line)
        if m:
            out[m[1]] = (m[2] or "").strip()
    return out


def test_same_api(nnvg_out: Path, wp_out: Path, tmp_path: Path) -> None:
    """Every struct member (with its C type), function (with its signature) and macro of
    nunavut's headers exists in wireplan's, macros with the same value."""
    headers = _headers(nnvg_out, "nunavut/")
    structs, functions, _ = _api(nnvg_out, headers)
    theirs = _macros(nnvg_out, headers, tmp_path)
    mine = _macros(wp_out, headers, tmp_path)
    refs = {re.match(r"WIREPLAN_DSDL_STATIC_ASSERT\(_Generic\(&\(\(\((\w+)", s)[1] for s in structs}  # type: ignore[index]
    wanted = {
        name: value
        for name, value in theirs.items()
        if name.startswith("NUNAVUT_ERROR_")
        or name == "NUNAVUT_SUCCESS"
        or any(name.startswith(r + "_") for r in refs)
        or name.endswith("_INCLUDED_")
    }
    assert len(wanted) > 2000
    missing = sorted(set(wanted) - set(mine))
    assert not missing, missing[:20]
    checks = []
    for name, value in wanted.items():
        if value.startswith('"'):
            assert mine[name] == value, name
        elif value and "float" not in value and "double" not in value:
            checks.append(f'WIREPLAN_DSDL_STATIC_ASSERT(({name}) == ({value}), "{name}");')
    probe = tmp_path / "probe.c"
    probe.write_text(
        "".join(f"#include <{h}>\n" for h in sorted(headers))
        + "\n".join(structs + checks)
        + "\nint main(void)\n{\n"
        + "\n".join(f"    {f}\n    (void) fp_{f.split('fp_')[1].split(')')[0]};" for f in functions)
        + "\n    return 0;\n}\n"
    )
    assert GCC is not None
    res = subprocess.run(
        [GCC, *CFLAGS, "-Wno-unused-variable", f"-I{wp_out}", "-c", str(probe), "-o",
         str(tmp_path / "probe.o")],
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr[:4000]
    assert len(structs) > 650 and len(functions) > 700, (len(structs), len(functions))


# -- round trips against pydsdl -------------------------------------------------------------------


def _random(t: Any, rnd: random.Random, depth: int = 0) -> Any:
    t = unwrap(t)
    if isinstance(t, pydsdl.UnionType):
        f = rnd.choice(t.fields_except_padding)
        return {f.name: _random(f.data_type, rnd, depth + 1)}
    if isinstance(t, pydsdl.CompositeType):
        return {f.name: _random(f.data_type, rnd, depth + 1) for f in t.fields_except_padding}
    if isinstance(t, pydsdl.FixedLengthArrayType):
        return [_random(t.element_type, rnd, depth + 1) for _ in range(t.capacity)]
    if isinstance(t, pydsdl.VariableLengthArrayType):
        n = rnd.randint(0, min(t.capacity, 70 if depth == 0 else 4))
        if isinstance(t.element_type, pydsdl.UTF8Type):
            return "".join(rnd.choice("abz") for _ in range(n))
        if isinstance(t.element_type, pydsdl.ByteType):
            return bytes(rnd.randrange(256) for _ in range(n))
        return [_random(t.element_type, rnd, depth + 1) for _ in range(n)]
    if isinstance(t, pydsdl.BooleanType):
        return rnd.random() < 0.5
    if isinstance(t, pydsdl.FloatType):
        pool = [0.0, -1.5, 65504.0, 2.0**-24, float("inf"), float("-inf")]
        if t.bit_length > 16:
            pool += [rnd.uniform(-1e6, 1e6), 1e-40]
        return rnd.choice(pool)
    bits = t.bit_length
    if isinstance(t, pydsdl.SignedIntegerType):
        return rnd.randint(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    return rnd.randint(0, (1 << bits) - 1)


def _harness(types: list[tuple[Any, Any]]) -> str:
    lines = ["#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>"]
    for top, _ in types:
        lines.append(
            f"#include <{header_path(top.full_name, (top.version.major, top.version.minor))}>"
        )
    for k, (_, t) in enumerate(types):
        inner = unwrap(t)
        n = c_name(inner.full_name, (inner.version.major, inner.version.minor))
        lines.append(
            f"static int rt{k}(const uint8_t* in, size_t n, uint8_t* out, size_t* on)\n{{\n"
            f"    {n} o;\n    memset(&o, 0xA5, sizeof o);\n    size_t s = n;\n"
            f"    int8_t e = {n}_deserialize_(&o, in, &s);\n"
            "    if (e < 0)\n    {\n        return e;\n    }\n"
            "    if (s != n)\n    {\n        return -100;\n    }\n"
            f"    *on = {n}_SERIALIZATION_BUFFER_SIZE_BYTES_;\n"
            f"    return {n}_serialize_(&o, out, on);\n}}"
        )
    table = ", ".join(f"rt{k}" for k in range(len(types)))
    lines.append(
        "typedef int (*rt_fn)(const uint8_t*, size_t, uint8_t*, size_t*);\n"
        f"static const rt_fn T[] = {{{table}}};\n"
        "int main(void)\n{\n"
        "    static char line[200000];\n    static uint8_t in[70000], out[70000];\n"
        "    while (fgets(line, sizeof line, stdin))\n    {\n"
        "        char* p = line;\n        const int idx = (int) strtol(p, &p, 10);\n"
        "        size_t n = 0;\n        p++;\n"
        "        while ((p[0] != 0) && (p[0] != '\\n'))\n        {\n"
        '            unsigned v;\n            (void) sscanf(p, "%2x", &v);\n'
        "            in[n++] = (uint8_t) v;\n            p += 2;\n        }\n"
        "        uint8_t* const exact = malloc((n > 0) ? n : 1);\n"
        "        memcpy(exact, in, n);\n        size_t on = 0;\n"
        "        const int e = T[idx](exact, n, out, &on);\n        free(exact);\n"
        '        if (e < 0)\n        {\n            printf("E%d\\n", e);\n            continue;\n        }\n'
        "        for (size_t i = 0; i < on; i++)\n        {\n"
        '            printf("%02x", out[i]);\n        }\n        printf("\\n");\n    }\n'
        "    return 0;\n}\n"
    )
    return "\n".join(lines)


@pytest.mark.parametrize("generic", [False, True], ids=["fast", "generic"])
def test_round_trip_pydsdl(wp_out: Path, tmp_path: Path, corner_copy: Path, generic: bool) -> None:
    """Every type of uavcan, reg and corner: pydsdl's bytes of random values deserialized and
    serialized again by the generated C are the same bytes (the fast and the generic path)."""
    found = (
        pydsdl.read_namespace(str(UAVCAN), [])
        + pydsdl.read_namespace(str(REG), [str(UAVCAN)])
        + pydsdl.read_namespace(str(corner_copy), [])
    )
    types = []
    for top in found:
        for t in serializable([top]):
            types.append((top, t))
    src = tmp_path / "rt.c"
    src.write_text(_harness(types))
    exe = tmp_path / "rt"
    assert GCC is not None
    flags = ["-O1", *(["-DWIREPLAN_DSDL_GENERIC"] if generic else [])]
    res = subprocess.run(
        [GCC, *CFLAGS, *flags, f"-I{wp_out}", str(src), "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stderr[:4000]
    rnd = random.Random(14)
    inputs = [
        (k, bytes(pydsdl.serialize(t, _random(t, rnd))))
        for k, (_, t) in enumerate(types)
        for _ in range(4)
    ]
    run = subprocess.run(
        [str(exe)],
        input="".join(f"{k} {b.hex()}\n" for k, b in inputs),
        capture_output=True,
        text=True,
        check=True,
    )
    got = run.stdout.splitlines()
    assert len(got) == len(inputs)
    bad = [
        (str(types[k][1]), b.hex(), o)
        for (k, b), o in zip(inputs, got, strict=True)
        if o != b.hex()
    ]
    assert not bad, bad[:5]


def test_errors_and_short_buffers(wp_out: Path, tmp_path: Path) -> None:
    """nunavut's error codes; short input is zero-extended, a short output buffer refused."""
    src = tmp_path / "errors.c"
    src.write_text(
        """#include <stdio.h>
#include <uavcan/node/Heartbeat_1_0.h>
#include <uavcan/primitive/array/Real32_1_0.h>
#include <uavcan/_register/Value_1_0.h>
int main(void)
{
    uavcan_node_Heartbeat_1_0 hb;
    uavcan_node_Heartbeat_1_0_initialize_(&hb);
    hb.uptime = 0x01020304UL;
    hb.health.value = 9;  /* saturated uint2: 3 on the wire */
    uint8_t buf[16];
    size_t n = 6;
    int bad = uavcan_node_Heartbeat_1_0_serialize_(&hb, buf, &n);
    n = sizeof buf;
    int ok = uavcan_node_Heartbeat_1_0_serialize_(&hb, buf, &n);
    uavcan_node_Heartbeat_1_0 back;
    size_t m = 5;
    int de = uavcan_node_Heartbeat_1_0_deserialize_(&back, buf, &m);
    uavcan_primitive_array_Real32_1_0 r;
    r.value.count = 65;
    size_t k = sizeof buf;
    uint8_t big[300];
    k = sizeof big;
    int toolong = uavcan_primitive_array_Real32_1_0_serialize_(&r, big, &k);
    const uint8_t badlen[] = {65};
    k = 1;
    int badde = uavcan_primitive_array_Real32_1_0_deserialize_(&r, badlen, &k);
    const uint8_t badtag[] = {200};
    uavcan_register_Value_1_0 v;
    k = 1;
    int tag = uavcan_register_Value_1_0_deserialize_(&v, badtag, &k);
    printf("%d %d %zu %02x %d %zu %lu %d %d %d %d %d\\n", bad, ok, n, buf[4], de, m,
           (unsigned long) back.uptime, back.health.value, back.vendor_specific_status_code,
           toolong, badde, tag);
    return 0;
}
"""
    )
    exe = tmp_path / "errors"
    assert GCC is not None
    subprocess.run([GCC, *CFLAGS, f"-I{wp_out}", str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    assert out == ["-3", "0", "7", "03", "0", "5", str(0x01020304), "3", "0", "-10", "-10", "-11"]


# -- layout column, CLI, API ---------------------------------------------------------------------


def test_layout_shows_c_strategy() -> None:
    lay = dsdl.layout("corner.Mixed.1.0", CORNER)
    by_path = {f.path: f for f in lay.fields}
    assert by_path["a"].c_strategy == "load"
    assert by_path["d"].c_strategy == "bits"
    assert by_path["flags"].c_strategy == "copy"
    assert by_path["after_flags"].c_strategy == "stream"
    assert by_path["flags"].cpp_strategy == "bit-loop"  # C++: a std::vector<bool>, bit by bit
    assert by_path["a"].cpp_strategy == "load"
    assert lay.c_strategy == "runs"
    text = lay.render()
    assert "C/C++ strategy" in text and "copy/bit-loop" in text
    real = dsdl.layout("uavcan.si.unit.velocity.Vector3.1.0", UAVCAN)
    assert real.c_strategy == "memcpy-object"
    assert {f.c_strategy for f in real.fields} == {"memcpy-object"}


def test_cli_compile_cpp(tmp_path: Path) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["dsdl", "compile", str(CORNER), "--language", "cpp", "-o", str(tmp_path)])
    assert code == 0
    assert "C++ headers: corner" in out.getvalue()
    assert (tmp_path / "corner" / "Mixed_1_0.hpp").is_file()
    assert (tmp_path / "nunavut" / "support" / "serialization.hpp").is_file()
    assert (tmp_path / SUPPORT_HEADER).is_file()
    assert [h.relative_to(tmp_path).as_posix() for h in tmp_path.rglob("*.h")] == [SUPPORT_HEADER]
    assert not list(tmp_path.rglob("*.py"))
    assert json.loads((tmp_path / "corner" / "_wireplan_c.json").read_text())["language"] == "cpp"


def test_cli_compile_c(tmp_path: Path) -> None:
    _need_tools()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["dsdl", "compile", str(CORNER), "--language", "c", "-o", str(tmp_path)])
    assert code == 0
    assert "C headers" in out.getvalue()
    assert (tmp_path / "corner" / "Mixed_1_0.h").is_file()
    assert (tmp_path / SUPPORT_HEADER).is_file()
    assert not list(tmp_path.rglob("*.py"))


def test_compile_c_refuses(tmp_path: Path) -> None:
    with pytest.raises(WireplanError, match="unknown language"):
        dsdl.compile(CORNER, output=tmp_path, language="rust")
    (tmp_path / "corner").mkdir()
    (tmp_path / "corner" / "mine.h").write_text("/* not ours */")
    with pytest.raises(WireplanError, match="not written by wireplan"):
        dsdl.compile(CORNER, output=tmp_path, language="c")
    assert (tmp_path / "corner" / "mine.h").read_text() == "/* not ours */"


def test_recompile_replaces_root(tmp_path: Path) -> None:
    dsdl.compile(CORNER, output=tmp_path, language="c")
    stale = tmp_path / "corner" / "Gone_1_0.h"
    stale.write_text("/* a type that no longer exists */")
    dsdl.compile(CORNER, output=tmp_path, language="c")
    assert not stale.exists()
    assert (tmp_path / "corner" / "Mixed_1_0.h").is_file()


def test_float16_conversion(wp_out: Path, tmp_path: Path) -> None:
    """The support header's float16 packing rounds as numpy does (to nearest even, overflow to
    infinity; saturated: +-65504), and every half survives unpack + pack bit for bit."""
    import numpy as np

    rng = np.random.default_rng(16)
    bits = np.concatenate(
        [
            rng.integers(0, 1 << 32, 20000, dtype=np.uint64).astype(np.uint32),
            np.array([0x477FEFFF, 0x477FF000, 0x477FF001, 0x33000000, 0x33000001, 0x387FE000],
                     dtype=np.uint32),
        ]
    )  # fmt: skip
    floats = bits.view(np.float32)
    keep = ~np.isnan(floats)
    bits, floats = bits[keep], floats[keep]
    with np.errstate(over="ignore"):
        want = floats.astype(np.float16).view(np.uint16)
    sat = want.copy()
    finite = np.isfinite(floats)
    sat[finite & ((want & 0x7FFF) == 0x7C00)] |= 0x7BFF
    sat[finite & ((want & 0x7FFF) == 0x7C00)] &= 0xFBFF
    src = tmp_path / "f16.c"
    src.write_text(
        "#include <stdio.h>\n#include <wireplan/dsdl/support.h>\n"
        "int main(void)\n{\n    unsigned long b;\n    unsigned bad = 0;\n"
        '    while (scanf("%lx", &b) == 1)\n    {\n'
        "        const float f = wireplanF32From((uint32_t) b);\n"
        '        printf("%04x %04x\\n", wireplanF16Pack(f, false), wireplanF16Pack(f, true));\n'
        "    }\n"
        "    for (uint32_t h = 0; h < 65536U; h++)\n    {\n"
        "        bad += wireplanF16Pack(wireplanF16Unpack((uint16_t) h), false) != h;\n    }\n"
        '    printf("%u\\n", bad);\n    return 0;\n}\n'
    )
    exe = tmp_path / "f16"
    assert GCC is not None
    subprocess.run([GCC, *CFLAGS, "-O2", f"-I{wp_out}", str(src), "-o", str(exe)], check=True)
    run = subprocess.run(
        [str(exe)],
        input="\n".join(f"{int(b):x}" for b in bits),
        capture_output=True,
        text=True,
        check=True,
    )
    lines = run.stdout.split("\n")
    assert lines[-2] == "0"  # every half round-trips, NaN payloads included
    got = [line.split() for line in lines[:-2]]
    assert [int(g[0], 16) for g in got] == [int(w) for w in want]
    assert [int(g[1], 16) for g in got] == [int(s) for s in sat]
